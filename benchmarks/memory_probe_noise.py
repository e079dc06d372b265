"""Does the memory probe around each timed read explain the study's noise? An analysis of a finished study.

    python benchmarks/memory_probe_noise.py [results/tables/repetitions.csv] [--thresholds 0.05 0.10 0.15 0.20]

The study records, for every repetition, the host's memory probe just before and just after the read
(measurement.memory_probe_loads; docs/measurement.md, "Noise from the host") and the slowdown of the slower
probe over the fastest probe of its point (memory_probe_slowdown). This prints, from the unflagged
repetitions of the valid points:

- how the read's time moves with the probe: per point, each repetition's loop CPU time and event rate over
  the point's median, against its probe slowdown (Pearson and Spearman correlation, and the mean of both
  for reads with slowdown below and above each threshold);
- what ``measurement.max_memory_slowdown`` would do at each threshold: the share of repetitions it would
  flag, the median σ/mean of the event rate over the points with all repetitions and with the flagged ones
  left out, and how far the means move (in units of the point's σ).

Not a test: the figures are for docs/measurement.md. It only reads the table; no timed read is made.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from rootparams.results.aggregate import POINT_KEYS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("repetitions", type=Path, nargs="?", default=Path("results/tables/repetitions.csv"))
    parser.add_argument("--thresholds", type=float, nargs="+", default=[0.05, 0.10, 0.15, 0.20])
    parser.add_argument(
        "--include-invalid", action="store_true", help="also points whose timed loop is invalid"
    )
    args = parser.parse_args()
    reps = pd.read_csv(args.repetitions)
    if "memory_probe_slowdown" not in reps or reps["memory_probe_slowdown"].isna().all():
        raise SystemExit(
            f"{args.repetitions}: no memory probe in these records (measurement.memory_probe_loads 0?)"
        )
    keep = ~reps["flagged"].astype(bool)
    if not args.include_invalid:
        keep &= reps["loop_valid"].astype(bool)
    reps = reps[keep].copy()
    if reps.empty:
        raise SystemExit(f"{args.repetitions}: no unflagged repetition of a valid point (--include-invalid?)")
    # A study's records carry the point's settings; records made outside the workflow (instrument_checks.measure) only
    # the file read.
    keys = [k for k in POINT_KEYS if k in reps.columns] if "file_id" in reps.columns else ["file"]
    if "learn_entries" in keys:
        reps["learn_entries"] = reps["learn_entries"].astype(str)
    point = reps.groupby(keys, dropna=False)
    reps["cpu_rel"] = reps["loop_cpu_seconds"] / point["loop_cpu_seconds"].transform("median")
    reps["rate_rel"] = reps["event_rate_hz"] / point["event_rate_hz"].transform("median")
    slow = reps["memory_probe_slowdown"]
    what = "points" if args.include_invalid else "valid points"
    print(f"{args.repetitions}: {len(reps)} unflagged repetitions of {point.ngroups} {what}")
    print(
        f"probe slowdown over the point's fastest: median {slow.median():+.1%}, 90th percentile "
        f"{slow.quantile(0.9):+.1%}, max {slow.max():+.1%}\n"
    )
    print("| against probe slowdown | Pearson r | Spearman ρ |")
    print("|---|---|---|")
    for column, what in (("cpu_rel", "loop CPU / point median"), ("rate_rel", "event rate / point median")):
        print(f"| {what} | {reps[column].corr(slow):+.2f} | {reps[column].rank().corr(slow.rank()):+.2f} |")

    print(
        "\n| threshold | flagged | loop CPU / median: below, above | rate / median: below, above "
        "| median σ/mean: all, kept | mean shift (median, max, in σ) |"
    )
    print("|---|---|---|---|---|---|")
    for threshold in args.thresholds:
        above = slow > threshold
        kept = reps[~above]
        sigma_all = _median_rel_std(reps, keys)
        sigma_kept = _median_rel_std(kept, keys)
        shifts = []
        for _, group in reps.groupby(keys, dropna=False):
            good = group[group["memory_probe_slowdown"] <= threshold]
            std = group["event_rate_hz"].std(ddof=1)
            if len(good) and std > 0:
                shifts.append(abs(good["event_rate_hz"].mean() - group["event_rate_hz"].mean()) / std)
        print(
            f"| {threshold:.0%} | {above.mean():.0%} | {reps.loc[~above, 'cpu_rel'].mean():.3f}, "
            f"{reps.loc[above, 'cpu_rel'].mean():.3f} | {reps.loc[~above, 'rate_rel'].mean():.3f}, "
            f"{reps.loc[above, 'rate_rel'].mean():.3f} | {sigma_all:.2%}, {sigma_kept:.2%} | "
            f"{np.median(shifts):.2f}, {max(shifts):.2f} |"
            if shifts
            else "- |"
        )


def _median_rel_std(reps: pd.DataFrame, keys: list[str]) -> float:
    rates = reps.groupby(keys, dropna=False)["event_rate_hz"]
    rel = (rates.std(ddof=1) / rates.mean())[rates.count() > 2]
    return float(rel.median())


if __name__ == "__main__":
    main()
