"""Why ROOT's rootreadspeed reads a split file faster than the harness: what it reads, and how.

    python benchmarks/readspeed_gap.py [--format susy5] [--events 1500] [--repeat 5] [--build results/build] [--cold]

rootreadspeed (ROOT 6.40, one thread: --threads 0; tree/readspeed/src/ReadSpeed.cxx, EvalThroughputST and ReadTree)
lists the top-level branches (a first TFile::Open and TFile::Get of the tree), opens the file again, and in
ReadTree gets the tree, calls SetBranchStatus("*", 0), TBranch::SetStatus(1) on each top-level branch it was given
(--all-branches: every one), then TBranch::GetEntry of each of them for every entry. Three things follow:
- SetStatus does not recurse: the sub-branches of a split branch stay disabled, and TBranch::GetEntry skips them.
  Of a split xAOD-like file it reads the unsplit top-level branches (the dynamic attributes) and not one member of
  the split aux stores;
- it makes no TTreeCache: ROOT fills the cache from TTree::GetEntry, which it never calls, so every basket is a
  read call of its own (the reproduction below also records the cache ROOT had: none);
- its "Real time" is a TStopwatch constructed, and so started, before the branches are listed (its later
  Start(kFALSE) does not restart a running stopwatch): it holds ROOT's interpreter start-up (made by the first
  TFile::Open), both opens and the tree's metadata, besides the loop. Its real time on a 5-event file of the same
  format shows that part alone.

Printed, from one file at the paper's settings of the format:
1. What each reads (exact byte counts, no timing): the tree, its unsplit top-level branches, rootreadspeed's own
   counts, the harness on those branches (list: selection), and rootreadspeed's loop reproduced with and without
   the sub-branches (benchmarks/cxx/read_patterns.cxx).
2. Warm page cache, alternating rounds, medians:
   a. on the bytes rootreadspeed reads: rootreadspeed itself (its real time), rootreadspeed on a 5-event file (its
      real time without the reading), its loop reproduced ("branch": the loop alone, no cache), the harness on the
      same branches with the TTreeCache (as the study measures) and without (--cache-size 0);
   b. on all the bytes: the harness (cache on and off) and rootreadspeed's loop with every sub-branch enabled
      ("branch-all", no cache).
   Per reader: the medians of its seconds (its loop; rootreadspeed's real time) and CPU seconds, and "harness
   speed / this" as in read_throughput.py: this reader's seconds over the harness's loop seconds (TTreeCache on, the
   same bytes) in the same round (a slow spell of the host falls on both), the median and range of those ratios:
   above 1 the harness is faster.
3. With --cold: the same reads of 2a with the file evicted (posix_fadvise) before each, the reader's libraries kept:
   what reading basket by basket, without the cache, costs when the bytes come from this machine's disk.
Not a test: the machine is shared; only ratios measured side by side mean something, and instruction counts
(valgrind --tool=callgrind) are the noise-free check of "the same work" (docs/measurement.md).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import tempfile
from pathlib import Path

from rootparams.host import pagecache
from rootparams.measure.generate import BENCHMARK_SEED, generate_file, paper_file_point
from rootparams.measure.measure import reader_command
from rootparams.tools import paths, rootenv
from rootparams.tools.build import LIBRARY_NAME, ensure_built
from rootparams.tools.processes import json_result, run_tool
from rootparams.vocabulary import PAPER_FILE_DEFAULTS

HERE = Path(__file__).resolve().parent
READ = {"learn_entries": "default", "threads": 1}
TREE = "CollectionTree"


def build_patterns(build: Path, out: Path) -> Path:
    """benchmarks/cxx/read_patterns.cxx, linked with the xAOD-like classes' dictionary (the classes are streamed, not
    emulated), with the reader's flags."""
    root = rootenv.rootsys()
    lib = build.resolve() / "lib"
    subprocess.run(
        [
            "g++",
            "-O2",
            "-std=c++17",
            "-pthread",
            f"-I{root}/include",
            "-Wno-cpp",
            str(HERE / "cxx" / "read_patterns.cxx"),
            "-o",
            str(out),
            "-Wl,--no-as-needed",
            f"-L{lib}",
            f"-l:{LIBRARY_NAME}.so",
            f"-L{root}/lib",
            "-lCore",
            "-lRIO",
            "-lTree",
            f"-Wl,-rpath,{root}/lib",
            f"-Wl,-rpath,{lib}",
            "-Wl,--allow-shlib-undefined",
        ],
        check=True,
    )
    return out


