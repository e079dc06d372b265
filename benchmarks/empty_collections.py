"""ZLIB against ZSTD on mostly empty collections (ROOT 6.40 moved RDataFrame Snapshot's TTree default back to
ZLIB-1 because "branches of type ROOT::RVec where many (if not all) of the collections are empty are compressed
better with ZLIB than with ZSTD", root-project/root#21753). Prints, per layout and share of non-empty entries, the
compressed size of a collection branch at ZSTD-5 (RNTuple's default), LZ4-4 and LZMA-7 over its size at ZLIB-1:

    python benchmarks/empty_collections.py [--entries 160000]

Layouts: a std::vector<float> branch (object-wise: every entry's offset is stored in the basket) and a leaf-list
array E[nE]/F with its counter branch nE. Entries hold 1-5 values where not empty. Side by side in one run, on
files written to a temporary directory; docs/formats.md ("The related studies' formats") quotes a run.
"""

from __future__ import annotations

import argparse
import array
import random
import tempfile
import warnings
from pathlib import Path

warnings.filterwarnings("ignore", message=".*alpha.*")
import ROOT  # noqa: E402

SETTINGS = {"ZLIB-1": 101, "ZSTD-5": 505, "LZ4-4": 404, "LZMA-7": 207}


def collection_bytes(directory: Path, setting: int, nonempty: float, layout: str, entries: int) -> int:
    """Compressed bytes of the collection (and its counter, for the array layout) in a fresh file."""
    path = directory / f"{layout}_{setting}_{nonempty}.root"
    f = ROOT.TFile(str(path), "RECREATE", "", setting)
    tree = ROOT.TTree("t", "t")
    if layout == "vector":
        values = ROOT.std.vector("float")()
        tree.Branch("E", values)
    else:
        n, buffer = array.array("i", [0]), array.array("f", [0.0] * 8)
        tree.Branch("nE", n, "nE/I")
        tree.Branch("E", buffer, "E[nE]/F")
    rng = random.Random(7)  # the same entries for every setting
    for _ in range(entries):
        k = rng.randint(1, 5) if rng.random() < nonempty else 0
        if layout == "vector":
            values.clear()
            for _ in range(k):
                values.push_back(rng.random())
        else:
            n[0] = k
            for j in range(k):
                buffer[j] = rng.random()
        tree.Fill()
    tree.Write()
    zipped = sum(b.GetZipBytes() for b in tree.GetListOfBranches())
    f.Close()
    path.unlink()
    return zipped


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=160_000)
    args = parser.parse_args()
    ROOT.gROOT.SetBatch(True)
    print(f"ROOT {ROOT.gROOT.GetVersion()}, {args.entries} entries; compressed size over ZLIB-1's")
    print(
        f"{'layout':8} {'non-empty':>9} {'ZLIB-1 bytes':>13} "
        + " ".join(f"{k:>7}" for k in SETTINGS if k != "ZLIB-1")
    )
    with tempfile.TemporaryDirectory() as tmp:
        for layout in ("vector", "array"):
            for nonempty in (0.0, 0.01, 0.1, 0.5):
                sizes = {
                    k: collection_bytes(Path(tmp), s, nonempty, layout, args.entries)
                    for k, s in SETTINGS.items()
                }
                ratios = " ".join(f"{sizes[k] / sizes['ZLIB-1']:7.2f}" for k in SETTINGS if k != "ZLIB-1")
                print(f"{layout:8} {nonempty:9.0%} {sizes['ZLIB-1']:13,d} {ratios}")


if __name__ == "__main__":
    main()
