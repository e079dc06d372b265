"""Human-readable summaries of a run."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pandas as pd

from rootparams.decide import instrument_checks
from rootparams.results.aggregate import SURVEYED, valid_points, valid_under_own_scans
from rootparams.stats import drift as host_drift
from rootparams.study.labels import container_style_label, profile_list
from rootparams.vocabulary import OFFSETS_GENERATED, RNTUPLE, TTREE

# What the ATLAS note's method asks of a run before its numbers stand beside the note's (docs/measurement.md):
# its 10 repetitions, a small spread, and timed loops that hold their I/O.
_PAPER_GRADE = {"repetitions": 10, "median_rel_std": 0.03, "valid_share": 0.90}


def efficiency(jobs: pd.DataFrame) -> tuple[float, float, float]:
    """(share of the measuring jobs' wall time inside timed loops, loop seconds, job seconds), over the jobs
    that measured something in this run."""
    jobs = jobs[jobs["measured_repetitions"] > 0] if len(jobs) else jobs
    wall = float(jobs["job_wall_seconds"].sum()) if len(jobs) else 0.0
    loops = float(jobs["measured_loop_seconds"].sum()) if len(jobs) else 0.0
    return (loops / wall if wall else float("nan")), loops, wall


def grade(summary: pd.DataFrame, repetitions: int, drift=None) -> list[str]:
    """Why this run is not paper-grade (empty when it is). ``drift`` (rootparams.stats.drift.Drift): a host that drifted
    more over the study than the noise the run claims (the sentinel's σ/mean above the points' median σ/mean)."""
    problems = []
    if repetitions < _PAPER_GRADE["repetitions"]:
        problems.append(f"{repetitions} repetitions per point (the note: {_PAPER_GRADE['repetitions']})")
    rel = (
        summary["event_rate_rel_std"].dropna() if "event_rate_rel_std" in summary else pd.Series(dtype=float)
    )
    if not len(rel) or rel.median() > _PAPER_GRADE["median_rel_std"]:
        median = f"{rel.median():.1%}" if len(rel) else "n/a"
        problems.append(f"median σ/mean {median} (> {_PAPER_GRADE['median_rel_std']:.0%})")
    valid = valid_points(summary)
    surveyed = _surveyed(summary)
    if surveyed.any():
        # measurement.adaptive: by design not the whole grid; the share of valid points is judged on the others.
        problems.append(
            f"an adaptive study: {int(surveyed.sum())} of {len(summary)} points read once and predicted "
            "(measurement.adaptive; tables/adaptive_plan.md), not measured in full"
        )
        valid = valid[~surveyed]
    if len(valid) and valid.mean() < _PAPER_GRADE["valid_share"]:
        problems.append(f"{valid.mean():.0%} of the points are valid (< {_PAPER_GRADE['valid_share']:.0%})")
    if note := host_drift.comparisons_note(drift, _claimed_precision(summary)):
        problems.append(note)
    if drift is not None and drift.reads >= 3 and len(rel) and drift.rel_spread > rel.median():
        problems.append(
            f"the host drifted more over the study than the noise the run claims: the drift sentinel's σ/mean "
            f"{drift.rel_spread:.1%} against a median σ/mean of {rel.median():.1%} within points (compare points of "
            "different formats, and this run with others, with that in mind)"
        )
    return problems


def _first_look_line(smoke: bool, not_measured: int) -> str:
    """Where a reader of this summary should look first: for a smoke run (not paper-grade), whether every stage
    worked here; for a paper-grade run, the answers and how sure they are."""
    missing = (
        f" {not_measured} point(s) were not measured: their reasons are listed below, and a rerun measures only them."
        if not_measured
        else ""
    )
    if smoke:
        return (
            "**Look first** at report.html: every figure drawn means every stage ran on this machine (hollow "
            "markers are loops too short to judge, expected on small files), then at the reasons above for the "
            "grade. The numbers of a smoke run say nothing about the settings; for answers, run the default study "
            "(`./run study`) or `./run advise FILE` on your own file." + missing
        )
    return (
        "**Look first** at recommendations.md (each recommendation with its verdict and 95 % interval), then at "
        "the physics checks at the end of this page (a *violated* check is a measurement to doubt before any "
        "figure), then report.html." + missing
    )


def _claimed_precision(summary: pd.DataFrame) -> float:
    """The precision the run claims for a mean: the median relative half-width of the points' own 95 % intervals
    (the repetitions', this run's minutes)."""
    high = summary.get("event_rate_hz_run_ci95_high", summary.get("event_rate_hz_ci95_high"))
    if high is None or "event_rate_hz_mean" not in summary:
        return float("nan")
    width = ((high - summary["event_rate_hz_mean"]) / summary["event_rate_hz_mean"]).dropna()
    return float(width.median()) if len(width) else float("nan")


def _intervals_line(summary: pd.DataFrame) -> str:
    """What a rate's 95 % interval covers in this run: the host over its passes, or this run's minutes only."""
    passes = pd.to_numeric(summary.get("passes", pd.Series(dtype=float)), errors="coerce").dropna()
    host = pd.to_numeric(summary.get("event_rate_hz_host_variance", pd.Series(dtype=float)), errors="coerce")
    if len(passes) and passes.max() > 1 and (host.fillna(0) > 0).any():
        per_pass = (host * passes).dropna()
        df = pd.to_numeric(summary.get("host_df"), errors="coerce").dropna()
        return (
            f"Intervals: every rate's 95 % interval holds the host's drift between the study's "
            f"{int(passes.max())} passes (each format measured once per pass, the others between them): "
            f"σ {100 * per_pass.median() ** 0.5:.1f} % per pass beyond the repetitions' noise, "
            f"{int(df.iloc[0]) if len(df) else '?'} degrees of freedom (`rootparams.stats.intervals.HostVariance`), so that it describes "
            "this host over the run, not only the minutes of one job; the repetitions' own interval is in "
            "summary.csv (`event_rate_hz_run_ci95_low/high`). Paired ratios (a point against another of its "
            "format, by round) hold on a repeat better than any absolute rate: lead with them."
        )
    return (
        "Intervals: **this run only**. Each rate's 95 % interval is that of its repetitions, all taken in one job: "
        "it says how well this run pins its mean, not where a repeat on the same host would fall (a repeat minutes "
        'later moved most points by more than their intervals: docs/statistics.md, "Intervals that hold on a '
        'repeat"). Paired ratios within a format hold on a repeat: lead with them. measurement.passes: 2 or more '
        "gives the rates intervals that hold the host's drift."
    )


def _sequential_lines(jobs: pd.DataFrame | None, resolved: str = "") -> list[str]:
    """What the sequential rounds (measurement.target_half_width) found open, resolved and cost."""
    if jobs is None or "sequential_rounds" not in jobs or jobs["sequential_rounds"].isna().all():
        return []
    j = jobs[jobs["sequential_rounds"].notna()]
    target = float(j["sequential_target_half_width"].iloc[0])
    stopped = ", ".join(f"{b}: {why}" for b, why in zip(j["block"], j["sequential_stopped"], strict=True))
    line = (
        f"- Sequential rounds (target ±{100 * target:g} %): after the planned repetitions, "
        f"{int(j['sequential_open_points_before'].sum())} point intervals and "
        f"{int(j['sequential_open_pairs_before'].sum())} level pairs were wider than the target; "
        f"{int(j['sequential_rounds'].sum())} rounds of {int(j['sequential_reads'].sum())} reads "
        f"({j['sequential_seconds'].sum() / 60:.1f} min) left {int(j['sequential_open_points_after'].sum())} and "
        f"{int(j['sequential_open_pairs_after'].sum())} open ({stopped})"
    )
    return [line + (f"; {resolved}" if resolved else "")]


def _surveyed(summary: pd.DataFrame) -> pd.Series:
    """The points the adaptive plan read once and left predicted (status ``surveyed``)."""
    if "status" not in summary:
        return pd.Series(False, index=summary.index)
    return summary["status"].fillna("") == SURVEYED


def run_summary_markdown(
    summary: pd.DataFrame,
    files: pd.DataFrame,
    provenance: dict[str, Any],
    jobs: pd.DataFrame | None = None,
    repetitions: int | None = None,
    drift=None,
    checks: list | None = None,
    resolved: str = "",
    points: pd.DataFrame | None = None,
    measurement: dict | None = None,
) -> str:
    """results/run_summary.md: where and how the run measured, its noise and drift, its grade, every point's rate
    with its 95 % interval, every point that failed or was refused with its reason, and, last, the physics checks
    of this run (rootparams.decide.instrument_checks.study_checks). ``resolved``: what the sequential rounds changed in the
    verdicts."""
    storage = provenance["storage"]
    not_measured = _failed_points(summary)
    cold = set(summary["cache_state"]) if "cache_state" in summary else {"cold"}
    lines = [
        "# Run summary",
        "",
        f"- Machine: {provenance['host']}, {provenance['cpu_model']}, {provenance['usable_cores']} usable cores, "
        f"{provenance['memory_bytes'] / 2**30:.1f} GiB, kernel {provenance['kernel']}",
        f"- Storage under test: {storage['data_dir']} on {storage['device']} ({storage['filesystem']}, "
        f"rotational: {storage['rotational']}, read-ahead: {storage.get('read_ahead_kb', 'unknown')} kB); storage profile(s): {profile_list(summary.get('storage_profile', ['native']))}",
        f"- Page cache: {', '.join(sorted(cold))} reads",
        f"- ROOT {provenance['root_version']}, Snakemake {provenance['snakemake']}, dool {provenance['dool']}, "
        f"config hash {provenance['config_hash']}",
        f"- {_written(files)} files written, {len(summary)} read points, "
        f"{int(summary['n'].sum())} repetitions used, {int(summary['n_flagged'].sum())} flagged and excluded",
    ]
    if len(not_measured):
        counts = not_measured["status"].value_counts()
        lines.append(
            "- **Points not measured**: "
            + ", ".join(f"{n} {status}" for status, n in counts.items())
            + ' (listed with their reasons under "Points that failed or were refused"; every other point was '
            "measured and is used)"
        )
    lines.append(f"- Noise: {_noise_line(summary)}")
    if drift is not None:
        lines.append(
            f"- Drift of the host (the drift sentinel, `tables/sentinel.csv`, Fig. 32): {drift.text()}"
        )
    valid = valid_points(summary)
    own = (
        valid_under_own_scans(summary, points, measurement) & ~valid
        if points is not None
        else pd.Series(False, index=summary.index)
    )
    lines += _validity_lines(summary, valid, own, measurement, len(not_measured) > 0)
    lines += _read_ahead_lines(summary)
    if jobs is not None and len(jobs):
        share, loops, wall = efficiency(jobs)
        lines.append(
            f"- Measure phase: {share:.0%} of the measuring jobs' wall time inside timed loops "
            f"({loops:.0f} s of {wall:.0f} s, {int(jobs['measured_repetitions'].sum())} repetitions measured in this run)"
        )
    if repetitions is not None:
        problems = grade(summary, repetitions, drift)
        lines.insert(
            2,
            f"**Paper-grade: yes** ({_PAPER_GRADE['repetitions']} repetitions, median σ/mean within "
            f"{100 * _PAPER_GRADE['median_rel_std']:g} %, at least {100 * _PAPER_GRADE['valid_share']:g} % valid points, a "
            "host drift within that noise)\n"
            if not problems
            else f"**Paper-grade: no**: {'; '.join(problems)}. "
            + (
                "Its decision is made from the points measured in full, the others are drawn hollow; do not "
                "compare its figures with the note's.\n"
                if _surveyed(summary).any()
                else "A smoke or development run; do not compare its numbers with the note's.\n"
            ),
        )
        lines.append(f"- {_first_look_line(bool(problems), len(not_measured))}")
    lines += _sequential_lines(jobs, resolved)
    lines.append(f"- {_intervals_line(summary)}")
    if "cpu_steal_during_mean" in summary:
        steal = summary["cpu_steal_during_mean"].dropna()
        if len(steal):
            lines.append(
                f"- CPU stolen by the hypervisor during the accepted reads: median {steal.median():.1%}, "
                f"worst point {steal.max():.1%} (of all CPUs)"
            )
    lines += [
        "",
        "Event rates over the timed loop: mean, 95 % interval of the mean (Student t; with the host's drift "
        "between passes where the study measured passes, see Intervals above) and the 1σ spread of the "
        "repetitions; n unflagged repetitions.",
        "",
        "| format | file | read | events/s | 95 % interval | 1σ spread | n | flagged | valid |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    file_ids = dict(zip(summary.index, _file_ids(summary), strict=True))
    for i, row in summary.iterrows():
        if row.get("status", "measured") != "measured" and not row["n"]:
            continue  # no repetition: listed below with its reason
        low, high = (
            row.get("event_rate_hz_ci95_low", float("nan")),
            row.get("event_rate_hz_ci95_high", float("nan")),
        )
        interval = f"{low:.1f}-{high:.1f}" if low == low else "n/a"
        lines.append(
            f"| {row['format']} | {file_ids[i]} | {_read_settings(row)}, "
            f"{row['threads']} thread(s), {row['branches']}, {row.get('storage_profile', 'native')} storage | "
            f"{row['event_rate_hz_mean']:.1f} | {interval} | {row['event_rate_hz_std']:.1f} | {row['n']} | "
            f"{row['n_flagged']} | {_validity_cell(valid[i], own[i], row.get('invalid_reasons', ''))} |"
        )
    lines += _failed_points_markdown(not_measured, file_ids)
    lines += _own_files_markdown(files)
    lines += _physics_markdown(checks)
    return "\n".join(lines) + "\n"


def _validity_lines(
    summary: pd.DataFrame, valid: pd.Series, own: pd.Series, measurement: dict | None, not_measured: bool
) -> list[str]:
    """The valid points by the study's rule, and on a line of their own those valid by their scans' rule only."""
    required = int(summary["n_required"].max()) if "n_required" in summary and len(summary) else 1
    lines = [
        f"- Valid points: {int(valid.sum())} of {len(summary)} ({valid.mean():.0%}): a timed loop that holds its "
        f"read's I/O and lasts long enough, and at least {required} unflagged repetitions; the others "
        "(invalid_reasons in summary.csv) are drawn hollow and left out of Table 1's judgements, the "
        "recommendations and the decision"
        + (", and points not measured are not drawn at all" if not_measured else "")
    ]
    if own.any():
        n = int(own.sum())
        lenient = ", ".join(sorted((measurement or {}).get("window_by_scan", {})))
        lines.append(
            f"- Valid under their scans' own window rule: {n} more point{'s' if n != 1 else ''}, short reads "
            f"that the rule of {lenient} (measurement.window_by_scan) accepts; those scans' figures and topics use "
            "them, nothing else does"
        )
    return lines


# A cold read whose kernel fetched this many times the bytes its reader asked for is named in the run summary: the
# read-ahead around scattered requests is part of what such a read costs, and kept (not flagged: docs/measurement.md,
# "The kernel's bytes against ROOT's"), but a reader should know that its rate includes it. In the default study of
# 2026-11-29 every point was at 1.00-1.38x (the xAOD's cache reads the most); uproot's scattered per-basket requests
# reached 1.4-1.6x.
READ_AHEAD_NOTE_RATIO = 1.5


def _read_ahead_lines(summary: pd.DataFrame) -> list[str]:
    """A line naming the points whose kernel fetched at least READ_AHEAD_NOTE_RATIO times the bytes the reader read."""
    column = "storage_to_root_bytes_ratio_mean"
    if column not in summary:
        return []
    ratio = pd.to_numeric(summary[column], errors="coerce")
    high = summary.assign(_ratio=ratio)
    high = high[high["_ratio"] >= READ_AHEAD_NOTE_RATIO].sort_values("_ratio", ascending=False)
    if high.empty:
        return []
    named = [
        f"{r['format']} {r['file_id']} ({r['read_id']}): {r['_ratio']:.2f}x"
        for r in high.head(5).to_dict("records")
    ]
    more = f", and {len(high) - 5} more" if len(high) > 5 else ""
    return [
        f"- Read-ahead: {len(high)} point{'s' if len(high) != 1 else ''} read from the disk at least "
        f"{READ_AHEAD_NOTE_RATIO:g}x the bytes the reader asked for (storage_to_root_bytes_ratio_mean in "
        f"summary.csv): {'; '.join(named)}{more}. The kernel's read-ahead around scattered requests; kept, as part "
        "of what these reads cost, so their rates include it"
    ]


def _validity_cell(valid: bool, valid_in_own_scans: bool, reasons) -> str:
    if valid:
        return "yes"
    if valid_in_own_scans:
        return f"yes, by its scans' own rule (not the study's: {reasons})"
    return f"no: {reasons}"


def _failed_points(summary: pd.DataFrame) -> pd.DataFrame:
    """The rows of summary.csv whose point was not measured: failed (the reader could not read it) or refused
    (a rewrite that was not made or did not pass its check); none in a summary from before statuses existed."""
    if "status" not in summary:
        return summary.iloc[0:0]
    return summary[summary["status"].fillna("measured") != "measured"]


def _failed_points_markdown(rows: pd.DataFrame, file_ids: dict) -> list[str]:
    """Every point that failed or was refused, with its reason (summary.csv's status and failure)."""
    if not len(rows):
        return []
    lines = [
        "",
        "## Points that failed or were refused",
        "",
        "Not measured, or not to the end; the tables keep them as rows (status, failure, invalid_reasons in "
        "summary.csv and points.csv), the figures and the decision leave them out.",
        "",
        "| format | file | read | status | repetitions kept | reason |",
        "|---|---|---|---|---|---|",
    ]
    for i, row in rows.iterrows():
        reason = " ".join(str(row.get("failure", "")).split()).replace("|", "\\|")
        lines.append(
            f"| {row['format']} | {row['file_id']} ({file_ids.get(i, '')}) | {row['read_id']} "
            f"({row.get('branches', '')}) | "
            f"**{row['status']}** | {int(row['n']) + int(row['n_flagged'])} | {reason} |"
        )
    return lines


def _physics_markdown(checks: list | None) -> list[str]:
    """The run summary's last section: the instrument's physics checks on this run's own reads."""
    lines = ["", "## The physics checks of this run", ""]
    if not checks:
        return [
            *lines,
            "No check applied to this study's points (no compression scan with two levels of an "
            "algorithm, no throttled storage, no drift sentinel).",
            "",
        ]
    counts = instrument_checks.summarize_checks(checks)
    lines += [
        "Each is judged on this run's reads with 95 % intervals (paired by round where the points were measured in "
        "the same rounds) against its stated margin: the physics **holds** where the whole interval lies inside "
        "the margin, is **violated** only where the whole interval lies outside it, and otherwise the run **cannot "
        "tell** (not counted as passed), with the margin it could resolve (`tables/physics_checks.csv`; "
        'docs/measurement.md, "The instrument checks its own physics").',
        "",
        instrument_checks.family_text(checks),
        "",
        "| check | holds | violated | cannot tell | median margin resolved |",
        "|---|---|---|---|---|",
    ]
    for r in counts.itertuples(index=False):
        resolved = f"±{r[4]:.1%}" if r[4] == r[4] else "-"
        lines.append(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {resolved} |")
    lines += ["", instrument_checks.markdown(checks), ""]
    return lines


def _written(files: pd.DataFrame) -> int:
    """Files this run wrote: not a source as it is, not a rewrite ROOT refused."""
    origin = files["origin"] if "origin" in files else pd.Series("recipe", index=files.index)
    refused = files["refused"].notna() if "refused" in files else pd.Series(False, index=files.index)
    return int(((origin != "asis") & ~refused).sum())


def _own_files_markdown(files: pd.DataFrame) -> list[str]:
    """The users' own files (sources as they are, with their identity) and every rewrite ROOT refused, with
    the reason: a refusal is a result of the study, not a gap in it."""
    if "origin" not in files or not (files["origin"] != "recipe").any():
        return []
    lines = [
        "",
        "## Your own files",
        "",
        "| format | file | entries | size | compression | identity |",
        "|---|---|---|---|---|---|",
    ]
    for _, f in files[files["origin"] == "asis"].iterrows():
        lines.append(
            f"| {f['format']} | {f['path']} | {int(f['events'])} | {f['size_bytes'] / 1e6:.2f} MB "
            f"({f['bytes_per_event'] / 1e3:.1f} kB/event) | {int(f['compression_setting_in_file'])}, "
            f"{f['container']}, {int(f['clusters'])} cluster(s) | sha256 of the first 64 kB "
            f"{str(f.get('source_sha256_head', ''))[:16]}…, modified {_when(f.get('source_mtime_ns'))} |"
        )
    rewrites = files[files["origin"] == "rewrite"]
    refused = rewrites[rewrites["refused"].notna()] if "refused" in rewrites else rewrites.iloc[0:0]
    lines += ["", f"Rewrites by ROOT: {len(rewrites) - len(refused)} made, {len(refused)} refused."]
    for _, f in refused.iterrows():
        branches = str(f.get("refused_branches") or "")
        at_fault = (
            f" At fault, among others: {'; '.join(branches.split(';')[:3])}."
            if branches and branches != "nan"
            else ""
        )
        lines.append(f"- **refused** {f['format']} {f['file_id']}: {f['refused']}{at_fault}")
    return lines


def _when(mtime_ns) -> str:
    import datetime

    if mtime_ns is None or pd.isna(mtime_ns):
        return "unknown"
    return datetime.datetime.fromtimestamp(float(mtime_ns) / 1e9, tz=datetime.UTC).strftime(
        "%Y-%m-%d %H:%M:%S UTC"
    )


def _file_ids(summary: pd.DataFrame) -> list[str]:
    """Each point's file settings, in its container's terms (an RNTuple has clusters and pages, no split)."""
    out = []
    for r in summary.itertuples():
        origin = getattr(r, "origin", "recipe")
        copies = getattr(r, "tiled_copies", 1)
        tiled = f", its clusters x{int(copies)}" if pd.notna(copies) and int(copies) > 1 else ""
        if origin == "asis":  # a user's file: its own settings, as read from it
            kind = "RNTuple " if getattr(r, "container", TTREE) == RNTUPLE else ""
            out.append(f"{kind}as it is ({r.algorithm}-{r.level}{tiled})")
        elif origin == "rewrite" and getattr(r, "rewrite_method", None) == "recompress":
            out.append(f"its baskets recompressed at {r.algorithm}-{r.level}{tiled}")
        elif origin == "rewrite":
            baskets = "baskets kept" if r.basket_size == 0 else f"baskets {r.basket_size} B"
            clusters = (
                "" if getattr(r, "container", TTREE) == RNTUPLE else f", AutoFlush {r.autoflush}, {baskets}"
            )
            out.append(f"rewritten by ROOT at {r.algorithm}-{r.level}{clusters}{tiled}")
        elif getattr(r, "container", TTREE) == RNTUPLE:
            out.append(f"RNTuple {r.algorithm}-{r.level}, clusters {r.autoflush}, pages {r.page_size} B")
        else:
            offsets = ", offsets generated" if getattr(r, "offsets", "") == OFFSETS_GENERATED else ""
            out.append(f"{r.algorithm}-{r.level}, AutoFlush {r.autoflush}, split {r.split_level}{offsets}")
    return out


def _read_settings(row) -> str:
    """The read's settings as the table shows them: the reading style first where it is not the container's
    own entry loop (TTree::GetEntry, RNTuple's views), so that the rows of a reading-style scan differ."""
    style = str(row.get("reading_style", "getentry"))
    container = row.get("container", TTREE)
    how = "" if style == "getentry" else f"{container_style_label(style, container)}, "
    if container == RNTUPLE:
        bunch = row.get("cluster_bunch", 1)
        return f"{how}cluster cache {'off' if row['cache_size'] == 0 else 'on'}" + (
            f", bunch {bunch}" if bunch != 1 else ""
        )
    return f"{how}cache {row['cache_size']}, learn {row['learn_entries']}"


def _noise_line(summary: pd.DataFrame) -> str:
    """The run's noise in one line: the median σ/mean of the event rate over the points (the spread of one
    repetition), the median half-width of their 95 % intervals (the uncertainty of a mean), and what was excluded
    (printed when the workflow finishes)."""
    rel = (
        summary["event_rate_rel_std"].dropna() if "event_rate_rel_std" in summary else pd.Series(dtype=float)
    )
    median = f"{rel.median():.2%}" if len(rel) else "n/a (fewer than 2 unflagged repetitions per point)"
    ci = (
        summary["event_rate_rel_ci95"].dropna()
        if "event_rate_rel_ci95" in summary
        else pd.Series(dtype=float)
    )
    interval = f", median 95 % interval of a mean ±{ci.median():.2%}" if len(ci) else ""
    return (
        f"median sigma/mean of the event rate over {len(rel)} points: {median}{interval}; "
        f"{int(summary['n'].sum())} repetitions used, {int(summary['n_flagged'].sum())} flagged and excluded"
    )


def _end_of_run_lines(summary: pd.DataFrame, run_summary: str) -> tuple[str, list[str]]:
    """What a successful run says when it ends: the noise of the whole study in one line (also in the run
    summary), and, for standard error, the points that failed or were refused (the first ten), whose reasons
    ``run_summary`` lists."""
    failed = _failed_points(summary)
    problems = []
    if len(failed):
        problems.append(
            f"rootparams: {len(failed)} point(s) not measured, with their reasons in {run_summary} "
            "and the status column of the tables:"
        )
        problems += [
            f"  {r.status}: {r.format} {r.file_id} {r.read_id}: {str(r.failure).splitlines()[0][:300]}"
            for r in failed.head(10).itertuples()
        ]
    return f"rootparams: {_noise_line(summary)}", problems


def print_end_of_run(summary_table: str, run_summary: str) -> None:
    """Print end_of_run_lines for a finished run's summary.csv (``summary_table``), if it has one."""
    if not Path(summary_table).exists():
        return
    noise, problems = _end_of_run_lines(pd.read_csv(summary_table), run_summary)
    print(noise)
    for line in problems:
        print(line, file=sys.stderr)
