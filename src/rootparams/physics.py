"""The instrument's physics checks: what a trustworthy measurement of ROOT reads must show, whatever the
machine (docs/measurement.md, "The instrument checks its own physics"). Used by the tests on real files and
reads (tests/test_physics.py) and by benchmarks/physics_checks.py, which prints the figures at study scale.

(a) ``level_spread``: on storage that does not limit the read, an algorithm's event rate does not depend on
    its compression level (decompression speed does not, by design; the note: "decompression times are almost
    constant"). LZ4 levels 1-3 use its fast mode and 4-9 its high-compression mode, so LZ4-1 stands apart.
    Where the rate does depend on the level, ``rates_outside_unzip`` tells whether the difference is all in
    ROOT's own decompression time (zlib inflates faster at higher levels on our data: docs/measurement.md,
    "The default study, as measured") or in the rest of the read, which no level may change.
(b) ``bandwidth_check``: under a bandwidth-limited storage profile, a cold read that is limited by I/O takes
    B / bandwidth, B being the bytes the kernel fetched from storage for it (read-ahead included).
(c) ``repeat_check``: the same point measured by two separate jobs at different times gives the same mean,
    within REPEAT_TOLERANCE or 2σ.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

LEVEL_TOLERANCE = 0.10
# On a noisy host (CI on a shared VM: 1σ of 7-20 % per repetition) the tests ask whether the levels differ beyond
# the noise the run measured. Three standard errors: 12 comparisons per run, so a Gaussian false alarm is ~3 %.
LEVEL_SIGMAS = 3.0
BANDWIDTH_TOLERANCE = 0.10
REPEAT_TOLERANCE = 0.03


@dataclass(frozen=True)
class Rate:
    mean: float
    std: float
    n: int
    best: float = (
        math.nan
    )  # the fastest repetition: interference (a neighbour VM, the host) only slows a read

    @classmethod
    def of(cls, values: Iterable[float]) -> Rate:
        values = list(values)
        std = statistics.stdev(values) if len(values) > 1 else math.nan
        return cls(statistics.fmean(values), std, len(values), max(values))

    def value(self, statistic: str) -> float:
        return {"mean": self.mean, "best": self.best}[statistic]


@dataclass(frozen=True)
class Verdict:
    name: str
    value: float  # the figure the check judges (a spread, a ratio, a difference)
    passed: bool
    detail: str


def level_groups(algorithm: str, levels: Iterable[int]) -> list[tuple[int, ...]]:
    """The levels of ``algorithm`` that must read alike: all of them, except that LZ4 levels 1-3 (fast mode)
    and 4-9 (high-compression mode) are separate groups."""
    levels = sorted(levels)
    if algorithm == "lz4":
        return [g for g in (tuple(x for x in levels if x <= 3), tuple(x for x in levels if x > 3)) if g]
    return [tuple(levels)]


def level_spread(
    rates: Mapping[tuple[str, int], Rate], statistic: str = "mean", sigmas: float | None = None
) -> list[Verdict]:
    """(a): for each algorithm (and LZ4 mode), (max - min) / mean over its levels of each level's rate,
    ``statistic`` "mean" (of the repetitions) or "best" (the fastest repetition). A group passes when that
    spread is at most LEVEL_TOLERANCE or, given ``sigmas``, when no two of its levels' means differ by more
    than ``sigmas`` standard errors of their difference (sqrt(s1²/n1 + s2²/n2)): on a host whose noise is
    larger than the tolerance, the check then asks only whether the levels differ beyond that noise, and says
    how large a difference it could have seen (the detail's "resolves")."""
    out = []
    for algorithm in sorted({a for a, _ in rates}):
        levels = [lv for a, lv in rates if a == algorithm]
        for group in level_groups(algorithm, levels):
            if len(group) < 2:
                continue
            members = [rates[(algorithm, lv)] for lv in group]
            values = [r.value(statistic) for r in members]
            spread = (max(values) - min(values)) / statistics.fmean(values)
            detail = ", ".join(
                f"{algorithm}-{lv}: mean {r.mean:.1f} ± {r.std:.1f} Hz"
                + (f" (best {r.best:.1f})" if statistic == "best" else "")
                for lv, r in zip(group, members, strict=True)
            )
            passed = spread <= LEVEL_TOLERANCE
            if sigmas is not None:
                z, resolution = _largest_difference(members, sigmas)
                passed = passed or z <= sigmas
                detail += f"; means at most {z:.1f} standard errors apart (resolves {resolution:.0%})"
            name = f"{algorithm} levels {'/'.join(map(str, group))}"
            out.append(Verdict(name, spread, passed, detail))
    return out


def _largest_difference(members: list[Rate], sigmas: float) -> tuple[float, float]:
    """The largest pairwise difference of means in standard errors, and the smallest relative difference a
    ``sigmas`` rule could tell from noise with these repetitions (the largest pair's ``sigmas`` × error / mean)."""
    z, resolution = 0.0, 0.0
    for i, a in enumerate(members):
        for b in members[i + 1 :]:
            error = math.sqrt(a.std**2 / a.n + b.std**2 / b.n) if a.n > 1 and b.n > 1 else math.nan
            if not error > 0:  # one repetition, or no spread at all: only the tolerance can judge
                return math.inf, math.nan
            z = max(z, abs(a.mean - b.mean) / error)
            resolution = max(resolution, sigmas * error / statistics.fmean([a.mean, b.mean]))
    return z, resolution


def rates_outside_unzip(records: Mapping[Any, Iterable[Mapping]]) -> dict[Any, Rate]:
    """Per point, events per second of the timed loop without ROOT's decompression time (loop_seconds -
    loop_unzip_seconds, PerfStats' unzip time; single-threaded reads), over its unflagged repetitions: the
    rate of everything a compression level must not change (reading, streaming the objects)."""
    out = {}
    for key, recs in records.items():
        out[key] = Rate.of(
            r["events_read"] / (r["loop_seconds"] - r["loop_unzip_seconds"]) for r in unflagged(recs)
        )
    return out


def unflagged(records: Iterable[Mapping]) -> list[Mapping]:
    """The repetitions whose conditions were met; all of them if every one was flagged (then the figures say
    so through the records)."""
    records = list(records)
    return [r for r in records if not r["flagged"]] or records


def bandwidth_check(records: Iterable[Mapping], bandwidth: float) -> list[Verdict]:
    """(b): for each repetition, the timed loop's time against B / bandwidth, B the bytes the disk completed
    during the loop (``loop_disk_completed_read_bytes``, /proc/diskstats). Not the bytes the reader submitted
    (``loop_storage_read_bytes``, /proc/self/io; the blkio group counts at submission too): the kernel
    submits a last read-ahead window near the end of the loop that the throttle holds back and the loop
    never waits for, so the submitted bytes run one window (8 MB, 2 s at 4 MB/s) ahead of the time; the next
    repetition's open waits for that window instead (docs/measurement.md, "Storage profiles"), and its
    seconds and bytes are reported apart. The disk's count includes every process's reads, so the check
    needs a quiet machine (another reader makes the ratio fall below 1). Records without it (an older
    reader, no block device) fall back to the submitted bytes."""
    out = []
    for r in records:
        completed = r.get("loop_disk_completed_read_bytes")
        counted = (
            completed if completed is not None and completed == completed else r["loop_storage_read_bytes"]
        )
        expected = counted / bandwidth
        ratio = r["loop_seconds"] / expected
        detail = (
            f"rep {r.get('rep', '?')}: loop {counted / 1e6:.1f} MB completed in {r['loop_seconds']:.2f} s "
            f"(B/bandwidth = {expected:.2f} s, CPU {r['loop_cpu_seconds']:.2f} s; "
            f"{r['loop_storage_read_bytes'] / 1e6:.1f} MB submitted); open {r['open_seconds']:.2f} s "
            f"for {r['open_storage_read_bytes'] / 1e6:.2f} MB"
        )
        out.append(
            Verdict("loop time / (B / bandwidth)", ratio, abs(ratio - 1) <= BANDWIDTH_TOLERANCE, detail)
        )
    return out


def repeat_check(first: Rate, second: Rate, statistic: str = "mean") -> Verdict:
    """(c): two separate measurements of one point agree within REPEAT_TOLERANCE, or (means) within 2σ, σ the
    two points' 1σ (their error bars) combined."""
    a, b = first.value(statistic), second.value(statistic)
    difference = abs(a - b)
    relative = difference / statistics.fmean([a, b])
    sigma = math.hypot(*(x if not math.isnan(x) else 0.0 for x in (first.std, second.std)))
    passed = relative <= REPEAT_TOLERANCE or (statistic == "mean" and difference <= 2 * sigma)
    detail = (
        f"{statistic} {a:.1f} Hz then {b:.1f} Hz: {relative:.1%} apart"
        f" (means {first.mean:.1f} ± {first.std:.1f} and {second.mean:.1f} ± {second.std:.1f} Hz, "
        f"{abs(first.mean - second.mean) / sigma if sigma else math.inf:.1f}σ)"
    )
    return Verdict("two jobs", relative, passed, detail)


def markdown(verdicts: Iterable[Verdict], what: str) -> str:
    lines = [f"| {what} | figure | passes | detail |", "|---|---|---|---|"]
    lines += [f"| {v.name} | {v.value:.3f} | {'yes' if v.passed else 'NO'} | {v.detail} |" for v in verdicts]
    return "\n".join(lines)


def measure(
    files: Mapping[Any, str],
    *,
    reader: str,
    events: int,
    read: Mapping,
    measurement: Mapping,
    rounds: int,
    reps_per_round: int,
    scratch,
    read_of: Mapping[Any, Mapping] | None = None,
) -> dict[Any, tuple[Rate, list[dict]]]:
    """Cold repetitions of several points through the study's own instrument (measure.measure_point), taken
    in ``rounds`` interleaved rounds of ``reps_per_round`` repetitions per point, so that a slow drift of the
    shared machine (a neighbour VM, thermal state) shifts every point alike instead of one point's whole
    series. ``read_of`` overrides read settings per key (e.g. the container of each file). Returns, per key of
    ``files``, the event rate over its unflagged repetitions and every record."""
    from pathlib import Path

    from rootparams.measure import measure_point

    records: dict[Any, list[dict]] = {key: [] for key in files}
    for round_ in range(rounds):
        for i, (key, path) in enumerate(files.items()):
            out = Path(scratch) / f"point{i}" / f"round{round_}"
            first = round_ * reps_per_round
            reps = range(first, first + reps_per_round)
            records[key] += measure_point(
                root_file=str(path), warmup_file=str(path), reader=reader, events=events,
                read={**read, **(read_of or {}).get(key, {})},
                measurement=dict(measurement), monitor_csv=str(out / "monitor.csv"),
                records={rep: str(out / f"rep{rep}.json") for rep in reps}, labels={"point": str(key)},
            )  # fmt: skip
    out = {}
    for key, recs in records.items():
        out[key] = (Rate.of(r["event_rate_hz"] for r in unflagged(recs)), recs)
    return out
