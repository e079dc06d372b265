"""The timed-loop model (rootparams.model.model) against a finished study's measured loops.

    PYTHONPATH=src python benchmarks/model_check.py RESULTS_DIR [--bandwidth 150e6] [--read-ahead-kb 8192]

Three checks, each printed as the error of the predicted rate, |predicted / measured - 1|, median and 90th
percentile over the study's valid points, for all of them, per scan and per storage profile:

1. **With the measured primitives** (when the study has them: ``results/primitives/cpu_summary.csv`` from its
   warm reads, ``results/primitives/storage.csv`` from fio): every time in the prediction comes from them; the
   point's own read gives only its counts (bytes, read calls, block requests, uncompressed bytes, events). This is
   the model's test.
2. **Against baselines** (with the measured primitives): the same errors for the warm CPU alone, B / bandwidth
   alone, the larger of the two and their sum, on the same points, per group, with the warm read's share of each
   prediction and the model's version (``model.baselines_table``, the study's ``model_baselines.md``).
3. **The storage and overlap parts alone**, with the CPU taken from each point's own cold reads (the loop's
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

from rootparams.model import model


def load_points(results: Path) -> pd.DataFrame:
    tables = results / "tables"
    return model.study_points(
        pd.read_csv(tables / "repetitions.csv", low_memory=False),
        pd.read_csv(tables / "files.csv"),
        pd.read_csv(tables / "summary.csv", low_memory=False),
        pd.read_csv(tables / "points.csv"),
    )


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
        storage = pd.read_csv(primitives / "storage.csv")
        _, read_ahead = model.media_from_storage(storage)
        predicted = model.predicted_points(points, storage, pd.read_csv(primitives / "cpu_summary.csv"))
        errors = pd.DataFrame(
            {
                "scans": predicted["scans"],
                "storage_profile": predicted["storage_profile"],
                "model": predicted["rate_error"].abs(),
            }
        )
        print(
            f"With the measured primitives (model rules {model.MODEL_VERSION}): {len(errors)} of {len(points)} "
            f"valid points of {args.results}"
        )
        print_errors(errors, ["model"])
        print(
            f"signed median (predicted rate over measured, -1): {100 * predicted['rate_error'].median():+.1f} %\n"
        )
        # 2. What the model adds: the same points predicted without its rules (results/tables/model_baselines.csv).
        print(model.baselines_markdown(model.baselines_table(predicted)))
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
