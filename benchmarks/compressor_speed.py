"""How hard the content of a file is for ROOT's compressors: compression MB/s and ratio per setting, and how
much slower level 9 compresses than level 5, for real files and the synthetic formats side by side.

    python benchmarks/compressor_speed.py FILE[:TREE][@FORMAT] ... [--synthetic xaod:20 truth3:3000 ...]
        [--build DIR] [--settings 101,105,109,...] [--repeat 3] [--max-basket BYTES]
        [--by kind|type|top|branch] [--pair 105,109] [--top 25]

Every basket of the tree is read back with uproot and its uncompressed payload (``raw_data``: the data and
the entry offsets, what TBasket hands to the compressor) is compressed again with ROOT's own
``R__zipMultipleAlgorithm``, the function TBasket::WriteBuffer calls, in chunks of at most 16 MB as ROOT
does. Nothing else is timed (no streaming, no I/O), so the figures say how hard the *content* is for each
compressor. Settings are algorithm*100 + level (1 ZLIB, 2 LZMA, 4 LZ4, 5 ZSTD). Each basket is compressed
with every setting in turn before the next basket, so that a busy neighbour slows all settings alike, and
keeps its fastest time of ``--repeat`` rounds; the machine is shared and noisy, so only ratios measured side
by side in one run mean something.

``--synthetic FMT:EVENTS`` writes that synthetic format first (ZLIB-5, its paper default AutoFlush, split
level and basket size, seed 20200326; the C++ tools are built in ``--build`` if needed) and measures it with
the files given. ``@FORMAT`` names the synthetic format of a file given by path (for ``--by kind``).
``--max-basket`` cuts every basket into pieces of at most BYTES before compressing: the same content at the
basket size of a small file (the real samples of 100-200 events have baskets of a few kB, the synthetic
files of tens to hundreds of kB, and a compressor's search at level 9 grows with the data it can look back
into).

Prints Markdown tables: per file and setting (MB/s, ratio, time against level 5 of the same algorithm);
per file the level-9/level-5 slowdown of each algorithm; and with ``--by`` a breakdown for the pair of
settings ``--pair`` (default ZLIB-5 against ZLIB-9): per group of branches its input bytes, ratio, MB/s at
both levels, its slowdown and its share of the extra seconds the second setting costs. Groups: ``type``
(stored type), ``top`` (top-level branch), ``branch`` (each branch), ``kind`` (for synthetic files the
stored type and the recipe's distribution of the attribute, e.g. ``std::vector<float> sparse(exp)``; the
stored type for other files). Not a test: docs/formats.md ("Compression speed against real data") holds its
output.
"""

from __future__ import annotations

import argparse
import re
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import ROOT
import uproot

from rootparams.measure.generate import scratch_file
from rootparams.study.formats import recipe
from rootparams.tools.build import ensure_built

DEFAULT_SETTINGS = "101,105,109,501,505,509,401,405,409,201,205,209"
ALGORITHMS = {1: "ZLIB", 2: "LZMA", 4: "LZ4", 5: "ZSTD"}

ROOT.gInterpreter.Declare(r"""
#include "RZip.h"
#include "Compression.h"
#include <chrono>
#include <cstdint>
#include <vector>
namespace rootparams_bench {
// Compress every basket [offsets[i], offsets[i+1]) of data with each of the ns settings in turn (basket by
// basket, so that a busy neighbour slows all settings alike), in chunks of at most kMAXZIPBUF bytes as
// TBasket::WriteBuffer does; keep per basket and setting the fastest time seen and the compressed size.
void zip_each(const unsigned char *data, const int64_t *offsets, int n, const int *settings, int ns,
              double *seconds, int64_t *zipped)
{
   const int kMaxChunk = 0xffffff;
   std::vector<char> out;
   for (int i = 0; i < n; ++i) {
      for (int k = 0; k < ns; ++k) {
         const int setting = settings[k];
         const char *src = reinterpret_cast<const char *>(data + offsets[i]);
         int64_t remaining = offsets[i + 1] - offsets[i], bytes = 0;
         const auto t0 = std::chrono::steady_clock::now();
         while (remaining > 0) {
            int chunk = remaining > kMaxChunk ? kMaxChunk : static_cast<int>(remaining);
            out.resize(chunk + chunk / 4 + 1024);
            int srcsize = chunk, tgtsize = static_cast<int>(out.size()), irep = 0;
            R__zipMultipleAlgorithm(setting % 100, &srcsize, const_cast<char *>(src), &tgtsize, out.data(), &irep,
                                    ROOT::RCompressionSetting::EAlgorithm::EValues(setting / 100));
            bytes += irep > 0 ? irep : chunk;  // ROOT stores a chunk uncompressed when compression does not pay
            src += chunk;
            remaining -= chunk;
         }
         const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
         double &best = seconds[static_cast<int64_t>(k) * n + i];
         if (best < 0 || s < best)
            best = s;
         zipped[static_cast<int64_t>(k) * n + i] = bytes;
      }
   }
}
}
""")


