"""Spend measuring time where it matters: an adaptive plan for the decision, as an option of a study
(measurement.adaptive) and replayed on a study measured whole (docs/model.md, "Measuring only where it matters").

The plan: measure the primitives (storage, warm reads) and a few anchor points, predict every other candidate of
the decision with the model of the timed loop (rootparams.model.model), and measure only the candidates that could be the
cheapest at some number of reads per file given the prediction's uncertainty; repeat with what was measured until
no new candidate comes close. When it stops, every candidate left predicted costs more, even at the low end of its
interval, than the high end of the cheapest measured one's: the decision made from measured reads is the plan's.

Live (measure_adaptively, run by a block's measuring job): the anchors and the points outside the decision are
measured at the study's repetitions and every other candidate once (its survey read: the layout counts the model
needs, which only a cold read gives), then the candidates that could be the cheapest in full, step by step.

The replay: on a study that measured every point, the plan is played with the reads it would itself have taken:
every candidate's first read (its survey read) until the plan chooses it, then all of its repetitions; the plan's
decision is made from those reads alone (its own bootstrap, its own tie). It says how many points and how much
measuring time the plan would have needed, and whether its decision is the full study's; beside it, two plans
without information, so that the agreement means something: the smallest file (the disk cost alone, nothing read),
and as many candidates as the plan measured, chosen at random (the agreement averaged over RANDOM_PLANS draws).

What the plan knows of a point it has not measured in full: its predicted loop (the model: this host's warm reads
and storage primitives, and the point's layout counts, which do not depend on the machine's speed), the open time
of its format's anchors, its survey read, and the file's size and write cost (the decision's fixed costs, known
once the file is written).

**The prediction's uncertainty u**: a predicted read cost is taken as anywhere within a factor (1 + u) of its value.
u is calibrated on the plan's own errors: log(measured / predicted) of every candidate the plan has read, an anchor
by its prediction scaled as it would have been without its own measurement (by its format's other anchors, else by
the other formats'; its open time is its own), every other candidate by its prediction as the plan uses it (scaled
by its format's anchors) against the reads the plan took of it (its survey read, or all of them once chosen: one
read's own noise adds to the errors' spread, it does not hide an error). Errors of one scan of one format share the model's rule for what the scan varies:
they are not independent. Their effective number is n / (1 + (m - 1) ρ) (Kish's design effect; m the errors per
scan, weighted by size; ρ the intra-scan correlation, a one-way analysis of variance, clipped to [0, 1], taken as 1
where it cannot be estimated). u is then exp(|mean| + k s) - 1, s the errors' standard deviation and k the normal
tolerance factor for the effective number (Howe's): the interval holds TOLERANCE_COVERAGE of the errors with
TOLERANCE_CONFIDENCE confidence, if the errors are normal on the log scale. Never below the largest error seen
nor the model's 90th-percentile target (25 %); infinite (nothing excluded but by its disk and write cost alone)
where fewer than two effective errors are known.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

from rootparams.decide import decision
from rootparams.measure.cpu_primitives import cpu_summary, cpu_table, records_of_blocks
from rootparams.measure.measure import kept_records
from rootparams.model.model import (
    MEDIA,
    P90_ERROR_TARGET,
    number_or_zero,
    predicted_points,
    scans_of,
    study_points,
)
from rootparams.results.aggregate import derive_metrics, load_catalogue, load_records, summarize
from rootparams.stats.compare import Repetitions
from rootparams.stats.intervals import scipy_stats

_KEY = ["format", "file_id", "read_id"]
# The anchors of a format: its points in the study's default scan (the format's default file and read).
_ANCHOR_SCAN = "default"
# u's tolerance interval: it holds this share of the predictions' errors, with this confidence.
_TOLERANCE_COVERAGE = 0.90
_TOLERANCE_CONFIDENCE = 0.95
# The plans without information beside the replay: random choices of as many candidates as the plan measured,
# with a fixed seed so that the same tables give the same table.
_RANDOM_PLANS = 1000
_RANDOM_SEED = 20251


def anchors(points: pd.DataFrame) -> set[tuple]:
    """Per format, the points of the default scan."""
    chosen = points[scans_of(points["scans"]).map(lambda s: _ANCHOR_SCAN in s)]
    return {tuple(k) for k in chosen[_KEY].itertuples(index=False)}


def _measuring_seconds(
    repetitions: pd.DataFrame, measure_jobs: pd.DataFrame, warm_reads: pd.DataFrame | None = None
) -> dict[tuple, float]:
    """Per point, the measuring time it cost: its repetitions' loops (flagged ones too: they were measured) plus,
    per repetition, its block's overhead (the measuring job's wall time less its loops and warm reads, over its
    repetitions: eviction and its check, the reader's start and open, sentinel reads)."""
    overhead = {}
    for _, job in measure_jobs.iterrows():
        warm = 0.0
        if warm_reads is not None and len(warm_reads):
            mine = warm_reads[warm_reads["format"] == job["block"]]
            warm = float((mine["end_time"] - mine["process_start_time"]).clip(lower=0).sum())
        reps = max(float(job["measured_repetitions"]), 1.0)
        spent = float(job["job_wall_seconds"]) - float(job["measured_loop_seconds"]) - warm
        overhead[job["block"]] = overhead.get(job["block"], 0.0) + max(spent, 0.0) / reps
    out = {}
    for key, group in repetitions.groupby(_KEY):
        loops = pd.to_numeric(group["loop_seconds"], errors="coerce").fillna(0.0)
        out[tuple(key)] = float(loops.sum() + len(group) * overhead.get(key[0], 0.0))
    return out


# --- u: the predictions' uncertainty, calibrated ----------------------------------------------------------------


@dataclass(frozen=True)
class Uncertainty:
    """The plan's u and how it was found (the module's docstring): the tolerance bound of the errors (``bound``,
    as a factor - 1; inf where too few), their number, effective number, scans (clusters), intra-scan correlation,
    mean and standard deviation of log(measured / predicted), the tolerance factor k and the largest error (as a
    factor - 1)."""

    u: float
    bound: float = math.inf
    errors: int = 0
    effective: float = 0.0
    clusters: int = 0
    correlation: float = math.nan
    mean: float = math.nan
    spread: float = math.nan
    factor: float = math.nan
    largest: float = math.nan

    def describe(self) -> str:
        """For people: how u came about, in one sentence."""
        if not math.isfinite(self.bound):
            return (
                f"u = {_factor_text(self.u)}: {self.errors} errors of the plan's predictions, {self.effective:.1f} "
                "effective, too few to bound them"
            )
        return (
            f"u = {_factor_text(self.u)}: from {self.errors} errors of the plan's predictions in {self.clusters} "
            f"scans ({self.effective:.1f} effective, intra-scan correlation {self.correlation:.2f}), mean "
            f"{100 * self.mean:+.1f} %, spread {100 * self.spread:.1f} % (log scale), a bound holding "
            f"{100 * _TOLERANCE_COVERAGE:.0f} % of them with {100 * _TOLERANCE_CONFIDENCE:.0f} % confidence "
            f"(k = {self.factor:.2f}): {_factor_text(self.bound)}; the largest error {_factor_text(self.largest)}"
        )


