"""Spend measuring time where it matters: an adaptive plan for the decision, replayed on a study measured whole.

The plan: measure the primitives (storage, warm reads) and a few anchor points, predict every other candidate of
the decision with the model of the timed loop (rootparams.model), and measure only the candidates that could be the
cheapest at some number of reads per file given the prediction's uncertainty; repeat with what was measured until
no new candidate comes close. The decision is then made from measured rates where there are some and predicted
ones elsewhere.

What this module does is the *replay*: on a study that measured every point, it plays the plan with the study's
own tables (the measurements of a point are looked at only once the plan has chosen to measure it), and says how
many points and how much measuring time the plan would have needed, and whether its decision is the full study's.
It does not yet run the plan live (a study still measures its whole grid).

What the plan knows of a point it has not measured: its predicted loop (the model: this host's warm reads and
storage primitives, and the point's layout counts, which do not depend on the machine's speed: the same in every
repetition, and known from a warm read with the point's read settings), the open time of its format's anchors,
and the file's size and write cost (the decision's fixed costs, known once the file is written).

The prediction's uncertainty: a predicted read cost is taken as anywhere within a factor (1 + u) of its value, u
the larger of the model's 90th-percentile target (25 %) and the 90th percentile of the anchors' errors before the
anchors correct their format's predictions (a scale per format: the median of measured over predicted).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from rootparams import decision
from rootparams.compare import Repetitions
from rootparams.model import MEDIA, P90_ERROR_TARGET, number_or_zero, scans_of

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


def plan(
    parts: pd.DataFrame,
    predicted_seconds: pd.Series,
    u: float,
    anchor_keys: set[tuple],
    reads_list: Sequence[float],
    price: Mapping[str, Any],
) -> tuple[set[int], pd.DataFrame]:
    """The candidates (``parts``' index) the plan measures: the anchors, those without a prediction, and, until
    none is added, every predicted one whose cost interval reaches below the lowest upper bound of its format's
    intervals at some number of reads. Also the decision it ends with, per format and number of reads."""
    measured = {i for i, r in parts.iterrows() if tuple(r[k] for k in KEY) in anchor_keys}
    measured |= set(parts.index[predicted_seconds.isna()])
    measured_read = parts["read_cost"]
    predicted_read = _costs(parts, predicted_seconds, price)
    fixed = parts["storage_cost"] + parts["write_cost"]
    while True:
        added = set()
        for _, group in parts.groupby("format"):
            for reads in reads_list:
                low, high = {}, {}
                for i in group.index:
                    if i in measured:
                        low[i] = fixed[i] + reads * parts.at[i, "read_cost_ci95_low"]
                        high[i] = fixed[i] + reads * parts.at[i, "read_cost_ci95_high"]
                    else:
                        low[i] = fixed[i] + reads * predicted_read[i] / (1 + u)
                        high[i] = fixed[i] + reads * predicted_read[i] * (1 + u)
                bound = min(high.values())
                added |= {i for i in group.index if i not in measured and low[i] <= bound}
        if not added:
            break
        measured |= added
    rows = []
    for fmt, group in parts.groupby("format"):
        for reads in reads_list:
            read = [measured_read[i] if i in measured else predicted_read[i] for i in group.index]
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
                total = fixed[group.index] + reads * read[group.index]
                low = fixed[group.index] + reads * read[group.index] / (1 + uncertainty)
                high = fixed[group.index] + reads * read[group.index] * (1 + uncertainty)
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
