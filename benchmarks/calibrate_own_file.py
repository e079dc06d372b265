"""Calibrate real files' profiles, write each clone at its real file's own settings, compare kind by kind.

    PYTHONPATH=src python benchmarks/calibrate_own_file.py --build /tmp/cal/build samples/ testdata/

Arguments are ROOT files or directories (their *.root files, sorted); a file whose bytes equal an earlier one's is
measured once. For each file: ``rootparams.calibrate.recipe_from_file`` (the file's TTree or RNTuple), then the
writer at the file's own settings, with as many events (``--events-factor`` times more):
- a TTree: its compression setting and AutoFlush, split level 99, each branch at the real branch's own basket size
  (``--basket 0``: the recipe's basket lines, measured so that the clone's first baskets hold as many entries as
  the real ones);
- an RNTuple: its compression setting, clusters of its events per cluster, pages of at most its largest page
  (uncompressed), written as an RNTuple (a flat one through ROOT's RNTupleImporter, as the real one was made).
Bytes are those of the event data: a TTree's data branches (TBranch::GetZipBytes/GetTotBytes of every branch holding
baskets, as benchmarks/compare_physlite.py counts them; the file's metadata trees are not part of the clone), an
RNTuple's fields (ROOT's RNTupleInspector: pages' compressed bytes, their elements' uncompressed bytes).

Kinds: compare_physlite's for xAOD files (RNTuple fields named as the TTree's branches: a static store's member
sub-fields are its units, as a split store's members are); for flat files float arrays, integer arrays, bool/flags
(bool scalars and arrays) and scalars (other leaves, counters included). Prints one Markdown table per file (real
and clone bytes per event, their difference, real and clone compression ratio, their difference), a summary line
per file with pass/fail against the targets (size per event within 15 %, whole-file compression ratio within 25 %),
and a summary table of all files. docs/formats.md ("Cloning a real file's profile") holds the output. Exit code 1
when a file misses a target. ``--without baskets|records|repetition`` leaves that part of the model out.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import ROOT

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare_physlite import Unit, classify

from rootparams.build import ensure_built
from rootparams.calibrate import is_flat, is_flat_ntuple, is_ntuple, open_tree, recipe_from_file
from rootparams.native import run_tool

SIZE_TARGET, RATIO_TARGET = 0.15, 0.25
FLAT_KINDS = ("float arrays", "integer arrays", "bool/flags", "scalars")
TOTAL = "**whole file**"


# ------------------------------------------------------------------------------------------------------------
# Files


def expand(paths: list[Path]) -> list[tuple[Path, Path | None]]:
    """(file, the earlier file with the same bytes or None), directories expanded to their *.root files."""
    files = []
    for p in paths:
        files += sorted(p.glob("*.root")) if p.is_dir() else [p]
    seen: dict[str, Path] = {}
    out = []
    for f in files:
        digest = hashlib.sha256(f.read_bytes()).hexdigest()
        out.append((f, seen.get(digest)))
        seen.setdefault(digest, f)
    return out


@dataclass
class Source:
    path: Path
    name: str  # the TTree's or the RNTuple's
    ntuple: bool
    flat: bool
    settings: dict


def source(path: Path) -> Source:
    obj, name = open_tree(path)
    if is_ntuple(obj):
        return Source(path, name, True, is_flat_ntuple(obj), ntuple_settings(path, name))
    return Source(path, name, False, is_flat(obj), tree_settings(path, name))


def tree_settings(path: Path, tree: str) -> dict:
    f = ROOT.TFile.Open(str(path))
    t = f.Get(tree)
    baskets = [b.GetBasketSize() for b in t.GetListOfBranches()]
    out = {
        "compression": f.GetCompressionSettings(),
        "autoflush": int(t.GetAutoFlush()),
        "entries": int(t.GetEntries()),
        "common_basket": max(set(baskets), key=baskets.count),
    }
    f.Close()
    return out


def inspector(path: Path, name: str):
    return ROOT.ROOT.Experimental.RNTupleInspector.Create(name, str(path))


def ntuple_settings(path: Path, name: str) -> dict:
    insp = inspector(path, name)
    desc = insp.GetDescriptor()
    entries = int(desc.GetNEntries())
    clusters = max(1, int(desc.GetNActiveClusters()))
    # The largest uncompressed page of the file: the writer's page limit (ROOT's default is 1 MiB).
    largest = 0
    for c in range(desc.GetNPhysicalColumns()):
        col = insp.GetColumnInspector(c)
        pages = max(1, int(col.GetNPages()))
        largest = max(largest, int(col.GetUncompressedSize()) // pages)
    return {
        "compression": int(insp.GetCompressionSettings().value()),
        "autoflush": -(-entries // clusters),  # events per cluster, rounded up
        "page_size": max(65536, 1 << (max(largest, 1) - 1).bit_length()),
        "entries": entries,
    }


# ------------------------------------------------------------------------------------------------------------
# Measuring


def flat_kind(type_name: str, array: bool) -> str:
    if type_name in ("Bool_t", "bool"):
        return "bool/flags"
    if not array:
        return "scalars"
    return "float arrays" if type_name in ("Float_t", "Double_t", "float", "double") else "integer arrays"


def tree_units(path: Path, tree: str, flat: bool) -> tuple[int, list[Unit]]:
    from compare_physlite import units_of

    f = ROOT.TFile.Open(str(path))
    t = f.Get(tree)
    entries = int(t.GetEntries())
    units = []
    for b in t.GetListOfBranches():
        for u in units_of(b, b.GetName(), entries):
            if flat:
                leaf = b.GetLeaf(b.GetName()) or b.GetListOfLeaves().At(0)
                u.kind = flat_kind(u.type, bool(leaf.GetLeafCount()) if leaf else False)
            else:
                u.kind = classify(u, b.GetClassName())
            units.append(u)
    f.Close()
    return entries, units


def ntuple_units(path: Path, name: str, flat: bool) -> tuple[int, list[Unit]]:
    """The RNTuple's fields as units: a top-level field with its sub-fields; a class field whose sub-fields hold
    its members (a static store, a record of values) one unit per member; a flat file's arrays one unit each (the
    items of its collections) and each collection's own offsets."""
    insp = inspector(path, name)
    desc = insp.GetDescriptor()
    entries = int(desc.GetNEntries())

    def own_bytes(field) -> tuple[int, int]:
        z = t = 0
        for cid in field.GetLogicalColumnIds():
            col = desc.GetColumnDescriptor(cid)
            if col.IsAliasColumn():
                continue
            ci = insp.GetColumnInspector(col.GetPhysicalId())
            z += int(ci.GetCompressedSize())
            t += int(ci.GetUncompressedSize())
        return z, t

    def tree_bytes(field) -> tuple[int, int]:
        fi = insp.GetFieldTreeInspector(field.GetId())
        return int(fi.GetCompressedSize()), int(fi.GetUncompressedSize())

    def children(field):
        return [f for f in desc.GetFieldIterable(field.GetId())]

    units = []
    for top in desc.GetTopLevelFields():
        if top.IsProjectedField():
            continue
        fname, ftype = str(top.GetFieldName()), normal(str(top.GetTypeName()))
        if flat:
            if fname.startswith("_collection"):
                z, t = own_bytes(top)
                units.append(Unit(fname, fname, "UInt_t", z, t, entries, kind="scalars"))
                for record in children(top):
                    for item in children(record):
                        z, t = tree_bytes(item)
                        itype = normal(str(item.GetTypeName()))
                        units.append(
                            Unit(
                                str(item.GetFieldName()),
                                fname,
                                itype,
                                z,
                                t,
                                entries,
                                kind=flat_kind(itype, True),
                            )
                        )
            else:
                z, t = tree_bytes(top)
                units.append(Unit(fname, fname, ftype, z, t, entries, kind=flat_kind(ftype, False)))
            continue
        tname = fname.replace(":", ".")  # named as the TTree's branches, for the kinds
        members = [
            c for c in children(top) if tree_bytes(c)[1] and not str(c.GetFieldName()).startswith(":_")
        ]
        if re.search(r"Aux:$", fname) or (members and not ftype.startswith(("vector<", "DataVector<"))):
            for m in members:
                z, t = tree_bytes(m)
                u = Unit(f"{tname}{m.GetFieldName()}", tname, normal(str(m.GetTypeName())), z, t, entries)
                u.kind = classify(u, ftype)
                units.append(u)
            z, t = own_bytes(top)
            if t:
                units.append(
                    Unit(
                        tname,
                        tname,
                        "object",
                        z,
                        t,
                        entries,
                        kind=classify(Unit(tname, tname, "object", z, t, entries), ftype),
                    )
                )
            continue
        z, t = tree_bytes(top)
        u = Unit(tname, tname, ftype, z, t, entries)
        u.kind = classify(u, ftype)
        units.append(u)
    return entries, units


