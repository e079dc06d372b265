"""Is the harness an honest instrument? Read throughput next to ROOT's rootreadspeed and a bare loop, and
what each repetition costs around its timed window.

    python benchmarks/read_throughput.py [--format susy5] [--events 1500] [--repeat 5] [--build results/build]

1. Warm-cache read of one file, 1 thread, alternating in one run:
   - the harness's reader (rootparams-read, TTreePerfStats on, TTreeCache -1), all branches;
   - the same compiled GetEntry loop without PerfStats (--no-perfstats), all branches: the bare loop;
   - ROOT's rootreadspeed (--all-branches --threads 0), with the xAOD-like classes' dictionary preloaded so that it
     streams the same classes;
   - the harness on the branches rootreadspeed really reads, and rootreadspeed's loop alone on them, reproduced
     (benchmarks/cxx/read_patterns.cxx, pattern "branch": the same TBranch::GetEntry calls, the same bytes).
     rootreadspeed enables each top-level branch alone (TBranch::SetStatus after SetBranchStatus("*", 0)), so the
     sub-branches of a split branch stay disabled and are not read: of a split file it reads the unsplit
     top-level branches only; and its real time also holds ROOT's start-up and two opens of the file
     (benchmarks/readspeed_gap.py, docs/measurement.md "rootreadspeed: what it reads and what it times").
   Each row says what it read (compressed MB as its own count, uncompressed MB/s as its own count over its time);
   speeds compare as the inverse of the times only between rows that read the same bytes over the same span: the
   harness against the bare loop (all branches), and rootreadspeed's loop against the harness on rootreadspeed's
   branches (rootreadspeed's own real time is printed beside them, against the same reference).
   Targets: harness >= 0.97 x bare, >= 1.0 x rootreadspeed's loop on its bytes.
   The same events as an RNTuple (written from that file, ROOT's default page size), alternating too: the
   harness's RNTuple read (RNTuple metrics on, cluster cache on) against the same compiled RNTupleView loop
   without metrics (--no-perfstats). Target >= 0.97. rootreadspeed reads TTrees only (ROOT 6.40).
2. Cold repetitions through the full harness (eviction, warm-up, dool, PerfStats): the seconds spent per
   step, and the overhead as a fraction of the timed window.
Not a test: the machine is shared and noisy, so only ratios measured side by side mean something.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from readspeed_gap import build_patterns, pattern, rootreadspeed, unsplit_top_branches  # beside this script

from rootparams.host import pagecache
from rootparams.measure.generate import BENCHMARK_SEED, generate_file, paper_file_point
from rootparams.measure.measure import measure_point, reader_command
from rootparams.study.config import load_study_config
from rootparams.tools import paths
from rootparams.tools.build import ensure_built
from rootparams.tools.processes import run_tool
from rootparams.vocabulary import PAPER_FILE_DEFAULTS

READ = {"cache_size": -1, "learn_entries": "default", "threads": 1}


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

    unsplit, inspect = unsplit_top_branches(reader, path)
    selection = {"all": "all", "rootreadspeed's branches": "list:" + ",".join(b["name"] for b in unsplit)}
    pagecache.make_warm(path)
    patterns = build_patterns(args.build, scratch / "read_patterns")
    tools_read = {
        "harness": "all",
        "bare": "all",
        "harness, rootreadspeed's branches": "rootreadspeed's branches",
        "rootreadspeed's loop (reproduced)": "rootreadspeed's branches",
        "rootreadspeed (its real time)": "rootreadspeed's branches",
    }
    times: dict[str, list[float]] = {k: [] for k in tools_read}
    own_mbps: dict[str, list[float]] = {k: [] for k in times}
    compressed: dict[str, int] = {}
    for i in range(args.repeat):
        for tool in list(times) if i % 2 == 0 else list(times)[::-1]:
            if tool == "rootreadspeed (its real time)":
                r = rootreadspeed(path, dictionary)
                real, compressed[tool] = r["seconds"], r["compressed_bytes"]
                mbps = r["uncompressed_bytes"] / 1e6 / real
            elif tool == "rootreadspeed's loop (reproduced)":
                p = pattern(patterns, path, "branch", "auto")
                real, compressed[tool] = p["loop_seconds"], p["file_bytes_read"]
                mbps = p["getentry_bytes"] / 1e6 / real
            else:
                branches = selection[tools_read[tool]]
                cmd = reader_command(reader, str(path), args.events, {**READ, "branches": branches})
                r = run_tool(cmd + (["--no-perfstats"] if tool == "bare" else []), tool)
                real = r["loop_seconds"]  # from the first entry to the last
                mbps = r["selected_tot_bytes"] / 1e6 / real
                compressed[tool] = r["file_bytes_read_useful"]
            times[tool].append(real)
            own_mbps[tool].append(mbps)
    print(
        f"{args.format} {point.id}, {args.events} events, {entry['size_bytes'] / 1e6:.0f} MB on disk, "
        f"warm page cache, 1 thread, {args.repeat} alternating repeats (medians)"
    )
    print(
        f"{len(inspect['branch_list'])} top-level branches, {len(unsplit)} of them unsplit (rootreadspeed's "
        f"branches); the tree's compressed bytes {inspect['zip_bytes'] / 1e6:.1f} MB"
    )
    print(
        "| reader | branches | compressed MB read | seconds | own uncompressed MB/s | harness speed / this |"
    )
    print("|---|---|---|---|---|---|")
    median = {tool: statistics.median(values) for tool, values in times.items()}
    harness = median["harness"]
    for tool, t in median.items():
        # the same bytes: the bare loop against the harness, rootreadspeed against the harness on its branches
        reference = (
            median["harness, rootreadspeed's branches"] if tool.startswith("rootreadspeed") else harness
        )
        ratio = (
            f"{t / reference:.3f}"
            if tool != "harness, rootreadspeed's branches"
            else "(reference of the rootreadspeed rows)"
        )
        print(
            f"| {tool} | {tools_read[tool]} | {compressed[tool] / 1e6:.1f} | {t:.3f} | "
            f"{statistics.median(own_mbps[tool]):.1f} | {ratio} |"
        )

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
