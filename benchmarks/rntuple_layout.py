"""How our RNTuple layout compares with a real Athena PHYSLITE RNTuple: column types, bytes and compression.

    python benchmarks/rntuple_layout.py [--format xaod] [--events 100] [--real ../shared/data/atlas_physlite_rntuple_100ev.root]

Writes the format as an RNTuple (the paper's settings of the format, ZSTD-5 and one cluster per 100 events, as
the real file) and prints, for it and for the real file, from each file's RNTuple descriptor:
- the top-level fields by kind (interface objects, static aux stores `<Key>Aux:`, aux variables `<Key>AuxDyn:<var>`);
- per column type: columns, bytes on storage, bytes in memory and their ratio (the compression of that kind of
  data), and the share of the file's bytes.
Not a test: the real file is another sample (Run-3 ttbar PHYSLITE, 100 events) and ours is synthetic; the
columns say whether the layout is the same kind of thing, and where the bytes go. docs/formats.md quotes a run.
"""

from __future__ import annotations

import argparse
import collections
import tempfile
from pathlib import Path

from rootparams.measure.generate import scratch_file
from rootparams.tools import paths
from rootparams.tools.build import ensure_built
from rootparams.vocabulary import PAPER_FILE_DEFAULTS

REAL = Path("/work/shared/data/atlas_physlite_rntuple_100ev.root")  # as benchmarks/compare_physlite.py


def describe(path: Path, name: str) -> tuple[collections.Counter, dict[str, list[float]], int]:
    """(field kinds, per column type [columns, bytes on storage, bytes in memory], entries) of an RNTuple."""
    import ROOT

    reader = ROOT.RNTupleReader.Open(name, str(path))
    desc = reader.GetDescriptor()
    kinds = collections.Counter()
    for field in desc.GetTopLevelFields():
        n = str(field.GetFieldName())
        kinds[
            "aux variable (<Key>AuxDyn:<var>)"
            if "AuxDyn:" in n
            else "static aux store (<Key>Aux:)"
            if n.endswith("Aux:")
            else "interface object or other"
        ] += 1
    types: dict[str, list[float]] = collections.defaultdict(lambda: [0, 0, 0])
    seen = set()
    for column in desc.GetColumnIterable():
        if column.IsAliasColumn():
            continue
        kind = str(ROOT.ROOT.Internal.RColumnElementBase.GetColumnTypeName(column.GetType()))
        types[kind][0] += 1
        for cluster in desc.GetClusterIterable():
            physical = column.GetPhysicalId()
            if not cluster.ContainsColumn(physical):
                continue
            column_range = cluster.GetColumnRange(physical)
            if column_range.IsSuppressed():
                continue
            types[kind][2] += column_range.GetNElements() * column.GetBitsOnStorage() / 8
            for page in cluster.GetPageRange(physical).GetPageInfos():
                locator = page.GetLocator()
                if locator.GetType() != ROOT.ROOT.RNTupleLocator.kTypeFile:
                    continue  # zero pages are not stored
                position = locator.GetPosition["std::uint64_t"]()
                if position not in seen:
                    seen.add(position)
                    types[kind][1] += locator.GetNBytesOnStorage()
    return kinds, dict(types), int(desc.GetNEntries())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--format", default="xaod", choices=sorted(PAPER_FILE_DEFAULTS))
    parser.add_argument("--events", type=int, default=100)
    parser.add_argument("--real", type=Path, default=REAL)
    parser.add_argument("--build", type=Path, default=Path(paths.BUILD))
    args = parser.parse_args()
    tools = ensure_built(args.build)
    ours = scratch_file(
        args.format,
        args.events,
        tools,
        tempfile.mkdtemp(prefix="rootparams-layout-"),
        container="rntuple",
        algorithm="zstd",
        level=5,
        autoflush=100,
    )
    files = {
        f"ours ({args.format}, synthetic)": (ours, "CollectionTree"),
        "real PHYSLITE (Athena)": (args.real, "EventData"),
    }
    described = {label: describe(path, name) for label, (path, name) in files.items()}
    print("| top-level fields | " + " | ".join(described) + " |\n|---|" + "---|" * len(described))
    for kind in sorted({k for kinds, _, _ in described.values() for k in kinds}):
        print(
            f"| {kind} | " + " | ".join(str(kinds.get(kind, 0)) for kinds, _, _ in described.values()) + " |"
        )
    print()
    for label, (_, types, entries) in described.items():
        total = sum(t[1] for t in types.values())
        print(f"{label}: {entries} entries, {total / entries / 1e3:.1f} kB/event on storage")
        print("| column type | columns | kB on storage | compression (memory / storage) | share of bytes |")
        print("|---|---|---|---|---|")
        for kind, (n, zipped, unzipped) in sorted(types.items(), key=lambda kv: -kv[1][1]):
            ratio = f"{unzipped / zipped:.2f}" if zipped else "-"
            print(f"| {kind} | {n} | {zipped / 1e3:.1f} | {ratio} | {zipped / total:.1%} |")
        print()


if __name__ == "__main__":
    main()
