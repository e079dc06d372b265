"""Print the calibration of the synthetic formats: target against achieved, as a Markdown table.

    python benchmarks/calibrate_formats.py [--build results/build] [--out /tmp/calibration]

Writes each format at ZLIB-5 with its default AutoFlush and split level (sizes per event, share of the
particle containers, branch counts), and the xAOD at every algorithm/level of the paper's Table 1 (size
ratios against LZMA-9). Deterministic: the same seed gives the same bytes, so the sizes do not depend on
the machine. Takes a few minutes (LZMA-9 is slow to write). Not a test: docs/formats.md holds its output.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from rootparams.measure.generate import BENCHMARK_SEED, generate_file, paper_file_point
from rootparams.tools import paths
from rootparams.tools.build import ensure_built

SIZE_TARGETS = {
    "xaod": (1_000_000, 30),
    "topq1": (170_000, 200),
    "susy5": (60_000, 500),
    "truth3": (5_000, 5000),
}
# Paper, Table 1: file sizes of the primary xAOD, as ratios to LZMA-9 (and LZ4-5 to LZ4-1).
RATIO_TARGETS = {
    ("lz4", 1): 8.756 / 5.901,
    ("lz4", 3): 8.756 / 5.901,
    ("lz4", 5): 7.674 / 5.901,
    ("lz4", 9): 7.556 / 5.901,
    ("zlib", 1): 7.381 / 5.901,
    ("zlib", 5): 7.030 / 5.901,
    ("zlib", 9): 6.782 / 5.901,
    ("lzma", 1): 6.203 / 5.901,
    ("lzma", 5): 5.978 / 5.901,
    ("lzma", 9): 1.0,
}


def write(fmt, algorithm, level, events, tools, out):
    point = paper_file_point(fmt, algorithm=algorithm, level=level)
    output = str(out / f"{fmt}_{point.id}.root")
    return generate_file(
        point,
        events=events,
        seed=BENCHMARK_SEED,
        writer=tools.writer,
        reader=tools.reader,
        output=output,
        catalogue=None,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--build", type=Path, default=Path(paths.BUILD), help="built C++ tools (built if missing)"
    )
    parser.add_argument("--out", type=Path, default=None, help="scratch directory for the files")
    args = parser.parse_args()
    tools = ensure_built(args.build)
    out = args.out or Path(tempfile.mkdtemp(prefix="rootparams-calibration-"))
    out.mkdir(parents=True, exist_ok=True)

    print(
        "| format | events | target B/event (ZLIB-5) | achieved B/event | deviation | particle share | top-level branches | all branches |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for fmt, (target, events) in SIZE_TARGETS.items():
        e = write(fmt, "zlib", 5, events, tools, out)
        print(
            f"| {fmt} | {events} | {target:,} | {e['bytes_per_event']:,.0f} | {e['bytes_per_event'] / target - 1:+.0%} "
            f"| {e['particle_fraction_zip']:.2f} | {e['top_level_branch_count']} | {e['branch_count']} |"
        )

    print(
        "\n| xAOD setting | paper size / LZMA-9 | achieved size / LZMA-9 | deviation | write s (30 events) |"
    )
    print("|---|---|---|---|---|")
    sizes = {key: write("xaod", *key, 30, tools, out) for key in RATIO_TARGETS}
    base = sizes[("lzma", 9)]["size_bytes"]
    for (algorithm, level), target in RATIO_TARGETS.items():
        e = sizes[(algorithm, level)]
        ratio = e["size_bytes"] / base
        print(
            f"| {algorithm}-{level} | {target:.3f} | {ratio:.3f} | {ratio / target - 1:+.1%} | {e['write_wall_seconds']:.1f} |"
        )


if __name__ == "__main__":
    main()