@dataclass
class Baskets:
    """The uncompressed basket payloads of one tree, with the branch each basket belongs to."""

    label: str
    data: np.ndarray  # all payloads, concatenated (uint8)
    offsets: np.ndarray  # basket i is data[offsets[i]:offsets[i+1]] (int64)
    branch: list[str]  # per basket
    top: list[str]
    type: list[str]
    kind: list[str]

    @property
    def n(self) -> int:
        return len(self.branch)


def default_tree(path: Path) -> str:
    with uproot.open(path) as f:
        trees = [k.split(";")[0] for k, c in f.classnames().items() if c == "TTree"]
    for name in ("CollectionTree", "Events"):
        if name in trees:
            return name
    if not trees:
        raise SystemExit(f"{path} holds no TTree")
    return trees[0]


def load(path: Path, tree_name: str, label: str, kinds: dict[str, str] | None = None) -> Baskets:
    tree = uproot.open(path)[tree_name]
    chunks, branch, top, types, kind = [], [], [], [], []
    for b in tree.itervalues(recursive=True):
        top_branch = b
        while isinstance(top_branch.parent, uproot.behaviors.TBranch.TBranch):
            top_branch = top_branch.parent
        top_name = top_branch.name
        for i in range(b.num_baskets):
            basket = b.basket(i)
            # A basket kept in the branch's own record ("embedded", left in memory at closing) has no
            # raw_data in uproot; its data is what a flush would have compressed (entry offsets aside).
            raw = basket.raw_data if basket.raw_data is not None else basket.data
            payload = np.frombuffer(raw, dtype=np.uint8)
            if not len(payload):
                continue
            chunks.append(payload)
            branch.append(b.name)
            top.append(top_name)
            types.append(b.typename or "?")
            kind.append(kinds.get(b.name, b.typename) if kinds is not None else (b.typename or "?"))
    if not chunks:
        raise SystemExit(f"{path}: tree {tree_name} has no baskets with data")
    offsets = np.zeros(len(chunks) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(c) for c in chunks])
    return Baskets(label, np.concatenate(chunks), offsets, branch, top, types, kind)


def split_baskets(baskets: Baskets, size: int) -> Baskets:
    """The same payloads cut into pieces of at most ``size`` bytes, each piece keeping its basket's labels."""
    starts, keep = [], []
    for i in range(baskets.n):
        for start in range(int(baskets.offsets[i]), int(baskets.offsets[i + 1]), size):
            starts.append(start)
            keep.append(i)
    offsets = np.array([*starts, int(baskets.offsets[-1])], dtype=np.int64)
    label = f"{baskets.label}, baskets cut to {size / 1000:g} kB"
    pick = [baskets.branch[i] for i in keep], [baskets.top[i] for i in keep]
    types, kinds = [baskets.type[i] for i in keep], [baskets.kind[i] for i in keep]
    return Baskets(label, baskets.data, offsets, *pick, types, kinds)


def distribution_label(dist: tuple) -> str:
    """Short name of a recipe distribution: its wrappers and the innermost kind, e.g. ``sparse(exp)``."""
    k = dist[0]
    if k in ("trunc", "round", "mod", "walk", "repeat"):
        inner = distribution_label(dist[2:])
        return f"trunc{dist[1]}({inner})" if k == "trunc" else f"{k}({inner})"
    if k in ("sparse", "linear", "copy"):
        return f"{k}({distribution_label(dist[3:])})"
    if k in ("perevent", "perindex"):
        return f"{k}({distribution_label(dist[1:])})"
    return k  # choice, pick, either, cycle, ...: their parts differ


