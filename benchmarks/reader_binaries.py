"""Do two builds of the reader give the same reads? The same files, cold, read by both, alternating in rounds
(round k: every file by build A then by build B, or the reverse, in a shuffled order), compared pair by pair.

    python benchmarks/reader_binaries.py --a OLD_BUILD --b NEW_BUILD [--formats xaod truth3] [--reps 10]
                                         [--profile hdd] [--scratch DIR]

Per file and container it prints both builds' event rates (95 % intervals), their ratio B / A paired by round with
its 95 % interval and the verdict at ±5 % (equal / different / cannot tell), and whether the bytes ROOT read and
the files' checksums are the same. Written to check a refactoring of the reader that must not change what it
measures; not a test: its figures go into the change's notes.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

import pandas as pd

from rootparams.measure.generate import scratch_file
from rootparams.measure.measure import PlannedPoint, measure_block
from rootparams.stats.intervals import RATE_MARGIN, Interval, ratio_paired
from rootparams.study.config import load_study_config
from rootparams.tools.build import Tools
from rootparams.tools.processes import run_tool

# Reads of ~1.3-2.5 s on hdd, as in the default study.
EVENTS = {"xaod": 220, "topq1": 1250, "susy5": 4000, "truth3": 26000}
READ = {"cache_size": -1, "learn_entries": "default", "threads": 1, "branches": "particle"}


def built(directory: Path) -> Tools:
    """The tools of a finished build as they are (never rebuilt: an older build is the point of comparing)."""
    directory = directory.resolve()
    tools = Tools(
        writer=str(directory / "bin" / "rootparams-write"),
        reader=str(directory / "bin" / "rootparams-read"),
        library=str(directory / "lib" / "libRootparamsXaodClasses.so"),
    )
    if not Path(tools.reader).exists():
        raise SystemExit(f"{directory}: no reader built there (bin/rootparams-read)")
    return tools


def one_read(reader, path, container, events, profile, measurement, scratch, tag):
    point = PlannedPoint(
        str(path),
        events,
        {**READ, "container": container, "storage_profile": profile},
        {"tag": tag},
        {0: str(scratch / f"{tag}.json")},
    )
    result = measure_block(
        block=tag,
        points=[point],
        reader=reader,
        measurement={**measurement, "makeup_rounds": 0},
        monitor_csv=str(scratch / f"{tag}-monitor.csv"),
        say=lambda _: None,
    )
    return result.records[0][0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--a", type=Path, required=True, help="the first build directory (results/build of one tree)"
    )
    parser.add_argument("--b", type=Path, required=True, help="the second build directory")
    parser.add_argument("--formats", nargs="+", default=["xaod", "truth3"])
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--profile", default="hdd")
    parser.add_argument(
        "--scratch", type=Path, default=Path(tempfile.gettempdir()) / "rootparams-reader-binaries"
    )
    args = parser.parse_args()
    a, b = built(args.a), built(args.b)
    args.scratch.mkdir(parents=True, exist_ok=True)
    measurement = load_study_config({"measurement": {"attempts": 2, "max_cpu_steal": 0.15}})["measurement"]
    cases = []
    for fmt in args.formats:
        for container in ("ttree", "rntuple"):
            path = scratch_file(
                fmt, EVENTS[fmt], a, args.scratch, algorithm="zlib", level=5, container=container
            )
            cases.append((fmt, container, path))
    rates: dict[tuple[str, str, str], dict[int, float]] = {}
    loops: dict[tuple[str, str, str], list[float]] = {}
    run = args.scratch / f"run-{int(time.time())}"
    run.mkdir()
    for k in range(args.reps):
        order = [(case, name) for case in cases for name in ("a", "b")]
        random.Random(k).shuffle(order)
        for (fmt, container, path), name in order:
            reader = (a if name == "a" else b).reader
            record = one_read(
                reader,
                path,
                container,
                EVENTS[fmt],
                args.profile,
                measurement,
                run,
                f"{fmt}-{container}-{name}-r{k}",
            )
            if record.get("flagged"):
                continue
            rates.setdefault((fmt, container, name), {})[k] = record["event_rate_hz"]
            loops.setdefault((fmt, container, name), []).append(record["loop_bytes_read"])
        print(f"round {k + 1} of {args.reps} done", flush=True)
    print(
        "\n| file | A: events/s | B: events/s | B / A (paired by round) | at ±5 % | ROOT's loop bytes | checksum |"
    )
    print("|---|---|---|---|---|---|---|")
    for fmt, container, path in cases:
        ra, rb = pd.Series(rates[(fmt, container, "a")]), pd.Series(rates[(fmt, container, "b")])
        ratio = ratio_paired(rb, ra)
        same_bytes = set(loops[(fmt, container, "a")]) == set(loops[(fmt, container, "b")])
        sums = {
            name: run_tool([t.reader, "--file", str(path), "--checksum"], "checksum")["content_checksum"]
            for name, t in (("a", a), ("b", b))
        }
        print(
            f"| {fmt} ZLIB-5 {container} | {Interval.of(ra).text()} | {Interval.of(rb).text()} | {ratio.text()} | "
            f"{ratio.equivalence(RATE_MARGIN)} | {'same' if same_bytes else 'differ'} | "
            f"{'same' if sums['a'] == sums['b'] else 'differ'} |"
        )


if __name__ == "__main__":
    main()
