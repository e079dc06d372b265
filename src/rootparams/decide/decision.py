"""From measurements to a decision: per format, the settings worth considering (the Pareto front of file size,
event rate and write cost) and the cheapest one for a file's life (a cost model whose prices are in the config,
``cost``), each with how sure it is.

Every number comes from the run's tables: summary.csv (each point's timed reads, validity), repetitions.csv
(each timed read, with the round it was taken in) and files.csv (each file: size, events, ROOT's write time).
Only points with a valid timed loop and unflagged repetitions enter; the others are counted, never guessed.

Quantities, per event, so that formats and files of any size compare:

- ``bytes_per_event``: the file's size on disk over its events (files.csv ``size_bytes / events``). Exact.
- ``event_rate_hz``: the point's timed loop (summary.csv ``event_rate_hz_mean``, span "loop": first entry to the
  end of the loop), with its 95 % interval of the mean: what the Pareto fronts compare.
- ``read_seconds_per_event``: the whole read a job pays for, open and loop (span "process"): the mean over the
  unflagged repetitions of ``process_seconds / events_read`` (repetitions.csv: 1 / ``process_event_rate_hz``).
  Times are averaged, not rates: a cost adds up seconds. The open grows with the branches and baskets of a file,
  so a cost of the loop alone would favour high split levels and short reads.
- ``write_core_us_per_event``: ROOT's part of writing the file in CPU time of all the writer's threads, per event
  (files.csv ``root_write_cpu_seconds``: the fills and the closing flush, which include serialization and
  compression on implicit-MT workers, not the generation of the synthetic content; for a rewrite of a user's
  file, the whole copy, its reading included). CPU time, not wall time, because the workflow writes files side
  by side and a write's wall time grows with what shares its cores. **One measurement per file (n = 1)**: its
  noise cannot come from its own repetitions, so it is measured on a few of the study's files written again
  (``write_noise``: the pooled within-file σ of log CPU time per event of results/primitives/write_noise.csv,
  rootparams.measure.writenoise, with its 95 % interval and the number of writes). Without that primitive
  (measurement.primitives off, or only users' files) it is borrowed, and the tables say so
  (``write_noise_source``): the median relative spread (σ/mean) of the timed loops' CPU time over the points of
  the run (repetitions.csv ``loop_cpu_seconds``), CPU-bound work of the same host measured many times. Catalogues
  from before the CPU time was recorded fall back to ``root_write_seconds`` x the writer's threads.

**Cost model**, per million events over the file's life, in the prices' currency:

    storage  = bytes_per_event * 1e6 / 1e12 [TB] * disk_per_tb_year * lifetime_years * copies        (exact)
    write    = write_core_us_per_event * 1e6 / 1e6 / 3600 [core-hours] * cpu_per_core_hour
                                                          (n = 1; 95 % interval from the host's write_noise)
    read     = mean_k(process_seconds_k / events_read_k) * 1e6 / 3600 * threads [core-hours]
               * cpu_per_core_hour                                            (per read; 95 % interval)
    total(N) = storage + write + N * read

A read holds its threads' cores for its wall time: a batch slot is paid by the wall clock, also while it waits
for the disk, so the reads of the cost's storage profile are what price a read. The candidates are the valid
points of that profile and of each format's default branch selection, in both containers, with at least two
timed reads (an interval needs two); settings that lose float precision (``float_precision`` other than "full")
are left out unless ``cost.lossy`` is true, because what precision an analysis can lose is a physics decision,
not a price.

**How sure: a bootstrap over rounds.** The points of a format are measured in interleaved rounds, so the reads
of one round were taken minutes apart under the same state of the host. Per format, the rounds are resampled with
replacement, ``BOOTSTRAP_REPLICATES`` times with a fixed seed, the same draw for every candidate that shares them
(``intervals.bootstrap_means`` over ``intervals.round_matrix``): a slow spell of the host moves every candidate of a
replicate alike and does not blur their comparison. Candidates whose rounds are not shared (another measuring job)
get draws of their own; a candidate without round keys (records from before the rounds) is resampled on its own
repetitions. With few rounds a percentile bootstrap is too narrow (by a factor sqrt((n-1)/n) and a normal in place
of a t quantile: 18 % at 10 rounds, 37 % at 5), so each replicate's deviation from the mean is widened by
t_{n-1} / z * sqrt(n / (n-1)) (the correction of Hesterberg's expanded percentile interval, applied to the
replicates so that candidates resampled together keep their pairing), n the candidate's own rounds (not those of
its group: an adaptive plan reads some candidates in fewer rounds than others): one candidate's interval is then
about Student's t interval of its mean. Each replicate also draws every file's write cost once, as
write x exp(ε - write_noise²/2), ε normal with σ = write_noise (the mean kept): the candidates that read one file
(its read settings) share that draw, so that its write, one event of the past, cannot make their comparison
uncertain. Disk is exact, so a replicate's total at N reads is storage + its write + N x its read, and the total's
95 % interval is that of the replicates. From the same replicates, per format and reads per file:

- ``p_cheapest``: the share of replicates in which a candidate is the cheapest.
- **The decision** names one setting, the lowest mean total, only where it is the cheapest in at least 95 % of the
  replicates (so also cheaper than each other candidate in at least 95 %). Otherwise it names a tie: that setting
  and every candidate it is cheaper than in fewer than 95 % of the replicates, each with its ``p_cheapest``
  ("equal within the uncertainty"); and, whatever it starts as, the tie grows, the candidates most often cheapest
  first, until its members together are the cheapest in at least 95 % of the replicates (settings each beaten
  by the best in 95 % may together be the cheapest more often than 5 %). The tie is thus a 95 % confidence set
  for the cheapest setting, in the bootstrap's sense.
- ``crossovers``: where the lowest mean changes as N grows: the lower envelope of the mean lines, with where, on a
  grid of ``SURE_GRID_PER_DECADE`` reads per decade, each stretch's setting is surely the cheapest by the rule
  above (never at a change itself, where two lines meet).

**Pareto front**, per group (format, container, storage profile, branch selection). Sizes and write costs are
exact; rates are not. A point q *surely beats* p when q is not larger, not costlier to write (where both are
known: a user's file measured as it is has no write cost and is compared on size and rate), its rate is not lower
(the rate ratio q/p, ``compare.Repetitions.ratio``, paired by round where it can be: its 95 % interval reaches 1
and lies above 1 / (1 + ``PARETO_RATE_MARGIN``), i.e. p is at most 5 % faster, with 95 % confidence) and q is
better in one (smaller, cheaper to write, or surely faster: the interval above 1). A point leaves the front only
when a point *on the front* surely beats it, so that every point off the front names one on it
(``dominated_by``, with the rate ratio's interval). Ambiguous points stay: a point that may be more than 5 %
faster, or is surely faster, than each point on the front that is not larger and not costlier to write stays on
the front.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from rootparams.measure.writenoise import BORROWED, NONE, WriteNoise, relative_spread
from rootparams.results.aggregate import valid_points
from rootparams.stats.compare import Repetitions
from rootparams.stats.intervals import (
    CONFIDENCE,
    HIGHER,
    LOWER,
    RATE_MARGIN,
    Ratio,
    bootstrap_means,
    quantiles,
    round_matrix,
    t_quantile,
)
from rootparams.study.formats import is_longer_read
from rootparams.study.labels import (
    autoflush_label,
    cache_label,
    format_order,
    format_title,
    reading_style_label,
)
from rootparams.vocabulary import LATER_FILE_KEY_DEFAULTS, RNTUPLE, TTREE, UNCOMPRESSED

_GROUP_KEYS = ["format", "container", "storage_profile", "branches"]
_FILE_COLUMNS = [
    "format",
    "file_id",
    "size_bytes",
    "events",
    "root_write_seconds",
    "root_write_cpu_seconds",
    "write_threads",
]
# Written next to every cost so that a table read alone says what it assumed.
_PRICE_KEYS = ("currency", "disk_per_tb_year", "cpu_per_core_hour", "lifetime_years", "copies")
# How sure the decision is (the docstring): the bootstrap's replicates, and a fixed seed so that the same tables
# always give the same decision.
BOOTSTRAP_REPLICATES = 2000
_BOOTSTRAP_SEED = 20250
# The most a point off a Pareto front may be faster than the point that beats it (with 95 % confidence): rate
# differences below it are not a reason to keep a larger or costlier setting.
PARETO_RATE_MARGIN = RATE_MARGIN
# The rate of a whole read (open + loop) per repetition, events_read / process_seconds (aggregate.DERIVED_METRICS):
# its inverse is the read's seconds per event.
_READ_SPAN_RATE = "process_event_rate_hz"
# A cost candidate needs an interval of its read, so two timed reads at least.
_MIN_TIMED_READS = 2
# Where along the reads per file a stretch of the envelope is surely the cheapest: the grid it is judged on.
_SURE_GRID_PER_DECADE = 24
# Next to every interval of a cost, so that a table read alone says what the interval includes.
_INTERVAL_COVERS = (
    "the reads (bootstrap over rounds) and the write (n = 1, one draw per file at write_noise); disk exact"
)
# The metric whose repeat noise stands for a write's: the CPU time of the timed loop, CPU-bound work of the same
# host measured many times.
_WRITE_NOISE_METRIC = "loop_cpu_seconds"
# The write noise a decision used, next to every cost: its σ/mean, interval, writes and source (writenoise).
_WRITE_NOISE_COLUMNS = (
    "write_noise",
    "write_noise_ci95_low",
    "write_noise_ci95_high",
    "write_noise_n",
    "write_noise_source",
)


def _true(value) -> bool:
    return str(value).lower() in ("true", "1")


def _algorithm_level(row) -> str:
    alg = str(row["algorithm"])
    return "uncompressed" if alg == UNCOMPRESSED else f"{alg.upper()}-{int(row['level'])}"


def setting_label(
    row: Mapping[str, Any], file_defaults: Mapping[str, Any], read_defaults: Mapping[str, Any]
) -> str:
    """A short name of a point's setting for people: the compression always, then every other setting that
    differs from the format's defaults (``file_defaults``) and the study's read defaults, e.g.
    "LZ4-1, AF 20 MB, cache off", "RNTuple ZSTD-5", "LZMA-5, hot largest4:lz4-1, mt2"."""
    parts = [_algorithm_level(row)]
    if row.get("container", TTREE) == RNTUPLE:
        parts[0] = f"RNTuple {parts[0]}"

    def differs(key, default=None):
        if key not in row or (isinstance(row[key], float) and math.isnan(row[key])):
            return False
        want = file_defaults.get(key, read_defaults.get(key, default))
        return want is not None and str(row[key]) != str(want)

    if differs("autoflush"):
        parts.append(f"AF {autoflush_label(int(row['autoflush']))}")
    if row.get("container", TTREE) == TTREE:
        if differs("split_level") and int(row["split_level"]) >= 0:
            parts.append(f"split {int(row['split_level'])}")
        if differs("basket_size") and int(row["basket_size"]) > 0:
            parts.append(f"basket {int(row['basket_size']) / 1000:g} kB")
    elif differs("page_size") and int(row["page_size"]) > 0:
        parts.append(f"page {int(row['page_size']) / 1024:g} KiB")
    if str(row.get("branch_compression", "uniform")) not in ("uniform", "nan"):
        parts.append(f"hot {row['branch_compression']}")
    if str(row.get("float_precision", "full")) not in ("full", "nan"):
        parts.append(f"floats {row['float_precision']}")
    if differs("cache_size"):
        parts.append(f"cache {cache_label(int(row['cache_size']))}")
    if differs("learn_entries"):
        parts.append(f"learn {row['learn_entries']}")
    if differs("cluster_bunch", 1):
        parts.append(f"bunch {int(row['cluster_bunch'])}")
    if _true(row.get("async_prefetch", False)):
        parts.append("async prefetch")
    if _true(row.get("unzip", False)):
        parts.append("parallel unzip")
    style = str(row.get("reading_style", "getentry"))
    if style != "getentry":
        parts.append(reading_style_label(style, int(row.get("threads", 1))))
    elif int(row.get("threads", 1)) != 1:
        parts.append(f"mt{int(row['threads'])}")
    return ", ".join(parts)


def candidates(summary: pd.DataFrame, files: pd.DataFrame, config: Mapping[str, Any]) -> pd.DataFrame:
    """Every measured point with its three objectives and a label; ``valid`` says whether it may enter a
    decision (a valid timed loop and a rate from unflagged repetitions). Not the points of a longer read of another
    format's recipe (formats.is_longer_read: xaod_long, the xAOD's cache scans past the TTreeCache's learning
    phase): one file at a few read settings has no Pareto front or decision of its own, and the recipe's is its
    base format's."""
    have = [c for c in _FILE_COLUMNS if c in files.columns]
    # The summary has hundreds of columns: keep only those the decision uses, or pandas warns at every column
    # added to the fragmented frame.
    wanted = [
        c for c in summary.columns if not c.endswith(("_std", "_mean", "_n")) or c.startswith("event_rate_hz")
    ]
    own = pd.Series([not is_longer_read(f) for f in summary["format"]], index=summary.index, dtype=bool)
    rows = (
        summary.loc[own, wanted]
        .merge(files[have], on=["format", "file_id"], how="left", suffixes=("", "_file"))
        .copy()
    )
    if "size_bytes_file" in rows:
        rows["size_bytes"] = rows["size_bytes_file"]
    for key, default in LATER_FILE_KEY_DEFAULTS.items():
        if key not in rows:
            rows[key] = default
        rows[key] = rows[key].fillna(default).astype(str)
    rows["bytes_per_event"] = rows["size_bytes"] / rows["events"]
    rows["event_rate_hz"] = rows["event_rate_hz_mean"]
    threads = rows["write_threads"].fillna(1) if "write_threads" in rows else 1
    write = rows.get("root_write_seconds", np.nan) * threads
    if "root_write_cpu_seconds" in rows:
        write = rows["root_write_cpu_seconds"].fillna(write)
    rows["write_core_us_per_event"] = 1e6 * write / rows["events"]
    rows["valid"] = valid_points(rows) & rows["event_rate_hz"].notna() & (rows["event_rate_hz"] > 0)
    rows["lossy"] = rows["float_precision"] != "full"
    read_defaults = config["read_defaults"]
    rows["setting"] = [
        setting_label(r, config["file_defaults"].get(r["format"], {}), read_defaults)
        for r in rows.to_dict("records")
    ]
    return rows


