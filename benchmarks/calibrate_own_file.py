"""Calibrate a real file's profile, write its clone at the real file's own settings, compare kind by kind.

    PYTHONPATH=src /work/main/.venv/bin/python benchmarks/calibrate_own_file.py --build /tmp/cal/build \\
        /work/shared/data/atlas_physlite_run2_ttbar_100ev.root /work/shared/data/cms_nanoaod_2015_ttbar_200ev.root

For each file: ``rootparams.calibrate.recipe_from_file``, then the writer at the file's compression setting,
AutoFlush, the most common basket size and split level 99 (TTree; it has no effect on NanoAOD's leaf lists),
with as many events as the real file (``--events-factor`` more). Bytes are the tree's branch bytes
(TBranch::GetZipBytes/GetTotBytes over every data-holding branch, as benchmarks/compare_physlite.py counts
them; the file's metadata trees are not part of the clone). Kinds: compare_physlite's for xAOD files; for flat
files float arrays, integer arrays, bool/flags (bool scalars and arrays) and scalars (other leaves, counters
included). Prints one Markdown table per file; docs/formats.md ("Cloning a real file's profile") holds it.
"""

from __future__ import annotations

import argparse
import datetime
import sys
import tempfile
from pathlib import Path

import ROOT

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare_physlite import Unit, classify, units_of

from rootparams.build import ensure_built
from rootparams.calibrate import open_tree, recipe_from_file
from rootparams.native import run_tool

SIZE_TARGET, RATIO_TARGET = 0.15, 0.25
FLAT_KINDS = ("float arrays", "integer arrays", "bool/flags", "scalars")


def settings(path: Path, tree: str) -> dict:
    f = ROOT.TFile.Open(str(path))
    t = f.Get(tree)
    baskets = [b.GetBasketSize() for b in t.GetListOfBranches()]
    out = {
        "compression": f.GetCompressionSettings(),
        "autoflush": int(t.GetAutoFlush()),
        "basket": 0,  # each branch at the real file's own basket size (the recipe's basket lines)
        "split": 99,
        "entries": int(t.GetEntries()),
    }
    f.Close()
    return out


def flat_kind(unit: Unit) -> str:
    t = unit.type
    if t in ("Bool_t", "bool"):
        return "bool/flags"
    if not unit.array:
        return "scalars"
    return "float arrays" if t in ("Float_t", "Double_t") else "integer arrays"


def measure(path: Path, tree: str, flat: bool) -> tuple[int, list[Unit]]:
    f = ROOT.TFile.Open(str(path))
    t = f.Get(tree)
    entries = int(t.GetEntries())
    units = []
    for b in t.GetListOfBranches():
        for u in units_of(b, b.GetName(), entries):
            if flat:
                leaf = b.GetLeaf(b.GetName()) or b.GetListOfLeaves().At(0)
                u.array = bool(leaf.GetLeafCount()) if leaf else False
                u.kind = flat_kind(u)
            else:
                u.kind = classify(u, b.GetClassName())
            units.append(u)
    f.Close()
    return entries, units


def table(real: tuple[int, list[Unit]], clone: tuple[int, list[Unit]], kinds) -> tuple[list[str], dict]:
    (nr, ur), (nc, uc) = real, clone
    lines = [
        "| kind of data | real zip B/event | clone | real compression ratio | clone | agreement (size, ratio) |",
        "|---|---|---|---|---|---|",
    ]
    worst = {}
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
        share = zr / total
        label = "**total (size per event)**" if kind is None else kind
        counted = kind is None or share >= 0.05
        ok = (abs(size) <= SIZE_TARGET if kind is None else True) and (
            kind is None or abs(ratio) <= RATIO_TARGET
        )
        mark = ("ok" if ok else "**off**") if counted else "(< 5 % of bytes)"
        worst[label] = (size, ratio, share)
        lines.append(
            f"| {label} | {zr / nr:,.0f} | {zc / nc:,.0f} | {tr / max(zr, 1):.2f} | {tc / max(zc, 1):.2f} | "
            f"{size:+.0%}, {ratio:+.0%} {mark} |"
        )
    return lines, worst