def _factor_text(u: float) -> str:
    """A factor - 1 for people: "41 %"; "unbounded" for inf (or the NaN a JSON record keeps of it)."""
    return "unbounded" if not math.isfinite(u) else f"{100 * u:.0f} %"


def _tolerance_factor(
    n: float, coverage: float = _TOLERANCE_COVERAGE, confidence: float = _TOLERANCE_CONFIDENCE
):
    """Howe's two-sided normal tolerance factor k: mean ± k s of ``n`` values (s with n - 1 degrees of freedom)
    holds ``coverage`` of the population with ``confidence``. inf below two values. 2.84 at n = 10, 5.37 at 4."""
    if not n >= 2:
        return math.inf
    df = n - 1
    z = scipy_stats().norm.ppf(0.5 + coverage / 2)
    return float(z * math.sqrt(df * (1 + 1 / n) / scipy_stats().chi2.ppf(1 - confidence, df)))


def _intra_cluster_correlation(errors: Sequence[float], clusters: Sequence[Any]) -> float:
    """The one-way analysis-of-variance estimate of the correlation of errors within a cluster, clipped to [0, 1];
    NaN where it cannot be estimated (fewer than two clusters, or no cluster of two)."""
    frame = pd.DataFrame({"e": np.asarray(errors, dtype=float), "c": [str(c) for c in clusters]})
    groups = frame.groupby("c", sort=False)["e"]
    k, n = groups.ngroups, len(frame)
    if k < 2 or n <= k:
        return math.nan
    sizes, means = groups.size(), groups.mean()
    between = float((sizes * (means - frame["e"].mean()) ** 2).sum()) / (k - 1)
    within = float(((frame["e"] - groups.transform("mean")) ** 2).sum()) / (n - k)
    m0 = (n - float((sizes**2).sum()) / n) / (k - 1)
    denominator = between + (m0 - 1) * within
    if denominator <= 0:
        return 0.0  # every error the same: nothing shared beyond the mean
    return float(np.clip((between - within) / denominator, 0.0, 1.0))


def _effective_number(errors: Sequence[float], clusters: Sequence[Any]) -> tuple[float, float]:
    """(the effective number of independent errors, the intra-cluster correlation used): n / (1 + (m - 1) ρ),
    m = Σ size² / n. Every cluster of one error: n. ρ taken as 1 where it cannot be estimated."""
    n = len(errors)
    if n == 0:
        return 0.0, math.nan
    sizes = pd.Series([str(c) for c in clusters]).value_counts()
    m = float((sizes**2).sum()) / n
    if m == 1:
        return float(n), 0.0
    rho = _intra_cluster_correlation(errors, clusters)
    rho = 1.0 if math.isnan(rho) else rho
    return n / (1 + (m - 1) * rho), rho


def _calibrated_uncertainty(errors: Sequence[float], clusters: Sequence[Any]) -> Uncertainty:
    """u from the log errors log(measured / predicted) and their clusters (the module's docstring)."""
    e = np.asarray(errors, dtype=float)
    keep = np.isfinite(e)
    e, clusters = e[keep], [c for c, ok in zip(clusters, keep, strict=True) if ok]
    if not len(e):
        return Uncertainty(math.inf)
    largest = float(np.expm1(np.abs(e).max()))
    n_eff, rho = _effective_number(e, clusters)
    k = _tolerance_factor(n_eff)
    mean = float(e.mean())
    spread = float(e.std(ddof=1)) if len(e) > 1 else math.nan
    bound = float(np.expm1(abs(mean) + k * spread)) if math.isfinite(k) else math.inf
    return Uncertainty(
        u=max(P90_ERROR_TARGET, bound, largest),
        bound=bound,
        errors=len(e),
        effective=n_eff,
        clusters=len(set(clusters)),
        correlation=rho,
        mean=mean,
        spread=spread,
        factor=k,
        largest=largest,
    )


def _predicted_read_seconds(
    parts: pd.DataFrame,
    model_points: pd.DataFrame,
    anchor_keys: set[tuple],
    observed: pd.Series | None = None,
) -> tuple[pd.Series, Uncertainty, dict[str, float]]:
    """Per candidate (``parts``' rows), the predicted whole read in seconds per event: the predicted loop plus its
    format's anchors' open time, scaled by its format's anchors' median measured / predicted; NaN where the model
    has no prediction. Also the uncertainty u (calibrated_uncertainty on the errors of the module's docstring)
    and the scales. ``observed``: per candidate, the mean of the reads the plan took of it, in seconds per event
    (NaN where none); by default the anchors' (``parts``' read_seconds_per_event)."""
    if observed is None:
        is_anchor = [tuple(r) in anchor_keys for r in parts[_KEY].itertuples(index=False)]
        observed = parts["read_seconds_per_event"].where(is_anchor)
    pred = model_points.set_index(_KEY)
    uncalibrated, open_seconds = {}, {}
    anchor_rows = []
    for i, row in parts.iterrows():
        key = tuple(row[k] for k in _KEY)
        if key not in pred.index:
            continue
        p = pred.loc[key]
        uncalibrated[i] = (float(p["predicted_loop_seconds"]), float(p["events_read"]))
        if key in anchor_keys and observed[i] == observed[i]:
            anchor_rows.append(i)
            read = float(observed[i]) * float(p["events_read"])
            open_seconds.setdefault(row["format"], []).append(read - float(p["measured_loop_seconds"]))
    opened = {f: float(np.median(v)) for f, v in open_seconds.items()}
    values = pd.Series(np.nan, index=parts.index)
    for i, (loop, events) in uncalibrated.items():
        values[i] = (loop + opened.get(parts.at[i, "format"], 0.0)) / events
    ratio = {i: float(observed[i]) / values[i] for i in anchor_rows if values[i] == values[i]}
    by_format: dict[str, list[int]] = {}
    for i in ratio:
        by_format.setdefault(parts.at[i, "format"], []).append(i)
    scales = {f: float(np.median([ratio[i] for i in members])) for f, members in by_format.items()}
    calibrated = values * parts["format"].map(lambda f: scales.get(f, 1.0))
    errors, clusters = [], []
    for i in parts.index:
        if not (observed[i] == observed[i] and values[i] == values[i]):
            continue
        if i in ratio:
            # An anchor as the plan would have predicted it unmeasured: its format's other anchors, else the other
            # formats' (the host's part of the model's error), else not scaled.
            fmt = parts.at[i, "format"]
            others = [ratio[j] for j in by_format[fmt] if j != i] or [r for j, r in ratio.items() if j != i]
            prediction = values[i] * (float(np.median(others)) if others else 1.0)
        else:
            prediction = calibrated[i]
        if prediction > 0 and observed[i] > 0:
            errors.append(math.log(float(observed[i]) / prediction))
            clusters.append((parts.at[i, "format"], str(parts.at[i, "scans"]) if "scans" in parts else ""))
    return calibrated, _calibrated_uncertainty(errors, clusters), scales


