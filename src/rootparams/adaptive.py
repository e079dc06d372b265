"""Spend measuring time where it matters: an adaptive plan for the decision, as an option of a study
(measurement.adaptive) and replayed on a study measured whole (docs/model.md, "Measuring only where it matters").

The plan: measure the primitives (storage, warm reads) and a few anchor points, predict every other candidate of
the decision with the model of the timed loop (rootparams.model), and measure only the candidates that could be the
cheapest at some number of reads per file given the prediction's uncertainty; repeat with what was measured until
no new candidate comes close. When it stops, every candidate left predicted costs more, even at the low end of its
interval, than the high end of the cheapest measured one's: the decision made from measured reads is the plan's.

Live (measure_adaptively, run by a block's measuring job): the anchors and the points outside the decision are
measured at the study's repetitions and every other candidate once (its survey read: the layout counts the model
needs, which only a cold read gives), then the candidates that could be the cheapest in full, step by step.

The replay: on a study that measured every point, the plan is played with the study's own tables (the measurements
of a point are looked at only once the plan has chosen to measure it); it says how many points and how much
measuring time the plan would have needed, and whether its decision is the full study's.

What the plan knows of a point it has not measured in full: its predicted loop (the model: this host's warm reads
and storage primitives, and the point's layout counts, which do not depend on the machine's speed), the open time
of its format's anchors, and the file's size and write cost (the decision's fixed costs, known once the file is
written).

The prediction's uncertainty: a predicted read cost is taken as anywhere within a factor (1 + u) of its value, u
the larger of the model's 90th-percentile target (25 %) and the 90th percentile of the anchors' errors before the
anchors correct their format's predictions (a scale per format: the median of measured over predicted).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from rootparams import decision
from rootparams.aggregate import derive_metrics, load_catalogue, load_records, summarize
from rootparams.compare import Repetitions
from rootparams.measure import kept_records
from rootparams.model import (
    MEDIA,
    P90_ERROR_TARGET,
    number_or_zero,
    predicted_points,
    scans_of,
    study_points,
)
from rootparams.warmread import cpu_summary, cpu_table, records_of_blocks

KEY = ["format", "file_id", "read_id"]
# The anchors of a format: its points in the study's default scan (the format's default file and read).
ANCHOR_SCAN = "default"


def anchors(points: pd.DataFrame) -> set[tuple]:
    """Per format, the points of the default scan."""
    chosen = points[scans_of(points["scans"]).map(lambda s: ANCHOR_SCAN in s)]
    return {tuple(k) for k in chosen[KEY].itertuples(index=False)}


def measuring_seconds(
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
    for key, group in repetitions.groupby(KEY):
        loops = pd.to_numeric(group["loop_seconds"], errors="coerce").fillna(0.0)
        out[tuple(key)] = float(loops.sum() + len(group) * overhead.get(key[0], 0.0))
    return out


def predicted_read_seconds(
    parts: pd.DataFrame, model_points: pd.DataFrame, anchor_keys: set[tuple]
) -> tuple[pd.Series, float, dict[str, float]]:
    """Per candidate (``parts``' rows), the predicted whole read in seconds per event: the predicted loop plus its
    format's anchors' open time, scaled by its format's anchors' median measured / predicted; NaN where the model
    has no prediction. Also the uncertainty u and the scales."""
    pred = model_points.set_index(KEY)
    uncalibrated, open_seconds, errors = {}, {}, {}
    for i, row in parts.iterrows():
        key = tuple(row[k] for k in KEY)
        if key not in pred.index:
            continue
        p = pred.loc[key]
        uncalibrated[i] = (float(p["predicted_loop_seconds"]), float(p["events_read"]))
        if key in anchor_keys:
            read = float(row["read_seconds_per_event"]) * float(p["events_read"])
            open_seconds.setdefault(row["format"], []).append(read - float(p["measured_loop_seconds"]))
    opened = {f: float(np.median(v)) for f, v in open_seconds.items()}
    values = pd.Series(np.nan, index=parts.index)
    for i, (loop, events) in uncalibrated.items():
        fmt = parts.at[i, "format"]
        values[i] = (loop + opened.get(fmt, 0.0)) / events
    ratios: dict[str, list[float]] = {}
    for i, row in parts.iterrows():
        if tuple(row[k] for k in KEY) in anchor_keys and values[i] == values[i]:
            ratios.setdefault(row["format"], []).append(float(row["read_seconds_per_event"]) / values[i])
            errors[i] = abs(values[i] / float(row["read_seconds_per_event"]) - 1)
    scales = {f: float(np.median(v)) for f, v in ratios.items()}
    u = max(P90_ERROR_TARGET, float(np.quantile(list(errors.values()), 0.9)) if errors else 0.0)
    calibrated = values * parts["format"].map(lambda f: scales.get(f, 1.0))
    return calibrated, u, scales


def _costs(parts: pd.DataFrame, read_seconds: pd.Series, price: Mapping[str, Any]) -> pd.Series:
    """The read cost of ``parts``' candidates if each read took ``read_seconds`` per event (the cost model's own
    arithmetic: decision.cost_parts)."""
    return decision.cost_parts(parts.assign(read_seconds_per_event=read_seconds), price)["read_cost"]


def predicted_interval(fixed, read, reads: float, u: float):
    """A predicted total cost at ``reads`` reads per file: (the cost, its low end, its high end), the read cost
    ``read`` taken as anywhere within a factor 1 + ``u`` of its prediction; ``fixed`` the storage and write."""
    return fixed + reads * read, fixed + reads * read / (1 + u), fixed + reads * read * (1 + u)


def next_to_measure(
    parts: pd.DataFrame,
    predicted_read: pd.Series,
    u: float,
    measured: set,
    reads_list: Sequence[float],
) -> set:
    """The predicted candidates (``parts``' index, not in ``measured``) that could be the cheapest: at some number
    of reads, the low end of their cost interval (the predicted read cost within a factor 1 + ``u``) reaches the
    lowest high end of their format's intervals (a measured candidate's from its repetitions' bootstrap)."""
    fixed = parts["storage_cost"] + parts["write_cost"]
    added = set()
    for _, group in parts.groupby("format"):
        for reads in reads_list:
            low, high = {}, {}
            for i in group.index:
                if i in measured:
                    low[i] = fixed[i] + reads * parts.at[i, "read_cost_ci95_low"]
                    high[i] = fixed[i] + reads * parts.at[i, "read_cost_ci95_high"]
                else:
                    _, low[i], high[i] = predicted_interval(fixed[i], predicted_read[i], reads, u)
            bound = min(high.values())
            added |= {i for i in group.index if i not in measured and low[i] <= bound}
    return added


def plan(
    parts: pd.DataFrame,
    predicted_seconds: pd.Series,
    u: float,
    anchor_keys: set[tuple],
    reads_list: Sequence[float],
    price: Mapping[str, Any],
) -> tuple[set[int], pd.DataFrame]:
    """The candidates (``parts``' index) the plan measures: the anchors, those without a prediction, and, until
    none is added, every predicted one that could be the cheapest (next_to_measure). Also the decision it ends
    with, per format and number of reads."""
    measured = {i for i, r in parts.iterrows() if tuple(r[k] for k in KEY) in anchor_keys}
    measured |= set(parts.index[predicted_seconds.isna()])
    predicted_read = _costs(parts, predicted_seconds, price)
    while added := next_to_measure(parts, predicted_read, u, measured, reads_list):
        measured |= added
    fixed = parts["storage_cost"] + parts["write_cost"]
    rows = []
    for fmt, group in parts.groupby("format"):
        for reads in reads_list:
            read = [parts.at[i, "read_cost"] if i in measured else predicted_read[i] for i in group.index]
            total = fixed[group.index] + reads * pd.Series(read, index=group.index)
            best = total.idxmin()
            rows.append({"format": fmt, "reads_per_file": reads, "adaptive_setting": parts.at[best, "setting"],
                         "adaptive_from": "measured" if best in measured else "predicted"})  # fmt: skip
    return measured, pd.DataFrame(rows)


def replay(
    summary: pd.DataFrame,
    files: pd.DataFrame,
    repetitions: pd.DataFrame,
    points: pd.DataFrame,
    model_points: pd.DataFrame,
    measure_jobs: pd.DataFrame,
    config: Mapping[str, Any],
    warm_reads: pd.DataFrame | None = None,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The plan played on a whole study: per format and number of reads, the full study's choice (its tie, from
    the cost model's bootstrap) beside the plan's, and whether they agree (the plan's setting is the full choice
    or one of the settings it cannot tell apart); and the points and measuring time the plan needs."""
    reps = Repetitions(repetitions)
    rows = decision.candidates(summary, files, config)
    full = decision.cost_model(rows, config, reps)
    parts = full.parts.merge(points[[*KEY, "scans"]], on=KEY, how="left")
    price = decision.prices(config)
    reads_list = list(price["reads_per_file"])
    anchor_keys = anchors(points)
    seconds, u, scales = predicted_read_seconds(parts, model_points, anchor_keys)
    measured, chosen = plan(parts, seconds, u, anchor_keys, reads_list, price)
    choice = decision.cheapest(decision.cost_ranking(full, reads_list))
    table = choice[["format", "reads_per_file", "choice", "setting", "tied_settings"]].merge(
        chosen, on=["format", "reads_per_file"], how="left"
    )
    table["agrees"] = [
        a in str(t).split(decision.TIED_SEPARATOR) or a == s
        for a, t, s in zip(table["adaptive_setting"], table["tied_settings"], table["setting"], strict=True)
    ]
    spent = measuring_seconds(repetitions, measure_jobs, warm_reads)
    all_keys = set(spent)
    candidate_keys = {tuple(parts.loc[i, KEY]) for i in parts.index}
    measured_keys = {tuple(parts.loc[i, KEY]) for i in measured}
    total = sum(spent.values())
    candidates_seconds = sum(spent.get(k, 0.0) for k in candidate_keys)
    measured_seconds = sum(spent.get(k, 0.0) for k in measured_keys)
    facts = {
        "points": len(all_keys),
        "candidates": len(candidate_keys),
        "anchors": len(anchor_keys & candidate_keys),
        "measured_candidates": len(measured_keys),
        "uncertainty": u,
        "scales": scales,
        "measuring_seconds_full": total,
        # Only the decision: the other scans' points are not measured.
        "measuring_seconds_decision_only": measured_seconds,
        # The study's figures as well: every point outside the decision's candidates measured as now.
        "measuring_seconds_with_figures": total - candidates_seconds + measured_seconds,
        "decisions": len(table),
        "decisions_agreeing": int(table["agrees"].sum()),
    }
    return table, facts


def markdown(table: pd.DataFrame, facts: Mapping[str, Any]) -> str:
    """The replay in words and a table, for a person."""
    full = facts["measuring_seconds_full"] / 60
    only = facts["measuring_seconds_decision_only"] / 60
    figures = facts["measuring_seconds_with_figures"] / 60
    lines = [
        "# Measuring only where it matters: the adaptive plan replayed on this study",
        "",
        f"Of the {facts['candidates']} candidates of the decision, the plan measures {facts['measured_candidates']} "
        f"({facts['anchors']} anchors, the rest close to the decision or without a prediction), with every other "
        f"one's read predicted within a factor 1 + {facts['uncertainty']:.2f}.",
        "",
        f"Measuring time (cold reads and their overheads; the primitives and warm reads, which the plan needs "
        f"too, not counted): the whole study {full:.1f} min; the plan {only:.1f} min ({_share(only, full)} of "
        f"it); the plan and every point outside the decision's candidates (what the figures would still need "
        f"measured) {figures:.1f} min ({_share(figures, full)}). The figures' candidates the plan leaves out "
        "would be drawn from predictions.",
        "",
        f"Decisions that agree with the full measurement: {facts['decisions_agreeing']} of {facts['decisions']} "
        "(the plan's setting is the full study's, or one it cannot tell from it).",
        "",
        "This is a replay on a study measured whole, not a run of the plan.",
        "",
        "| format | reads per file | full study | plan | plan's setting from | agrees |",
        "|---|---|---|---|---|---|",
    ]
    for _, r in table.iterrows():
        lines.append(
            f"| {r['format']} | {r['reads_per_file']:g} | {r['choice']} | {r['adaptive_setting']} "
            f"| {r['adaptive_from']} | {'yes' if r['agrees'] else '**no**'} |"
        )
    return "\n".join(lines) + "\n"


def _share(part: float, whole: float) -> str:
    return f"{100 * part / whole:.0f} %" if whole > 0 and math.isfinite(part) else "n/a"


# --- The decision on a medium the host lacks -----------------------------------------------------------------

PREDICTED_CHOICE_COLUMNS = [
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


def open_seconds_on(summary_row: Mapping[str, Any], medium) -> float:
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
    """Per medium the host lacks (rootparams.model.MEDIA, as named in ``media``), format and number of reads: the
    cheapest setting when every candidate's read is the model's prediction on that medium (loop and open), each
    within a factor (1 + ``uncertainty``); the settings whose cost interval reaches the cheapest's are named with
    it ("cannot tell"). Marked ``predicted``: no rate in it was measured on that medium."""
    rows = decision.candidates(summary, files, config)
    parts = decision.cost_model(rows, config, Repetitions(repetitions), replicates=200).parts
    price = decision.prices(config)
    by_point = summary.set_index(KEY)
    out = []
    for key in media:
        medium = MEDIA[key]
        mine = media_points[media_points["medium"] == key].set_index(KEY)
        seconds = pd.Series(np.nan, index=parts.index)
        for i, row in parts.iterrows():
            point = tuple(row[k] for k in KEY)
            if point in mine.index and point in by_point.index:
                p = mine.loc[point]
                opened = open_seconds_on(by_point.loc[point].to_dict(), medium)
                seconds[i] = (float(p["predicted_loop_seconds"]) + opened) / float(p["events_read"])
        known = parts[seconds.notna()]
        read = _costs(known, seconds[known.index], price)
        fixed = known["storage_cost"] + known["write_cost"]
        for fmt, group in known.groupby("format"):
            for reads in price["reads_per_file"]:
                total, low, high = predicted_interval(
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
    return pd.DataFrame(out, columns=PREDICTED_CHOICE_COLUMNS)


# --- The plan, live (measurement.adaptive) ------------------------------------------------------------------

# A point the plan has not chosen is read once, cold, like any repetition: its survey read. It gives the layout
# counts the model needs and that no warm read can (the bytes and requests that reach the block device), and it is
# the point's first repetition should the plan choose it later.
SURVEY_READS = 1
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
    if candidate and ANCHOR_SCAN not in scans and key not in full:
        return SURVEY_READS
    return int(config["repetitions"])


def chosen_before(block_record: Mapping[str, Any] | None) -> set[tuple]:
    """The candidates an earlier run of a block's plan chose (its block record), so that a rerun plans their
    repetitions (and needs their files) from the start."""
    rows = ((block_record or {}).get("adaptive") or {}).get("points", [])
    return {tuple(r[k] for k in KEY) for r in rows if r.get("role") == CHOSEN}


def predicted_keys(plan_record: Mapping[str, Any]) -> set[tuple]:
    """The candidates a block's plan left predicted (read once)."""
    return {tuple(r[k] for k in KEY) for r in plan_record.get("points", []) if r.get("role") == PREDICTED}


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
            [{**dict(zip(KEY, key_of(p), strict=True)), "scans": ";".join(scans[key_of(p)])} for p in points]
        ),
        "warm": cpu_summary(
            cpu_table(
                records_of_blocks([{"warm_sets": list(warm_sets)}]), measurement.get("memory_probe_loads")
            )
        ),
    }


