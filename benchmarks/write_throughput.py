"""Write throughput of this project's writer next to ROOT's own rewrite of the same content.

    python benchmarks/write_throughput.py [--format xaod] [--events 30] [--repeat 3] [--build results/build]

For each algorithm and level, in one run and alternating: (a) rootparams-write filling the tree from the
format's content file, as the workflow does for every grid point; (b) TTree::CloneTree(-1, "") of (a)'s
output into a new file with the same settings (ROOT re-streams every object; no fast cloning). Both do the
same work: read the events back, serialize, compress, write. Prints uncompressed MB/s (the tree's total
bytes over the wall time) of each, the median over the repeats, and their ratio. Not a test: the machine
is shared and noisy, so only the side-by-side ratio means something.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from rootparams.measure.generate import BENCHMARK_SEED, generate_file, paper_file_point
from rootparams.study.grid import content_file_point
from rootparams.tools import paths
from rootparams.tools.build import ensure_built
from rootparams.tools.processes import run_tool
from rootparams.vocabulary import PAPER_FILE_DEFAULTS

SETTINGS = [
    ("none", 0),
    ("lz4", 1),
    ("lz4", 9),
    ("zlib", 1),
    ("zlib", 5),
    ("zlib", 9),
    ("lzma", 1),
    ("zstd", 5),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--format", default="xaod", choices=sorted(PAPER_FILE_DEFAULTS))
    parser.add_argument("--events", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--build", type=Path, default=Path(paths.BUILD))
    args = parser.parse_args()
    tools = ensure_built(args.build)
    writer, reader = tools.writer, tools.reader
    scratch = Path(tempfile.mkdtemp(prefix="rootparams-write-bench-"))
    common = {
        "events": args.events,
        "seed": BENCHMARK_SEED,
        "writer": writer,
        "reader": reader,
        "catalogue": None,
    }
    content = scratch / "content.root"
    generate_file(content_file_point(args.format), output=str(content), **common)

    print(f"{args.format}, {args.events} events, {args.repeat} repeats, median uncompressed MB/s (wall)")
    print("| setting | rootparams-write MB/s | ROOT CloneTree MB/s | ratio (ours / ROOT) | file MB |")
    print("|---|---|---|---|---|")
    for algorithm, level in SETTINGS:
        point = paper_file_point(args.format, algorithm=algorithm, level=level, basket_size=32000)
        ours, roots = [], []
        for _ in range(args.repeat):
            out = scratch / f"{point.id}.root"
            entry = generate_file(point, output=str(out), content=str(content), **common)
            ours.append(entry["tot_bytes"] / 1e6 / (entry["generate_seconds"] + entry["root_write_seconds"]))
            clone = run_tool(
                [
                    writer,
                    "--clone-from",
                    str(out),
                    "--output",
                    str(scratch / "clone.root"),
                    "--compression",
                    str(point.compression_setting),
                ],
                "CloneTree rewrite",
            )
            roots.append(clone["tree_tot_bytes"] / 1e6 / clone["clone_wall_seconds"])
        a, b = statistics.median(ours), statistics.median(roots)
        print(f"| {algorithm}-{level} | {a:.1f} | {b:.1f} | {a / b:.2f} | {entry['size_bytes'] / 1e6:.1f} |")


if __name__ == "__main__":
    main()
