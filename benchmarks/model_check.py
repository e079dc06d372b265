"""The storage side of the timed-loop model (rootparams.model) against a finished study's measured loops.

    PYTHONPATH=src python benchmarks/model_check.py RESULTS_DIR [--bandwidth 150e6] [--read-ahead-kb 8192]

Until the study's warm reads exist (``measurement.warm_reads``), the CPU parts are taken from each point's own
cold reads (the loop's process CPU time and its unzip time): so this checks the *storage and overlap* parts of the
model only, and says so. Three ways to combine a point's CPU time C and its storage transfer time S = bytes from
the block layer / bandwidth are printed side by side, per format and for all valid points: no overlap (C + S), full
overlap (max(C, S)), and the model's read-ahead overlap (one read-ahead window per cluster fill hidden behind the
CPU). Error: |predicted rate / measured rate - 1|, median and 90th percentile over the points. The bandwidth is
the storage profile's (hdd: 150 MB/s) unless given; the read-ahead is the device's read_ahead_kb (provenance).
Not a test: a finding to read.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from rootparams import model

KEYS = ["format", "file_id", "read_id"]
MEANS = [
    "events_read",
    "loop_seconds",
    "loop_cpu_seconds",
    "loop_unzip_seconds",
    "loop_disk_seconds",
    "loop_storage_read_bytes",
    "loop_bytes_read",
    "loop_read_calls",
    "storage_requests",
]
FIRSTS = ["container", "cache_size", "threads", "storage_profile", "storage_read_bps"]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("results", type=Path)
    parser.add_argument("--bandwidth", type=float, default=None, help="bytes/s (default: the profile's)")
    parser.add_argument("--read-ahead-kb", type=float, default=8192)
    args = parser.parse_args()
    tables = args.results / "tables"
    reps = pd.read_csv(tables / "repetitions.csv", low_memory=False)
    reps = reps[reps["flagged"] != True]  # noqa: E712 (a column of booleans and NaN)
    points = (
        reps.groupby(KEYS).agg({**{c: "mean" for c in MEANS}, **{c: "first" for c in FIRSTS}}).reset_index()
    )
    files = pd.read_csv(tables / "files.csv")[["format", "file_id", "events_per_cluster"]]
    valid = pd.read_csv(tables / "summary.csv", low_memory=False)[[*KEYS, "valid"]]
    points = points.merge(files, on=["format", "file_id"], how="left").merge(valid, on=KEYS, how="left")
    points = points[points["valid"] == True]  # noqa: E712
    rows = []
    for _, p in points.iterrows():
        bandwidth = args.bandwidth or float(p["storage_read_bps"]) or np.nan
        medium = model.Medium(str(p["storage_profile"]), bandwidth, 0.0)
        # The stand-in CPU parts: the cold loop's CPU, as if it were the warm read's wall time.
        cpu = {"unzip_seconds": p["loop_unzip_seconds"], "loop_seconds": p["loop_cpu_seconds"]}
        pred = model.predict(p.to_dict(), cpu, medium, read_ahead_bytes=args.read_ahead_kb * 1024)
        c, s = float(p["loop_cpu_seconds"]), pred["storage_transfer"]
        rows.append(
            {
                "format": p["format"],
                "threads": p["threads"],
                "no overlap": (c + s) / p["loop_seconds"] - 1,
                "full overlap": max(c, s) / p["loop_seconds"] - 1,
                "read-ahead overlap": pred["predicted_loop_seconds"] / p["loop_seconds"] - 1,
            }
        )
    errors = pd.DataFrame(rows)
    # A loop time over-predicted by x is a rate under-predicted by x/(1+x): the error of the rate.
    for col in ("no overlap", "full overlap", "read-ahead overlap"):
        errors[col] = (1 / (1 + errors[col]) - 1).abs()
    print(
        f"{len(errors)} valid points of {args.results}; CPU parts from the cold reads themselves (stand-in)"
    )
    print(
        "| points | n | "
        + " | ".join(f"{c}: median, p90" for c in ("no overlap", "full overlap", "read-ahead overlap"))
        + " |"
    )
    print("|---|---|---|---|---|")
    groups = [("all", errors), ("one thread", errors[errors["threads"] == 1]), *errors.groupby("format")]
    for name, g in groups:
        cells = [
            f"{100 * g[c].median():.1f} %, {100 * g[c].quantile(0.9):.1f} %"
            for c in ("no overlap", "full overlap", "read-ahead overlap")
        ]
        print(f"| {name} | {len(g)} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