def rootreadspeed(path: Path, dictionary: Path) -> dict:
    """rootreadspeed --all-branches, one thread, with the xAOD-like classes' dictionary preloaded: its own report."""
    cmd = [
        str(rootenv.bin_path("rootreadspeed")),
        "--files",
        str(path),
        "--trees",
        TREE,
        "--all-branches",
        "--threads",
        "0",
    ]
    out = subprocess.run(
        cmd, capture_output=True, text=True, env={**os.environ, "LD_PRELOAD": str(dictionary)}, check=True
    ).stdout

    def field(pattern: str) -> float:
        return float(re.search(pattern, out).group(1))

    return {
        "seconds": field(r"Real time:\s+([\d.]+) s"),
        "cpu_seconds": field(r"CPU time:\s+([\d.]+) s"),
        "uncompressed_bytes": int(field(r"Uncompressed data read:\s+(\d+) bytes")),
        "compressed_bytes": int(field(r"Compressed data read:\s+(\d+) bytes")),
        "read_calls": None,
    }


def unsplit_top_branches(reader: str, path: Path) -> tuple[list[dict], dict]:
    """The top-level branches without sub-branches (what rootreadspeed --all-branches reads), from the reader's
    --inspect, and the whole inspection."""
    proc = subprocess.run(
        [reader, "--file", str(path), "--inspect"], capture_output=True, text=True, check=True
    )
    inspect = json_result(proc.stdout.splitlines())
    return [b for b in inspect["branch_list"] if b["sub_branches"] == 0], inspect


def pattern(exe: Path, path: Path, kind: str, cache: str) -> dict:
    proc = subprocess.run(
        [str(exe), str(path), TREE, kind, cache], capture_output=True, text=True, check=True
    )
    line = next(x for x in proc.stdout.splitlines() if x.startswith("READ_PATTERNS "))
    r = json.loads(line.split(" ", 1)[1])
    return {
        **r,
        "seconds": r["loop_seconds"],
        "cpu_seconds": r["loop_cpu_seconds"],
        "uncompressed_bytes": r["getentry_bytes"],
        "compressed_bytes": r["file_bytes_read"],
        "read_calls": r["file_read_calls"],
    }


def harness(reader: str, path: Path, events: int, branches: str, cache_size: int) -> dict:
    cmd = reader_command(reader, str(path), events, {**READ, "branches": branches, "cache_size": cache_size})
    r = run_tool(cmd, "harness")
    return {
        **r,
        "seconds": r["loop_seconds"],
        "cpu_seconds": r["loop_cpu_seconds"],
        "uncompressed_bytes": r["bytes_unpacked"],
        "compressed_bytes": r["loop_bytes_read"],
        "read_calls": r["loop_read_calls"],
    }


def alternate(readers: dict, repeat: int, before=None) -> dict[str, list[dict]]:
    """Every reader once per round, the order reversed every other round; ``before`` runs before each read."""
    runs: dict[str, list[dict]] = {name: [] for name in readers}
    for i in range(repeat):
        for name in list(readers) if i % 2 == 0 else list(readers)[::-1]:
            if before:
                before()
            runs[name].append(readers[name]())
    return runs


