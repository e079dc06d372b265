"""Is the harness an honest instrument? Read throughput next to ROOT's rootreadspeed and a bare loop, and
what each repetition costs around its timed window.

    python benchmarks/read_throughput.py [--format susy5] [--events 1500] [--repeat 5] [--build results/build]

1. Warm-cache read of one file, all branches, all entries, 1 thread, alternating in one run:
   - the harness's reader (rootparams-read, TTreePerfStats on, TTreeCache -1);
   - the same compiled GetEntry loop without PerfStats (--no-perfstats): the bare loop;
   - ROOT's rootreadspeed on the same file and branches (--all-branches --threads 0), with the event
     model's dictionary preloaded so that it streams the same classes.
   All three read the same bytes, so their speeds compare as the inverse of their reading times; each
   tool's own uncompressed MB/s is printed too. Targets: harness >= 1.0 x rootreadspeed, >= 0.97 x bare.
   The same events as an RNTuple (written from that file, ROOT's default page size), alternating too: the
   harness's RNTuple read (RNTuple metrics on, cluster cache on) against the same compiled RNTupleView loop
   without metrics (--no-perfstats). Target >= 0.97. rootreadspeed reads TTrees only (ROOT 6.40).
2. Cold repetitions through the full harness (eviction, warm-up, dool, PerfStats): the seconds spent per
   step, and the overhead as a fraction of the timed window.
Not a test: the machine is shared and noisy, so only ratios measured side by side mean something.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import tempfile
from pathlib import Path

from rootparams import pagecache, paths, rootenv
from rootparams.build import ensure_built
from rootparams.config import load_study_config
from rootparams.generate import BENCHMARK_SEED, generate_file, paper_file_point
from rootparams.measure import measure_point, reader_command
from rootparams.native import run_tool
from rootparams.vocabulary import PAPER_FILE_DEFAULTS

READ = {"cache_size": -1, "learn_entries": "default", "threads": 1}


def rootreadspeed_seconds(path: Path, dictionary: Path) -> tuple[float, float]:
    """rootreadspeed's real time and its own uncompressed MB/s."""
    env = {**os.environ, "LD_PRELOAD": str(dictionary)}
    cmd = [
        str(rootenv.bin_path("rootreadspeed")),
        "--files",
        str(path),
        "--trees",
        "CollectionTree",
        "--all-branches",
        "--threads",
        "0",
    ]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True).stdout
    real = float(re.search(r"Real time:\s+([\d.]+) s", out).group(1))
    mbps = float(re.search(r"Uncompressed throughput:\s+([\d.]+) MB/s", out).group(1))
    return real, mbps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--format", default="susy5", choices=sorted(PAPER_FILE_DEFAULTS))
    parser.add_argument("--events", type=int, default=1500)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--build", type=Path, default=Path(paths.BUILD))
    args = parser.parse_args()
    tools = ensure_built(args.build)
    reader, writer = tools.reader, tools.writer
    scratch = Path(tempfile.mkdtemp(prefix="rootparams-read-bench-"))
    point = paper_file_point(args.format)
    path, warmup = scratch / "file.root", scratch / "warmup.root"
    common = {"seed": BENCHMARK_SEED, "writer": writer, "reader": reader, "catalogue": None}
    entry = generate_file(point, events=args.events, output=str(path), **common)
    generate_file(point, events=5, output=str(warmup), **common)
    dictionary = Path(tools.library)

    pagecache.make_warm(path)
    times: dict[str, list[float]] = {"harness": [], "bare": [], "rootreadspeed": []}
    own_mbps: dict[str, list[float]] = {k: [] for k in times}
    for i in range(args.repeat):
        order = ["harness", "bare", "rootreadspeed"] if i % 2 == 0 else ["rootreadspeed", "bare", "harness"]
        for tool in order:
            if tool == "rootreadspeed":
                real, mbps = rootreadspeed_seconds(path, dictionary)
            else:
                cmd = reader_command(reader, str(path), args.events, {**READ, "branches": "all"})
                r = run_tool(cmd + (["--no-perfstats"] if tool == "bare" else []), tool)
                real = r["loop_seconds"]  # from the first entry to the last
                mbps = r["selected_tot_bytes"] / 1e6 / real
            times[tool].append(real)
            own_mbps[tool].append(mbps)
    print(
        f"{args.format} {point.id}, {args.events} events, {entry['size_bytes'] / 1e6:.0f} MB on disk, "
        f"warm page cache, all branches, 1 thread, {args.repeat} alternating repeats (medians)"
    )
    print("| reader | seconds | own uncompressed MB/s | harness speed / this |")
    print("|---|---|---|---|")
    harness = statistics.median(times["harness"])
    for tool in times:
        t = statistics.median(times[tool])
        print(f"| {tool} | {t:.3f} | {statistics.median(own_mbps[tool]):.1f} | {t / harness:.3f} |")

    # RNTuple: the same events, the harness (metrics on) against the bare view loop, alternating.
    npoint = paper_file_point(args.format, container="rntuple")
    npath = scratch / "file_rntuple.root"
    nentry = generate_file(npoint, events=args.events, output=str(npath), content=str(path), **common)
    pagecache.make_warm(npath)
    ntimes: dict[str, list[float]] = {"rntuple harness": [], "rntuple bare": []}
    for i in range(args.repeat):
        for tool in list(ntimes) if i % 2 == 0 else list(ntimes)[::-1]:
            cmd = reader_command(
                reader, str(npath), args.events, {**READ, "branches": "all", "container": "rntuple"}
            )
            r = run_tool(cmd + (["--no-perfstats"] if tool == "rntuple bare" else []), tool)
            ntimes[tool].append(r["loop_seconds"])
    print(
        f"\nThe same events as an RNTuple ({npoint.id}, {nentry['size_bytes'] / 1e6:.0f} MB on disk), warm, "
        f"all fields, 1 thread, {args.repeat} alternating repeats (medians)"
    )
    print("| reader | seconds | harness speed / this | TTree harness seconds / this |")
    print("|---|---|---|---|")
    nharness = statistics.median(ntimes["rntuple harness"])
    for tool, values in ntimes.items():
        t = statistics.median(values)
        print(f"| {tool} | {t:.3f} | {t / nharness:.3f} | {harness / t:.2f} |")

    print(
        "\nCold repetitions through the full harness (one point, 3 repetitions: dool, per-file eviction, PerfStats,"
    )
    print("fork server): see benchmarks/harness_efficiency.py for where a point's time goes.")
    measurement = load_study_config({"measurement": {"attempts": 1}})["measurement"]  # the defaults, no retry
    records = measure_point(
        root_file=str(path),
        warmup_file=str(warmup),
        reader=reader,
        events=args.events,
        read={**READ, "branches": "particle", "storage_profile": "native"},
        measurement=measurement,
        monitor_csv=str(scratch / "monitor.csv"),
        records={i: str(scratch / f"rep{i}.json") for i in range(3)},
        labels={},
    )
    loop = statistics.median(r["loop_seconds"] for r in records)
    total = statistics.median(r["harness_total_seconds"] for r in records)
    print(f"timed loop (all events from the first entry): {loop:.3f} s; per repetition in all: {total:.3f} s")


if __name__ == "__main__":
    main()