def recipe_kinds(fmt: str, tree) -> dict[str, str]:
    """Branch name -> '<stored type> <distribution>' for the branches of a synthetic file of ``fmt``."""
    by_name: dict[str, str] = {}
    for c in recipe(fmt):
        for member, dist in c.attrs.items():
            by_name[f"{c.name}Aux.{member}"] = distribution_label(dist)
        for attr, _type, *dist in c.dyn:
            by_name[f"{c.name}AuxDyn.{attr}"] = (
                "link" if _type in ("link", "vlink") else distribution_label(dist)
            )
    out = {}
    for b in tree.itervalues(recursive=True):
        name = b.name
        if re.search(r"\.m_pers(Key|Index)$", name):
            name = name.rsplit(".", 1)[0]
        if name in by_name:
            out[b.name] = f"{b.typename} {by_name[name]}"
        elif re.fullmatch(r".+Aux\.[A-Za-z0-9_]+", name):
            out[b.name] = f"{b.typename} gaus (recipe default)"
        elif name.endswith("Aux."):
            out[b.name] = "unsplit aux object"
        else:
            out[b.name] = "interface object"
    return out


def measure(baskets: Baskets, settings: list[int], repeat: int) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """Per setting: fastest seconds and compressed bytes of every basket. Each basket is compressed with
    every setting in turn, and the whole is repeated ``repeat`` times."""
    ns = len(settings)
    seconds = np.full(ns * baskets.n, -1.0)
    zipped = np.zeros(ns * baskets.n, dtype=np.int64)
    codes = np.array(settings, dtype=np.int32)
    for _ in range(repeat):
        ROOT.rootparams_bench.zip_each(baskets.data, baskets.offsets, baskets.n, codes, ns, seconds, zipped)
    n = baskets.n
    return {s: (seconds[k * n : (k + 1) * n], zipped[k * n : (k + 1) * n]) for k, s in enumerate(settings)}


def write_synthetic(fmt: str, events: int, build: Path, out: Path) -> Path:
    return scratch_file(fmt, events, ensure_built(build), out, algorithm="zlib", level=5)


