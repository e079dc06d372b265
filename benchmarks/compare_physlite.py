"""Compare the synthetic formats with the real ATLAS DAOD_PHYSLITE sample, kind of data by kind of data.

    /work/main/.venv/bin/python benchmarks/compare_physlite.py --build /tmp/physlite-cmp/build

Measures shared/data/atlas_physlite_run2_ttbar_100ev.root with ROOT (TBranch::GetZipBytes/GetTotBytes) and
writes one file per synthetic format (ZLIB-5, the format's paper default AutoFlush and split level, seed
20200326) to measure it the same way. Every branch that holds data (a top-level branch, or each sub-branch
of a split object) is a unit; units are classified into kinds (rootparams.ownfile.contentkinds, the grouping
``rootparams inspect`` shows too). Element counts of
vector<float>/vector<double> units come from uproot; they separate dense from low-multiplicity vectors and
give the framing per entry, (uncompressed bytes - payload) / entries. Prints Markdown tables; docs/formats.md
("Against the real PHYSLITE sample") holds its output. Builds the C++ tools if missing or older than their
sources (~30 s); the whole run takes about a minute.
"""

from __future__ import annotations

import argparse
import re
import statistics
from pathlib import Path

import awkward as ak
import ROOT
import uproot

from rootparams.measure.generate import scratch_file
from rootparams.ownfile.contentkinds import (
    FLOAT_VECTOR,
    XAOD_KINDS,
    Unit,
    classify,
    container_of,
    holds_array,
    leaf_kind,
    own_bytes_type,
)
from rootparams.tools.build import ensure_built
from rootparams.vocabulary import PAPER_FILE_DEFAULTS

REAL_FILE = Path("/work/shared/data/atlas_physlite_run2_ttbar_100ev.root")
SYNTHETIC = {"truth3": 2000, "susy5": 300, "topq1": 100, "xaod": 20}  # format -> events
# xAOD element classes that derive from xAOD::IParticle: the real file's particle containers.
REAL_PARTICLE_CLASSES = re.compile(
    r"DataVector<xAOD::(Electron|Photon|Muon|TauJet|Jet|TrackParticle|CaloCluster|TruthParticle|Egamma)_v\d+>"
)
# Not IParticle, but often counted with the physics objects: vertices, truth vertices/events, b-tagging.
BROAD_EXTRA = re.compile(r"(Vertex|TruthEvent|BTagging)(Container)?_v\d+")


def units_of(branch, top: str, entries: int) -> list[Unit]:
    subs = list(branch.GetListOfBranches())
    if not subs:
        type_name = branch.GetTypeName() if branch.InheritsFrom("TBranchElement") else ""
        if not type_name:
            leaf = branch.GetListOfLeaves().At(0)
            type_name = leaf.GetTypeName() if leaf else "?"
        return [
            Unit(branch.GetName(), top, type_name, branch.GetZipBytes(""), branch.GetTotBytes(""), entries)
        ]
    own = Unit(branch.GetName(), top, "object", branch.GetZipBytes(""), branch.GetTotBytes(""), entries)
    out = [own] if own.tot_bytes else []
    for sub in subs:
        out += units_of(sub, top, entries)
    return out


def leaf_units_of(branch, top: str, entries: int) -> list[Unit]:
    """ROOT's view of a branch's units in the grouping by leaf type, kinds set (rootparams.ownfile.contentkinds.leaf_kind):
    a leaf branch's type (TBranchElement::GetTypeName, else its leaf's TLeaf::GetTypeName, "char*" for a C string)
    and whether it holds several values per entry; a split branch's own bytes (a TClonesArray's counts)."""
    element = bool(branch.InheritsFrom("TBranchElement"))
    subs = list(branch.GetListOfBranches())
    if not subs:
        leaf = branch.GetListOfLeaves().At(0)
        type_name = branch.GetTypeName() if element else ""
        if not type_name:
            type_name = (
                "char*"
                if leaf and leaf.IsA().GetName() == "TLeafC"
                else (leaf.GetTypeName() if leaf else "?")
            )
        unit = Unit(branch.GetName(), top, type_name, branch.GetZipBytes(""), branch.GetTotBytes(""), entries)
        unit.array = holds_array(
            branch.GetType() if element else None,
            branch.GetStreamerType() if element else None,
            bool(leaf and leaf.GetLeafCount()),
            leaf.GetLenStatic() if leaf else 1,
        )
        unit.kind = leaf_kind(unit)
        return [unit]
    own_type = own_bytes_type(branch.GetType() if element else None)
    own = Unit(branch.GetName(), top, own_type, branch.GetZipBytes(""), branch.GetTotBytes(""), entries)
    own.kind = leaf_kind(own)
    out = [own]  # kept with no bytes too: its baskets may be inside the TTree object
    for sub in subs:
        out += leaf_units_of(sub, top, entries)
    return out