# --- The plan --------------------------------------------------------------------------------------------------


def _costs(parts: pd.DataFrame, read_seconds: pd.Series, price: Mapping[str, Any]) -> pd.Series:
    """The read cost of ``parts``' candidates if each read took ``read_seconds`` per event (the cost model's own
    arithmetic: decision.cost_parts)."""
    return decision.cost_parts(parts.assign(read_seconds_per_event=read_seconds), price)["read_cost"]


def _predicted_interval(fixed, read, reads: float, u: float):
    """A predicted total cost at ``reads`` reads per file: (the cost, its low end, its high end), the read cost
    ``read`` taken as anywhere within a factor 1 + ``u`` of its prediction; ``fixed`` the storage and write."""
    return fixed + reads * read, fixed + reads * read / (1 + u), fixed + reads * read * (1 + u)


def _intervals(
    group: pd.DataFrame, fixed: pd.Series, predicted_read: pd.Series, u: float, measured: set, reads: float
) -> tuple[dict, float]:
    """A format's cost intervals at ``reads`` reads: each candidate's low end, and the cut (the lowest high end:
    a measured candidate's from its repetitions' bootstrap, a predicted one's within a factor 1 + ``u``)."""
    low, high = {}, {}
    for i in group.index:
        if i in measured:
            low[i] = fixed[i] + reads * group.at[i, "read_cost_ci95_low"]
            high[i] = fixed[i] + reads * group.at[i, "read_cost_ci95_high"]
        else:
            _, low[i], high[i] = _predicted_interval(fixed[i], predicted_read[i], reads, u)
    return low, min(high.values())


def _next_to_measure(
    parts: pd.DataFrame,
    predicted_read: pd.Series,
    u: float,
    measured: set,
    reads_list: Sequence[float],
) -> set:
    """The predicted candidates (``parts``' index, not in ``measured``) that could be the cheapest: at some number
    of reads, the low end of their cost interval (the predicted read cost within a factor 1 + ``u``) reaches the
    lowest high end of their format's intervals (a measured candidate's from its repetitions' bootstrap)."""
    fixed = decision.fixed_cost(parts)
    added = set()
    for _, group in parts.groupby("format"):
        for reads in reads_list:
            low, cut = _intervals(group, fixed, predicted_read, u, measured, reads)
            added |= {i for i in group.index if i not in measured and low[i] <= cut}
    return added


_CUT_COLUMNS = ["cut_distance", "cut_distance_reads", "u_to_reach_cut"]


def _cut_distances(
    parts: pd.DataFrame,
    predicted_read: pd.Series,
    u: float,
    measured: set,
    reads_list: Sequence[float],
) -> pd.DataFrame:
    """Per candidate left predicted (``parts``' index not in ``measured``), how far it stayed from the cut:
    ``cut_distance``, the least, over the numbers of reads, of (its lowest cost within u) / (the cut) - 1, at
    ``cut_distance_reads``; and ``u_to_reach_cut``, the u at which its low end would have reached the cut as it
    is (inf where its disk and write alone lie above the cut at every number of reads). NaN for the measured."""
    fixed = decision.fixed_cost(parts)
    out = pd.DataFrame(np.nan, index=parts.index, columns=_CUT_COLUMNS)
    for _, group in parts.groupby("format"):
        for reads in reads_list:
            low, cut = _intervals(group, fixed, predicted_read, u, measured, reads)
            for i in group.index:
                if i in measured:
                    continue
                distance = low[i] / cut - 1 if cut > 0 else math.inf
                if not distance >= out.at[i, "cut_distance"]:  # NaN (first) or closer
                    out.at[i, "cut_distance"] = distance
                    out.at[i, "cut_distance_reads"] = reads
                read = reads * predicted_read[i]
                needed = read / (cut - fixed[i]) - 1 if cut > fixed[i] and read > 0 else math.inf
                if not needed >= out.at[i, "u_to_reach_cut"]:
                    out.at[i, "u_to_reach_cut"] = max(needed, 0.0)
    return out


@dataclass
class Plan:
    """A plan played to its end: the candidates it measured in full (``parts``' index), the cost model of their
    own reads, every candidate's prediction with what it knew at the end, u, and the steps it took."""

    measured: set[int]
    model: decision.CandidateCosts
    predicted_read: pd.Series
    uncertainty: Uncertainty
    steps: int


def plan(
    parts: pd.DataFrame,
    model_points: pd.DataFrame,
    anchor_keys: set[tuple],
    reads_list: Sequence[float],
    price: Mapping[str, Any],
    own_model: Callable[[set[int], int], decision.CandidateCosts],
    survey_seconds: pd.Series,
) -> Plan:
    """The plan on ``parts`` (the candidates, with their fixed costs; their read columns are not looked at): it
    measures the anchors and those without a prediction, then, until none is added, every predicted one that
    could be the cheapest (next_to_measure), with u recalibrated at each step on what it has read.
    ``own_model(measured, replicates)``: the cost model of the measured candidates from the reads the plan took
    of them; ``survey_seconds``: each candidate's survey read, seconds per event."""
    measured = {i for i, r in parts.iterrows() if tuple(r[k] for k in _KEY) in anchor_keys}
    steps = 0
    while True:
        steps += 1
        model = own_model(measured, 200)
        work, observed = _with_own_reads(parts, model.parts, measured, survey_seconds)
        seconds, uncertainty, _ = _predicted_read_seconds(work, model_points, anchor_keys, observed)
        predicted_read = _costs(work, seconds, price)
        # A candidate the model cannot predict is measured: nothing else could exclude it.
        unknown = set(parts.index[seconds.isna()]) - measured
        known = work.drop(index=list(unknown))
        added = unknown | _next_to_measure(
            known, predicted_read[known.index], uncertainty.u, measured & set(known.index), reads_list
        )
        if not added:
            break
        measured |= added
    return Plan(
        measured, own_model(measured, decision.BOOTSTRAP_REPLICATES), predicted_read, uncertainty, steps
    )


