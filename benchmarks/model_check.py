"""The timed-loop model (rootparams.model) against a finished study's measured loops.

    PYTHONPATH=src python benchmarks/model_check.py RESULTS_DIR [--bandwidth 150e6] [--read-ahead-kb 8192]

Two checks, each printed as the error of the predicted rate, |predicted / measured - 1|, median and 90th
percentile over the study's valid points, for all of them, per scan and per storage profile:

1. **With the measured primitives** (when the study has them: ``results/primitives/cpu_summary.csv`` from its
   warm reads, ``results/primitives/storage.csv`` from fio): every time in the prediction comes from them; the
   point's own read gives only its counts (bytes, read calls, block requests, uncompressed bytes, events). This is
   the model's test.
2. **The storage and overlap parts alone**, with the CPU taken from each point's own cold reads (the loop's
   process CPU time and its unzip time) and the bandwidth of the storage profile (or ``--bandwidth``): no overlap
   (C + S), full overlap (max(C, S)) and the model's read-ahead overlap, side by side. For studies made before the
   warm reads existed.

The read-ahead is the device's ``read_ahead_kb`` (storage.csv, else ``--read-ahead-kb``). Not a test: a finding to
read, and where the model is off, the part that is off is the finding.
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
    "loop_unzip_output_bytes",
    "loop_disk_seconds",
    "loop_storage_read_bytes",
    "loop_bytes_read",
    "loop_read_calls",
    "storage_requests",
]
FIRSTS = ["container", "cache_size", "threads", "storage_profile", "storage_read_bps", "storage_read_iops"]


def load_points(results: Path) -> pd.DataFrame:
    tables = results / "tables"
    reps = pd.read_csv(tables / "repetitions.csv", low_memory=False)
    reps = reps[reps["flagged"] != True]  # noqa: E712 (a column of booleans and NaN)
    firsts = [c for c in FIRSTS if c in reps.columns]
    points = (
        reps.groupby(KEYS).agg({**{c: "mean" for c in MEANS}, **{c: "first" for c in firsts}}).reset_index()
    )
    files = pd.read_csv(tables / "files.csv")[["format", "file_id", "events_per_cluster"]]
    valid = pd.read_csv(tables / "summary.csv", low_memory=False)[[*KEYS, "valid"]]
    points = points.merge(files, on=["format", "file_id"], how="left").merge(valid, on=KEYS, how="left")
    scans = pd.read_csv(tables / "points.csv")
    points = points.merge(scans, on=KEYS, how="left")
    return points[points["valid"] == True].reset_index(drop=True)  # noqa: E712


def media_from_storage(table: pd.DataFrame) -> tuple[dict[str, model.Medium], float]:
    """Per storage profile, the medium fio measured: the bandwidth of buffered sequential reads (what ROOT
    meets, read-ahead included), the latency of a 4 kB random read beyond its transfer, the profile's IOPS
    limit; and the device's read-ahead."""
    media = {}
    # A request's latency is the disk's own (native): a throttled profile adds its limits, which the model
    # charges as throttled requests, not as latency.
    native = table[(table["storage_profile"] == "native") & (table["io_mode"] == "buffered")]
    rnd = native[(native["pattern"] == "random") & (native["block_bytes"] == 4096)]
    for profile, g in table.groupby("storage_profile"):
        seq = g[(g["pattern"] == "sequential") & (g["io_mode"] == "buffered")]
        bandwidth = float(seq["bandwidth_bps"].iloc[0])
        latency = float(rnd["latency_s_mean"].iloc[0]) - 4096 / bandwidth if len(rnd) else 0.0
        iops = g["nominal_read_iops"].dropna()
        media[profile] = model.Medium(
            str(profile), bandwidth, max(latency, 0.0), float(iops.iloc[0]) if len(iops) else None
        )
    return media, float(table["read_ahead_kb"].iloc[0]) * 1024


