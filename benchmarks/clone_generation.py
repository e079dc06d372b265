"""Generation time per event of calibrated clones: an earlier writer and the current one, side by side.

    PYTHONPATH=src /work/main/.venv/bin/python benchmarks/clone_generation.py --build results/build \\
        --baseline <git revision> [--events 1000] [--repeat 3] [FILE ...]

Each real file (default: the ATLAS PHYSLITE and CMS NanoAOD samples of /work/shared/data) is cloned into a
recipe (rootparams.ownfile.calibrate.recipe_from_file, once; both writers get the same recipe), and each writer writes
``--events`` events of it with the same seed at one setting (``--compression`` 505, AutoFlush 100, split 99,
baskets 32000), ``--repeat`` times, alternating which writer goes first. The baseline is the writer source of
``--baseline`` (``git show``), compiled against the event-model library of ``--build``
(rootparams.tools.build.build_writer: its XaodClasses.h must be the build's), or an executable given with
``--baseline-writer``. Without either, only the current writer is measured.

Prints per file and writer the median of the writer's own ``generate_seconds`` (the event loop's generation,
ROOT's filling excluded) per event, ROOT's part (``root_write_seconds``) per event, and whether every run wrote
the same events: the same uncompressed and compressed bytes of the tree (TTree::GetTotBytes/GetZipBytes) and
the same content checksum (rootparams-read --checksum). Not a test: the machine is shared and noisy, and these
are wall times, so only figures measured side by side compare.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
from pathlib import Path

from rootparams.measure.generate import BENCHMARK_SEED
from rootparams.ownfile.calibrate import recipe_from_file
from rootparams.tools import paths
from rootparams.tools.build import build_writer, ensure_built
from rootparams.tools.processes import run_tool

SAMPLES = (
    Path("/work/shared/data/atlas_physlite_run2_ttbar_100ev.root"),
    Path("/work/shared/data/cms_nanoaod_2015_ttbar_200ev.root"),
)
WRITER_SOURCES = ("write_collection_tree.cxx", "common.h", "XaodClasses.h")
CXX_DIR = "src/rootparams/cxx"


def baseline_writer(revision: str, build: Path, scratch: Path) -> str:
    """The writer of ``revision`` (its sources from git), compiled against ``build``'s event-model library."""
    repo = Path(__file__).resolve().parents[1]
    source_dir = scratch / "baseline-src"
    source_dir.mkdir()
    for name in WRITER_SOURCES:
        text = subprocess.run(
            ["git", "-C", str(repo), "show", f"{revision}:{CXX_DIR}/{name}"],
            capture_output=True,
            check=True,
        ).stdout
        (source_dir / name).write_bytes(text)
    return str(build_writer(source_dir / WRITER_SOURCES[0], scratch / "rootparams-write-baseline", build))


def write(writer: str, recipe: Path, output: Path, args: argparse.Namespace) -> dict:
    return run_tool(
        [
            writer,
            "--recipe",
            str(recipe),
            "--output",
            str(output),
            "--events",
            str(args.events),
            "--compression",
            str(args.compression),
            "--autoflush",
            "100",
            "--split",
            "99",
            "--basket",
            "32000",
            "--seed",
            str(BENCHMARK_SEED),
        ],
        f"writing {output}",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="*", type=Path, default=list(SAMPLES))
    parser.add_argument("--build", type=Path, default=Path(paths.BUILD))
    baseline = parser.add_mutually_exclusive_group()
    baseline.add_argument("--baseline", help="git revision whose writer source is the baseline")
    baseline.add_argument("--baseline-writer", help="a baseline rootparams-write executable")
    parser.add_argument("--events", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--compression", type=int, default=505)
    args = parser.parse_args()
    tools = ensure_built(args.build)
    scratch = Path(tempfile.mkdtemp(prefix="rootparams-clone-gen-"))
    writers = {"current": tools.writer}
    if args.baseline:
        writers = {"baseline": baseline_writer(args.baseline, args.build, scratch), **writers}
    elif args.baseline_writer:
        writers = {"baseline": args.baseline_writer, **writers}

    print(
        f"{args.events} events per clone, seed {BENCHMARK_SEED}, compression {args.compression}, AutoFlush 100, "
        f"split 99, {args.repeat} repeats (median), wall times"
        + (f"; baseline: {args.baseline or args.baseline_writer}" if len(writers) > 1 else "")
    )
    header = (
        "| clone of | writer | generate ms/event | ROOT write ms/event | generation speed-up | same events |"
    )
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    for source in args.files:
        recipe = scratch / f"{source.stem}.recipe"
        recipe.write_text(recipe_from_file(source))
        runs: dict[str, list[dict]] = {name: [] for name in writers}
        outputs = {name: scratch / f"{source.stem}_{name}.root" for name in writers}
        for r in range(args.repeat):
            order = list(writers) if r % 2 == 0 else list(reversed(writers))
            for name in order:
                runs[name].append(write(writers[name], recipe, outputs[name], args))
        sizes = {(j["tree_tot_bytes"], j["tree_zip_bytes"]) for rs in runs.values() for j in rs}
        checksums = {
            run_tool([tools.reader, "--file", str(out), "--checksum"], f"checksum of {out}")[
                "content_checksum"
            ]
            for out in outputs.values()
        }
        same = (
            "yes" if len(sizes) == 1 and len(checksums) == 1 else f"NO (bytes {sizes}, checksums {checksums})"
        )
        generate = {
            name: statistics.median(j["generate_seconds"] for j in rs) / args.events * 1e3
            for name, rs in runs.items()
        }
        for name, rs in runs.items():
            root = statistics.median(j["root_write_seconds"] for j in rs) / args.events * 1e3
            speedup = (
                f"{generate['baseline'] / generate[name]:.1f}x"
                if "baseline" in generate and name != "baseline"
                else ""
            )
            print(f"| {source.name} | {name} | {generate[name]:.3f} | {root:.3f} | {speedup} | {same} |")


if __name__ == "__main__":
    main()