def normal(type_name: str) -> str:
    """A type name as the kinds expect it: no std::, no spaces, RVec as vector, fixed-width ints kept."""
    t = type_name.replace("std::", "").replace("ROOT::VecOps::RVec<", "vector<").replace(" ", "")
    return t


def measure(path: Path, src: Source, ntuple: bool) -> tuple[int, list[Unit]]:
    return ntuple_units(path, src.name, src.flat) if ntuple else tree_units(path, src.name, src.flat)


# ------------------------------------------------------------------------------------------------------------
# Comparing


def agreement(real: tuple[int, list[Unit]], clone: tuple[int, list[Unit]], kinds) -> tuple[list[str], dict]:
    """The per-kind Markdown table and, per kind, (size diff, ratio diff, share of the real bytes)."""
    (nr, ur), (nc, uc) = real, clone
    lines = [
        "| kind of data | real B/event | clone B/event | diff | real ratio | clone ratio | diff |",
        "|---|---|---|---|---|---|---|",
    ]
    out = {}
    total = sum(u.zip_bytes for u in ur)
    for kind in (*kinds, None):
        sel_r = [u for u in ur if kind is None or u.kind == kind]
        sel_c = [u for u in uc if kind is None or u.kind == kind]
        zr, tr = sum(u.zip_bytes for u in sel_r), sum(u.tot_bytes for u in sel_r)
        zc, tc = sum(u.zip_bytes for u in sel_c), sum(u.tot_bytes for u in sel_c)
        if not zr and not zc:
            continue
        size = zc / nc / (zr / nr) - 1 if zr else float("inf")
        ratio = (tc / zc) / (tr / zr) - 1 if zr and zc else float("inf")
        share = zr / total if total else 0.0
        label = TOTAL if kind is None else kind + ("" if share >= 0.05 else " (< 5 % of bytes)")
        out[TOTAL if kind is None else kind] = (size, ratio, share)
        bold = "**" if kind is None else ""
        lines.append(
            f"| {label} | {bold}{zr / nr:,.0f}{bold} | {bold}{zc / nc:,.0f}{bold} | {size:+.0%} | "
            f"{tr / max(zr, 1):.2f} | {tc / max(zc, 1):.2f} | {ratio:+.0%} |"
        )
    return lines, out