def count_elements(path: Path, units: list[Unit]) -> None:
    """Element counts of the vector<float>/vector<double> units, read with uproot."""
    tree = uproot.open(path)["CollectionTree"]
    for unit in units:
        if unit.type in FLOAT_VECTOR and unit.tot_bytes:
            try:
                unit.elements = int(ak.sum(ak.num(tree[unit.name].array(library="ak"), axis=1)))
            except Exception:
                unit.elements = None


def measure(path: Path, particle_container) -> dict:
    """Per-unit bytes and kinds of one file; ``particle_container(name, class)`` says what is a particle."""
    f = ROOT.TFile.Open(str(path))
    tree = f.Get("CollectionTree")
    entries = int(tree.GetEntries())
    tops = list(tree.GetListOfBranches())
    classes = {b.GetName(): b.GetClassName() for b in tops}
    units = [u for b in tops for u in units_of(b, b.GetName(), entries)]
    f.Close()
    count_elements(path, units)
    for unit in units:
        unit.kind = classify(unit, classes[unit.top])
    interfaces = {n: c for n, c in classes.items() if "Aux" not in n}
    particles = {n for n, c in interfaces.items() if particle_container(n, c)}
    broad = particles | {n for n, c in interfaces.items() if BROAD_EXTRA.search(c)}
    return {
        "path": path,
        "entries": entries,
        "top_level": len(tops),
        "units": units,
        "particle_zip": sum(u.zip_bytes for u in units if container_of(u.top) in particles),
        "broad_zip": sum(u.zip_bytes for u in units if container_of(u.top) in broad),
        "particle_containers": sorted(particles),
        "unknown_counts": sum(
            1 for u in units if u.type in FLOAT_VECTOR and u.tot_bytes and u.elements is None
        ),
    }


def real_particle(name: str, cls: str) -> bool:
    return bool(REAL_PARTICLE_CLASSES.fullmatch(cls))


def synthetic_particle(name: str, cls: str) -> bool:
    tclass = ROOT.TClass.GetClass(cls) if cls else None
    return bool(tclass) and tclass.InheritsFrom("xAODlike::IParticleContainer")


def framing(units: list[Unit], kinds: tuple[str, ...]) -> tuple[float, int] | None:
    """Median uncompressed bytes per entry beyond the 4-byte payload (vector<float> units of ``kinds``)."""
    values = [
        (u.tot_bytes - 4 * u.elements) / u.entries
        for u in units
        if u.type == "vector<float>" and u.kind in kinds and u.elements is not None and u.tot_bytes
    ]
    return (statistics.median(values), len(values)) if values else None


def generate(fmt: str, events: int, build: Path, out: Path) -> Path:
    return scratch_file(fmt, events, ensure_built(build), out, algorithm="zlib", level=5)