READ_COLUMNS = [
    "read_seconds_per_event",
    "read_cost",
    "read_cost_ci95_low",
    "read_cost_ci95_high",
    "n",
    "rounds",
]


def _with_own_reads(
    parts: pd.DataFrame, own: pd.DataFrame, measured: set[int], survey_seconds: pd.Series
) -> tuple[pd.DataFrame, pd.Series]:
    """``parts`` with the read columns of the measured candidates from their own reads (``own``, a cost model's
    parts) and none for the others; and per candidate the reads the plan took, seconds per event (all of a
    measured one's, else its survey read)."""
    work = parts.copy()
    for column in READ_COLUMNS:
        work[column] = np.nan
    mine = own.set_index(_KEY)
    for i in measured:
        key = tuple(parts.loc[i, _KEY])
        if key in mine.index:
            for column in READ_COLUMNS:
                work.at[i, column] = mine.at[key, column]
    observed = work["read_seconds_per_event"].fillna(survey_seconds)
    return work, observed


def replay(
    summary: pd.DataFrame,
    files: pd.DataFrame,
    repetitions: pd.DataFrame,
    points: pd.DataFrame,
    model_points: pd.DataFrame,
    measure_jobs: pd.DataFrame,
    config: Mapping[str, Any],
    warm_reads: pd.DataFrame | None = None,
) -> tuple[pd.DataFrame, dict[str, Any], pd.DataFrame]:
    """The plan played on a whole study with the reads it would itself have taken (the module's docstring): per
    format and number of reads, the full study's choice (its tie) beside the plan's (from its own reads: its own
    tie) and the plans without information; whether each agrees (its setting, the lowest mean, is the full choice
    or one of the settings the full study cannot tell from it); the points and measuring time the plan needs; and
    per candidate what the plan made of it (its role, prediction and, left predicted, its distance from the cut)."""
    rows = decision.candidates(summary, files, config)
    full = decision.cost_model(rows, config, Repetitions(repetitions))
    parts = full.parts.merge(points[[*_KEY, "scans"]], on=_KEY, how="left")
    price = decision.prices(config)
    reads_list = list(price["reads_per_file"])
    anchor_keys = anchors(points)
    keys = [tuple(r) for r in parts[_KEY].itertuples(index=False)]
    row_keys = pd.Series([tuple(r) for r in rows[_KEY].itertuples(index=False)], index=rows.index)
    read_keys = pd.Series(
        [tuple(r) for r in repetitions[_KEY].itertuples(index=False)], index=repetitions.index
    )

    def own_model(measured: set[int], replicates: int) -> decision.CandidateCosts:
        chosen = {keys[i] for i in measured}
        return decision.cost_model(
            rows[row_keys.isin(chosen)],
            config,
            Repetitions(repetitions[read_keys.isin(chosen)]),
            replicates=replicates,
            noise=full.write_noise,
        )

    survey = Repetitions(_survey_reads(repetitions))
    survey_seconds = pd.Series(
        [_mean(decision.read_seconds(r, survey)) for r in parts.to_dict("records")], index=parts.index
    )
    played = plan(parts, model_points, anchor_keys, reads_list, price, own_model, survey_seconds)
    measured = played.measured
    full_choice = decision.cheapest(decision.cost_ranking(full, reads_list))
    own_choice = decision.cheapest(decision.cost_ranking(played.model, reads_list))
    table = full_choice[["format", "reads_per_file", "choice", "setting", "tied_settings"]].merge(
        own_choice[["format", "reads_per_file", "setting", "choice"]].rename(
            columns={"setting": "adaptive_setting", "choice": "adaptive_choice"}
        ),
        on=["format", "reads_per_file"],
        how="left",
    )
    table["agrees"] = _agrees(table, table["adaptive_setting"])
    table["disk_only_setting"] = [_smallest(parts, f) for f in table["format"]]
    table["disk_only_agrees"] = _agrees(table, table["disk_only_setting"])
    per_format = {f: sum(1 for i in measured if parts.at[i, "format"] == f) for f in parts["format"].unique()}
    table["random_agreement"] = random_agreement(parts, table, per_format)

    candidates_table = parts[[*_KEY, "setting", "scans"]].copy()
    candidates_table["role"] = [
        ANCHOR if keys[i] in anchor_keys else CHOSEN if i in measured else PREDICTED for i in parts.index
    ]
    candidates_table["predicted_read_cost"] = played.predicted_read
    candidates_table["survey_read_seconds_per_event"] = survey_seconds
    candidates_table = candidates_table.join(
        _cut_distances(parts, played.predicted_read, played.uncertainty.u, measured, reads_list)
    )

    spent = _measuring_seconds(repetitions, measure_jobs, warm_reads)
    counts = repetitions.groupby(_KEY).size()
    candidate_keys = set(keys)
    measured_keys = {keys[i] for i in measured}
    # A candidate left predicted was read once (its survey read): its share of its point's measuring time.
    surveyed = sum(
        spent.get(k, 0.0) * min(_SURVEY_READS, int(counts.get(k, 0))) / max(int(counts.get(k, 0)), 1)
        for k in candidate_keys - measured_keys
    )
    total = sum(spent.values())
    candidates_seconds = sum(spent.get(k, 0.0) for k in candidate_keys)
    measured_seconds = sum(spent.get(k, 0.0) for k in measured_keys) + surveyed
    facts = {
        "points": len(spent),
        "candidates": len(candidate_keys),
        "anchors": len(anchor_keys & candidate_keys),
        "measured_candidates": len(measured_keys),
        "steps": played.steps,
        "uncertainty": played.uncertainty.u,
        "uncertainty_details": asdict(played.uncertainty),
        "uncertainty_text": played.uncertainty.describe(),
        "measuring_seconds_full": total,
        # Only the decision: the plan's reads (the chosen in full, the others' survey reads); the other scans'
        # points are not measured.
        "measuring_seconds_decision_only": measured_seconds,
        "measuring_seconds_survey": surveyed,
        # The study's figures as well: every point outside the decision's candidates measured as now.
        "measuring_seconds_with_figures": total - candidates_seconds + measured_seconds,
        "decisions": len(table),
        "decisions_agreeing": int(table["agrees"].sum()),
        "decisions_agreeing_disk_only": int(table["disk_only_agrees"].sum()),
        "decisions_agreeing_random": float(table["random_agreement"].sum()),
        "random_plans": _RANDOM_PLANS,
        "write_noise": full.write_noise.describe(),
    }
    return table, facts, candidates_table


