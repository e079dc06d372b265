"""The CPU primitives of one format at several compression settings, from warm reads through the study's instrument.

    python benchmarks/warm_primitives.py [--format truth3] [--events 6000] [--warm-reads 5]
                                         [--settings lz4-1 lz4-5 lz4-9 zstd-5 zlib-5 lzma-5] [--scratch DIR]

Each setting's file is written once into --scratch (the paper's other file settings of the format; kept and
reused), then measured by one block (rootparams.measure.measure.measure_block): 2 cold repetitions per file on native
storage, then --warm-reads warm reads per file (measurement.warm_reads; particle containers, TTreeCache on, 1
thread), in shuffled rounds. Prints per setting the CPU seconds per uncompressed MB of ROOT's decompression, the CPU
microseconds per event outside it and the warm rate, each a mean with its 95 % interval and n (the columns of
results/primitives/cpu_summary.csv, which it also writes into --scratch), beside the cold reads' own figures.
Then, for every two levels of one algorithm that must decompress alike (rootparams.decide.instrument_checks.level_groups: LZ4's fast
mode 1-3 and its high-compression mode 4-9 apart), the ratio of their CPU per uncompressed MB with its 95 % interval
and the equivalence verdict at the study's margin (equal / different / cannot tell), from the warm reads outside
slow spells of the host (rootparams.measure.cpu_primitives.outside_slow_spells), paired by round.
"""

from __future__ import annotations

import argparse
import itertools
import shutil
import tempfile
from pathlib import Path

from rootparams.decide import instrument_checks
from rootparams.measure import cpu_primitives
from rootparams.measure.generate import scratch_file
from rootparams.measure.measure import PlannedPoint, measure_block
from rootparams.stats.intervals import Interval
from rootparams.study.config import load_study_config
from rootparams.tools import paths
from rootparams.tools.build import ensure_built

READ = {
    "cache_size": -1,
    "learn_entries": "default",
    "threads": 1,
    "branches": "particle",
    "storage_profile": "native",
    "container": "ttree",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--format", default="truth3")
    parser.add_argument("--events", type=int, default=6000)
    parser.add_argument("--warm-reads", type=int, default=5)
    parser.add_argument(
        "--settings", nargs="+", default=["lz4-1", "lz4-5", "lz4-9", "zstd-5", "zlib-5", "lzma-5"]
    )
    parser.add_argument(
        "--scratch", type=Path, default=Path(tempfile.gettempdir()) / "rootparams-warm-primitives"
    )
    parser.add_argument("--build", type=Path, default=Path(paths.BUILD))
    args = parser.parse_args()
    tools = ensure_built(args.build)
    args.scratch.mkdir(parents=True, exist_ok=True)
    records = args.scratch / "records"
    shutil.rmtree(records, ignore_errors=True)  # measured afresh: kept records would be reused
    points = []
    for setting in args.settings:
        algorithm, level = setting.rsplit("-", 1)
        root = scratch_file(
            args.format, args.events, tools, args.scratch, algorithm=algorithm, level=int(level)
        )
        points.append(
            PlannedPoint(
                str(root),
                args.events,
                dict(READ),
                {"read_id": setting},
                {rep: str(records / setting / f"rep{rep}.json") for rep in range(2)},
            )
        )
    measurement = load_study_config(
        {"measurement": {"monitor": "none", "warm_reads": args.warm_reads, "makeup_rounds": 0}}
    )["measurement"]
    result = measure_block(
        block="warm-primitives",
        points=points,
        reader=tools.reader,
        measurement=measurement,
        monitor_csv=str(args.scratch / "monitor.csv"),
    )
    table = cpu_primitives.cpu_table(cpu_primitives.records_of_blocks([{"warm_sets": result.warm_sets}]))
    summary = cpu_primitives.cpu_summary(table)
    table.to_csv(args.scratch / "cpu.csv", index=False)
    summary.to_csv(args.scratch / "cpu_summary.csv", index=False)
    by_setting = {row["stands_for_read_ids"]: row for row in summary.to_dict("records")}
    print(
        "| setting | unzip ms per MB, warm | µs per event outside unzip, warm | warm rate (Hz) | cold: unzip ms/MB, µs/event |"
    )
    print("|---|---|---|---|---|")
    for point, cold in zip(points, result.records, strict=True):
        setting = point.labels["read_id"]
        row = by_setting[setting]
        good = [r for r in cold if not r.get("flagged")]
        unzip = Interval.of(1e3 * cpu_primitives.unzip_cpu_s_per_mb_uncompressed(r) for r in good)
        deser = Interval.of(cpu_primitives.deser_cpu_us_per_event(r) for r in good)

        def interval(name: str, scale: float = 1.0, row: dict = row) -> str:
            return (
                f"{scale * row[f'{name}_mean']:.3g} ({scale * row[f'{name}_ci95_low']:.3g}-"
                f"{scale * row[f'{name}_ci95_high']:.3g}, n = {row[f'{name}_n']})"
            )

        print(
            f"| {setting} | {interval('unzip_cpu_s_per_mb_uncompressed', 1e3)} | {interval('deser_cpu_us_per_event')} "
            f"| {interval('warm_rate_hz')} | {unzip.mean:.3g}, {deser.mean:.3g} (n = {unzip.n}) |",
            flush=True,
        )

    print_level_comparisons(args.settings, result.warm_sets)


def print_level_comparisons(settings: list[str], warm_sets: list[dict]) -> None:
    """Each pair of levels that must decompress alike: their CPU per uncompressed MB, equal within the study's
    decompression margin or not, or cannot tell."""
    warm = {
        s["file_id"]: [cpu_primitives.reusable_warm_record(p, {}) for p in s["records"]] for s in warm_sets
    }
    by_setting = {}
    for warm_set in warm_sets:
        for read_id in warm_set["stands_for_read_ids"]:
            by_setting[read_id] = cpu_primitives.outside_slow_spells(warm[warm_set["file_id"]])
    levels: dict[str, list[int]] = {}
    for setting in settings:
        algorithm, level = setting.rsplit("-", 1)
        levels.setdefault(algorithm, []).append(int(level))
    margin = instrument_checks.DECOMPRESSION_MARGIN
    print(
        f"\nCPU per uncompressed MB, levels that must be equal (within ±{margin:.0%}; slow spells left out):"
    )
    for algorithm, found in levels.items():
        for group in instrument_checks.level_groups(algorithm, found):
            for a, b in itertools.pairwise(group):
                series = [
                    instrument_checks.by_round(
                        by_setting[f"{algorithm}-{x}"], cpu_primitives.unzip_cpu_s_per_mb_uncompressed
                    )
                    for x in (a, b)
                ]
                ratio = instrument_checks.compare_series(*series)
                print(
                    f"  {algorithm}-{a} / {algorithm}-{b}: {ratio.text()} "
                    f"(reads kept {len(series[0])}, {len(series[1])}): {ratio.equivalence(margin)}"
                )


if __name__ == "__main__":
    main()
