"""What the paper's scale (config/paper.yaml) costs on a machine, derived from a finished study on it.

    python benchmarks/paper_scale.py [--results results] [--config config/paper.yaml]

From the finished study's tables it takes, as measured on this machine:
- the write cost in seconds per uncompressed MB for each format, algorithm and level (files.csv), and the
  uncompressed bytes per event of each format;
- the event rate of each format, algorithm and level at the study's default read settings (summary.csv);
- the harness cost around each timed read and per point (repetitions.csv).
Then, for every point and file of the target config: generation time = uncompressed MB x seconds per MB
(nearest measured level of the same algorithm), read time = events / measured rate + harness cost, both
summed, and the disk footprint from rootparams.study.footprint. The rates at 30 events include per-read costs
(open, cache fill) that 2000 events would amortize, so the read time is an upper bound; the writes scale
linearly. Prints a table and the totals.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd
import yaml

from rootparams.study import footprint
from rootparams.study.config import load_study_config
from rootparams.study.grid import expand_points, file_points

PER_POINT_SECONDS = 2.5  # job start and the monitor's first sample (docs/measurement.md)


def nearest(frame: pd.DataFrame, fmt: str, algorithm: str, level: int, column: str) -> float:
    rows = frame[(frame["format"] == fmt) & (frame["algorithm"] == algorithm)].dropna(subset=[column])
    if rows.empty:
        rows = frame[frame["format"] == fmt].dropna(subset=[column])
    if rows.empty:
        return float("nan")
    return float(rows.iloc[(rows["level"] - level).abs().argsort()].iloc[0][column])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--results", type=Path, default=Path("results"))
    parser.add_argument("--config", type=Path, default=Path("config/paper.yaml"))
    args = parser.parse_args()
    files = pd.read_csv(args.results / "tables" / "files.csv")
    summary = pd.read_csv(args.results / "tables" / "summary.csv")
    reps = pd.read_csv(args.results / "tables" / "repetitions.csv")
    files = files.assign(
        s_per_mb=files["write_wall_seconds"] / (files["tot_bytes"] / 1e6),
        raw_per_event=files["tot_bytes"] / files["events"],
    )
    cost = files.groupby(["format", "algorithm", "level"], as_index=False)[
        ["s_per_mb", "raw_per_event"]
    ].median()
    raw_per_event = files.groupby("format")["raw_per_event"].median()
    default_reads = summary[(summary["cache_size"] == -1) & (summary["threads"] == 1)]
    rates = default_reads.groupby(["format", "algorithm", "level", "storage_profile"], as_index=False)[
        "event_rate_hz_mean"
    ].median()
    overhead = float((reps["harness_total_seconds"] - reps["loop_seconds"]).median())

    target = load_study_config(yaml.safe_load(args.config.read_text()))
    points = expand_points(target)
    write_s = 0.0
    for f in file_points(points):
        mb = raw_per_event[f.format] * target["formats"][f.format]["written"] / 1e6
        write_s += mb * nearest(cost, f.format, f.algorithm, f.level, "s_per_mb")
    read_s = 0.0
    for p in points:
        profile_rates = rates[rates["storage_profile"] == p.read.storage_profile]
        rate = nearest(
            profile_rates if len(profile_rates) else rates,
            p.file.format,
            p.file.algorithm,
            p.file.level,
            "event_rate_hz_mean",
        )
        events = target["formats"][p.file.format]["read"]
        read_s += PER_POINT_SECONDS + target["repetitions"] * (events / rate + overhead)
    disk = footprint.estimate(target, points)
    print(
        f"{args.config}: {len(points)} points, {len(file_points(points))} files, "
        f"{len(points) * target['repetitions']} timed reads; costs measured in {args.results}"
    )
    print("| what | estimate |\n|---|---|")
    print(f"| writing the files (1 core) | {write_s / 3600:.1f} h |")
    print(f"| timed reads (serial, one node) | {read_s / 3600:.1f} h |")
    print(f"| harness per read (measured) | {overhead:.2f} s |")
    print(f"| peak disk (files kept until read) | {disk / 1e9:.0f} GB |")


if __name__ == "__main__":
    main()
