"""Does the instrument measure physics? The three checks of rootparams.physics at study scale, as tables.

    python benchmarks/physics_checks.py [--build results/build] [--scratch DIR] [--reps 10]
                                        [--formats xaod topq1 susy5 truth3] [--events xaod=150 ...]
                                        [--checks levels bandwidth repeat] [--bandwidth 4000000]
                                        [--bandwidth-events 3000]

(a) levels: each format written at LZ4, ZLIB, ZSTD and LZMA levels 1, 5 and 9 (the format's default AutoFlush
    and split level), read cold on native storage, --reps repetitions each (interleaved rounds of 2): each algorithm's rate may vary
    by at most 10 % across its levels (LZ4-1, fast mode, apart from LZ4-5/9, high-compression mode).
(b) bandwidth: an LZ4-1 TRUTH3 (all branches, --bandwidth-events) read cold under a profile limited to
    --bandwidth bytes/s and no IOPS limit: every repetition's timed loop must take B / bandwidth within
    ±10 %, B the bytes the disk completed during the loop (/proc/diskstats: needs a quiet machine). The reader
    waits, then computes: its time is B / bandwidth + its CPU time, so the limit must make it I/O-bound.
(c) repeat: the first point of (a) measured again by a separate job after all the others: means within 3 %
    or 2σ.
The files are written once into --scratch and kept (a second run reuses them). Not a test: the figures of a
run are printed for docs/measurement.md; tests/test_physics.py checks the same rules on small files.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from rootparams import paths, physics
from rootparams.build import ensure_built
from rootparams.config import load_study_config
from rootparams.generate import scratch_file

# Events per format: timed loops of about 1-3 s at LZ4 on native storage on the development VM.
EVENTS = {"xaod": 150, "topq1": 1000, "susy5": 2000, "truth3": 15000}
READ = {"cache_size": -1, "learn_entries": "default", "threads": 1, "branches": "particle"}
SETTINGS = [(alg, level) for alg in ("lz4", "zlib", "zstd", "lzma") for level in (1, 5, 9)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", type=Path, default=Path(paths.BUILD))
    parser.add_argument("--scratch", type=Path, default=Path(tempfile.gettempdir()) / "rootparams-physics")
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--formats", nargs="+", default=list(EVENTS))
    parser.add_argument("--events", nargs="*", default=[], help="format=N overrides")
    parser.add_argument("--checks", nargs="+", default=["levels", "bandwidth", "repeat"])
    parser.add_argument("--bandwidth", type=int, default=4_000_000)
    parser.add_argument("--bandwidth-events", type=int, default=3000)
    args = parser.parse_args()
    events = {**EVENTS, **{k: int(v) for k, v in (e.split("=") for e in args.events)}}
    tools = ensure_built(args.build)
    args.scratch.mkdir(parents=True, exist_ok=True)
    runs = args.scratch / f"run-{int(time.time())}"
    quiet = {"attempts": 3, "busy_cpu_threshold": 0.10, "max_cpu_steal": 0.15}
    measurement = load_study_config({"measurement": quiet})["measurement"]
    native = {**READ, "storage_profile": "native"}

    rounds = max(1, args.reps // 2)  # interleaved rounds of 2 repetitions per point (physics.measure)
    first = None
    if "levels" in args.checks or "repeat" in args.checks:
        for fmt in args.formats:
            files = {
                s: scratch_file(fmt, events[fmt], tools, args.scratch, algorithm=s[0], level=s[1])
                for s in SETTINGS
            }
            results = physics.measure(files, reader=tools.reader, events=events[fmt], read=native,
                                      measurement=measurement, rounds=rounds, reps_per_round=2,
                                      scratch=runs / f"{fmt}-levels")  # fmt: skip
            rates = {key: rate for key, (rate, _) in results.items()}
            first = first or (files[SETTINGS[0]], fmt, rates[SETTINGS[0]])
            print(
                f"\n(a) {fmt}, {events[fmt]} events, native storage, {2 * rounds} cold repetitions per level"
            )
            for statistic in ("mean", "best"):  # the fastest repetition: interference only slows a read
                sigmas = (
                    physics.LEVEL_SIGMAS if statistic == "mean" else None
                )  # mean: also the noise-aware rule of the tests
                print(
                    physics.markdown(
                        physics.level_spread(rates, statistic, sigmas), f"algorithm ({statistic})"
                    )
                )
    if "repeat" in args.checks and first:
        path, fmt, rate = first
        ((again, _),) = physics.measure({"again": path}, reader=tools.reader, events=events[fmt], read=native,
                                        measurement=measurement, rounds=rounds, reps_per_round=2,
                                        scratch=runs / "repeat").values()  # fmt: skip
        print(f"\n(c) {path.name}, measured first and again after the other points")
        checks = [physics.repeat_check(rate, again, statistic) for statistic in ("mean", "best")]
        print(physics.markdown(checks, "point"))
    if "bandwidth" in args.checks:
        fmt = "truth3"
        path = scratch_file(fmt, events[fmt], tools, args.scratch, algorithm="lz4", level=1)
        profiles = {"limited": {"read_bps": args.bandwidth}}
        limited = {**measurement, "storage_profiles": profiles}
        ((_, records),) = physics.measure({"limited": path}, reader=tools.reader, events=args.bandwidth_events,
                                          read={**READ, "branches": "all", "storage_profile": "limited"},
                                          measurement=limited, rounds=rounds, reps_per_round=2,
                                          scratch=runs / "bandwidth").values()  # fmt: skip
        print(f"\n(b) {path.name}, {args.bandwidth_events} events, all branches, cold, "
              f"{args.bandwidth / 1e6:g} MB/s, no IOPS limit")  # fmt: skip
        print(physics.markdown(physics.bandwidth_check(records, args.bandwidth), "repetition"))


if __name__ == "__main__":
    main()