def read_repetitions(path: str | Path) -> Repetitions:
    """repetitions.csv with what the decision needs per timed read: the whole read's rate (the cost) and the
    loop's (the Pareto fronts), by round."""
    return Repetitions.read(path, metrics=[_READ_SPAN_RATE, "event_rate_hz", _WRITE_NOISE_METRIC])


def write_noise(repetitions: Repetitions, writes: pd.DataFrame | None = None) -> WriteNoise:
    """The relative 1σ noise of one write's CPU time (the docstring): measured, from the study's files written
    again (``writes``, results/primitives/write_noise.csv: rootparams.measure.writenoise) where they are; else borrowed,
    the median over the run's points of the σ/mean of their loops' CPU time; else none (a write taken as exact,
    and said so)."""
    if writes is not None and len(writes):
        measured = relative_spread(writes)
        if measured.df >= 1:
            return measured
    spreads = repetitions.relative_spreads(_WRITE_NOISE_METRIC)
    if spreads:
        return WriteNoise(float(np.median(spreads)), writes=len(spreads), source=BORROWED)
    return WriteNoise(0.0)


def read_seconds(row: Mapping[str, Any], repetitions: Repetitions) -> pd.Series:
    """A point's whole reads, open and loop, in seconds per event (process_seconds / events_read), one per
    unflagged repetition, indexed by round key (None for records from before the rounds)."""
    rates = repetitions.values(row, _READ_SPAN_RATE)
    return 1.0 / rates[rates > 0]


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _exact_objectives(q: Mapping[str, Any], p: Mapping[str, Any]) -> tuple[bool, bool]:
    """(q is not larger and not costlier to write than p, q is smaller or cheaper to write), on the objectives
    both have: sizes and write costs are exact, one file each."""
    better = False
    for key in ("bytes_per_event", "write_core_us_per_event"):
        x, y = q[key], p[key]
        if _missing(x) or _missing(y):
            continue  # a user's file measured as it is has no write cost: size and rate only
        if x > y:
            return False, False
        better = better or x < y
    return True, better