def table(title: str, runs: dict[str, list[dict]], reference: str) -> None:
    """One row per reader: medians of its wall and CPU seconds, and its time over the harness's (``reference``)
    paired by round (the reads of a round follow each other, so a slow spell of the host falls on all of them): the
    median of the rounds' ratios and their range."""
    print(f"\n{title}")
    print(
        "| reader | TTreeCache | read calls | compressed MB | seconds | CPU seconds "
        "| harness speed / this, paired (median, min-max) |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, values in runs.items():
        last = values[-1]
        calls = "?" if last["read_calls"] is None else str(last["read_calls"])
        cache = last.get("cache_class") or ("none" if "rootreadspeed" in name else "?")
        ratios = [r["seconds"] / ref["seconds"] for ref, r in zip(runs[reference], values, strict=True)]
        print(
            f"| {name} | {cache} | {calls} | {last['compressed_bytes'] / 1e6:.2f} "
            f"| {statistics.median(r['seconds'] for r in values):.3f} "
            f"| {statistics.median(r['cpu_seconds'] for r in values):.3f} "
            f"| {statistics.median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f}) |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--format", default="susy5", choices=sorted(PAPER_FILE_DEFAULTS))
    parser.add_argument("--events", type=int, default=1500)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--build", type=Path, default=Path(paths.BUILD))
    parser.add_argument(
        "--cold", action="store_true", help="also the reads of 2a with the file evicted before each"
    )
    args = parser.parse_args()
    tools = ensure_built(args.build)
    scratch = Path(tempfile.mkdtemp(prefix="rootparams-readspeed-gap-"))
    exe = build_patterns(args.build, scratch / "read_patterns")
    point = paper_file_point(args.format)
    path = scratch / "file.root"
    entry = generate_file(
        point,
        events=args.events,
        seed=BENCHMARK_SEED,
        writer=tools.writer,
        reader=tools.reader,
        output=str(path),
        catalogue=None,
    )
    small = scratch / "five_events.root"
    generate_file(
        point,
        events=5,
        seed=BENCHMARK_SEED,
        writer=tools.writer,
        reader=tools.reader,
        output=str(small),
        catalogue=None,
    )
    dictionary = Path(tools.library)
    unsplit, inspect = unsplit_top_branches(tools.reader, path)
    top = inspect["branch_list"]
    split = [b for b in top if b["sub_branches"] > 0]
    unsplit_selection = "list:" + ",".join(b["name"] for b in unsplit)
    pagecache.make_warm(path)

    # 1. What each reads.
    rrs = rootreadspeed(path, dictionary)
    h_unsplit = harness(tools.reader, path, args.events, unsplit_selection, -1)
    h_all = harness(tools.reader, path, args.events, "all", -1)
    p_branch = pattern(exe, path, "branch", "auto")
    p_all = pattern(exe, path, "branch-all", "auto")
    print(
        f"{args.format} {point.id}, {args.events} events ({inspect['entries']} in the tree), "
        f"{entry['size_bytes'] / 1e6:.1f} MB on disk, {inspect['clusters']} clusters, ROOT {inspect['root_version']}"
    )
    print(
        f"{len(top)} top-level branches: {len(unsplit)} unsplit, {len(split)} split into "
        f"{sum(b['sub_branches'] for b in split)} sub-branches"
    )
    print(
        "\n1. What each reads (bytes; uncompressed = what GetEntry returned, the harness's without entry 0)"
    )
    print("| what | compressed MB | uncompressed MB |")
    print("|---|---|---|")
    rows = [
        ("the tree (zip / tot bytes)", inspect["zip_bytes"], inspect["tot_bytes"]),
        (
            "its unsplit top-level branches (zip / tot bytes)",
            sum(b["zip_bytes"] for b in unsplit),
            sum(b["tot_bytes"] for b in unsplit),
        ),
        ("rootreadspeed --all-branches (its own counts)", rrs["compressed_bytes"], rrs["uncompressed_bytes"]),
        (
            "rootreadspeed's loop reproduced (read_patterns branch)",
            p_branch["compressed_bytes"],
            p_branch["uncompressed_bytes"],
        ),
        (
            "harness, the unsplit branches (selected zip bytes / GetEntry bytes)",
            h_unsplit["selected_zip_bytes"],
            h_unsplit["bytes_unpacked"],
        ),
        (
            "rootreadspeed's loop, sub-branches enabled (read_patterns branch-all)",
            p_all["compressed_bytes"],
            p_all["uncompressed_bytes"],
        ),
        (
            "harness, all branches (selected zip bytes / GetEntry bytes)",
            h_all["selected_zip_bytes"],
            h_all["bytes_unpacked"],
        ),
    ]
    for what, zipped, unzipped in rows:
        print(f"| {what} | {zipped / 1e6:.2f} | {unzipped / 1e6:.2f} |")
    print(
        f"rootreadspeed's share of the tree's compressed bytes: {rrs['compressed_bytes'] / inspect['zip_bytes']:.3f}; "
        f"the cache its loop had: {p_branch['cache_class']}, {p_branch['read_calls']} read calls"
    )

    # 2. Warm, alternating.
    same = {
        "rootreadspeed --all-branches (real time)": lambda: rootreadspeed(path, dictionary),
        "rootreadspeed --all-branches, a 5-event file (real time)": lambda: rootreadspeed(small, dictionary),
        "rootreadspeed's loop (read_patterns branch)": lambda: pattern(exe, path, "branch", "auto"),
        "harness, same branches, TTreeCache (as measured)": lambda: harness(
            tools.reader, path, args.events, unsplit_selection, -1
        ),
        "harness, same branches, no cache": lambda: harness(
            tools.reader, path, args.events, unsplit_selection, 0
        ),
    }
    runs = alternate(
        same, args.repeat, before=lambda: (pagecache.make_warm(path), pagecache.make_warm(small))
    )
    table(
        f"2a. Warm, the bytes rootreadspeed reads, {args.repeat} alternating rounds",
        runs,
        "harness, same branches, TTreeCache (as measured)",
    )
    everything = {
        "harness, all branches, TTreeCache (as measured)": lambda: harness(
            tools.reader, path, args.events, "all", -1
        ),
        "harness, all branches, no cache": lambda: harness(tools.reader, path, args.events, "all", 0),
        "rootreadspeed's loop, sub-branches enabled (read_patterns branch-all)": lambda: pattern(
            exe, path, "branch-all", "auto"
        ),
    }
    runs = alternate(everything, args.repeat, before=lambda: pagecache.make_warm(path))
    table(
        f"2b. Warm, all the bytes, {args.repeat} alternating rounds",
        runs,
        "harness, all branches, TTreeCache (as measured)",
    )

    # 3. Cold.
    if args.cold:
        cold = {k: v for k, v in same.items() if not k.startswith("rootreadspeed --")}
        runs = alternate(cold, args.repeat, before=lambda: pagecache.make_cold(path, system_wide=False))
        table(
            f"3. Cold (file evicted before each read), the bytes rootreadspeed reads, {args.repeat} rounds",
            runs,
            "harness, same branches, TTreeCache (as measured)",
        )


if __name__ == "__main__":
    main()
