"""Does holding a VM's free page reporting off make repeated reads agree better? Side by side, same files.

    python benchmarks/host_memory_noise.py [--build results/build] [--scratch DIR] [--format truth3]
                                           [--events 13000] [--rounds 5] [--profile hdd]

Each setting (LZ4-1, LZ4-5, LZ4-9, ZSTD-5 of one format) is read cold through the study's own instrument
(measure.measure_point) in interleaved rounds: in every round, 2 repetitions per setting with
``measurement.hold_free_page_reporting`` true, then 2 with it false (the order alternates between rounds).
Printed per setting and mode: the event rate (mean ± σ, σ/mean, the fastest repetition) and the loop's CPU
time, then the median σ/mean per mode and the shift of the means in σ (holding must not bias the rates
beyond the noise). On a machine without free page reporting both modes are the same measurement.
Not a test: the figures are for docs/measurement.md ("Noise from the host").
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from rootparams.decide import instrument_checks
from rootparams.host import hostmemory
from rootparams.measure.generate import scratch_file
from rootparams.stats.intervals import Interval
from rootparams.study.config import load_study_config
from rootparams.tools import paths
from rootparams.tools.build import ensure_built

SETTINGS = [("lz4", 1), ("lz4", 5), ("lz4", 9), ("zstd", 5)]
READ = {"cache_size": -1, "learn_entries": "default", "threads": 1, "branches": "particle"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", type=Path, default=Path(paths.BUILD))
    parser.add_argument("--scratch", type=Path, default=Path(tempfile.gettempdir()) / "rootparams-hostmem")
    parser.add_argument("--format", default="truth3")
    parser.add_argument("--events", type=int, default=13000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--profile", default="hdd")
    args = parser.parse_args()
    tools = ensure_built(args.build)
    args.scratch.mkdir(parents=True, exist_ok=True)
    files = {
        f"{alg}-{level}": scratch_file(
            args.format, args.events, tools, args.scratch, algorithm=alg, level=level
        )
        for alg, level in SETTINGS
    }
    runs = args.scratch / f"run-{int(time.time())}"
    quiet = {"attempts": 3, "busy_cpu_threshold": 0.10, "max_cpu_steal": 0.15}
    read = {**READ, "storage_profile": args.profile}
    records: dict[tuple[str, bool], list[dict]] = {(k, h): [] for k in files for h in (True, False)}
    for round_ in range(args.rounds):
        for hold in (True, False) if round_ % 2 == 0 else (False, True):
            measurement = load_study_config({"measurement": {**quiet, "hold_free_page_reporting": hold}})
            results = instrument_checks.measure(
                files,
                reader=tools.reader,
                events=args.events,
                read=read,
                measurement=measurement["measurement"],
                repetitions=2,
                scratch=runs / f"round{round_}-hold{int(hold)}",
            )
            for key, recs in results.items():
                records[(key, hold)] += recs
    first = next(iter(files))
    state = {hold: records[(first, hold)][0]["free_page_reporting"] for hold in (True, False)}
    print(
        f"\n{args.format}, {args.events} events, {args.profile}, cold, {2 * args.rounds} repetitions per mode"
    )
    print(f"page reporting: {hostmemory.PARAMETERS}; held: '{state[True]}', not held: '{state[False]}'\n")
    print("| setting | mode | events/s (mean ± σ) | σ/mean | fastest | loop CPU s (mean ± σ) | flagged |")
    print("|---|---|---|---|---|---|---|")
    rel = {True: [], False: []}
    shift = []
    for key in files:
        rates = {}
        for hold in (True, False):
            recs = records[(key, hold)]
            good = [r for r in recs if not r["flagged"]] or recs
            rate = Interval.of(r["event_rate_hz"] for r in good)
            fastest = max(r["event_rate_hz"] for r in good)
            cpu = [r["loop_cpu_seconds"] for r in good]
            rates[hold] = rate
            rel[hold].append(rate.spread / rate.mean)
            print(
                f"| {key} | {'held' if hold else 'on'} | {rate.mean:.0f} ± {rate.spread:.0f} | "
                f"{rate.spread / rate.mean:.1%} | {fastest:.0f} | {statistics.fmean(cpu):.3f} ± "
                f"{statistics.stdev(cpu):.3f} | {len(recs) - len(good)} |"
            )
        sigma = (rates[True].spread ** 2 / rates[True].n + rates[False].spread ** 2 / rates[False].n) ** 0.5
        shift.append(f"{key}: {(rates[True].mean - rates[False].mean) / sigma:+.1f}σ")
    print(f"\nmedian σ/mean: held {statistics.median(rel[True]):.1%}, on {statistics.median(rel[False]):.1%}")
    print("difference of the means (held - on), in σ of the difference: " + ", ".join(shift))


if __name__ == "__main__":
    main()