def verdict(rows: dict) -> tuple[bool, str]:
    size, ratio, _ = rows[TOTAL]
    ok = abs(size) <= SIZE_TARGET and abs(ratio) <= RATIO_TARGET
    return ok, "pass" if ok else "FAIL"


# ------------------------------------------------------------------------------------------------------------
# Writing


# Parts of the model a run can leave out (--without), to see what each contributes.
WITHOUT = {
    "baskets": "every branch at the real file's most common basket size instead of each branch's own",
    "records": "no framing records: members of unsplit stores written as split attributes, framed objects as the "
    "writer's own classes",
    "repetition": "no reuse or order lines (elements drawn independently, vectors unsorted)",
}


def strip(recipe_text: str, without: set[str]) -> str:
    lines = recipe_text.splitlines()
    if "records" in without:
        lines = [
            ("dyn " + ln[7:]) if ln.startswith("member ") else ln
            for ln in lines
            if not ln.startswith("record ")
        ]
    if "repetition" in without:
        lines = [ln for ln in lines if not ln.startswith(("reuse ", "order "))]
    return "\n".join(lines) + "\n"


def write_clone(
    src: Source, tools, out_dir: Path, factor: int, seed: int, without: set[str] = frozenset()
) -> tuple[Path, str]:
    recipe_text = strip(recipe_from_file(src.path, src.name), without)
    stem = src.path.name.removesuffix(".root")
    recipe = out_dir / f"{stem}.recipe"
    recipe.write_text(recipe_text)
    s = src.settings
    clone = out_dir / f"{stem}_clone.root"
    cmd = [
        tools.writer,
        "--recipe",
        str(recipe),
        "--output",
        str(clone),
        "--events",
        str(s["entries"] * factor),
        "--compression",
        str(s["compression"]),
        "--autoflush",
        str(s["autoflush"] * (factor if src.ntuple else 1)),
        "--seed",
        str(seed),
        "--tree",
        src.name,
    ]
    if src.ntuple:
        cmd += ["--container", "rntuple", "--page-size", str(s["page_size"])]
    else:
        basket = s["common_basket"] if "baskets" in without else 0
        cmd += ["--split", "99", "--basket", str(basket)]
    run_tool(cmd, f"writing the clone of {src.path}")
    return clone, recipe_text