def surely_beats(
    q: Mapping[str, Any], p: Mapping[str, Any], rate_ratio: Ratio, margin: float = PARETO_RATE_MARGIN
) -> bool:
    """Whether q surely beats p on the Pareto front (the docstring's rule): not larger, not costlier to write, a
    rate not lower (``rate_ratio`` = q/p: not surely below 1, and its 95 % interval above 1 / (1 + margin)), and
    better in one (smaller, cheaper to write, or surely faster). Without an interval of the ratio, never."""
    no_worse, better = _exact_objectives(q, p)
    if not no_worse:
        return False
    rate_not_lower = rate_ratio.direction != LOWER and rate_ratio.low >= 1 / (1 + margin)
    return bool(rate_not_lower and (better or rate_ratio.direction == HIGHER))


def _front(beaten_by: Sequence[Mapping[int, Ratio]]) -> list[bool]:
    """Which points are on the front when a point leaves it only if one *on the front* surely beats it: decided
    in the order of the relation (a point after every point that beats it). "Surely beats" has no cycle (sizes
    and write costs are exact, a rate cannot be surely higher both ways); should one appear, its points stay."""
    on: list[bool | None] = [None] * len(beaten_by)
    pending = set(range(len(beaten_by)))
    while pending:
        ready = [i for i in pending if all(on[j] is not None for j in beaten_by[i])]
        if not ready:
            for i in pending:
                on[i] = True
            break
        for i in ready:
            on[i] = not any(on[j] for j in beaten_by[i])
            pending.discard(i)
    return [bool(v) for v in on]


def pareto(
    rows: pd.DataFrame, repetitions: Repetitions | None = None, margin: float = PARETO_RATE_MARGIN
) -> pd.DataFrame:
    """``rows`` (candidates) with the rate's 95 % interval of the mean (``event_rate_hz_ci95_low/high``),
    ``on_front`` and ``dominated_by`` (the point on the front that surely beats it with the highest rate, and
    their rate ratio ``dominated_by_rate_ratio`` with its interval), per GROUP_KEYS group of the valid points.
    Rates are compared by round where ``repetitions`` pair them, else from the summary's mean, spread and n.
    Invalid points are kept, not on any front, with ``dominated_by`` saying why."""
    repetitions = Repetitions() if repetitions is None else repetitions
    out = rows.copy()
    intervals = [repetitions.interval(r, "event_rate_hz") for r in out.to_dict("records")]
    out["event_rate_hz_ci95_low"] = [i.low for i in intervals]
    out["event_rate_hz_ci95_high"] = [i.high for i in intervals]
    out["on_front"] = False
    out["dominated_by"] = np.where(out["valid"], "", "(not valid: timed loop or repetitions)")
    for column in ("dominated_by_rate_ratio", "dominated_by_rate_ratio_low", "dominated_by_rate_ratio_high"):
        out[column] = np.nan
    valid = out[out["valid"]]
    for _, group in valid.groupby(_GROUP_KEYS, dropna=False):
        records = group.to_dict("records")
        beaten_by: list[dict[int, Ratio]] = [{} for _ in records]
        for i, p in enumerate(records):
            for j, q in enumerate(records):
                # The exact objectives first: the rate's ratio only where they already allow q to beat p.
                if i == j or not _exact_objectives(q, p)[0]:
                    continue
                ratio = repetitions.ratio(q, p, "event_rate_hz")
                if surely_beats(q, p, ratio, margin):
                    beaten_by[i][j] = ratio
        on = _front(beaten_by)
        for i, index in enumerate(group.index):
            if on[i]:
                out.at[index, "on_front"] = True
                continue
            j = max((j for j in beaten_by[i] if on[j]), key=lambda j: records[j]["event_rate_hz"])
            ratio = beaten_by[i][j]
            out.at[index, "dominated_by"] = records[j]["setting"]
            out.at[index, "dominated_by_rate_ratio"] = ratio.estimate
            out.at[index, "dominated_by_rate_ratio_low"] = ratio.low
            out.at[index, "dominated_by_rate_ratio_high"] = ratio.high
    return out


