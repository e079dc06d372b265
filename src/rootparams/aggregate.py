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
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from rootparams.monitor import parse_monitor_csv

POINT_KEYS = [
    "format", "file_id", "read_id", "algorithm", "level", "autoflush", "split_level", "basket_size",
    "cache_size", "learn_entries", "threads", "branches", "cache_state", "storage_profile",
]  # fmt: skip
# Metrics summarized per point (mean, std, n), when present.
SUMMARY_METRICS = [
    "event_rate_hz", "event_loop_seconds", "wall_seconds", "open_seconds", "loop_cpu_seconds",
    "read_calls", "bytes_read", "bytes_per_read", "disk_seconds", "unzip_seconds",
    "read_mb_per_s_compressed", "read_mb_per_s_uncompressed", "cache_size_used",
    "peak_rss_bytes", "rss_increase_bytes", "vm_peak_bytes", "cpu_busy_during", "cpu_steal_during",
    "first_event_seconds", "process_cpu_seconds", "cache_efficiency", "unzip_output_bytes",
    "mon_cpu_usr_pct_mean", "mon_cpu_sys_pct_mean", "mon_cpu_idle_pct_mean", "mon_cpu_wait_pct_mean",
    "mon_disk_read_bytes", "mon_disk_read_bytes_per_s_mean", "mon_io_read_ops", "mon_mem_used_bytes_max",
    "mon_page_in_per_s_mean", "mon_vm_major_faults_per_s_mean", "mon_process_disk_read_bytes",
    "disk_to_root_bytes_ratio",
]  # fmt: skip


class OverlapError(RuntimeError):
    pass


def load_records(paths: Iterable[str | Path]) -> pd.DataFrame:
    rows = []
    for path in paths:
        with open(path) as f:
            record = json.load(f)
        record["record_path"] = str(path)
        rows.append(record)
    return pd.DataFrame(rows)


def load_catalogue(paths: Iterable[str | Path]) -> pd.DataFrame:
    return load_records(paths).drop(columns=["record_path"], errors="ignore")


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
    windows = [
        (r.start_time, r.end_time, f"timed read {r.record_path}", getattr(r, "host", ""))
        for r in repetitions.itertuples()
    ]
    if not files.empty:
        windows += [
            (r.write_start_time, r.write_end_time, f"writing {r.path}", getattr(r, "host", ""))
            for r in files.itertuples()
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


def summarize(repetitions: pd.DataFrame) -> pd.DataFrame:
    """Mean, sample standard deviation (ddof=1) and n of every metric per point, unflagged repetitions only."""
    keys = [k for k in POINT_KEYS if k in repetitions.columns]
    metrics = [m for m in SUMMARY_METRICS if m in repetitions.columns]
    frame = repetitions.copy()
    frame["learn_entries"] = frame["learn_entries"].astype(str)
    rows = []
    for point, group in frame.groupby(keys, sort=True, dropna=False):
        good = group[~group["flagged"].astype(bool)]
        row = dict(zip(keys, point, strict=True))
        row["n"] = len(good)
        row["n_flagged"] = len(group) - len(good)
        row["flag_reasons"] = "; ".join(sorted({r for r in group["flag_reasons"] if r}))
        if "attempt" in group:  # attempts measured again because their conditions were not met
            row["attempts_discarded"] = int((group["attempt"] - 1).sum())
        for metric in metrics:
            values = pd.to_numeric(good[metric], errors="coerce").dropna()
            row[f"{metric}_mean"] = values.mean() if len(values) else np.nan
            row[f"{metric}_std"] = values.std(ddof=1) if len(values) > 1 else np.nan
        rows.append(row)
    summary = pd.DataFrame(rows)
    if not summary.empty:
        summary["event_rate_rel_std"] = summary["event_rate_hz_std"] / summary["event_rate_hz_mean"]
    return summary


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