def rewritten(src: Source, tools, out_dir: Path) -> Path:
    """ROOT's own rewrite of a TTree at the same compression (CloneTree re-streams every entry)."""
    out = out_dir / f"{src.path.name.removesuffix('.root')}_root_rewrite.root"
    run_tool(
        [
            tools.writer,
            "--clone-from",
            str(src.path),
            "--tree",
            src.name,
            "--output",
            str(out),
            "--compression",
            str(src.settings["compression"]),
        ],
        f"rewriting {src.path}",
    )
    return out


def settings_text(src: Source, clone_events: int) -> str:
    s = src.settings
    if src.ntuple:
        return (
            f"RNTuple `{src.name}`, clone of {clone_events} events at compression {s['compression']}, clusters of "
            f"{s['autoflush']} events, pages up to {s['page_size']:,} B"
        )
    return (
        f"TTree `{src.name}`, clone of {clone_events} events at compression {s['compression']}, AutoFlush "
        f"{s['autoflush']}, split 99, each branch at the real branch's basket size"
    )


def compare(
    src: Source, tools, out_dir: Path, factor: int, seed: int, without: set[str] = frozenset()
) -> tuple[list[str], dict]:
    clone, text = write_clone(src, tools, out_dir, factor, seed, without)
    real_file, note = src.path, ""
    if not src.ntuple:
        real = measure(real_file, src, False)
        if sum(1 for u in real[1] if not u.tot_bytes) > 0.2 * len(real[1]):
            # Baskets kept inside the TTree object (never flushed: AutoFlush 0 and few events, as the CMS NanoAOD
            # sample): no branch counts bytes. ROOT's own rewrite at the same settings stands in for it.
            real_file = rewritten(src, tools, out_dir)
            real = measure(real_file, src, False)
            note = (
                f"The real file keeps its baskets inside the TTree object ({src.path.stat().st_size / real[0]:,.0f} "
                f"B/event on disk, no per-basket keys), so its columns are those of ROOT's own rewrite at the same "
                f"settings (CloneTree, {real_file.stat().st_size / real[0]:,.0f} B/event on disk).\n"
            )
    else:
        real = measure(real_file, src, True)
    synthetic = measure(clone, src, src.ntuple)
    kinds = FLAT_KINDS if src.flat else tuple(sorted({u.kind for u in real[1] if u.zip_bytes}))
    lines, rows = agreement(real, synthetic, kinds)
    ok, word = verdict(rows)
    size, ratio, _ = rows[TOTAL]
    nr, nc = real[0], synthetic[0]
    zr = sum(u.zip_bytes for u in real[1]) / nr
    zc = sum(u.zip_bytes for u in synthetic[1]) / nc
    rr = sum(u.tot_bytes for u in real[1]) / max(1, sum(u.zip_bytes for u in real[1]))
    rc = sum(u.tot_bytes for u in synthetic[1]) / max(1, sum(u.zip_bytes for u in synthetic[1]))
    summary = {
        "file": src.path.name,
        "container": "RNTuple" if src.ntuple else "TTree",
        "layout": "flat" if src.flat else "xAOD",
        "events": nr,
        "compression": src.settings["compression"],
        "real": zr,
        "clone": zc,
        "size": size,
        "real_ratio": rr,
        "clone_ratio": rc,
        "ratio": ratio,
        "ok": ok,
        "rows": rows,
        "opaque": text.count("# opaque"),
    }
    out = [f"### {src.path.name}: {settings_text(src, nc)}", "", *lines, ""]
    if note:
        out += [note]
    out.append(
        f"**{src.path.name}: {word}** — size {zc:,.0f} against {zr:,.0f} B/event ({size:+.1%}, target ±15 %), "
        f"compression ratio {rc:.2f} against {rr:.2f} ({ratio:+.1%}, target ±25 %)."
    )
    out.append("")
    return out, summary