_PARETO_COLUMNS = [
    *_GROUP_KEYS,
    "setting",
    "algorithm",
    "on_front",
    "dominated_by",
    "dominated_by_rate_ratio",
    "dominated_by_rate_ratio_low",
    "dominated_by_rate_ratio_high",
    "bytes_per_event",
    "event_rate_hz",
    "event_rate_hz_ci95_low",
    "event_rate_hz_ci95_high",
    "event_rate_hz_std",
    "n",
    "rounds",
    "write_core_us_per_event",
    "lossy",
    "valid",
    "file_id",
    "read_id",
]


def pareto_table(rows: pd.DataFrame) -> pd.DataFrame:
    """The tidy front table (results/tables/pareto_front.csv) from ``pareto``'s rows: every point, front first
    within each group."""
    columns = [c for c in _PARETO_COLUMNS if c in rows.columns]
    return rows.sort_values(
        [*_GROUP_KEYS, "on_front", "bytes_per_event"], ascending=[True] * 4 + [False, True]
    )[columns].reset_index(drop=True)


def prices(config: Mapping[str, Any]) -> dict[str, Any]:
    """The cost section with its storage profile resolved (None: the study's read profile)."""
    cost = dict(config["cost"])
    cost["storage_profile"] = cost.get("storage_profile") or config["read_defaults"]["storage_profile"]
    return cost


def _default_selection(config: Mapping[str, Any], fmt: str) -> str:
    return config["formats"].get(fmt, {}).get("branches", config["read_defaults"]["branches"])


def _per_core_second(price: Mapping[str, Any]) -> float:
    return price["cpu_per_core_hour"] / 3600.0


def cost_parts(rows: pd.DataFrame, price: Mapping[str, Any]) -> pd.DataFrame:
    """Per candidate: storage, write and per-read cost per million events (the docstring's formulas); the read
    from ``read_seconds_per_event``, the whole read."""
    out = rows.copy()
    out["storage_cost"] = (
        out["bytes_per_event"]
        * 1e6
        / 1e12
        * price["disk_per_tb_year"]
        * price["lifetime_years"]
        * price["copies"]
    )
    out["write_cost"] = out["write_core_us_per_event"].fillna(0.0) * _per_core_second(price)
    out["read_cost"] = (
        1e6 * out["read_seconds_per_event"] * out["threads"].astype(float) * _per_core_second(price)
    )
    return out


def _paired(values: pd.Series) -> bool:
    """Whether a point's repetitions can be resampled by round: every one has a round key, each its own."""
    keys = list(values.index)
    return all(k is not None for k in keys) and len(set(keys)) == len(keys)