def cpu_of_points(points: pd.DataFrame, summary: pd.DataFrame) -> dict[tuple, dict[str, float]]:
    """Per point, the CPU parts of its warm set: the warm loop's wall time for the point's events, split into
    decompression (CPU per uncompressed MB x the point's uncompressed MB) and the rest."""
    out = {}
    for _, s in summary.iterrows():
        for read_id in str(s["stands_for_read_ids"]).split(";"):
            out[(s["format"], s["file_id"], read_id)] = s
    cpu = {}
    for _, p in points.iterrows():
        s = out.get((p["format"], p["file_id"], p["read_id"]))
        if s is None or not s["warm_rate_hz_mean"] > 0:
            continue
        loop = p["events_read"] / s["warm_rate_hz_mean"]
        # Where the warm read recorded no unzip time (decompression in ROOT's own unzip thread), the whole warm
        # loop is counted as the rest.
        unzip = s["unzip_cpu_s_per_mb_uncompressed_mean"] * p["loop_unzip_output_bytes"] / 1e6
        unzip = min(unzip, loop) if unzip == unzip else 0.0
        cpu[(p["format"], p["file_id"], p["read_id"])] = {"unzip_seconds": unzip, "loop_seconds": loop}
    return cpu


def rate_error(predicted_loop: float, measured_loop: float) -> float:
    # A loop time over-predicted by x is a rate under-predicted by x/(1+x): the error of the rate.
    return abs(measured_loop / predicted_loop - 1)


def print_errors(errors: pd.DataFrame, columns: list[str]) -> None:
    print("| points | n | " + " | ".join(f"{c}: median, p90" for c in columns) + " |")
    print("|---|---|" + "---|" * len(columns))
    groups = [("all", errors), *errors.groupby("scans"), *errors.groupby("storage_profile")]
    for name, g in groups:
        cells = [f"{100 * g[c].median():.1f} %, {100 * g[c].quantile(0.9):.1f} %" for c in columns]
        print(f"| {name} | {len(g)} | " + " | ".join(cells) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("results", type=Path)
    parser.add_argument("--bandwidth", type=float, default=None, help="bytes/s (default: the profile's)")
    parser.add_argument("--read-ahead-kb", type=float, default=8192)
    args = parser.parse_args()
    points = load_points(args.results)
    read_ahead = args.read_ahead_kb * 1024
    primitives = args.results / "primitives"
    if (primitives / "cpu_summary.csv").exists() and (primitives / "storage.csv").exists():
        media, read_ahead = media_from_storage(pd.read_csv(primitives / "storage.csv"))
        cpu = cpu_of_points(points, pd.read_csv(primitives / "cpu_summary.csv"))
        rows = []
        for _, p in points.iterrows():
            key = (p["format"], p["file_id"], p["read_id"])
            if key not in cpu or p["storage_profile"] not in media:
                continue
            pred = model.predict(p.to_dict(), cpu[key], media[p["storage_profile"]], read_ahead)
            rows.append(
                {
                    "scans": p["scans"],
                    "storage_profile": p["storage_profile"],
                    "model": rate_error(pred["predicted_loop_seconds"], p["loop_seconds"]),
                    "warm CPU alone": rate_error(cpu[key]["loop_seconds"], p["loop_seconds"]),
                    "signed": p["loop_seconds"] / pred["predicted_loop_seconds"] - 1,
                }
            )
        errors = pd.DataFrame(rows)
        print(f"With the measured primitives: {len(errors)} of {len(points)} valid points of {args.results}")
        print_errors(errors, ["model", "warm CPU alone"])
        print(f"signed median (predicted rate over measured, -1): {100 * errors['signed'].median():+.1f} %\n")
    rows = []
    for _, p in points.iterrows():
        bandwidth = args.bandwidth or float(p.get("storage_read_bps") or 0) or np.nan
        medium = model.Medium(str(p["storage_profile"]), bandwidth, 0.0)
        # The stand-in CPU parts: the cold loop's CPU, as if it were the warm read's wall time.
        cpu_part = {"unzip_seconds": p["loop_unzip_seconds"], "loop_seconds": p["loop_cpu_seconds"]}
        pred = model.predict(p.to_dict(), cpu_part, medium, read_ahead_bytes=read_ahead)
        c, s = float(p["loop_cpu_seconds"]), pred["storage_transfer"]
        rows.append(
            {
                "scans": p["scans"],
                "storage_profile": p["storage_profile"],
                "no overlap": rate_error(c + s, p["loop_seconds"]),
                "full overlap": rate_error(max(c, s), p["loop_seconds"]),
                "read-ahead overlap": rate_error(pred["predicted_loop_seconds"], p["loop_seconds"]),
            }
        )
    errors = pd.DataFrame(rows).dropna()
    print(f"Storage and overlap parts alone (CPU from the cold reads themselves): {len(errors)} valid points")
    print_errors(errors, ["no overlap", "full overlap", "read-ahead overlap"])


if __name__ == "__main__":
    main()
