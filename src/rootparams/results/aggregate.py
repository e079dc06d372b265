"""From per-repetition records to tidy tables: repetitions.csv, monitor_samples.csv, files.csv, summary.csv.

Rule for flagged repetitions (documented in the README): a repetition flagged for any reason (busy machine,
CPU steal, disk bytes not matching ROOT's bytes on a cold read) that stayed flagged after its retries is
kept in repetitions.csv with its reasons, excluded from the mean and sigma in summary.csv, and counted there
in ``n_flagged``; the attempts discarded by retries are counted in ``attempts_discarded``.

Before anything is summarized, the recorded windows are checked: no timed read may overlap another timed
read or the writing of any file. An overlap means the measurement conditions were broken and is an error.

Every point of the study has a ``status`` in summary.csv and points.csv: "measured", "failed" (the reader could
not read its file at its settings: ``failure`` gives the reader's reason; repetitions taken before it failed are
kept in repetitions.csv, not used) or "refused" (a rewrite of a user's file that ROOT could not make or that did
not pass its check: ``failure`` gives why). A failed or refused point is a row with n = 0 (or the repetitions
it had), not valid, and its reason in ``invalid_reasons``: Table 1 marks it, the figures and the decision leave
it out like any invalid point, and the run summary lists it (point_status, with_status).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pandas as pd

from rootparams.errors import UserError
from rootparams.host.monitor import parse_monitor_csv
from rootparams.measure.generate import FLOAT_PRECISION_LOSS
from rootparams.stats.compare import Repetitions
from rootparams.stats.intervals import Interval
from rootparams.vocabulary import (
    FILE_KEYS,
    LATER_FILE_KEY_DEFAULTS,
    READ_KEYS,
    RNTUPLE,
    TTREE,
    WINDOW_RULE_DEFAULTS,
    required_repetitions,
)

# A point's identity and every setting it was written and read at (the vocabulary's keys), then what the
# harness and the reader add: the page cache's state and how the reader read.
POINT_KEYS = ["format", "file_id", "read_id", "origin", *FILE_KEYS, *READ_KEYS, "cache_state", "read_mode",
              "rewrite_method", "tiled_copies"]  # fmt: skip
# read_mode (the reader's): "objects" (every selected branch streamed into its objects), "baskets" or
# "objects+baskets" (branches of classes without a dictionary, in a user's real file, read basket by basket:
# the same I/O and decompression, without building emulated objects; docs/measurement.md).
# Metrics summarized per point (mean, std, n), when present. The prefix of a reader metric names its span
# (docs/measurement.md): process, open, loop (the timed event loop, all N entries: the headline rate) and
# note_window (from the 2nd entry, the note's window); mon_* are dool's samples over the loop span.
_SUMMARY_METRICS = [
    "event_rate_hz",
    "note_window_event_rate_hz",
    "loop_seconds",
    "note_window_seconds",
    "open_seconds",
    "first_entry_seconds",
    "process_seconds",
    "loop_cpu_seconds",
    "loop_system_cpu_seconds",
    "reader_cpu_seconds",
    "loop_read_calls",
    "loop_bytes_read",
    "loop_bytes_per_call",
    "loop_disk_seconds",
    "loop_unzip_seconds",
    "loop_unzip_input_bytes",
    "loop_unzip_output_bytes",
    "loop_storage_read_bytes",
    "loop_disk_completed_read_bytes",
    "loop_rntuple_nPageRead",
    "loop_rntuple_nClusterLoaded",
    "loop_mb_per_s_compressed",
    "loop_mb_per_s_uncompressed",
    "note_window_mb_per_s_compressed",
    "note_window_read_calls",
    "note_window_bytes_read",
    "note_window_disk_seconds",
    "note_window_unzip_seconds",
    "open_bytes_read",
    "open_read_calls",
    "open_disk_seconds",
    "process_bytes_read",
    "process_read_calls",
    "process_storage_read_bytes",
    "loop_io_share",
    "loop_storage_share",
    "note_window_io_share",
    "note_window_storage_share",
    "storage_requests",
    "storage_request_bytes",
    "storage_bytes_per_request",
    "storage_to_root_bytes_ratio",
    "disk_read_bytes_others",
    "cache_size_used",
    "cache_efficiency",
    "cache_learning_entries",
    "peak_rss_bytes",
    "rss_increase_bytes",
    "vm_peak_bytes",
    "cpu_busy_during",
    "cpu_steal_during",
    "harness_total_seconds",
    "memory_probe_before_seconds",
    "memory_probe_after_seconds",
    "memory_probe_slowdown",
    "mon_cpu_usr_pct_mean",
    "mon_cpu_sys_pct_mean",
    "mon_cpu_idle_pct_mean",
    "mon_cpu_wait_pct_mean",
    "mon_cpu_steal_pct_mean",
    "mon_disk_read_bytes",
    "mon_disk_read_bytes_per_s_mean",
    "mon_io_read_ops",
    "mon_net_recv_bytes",
    "mon_mem_used_bytes_max",
    "mon_page_in_per_s_mean",
    "mon_vm_major_faults_per_s_mean",
    "mon_process_disk_read_bytes",
    # Remote profiles (read span): the added RTT, what the server read from storage, what crossed loopback
    # (twice the payload through the proxy: server to proxy, proxy to reader), and dool's lo samples.
    "remote_rtt_ms",
    "server_storage_read_bytes",
    "read_net_lo_bytes",
    "mon_net_lo_recv_bytes",
    # Access patterns and reading styles (loop span): the CPU one event costs the reader (all its threads),
    # the variables a selection names and how many of them were read through a whole object (class-wise),
    # the compressed bytes of what the selection reads, and the bytes ROOT used of what it fetched (process
    # span: TFile's count, without the gaps a TTreeCache read spans between the selected baskets).
    "events_read",
    "file_bytes_read_useful",
    "loop_cpu_us_per_event",
    "selected_variables",
    "variables_classwise",
    "selected_zip_bytes",
]


class OverlapError(UserError):
    pass


def load_records(paths: Iterable[str | Path]) -> pd.DataFrame:
    rows = []
    for path in paths:
        with open(path) as f:
            record = json.load(f)
        record["record_path"] = str(path)
        rows.append(record)
    table = pd.DataFrame(rows)
    if len(table) and "file_id" in table:
        for key, default in LATER_FILE_KEY_DEFAULTS.items():
            table[key] = table[key].fillna(default) if key in table else default
    return table


def load_catalogue(paths: Iterable[str | Path]) -> pd.DataFrame:
    # The per-variable precision records are a list per file: float_precision.csv has them, one row each.
    files = load_records(paths).drop(columns=["record_path", FLOAT_PRECISION_LOSS], errors="ignore")
    if len(files):  # entries from before per-branch compression: no branch has its own setting
        files["hot_branches"] = files["hot_branches"].fillna("") if "hot_branches" in files else ""
    return files


_FLOAT_PRECISION_COLUMNS = [
    "format",
    "file_id",
    "collection",
    "variable",
    "mantissa_bits",
    "values",
    "max_rel_error",
    "rms_rel_error",
    "max_abs_error",
]


def float_precision_table(paths: Iterable[str | Path]) -> pd.DataFrame:
    """The precision lost per float variable of every file written at reduced float precision (float_precision
    mantissa<N>): one row per format, file and variable, as the writer measured it while rounding. Files at full
    precision have no rows; with none at reduced precision the table has its columns and no rows."""
    rows = []
    for path in paths:
        with open(path) as f:
            entry = json.load(f)
        if entry.get("float_precision", "full") == "full":
            continue
        for loss in entry.get(FLOAT_PRECISION_LOSS) or []:
            rows.append({"format": entry["format"], "file_id": entry["file_id"], **loss})
    table = pd.DataFrame(rows, columns=_FLOAT_PRECISION_COLUMNS)
    return table.sort_values(["format", "file_id", "collection", "variable"], ignore_index=True)


def load_monitor_samples(pairs: Iterable[tuple[str | Path, dict]]) -> pd.DataFrame:
    """Raw samples of every measuring job in one long table, labelled with its block (a repetition's samples are
    those between its process_start_time and end_time in repetitions.csv)."""
    frames = []
    for csv_path, labels in pairs:
        text = Path(csv_path).read_text()
        if not text.strip():
            continue  # monitor "none"
        samples = parse_monitor_csv(text, str(csv_path))
        frame = pd.DataFrame(samples.rows)
        for key, value in labels.items():
            frame[key] = value
        frame["monitor"] = samples.tool
        frames.append(frame)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def check_no_overlap(repetitions: pd.DataFrame, files: pd.DataFrame) -> None:
    """Raise OverlapError if a timed window overlaps another timed window or a file being written on the
    same host (on a cluster, reads on different nodes may run at the same time)."""
    # The whole reader process (open and loop), not only the timed loop, must be alone on its host.
    windows = [
        (r.process_start_time, r.end_time, f"timed read {r.record_path}", getattr(r, "host", ""))
        for r in repetitions.itertuples()
    ]
    if not files.empty:  # a source as it is and a refused rewrite were not written: no window
        windows += [
            (r.write_start_time, r.write_end_time, f"writing {r.path}", getattr(r, "host", ""))
            for r in files.itertuples()
            if pd.notna(r.write_start_time) and pd.notna(r.write_end_time)
        ]
    problems = []
    by_host: dict[str, list] = {}
    for w in windows:
        by_host.setdefault("" if pd.isna(w[3]) else str(w[3]), []).append(w[:3])
    # Records without a host (older runs) are compared with every host.
    unknown = by_host.pop("", [])
    for host_windows in by_host.values() or [[]]:
        latest_end, latest_what = -np.inf, ""
        for start, end, what in sorted(host_windows + unknown):
            if start < latest_end and ("timed read" in what or "timed read" in latest_what):
                problems.append(
                    f"{what} [{start:.3f}, {end:.3f}] overlaps {latest_what} (ends {latest_end:.3f})"
                )
            if end > latest_end:
                latest_end, latest_what = end, what
    if problems:
        raise OverlapError(
            "timed reads overlapped other work of the pipeline, so their numbers are not trustworthy:\n  "
            + "\n  ".join(problems[:20])
            + "\nRerun those points on a quiet machine (delete their records under results/repetitions/)."
        )


def _learning_share(learning: pd.Series, events: pd.Series) -> pd.Series:
    learning = pd.to_numeric(learning, errors="coerce")
    return learning.where(learning >= 0) / pd.to_numeric(events, errors="coerce")


# Per-repetition quantities derived from a record's columns (added to repetitions.csv, so that every later stage
# can pair them by round): the CPU one event costs in the loop, and outside ROOT's decompression (the work no
# compression level may change); ROOT's decompression speed (uncompressed MB out per second of unzip time, summed
# over threads); the rate of the whole read, open and loop (the process span: what a job pays for a read).
DERIVED_METRICS = {
    "loop_cpu_us_per_event": lambda f: 1e6 * f["loop_cpu_seconds"] / f["events_read"],
    "loop_cpu_outside_unzip_us_per_event": lambda f: (
        1e6 * (f["loop_cpu_seconds"] - f["loop_unzip_seconds"]) / f["events_read"]
    ),
    "unzip_mb_per_s": lambda f: (
        f["loop_unzip_output_bytes"] / f["loop_unzip_seconds"].where(f["loop_unzip_seconds"] > 0) / 1e6
    ),
    "process_event_rate_hz": lambda f: f["events_read"] / f["process_seconds"],
    # The share of the read the TTreeCache served from its learning phase (the reader's cache_learning_entries, by
    # grid.cache_learning_entries' rule; NaN where no cache learnt: -1, or not recorded).
    "cache_learning_share": lambda f: _learning_share(f["cache_learning_entries"], f["events_read"]),
}
# Metrics with a standard error and a 95 % interval of the mean in summary.csv (<metric>_sem, <metric>_ci95_low,
# <metric>_ci95_high; Student's t, rootparams.stats.intervals): the rates, times and memory a user reads or a figure draws.
INTERVAL_METRICS = [
    "event_rate_hz",
    "note_window_event_rate_hz",
    "process_event_rate_hz",
    "loop_seconds",
    "process_seconds",
    "loop_mb_per_s_compressed",
    "loop_mb_per_s_uncompressed",
    "loop_cpu_us_per_event",
    "loop_cpu_outside_unzip_us_per_event",
    "unzip_mb_per_s",
    "loop_read_calls",
    "rss_increase_bytes",
    "peak_rss_bytes",
]


def derive_metrics(repetitions: pd.DataFrame) -> pd.DataFrame:
    """``repetitions`` with DERIVED_METRICS added where their inputs are recorded (NaN where not)."""
    out = repetitions.copy()
    for name, formula in DERIVED_METRICS.items():
        try:
            with np.errstate(divide="ignore", invalid="ignore"):
                values = pd.to_numeric(formula(out), errors="coerce")
        except KeyError:
            continue  # an input this kind of read does not record (uproot has no unzip time)
        out[name] = values.replace([np.inf, -np.inf], np.nan)
    return out


def summarize(
    repetitions: pd.DataFrame, measurement: dict | None = None, planned: int | None = None
) -> pd.DataFrame:
    """Per point: mean, sample standard deviation (ddof=1; the note's 1σ spread of the repetitions) and n of every
    metric over the unflagged repetitions, and for INTERVAL_METRICS the standard error and a 95 % t interval of
    the mean: ``_ci95_low``/``_ci95_high`` with the host's variance between the passes the point was measured in
    (``_host_variance``, ``passes``, ``host_df``: compare.Repetitions.interval; where the study measured one pass
    only, the repetitions' own interval), ``_run_ci95_low``/``_run_ci95_high`` the repetitions' own (this run's
    minutes). ``planned``: the repetitions the study asked for (validity needs required_repetitions of them).

    Validity (``valid``, ``invalid_reasons``): a point is valid when its timed loop holds its I/O and lasts long
    enough in every unflagged repetition, under the study's rule (``window_valid``; apply_validity recomputes it
    for an artifact whose scans have a rule of their own), and when enough repetitions are unflagged. Invalid
    points stay in the table, marked: the figures draw them hollow, Table 1 marks them, the decisions leave them
    out."""
    if repetitions.empty:  # nothing measured (every point failed or refused): rows come from with_status
        return pd.DataFrame()
    keys = [k for k in POINT_KEYS if k in repetitions.columns]
    frame = derive_metrics(repetitions)
    metrics = [m for m in (*_SUMMARY_METRICS, *DERIVED_METRICS) if m in frame.columns]
    metrics = list(dict.fromkeys(metrics))
    frame["learn_entries"] = frame["learn_entries"].astype(str)
    # The intervals of the means, with the host's variance between passes where the study measured passes (records
    # that do not name their point, as in hand-made tables, get the repetitions' own).
    by_round = Repetitions(frame) if {"format", "file_id", "read_id"} <= set(frame.columns) else None
    rows = []
    for point, group in frame.groupby(keys, sort=True, dropna=False):
        good = group[~group["flagged"].astype(bool)]
        row = dict(zip(keys, point, strict=True))
        row["n"] = len(good)
        row["n_flagged"] = len(group) - len(good)
        row["flag_reasons"] = "; ".join(sorted({r for r in group["flag_reasons"] if r}))
        if "attempt" in group:  # attempts measured again because their conditions were not met
            row["attempts_discarded"] = int((group["attempt"] - 1).sum())
        if "round_key" in group:  # repetitions measured in rounds shared with the other points of their block
            row["rounds"] = int(good["round_key"].nunique())
        row.update(_window_extremes(good))
        for metric in metrics:
            values = pd.to_numeric(good[metric], errors="coerce").dropna()
            row[f"{metric}_mean"] = values.mean() if len(values) else np.nan
            row[f"{metric}_std"] = values.std(ddof=1) if len(values) > 1 else np.nan
            if metric in INTERVAL_METRICS:
                interval = by_round.interval(row, metric) if by_round else Interval.of(values)
                row[f"{metric}_sem"] = interval.sem
                row[f"{metric}_ci95_low"] = interval.low
                row[f"{metric}_ci95_high"] = interval.high
                row[f"{metric}_run_ci95_low"] = interval.run_low
                row[f"{metric}_run_ci95_high"] = interval.run_high
                row[f"{metric}_host_variance"] = interval.host_variance
                if metric == "event_rate_hz":
                    row["passes"] = interval.passes
                    row["host_df"] = interval.host_df
            if metric == "event_rate_hz":
                # The fastest repetition: interference from the host only ever slows a read down.
                row["event_rate_hz_max"] = values.max() if len(values) else np.nan
        rows.append(row)
    summary = pd.DataFrame(rows)
    if not summary.empty:
        summary["event_rate_rel_std"] = summary["event_rate_hz_std"] / summary["event_rate_hz_mean"]
        summary["event_rate_rel_ci95"] = (
            summary["event_rate_hz_ci95_high"] - summary["event_rate_hz_mean"]
        ) / summary["event_rate_hz_mean"]
        summary["n_required"] = required_repetitions(measurement, planned)
        summary = apply_validity(summary, measurement)
    return summary


def _window_extremes(good: pd.DataFrame) -> dict[str, float]:
    """The shortest span and the smallest shares of the read's I/O over a point's unflagged repetitions, per timed
    span: what any window rule is judged on (apply_validity). The kernel's share is left out of a read through a
    server (xrootd, a user's endpoint): the reader's own storage bytes are then its libraries', not the data."""
    out = {}
    local = good
    if "storage_access" in good:
        local = good[~good["storage_access"].isin(["xrootd", "endpoint"])]
    for span in ("loop", "note_window"):
        if f"{span}_seconds" not in good:
            continue
        out[f"{span}_seconds_min"] = pd.to_numeric(good[f"{span}_seconds"], errors="coerce").min()
        for share, source in (("io_share", good), ("storage_share", local)):
            column = f"{span}_{share}"
            values = (
                pd.to_numeric(source[column], errors="coerce") if column in source else pd.Series(dtype=float)
            )
            out[f"{column}_min"] = values.min() if values.notna().any() else np.nan
    return out


def window_rule(measurement: dict | None, scans: Iterable[str] = ()) -> dict[str, float]:
    """The window rule an artifact judges its points by: the study's (measurement.min_window_seconds,
    min_window_io_share), or, where every scan the artifact draws has the same rule of its own
    (measurement.window_by_scan), that one. A lenient scan rule never reaches another scan's figures, topics,
    Table 1, the Pareto fronts or the cost model."""
    measurement = measurement or {}
    rule = {k: measurement.get(k, v) for k, v in WINDOW_RULE_DEFAULTS.items()}
    own = measurement.get("window_by_scan") or {}
    scans = [s for s in ([scans] if isinstance(scans, str) else scans) if s != "default"]
    rules = [tuple(sorted(own[s].items())) if s in own else None for s in scans]
    if scans and rules[0] is not None and all(r == rules[0] for r in rules):
        rule.update(dict(rules[0]))
    return rule


def apply_validity(rows: pd.DataFrame, measurement: dict | None, scans: Iterable[str] = ()) -> pd.DataFrame:
    """``rows`` (summary rows) with window_valid, window_invalid_reasons, note_window_valid,
    note_window_invalid_reasons, valid and invalid_reasons judged under window_rule(measurement, scans) and the
    minimum of unflagged repetitions (``n_required``)."""
    rule = window_rule(measurement, scans)
    out = rows.copy()
    if out.empty:
        return out
    for span, column in (("loop", "window"), ("note_window", "note_window")):
        if f"{span}_seconds_min" not in out:
            continue
        judged = [_window_verdict(r, span, rule) for r in out.to_dict("records")]
        out[f"{column}_valid"] = [v for v, _ in judged]
        out[f"{column}_invalid_reasons"] = [why for _, why in judged]
    window = out["window_valid"] if "window_valid" in out else pd.Series(True, index=out.index)
    window_why = out.get("window_invalid_reasons", pd.Series("", index=out.index)).fillna("")
    required = out["n_required"].fillna(1) if "n_required" in out else pd.Series(1, index=out.index)
    enough = out["n"] >= required
    few = [
        "" if ok else f"only {int(n)} unflagged repetitions (< {int(k)})"
        for ok, n, k in zip(enough, out["n"], required, strict=True)
    ]
    out["valid"] = window.map(_true) & enough
    out["invalid_reasons"] = ["; ".join(x for x in (w, f) if x) for w, f in zip(window_why, few, strict=True)]
    return out


def valid_under_own_scans(summary: pd.DataFrame, points: pd.DataFrame, measurement: dict | None) -> pd.Series:
    """Whether each summary row is valid under the window rule of its own scans (window_rule over the scans
    points.csv lists for it): ``valid`` where none of them has a rule of its own (measurement.window_by_scan),
    else the rule its scans' figures and topics judge it by. A point that failed or was refused stays not valid.
    For the run summary: a fast read that a lenient scan rule accepts is counted there, never in the study's
    own ``valid``, which Table 1, the decision and the checks use."""
    out = valid_points(summary)
    if not (measurement or {}).get("window_by_scan") or summary.empty or points.empty:
        return out
    scans_of = {
        (f, fid, rid): tuple(str(s).split(";"))
        for f, fid, rid, s in zip(
            points["format"], points["file_id"], points["read_id"], points["scans"], strict=True
        )
    }
    keys = [
        scans_of.get(k, ())
        for k in zip(summary["format"], summary["file_id"], summary["read_id"], strict=True)
    ]
    measured = (
        summary["status"].fillna(MEASURED) == MEASURED
        if "status" in summary
        else pd.Series(True, index=summary.index)
    )
    for scans in set(keys):
        rows = [i for i, k in zip(summary.index, keys, strict=True) if k == scans]
        judged = apply_validity(summary.loc[rows], measurement, scans)
        out.loc[rows] = valid_points(judged) & measured.loc[rows]
    return out


def _window_verdict(row: dict, span: str, rule: dict[str, float]) -> tuple[bool, str]:
    if not row.get("n"):
        return False, "no unflagged repetition"
    reasons = []
    min_share, min_seconds = rule["min_window_io_share"], rule["min_window_seconds"]
    shares = [row.get(f"{span}_io_share_min"), row.get(f"{span}_storage_share_min")]
    shares = [s for s in shares if s is not None and s == s]
    if shares and min(shares) < min_share:
        reasons.append(f"holds as little as {min(shares):.0%} of the read's I/O (< {min_share:.0%})")
    shortest = row.get(f"{span}_seconds_min")
    if shortest is not None and shortest == shortest and shortest < min_seconds:
        reasons.append(f"lasts as little as {shortest:.3g} s (< {min_seconds:g} s)")
    return not reasons, "; ".join(reasons)


def _true(value) -> bool:
    return str(value).lower() in ("true", "1", "1.0")


def scan_rows(
    summary: pd.DataFrame,
    points: pd.DataFrame,
    files: pd.DataFrame,
    scans: str | tuple[str, ...],
    measurement: dict | None = None,
) -> pd.DataFrame:
    """The summary rows of the points in any of ``scans``, with their file's size and real cluster count. Given
    the study's ``measurement``, their validity is judged by the rule of these scans (window_rule): a scan with a
    lenient rule of its own gets it here, for its own figures and topics, and nowhere else."""
    wanted = {scans} if isinstance(scans, str) else set(scans)
    in_scan = points[points["scans"].fillna("").str.split(";").apply(lambda s: bool(wanted & set(s)))]
    rows = summary.merge(in_scan[["format", "file_id", "read_id"]], on=["format", "file_id", "read_id"])
    keep = [
        "format",
        "file_id",
        "size_bytes",
        "clusters",
        "events",
        "events_per_cluster",
        "compression_ratio",
        # a flat tree's counters and counted arrays (generate.counted_array_bytes): the offsets topics
        "counter_zip_bytes",
        "counter_tot_bytes",
        "counted_zip_bytes",
        "counted_tot_bytes",
        "counted_branches",
    ]
    keep = [k for k in keep if k in files.columns]
    rows = rows.merge(files[keep], on=["format", "file_id"], how="left")
    if measurement is not None:
        rows = apply_validity(rows, measurement, tuple(sorted(wanted)))
    # One block per dtype: the merges of a summary of ~200 columns leave it in many, and every column a figure or
    # a topic then adds made pandas warn that the frame is highly fragmented.
    return rows.copy()


def container_ratios(d: pd.DataFrame, repetitions: Repetitions | None = None) -> pd.DataFrame:
    """Per format, compression setting and storage profile, RNTuple over TTree: the event rate's ratio with its
    95 % interval (paired by round where both points were measured in the same rounds, rootparams.stats.compare), its
    n, its degrees of freedom and log-scale standard error, and the file size's ratio; ``valid`` where both points are. Only settings measured in both containers,
    each at its format's other defaults."""
    keys = ["format", "algorithm", "level", "storage_profile"]
    columns = [
        *keys,
        "rate_ratio",
        "rate_ratio_low",
        "rate_ratio_high",
        "rate_ratio_n",
        "rate_ratio_paired",
        "rate_ratio_df",
        "rate_ratio_log_se",
        "size_ratio",
        "valid",
    ]
    t = d[d["container"] == TTREE]
    r = d[d["container"] == RNTUPLE]
    both = r.merge(t, on=keys, suffixes=("_rntuple", "_ttree"))
    if both.empty:
        return pd.DataFrame(columns=columns)
    repetitions = repetitions or Repetitions()
    rows = []
    for pair in both.to_dict("records"):
        rn = {k.removesuffix("_rntuple"): v for k, v in pair.items() if not k.endswith("_ttree")}
        tt = {k.removesuffix("_ttree"): v for k, v in pair.items() if not k.endswith("_rntuple")}
        ratio = repetitions.ratio(rn, tt)
        valid = bool(valid_points(pd.DataFrame([rn, tt])).all())
        rows.append(
            {
                **{k: pair[k] for k in keys},
                "rate_ratio": ratio.estimate,
                "rate_ratio_low": ratio.low,
                "rate_ratio_high": ratio.high,
                "rate_ratio_n": ratio.n,
                "rate_ratio_paired": ratio.paired,
                # The t distribution of the log ratio, so that a verdict can be adjusted for several comparisons.
                "rate_ratio_df": ratio.df,
                "rate_ratio_log_se": ratio.log_se,
                "size_ratio": rn["size_bytes"] / tt["size_bytes"],
                "valid": valid,
            }
        )
    return pd.DataFrame(rows, columns=columns)


def valid_points(rows: pd.DataFrame) -> pd.Series:
    """Whether each summary row is valid (``valid``: its timed loop and its unflagged repetitions; read back from
    CSV as bool or text). Tables from before ``valid`` existed use ``window_valid``; without either, valid."""
    for column in ("valid", "window_valid"):
        if column in rows:
            return rows[column].map(_true)
    return pd.Series(True, index=rows.index)


def point_table(points, status: pd.DataFrame | None = None) -> pd.DataFrame:
    """format, file_id, read_id and the scans (";"-joined) of each point of the study (grid.Point list):
    the link from the measured points to the scans that the figures and recommendations draw; with ``status``
    (point_status), each point's status and failure too (a point no block record lists: "not measured")."""
    table = pd.DataFrame(
        [
            {"format": p.file.format, "file_id": p.file.id, "read_id": p.read.id, "scans": ";".join(p.scans)}
            for p in points
        ],
        columns=["format", "file_id", "read_id", "scans"],
    )
    if status is None:
        return table
    table = table.merge(status, on=POINT_ID, how="left")
    table["status"] = table["status"].fillna("not measured")
    table["failure"] = table["failure"].fillna("")
    return table


# A point of the study, and what became of it (module docstring).
POINT_ID = ["format", "file_id", "read_id"]
MEASURED, FAILED, REFUSED = "measured", "failed", "refused"
# measurement.adaptive: a candidate the plan read once and left predicted (rootparams.decide.adaptive).
SURVEYED = "surveyed"
_STATUS_COLUMNS = [*POINT_ID, "status", "failure"]


def point_status(blocks: list[dict]) -> pd.DataFrame:
    """format, file_id, read_id, status (measured, failed, refused, surveyed) and failure (the reason; "" when measured)
    of every point the block records list (workflow/scripts/measure_block.py). A point in several blocks (one per
    pass, measurement.passes) has one row: refused, failed or surveyed in any pass is its status."""
    rows = []
    for block in blocks:
        for p in block["points"]:
            if p.get("refused"):
                status, why = REFUSED, p["refused"]
            elif p.get("failed"):
                status, why = FAILED, p["failed"]
            elif p.get("surveyed"):
                status, why = SURVEYED, p["surveyed"]
            else:
                status, why = MEASURED, ""
            rows.append(
                {
                    "format": p["format"],
                    "file_id": p["file_id"],
                    "read_id": p["read_id"],
                    "status": status,
                    "failure": why,
                }
            )
    table = pd.DataFrame(rows, columns=_STATUS_COLUMNS)
    rank = table["status"].map({REFUSED: 0, FAILED: 1, SURVEYED: 2}).fillna(3)
    return (
        table.assign(_rank=rank)
        .sort_values([*POINT_ID, "_rank"], kind="stable")
        .drop_duplicates(POINT_ID)
        .drop(columns="_rank")
        .reset_index(drop=True)
    )


def with_status(
    summary: pd.DataFrame,
    status: pd.DataFrame,
    points,
    measurement: dict | None = None,
    planned: int | None = None,
) -> pd.DataFrame:
    """``summary`` with every point's ``status`` and ``failure`` (point_status), and a row for each failed or
    refused point that has no repetition: its settings (from ``points``, the study's grid.Point list), n = 0, not
    valid, ``invalid_reasons`` "<status>: <failure>". A failed point that had repetitions keeps its row, marked
    failed and not valid. Nothing is left out: a point is a row whatever became of it."""
    out = summary.copy()
    if out.empty:
        out = pd.DataFrame(columns=[*POINT_ID, "n", "n_flagged", "valid", "invalid_reasons"])
    elif "invalid_reasons" not in out:
        out["invalid_reasons"] = ""
    out = out.merge(status, on=POINT_ID, how="left")
    out["status"] = out["status"].fillna(MEASURED)
    out["failure"] = out["failure"].fillna("")
    by_id = {(p.file.format, p.file.id, p.read.id): p for p in points}
    have = set(zip(out["format"], out["file_id"], out["read_id"], strict=True))
    missing = []
    for r in status[status["status"] != MEASURED].itertuples(index=False):
        key = (r.format, r.file_id, r.read_id)
        if key in have or key not in by_id:
            continue
        point = by_id[key]
        settings = {**asdict(point.file), **asdict(point.read)}
        missing.append(
            {
                **{k: settings[k] for k in POINT_KEYS if k in settings},
                "format": r.format,
                "file_id": r.file_id,
                "read_id": r.read_id,
                "learn_entries": str(point.read.learn_entries),
                "cache_state": (measurement or {}).get("cache_state", "cold"),
                "n": 0,
                "n_flagged": 0,
                "flag_reasons": "",
                "n_required": required_repetitions(measurement, planned),
                "status": r.status,
                "failure": r.failure,
            }
        )
    if missing:
        out = pd.concat([out, pd.DataFrame(missing)], ignore_index=True)
    bad = out["status"] != MEASURED
    if bad.any():
        earlier = out.loc[bad, "invalid_reasons"].fillna("").astype(str)
        out.loc[bad, "valid"] = False
        out.loc[bad, "invalid_reasons"] = [
            "; ".join(x for x in (f"{st}: {why}", e) if x)
            for st, why, e in zip(out.loc[bad, "status"], out.loc[bad, "failure"], earlier, strict=True)
        ]
        # Neither span of a point not measured is valid (Table 1 marks both of its rates).
        for span in ("window", "note_window"):
            if f"{span}_valid" in out:
                out[f"{span}_valid"] = out[f"{span}_valid"].astype(object)
                out.loc[bad, f"{span}_valid"] = False
                out.loc[bad, f"{span}_invalid_reasons"] = [
                    f"{st}: {why}"
                    for st, why in zip(out.loc[bad, "status"], out.loc[bad, "failure"], strict=True)
                ]
    return out.sort_values(POINT_ID, ignore_index=True)


_SEQUENTIAL_COLUMNS = [
    f"sequential_{k}"
    for k in (
        "target_half_width",
        "points",
        "pairs",
        "open_points_before",
        "open_pairs_before",
        "open_points_after",
        "open_pairs_after",
        "rounds",
        "reads",
        "seconds",
        "stopped",
    )
]


def job_table(blocks: list[dict]) -> pd.DataFrame:
    """One row per measuring job (a block): its wall time and the timed loops it made. The measure phase's
    efficiency is the sum of measured_loop_seconds over the sum of job_wall_seconds (report.efficiency)."""
    rows = [
        {
            "block": b["block"],
            "points": len(b["points"]),
            "job_start_time": b["job_start_time"],
            "job_end_time": b["job_end_time"],
            "job_wall_seconds": b["job_end_time"] - b["job_start_time"],
            "measured_repetitions": b["measured_repetitions"],
            "measured_loop_seconds": b["measured_loop_seconds"],
            "sentinel_reads": len(b.get("sentinel_records", [])),
            "rounds": len(b.get("schedule", [])),
            # measurement.target_half_width: the sequential rounds of the block (its last pass).
            **{f"sequential_{k}": v for k, v in b.get("sequential", {}).items()},
        }
        for b in blocks
        if "job_start_time" in b
    ]
    columns = [
        "block",
        "points",
        "job_start_time",
        "job_end_time",
        "job_wall_seconds",
        "measured_repetitions",
        "measured_loop_seconds",
        "sentinel_reads",
        "rounds",
        *_SEQUENTIAL_COLUMNS,
    ]
    return pd.DataFrame(rows, columns=columns)


_SENTINEL_COLUMNS = [
    "block",
    "process_start_time",
    "end_time",
    "format",
    "file_id",
    "read_id",
    "storage_profile",
    "flagged",
    "flag_reasons",
    "event_rate_hz",
    "process_event_rate_hz",
    "loop_seconds",
    "loop_cpu_seconds",
    "loop_unzip_seconds",
    "loop_cpu_outside_unzip_us_per_event",
    "memory_probe_before_seconds",
    "memory_probe_after_seconds",
    "cpu_steal_during",
    "cpu_busy_during",
    "record_path",
]


def sentinel_table(sentinel: pd.DataFrame) -> pd.DataFrame:
    """Every read of the drift sentinel in time order (results/tables/sentinel.csv), with the hours since the
    study's first one (``hours``): what rootparams.stats.drift judges the host's drift by."""
    if sentinel.empty:
        return pd.DataFrame(columns=[*_SENTINEL_COLUMNS, "hours"])
    table = derive_metrics(sentinel).sort_values("process_start_time")
    table = table[[c for c in _SENTINEL_COLUMNS if c in table.columns]].reset_index(drop=True)
    table["hours"] = (table["process_start_time"] - table["process_start_time"].min()) / 3600
    return table