def setting_table(results: list[tuple[Baskets, dict]], settings: list[int]) -> list[str]:
    lines = [
        "| file | MB in | setting | MB/s | ratio | time / level-5 time |",
        "|---|---|---|---|---|---|",
    ]
    for baskets, r in results:
        size = baskets.offsets[-1]
        for s in settings:
            seconds, zipped = r[s]
            base = r.get(s // 100 * 100 + 5)
            rel = f"{seconds.sum() / base[0].sum():.2f}" if base is not None else "-"
            lines.append(
                f"| {baskets.label} | {size / 1e6:.1f} | {ALGORITHMS[s // 100]}-{s % 100} "
                f"| {size / 1e6 / seconds.sum():.1f} | {size / zipped.sum():.2f} | {rel} |"
            )
    return lines


def slowdown_table(results: list[tuple[Baskets, dict]], settings: list[int]) -> list[str]:
    algs = [a for a in ALGORITHMS if a * 100 + 5 in settings and a * 100 + 9 in settings]
    head = " | ".join(f"{ALGORITHMS[a]} 9/5" for a in algs)
    lines = [f"| file | {head} |", "|---" * (len(algs) + 1) + "|"]
    for baskets, r in results:
        cells = [f"{r[a * 100 + 9][0].sum() / r[a * 100 + 5][0].sum():.1f}x" for a in algs]
        lines.append(f"| {baskets.label} | " + " | ".join(cells) + " |")
    return lines


def breakdown_table(baskets: Baskets, r: dict, pair: tuple[int, int], by: str, top: int) -> list[str]:
    lo, hi = pair
    keys = {"kind": baskets.kind, "type": baskets.type, "top": baskets.top, "branch": baskets.branch}[by]
    sizes = np.diff(baskets.offsets)
    groups: dict[str, list[int]] = defaultdict(list)
    for i, key in enumerate(keys):
        groups[key].append(i)
    t_lo, z_lo = r[lo]
    t_hi, z_hi = r[hi]
    extra_total = t_hi.sum() - t_lo.sum()
    rows = []
    for key, idx in groups.items():
        idx = np.array(idx)
        size = sizes[idx].sum()
        a, b = t_lo[idx].sum(), t_hi[idx].sum()
        branches = len({baskets.branch[i] for i in idx})
        rows.append((b - a, key, branches, size, size / z_lo[idx].sum(), size / z_hi[idx].sum(), a, b))
    rows.sort(reverse=True)
    name_lo, name_hi = f"{ALGORITHMS[lo // 100]}-{lo % 100}", f"{ALGORITHMS[hi // 100]}-{hi % 100}"
    lines = [
        f"{baskets.label}: by {by}, {name_lo} against {name_hi} "
        f"({len(groups)} groups, the {min(top, len(rows))} that cost the most extra time)",
        "",
        f"| {by} | branches | MB in | share of input | ratio {name_lo} | MB/s {name_lo} | MB/s {name_hi} "
        f"| slowdown | share of the extra time |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    total = sizes.sum()
    for extra, key, n, size, ratio_lo, _ratio_hi, a, b in rows[:top]:
        lines.append(
            f"| {key} | {n} | {size / 1e6:.2f} | {size / total:.1%} | {ratio_lo:.2f} | {size / 1e6 / a:.1f} "
            f"| {size / 1e6 / b:.1f} | {b / a:.1f}x | {extra / extra_total:.1%} |"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "files",
        nargs="*",
        metavar="FILE[:TREE][@FORMAT]",
        help="default tree: CollectionTree or Events; FORMAT: the synthetic format of the file, "
        "for --by kind",
    )
    parser.add_argument(
        "--synthetic",
        nargs="*",
        default=[],
        metavar="FMT:EVENTS",
        help="synthetic formats to write and measure, e.g. xaod:20 truth3:3000",
    )
    parser.add_argument("--build", type=Path, default=None, help="built C++ tools (for --synthetic)")
    parser.add_argument("--out", type=Path, default=None, help="where to write the synthetic files")
    parser.add_argument("--settings", default=DEFAULT_SETTINGS, help="algorithm*100+level, comma-separated")
    parser.add_argument("--repeat", type=int, default=3, help="rounds; each basket keeps its fastest time")
    parser.add_argument("--by", choices=("kind", "type", "top", "branch"), default=None)
    parser.add_argument("--pair", default="105,109", help="the two settings the breakdown compares")
    parser.add_argument("--top", type=int, default=25, help="rows of the breakdown")
    parser.add_argument(
        "--max-basket",
        type=int,
        default=0,
        metavar="BYTES",
        help="compress each basket in pieces of at most BYTES: the content at the basket size of "
        "a smaller file (real samples of 100-200 events have baskets of a few kB)",
    )
    args = parser.parse_args()
    pair = tuple(int(s) for s in args.pair.split(","))
    settings = list(dict.fromkeys(int(s) for s in args.settings.split(",")))
    if args.by:
        settings += [s for s in pair if s not in settings]
    if args.synthetic and args.build is None:
        parser.error("--synthetic needs --build")

    sources: list[tuple[Path, str, str, str | None]] = []  # path, tree, label, format
    for spec in args.files:
        spec, _, fmt = spec.partition("@")
        path, _, tree = spec.partition(":")
        sources.append((Path(path), tree or default_tree(Path(path)), Path(path).name, fmt or None))
    if args.synthetic:
        out = args.out or Path(tempfile.mkdtemp(prefix="rootparams-compressor-speed-"))
        out.mkdir(parents=True, exist_ok=True)
        for spec in args.synthetic:
            fmt, _, events = spec.partition(":")
            path = write_synthetic(fmt, int(events or 20), args.build.resolve(), out)
            sources.append((path, "CollectionTree", f"{fmt} (synthetic, {events or 20} events)", fmt))
    if not sources:
        parser.error("give at least one FILE or --synthetic FMT:EVENTS")

    results = []
    for path, tree_name, label, fmt in sources:
        kinds = recipe_kinds(fmt, uproot.open(path)[tree_name]) if fmt else None
        baskets = load(path, tree_name, label, kinds)
        if args.max_basket:
            baskets = split_baskets(baskets, args.max_basket)
        results.append((baskets, measure(baskets, settings, args.repeat)))

    print(f"Compression of the uncompressed basket payloads, fastest of {args.repeat} rounds per basket\n")
    print("\n".join(setting_table(results, settings)))
    print("\nLevel-9 time / level-5 time (compression slowdown)\n")
    print("\n".join(slowdown_table(results, settings)))
    if args.by:
        for baskets, r in results:
            print()
            print("\n".join(breakdown_table(baskets, r, pair, args.by, args.top)))


if __name__ == "__main__":
    main()
