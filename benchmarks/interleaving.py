"""Do interleaved rounds make the compression scan's comparisons reproducible? The same files measured four times,
alternating the two orders of measurement.order: "sequential" (every repetition of a point, then the next point:
the instrument before rounds) and "interleaved" (repetition k of every point before repetition k+1 of any, each
round shuffled), and the runs of each order compared with each other.

    python benchmarks/interleaving.py [--build results/build] [--scratch DIR] [--reps 10] [--runs 2]
                                      [--formats truth3 susy5] [--profile hdd]

Per order it prints: the median σ/mean within a run (what the error bars say), the median and largest difference
of a point's mean between two runs, the share of points whose second mean lies inside the first run's 95 %
interval, and the level ratios within each algorithm (LZ4-5 / LZ4-9, ...) in each run with their 95 % intervals:
paired by round for the interleaved runs, unpaired for the sequential ones. A good instrument gives intervals
that cover the other run's mean, and level ratios that agree between runs.
Not a test: the figures of a run are printed for docs/statistics.md.
"""

from __future__ import annotations

import argparse
import itertools
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from rootparams.decide.instrument_checks import compare_series
from rootparams.measure.generate import scratch_file
from rootparams.measure.measure import PlannedPoint, measure_block
from rootparams.stats.intervals import Interval
from rootparams.study.config import load_study_config
from rootparams.tools import paths
from rootparams.tools.build import ensure_built

# The default study's read sizes (config/config.yaml): timed loops of ~1.3-2.5 s on hdd.
EVENTS = {"xaod": 220, "topq1": 1250, "susy5": 4000, "truth3": 26000}
SETTINGS = [(alg, level) for alg in ("lz4", "zstd", "zlib") for level in (1, 5, 9)]
READ = {"cache_size": -1, "learn_entries": "default", "threads": 1, "branches": "particle"}


def run(files, events, order, reps, profile, tools, scratch, measurement, block):
    points = [
        PlannedPoint(
            str(path),
            events,
            {**READ, "storage_profile": profile},
            {"setting": f"{a}-{lv}"},
            {rep: str(scratch / f"{a}-{lv}" / f"rep{rep}.json") for rep in range(reps)},
        )
        for (a, lv), path in files.items()
    ]
    result = measure_block(
        block=block,
        points=points,
        reader=tools.reader,
        measurement={**measurement, "order": order, "makeup_rounds": 0},
        monitor_csv=str(scratch / "monitor.csv"),
        seed=int(time.time()),
    )
    out = {}
    for (setting, _), records in zip(files.items(), result.records, strict=True):
        good = [r for r in records if not r["flagged"]]
        out[setting] = pd.Series([r["event_rate_hz"] for r in good], index=[r["round_key"] for r in good])
    return out


def report(fmt: str, runs: dict[str, list[dict]]) -> None:
    print(f"\n### {fmt}\n")
    print(
        "| order | median σ/mean in a run | median |Δ mean| between runs | largest | 2nd mean inside 1st's 95 % CI |"
    )
    print("|---|---|---|---|---|")
    for order, measured in runs.items():
        rel = [s.std(ddof=1) / s.mean() for m in measured for s in m.values() if len(s) > 1]
        diffs, covered = [], []
        for a, b in itertools.combinations(measured, 2):
            for setting in a:
                ia, ib = Interval.of(a[setting]), Interval.of(b[setting])
                diffs.append(abs(ib.mean - ia.mean) / ia.mean)
                covered.append(ia.low <= ib.mean <= ia.high)
        print(
            f"| {order} | {np.median(rel):.1%} | {np.median(diffs):.1%} | {max(diffs):.1%} | "
            f"{np.mean(covered):.0%} of {len(covered)} |"
        )
    print("\nLevel ratios per run (95 % intervals; interleaved runs paired by round):\n")
    print(
        "| order | ratio | "
        + " | ".join(f"run {i + 1}" for i in range(max(len(m) for m in runs.values())))
        + " |"
    )
    print("|---|---|" + "---|" * max(len(m) for m in runs.values()))
    for order, measured in runs.items():
        for alg in ("lz4", "zstd", "zlib"):
            for a, b in ((5, 9), (1, 5), (1, 9)):
                if alg == "lz4" and 1 in (a, b):
                    continue  # LZ4-1 is the fast mode: another codec path
                cells = [compare_series(m[(alg, a)], m[(alg, b)]).text() for m in measured]
                print(f"| {order} | {alg}-{a} / {alg}-{b} | " + " | ".join(cells) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", type=Path, default=Path(paths.BUILD))
    parser.add_argument(
        "--scratch", type=Path, default=Path(tempfile.gettempdir()) / "rootparams-interleaving"
    )
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--runs", type=int, default=2, help="runs per order (alternating)")
    parser.add_argument("--formats", nargs="+", default=["truth3", "susy5"])
    parser.add_argument("--profile", default="hdd")
    args = parser.parse_args()
    tools = ensure_built(args.build)
    args.scratch.mkdir(parents=True, exist_ok=True)
    measurement = load_study_config({"measurement": {"attempts": 2, "max_cpu_steal": 0.15}})["measurement"]
    stamp = int(time.time())
    for fmt in args.formats:
        files = {
            s: scratch_file(fmt, EVENTS[fmt], tools, args.scratch, algorithm=s[0], level=s[1])
            for s in SETTINGS
        }
        runs: dict[str, list[dict]] = {"sequential": [], "interleaved": []}
        for i in range(args.runs):
            for order in (
                "sequential",
                "interleaved",
            ):  # alternating, so that a drift of the host hits both alike
                scratch = args.scratch / f"run-{stamp}" / fmt / f"{order}{i}"
                start = time.time()
                measured = run(
                    files,
                    EVENTS[fmt],
                    order,
                    args.reps,
                    args.profile,
                    tools,
                    scratch,
                    measurement,
                    f"{fmt}-{order}{i}",
                )
                runs[order].append(measured)
                print(f"{fmt} {order} run {i + 1}: {time.time() - start:.0f} s", flush=True)
        report(fmt, runs)


if __name__ == "__main__":
    main()