def kind_table(results: dict[str, dict], cell) -> list[str]:
    names = list(results)
    lines = ["| kind | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    for kind in XAOD_KINDS:
        lines.append(f"| {kind} | " + " | ".join(cell(results[n], kind) for n in names) + " |")
    return lines


def share_cell(result: dict, kind: str) -> str:
    total = sum(u.zip_bytes for u in result["units"])
    part = sum(u.zip_bytes for u in result["units"] if u.kind == kind)
    return f"{100 * part / total:.1f}%" if part else "-"


def ratio_cell(result: dict, kind: str) -> str:
    zipped = sum(u.zip_bytes for u in result["units"] if u.kind == kind)
    tot = sum(u.tot_bytes for u in result["units"] if u.kind == kind)
    return f"{tot / zipped:.2f}" if zipped else "-"


def count_cell(result: dict, kind: str) -> str:
    n = sum(1 for u in result["units"] if u.kind == kind and u.tot_bytes)
    return str(n) if n else "-"


def summary_table(results: dict[str, dict]) -> list[str]:
    names = list(results)
    rows = {
        "events": lambda r: str(r["entries"]),
        "compressed B/event": lambda r: f"{sum(u.zip_bytes for u in r['units']) / r['entries']:,.0f}",
        "uncompressed B/event": lambda r: f"{sum(u.tot_bytes for u in r['units']) / r['entries']:,.0f}",
        "compression ratio (all)": lambda r: (
            f"{sum(u.tot_bytes for u in r['units']) / sum(u.zip_bytes for u in r['units']):.2f}"
        ),
        "top-level branches": lambda r: str(r["top_level"]),
        "data branches (units)": lambda r: str(sum(1 for u in r["units"] if u.tot_bytes)),
        "particle share of compressed bytes": lambda r: (
            f"{100 * r['particle_zip'] / sum(u.zip_bytes for u in r['units']):.1f}%"
        ),
        "share incl. vertices, truth vertices/events, b-tagging": lambda r: (
            f"{100 * r['broad_zip'] / sum(u.zip_bytes for u in r['units']):.1f}%"
        ),
        "vector<float/double> branches uproot could not count": lambda r: str(r["unknown_counts"]),
        "framing B/entry, low-mult. vector<float> (median, n)": lambda r: _framing_cell(
            r, ("low-multiplicity vector<float/double>",)
        ),
        "framing B/entry, all vector<float> (median, n)": lambda r: _framing_cell(
            r, ("low-multiplicity vector<float/double>", "dense vector<float/double>")
        ),
    }
    lines = ["| quantity | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    lines += [f"| {label} | " + " | ".join(f(results[n]) for n in names) + " |" for label, f in rows.items()]
    return lines


def _framing_cell(result: dict, kinds: tuple[str, ...]) -> str:
    value = framing(result["units"], kinds)
    return f"{value[0]:.1f} ({value[1]})" if value else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", type=Path, required=True, help="built C++ tools (built here if missing)")
    parser.add_argument("--out", type=Path, default=None, help="where to write the synthetic files")
    parser.add_argument("--real", type=Path, default=REAL_FILE, help="the real PHYSLITE file")
    args = parser.parse_args()
    build = args.build.resolve()
    ensure_built(build)
    out = args.out or build.parent / "files"
    out.mkdir(parents=True, exist_ok=True)
    ROOT.gErrorIgnoreLevel = ROOT.kError  # the real file's xAOD classes have no dictionary: expected warnings
    ROOT.gSystem.Load(str(build / "lib" / "libRootparamsXaodClasses.so"))

    results = {"PHYSLITE (real)": measure(args.real, real_particle)}
    for fmt, events in SYNTHETIC.items():
        d = PAPER_FILE_DEFAULTS[fmt]
        label = f"{fmt} (split {d['split_level']})"
        results[label] = measure(generate(fmt, events, build, out), synthetic_particle)

    print("### Share of the compressed bytes per kind\n")
    print("\n".join(kind_table(results, share_cell)))
    print("\n### Compression ratio (uncompressed / compressed) per kind\n")
    print("\n".join(kind_table(results, ratio_cell)))
    print("\n### Data branches (units) per kind\n")
    print("\n".join(kind_table(results, count_cell)))
    print("\n### Whole file\n")
    print("\n".join(summary_table(results)))
    print(
        "\nParticle containers of the real file:",
        ", ".join(results["PHYSLITE (real)"]["particle_containers"]),
    )


if __name__ == "__main__":
    main()