def _survey_reads(repetitions: pd.DataFrame) -> pd.DataFrame:
    """Each point's first SURVEY_READS unflagged repetitions (by repetition number): the reads a plan takes of a
    candidate it has not chosen."""
    flagged = (
        repetitions["flagged"].astype(str).str.lower().isin(["true", "1"])
        if "flagged" in repetitions
        else False
    )
    kept = repetitions[~flagged] if "flagged" in repetitions else repetitions
    return kept.sort_values("rep").groupby(_KEY, sort=False).head(_SURVEY_READS)


def _mean(values: pd.Series) -> float:
    return float(values.mean()) if len(values) else math.nan


def _agrees(table: pd.DataFrame, settings: pd.Series) -> list[bool]:
    """Whether each of ``settings`` is the full study's choice, or one it cannot tell from it (its tie)."""
    return [
        a == s or a in str(t).split(decision.TIED_SEPARATOR)
        for a, t, s in zip(settings, table["tied_settings"], table["setting"], strict=True)
    ]


def _smallest(parts: pd.DataFrame, fmt: str) -> str:
    """The plan without any read: the candidate of ``fmt`` with the smallest file (then the cheapest write)."""
    group = parts[parts["format"] == fmt].sort_values(["storage_cost", "write_cost"], kind="stable")
    return str(group["setting"].iloc[0])


def random_agreement(parts: pd.DataFrame, table: pd.DataFrame, per_format: Mapping[str, int]) -> list[float]:
    """Per row of ``table`` (format, reads per file), the share of RANDOM_PLANS random plans that agree with the
    full study: each measures as many of the format's candidates as the adaptive plan did (``per_format``), drawn
    at random, and chooses the one with the lowest mean total among them."""
    rng = np.random.default_rng(_RANDOM_SEED)
    fixed = decision.fixed_cost(parts).to_numpy(dtype=float)
    read = parts["read_cost"].to_numpy(dtype=float)
    settings = parts["setting"].to_numpy()
    shares = []
    for _, r in table.iterrows():
        members = np.flatnonzero(parts["format"].to_numpy() == r["format"])
        size = min(max(per_format.get(r["format"], 1), 1), len(members))
        accepted = {r["setting"], *str(r["tied_settings"]).split(decision.TIED_SEPARATOR)}
        total = fixed[members] + r["reads_per_file"] * read[members]
        hits = 0
        for _ in range(_RANDOM_PLANS):
            drawn = rng.choice(len(members), size=size, replace=False)
            hits += settings[members[drawn[np.argmin(total[drawn])]]] in accepted
        shares.append(hits / _RANDOM_PLANS)
    return shares


