"""From per-repetition records to tidy tables: repetitions.csv, monitor_samples.csv, files.csv, summary.csv.

Rule for flagged repetitions (documented in the README): a repetition flagged for any reason (busy machine,
CPU steal, disk bytes not matching ROOT's bytes on a cold read) that stayed flagged after its retries is
kept in repetitions.csv with its reasons, excluded from the mean and sigma in summary.csv, and counted there
in ``n_flagged``; the attempts discarded by retries are counted in ``attempts_discarded``.

Before anything is summarized, the recorded windows are checked: no timed read may overlap another timed
read or the writing of any file. An overlap means the measurement conditions were broken and is an error.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from rootparams.errors import UserError
from rootparams.generate import FLOAT_PRECISION_LOSS
from rootparams.monitor import parse_monitor_csv

POINT_KEYS = [
    "format", "file_id", "read_id", "origin", "container", "algorithm", "level", "autoflush", "split_level",
    "basket_size", "page_size", "branch_compression", "float_precision", "cache_size", "learn_entries", "cluster_bunch", "async_prefetch", "threads", "reading_style", "unzip", "branches", "cache_state",
    "storage_profile", "read_mode",
]  # fmt: skip
# read_mode (the reader's): "objects" (every selected branch streamed into its objects), "baskets" or
# "objects+baskets" (branches of classes without a dictionary, in a user's real file, read basket by basket:
# the same I/O and decompression, without building emulated objects; docs/measurement.md).
# Metrics summarized per point (mean, std, n), when present. The prefix of a reader metric names its span
# (docs/measurement.md): process, open, loop (the timed event loop, all N entries: the headline rate) and
# note_window (from the 2nd entry, the note's window); mon_* are dool's samples over the loop span.
SUMMARY_METRICS = [
    "event_rate_hz", "note_window_event_rate_hz",
    "loop_seconds", "note_window_seconds", "open_seconds", "first_entry_seconds", "process_seconds",
    "loop_cpu_seconds", "reader_cpu_seconds",
    "loop_read_calls", "loop_bytes_read", "loop_bytes_per_call", "loop_disk_seconds", "loop_unzip_seconds",
    "loop_unzip_input_bytes", "loop_unzip_output_bytes", "loop_storage_read_bytes", "loop_disk_completed_read_bytes",
    "loop_rntuple_nPageRead", "loop_rntuple_nClusterLoaded",
    "loop_mb_per_s_compressed", "loop_mb_per_s_uncompressed", "note_window_mb_per_s_compressed",
    "note_window_read_calls", "note_window_bytes_read", "note_window_disk_seconds", "note_window_unzip_seconds",
    "open_bytes_read", "open_read_calls", "open_disk_seconds",
    "process_bytes_read", "process_read_calls", "process_storage_read_bytes",
    "loop_io_share", "loop_storage_share", "note_window_io_share", "note_window_storage_share",
    "storage_requests", "storage_request_bytes", "storage_bytes_per_request", "storage_to_root_bytes_ratio",
    "disk_read_bytes_others", "cache_size_used", "cache_efficiency",
    "peak_rss_bytes", "rss_increase_bytes", "vm_peak_bytes", "cpu_busy_during", "cpu_steal_during",
    "harness_total_seconds", "memory_probe_before_seconds", "memory_probe_after_seconds", "memory_probe_slowdown",
    "mon_cpu_usr_pct_mean", "mon_cpu_sys_pct_mean", "mon_cpu_idle_pct_mean", "mon_cpu_wait_pct_mean",
    "mon_cpu_steal_pct_mean", "mon_disk_read_bytes", "mon_disk_read_bytes_per_s_mean", "mon_io_read_ops",
    "mon_net_recv_bytes", "mon_mem_used_bytes_max", "mon_page_in_per_s_mean", "mon_vm_major_faults_per_s_mean",
    "mon_process_disk_read_bytes",
    # Remote profiles (read span): the added RTT, what the server read from storage, what crossed loopback
    # (twice the payload through the proxy: server to proxy, proxy to reader), and dool's lo samples.
    "remote_rtt_ms", "server_storage_read_bytes", "read_net_lo_bytes", "mon_net_lo_recv_bytes",
    # Access patterns and reading styles (loop span): the CPU one event costs the reader (all its threads),
    # the variables a selection names and how many of them were read through a whole object (class-wise),
    # the compressed bytes of what the selection reads, and the bytes ROOT used of what it fetched (process
    # span: TFile's count, without the gaps a TTreeCache read spans between the selected baskets).
    "events_read", "file_bytes_read_useful", "loop_cpu_us_per_event", "selected_variables", "variables_classwise", "selected_zip_bytes",
]  # fmt: skip


class OverlapError(UserError):
    pass


# File settings added after records were first written (issue #17): a record without one was made at its
# default (every branch at the file's compression, every float at full precision). Filled in when records are
# loaded, so that the old and the new records of a resumed run group and join on the same values.
LATER_FILE_KEY_DEFAULTS = {"branch_compression": "uniform", "float_precision": "full"}


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


FLOAT_PRECISION_COLUMNS = ["format", "file_id", "collection", "variable", "mantissa_bits", "values",
                           "max_rel_error", "rms_rel_error", "max_abs_error"]  # fmt: skip


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
    table = pd.DataFrame(rows, columns=FLOAT_PRECISION_COLUMNS)
    return table.sort_values(["format", "file_id", "collection", "variable"], ignore_index=True)


def load_monitor_samples(pairs: Iterable[tuple[str | Path, dict]]) -> pd.DataFrame:
    """Raw samples of every point in one long table, labelled with the point (a repetition's samples are
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


def summarize(repetitions: pd.DataFrame, measurement: dict | None = None) -> pd.DataFrame:
    """Mean, sample standard deviation (ddof=1) and n of every metric per point, unflagged repetitions only.

    A point's timed loop is valid (``window_valid``) when every unflagged repetition's loop held enough of its
    I/O and lasted long enough (measure.window_problems); ``window_invalid_reasons`` says why not. The same
    for the note's window (``note_window_valid``). Invalid points stay in the table, marked: the figures draw
    them hollow, Table 1 marks them, the recommendations do not use them."""
    keys = [k for k in POINT_KEYS if k in repetitions.columns]
    metrics = [m for m in SUMMARY_METRICS if m in repetitions.columns]
    frame = repetitions.copy()
    frame["learn_entries"] = frame["learn_entries"].astype(str)
    if {"loop_cpu_seconds", "events_read"} <= set(frame.columns):
        frame["loop_cpu_us_per_event"] = 1e6 * frame["loop_cpu_seconds"] / frame["events_read"]
        metrics = [*metrics, "loop_cpu_us_per_event"] if "loop_cpu_us_per_event" not in metrics else metrics
    rows = []
    for point, group in frame.groupby(keys, sort=True, dropna=False):
        good = group[~group["flagged"].astype(bool)]
        row = dict(zip(keys, point, strict=True))
        row["n"] = len(good)
        row["n_flagged"] = len(group) - len(good)
        row["flag_reasons"] = "; ".join(sorted({r for r in group["flag_reasons"] if r}))
        if "attempt" in group:  # attempts measured again because their conditions were not met
            row["attempts_discarded"] = int((group["attempt"] - 1).sum())
        for span, column in (("loop", "window"), ("note_window", "note_window")):
            if f"{span}_valid" in good:
                row[f"{column}_valid"], row[f"{column}_invalid_reasons"] = _validity(good, span, measurement)
        for metric in metrics:
            values = pd.to_numeric(good[metric], errors="coerce").dropna()
            row[f"{metric}_mean"] = values.mean() if len(values) else np.nan
            row[f"{metric}_std"] = values.std(ddof=1) if len(values) > 1 else np.nan
            if metric == "event_rate_hz":
                # The fastest repetition: interference from the host only ever slows a read down, so between
                # points measured minutes apart it compares better than the mean (docs/measurement.md, "Noise
                # from the host").
                row["event_rate_hz_max"] = values.max() if len(values) else np.nan
        rows.append(row)
    summary = pd.DataFrame(rows)
    if not summary.empty:
        summary["event_rate_rel_std"] = summary["event_rate_hz_std"] / summary["event_rate_hz_mean"]
    return summary


def _validity(good: pd.DataFrame, span: str, measurement: dict | None) -> tuple[bool, str]:
    """A point's span is valid when every unflagged repetition's is; the reasons, once per point, give the
    worst share of the I/O and the shortest duration against the thresholds."""
    if good.empty:
        return False, "no unflagged repetition"
    valid = bool(good[f"{span}_valid"].astype(bool).all())
    if valid:
        return True, ""
    measurement = dict(measurement or {"min_window_io_share": 0.9, "min_window_seconds": 1.0})
    # The thresholds the repetitions were judged by: a scan may have its own (measurement.window_by_scan), and
    # each record says what it was judged against in its reasons; the point's reason names the most lenient.
    recorded = [
        str(r) for r in good.get(f"{span}_invalid_reasons", pd.Series(dtype=str)) if isinstance(r, str) and r
    ]
    for text in recorded:
        for m in re.finditer(r"\(< ([0-9.]+) s\)", text):
            measurement["min_window_seconds"] = min(measurement["min_window_seconds"], float(m[1]))
        for m in re.finditer(r"\(< ([0-9]+)%\)", text):
            measurement["min_window_io_share"] = min(measurement["min_window_io_share"], float(m[1]) / 100)
    min_share, min_seconds = measurement["min_window_io_share"], measurement["min_window_seconds"]
    reasons = []
    shares = [good[c] for c in (f"{span}_io_share", f"{span}_storage_share") if c in good]
    worst = pd.concat(shares).min() if shares else np.nan
    if worst < min_share:
        reasons.append(f"holds as little as {worst:.0%} of the read's I/O (< {min_share:.0%})")
    shortest = good[f"{span}_seconds"].min()
    if shortest < min_seconds:
        reasons.append(f"lasts as little as {shortest:.3g} s (< {min_seconds:g} s)")
    return False, "; ".join(reasons) or "invalid in some repetitions"


def scan_rows(
    summary: pd.DataFrame, points: pd.DataFrame, files: pd.DataFrame, scans: str | tuple[str, ...]
) -> pd.DataFrame:
    """The summary rows of the points in any of ``scans``, with their file's size and real cluster count."""
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
    ]
    keep = [k for k in keep if k in files.columns]
    keep = [c for c in keep if c in files.columns]
    return rows.merge(files[keep], on=["format", "file_id"], how="left")