def _resampling_groups(spans: Sequence[pd.Series]) -> list[list[int]]:
    """The candidates (of one format) that share rounds, directly or through others: each group is resampled
    with the same draws. A candidate without round keys is a group of its own, on its own repetitions."""
    parent = list(range(len(spans)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[str, int] = {}
    for i, values in enumerate(spans):
        if not _paired(values):
            continue
        for key in values.index:
            if key in owner:
                parent[root(i)] = root(owner[key])
            else:
                owner[key] = i
    groups: dict[int, list[int]] = {}
    for i in range(len(spans)):
        groups.setdefault(root(i), []).append(i)
    return list(groups.values())


def _small_sample_widening(n: int) -> float:
    """The factor that widens a percentile bootstrap of a mean of ``n`` values to about Student's t interval:
    t_{n-1} / z for the quantile, sqrt(n / (n-1)) for the bootstrap's biased variance (Hesterberg's expanded
    percentile interval). 1.22 at n = 10, 1.58 at n = 5, tending to 1."""
    if n < 2:
        return math.nan
    return t_quantile(n - 1) / t_quantile(math.inf) * math.sqrt(n / (n - 1))


def _bootstrap_group(spans: Sequence[pd.Series], replicates: int, seed: int) -> np.ndarray:
    """replicates x candidates of the mean read seconds per event of one resampling group: by round where the
    group's candidates have rounds, else the one candidate on its own repetitions; each widened for the number of
    its own rounds, not the group's (an adaptive plan measures some candidates in fewer, later rounds: the
    group's rounds would widen them as if they had been read in all)."""
    if len(spans) == 1 and not _paired(spans[0]):
        matrix = spans[0].to_numpy(dtype=float)[None, :]
    else:
        _, _, matrix = round_matrix({i: values.to_dict() for i, values in enumerate(spans)})
    means = bootstrap_means(matrix, replicates, seed)
    center = np.nanmean(matrix, axis=1)
    own = np.isfinite(matrix).sum(axis=1)
    widening = np.array([_small_sample_widening(int(n)) for n in own])
    widened = center[None, :] + widening[None, :] * (means - center[None, :])
    return np.maximum(widened, 0.0)  # a read takes no negative time


def _read_seconds_draws(
    formats: Sequence[str], spans: Sequence[pd.Series], replicates: int, seed: int
) -> np.ndarray:
    """Bootstrap replicates (replicates x candidates) of each candidate's mean read seconds per event: per
    format and resampling group, each group with a seed of its own (seed, seed + 1, ... in a fixed order)."""
    draws = np.full((replicates, len(spans)), np.nan)
    stream = seed
    for fmt in sorted(set(formats)):
        members = [i for i, f in enumerate(formats) if f == fmt]
        for group in _resampling_groups([spans[i] for i in members]):
            chosen = [members[g] for g in group]
            draws[:, chosen] = _bootstrap_group([spans[i] for i in chosen], replicates, stream)
            stream += 1
    return draws


@dataclass(frozen=True)
class CandidateCosts:
    """The cost candidates (``parts``: one row per candidate, index 0..n-1, with their cost parts, the read's
    mean, n, rounds and 95 % interval) and the bootstrap replicates of their read cost (``read_draws``:
    replicates x candidates, in the order of ``parts``; the same draws for candidates that share rounds) and of
    their write cost (``write_draws``: one draw per file and replicate, the same for every candidate that reads
    the file), at the write noise ``write_noise``."""

    parts: pd.DataFrame
    read_draws: np.ndarray
    write_draws: np.ndarray
    write_noise: WriteNoise


def eligible_setting(
    config: Mapping[str, Any], fmt: str, storage_profile: str, branches: str, float_precision: str
) -> bool:
    """Whether a point with these settings may be a candidate of the cost model: of a format with a decision of its
    own (not a longer read of another's recipe, formats.is_longer_read), read on the cost's storage profile with its
    format's default branch selection, and lossless unless cost.lossy."""
    price = prices(config)
    return (
        not is_longer_read(fmt)
        and storage_profile == price["storage_profile"]
        and branches == _default_selection(config, fmt)
        and (price["lossy"] or float_precision == "full")
    )


def eligible(rows: pd.DataFrame, config: Mapping[str, Any]) -> pd.Series:
    """Which of ``candidates``' rows the cost model may choose among, valid or not (eligible_setting). A user's file
    as it is is not among them: it was not written here, so it has no write cost to weigh against the settings
    that were (its twin, the file recompressed at its own setting, stands for it where the study made one)."""
    return pd.Series(
        [
            eligible_setting(config, r["format"], r["storage_profile"], r["branches"], r["float_precision"])
            and r.get("origin") != "asis"
            for r in rows.to_dict("records")
        ],
        index=rows.index,
        dtype=bool,
    )


def cost_model(
    rows: pd.DataFrame,
    config: Mapping[str, Any],
    repetitions: Repetitions,
    replicates: int = BOOTSTRAP_REPLICATES,
    seed: int = _BOOTSTRAP_SEED,
    noise: float | WriteNoise | None = None,
    writes: pd.DataFrame | None = None,
) -> CandidateCosts:
    """The candidates the cost model chooses among: valid points of the cost's storage profile and each
    format's default branch selection, lossless unless cost.lossy, with at least MIN_TIMED_READS whole reads in
    ``repetitions``; their cost parts and the bootstrap of their read and write costs (``noise``: the write's
    relative noise; by default write_noise of ``writes``, the write-noise primitive's table, and
    ``repetitions``)."""
    price = prices(config)
    chosen = rows[rows["valid"] & eligible(rows, config)].reset_index(drop=True)
    spans = [read_seconds(r, repetitions) for r in chosen.to_dict("records")]
    timed = [len(s) >= _MIN_TIMED_READS for s in spans]
    chosen = chosen.loc[pd.Series(timed, index=chosen.index, dtype=bool)].reset_index(drop=True)
    spans = [s for s, ok in zip(spans, timed, strict=True) if ok]
    chosen["read_seconds_per_event"] = [float(s.mean()) for s in spans]
    chosen["n"] = [len(s) for s in spans]
    chosen["rounds"] = [len(s) if _paired(s) else 0 for s in spans]  # 0: resampled on its own repetitions
    parts = cost_parts(chosen, price)
    seconds = _read_seconds_draws(list(parts["format"]), spans, replicates, seed)
    scale = 1e6 * parts["threads"].astype(float).to_numpy() * _per_core_second(price)
    draws = seconds * scale[None, :]
    if len(parts):
        parts["read_cost_ci95_low"], parts["read_cost_ci95_high"] = quantiles(draws)
    else:
        parts["read_cost_ci95_low"] = parts["read_cost_ci95_high"] = np.nan
    parts["write_n"] = 1
    if noise is None:
        noise = write_noise(repetitions, writes)
    elif not isinstance(noise, WriteNoise):
        noise = WriteNoise(float(noise), source="given")
    sigma = noise.sigma if noise.sigma > 0 else 0.0
    # One draw per file: the settings that read one file (its read settings) share its one write, so their write
    # costs move together and the write cannot tell them apart.
    file_of, files = pd.factorize(pd.Series(list(zip(parts["format"], parts["file_id"], strict=True))))
    rng = np.random.default_rng(seed + 1_000_003)  # a stream apart from the rounds' resampling
    eps = rng.normal(0.0, sigma, size=(replicates, len(files)))[:, file_of] if sigma > 0 else 0.0
    write_draws = parts["write_cost"].to_numpy(dtype=float)[None, :] * np.exp(
        np.zeros((replicates, len(parts))) + eps - sigma**2 / 2
    )
    parts["write_noise"] = sigma
    parts["write_noise_ci95_low"] = noise.low
    parts["write_noise_ci95_high"] = noise.high
    parts["write_noise_n"] = noise.writes
    parts["write_noise_source"] = noise.source
    if len(parts):
        parts["write_cost_ci95_low"], parts["write_cost_ci95_high"] = quantiles(write_draws)
    else:
        parts["write_cost_ci95_low"] = parts["write_cost_ci95_high"] = np.nan
    return CandidateCosts(parts, draws, write_draws, noise)


def fixed_cost(parts: pd.DataFrame) -> pd.Series:
    """What a candidate costs however often its file is read: keeping it and writing it (a total at R reads per file
    is this plus R times its read cost)."""
    return parts["storage_cost"] + parts["write_cost"]


@dataclass(frozen=True)
class Verdict:
    """The candidates of one format at one number of reads: each one's total cost (the mean) with its 95 %
    interval, its share of replicates as the cheapest, the share in which the lowest mean (``best``) is cheaper
    than it, and the tie: ``tied`` marks the candidates named with the best (the best included)."""

    total: np.ndarray
    low: np.ndarray
    high: np.ndarray
    p_cheapest: np.ndarray
    p_best_cheaper: np.ndarray
    order: np.ndarray  # the candidates by mean total, the smaller read cost first among equals
    tied: np.ndarray

    @property
    def best(self) -> int:
        return int(self.order[0])

    @property
    def sure(self) -> bool:
        """Whether one setting is named: the cheapest in at least 95 % of the replicates."""
        return int(self.tied.sum()) == 1


def judge(
    fixed: np.ndarray,
    read: np.ndarray,
    read_draws: np.ndarray,
    reads: float,
    fixed_draws: np.ndarray | None = None,
) -> Verdict:
    """The docstring's rule on candidates with mean costs ``fixed`` (disk + write) and ``read`` (per read), and
    their replicates ``fixed_draws`` (exact without) and ``read_draws`` (replicates x candidates), at ``reads``
    reads per file."""
    total = fixed + reads * read
    draws = (fixed[None, :] if fixed_draws is None else fixed_draws) + reads * read_draws
    low, high = quantiles(draws)
    order = np.lexsort((read, total))
    best = int(order[0])
    # Exactly equal totals (the same file read in two ways, at no read) share a replicate's win.
    cheapest = draws == draws.min(axis=1, keepdims=True)
    p_cheapest = (cheapest / cheapest.sum(axis=1, keepdims=True)).mean(axis=0)
    p_best_cheaper = (draws[:, [best]] < draws).mean(axis=0)
    p_best_cheaper[best] = np.nan
    tied = p_best_cheaper < CONFIDENCE
    tied[best] = True
    # However it starts, the tie must hold the cheapest in 95 % of the replicates: settings each beaten by the best
    # in 95 % may still, together, be the cheapest more often than 5 %. The candidates most often cheapest join
    # until it does.
    for i in np.argsort(-p_cheapest, kind="stable"):
        if _holds_cheapest(draws, tied) >= CONFIDENCE:
            break
        tied[i] = True
    return Verdict(total, low, high, p_cheapest, p_best_cheaper, order, tied)


def _holds_cheapest(draws: np.ndarray, members: np.ndarray) -> float:
    """The share of replicates (rows of ``draws``) in which one of ``members`` (a mask of the columns) is the
    cheapest, or equal to it."""
    if not members.any():
        return 0.0
    return float((draws[:, members].min(axis=1) <= draws.min(axis=1)).mean())


def _format_arrays(model: CandidateCosts, group: pd.DataFrame) -> tuple[np.ndarray, ...]:
    """A format's mean fixed (disk + write) and read costs, and their replicates."""
    index = group.index.to_numpy()
    fixed = fixed_cost(group).to_numpy(dtype=float)
    fixed_draws = group["storage_cost"].to_numpy(dtype=float)[None, :] + model.write_draws[:, index]
    return fixed, group["read_cost"].to_numpy(dtype=float), model.read_draws[:, index], fixed_draws


_RANKING_COLUMNS = [
    "format",
    "reads_per_file",
    "rank",
    "setting",
    "container",
    "total_cost",
    "total_cost_ci95_low",
    "total_cost_ci95_high",
    "extra_over_best",
    "p_cheapest",
    "p_best_cheaper",
    "tied_with_best",
    "storage_cost",
    "write_cost",
    "write_cost_ci95_low",
    "write_cost_ci95_high",
    "read_cost",
    "read_cost_ci95_low",
    "read_cost_ci95_high",
    "read_seconds_per_event",
    "bytes_per_event",
    "n",
    "rounds",
    "write_n",
    "write_noise",
    "write_noise_ci95_low",
    "write_noise_ci95_high",
    "write_noise_n",
    "write_noise_source",
    "interval_covers",
    "file_id",
    "read_id",
]


def cost_ranking(model: CandidateCosts, reads_list) -> pd.DataFrame:
    """results/tables/cost_ranking.csv: per format, reads per file and candidate (by mean total, ``rank`` 1 the
    lowest): the total with its 95 % interval, how much more it costs than the lowest mean, its share of
    replicates as the cheapest (``p_cheapest``), the share in which the lowest mean is cheaper than it
    (``p_best_cheaper``), whether it is named with the lowest mean (``tied_with_best``), and the n and rounds of
    its reads. Always the same columns, also when nothing is valid."""
    out = []
    for fmt, group in model.parts.groupby("format", sort=False):
        fixed, read, draws, fixed_draws = _format_arrays(model, group)
        for reads in reads_list:
            verdict = judge(fixed, read, draws, reads, fixed_draws)
            best_total = verdict.total[verdict.best]
            for rank, i in enumerate(verdict.order, start=1):
                c = group.iloc[i]
                out.append(
                    {
                        "format": fmt,
                        "reads_per_file": reads,
                        "rank": rank,
                        "setting": c["setting"],
                        "container": c["container"],
                        "total_cost": verdict.total[i],
                        "total_cost_ci95_low": verdict.low[i],
                        "total_cost_ci95_high": verdict.high[i],
                        "extra_over_best": verdict.total[i] / best_total - 1.0 if best_total > 0 else np.nan,
                        "p_cheapest": verdict.p_cheapest[i],
                        "p_best_cheaper": verdict.p_best_cheaper[i],
                        "tied_with_best": bool(verdict.tied[i]),
                        "storage_cost": c["storage_cost"],
                        "write_cost": c["write_cost"],
                        "write_cost_ci95_low": c["write_cost_ci95_low"],
                        "write_cost_ci95_high": c["write_cost_ci95_high"],
                        "read_cost": c["read_cost"],
                        "read_cost_ci95_low": c["read_cost_ci95_low"],
                        "read_cost_ci95_high": c["read_cost_ci95_high"],
                        "read_seconds_per_event": c["read_seconds_per_event"],
                        "bytes_per_event": c["bytes_per_event"],
                        "n": c["n"],
                        "rounds": c["rounds"],
                        "write_n": c["write_n"],
                        **{key: c[key] for key in _WRITE_NOISE_COLUMNS},
                        "interval_covers": _INTERVAL_COVERS,
                        "file_id": c["file_id"],
                        "read_id": c["read_id"],
                    }
                )
    return pd.DataFrame(out, columns=_RANKING_COLUMNS)


_CHOICE_COLUMNS = [
    "format",
    "reads_per_file",
    "choice",
    "tie",
    "setting",
    "p_cheapest",
    "tied_settings",
    "tied_p_cheapest",
    "total_cost",
    "total_cost_ci95_low",
    "total_cost_ci95_high",
    "n",
    "rounds",
    "container",
    "storage_cost",
    "write_cost",
    "read_cost_total",
    "bytes_per_event",
    "read_seconds_per_event",
    "file_id",
    "read_id",
    "candidates",
    "runner_up",
    "runner_up_extra",
    "runner_up_p_best_cheaper",
    "interval_covers",
    "write_noise",
    "write_noise_ci95_low",
    "write_noise_ci95_high",
    "write_noise_n",
    "write_noise_source",
]
TIED_SEPARATOR = "; "  # setting labels hold commas, never semicolons


def cheapest(ranking: pd.DataFrame) -> pd.DataFrame:
    """results/tables/cost_choice.csv from the ranking: per format and reads per file, the choice (``choice``:
    one setting, or the tied ones "equal within the uncertainty"; ``tie``), the lowest mean (``setting``, its
    parts, its total's 95 % interval, n and rounds, ``p_cheapest``), the tied settings and their p_cheapest in
    the same order (``TIED_SEPARATOR``-joined), and the next by mean with how much more it costs. Always the same
    columns, also when nothing is valid."""
    out = []
    for (fmt, reads), group in ranking.groupby(["format", "reads_per_file"], sort=False):
        group = group.sort_values("rank")
        best = group.iloc[0]
        tied = group[group["tied_with_best"].map(_true)]
        tie = len(tied) > 1
        names = list(tied["setting"])
        row = {
            "format": fmt,
            "reads_per_file": reads,
            "choice": f"{' or '.join(names)}: equal within the uncertainty" if tie else best["setting"],
            "tie": tie,
            "setting": best["setting"],
            "p_cheapest": best["p_cheapest"],
            "tied_settings": TIED_SEPARATOR.join(names),
            "tied_p_cheapest": TIED_SEPARATOR.join(f"{p:.4f}" for p in tied["p_cheapest"]),
            "total_cost": best["total_cost"],
            "total_cost_ci95_low": best["total_cost_ci95_low"],
            "total_cost_ci95_high": best["total_cost_ci95_high"],
            "n": best["n"],
            "rounds": best["rounds"],
            "container": best["container"],
            "storage_cost": best["storage_cost"],
            "write_cost": best["write_cost"],
            "read_cost_total": reads * best["read_cost"],
            "bytes_per_event": best["bytes_per_event"],
            "read_seconds_per_event": best["read_seconds_per_event"],
            "file_id": best["file_id"],
            "read_id": best["read_id"],
            "candidates": len(group),
            "interval_covers": best["interval_covers"],
            **{key: best[key] for key in _WRITE_NOISE_COLUMNS},
        }
        if len(group) > 1:
            second = group.iloc[1]
            row |= {
                "runner_up": second["setting"],
                "runner_up_extra": second["extra_over_best"],
                "runner_up_p_best_cheaper": second["p_best_cheaper"],
            }
        out.append(row)
    return pd.DataFrame(out, columns=_CHOICE_COLUMNS)


def _sure_stretch(
    fixed: np.ndarray,
    read: np.ndarray,
    draws: np.ndarray,
    winner: int,
    start: float,
    end: float,
    fixed_draws: np.ndarray | None = None,
) -> tuple[float, float]:
    """The first and last reads per file of a SURE_GRID_PER_DECADE grid over [start, end] where ``winner`` is
    named alone by the rule (NaN, NaN if nowhere). The last stretch (end = inf) is judged up to 10^4 reads or ten
    times its start, and sure to the end if it is also sure on the read costs alone (the limit of many reads)."""
    stop = end if math.isfinite(end) else max(10 * start, 1e4)
    steps = max(2, math.ceil(math.log10(stop / start) * _SURE_GRID_PER_DECADE) + 1)
    grid = np.geomspace(start, stop, steps)
    sure = []
    for reads in grid:
        verdict = judge(fixed, read, draws, reads, fixed_draws)
        sure.append(verdict.sure and verdict.best == winner)
    if not any(sure):
        return math.nan, math.nan
    first = float(grid[sure.index(True)])
    last = float(grid[len(sure) - 1 - sure[::-1].index(True)])
    if not math.isfinite(end) and sure[-1]:
        limit = judge(np.zeros_like(fixed), read, draws, 1.0)
        if limit.sure and limit.best == winner:
            last = math.inf
    return first, last


_CROSSOVER_COLUMNS = [
    "format",
    "from_reads",
    "to_reads",
    "setting",
    "surely_cheapest_from",
    "surely_cheapest_to",
]


def crossovers(
    parts: pd.DataFrame,
    start: float = 1.0,
    read_draws: np.ndarray | None = None,
    write_draws: np.ndarray | None = None,
) -> pd.DataFrame:
    """Per format, where the lowest mean total changes as the reads per file grow: the lower envelope of the
    mean lines storage + write + N * read for N >= ``start``. One row per stretch: from_reads, to_reads (inf for
    the last) and the setting with the lowest mean there; with ``read_draws`` (the CandidateCosts's, ``parts`` its
    parts), where within the stretch that setting is surely the cheapest (``surely_cheapest_from/_to``, NaN if
    nowhere: it is then equal within the uncertainty to a neighbour all along)."""
    rows = []
    for fmt, group in parts.groupby("format", sort=False):
        fixed = fixed_cost(group).to_numpy(dtype=float)
        slope = group["read_cost"].to_numpy(dtype=float)
        labels = group["setting"].to_numpy()
        draws = None if read_draws is None else read_draws[:, group.index.to_numpy()]
        fixed_draws = None
        if write_draws is not None:
            fixed_draws = (
                group["storage_cost"].to_numpy(dtype=float)[None, :] + write_draws[:, group.index.to_numpy()]
            )
        n = start
        current = int(np.lexsort((slope, fixed + n * slope))[0])
        while True:
            # The next line to undercut the current one: a smaller slope, crossing after n.
            with np.errstate(divide="ignore", invalid="ignore"):
                cross = (fixed - fixed[current]) / (slope[current] - slope)
            cross[(slope >= slope[current]) | (cross <= n)] = np.inf
            nxt = int(np.argmin(cross))
            end = float(cross[nxt])
            sure = (math.nan, math.nan)
            if draws is not None:
                sure = _sure_stretch(fixed, slope, draws, current, n, end, fixed_draws)
            rows.append(
                {
                    "format": fmt,
                    "from_reads": n,
                    "to_reads": end,
                    "setting": labels[current],
                    "surely_cheapest_from": sure[0],
                    "surely_cheapest_to": sure[1],
                }
            )
            if math.isinf(end):
                break
            # Among lines meeting there, the one with the smallest slope stays cheapest beyond.
            tied = np.flatnonzero(np.isclose(cross, end, rtol=1e-12))
            current = int(tied[np.argmin(slope[tied])])
            n = end
    return pd.DataFrame(rows, columns=_CROSSOVER_COLUMNS)


_COST_COLUMNS = [
    "format",
    "setting",
    "container",
    "algorithm",
    "storage_profile",
    "branches",
    "bytes_per_event",
    "read_seconds_per_event",
    "n",
    "rounds",
    "event_rate_hz",
    "threads",
    "write_core_us_per_event",
    "write_n",
    "write_noise",
    "write_noise_ci95_low",
    "write_noise_ci95_high",
    "write_noise_n",
    "write_noise_source",
    "storage_cost",
    "write_cost",
    "write_cost_ci95_low",
    "write_cost_ci95_high",
    "read_cost",
    "read_cost_ci95_low",
    "read_cost_ci95_high",
    "file_id",
    "read_id",
]


def cost_table(model: CandidateCosts, config: Mapping[str, Any]) -> pd.DataFrame:
    """results/tables/cost_model.csv: every candidate's cost parts, the read's 95 % interval and what it covers,
    with the prices that made them."""
    parts = model.parts
    table = parts[[c for c in _COST_COLUMNS if c in parts.columns]].copy()
    table["interval_covers"] = _INTERVAL_COVERS
    price = prices(config)
    for key in _PRICE_KEYS:
        table[f"price_{key}"] = price[key]
    return table.sort_values(["format", "storage_cost"]).reset_index(drop=True)


def _money(value: float, currency: str) -> str:
    if value >= 100:
        return f"{value:,.0f} {currency}"
    if value >= 1:
        return f"{value:.2f} {currency}"
    return f"{value:.3g} {currency}"


def _money_interval(value: float, low: float, high: float, currency: str) -> str:
    """A total with its interval, e.g. "226.47 USD (95 % CI 226.10-226.88)": decimals that show the interval's half width with two significant
    digits; an exact value (no reads to price) without an interval."""
    if not (math.isfinite(low) and math.isfinite(high)) or high <= low:
        return _money(value, currency)
    digits = int(min(6, max(0, 1 - math.floor(math.log10((high - low) / 2)))))
    return f"{value:,.{digits}f} {currency} (95 % CI {low:,.{digits}f}-{high:,.{digits}f})"


def chance(p: float) -> str:
    """A share of BOOTSTRAP_REPLICATES replicates, for people: "0.55", "> 0.999", "< 0.001"."""
    if p >= 0.9995:
        return "> 0.999"
    if p <= 0.0005:
        return "< 0.001"
    return f"{p:.2f}" if 0.01 <= p <= 0.99 else f"{p:.3f}"


def _reads_label(n: float) -> str:
    return "∞" if math.isinf(n) else f"{n:,.0f}" if n >= 10 else f"{n:.3g}"


# The most tied settings named in a cell of recommendations.md (by mean); the ranking table has them all.
_TIED_NAMED = 6


def _choice_text(r: Mapping[str, Any]) -> str:
    """A sure choice in bold with its P(cheapest); a tie in words, each setting with its P(cheapest)."""
    if not _true(r["tie"]):
        return f"**{r['setting']}** (P(cheapest) {chance(float(r['p_cheapest']))})"
    names = str(r["tied_settings"]).split(TIED_SEPARATOR)
    shares = [float(p) for p in str(r["tied_p_cheapest"]).split(TIED_SEPARATOR)]
    tied = [f"{name} (P {chance(p)})" for name, p in zip(names, shares, strict=True)]
    if len(tied) > _TIED_NAMED:
        rest = len(tied) - _TIED_NAMED
        tied = [*tied[:_TIED_NAMED], f"{rest} more by mean (`tables/cost_ranking.csv`)"]
    return f"equal within the uncertainty: {' or '.join(tied)}"


def _rounds_text(n, rounds) -> str:
    rounds = int(rounds) if rounds == rounds else 0
    return f"{int(n)} ({rounds} rounds)" if rounds else f"{int(n)} (no rounds: unpaired)"


def _stretch_text(s: Mapping[str, Any]) -> str:
    text = f"{_reads_label(s['from_reads'])}-{_reads_label(s['to_reads'])} reads: {s['setting']}"
    low, high = s.get("surely_cheapest_from", math.nan), s.get("surely_cheapest_to", math.nan)
    if low != low:
        return f"{text} (nowhere surely the cheapest)"
    return f"{text} (surely the cheapest from {_reads_label(low)} to {_reads_label(high)})"


def _write_noise_text(choice: pd.DataFrame) -> str:
    """The write noise the choice used, for people (writenoise.WriteNoise.describe)."""
    if choice.empty:
        return "not used: no candidate to weigh it on"
    if "write_noise" not in choice or pd.isna(choice["write_noise"].iloc[0]):
        return WriteNoise(0.0).describe()
    r = choice.iloc[0]
    return WriteNoise(
        float(r["write_noise"]),
        float(r.get("write_noise_ci95_low", math.nan)),
        float(r.get("write_noise_ci95_high", math.nan)),
        writes=int(r.get("write_noise_n", 0) or 0),
        source=str(r.get("write_noise_source", NONE)),
    ).describe()


def decision_markdown(choice: pd.DataFrame, envelope: pd.DataFrame, front: pd.DataFrame, config) -> str:
    """The lead of recommendations.md: per format, the cost model's choice at each cost.reads_per_file with how
    sure it is, where the lowest mean changes, and the Pareto front of the cost's storage profile and
    selection."""
    price = prices(config)
    cur = price["currency"]
    lines = [
        "## The decision: the cheapest setting per format (cost model)",
        "",
        f"Per million events over a file's life: disk {price['disk_per_tb_year']:g} {cur} per TB-year x "
        f"{price['lifetime_years']:g} year(s) x {price['copies']} copy(ies), plus ROOT's write time and each read's "
        f"wall time, open and event loop, x threads at {price['cpu_per_core_hour']:g} {cur} per core-hour, the "
        f"reads on `{price['storage_profile']}`, each format's default branch selection"
        + ("" if price["lossy"] else ", lossless settings only (cost.lossy: false)")
        + ". Prices: `cost` in the config (schema: their sources). Formulas: `rootparams.decide.decision`; every "
        "candidate's parts: `tables/cost_model.csv`; the figure: `figures/fig31_cost_vs_reads.png`.",
        "",
        "How sure: the 95 % intervals are those of the reads, from a bootstrap over the measuring rounds "
        f"({BOOTSTRAP_REPLICATES} resamples; every candidate resampled with the same rounds, so that the host's slow "
        "spells cancel in their comparison), and of the writes: each file's write is one measurement of ROOT's CPU "
        f"time (n = 1), given the spread of a write on this host ({_write_noise_text(choice)}), drawn once per "
        "file and resample (the read settings of one file share its write). Disk costs are exact. A setting is in "
        "bold only where it is the cheapest in at least 95 % of the resamples; otherwise the settings equal "
        "within the uncertainty are named together, each with its share of resamples as the cheapest (P), and "
        "together they are the cheapest in at least 95 % of them. Every candidate's interval and P: "
        "`tables/cost_ranking.csv`.",
        "",
    ]
    if choice.empty:
        lines += [
            "No valid point with two timed reads on the cost's storage profile and selection: no choice.",
            "",
        ]
        return "\n".join(lines)
    lines += [
        "| format | reads per file | choice | total, lowest mean (95 % CI) | disk | write | reads | size/event "
        "| rate, open + loop | n (rounds) | next by mean |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for fmt in format_order(choice["format"]):
        for _, r in choice[choice["format"] == fmt].iterrows():
            runner = (
                f"{r['runner_up']} (+{100 * r['runner_up_extra']:.1f} %)"
                if isinstance(r.get("runner_up"), str)
                else "(only candidate)"
            )
            total = _money_interval(r["total_cost"], r["total_cost_ci95_low"], r["total_cost_ci95_high"], cur)
            lines.append(
                f"| {format_title(fmt)} | {r['reads_per_file']} | {_choice_text(r)} | {total} | "
                f"{_money(r['storage_cost'], cur)} | {_money(r['write_cost'], cur)} | {_money(r['read_cost_total'], cur)} | "
                f"{r['bytes_per_event'] / 1e3:.2f} kB | {1 / r['read_seconds_per_event']:.0f} Hz | "
                f"{_rounds_text(r['n'], r['rounds'])} | {runner} |"
            )
    lines += [
        "",
        "Where the lowest mean changes as the reads per file grow (the lower envelope of the cost lines, on the "
        "means: near a change the two settings are equal within the uncertainty, so each stretch says where its "
        "setting is surely the cheapest; `tables/cost_crossovers.csv`):",
        "",
    ]
    for fmt in format_order(envelope["format"]):
        stretches = envelope[envelope["format"] == fmt]
        text = "; ".join(_stretch_text(s) for s in stretches.to_dict("records"))
        lines.append(f"- {format_title(fmt)}: {text}")
    lines += [
        "",
        f"The Pareto fronts on `{price['storage_profile']}` (size, rate, write cost; a point leaves a front "
        "only when a point on it is not larger, not costlier to write, has a rate at most "
        f"{100 * PARETO_RATE_MARGIN:g} % lower with 95 % confidence and not surely lower, and is better in one; "
        "`tables/pareto_front.csv`, `figures/fig30_pareto_<format>.png`):",
        "",
    ]
    on = front[front["on_front"].map(_true) & (front["storage_profile"] == price["storage_profile"])]
    for (fmt, container, branches), g in on.groupby(["format", "container", "branches"], sort=False):
        total = int(
            (
                (front["format"] == fmt)
                & (front["container"] == container)
                & (front["branches"] == branches)
                & (front["storage_profile"] == price["storage_profile"])
                & front["valid"].map(_true)
            ).sum()
        )
        names = ", ".join(g.sort_values("bytes_per_event")["setting"])
        lines.append(
            f"- {format_title(fmt)}, {container}, {branches}: {len(g)} of {total} valid points: {names}"
        )
    lines.append("")
    return "\n".join(lines)