def markdown(table: pd.DataFrame, facts: Mapping[str, Any], candidates: pd.DataFrame | None = None) -> str:
    """The replay in words and tables, for a person."""
    full = facts["measuring_seconds_full"] / 60
    only = facts["measuring_seconds_decision_only"] / 60
    figures = facts["measuring_seconds_with_figures"] / 60
    survey = facts["measuring_seconds_survey"] / 60
    n = facts["decisions"]
    lines = [
        "# Measuring only where it matters: the adaptive plan replayed on this study",
        "",
        "This is a replay on a study measured whole, not a run of the plan: the plan is played with the reads it "
        "would itself have taken (each candidate's first read until it chooses it, then all of its repetitions), "
        "and its decision is made from those reads alone.",
        "",
        f"Of the {facts['candidates']} candidates of the decision, the plan measures {facts['measured_candidates']} "
        f"in full ({facts['anchors']} anchors, the rest close to the decision or without a prediction) in "
        f"{facts['steps']} steps, every other one's read predicted within a factor 1 + u. "
        f"{facts['uncertainty_text']}.",
        "",
        f"Measuring time (cold reads and their overheads; the primitives and warm reads, which the plan needs "
        f"too, not counted): the whole study {full:.1f} min; the plan {only:.1f} min ({_share(only, full)} of "
        f"it; {survey:.1f} min of it the survey reads of the candidates it left predicted); the plan and every "
        f"point outside the decision's candidates (what the figures would still need measured) {figures:.1f} min "
        f"({_share(figures, full)}). The figures' candidates the plan leaves out would be drawn from predictions.",
        "",
        "Decisions that agree with the full measurement (the plan's setting, its lowest mean, is the full study's "
        "choice or one the full study cannot tell from it):",
        "",
        f"- the adaptive plan: **{facts['decisions_agreeing']} of {n}**;",
        f"- without any read, the smallest file (the disk cost alone): {facts['decisions_agreeing_disk_only']} of "
        f"{n};",
        f"- as many candidates as the plan measured, chosen at random, the cheapest of them by mean: "
        f"{facts['decisions_agreeing_random']:.1f} of {n} on average over {facts['random_plans']} draws.",
        "",
        "The adaptive plan means something only where it agrees more often than these.",
        "",
        "| format | reads per file | full study | plan (its own reads) | agrees | smallest file | agrees "
        "| random: share agreeing |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for _, r in table.iterrows():
        lines.append(
            f"| {r['format']} | {r['reads_per_file']:g} | {r['choice']} | {r['adaptive_choice']} "
            f"| {'yes' if r['agrees'] else '**no**'} | {r['disk_only_setting']} "
            f"| {'yes' if r['disk_only_agrees'] else 'no'} | {r['random_agreement']:.2f} |"
        )
    if candidates is not None and len(candidates):
        left = candidates[candidates["role"] == PREDICTED].sort_values("cut_distance")
        lines += [
            "",
            "## The candidates left predicted, closest to the cut first",
            "",
            "The cut: at each number of reads per file, the lowest upper end of the format's cost intervals. "
            "Distance: how far above the cut the candidate's lowest cost within u stayed, where it came closest; "
            "u needed: the u at which it would have reached the cut (never: its disk and write alone lie above "
            "it).",
            "",
            "| format | setting | distance from the cut | at reads per file | u needed |",
            "|---|---|---|---|---|",
        ]
        for _, r in left.iterrows():
            lines.append(
                f"| {r['format']} | {r['setting']} | {_percent(r['cut_distance'])} | "
                f"{r['cut_distance_reads']:g} | {_needed_text(r['u_to_reach_cut'])} |"
            )
    return "\n".join(lines) + "\n"


def _closest(group: pd.DataFrame) -> str:
    """The candidate left predicted nearest the cut, for people: "LZ4-5: +3.1 %, u 41 %"; "none"."""
    left = group[group["role"] == PREDICTED]
    distance = pd.to_numeric(left.get("cut_distance"), errors="coerce")
    if distance is None or distance.isna().all():
        return "none"
    closest = distance.idxmin()
    # A JSON record keeps an unbounded u as null: read back, NaN, and "unbounded" again.
    needed = pd.to_numeric(pd.Series([left.at[closest, "u_to_reach_cut"]]), errors="coerce").iloc[0]
    reach = (
        f"u needed {_needed_text(needed)}" if math.isfinite(needed) else "its disk and write alone above it"
    )
    return f"{left.at[closest, 'setting']}: {_percent(float(distance[closest]))}, {reach}"


def _needed_text(u: float) -> str:
    """The u a left-out candidate would have needed, for people; "never" where no u would do (inf, or the null a
    JSON record keeps of it)."""
    return "never" if not math.isfinite(u) else f"{100 * u:.0f} %"


def _percent(value: float) -> str:
    return "n/a" if not math.isfinite(value) else f"+{100 * value:.1f} %"


def _share(part: float, whole: float) -> str:
    return f"{100 * part / whole:.0f} %" if whole > 0 and math.isfinite(part) else "n/a"


# --- The decision on a medium the host lacks -----------------------------------------------------------------

_PREDICTED_CHOICE_COLUMNS = [
    "medium",
    "medium_name",
    "format",
    "reads_per_file",
    "choice",
    "tie",
    "setting",
    "tied_settings",
    "total_cost",
    "total_cost_low",
    "total_cost_high",
    "read_seconds_per_event",
    "uncertainty",
    "candidates",
    "predicted",
]


def _open_seconds_on(summary_row: Mapping[str, Any], medium) -> float:
    """A file's open on another medium: this host's open less its storage wait (the CPU of reading the file's
    metadata), plus the open's read calls and bytes on the medium (each call a request: the metadata lie apart)."""

    cpu = number_or_zero(summary_row.get("open_seconds_mean")) - number_or_zero(
        summary_row.get("open_disk_seconds_mean")
    )
    calls = number_or_zero(summary_row.get("open_read_calls_mean"))
    data = number_or_zero(summary_row.get("open_bytes_read_mean"))
    return max(cpu, 0.0) + calls * medium.request_seconds + data / medium.bandwidth_bps


def predicted_choices(
    summary: pd.DataFrame,
    files: pd.DataFrame,
    repetitions: pd.DataFrame,
    media_points: pd.DataFrame,
    config: Mapping[str, Any],
    media: Sequence[str],
    uncertainty: float,
) -> pd.DataFrame:
    """Per medium the host lacks (rootparams.model.model.MEDIA, as named in ``media``), format and number of reads: the
    cheapest setting when every candidate's read is the model's prediction on that medium (loop and open), each
    within a factor (1 + ``uncertainty``); the settings whose cost interval reaches the cheapest's are named with
    it ("cannot tell"). Marked ``predicted``: no rate in it was measured on that medium."""
    rows = decision.candidates(summary, files, config)
    parts = decision.cost_model(rows, config, Repetitions(repetitions), replicates=200).parts
    price = decision.prices(config)
    by_point = summary.set_index(_KEY)
    out = []
    for key in media:
        medium = MEDIA[key]
        mine = media_points[media_points["medium"] == key].set_index(_KEY)
        seconds = pd.Series(np.nan, index=parts.index)
        for i, row in parts.iterrows():
            point = tuple(row[k] for k in _KEY)
            if point in mine.index and point in by_point.index:
                p = mine.loc[point]
                opened = _open_seconds_on(by_point.loc[point].to_dict(), medium)
                seconds[i] = (float(p["predicted_loop_seconds"]) + opened) / float(p["events_read"])
        known = parts[seconds.notna()]
        read = _costs(known, seconds[known.index], price)
        fixed = decision.fixed_cost(known)
        for fmt, group in known.groupby("format"):
            for reads in price["reads_per_file"]:
                total, low, high = _predicted_interval(
                    fixed[group.index], read[group.index], reads, uncertainty
                )
                best = total.idxmin()
                tied = [i for i in total.sort_values().index if low[i] <= high[best]]
                names = [group.at[i, "setting"] for i in tied]
                out.append(
                    {
                        "medium": key,
                        "medium_name": medium.name,
                        "format": fmt,
                        "reads_per_file": reads,
                        "choice": (
                            f"{' or '.join(names)}: cannot tell apart (predicted)"
                            if len(names) > 1
                            else f"{names[0]} (predicted)"
                        ),
                        "tie": len(names) > 1,
                        "setting": group.at[best, "setting"],
                        "tied_settings": decision.TIED_SEPARATOR.join(names),
                        "total_cost": total[best],
                        "total_cost_low": low[best],
                        "total_cost_high": high[best],
                        "read_seconds_per_event": seconds[best],
                        "uncertainty": uncertainty,
                        "candidates": len(group),
                        "predicted": True,
                    }
                )
    return pd.DataFrame(out, columns=_PREDICTED_CHOICE_COLUMNS)


# --- The plan, live (measurement.adaptive) ------------------------------------------------------------------

# A point the plan has not chosen is read once, cold, like any repetition: its survey read. It gives the layout
# counts the model needs and that no warm read can (the bytes and requests that reach the block device), and it is
# the point's first repetition should the plan choose it later.
_SURVEY_READS = 1
# What the plan made of a point (the block record's "adaptive" section, tables/adaptive_plan.csv).
ANCHOR, CHOSEN, PREDICTED = "anchor", "chosen", "predicted"
# Why a surveyed point has no rate of its own (its status in the summary).
SURVEYED_WHY = (
    "the adaptive plan read it once (measurement.adaptive): its rate is predicted (tables/adaptive_plan.csv), "
    "it could not be the cheapest"
)


def key_of(point: Any) -> tuple:
    """A planned point's (format, file_id, read_id)."""
    return (point.labels["format"], point.labels["file_id"], point.labels["read_id"])


def planned_repetitions(
    labels: Mapping[str, Any], scans: Sequence[str], config: Mapping[str, Any], full: set[tuple]
) -> int:
    """How many cold reads the plan takes of a point (``labels``: its settings and identity, as a planned point
    carries them): its survey read if it is a candidate of the decision the plan has not chosen; else (an anchor: a
    point of the default scan; a chosen candidate; a point outside the decision, which the plan does not judge and
    the figures need) the study's repetitions."""
    candidate = decision.eligible_setting(
        config,
        labels["format"],
        labels["storage_profile"],
        labels["branches"],
        labels.get("float_precision", "full"),
    )
    key = (labels["format"], labels["file_id"], labels["read_id"])
    if candidate and _ANCHOR_SCAN not in scans and key not in full:
        return _SURVEY_READS
    return int(config["repetitions"])


def chosen_before(block_record: Mapping[str, Any] | None) -> set[tuple]:
    """The candidates an earlier run of a block's plan chose (its block record), so that a rerun plans their
    repetitions (and needs their files) from the start."""
    rows = ((block_record or {}).get("adaptive") or {}).get("points", [])
    return {tuple(r[k] for k in _KEY) for r in rows if r.get("role") == CHOSEN}


def predicted_keys(plan_record: Mapping[str, Any]) -> set[tuple]:
    """The candidates a block's plan left predicted (read once)."""
    return {tuple(r[k] for k in _KEY) for r in plan_record.get("points", []) if r.get("role") == PREDICTED}


def block_tables(
    points: Sequence[Any],
    scans: Mapping[tuple, Sequence[str]],
    catalogues: Sequence[str],
    warm_sets: Sequence[Mapping[str, Any]],
    measurement: Mapping[str, Any],
    repetitions: int,
) -> dict[str, pd.DataFrame]:
    """The study's tables (as the aggregation makes them) of one block's points, from the records taken so far:
    repetitions, files, summary, points (with their scans) and the warm reads' CPU summary."""
    paths = [p.records[rep] for p in points for rep in sorted(kept_records(p))]
    reps = derive_metrics(load_records(paths))
    return {
        "repetitions": reps,
        "files": load_catalogue(sorted(set(catalogues))),
        "summary": summarize(reps, dict(measurement), repetitions),
        "points": pd.DataFrame(
            [{**dict(zip(_KEY, key_of(p), strict=True)), "scans": ";".join(scans[key_of(p)])} for p in points]
        ),
        "warm": cpu_summary(
            cpu_table(
                records_of_blocks([{"warm_sets": list(warm_sets)}]), measurement.get("memory_probe_loads")
            )
        ),
    }


def block_model_points(tables: Mapping[str, pd.DataFrame], storage: pd.DataFrame) -> pd.DataFrame:
    """The model's prediction of every point of a block's tables (block_tables) with an unflagged read, surveyed
    ones too (rootparams.model.model.predicted_points)."""
    points = study_points(
        tables["repetitions"], tables["files"], tables["summary"], tables["points"], valid_only=False
    )
    return predicted_points(points, storage, tables["warm"]) if len(points) else pd.DataFrame()


def _plan_step(
    tables: Mapping[str, pd.DataFrame],
    model_points: pd.DataFrame,
    config: Mapping[str, Any],
    full: set[tuple],
) -> tuple[pd.DataFrame, set[tuple], float]:
    """One step of the live plan on a block's tables (block_tables) and the model's predictions of its points
    (block_model_points): every candidate of the decision with its role (anchor; chosen: measured at full
    repetitions; predicted: surveyed only), its predicted and (where measured) measured read cost; the candidates
    to measure next (next_to_measure, and any surveyed one the model cannot predict); and the uncertainty u of the
    predictions (calibrated on the errors of every candidate read so far: predicted_read_seconds)."""
    rows = decision.candidates(tables["summary"], tables["files"], config)
    rows = rows[decision.eligible(rows, config)]
    keys = [tuple(r) for r in rows[_KEY].itertuples(index=False)]
    is_full = pd.Series([k in full for k in keys], index=rows.index, dtype=bool)
    reads = Repetitions(tables["repetitions"])
    measured = decision.cost_model(rows[is_full], config, reads, replicates=200).parts
    price = decision.prices(config)
    surveyed = decision.cost_parts(rows[~is_full].assign(read_seconds_per_event=np.nan), price)
    parts = pd.concat([measured, surveyed], ignore_index=True).merge(tables["points"], on=_KEY, how="left")
    # What the plan has read of each candidate: all of a measured one's reads, a surveyed one's survey read.
    observed = parts["read_seconds_per_event"].fillna(
        pd.Series(
            [_mean(decision.read_seconds(r, reads)) for r in parts.to_dict("records")], index=parts.index
        )
    )
    anchor_keys = anchors(tables["points"])
    if model_points.empty:
        seconds, uncertainty = pd.Series(np.nan, index=parts.index), Uncertainty(math.inf)
    else:
        seconds, uncertainty, _ = _predicted_read_seconds(parts, model_points, anchor_keys, observed)
    u = uncertainty.u
    in_full = {i for i in parts.index if tuple(parts.loc[i, _KEY]) in full}
    # A measured candidate that is not valid has no interval: it is out of the decision, as in a full study.
    usable = parts[~parts.index.isin(in_full) | parts["read_cost_ci95_low"].notna()]
    predicted_read = _costs(usable, seconds[usable.index], price)
    unknown = {i for i in usable.index if i not in in_full and pd.isna(predicted_read[i])}
    known = usable.drop(index=list(unknown))
    nxt = _next_to_measure(
        known, predicted_read[known.index], u, in_full & set(known.index), list(price["reads_per_file"])
    )
    to_measure = {tuple(parts.loc[i, _KEY]) for i in nxt | unknown}
    table = parts[[*_KEY, "setting"]].copy()
    table["role"] = [
        ANCHOR if k in anchor_keys else CHOSEN if k in full else PREDICTED
        for k in (tuple(r) for r in parts[_KEY].itertuples(index=False))
    ]
    table["predicted_read_seconds_per_event"] = seconds
    table["predicted_read_cost"] = _costs(parts, seconds, price)
    table["measured_read_cost"] = parts["read_cost"].where(parts.index.isin(in_full))
    table["measured_read_cost_ci95_low"] = parts["read_cost_ci95_low"]
    table["measured_read_cost_ci95_high"] = parts["read_cost_ci95_high"]
    table["storage_cost"] = parts["storage_cost"]
    table["write_cost"] = parts["write_cost"]
    table["survey_read_seconds_per_event"] = observed.where(~parts.index.isin(in_full))
    distances = _cut_distances(
        known, predicted_read[known.index], u, in_full & set(known.index), list(price["reads_per_file"])
    )
    distances.loc[list(nxt)] = np.nan  # to be measured: not left out
    table = table.join(distances)
    # A record is JSON: an unbounded u is kept as NaN, and said in words.
    table["uncertainty"] = u if math.isfinite(u) else np.nan
    table["uncertainty_errors"] = uncertainty.errors
    table["uncertainty_effective"] = uncertainty.effective
    table["uncertainty_text"] = uncertainty.describe()
    return table, to_measure, u


def measure_adaptively(
    points_for: Callable[[set[tuple]], list[Any]],
    scans: Mapping[tuple, Sequence[str]],
    catalogues: Sequence[str],
    measure: Callable[[list[Any]], Any],
    storage: pd.DataFrame,
    config: Mapping[str, Any],
    full: set[tuple],
    say: Callable[[str], None] = print,
) -> tuple[list[Any], Any, dict[str, Any]]:
    """The live plan of one block: measure (``measure``: rootparams.measure.measure.measure_block bound to the block) the
    points ``points_for(full)`` gives (the anchors and ``full`` at the study's repetitions, every other point its
    survey read, every point's warm reads), predict, and measure next the candidates that could be the cheapest;
    until none is added. ``full``: the points already chosen (an earlier run's). Returns the last planned points,
    the last measurement (every point's records, earlier ones kept) and the plan: its rounds, uncertainty and
    per candidate its role and costs."""
    measurement, repetitions = config["measurement"], config["repetitions"]
    full = set(full)
    steps: list[dict[str, Any]] = []
    spent = {"measured_loop_seconds": 0.0, "measured_repetitions": 0, "measured_warm_reads": 0}
    schedule_: list[dict[str, Any]] = []
    sentinel_records: list[str] = []
    while True:
        points = points_for(full)
        result = measure(points)
        spent = {k: v + getattr(result, k) for k, v in spent.items()}
        schedule_ += result.schedule
        sentinel_records += result.sentinel_records
        tables = block_tables(points, scans, catalogues, result.warm_sets, measurement, repetitions)
        predicted = block_model_points(tables, storage)
        anchor_keys = anchors(tables["points"])
        table, to_measure, u = _plan_step(tables, predicted, config, full | anchor_keys)
        added = to_measure - full - anchor_keys
        steps.append(
            {
                "step": len(steps),
                "added": sorted(map(list, added)),
                "uncertainty": u if math.isfinite(u) else None,
            }
        )
        say(
            f"adaptive plan, step {len(steps)}: {len(table)} candidates, {int((table['role'] != PREDICTED).sum())} "
            f"measured in full, {len(added)} more to measure ({table['uncertainty_text'].iloc[0] if len(table) else ''})"
        )
        if not added:
            break
        full |= added
    for k, v in spent.items():
        setattr(result, k, v)
    # The block's record lists every step's rounds and sentinel reads, not only the last step's.
    result.schedule = schedule_
    result.sentinel_records = sentinel_records
    plan_record = {
        "steps": steps,
        "uncertainty": u if math.isfinite(u) else None,
        "points": json.loads(table.to_json(orient="records")),
    }
    return points, result, plan_record


def plan_table(blocks: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """Every candidate of the blocks' live plans (their records' "adaptive" sections): its role, predicted and
    measured read cost, storage and write cost, the plan's uncertainty and the number of steps of its block."""
    frames = []
    for block in blocks:
        plan_record = block.get("adaptive")
        if not plan_record:
            continue
        rows = pd.DataFrame(plan_record["points"])
        rows["steps"] = len(plan_record["steps"])
        frames.append(rows)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=[*_KEY, "role"])


def plan_markdown(
    table: pd.DataFrame,
    repetitions: pd.DataFrame,
    measure_jobs: pd.DataFrame,
    choice: pd.DataFrame,
    planned: int,
    warm_reads: pd.DataFrame | None = None,
) -> str:
    """The live plan in words for a person: per format, what it measured and left predicted, the measuring time it
    took and the time reading the predicted candidates in full would have added (each one's survey read, with
    its block's overhead per repetition, times the repetitions it was spared), and the decision it led to."""
    spent = _measuring_seconds(repetitions, measure_jobs, warm_reads)
    lines = [
        "# Measuring only where it matters: the adaptive plan",
        "",
        "Each format's anchors (its default points) and the points outside the decision were measured at the "
        f"study's {planned} repetitions, every other candidate of the decision once; the model predicted each "
        "candidate read once, and those that could be the cheapest were measured in full. The decision "
        "(cost_choice.csv) uses measured reads only.",
        "",
        "| format | candidates | anchors | chosen | left predicted | steps | u | closest left predicted "
        "| cold reads taken (min) | spared (min, est.) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    how = []
    for fmt, group in table.groupby("format"):
        roles = group["role"].value_counts()
        keys = [tuple(r) for r in group[_KEY].itertuples(index=False)]
        taken = sum(v for k, v in spent.items() if k[0] == fmt) / 60
        predicted = [k for k, role in zip(keys, group["role"], strict=True) if role == PREDICTED]
        spared = sum(spent.get(k, 0.0) * (planned - _SURVEY_READS) for k in predicted) / 60
        u = pd.to_numeric(group["uncertainty"], errors="coerce").iloc[0]
        lines.append(
            f"| {fmt} | {len(group)} | {roles.get(ANCHOR, 0)} | {roles.get(CHOSEN, 0)} | {roles.get(PREDICTED, 0)} "
            f"| {int(group['steps'].iloc[0])} | {_factor_text(u)} | {_closest(group)} | {taken:.1f} "
            f"| {spared:.1f} |"
        )
        if "uncertainty_text" in group:
            how.append(f"- {fmt}: {group['uncertainty_text'].iloc[0]}.")
    lines += [
        "",
        "Cold reads taken: every cold read of the format's block with its share of the block's overhead "
        "(eviction and its check, the reader's start, the sentinel), warm reads not counted. Spared: an estimate, "
        "each predicted candidate's survey read times the repetitions it did not get. Closest left predicted: the "
        "candidate whose lowest cost within u came nearest the cut (the lowest upper end of the format's cost "
        "intervals), how far above it and the u that would have reached it (every candidate's: `cut_distance`, "
        "`u_to_reach_cut` in adaptive_plan.csv).",
        "",
        "u, the factor within which a predicted read is taken to lie, calibrated on the errors of the plan's "
        'predictions against the reads it took (docs/model.md, "Measuring only where it matters"):',
        "",
        *how,
        "",
        "## The decision",
        "",
        "| format | reads per file | choice |",
        "|---|---|---|",
    ]
    for _, r in choice.iterrows():
        lines.append(f"| {r['format']} | {r['reads_per_file']:g} | {r['choice']} |")
    return "\n".join(lines) + "\n"