def clone(path: Path, tools, out_dir: Path, factor: int, seed: int) -> dict:
    _, tree = open_tree(path)
    recipe = out_dir / f"{path.stem}.recipe"
    recipe.write_text(recipe_from_file(path, tree))
    s = settings(path, tree)
    out = out_dir / f"{path.stem}_clone.root"
    run_tool(
        [
            tools.writer,
            "--recipe",
            str(recipe),
            "--output",
            str(out),
            "--events",
            str(s["entries"] * factor),
            "--compression",
            str(s["compression"]),
            "--autoflush",
            str(s["autoflush"]),
            "--split",
            str(s["split"]),
            "--basket",
            str(s["basket"]),
            "--seed",
            str(seed),
            "--tree",
            tree,
        ],
        f"writing the clone of {path}",
    )
    return {"tree": tree, "settings": s, "recipe": recipe, "clone": out}


def synthetic_events(c: dict) -> int:
    f = ROOT.TFile.Open(str(c["clone"]))
    n = int(f.Get(c["tree"]).GetEntries())
    f.Close()
    return n


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--build", type=Path, required=True, help="built C++ tools (built here if missing)")
    parser.add_argument(
        "--out", type=Path, default=None, help="where recipes and clones go (default: a temp dir)"
    )
    parser.add_argument("--events-factor", type=int, default=1, help="clone events = real events x this")
    parser.add_argument("--seed", type=int, default=20200326)
    args = parser.parse_args()
    tools = ensure_built(args.build.resolve())
    ROOT.gErrorIgnoreLevel = ROOT.kError  # the real file's xAOD classes have no dictionary: expected warnings
    ROOT.gSystem.Load(tools.library)
    out_dir = args.out or Path(tempfile.mkdtemp(prefix="calibrate-"))
    out_dir.mkdir(parents=True, exist_ok=True)
    print(f"Measured {datetime.date.today().isoformat()} with ROOT {ROOT.gROOT.GetVersion()}.\n")
    failed = False
    for path in args.files:
        c = clone(path, tools, out_dir, args.events_factor, args.seed)
        flat = c["recipe"].read_text().splitlines()[1] == "layout flat"
        real = measure(path, c["tree"], flat)
        note = ""
        if sum(1 for u in real[1] if not u.tot_bytes) > 0.2 * len(real[1]):
            # Baskets kept inside the TTree object (never flushed: AutoFlush 0 and few events, as the NanoAOD
            # sample): no branch counts bytes. ROOT's own rewrite at the same settings (CloneTree, which
            # recompresses the same baskets) stands in for it.
            rewrite = out_dir / f"{path.stem}_root_rewrite.root"
            run_tool(
                [
                    tools.writer,
                    "--clone-from",
                    str(path),
                    "--tree",
                    c["tree"],
                    "--output",
                    str(rewrite),
                    "--compression",
                    str(c["settings"]["compression"]),
                ],
                f"rewriting {path}",
            )
            real = measure(rewrite, c["tree"], flat)
            note = (
                f"The real file keeps its baskets inside the TTree object ({path.stat().st_size / real[0]:,.0f} B/event "
                f"on disk, no per-basket keys), so its columns are those of ROOT's own rewrite at the same settings "
                f"(CloneTree, {rewrite.stat().st_size / real[0]:,.0f} B/event on disk; the clone: "
                f"{c['clone'].stat().st_size / synthetic_events(c):,.0f} B/event).\n"
            )
        synthetic = measure(c["clone"], c["tree"], flat)
        kinds = FLAT_KINDS if flat else tuple(sorted({u.kind for u in real[1] if u.zip_bytes}))
        lines, worst = table(real, synthetic, kinds)
        s = c["settings"]
        print(
            f"### {path.name} (`{c['tree']}`), clone of {synthetic[0]} events at compression {s['compression']}, "
            f"AutoFlush {s['autoflush']}, basket {s['basket']}, split {s['split']}\n"
        )
        print("\n".join(lines) + "\n")
        if note:
            print(note)
        size = worst["**total (size per event)**"][0]
        off = [
            k
            for k, (_, r, share) in worst.items()
            if share >= 0.05 and "total" not in k and abs(r) > RATIO_TARGET
        ]
        failed |= abs(size) > SIZE_TARGET or bool(off)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
