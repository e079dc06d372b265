"""Calibrate real files' profiles, write each clone at its real file's own settings, compare kind by kind.

    PYTHONPATH=src python benchmarks/calibrate_own_file.py --build /tmp/cal/build samples/ testdata/
    PYTHONPATH=src python benchmarks/calibrate_own_file.py --build /tmp/cal/build --rntuple FILE[:TREE] ...

Arguments are ROOT files or directories (their *.root files, sorted), a file optionally followed by ``:TREE`` for a
file of several trees; a file whose bytes equal an earlier one's is measured once. For each file: ``rootparams.ownfile.calibrate.recipe_from_file`` (the file's TTree or RNTuple), then the
writer at the file's own settings, with as many events (``--events-factor`` times more):
- a TTree: its compression setting and AutoFlush, split level 99, each branch at the real branch's own basket size
  (``--basket 0``: the recipe's basket lines, measured so that the clone's first baskets hold as many entries as
  the real ones);
- an RNTuple: its compression setting, clusters of its events per cluster, pages of at most its largest page
  (uncompressed), written as an RNTuple (a flat one through ROOT's RNTupleImporter, as the real one was made).
Bytes are those of the event data: a TTree's data branches (TBranch::GetZipBytes/GetTotBytes of every branch holding
baskets, as benchmarks/compare_physlite.py counts them; the file's metadata trees are not part of the clone), an
RNTuple's fields (ROOT's RNTupleInspector: pages' compressed bytes, their elements' uncompressed bytes). A TTree that
keeps baskets inside the TTree object (never flushed: the CMS NanoAOD sample, ALICE's analysis trees) counts them in
no branch; such a file, and its clone with it, is compared through ROOT's own rewrite of each at the same setting
(CloneTree, every basket written), so that both count every entry.

Kinds (rootparams.ownfile.contentkinds): ATLAS's grouping for xAOD files (compare_physlite's ROOT-based units; RNTuple fields
named as the TTree's branches: a static store's member sub-fields are its units, as a split store's members are); by
leaf type for every other file (compare_physlite.leaf_units_of for a TTree, rootparams inspect's units for an
RNTuple). Prints one Markdown table per file (real and clone bytes per event, their difference, real and clone
compression ratio, their difference), a summary line per file with pass/fail against the targets
(rootparams.ownfile.calibrate.SIZE_TARGET and RATIO_TARGET: size per event within 15 %, whole-file compression ratio within
25 %) and the sentence rootparams.ownfile.calibrate.clone_fidelity gives, and a summary table of all files. With
``--rntuple`` each TTree's clone is also written as an RNTuple (its size per event is printed; there is no real
RNTuple to compare it with). docs/formats.md ("Cloning a real file's profile") holds the output. Exit code 1 when a
file misses a target. ``--without baskets|records|repetition`` leaves that part of the model out.
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
from compare_physlite import Unit, classify, leaf_units_of

from rootparams.errors import UserError
from rootparams.ownfile.calibrate import clone_fidelity, is_ntuple, open_tree, recipe_from_file
from rootparams.ownfile.contentkinds import KINDS_BY_GROUPING, XAOD
from rootparams.ownfile.inspection import inspect_file
from rootparams.tools.build import ensure_built
from rootparams.tools.processes import run_tool

TOTAL = "**whole file**"


# ------------------------------------------------------------------------------------------------------------
# Files


def expand(paths: list[str]) -> list[tuple[Path, str | None, Path | None]]:
    """(file, its tree or None, the earlier file with the same bytes or None), directories expanded to their *.root
    files; ``FILE:TREE`` names the tree."""
    files: list[tuple[Path, str | None]] = []
    for arg in paths:
        path, _, tree = arg.partition(":") if not Path(arg).exists() else (arg, "", "")
        p = Path(path)
        files += [(f, None) for f in sorted(p.glob("*.root"))] if p.is_dir() else [(p, tree or None)]
    seen: dict[str, Path] = {}
    out = []
    for f, tree in files:
        digest = hashlib.sha256(f.read_bytes()).hexdigest() + (tree or "")
        out.append((f, tree, seen.get(digest)))
        seen.setdefault(digest, f)
    return out


@dataclass
class Source:
    path: Path
    name: str  # the TTree's or the RNTuple's
    ntuple: bool
    grouping: str  # of its kinds (rootparams.ownfile.contentkinds): XAOD or BY_LEAF
    layout: str  # rootparams inspect's: xAOD, flat or objects
    settings: dict


def source(path: Path, tree: str | None = None) -> Source:
    obj, name = open_tree(path, tree)
    ins = inspect_file(str(path), name)
    ntuple = is_ntuple(obj)
    settings = ntuple_settings(path, name) if ntuple else tree_settings(path, name)
    return Source(path, name, ntuple, ins.grouping, ins.layout, settings)


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


def tree_units(path: Path, tree: str, grouping: str) -> tuple[int, list[Unit]]:
    from compare_physlite import units_of

    f = ROOT.TFile.Open(str(path))
    t = f.Get(tree)
    entries = int(t.GetEntries())
    units = []
    for b in t.GetListOfBranches():
        if grouping != XAOD:
            units += leaf_units_of(b, b.GetName(), entries)
            continue
        for u in units_of(b, b.GetName(), entries):
            u.kind = classify(u, b.GetClassName())
            units.append(u)
    f.Close()
    return entries, units


def inspected_units(path: Path, name: str) -> tuple[int, list[Unit]]:
    """An RNTuple's bytes per kind by leaf type, as rootparams inspect counts them (RNTupleInspector's bytes, checked
    in tests/test_inspect.py): one unit per kind."""
    ins = inspect_file(str(path), name)
    return ins.entries, [
        Unit(k.kind, k.kind, "", k.compressed, k.uncompressed, ins.entries, kind=k.kind) for k in ins.kinds
    ]


def ntuple_units(path: Path, name: str) -> tuple[int, list[Unit]]:
    """An xAOD RNTuple's fields as units: a top-level field with its sub-fields; a class field whose sub-fields
    hold its members (a static store, a record of values) one unit per member."""
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
    if not ntuple:
        return tree_units(path, src.name, src.grouping)
    return ntuple_units(path, src.name) if src.grouping == XAOD else inspected_units(path, src.name)


def kinds_of(src: Source, real: tuple[int, list[Unit]]) -> tuple[str, ...]:
    """The kinds a table lists: the real file's, in the grouping's order (xAOD: alphabetical, as before)."""
    held = {u.kind for u in real[1] if u.zip_bytes}
    if src.grouping == XAOD:
        return tuple(sorted(held))
    return tuple(k for k in KINDS_BY_GROUPING[src.grouping] if k in held)


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


def per_event_kinds(measured: tuple[int, list[Unit]]) -> dict[str, tuple[float, float]]:
    """kind -> (compressed, uncompressed) bytes per event."""
    n, units = measured
    out: dict[str, tuple[float, float]] = {}
    for u in units:
        z, t = out.get(u.kind, (0.0, 0.0))
        out[u.kind] = (z + u.zip_bytes / n, t + u.tot_bytes / n)
    return out


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
    src: Source,
    tools,
    out_dir: Path,
    factor: int,
    seed: int,
    without: set[str] = frozenset(),
    container: str | None = None,
) -> tuple[Path, str]:
    """The clone of ``src`` at its own settings, as its own container or as ``container`` ("rntuple": a TTree's
    clone written as an RNTuple, clusters as its AutoFlush, pages of ROOT's default 1 MiB at most)."""
    recipe_text = strip(recipe_from_file(src.path, src.name), without)
    stem = src.path.name.removesuffix(".root") + (f"_{src.name}" if src.name not in src.path.name else "")
    recipe = out_dir / f"{stem}.recipe"
    recipe.write_text(recipe_text)
    s = src.settings
    ntuple = src.ntuple or container == "rntuple"
    clone = out_dir / f"{stem}_clone{'_rntuple' if ntuple and not src.ntuple else ''}.root"
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
    if ntuple:
        cmd += ["--container", "rntuple", "--page-size", str(s.get("page_size", 1 << 20))]
    else:
        basket = s["common_basket"] if "baskets" in without else 0
        cmd += ["--split", "99", "--basket", str(basket)]
    run_tool(cmd, f"writing the clone of {src.path}")
    return clone, recipe_text


def rewritten(path: Path, src: Source, tools, out_dir: Path) -> Path:
    """ROOT's own rewrite of a TTree at the source's compression (CloneTree re-streams every entry and writes every
    basket)."""
    out = out_dir / f"{path.name.removesuffix('.root')}_root_rewrite.root"
    run_tool(
        [
            tools.writer,
            "--clone-from",
            str(path),
            "--tree",
            src.name,
            "--output",
            str(out),
            "--compression",
            str(src.settings["compression"]),
        ],
        f"rewriting {path}",
    )
    return out


def kept_in_tree_object(path: Path, src: Source) -> float:
    """The share of a TTree's uncompressed bytes in baskets kept inside the TTree object (never flushed)."""
    ins = inspect_file(str(path), src.name)
    return ins.in_tree_object / max(1, ins.in_tree_object + ins.uncompressed)


def settings_text(src: Source, clone_events: int) -> str:
    s = src.settings
    if src.ntuple:
        return (
            f"RNTuple `{src.name}` ({src.layout}), clone of {clone_events} events at compression {s['compression']}, "
            f"clusters of {s['autoflush']} events, pages up to {s['page_size']:,} B"
        )
    return (
        f"TTree `{src.name}` ({src.layout}), clone of {clone_events} events at compression {s['compression']}, "
        f"AutoFlush {s['autoflush']}, split 99, each branch at the real branch's basket size"
    )


def compare(
    src: Source,
    tools,
    out_dir: Path,
    factor: int,
    seed: int,
    without: set[str] = frozenset(),
    also_rntuple: bool = False,
) -> tuple[list[str], dict]:
    clone, text = write_clone(src, tools, out_dir, factor, seed, without)
    real_file, clone_file, note = src.path, clone, ""
    if not src.ntuple:
        kept = max(kept_in_tree_object(src.path, src), kept_in_tree_object(clone, src))
        if kept > 0.01:
            # Baskets kept inside the TTree object (never flushed) count in no branch: ROOT's own rewrite of the
            # real file and of its clone at the same setting (every basket written) stand in for both.
            real_file = rewritten(src.path, src, tools, out_dir)
            clone_file = rewritten(clone, src, tools, out_dir)
            entries = src.settings["entries"]
            note = (
                f"The real file keeps {kept:.0%} of its bytes in baskets inside the TTree object (never flushed; "
                f"{src.path.stat().st_size / entries:,.0f} B/event on disk), so both it and its clone are compared "
                f"through ROOT's own rewrite of each at the same setting (CloneTree, every basket written; the real "
                f"file's: {real_file.stat().st_size / entries:,.0f} B/event on disk).\n"
            )
    real = measure(real_file, src, src.ntuple)
    synthetic = measure(clone_file, src, src.ntuple)
    lines, rows = agreement(real, synthetic, kinds_of(src, real))
    size, ratio, _ = rows[TOTAL]
    nr, nc = real[0], synthetic[0]
    zr = sum(u.zip_bytes for u in real[1]) / nr
    zc = sum(u.zip_bytes for u in synthetic[1]) / nc
    rr = sum(u.tot_bytes for u in real[1]) / max(1, sum(u.zip_bytes for u in real[1]))
    rc = sum(u.tot_bytes for u in synthetic[1]) / max(1, sum(u.zip_bytes for u in synthetic[1]))
    fidelity = clone_fidelity(zr, rr, zc, rc, per_event_kinds(real), per_event_kinds(synthetic))
    summary = {
        "file": src.path.name,
        "container": "RNTuple" if src.ntuple else "TTree",
        "layout": src.layout,
        "events": nr,
        "compression": src.settings["compression"],
        "real": zr,
        "clone": zc,
        "size": size,
        "real_ratio": rr,
        "clone_ratio": rc,
        "ratio": ratio,
        "ok": fidelity.ok,
        "rows": rows,
        "opaque": text.count("# opaque"),
    }
    out = [f"### {src.path.name}: {settings_text(src, nc)}", "", *lines, ""]
    if note:
        out += [note]
    word = "pass" if fidelity.ok else "FAIL"
    out.append(
        f"**{src.path.name}: {word}** — size {zc:,.0f} against {zr:,.0f} B/event ({size:+.1%}, target ±15 %), "
        f"compression ratio {rc:.2f} against {rr:.2f} ({ratio:+.1%}, target ±25 %). {fidelity.text()}"
    )
    if also_rntuple and not src.ntuple:
        as_ntuple, _ = write_clone(src, tools, out_dir, factor, seed, without, container="rntuple")
        ins = inspect_file(str(as_ntuple), src.name)
        out.append(
            f"\nThe same clone written as an RNTuple ({ins.layout_text}, {ins.top_level} top-level fields): "
            f"{ins.compressed / ins.entries:,.0f} B/event, ratio {ins.ratio:.2f}."
        )
        summary["rntuple"] = ins.compressed / ins.entries
    out.append("")
    return out, summary


def summary_table(summaries: list[dict]) -> list[str]:
    """One row per file; with --rntuple, the TTree clones written as RNTuples too (their own bytes per event)."""
    ntuple = any("rntuple" in s for s in summaries)
    lines = [
        "| file | container | events | setting | real B/event | clone B/event | size | real ratio | clone ratio | "
        "ratio | result |" + (" clone as RNTuple B/event |" if ntuple else ""),
        "|---|---|---|---|---|---|---|---|---|---|---|" + ("---|" if ntuple else ""),
    ]
    for s in summaries:
        row = (
            f"| {s['file']} | {s['container']} ({s['layout']}) | {s['events']} | {s['compression']} | "
            f"{s['real']:,.0f} | {s['clone']:,.0f} | {s['size']:+.1%} | {s['real_ratio']:.2f} | "
            f"{s['clone_ratio']:.2f} | {s['ratio']:+.1%} | {'pass' if s['ok'] else '**FAIL**'} |"
        )
        if ntuple:
            row += f" {s['rntuple']:,.0f} |" if "rntuple" in s else " - |"
        lines.append(row)
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="+", help="ROOT files (FILE or FILE:TREE), or directories of them")
    parser.add_argument("--build", type=Path, required=True, help="built C++ tools (built here if missing)")
    parser.add_argument(
        "--out", type=Path, default=None, help="where recipes and clones go (default: a temp dir)"
    )
    parser.add_argument("--events-factor", type=int, default=1, help="clone events = real events x this")
    parser.add_argument("--seed", type=int, default=20200326)
    parser.add_argument(
        "--rntuple",
        action="store_true",
        help="also write each TTree's clone as an RNTuple (its size is printed)",
    )
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
    summaries, failed = [], []
    for path, tree, same in expand(args.paths):
        if same is not None:
            print(f"{path.name}: the same bytes as {same.name} (measured once).\n")
            continue
        try:
            lines, summary = compare(
                source(path, tree),
                tools,
                out_dir,
                args.events_factor,
                args.seed,
                set(args.without),
                args.rntuple,
            )
        except (
            UserError
        ) as error:  # a file that cannot be read, calibrated or written: said, and the next one
            print(f"**{path.name}{':' + tree if tree else ''}: not compared** — {error}\n")
            failed.append(path.name)
            continue
        print("\n".join(lines))
        summaries.append(summary)
    print("### Summary\n")
    print("\n".join(summary_table(summaries)))
    if failed:
        print(f"\nNot compared: {', '.join(failed)} (above).")
    return 0 if all(s["ok"] for s in summaries) and not failed else 1


if __name__ == "__main__":
    sys.exit(main())