def container_ratios(d: pd.DataFrame) -> pd.DataFrame:
    """Per format, compression setting and storage profile, RNTuple over TTree: event rate (with its 1σ,
    propagated from both points' σ) and file size. Only settings measured in both containers, each at its
    format's other defaults."""
    keys = ["format", "algorithm", "level", "storage_profile"]
    cols = [*keys, "event_rate_hz_mean", "event_rate_hz_std", "size_bytes"]
    t = d[d["container"] == "ttree"][cols]
    r = d[d["container"] == "rntuple"][cols]
    both = r.merge(t, on=keys, suffixes=("_rntuple", "_ttree"))
    rate = both["event_rate_hz_mean_rntuple"] / both["event_rate_hz_mean_ttree"]
    rel = np.hypot(both["event_rate_hz_std_rntuple"] / both["event_rate_hz_mean_rntuple"],
                   both["event_rate_hz_std_ttree"] / both["event_rate_hz_mean_ttree"])  # fmt: skip
    return both.assign(rate_ratio=rate, rate_ratio_std=rate * rel,
                       size_ratio=both["size_bytes_rntuple"] / both["size_bytes_ttree"])[[*keys, "rate_ratio", "rate_ratio_std", "size_ratio"]]  # fmt: skip


def valid_points(rows: pd.DataFrame) -> pd.Series:
    """Whether each summary row's timed loop is valid (``window_valid``; read back from CSV as bool or text).
    Rows of tables made before the column existed count as valid."""
    if "window_valid" not in rows:
        return pd.Series(True, index=rows.index)
    return rows["window_valid"].map(lambda v: str(v).lower() == "true")