def block_model_points(tables: Mapping[str, pd.DataFrame], storage: pd.DataFrame) -> pd.DataFrame:
    """The model's prediction of every point of a block's tables (block_tables) with an unflagged read, surveyed
    ones too (rootparams.model.predicted_points)."""
    points = study_points(
        tables["repetitions"], tables["files"], tables["summary"], tables["points"], valid_only=False
    )
    return predicted_points(points, storage, tables["warm"]) if len(points) else pd.DataFrame()


def plan_step(
    tables: Mapping[str, pd.DataFrame],
    model_points: pd.DataFrame,
    config: Mapping[str, Any],
    full: set[tuple],
) -> tuple[pd.DataFrame, set[tuple], float]:
    """One step of the live plan on a block's tables (block_tables) and the model's predictions of its points
    (block_model_points): every candidate of the decision with its role (anchor; chosen: measured at full
    repetitions; predicted: surveyed only), its predicted and (where measured) measured read cost; the candidates
    to measure next (next_to_measure, and any surveyed one the model cannot predict); and the uncertainty u of the
    predictions."""
    rows = decision.candidates(tables["summary"], tables["files"], config)
    rows = rows[decision.eligible(rows, config)]
    keys = [tuple(r) for r in rows[KEY].itertuples(index=False)]
    is_full = pd.Series([k in full for k in keys], index=rows.index, dtype=bool)
    measured = decision.cost_model(
        rows[is_full], config, Repetitions(tables["repetitions"]), replicates=200
    ).parts
    price = decision.prices(config)
    surveyed = decision.cost_parts(rows[~is_full].assign(read_seconds_per_event=np.nan), price)
    parts = pd.concat([measured, surveyed], ignore_index=True).merge(tables["points"], on=KEY, how="left")
    anchor_keys = anchors(tables["points"])
    if model_points.empty:
        seconds, u = pd.Series(np.nan, index=parts.index), P90_ERROR_TARGET
    else:
        seconds, u, _ = predicted_read_seconds(parts, model_points, anchor_keys)
    in_full = {i for i in parts.index if tuple(parts.loc[i, KEY]) in full}
    # A measured candidate that is not valid has no interval: it is out of the decision, as in a full study.
    usable = parts[~parts.index.isin(in_full) | parts["read_cost_ci95_low"].notna()]
    predicted_read = _costs(usable, seconds[usable.index], price)
    unknown = {i for i in usable.index if i not in in_full and pd.isna(predicted_read[i])}
    known = usable.drop(index=list(unknown))
    nxt = next_to_measure(
        known, predicted_read[known.index], u, in_full & set(known.index), list(price["reads_per_file"])
    )
    to_measure = {tuple(parts.loc[i, KEY]) for i in nxt | unknown}
    table = parts[[*KEY, "setting"]].copy()
    table["role"] = [
        ANCHOR if k in anchor_keys else CHOSEN if k in full else PREDICTED
        for k in (tuple(r) for r in parts[KEY].itertuples(index=False))
    ]
    table["predicted_read_seconds_per_event"] = seconds
    table["predicted_read_cost"] = _costs(parts, seconds, price)
    table["measured_read_cost"] = parts["read_cost"].where(parts.index.isin(in_full))
    table["measured_read_cost_ci95_low"] = parts["read_cost_ci95_low"]
    table["measured_read_cost_ci95_high"] = parts["read_cost_ci95_high"]
    table["storage_cost"] = parts["storage_cost"]
    table["write_cost"] = parts["write_cost"]
    table["uncertainty"] = u
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
    """The live plan of one block: measure (``measure``: rootparams.measure.measure_block bound to the block) the
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
        table, to_measure, u = plan_step(tables, predicted, config, full | anchor_keys)
        added = to_measure - full - anchor_keys
        steps.append({"step": len(steps), "added": sorted(map(list, added)), "uncertainty": u})
        say(
            f"adaptive plan, step {len(steps)}: {len(table)} candidates, {int((table['role'] != PREDICTED).sum())} "
            f"measured in full, {len(added)} more to measure (u = {u:.2f})"
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
        "uncertainty": u,
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
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=[*KEY, "role"])


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
    spent = measuring_seconds(repetitions, measure_jobs, warm_reads)
    lines = [
        "# Measuring only where it matters: the adaptive plan",
        "",
        "Each format's anchors (its default points) and the points outside the decision were measured at the "
        f"study's {planned} repetitions, every other candidate of the decision once; the model predicted each "
        "candidate read once, and those that could be the cheapest were measured in full. The decision "
        "(cost_choice.csv) uses measured reads only.",
        "",
        "| format | candidates | anchors | chosen | left predicted | steps | u | cold reads taken (min) "
        "| spared (min, est.) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for fmt, group in table.groupby("format"):
        roles = group["role"].value_counts()
        keys = [tuple(r) for r in group[KEY].itertuples(index=False)]
        taken = sum(v for k, v in spent.items() if k[0] == fmt) / 60
        predicted = [k for k, role in zip(keys, group["role"], strict=True) if role == PREDICTED]
        spared = sum(spent.get(k, 0.0) * (planned - SURVEY_READS) for k in predicted) / 60
        lines.append(
            f"| {fmt} | {len(group)} | {roles.get(ANCHOR, 0)} | {roles.get(CHOSEN, 0)} | {roles.get(PREDICTED, 0)} "
            f"| {int(group['steps'].iloc[0])} | {float(group['uncertainty'].iloc[0]):.2f} | {taken:.1f} "
            f"| {spared:.1f} |"
        )
    lines += [
        "",
        "Cold reads taken: every cold read of the format's block with its share of the block's overhead "
        "(eviction and its check, the reader's start, the sentinel), warm reads not counted. Spared: an estimate, "
        "each predicted candidate's survey read times the repetitions it did not get.",
        "",
        "## The decision",
        "",
        "| format | reads per file | choice |",
        "|---|---|---|",
    ]
    for _, r in choice.iterrows():
        lines.append(f"| {r['format']} | {r['reads_per_file']:g} | {r['choice']} |")
    return "\n".join(lines) + "\n"
