"""Does the instrument measure physics? The checks of rootparams.decide.instrument_checks at study scale, on purpose-made files,
as tables of verdicts: holds, violated, or cannot tell at this host's noise (with the margin it could resolve).

    python benchmarks/physics_checks.py [--build results/build] [--scratch DIR] [--reps 10]
                                        [--formats xaod topq1 susy5 truth3] [--events xaod=150 ...]
                                        [--checks levels bandwidth repeat] [--bandwidth 4000000]
                                        [--bandwidth-events 3000]

(a) levels: each format written at LZ4, ZLIB, ZSTD and LZMA levels 1, 5 and 9 (the format's default AutoFlush
    and split level), read cold on native storage, --reps repetitions each in interleaved, shuffled rounds: the
    loop's CPU time outside decompression per event must be equal across an algorithm's levels within 5 % (LZ4-1,
    fast mode, apart from LZ4-5/9), paired by round. Beside it, the note's claim that decompression speed does
    not depend on the level (ROOT's unzip MB/s), within 10 %: a finding about the codecs.
(b) bandwidth: an LZ4-1 TRUTH3 (all branches, --bandwidth-events) read cold under a profile limited to
    --bandwidth bytes/s and no IOPS limit: the timed loop must take B / bandwidth within 5 %, B the bytes the disk
    completed during the loop (/proc/diskstats: needs a quiet machine). The reader waits, then computes: its time
    is B / bandwidth + its CPU time, so the limit must make it I/O-bound.
(c) repeat: the first point of (a) measured again after all the others: the same mean within 3 %.
The files are written once into --scratch and kept (a second run reuses them). Not a test: the figures of a
run are printed for docs/measurement.md; tests/test_instrument_checks.py tests the statistics, and every study's run summary
runs (a)-(c) on its own reads.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from rootparams.decide import instrument_checks
from rootparams.measure.generate import scratch_file
from rootparams.study.config import load_study_config
from rootparams.tools import paths
from rootparams.tools.build import ensure_built

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

    first = None
    if "levels" in args.checks or "repeat" in args.checks:
        for fmt in args.formats:
            files = {
                s: scratch_file(fmt, events[fmt], tools, args.scratch, algorithm=s[0], level=s[1])
                for s in SETTINGS
            }
            results = instrument_checks.measure(
                files,
                reader=tools.reader,
                events=events[fmt],
                read=native,
                measurement=measurement,
                repetitions=args.reps,
                scratch=runs / f"{fmt}-levels",
                block=f"{fmt}-levels",
            )
            first = first or (files[SETTINGS[0]], fmt, results[SETTINGS[0]])
            checks = []
            for alg in ("lz4", "zlib", "zstd", "lzma"):
                levels = {lv: results[(alg, lv)] for a, lv in SETTINGS if a == alg}
                cpu = {
                    lv: instrument_checks.by_round(recs, instrument_checks.outside_unzip_us_per_event)
                    for lv, recs in levels.items()
                }
                speed = {
                    lv: instrument_checks.by_round(recs, instrument_checks.unzip_mb_per_s)
                    for lv, recs in levels.items()
                }
                checks += instrument_checks.level_check(
                    cpu, fmt, alg
                ) + instrument_checks.decompression_check(speed, fmt, alg)
            print(
                f"\n(a) {fmt}, {events[fmt]} events, native storage, {args.reps} cold repetitions per level"
            )
            print(instrument_checks.markdown(instrument_checks.settle(checks)))
    if "repeat" in args.checks and first:
        path, fmt, before = first
        (again,) = instrument_checks.measure(
            {"again": path},
            reader=tools.reader,
            events=events[fmt],
            read=native,
            measurement=measurement,
            repetitions=args.reps,
            scratch=runs / "repeat",
        ).values()
        rates = [instrument_checks.by_round(r, "event_rate_hz").tolist() for r in (before, again)]
        print(f"\n(c) {path.name}, measured first and again after the other points")
        print(instrument_checks.markdown([instrument_checks.repeat_check(*rates, path.name)]))
    if "bandwidth" in args.checks:
        fmt = "truth3"
        path = scratch_file(fmt, events[fmt], tools, args.scratch, algorithm="lz4", level=1)
        profiles = {"limited": {"read_bps": args.bandwidth}}
        limited = {**measurement, "storage_profiles": profiles}
        (records,) = instrument_checks.measure(
            {"limited": path},
            reader=tools.reader,
            events=args.bandwidth_events,
            read={**READ, "branches": "all", "storage_profile": "limited"},
            measurement=limited,
            repetitions=args.reps,
            scratch=runs / "bandwidth",
        ).values()
        subject = (
            f"{path.name}, {args.bandwidth_events} events, all branches, cold, {args.bandwidth / 1e6:g} MB/s, "
            "no IOPS limit"
        )
        print("\n(b)")
        print(
            instrument_checks.markdown(
                [
                    instrument_checks.bandwidth_check(
                        [r for r in records if not r["flagged"]], args.bandwidth, subject
                    )
                ]
            )
        )
        # The disk sends what ROOT asked for, read-ahead included; ROOT may ask twice for a few bytes (the header,
        # the keys) that the page cache then serves, so ROOT's count may exceed the disk's by a little.
        shares = [
            r["storage_request_bytes"] / r["process_bytes_read"] for r in records if r["process_bytes_read"]
        ]
        print(
            f"bytes the throttled disk sent / bytes ROOT read: {min(shares):.3f}-{max(shares):.3f} "
            "(at least 0.95 expected)"
        )


if __name__ == "__main__":
    main()