def point_table(points) -> pd.DataFrame:
    """format, file_id, read_id and the scans (";"-joined) of each point of the study (grid.Point list):
    the link from the measured points to the scans that the figures and recommendations draw."""
    return pd.DataFrame(
        [
            {"format": p.file.format, "file_id": p.file.id, "read_id": p.read.id, "scans": ";".join(p.scans)}
            for p in points
        ],
        columns=["format", "file_id", "read_id", "scans"],
    )


def job_table(point_records: list[dict]) -> pd.DataFrame:
    """One row per measuring job (point): its wall time and the timed loops it made. The measure phase's
    efficiency is the sum of measured_loop_seconds over the sum of job_wall_seconds (report.efficiency)."""
    rows = []
    for p in point_records:
        if "job_start_time" not in p:
            continue
        rows.append(
            {
                "format": p["format"],
                "file_id": p["file_id"],
                "read_id": p["read_id"],
                "job_start_time": p["job_start_time"],
                "job_end_time": p["job_end_time"],
                "job_wall_seconds": p["job_end_time"] - p["job_start_time"],
                "measured_repetitions": p["measured_repetitions"],
                "measured_loop_seconds": p["measured_loop_seconds"],
            }
        )
    columns = ["format", "file_id", "read_id", "job_start_time", "job_end_time", "job_wall_seconds",
               "measured_repetitions", "measured_loop_seconds"]  # fmt: skip
    return pd.DataFrame(rows, columns=columns)