def summary_table(summaries: list[dict]) -> list[str]:
    lines = [
        "| file | container | events | setting | real B/event | clone B/event | size | real ratio | clone ratio | "
        "ratio | result |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for s in summaries:
        lines.append(
            f"| {s['file']} | {s['container']} ({s['layout']}) | {s['events']} | {s['compression']} | {s['real']:,.0f} | "
            f"{s['clone']:,.0f} | {s['size']:+.1%} | {s['real_ratio']:.2f} | {s['clone_ratio']:.2f} | "
            f"{s['ratio']:+.1%} | {'pass' if s['ok'] else '**FAIL**'} |"
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="+", type=Path, help="ROOT files, or directories of them")
    parser.add_argument("--build", type=Path, required=True, help="built C++ tools (built here if missing)")
    parser.add_argument(
        "--out", type=Path, default=None, help="where recipes and clones go (default: a temp dir)"
    )
    parser.add_argument("--events-factor", type=int, default=1, help="clone events = real events x this")
    parser.add_argument("--seed", type=int, default=20200326)
    parser.add_argument(
        "--without",
        action="append",
        default=[],
        choices=sorted(WITHOUT),
        help="leave a part of the model out: " + "; ".join(f"{k}: {v}" for k, v in WITHOUT.items()),
    )
    args = parser.parse_args()
    tools = ensure_built(args.build.resolve())
    ROOT.gErrorIgnoreLevel = ROOT.kError  # the real file's xAOD classes have no dictionary: expected warnings
    ROOT.gSystem.Load(tools.library)
    out_dir = args.out or Path(tempfile.mkdtemp(prefix="calibrate-"))
    out_dir.mkdir(parents=True, exist_ok=True)
    print(f"Measured {datetime.date.today().isoformat()} with ROOT {ROOT.gROOT.GetVersion()}.\n")
    for part in args.without:
        print(f"Without {part}: {WITHOUT[part]}.\n")
    summaries = []
    for path, same in expand(args.paths):
        if same is not None:
            print(f"{path.name}: the same bytes as {same.name} (measured once).\n")
            continue
        lines, summary = compare(
            source(path), tools, out_dir, args.events_factor, args.seed, set(args.without)
        )
        print("\n".join(lines))
        summaries.append(summary)
    print("### Summary\n")
    print("\n".join(summary_table(summaries)))
    return 0 if all(s["ok"] for s in summaries) else 1


if __name__ == "__main__":
    sys.exit(main())
