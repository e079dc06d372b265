"""Clone the profile of a real ROOT file into a synthetic recipe.

    rootparams calibrate FILE [--tree NAME] [--output RECIPE] [--events N]   (or python -m rootparams.calibrate)

reads a real TTree with uproot and writes the writer's recipe text (the language of
write_collection_tree.cxx, as ``formats.recipe_text`` writes it for the built-in formats) that reproduces,
branch by branch: the type, the per-event element counts (the multiplicity of each collection, and the
length of inner vectors), the value distribution and what makes it compressible (share of the most
common value, number of distinct values, mantissa bits kept, runs of equal neighbours, integer ranges,
exp/gaus/uniform fits) and the container structure. The recipe is then a format like the built-in ones: the
writer writes it at any file setting.

Two layouts:
- xAOD (an ATLAS ``CollectionTree``): ``<C>`` interface, ``<C>Aux.`` store and ``<C>AuxDyn.<attr>`` branches
  become a ``container`` with ``dyn`` attributes. Members of split static stores (``EventInfoAux.runNumber``)
  become attributes of the container too (the branch is then ``<C>AuxDyn.<member>``), scalar leaves
  (``EventInfoAuxDyn.GenFiltHT/F``) ``scalar`` lines under their own names. Static stores are written as the
  writer's empty ``xAODlike::AuxContainerBase`` (a real one is an empty ``xAOD::AuxContainerBase`` too in
  PHYSLITE; its per-entry framing is larger, see docs/formats.md).
- flat (a NanoAOD ``Events``): ``layout flat``, a ``collection`` per counter branch ``n<C>`` with its leaf-list
  arrays as ``column`` lines, other leaves as ``scalar`` lines.

What uproot cannot read as numbers (strings, sets, triple-nested vectors, objects without a dictionary) is
approximated as a ``uint8`` attribute of the same uncompressed bytes per event whose share of zero bytes
gives the branch's own compression ratio (marked ``# opaque`` in the recipe).
"""

from __future__ import annotations

import argparse
import re
import sys
import warnings
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from rootparams.errors import UserError
from rootparams.sources import EVENT_DATA_NAMES
from rootparams.vocabulary import RNTUPLE, TTREE, container_of_class

# uproot and awkward take seconds to import: the functions that read a file import them.

NS = "xAODlike::"

# Element class of a real DataVector -> the writer's interface class (its element count is all it holds).
INTERFACES = {
    "Electron": "ElectronContainer_v1",
    "Photon": "PhotonContainer_v1",
    "Muon": "MuonContainer_v1",
    "TauJet": "TauJetContainer_v1",
    "Jet": "JetContainer_v1",
    "TrackParticle": "TrackParticleContainer_v1",
    "CaloCluster": "CaloClusterContainer_v1",
    "TruthParticle": "TruthParticleContainer_v1",
    "Vertex": "VertexContainer_v1",
    "TruthVertex": "TruthVertexContainer_v1",
    "BTagging": "BTaggingContainer_v1",
    "MissingETContainer": "MissingETContainer_v1",
    "EventInfo": "EventInfo_v1",
    "TrigDecision": "TrigDecision_v1",
}

# Normalized element type -> (vector attribute type, leaf type) of the recipe.
SCALAR_TYPES = {
    "float": "float",
    "double": "double",
    "int8_t": "int8",
    "char": "int8",
    "uint8_t": "uint8",
    "unsignedchar": "uint8",
    "int16_t": "int16",
    "short": "int16",
    "uint16_t": "uint16",
    "unsignedshort": "uint16",
    "int32_t": "int",
    "int": "int",
    "uint32_t": "uint32",
    "unsignedint": "uint32",
    "int64_t": "int64",
    "Long64_t": "int64",
    "long": "int64",
    "uint64_t": "uint64",
    "ULong64_t": "uint64",
    "unsignedlong": "uint64",
    "bool": "bool",
    "Bool_t": "bool",
    "Float_t": "float",
    "Int_t": "int",
    "UInt_t": "uint32",
    "Char_t": "int8",
    "UChar_t": "uint8",
    "Short_t": "int16",
    "UShort_t": "uint16",
    "Double_t": "double",
}
NESTED_TYPES = {
    "float": "vfloat",
    "double": "vdouble",
    "int": "vint",
    "uint32": "vuint32",
    # no 64-bit nested kind in the writer: doubles holding the integers have the same 8 bytes
    "uint64": "vdouble",
    "int64": "vdouble",
}
MANTISSA = {"float": 23, "double": 52}


class CalibrationError(UserError, RuntimeError):
    """A file that cannot be calibrated; the message names the file and what would be valid."""


# ----------------------------------------------------------------------------------------------------------
# Opening the file and finding the tree


def open_tree(path: str | Path, tree: str | None = None):
    """(uproot TTree, its name). Errors name the file and the trees or RNTuples it holds."""
    import uproot

    path = Path(path)
    if not path.exists():
        raise CalibrationError(f"{path}: no such file (give a ROOT file holding a TTree)")
    try:
        f = uproot.open(path)
    except Exception as e:
        raise CalibrationError(f"{path}: not a ROOT file uproot can open ({type(e).__name__}: {e})") from None
    containers = {k.split(";")[0]: container_of_class(v) for k, v in f.classnames(recursive=False).items()}
    trees = sorted(k for k, c in containers.items() if c == TTREE)
    ntuples = sorted(k for k, c in containers.items() if c == RNTUPLE)
    listing = f"TTrees: {', '.join(trees) or 'none'}; RNTuples: {', '.join(ntuples) or 'none'}"
    if tree is None:
        known = [t for t in EVENT_DATA_NAMES if t in trees]
        if len(known) == 1:
            tree = known[0]
        elif len(trees) == 1:
            tree = trees[0]
        elif not trees and len(ntuples) >= 1:
            raise CalibrationError(
                f"{path}: holds no TTree ({listing}); calibrating an RNTuple is not supported"
            )
        else:
            raise CalibrationError(f"{path}: no obvious event tree, choose one with --tree ({listing})")
    if tree in ntuples:
        raise CalibrationError(f"{path}: {tree} is an RNTuple, which calibrate does not read; {listing}")
    if tree not in trees:
        raise CalibrationError(f"{path}: no TTree named {tree!r} ({listing})")
    return f[tree], tree


# ----------------------------------------------------------------------------------------------------------
# Distributions


def num(v: float, double: bool = False) -> str:
    v = float(v)
    if v == int(v) and abs(v) < 2**63:
        return str(int(v))
    return f"{v:.17g}" if double else f"{v:.9g}"


def weighted(values: np.ndarray, counts: np.ndarray, slots: int = 32, double: bool = False) -> list[str]:
    """A choice list in which each value appears about in proportion to its frequency."""
    out = []
    total = counts.sum()
    for v, c in zip(values, counts, strict=False):
        out += [num(v, double)] * max(1, round(slots * c / total))
    return out


def quantiles(x: np.ndarray, n: int) -> np.ndarray:
    return np.quantile(x, (np.arange(n) + 0.5) / n, method="nearest") if len(x) else x


def mantissa_bits(x: np.ndarray, kind: str) -> int:
    """Mantissa bits the values use (95th percentile): ATLAS float compression keeps 7 or 15."""
    if kind == "float":
        m = x.astype(np.float32).view(np.uint32) & np.uint32(0x7FFFFF)
        total = 23
    else:
        m = x.astype(np.float64).view(np.uint64) & np.uint64((1 << 52) - 1)
        total = 52
    m = m[m != 0].astype(np.uint64)
    if not len(m):
        return 0
    low = m & (~m + np.uint64(1))  # lowest set bit
    tz = np.log2(low.astype(np.float64)).astype(int)
    return int(np.percentile(total - tz, 95))


def entropy_bits(counts: np.ndarray) -> float:
    p = counts / counts.sum()
    return float(-(p * np.log2(p)).sum())


def fit_shape(x: np.ndarray, double: bool) -> list[str]:
    """gaus, exp (with an offset) or uniform, whichever is closest (Kolmogorov distance)."""
    xs = np.sort(x if len(x) <= 4000 else x[:: len(x) // 4000 + 1])
    ecdf = (np.arange(len(xs)) + 0.5) / len(xs)
    lo, hi, mean, sd = xs[0], xs[-1], xs.mean(), xs.std() or 1e-9
    from math import erf, sqrt

    cands = {
        ("gaus", mean, sd): 0.5 * (1 + np.vectorize(erf)((xs - mean) / (sd * sqrt(2)))),
        ("uniform", lo, hi): (xs - lo) / max(hi - lo, 1e-30),
    }
    if lo >= 0 or mean - lo > 0:
        cands[("exp", lo, mean - lo)] = 1 - np.exp(-(xs - lo) / max(mean - lo, 1e-30))
    best = min(cands, key=lambda k: np.abs(cands[k] - ecdf).max())
    if best[0] == "exp":
        body = ["exp", num(best[2], double)]
        return body if best[1] == 0 else ["linear", num(best[1], double), "0", *body]
    return [best[0], num(best[1], double), num(best[2], double)]


def fit_values(x: np.ndarray, kind: str, runs: float = 0.0) -> list[str]:
    """The recipe distribution of values ``x`` of type ``kind`` (a leaf type name); ``runs``: the share of
    elements equal to their predecessor in the same vector."""
    x = np.asarray(x, dtype=np.float64)
    x = x[np.isfinite(x)]
    double = kind == "double"
    if not len(x):
        return ["const", "0"]
    values, counts = np.unique(x, return_counts=True)
    if len(values) == 1:
        return ["const", num(values[0], double)]
    # Runs beyond what independent draws give by chance.
    chance = float(((counts / counts.sum()) ** 2).sum())
    q = max(0.0, (runs - chance) / (1 - chance)) if chance < 1 else 0.0
    wrap = ["repeat", f"{q:.3f}"] if q >= 0.05 else []
    if len(values) <= 16:
        return [*wrap, "choice", *weighted(values, counts, double=double)]
    i = int(counts.argmax())
    p_mode = counts[i] / counts.sum()
    out = list(wrap)
    rest = x
    if p_mode >= 0.1:
        out += ["sparse", f"{p_mode:.3f}", num(values[i], double)]
        rest = x[x != values[i]]
        values, counts = np.delete(values, i), np.delete(counts, i)
    integral = bool(np.all(rest == np.round(rest)))
    if integral or kind not in MANTISSA:
        if len(values) <= 64:
            return [*out, "choice", *weighted(values, counts, double=double)]
        h = entropy_bits(counts)
        if h < 7:  # concentrated: quantiles keep the shape and about the entropy
            return [*out, "choice", *(num(v, double) for v in quantiles(rest, 128))]
        med, width = float(np.median(rest)), 2.0**h
        lo = max(float(rest.min()), med - width / 2)
        return [*out, "int", num(np.floor(lo)), num(np.floor(lo + width))]
    body = fit_shape(rest, double)
    bits = mantissa_bits(rest, kind)
    if bits < MANTISSA[kind] - 2:
        body = ["trunc", str(max(bits, 1)), *body]
    return out + body


def run_share(jagged) -> float:
    """Share of elements (after the first of each vector) equal to the previous one."""
    import awkward as ak

    if ak.sum(ak.num(jagged, axis=-1)) < 2:
        return 0.0
    same = jagged[..., 1:] == jagged[..., :-1]
    n = ak.sum(ak.num(same, axis=-1))
    return float(ak.sum(same) / n) if n else 0.0


def empirical(counts: np.ndarray, limit: int = 128) -> list[str]:
    """A multiplicity: fixed when constant, else a choice among the observed counts (quantiles beyond limit)."""
    counts = np.asarray(counts, dtype=np.int64)
    if not len(counts):
        return ["fixed", "0"]
    if np.all(counts == counts[0]):
        return ["fixed", str(int(counts[0]))]
    sample = np.sort(counts) if len(counts) <= limit else quantiles(counts, limit)
    return ["choice", *(str(int(c)) for c in sample)]


# Zero-byte share of a uint8 column -> zlib-5 compression ratio (for opaque branches).
def _opaque_table() -> list[tuple[float, float]]:
    rng = np.random.default_rng(1)
    table = []
    for p in (0.0, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 0.97, 0.98, 0.99, 0.995, 0.998, 1.0):
        b = np.where(rng.random(40000) < p, 0, rng.integers(0, 256, 40000)).astype(np.uint8).tobytes()
        table.append((p, len(b) / len(zlib.compress(b, 5))))
    return table


_OPAQUE = None


def opaque_values(ratio: float) -> list[str]:
    global _OPAQUE
    _OPAQUE = _OPAQUE or _opaque_table()
    p = min(_OPAQUE, key=lambda t: abs(np.log(t[1] / max(ratio, 1.0))))[0]
    return ["sparse", f"{p:.3f}", "0", "int", "0", "255"]


# ----------------------------------------------------------------------------------------------------------
# Branches


def normalize(typename: str) -> str:
    return re.sub(r"\s+|std::", "", typename)


@dataclass
class Column:
    attr: str
    lines: list[str]  # dyn line(s) without the size line
    counts: np.ndarray | None  # per-event element counts (None: a scalar)
    note: str = ""


@dataclass
class Cont:
    name: str
    interface: str = "-"
    aux: str = "-"
    columns: list[Column] = field(default_factory=list)


def interface_of(classname: str) -> str:
    m = re.search(r"xAOD::(\w+?)(_v\d+)?>?$", classname.replace(" ", ""))
    stem = m.group(1) if m else ""
    return NS + INTERFACES.get(stem, "AuxVectorBase")


def read(branch, events):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return branch.array(library="ak", entry_stop=events)


def opaque(cont: str, attr: str, branch, entries: int, why: str) -> Column:
    tot, zipped = branch.uncompressed_bytes, branch.compressed_bytes
    per_event = max(0, round(tot / max(entries, 1)) - 14)
    dyn = f"dyn {cont} {attr} uint8 " + " ".join(opaque_values(tot / max(zipped, 1)))
    col = Column(attr, [dyn], np.full(entries, per_event), note=f"# opaque: {why}")
    col.lines.insert(0, col.note)
    return col


def link_column(cont: str, attr: str, arr, nested: bool, target: str) -> tuple[list[str], np.ndarray]:
    """dyn lines of a link attribute: a constant key (the writer hashes the target name) and the index drawn
    from a fit of the real indices (invalid links, index 0xFFFFFFFF, as the sparse default)."""
    import awkward as ak

    fields = ak.fields(arr)
    kf = next(f for f in fields if f.endswith("m_persKey"))
    xf = next(f for f in fields if f.endswith("m_persIndex"))
    idx = arr[xf]
    flat = ak.to_numpy(ak.flatten(idx, axis=None)).astype(np.float64)
    counts = ak.to_numpy(ak.num(idx, axis=1))
    typ = "vlink" if nested else "link"
    if not len(flat):
        return [f"dyn {cont} {attr} {typ} {target} const 0"], counts
    ok = flat[flat < 2**31]
    invalid = 1 - len(ok) / len(flat)
    if nested:
        diffs = ak.to_numpy(ak.flatten(idx[..., 1:] - idx[..., :-1], axis=None)).astype(np.int64)
        increasing = len(diffs) and np.mean((diffs > 0) & (diffs < 2**31)) > 0.8
    else:
        local = ak.to_numpy(ak.flatten(ak.local_index(idx, axis=1), axis=None))
        increasing = False
        if len(ok) and np.mean(flat == local) > 0.9:
            return [f"dyn {cont} {attr} {typ} {target} linear 0 1 const 0"], counts
    inner = (
        [f"inner {cont} {attr} " + " ".join(empirical(ak.to_numpy(ak.flatten(ak.num(idx, axis=2))), 64))]
        if nested
        else []
    )
    if increasing:
        first = ak.to_numpy(ak.flatten(idx[ak.num(idx, axis=-1) > 0][..., 0], axis=None)).astype(np.float64)
        steps = diffs[(diffs > 0) & (diffs < 2**31)].astype(np.float64)
        step = fit_values(steps, "int")
        # walk a D: a + D for the first link of a vector, then the previous index + D (a: the median first index)
        body = ["walk", num(np.median(first[first < 2**31]) if len(first) else 0), *step]
    else:
        body = fit_values(ok, "int")
    if invalid >= 0.01:
        body = ["sparse", f"{invalid:.3f}", "4294967295", *body]
    del kf  # the key is constant per target in real files; the writer's is hash32(target)
    return [f"dyn {cont} {attr} {typ} {target} " + " ".join(body), *inner], counts


def per_position(arr, kind: str) -> list[str] | None:
    """Vectors of one fixed length in every event whose values depend on the position (trigger words, fixed
    records): ``cycle L D_0..D_L-1``, each position fitted on its own, when most positions hold one value."""
    import awkward as ak

    counts = ak.to_numpy(ak.num(arr, axis=1))
    if len(counts) < 2 or not np.all(counts == counts[0]) or not 2 <= counts[0] <= 1024:
        return None
    grid = ak.to_numpy(arr).astype(np.float64)  # events x positions
    constant = np.mean([len(np.unique(grid[:, j])) == 1 for j in range(grid.shape[1])])
    if constant < 0.5:
        return None
    out = ["cycle", str(grid.shape[1])]
    for j in range(grid.shape[1]):
        d = fit_values(grid[:, j], kind)
        if "choice" in d:  # choice must come last (it takes the remaining tokens): pick counts its values
            i = d.index("choice")
            d = [*d[:i], "pick", str(len(d) - i - 1), *d[i + 1 :]]
        out += d
    return out


def column_of(cont: str, attr: str, branch, entries: int, events) -> Column | str:
    """The recipe lines of one branch holding per-element values, or a scalar line (str)."""
    import awkward as ak

    t = normalize(branch.typename)
    if t.endswith("[]"):
        t = f"vector<{t[:-2]}>"
    if t in SCALAR_TYPES and not branch.branches:
        x = ak.to_numpy(read(branch, events)).astype(np.float64)
        leaf = SCALAR_TYPES[t]
        return f"scalar {branch.name} {leaf} " + " ".join(fit_values(x, leaf))
    link = re.fullmatch(r"(vector<)?vector<ElementLink<DataVector<xAOD::(\w+)>>>>?", t)
    try:
        arr = read(branch, events)
    except Exception as e:
        return opaque(cont, attr, branch, entries, f"{branch.typename} unreadable ({type(e).__name__})")
    if link:
        try:
            lines, counts = link_column(cont, attr, arr, t.startswith("vector<vector<"), link.group(2))
            return Column(attr, lines, counts)
        except Exception as e:
            return opaque(
                cont, attr, branch, entries, f"{branch.typename} links unreadable ({type(e).__name__})"
            )
    m = re.fullmatch(r"vector<(vector<)?(\w+)>?>", t)
    if not m or m.group(2) not in SCALAR_TYPES:
        return opaque(cont, attr, branch, entries, branch.typename)
    leaf = SCALAR_TYPES[m.group(2)]
    nested = bool(m.group(1))
    counts = ak.to_numpy(ak.num(arr, axis=1))
    flat = ak.to_numpy(ak.flatten(arr, axis=None)).astype(np.float64)
    runs = run_share(arr)
    if nested:
        typ = NESTED_TYPES.get(leaf)
        if typ is None:
            return opaque(cont, attr, branch, entries, branch.typename)
        inner = ak.to_numpy(ak.flatten(ak.num(arr, axis=2), axis=None))
        lines = [
            f"dyn {cont} {attr} {typ} "
            + " ".join(fit_values(flat, "double" if typ == "vdouble" else leaf, runs)),
            f"inner {cont} {attr} " + " ".join(empirical(inner, 64)),
        ]
        return Column(attr, lines, counts)
    typ = "uint8" if leaf == "bool" else leaf
    dist = per_position(arr, leaf) or fit_values(flat, leaf, runs)
    return Column(attr, [f"dyn {cont} {attr} {typ} " + " ".join(dist)], counts)


def xaod_recipe(tree, name: str, events) -> list[str]:
    entries = min(tree.num_entries, events or tree.num_entries)
    conts: dict[str, Cont] = {}
    scalars: list[str] = []

    def cont(c: str) -> Cont:
        return conts.setdefault(c, Cont(c))

    for b in tree.branches:
        n = b.name
        m = re.fullmatch(r"(.+?)Aux(Dyn)?\.(.*)", n)
        if m and m.group(2):  # <C>AuxDyn.<attr>
            col = column_of(m.group(1), m.group(3), b, entries, events)
        elif m:  # <C>Aux. static store: its members (split) become attributes
            c = cont(m.group(1))
            c.aux = NS + "AuxContainerBase"
            for sub in b.branches:
                attr = sub.name.rsplit(".", 1)[-1]
                if "::" in sub.name.split(".", 1)[-1]:
                    continue  # the base-class part (xAOD::AuxInfoBase): no data
                col = column_of(m.group(1), attr, sub, entries, events)
                if isinstance(col, str):
                    col = col.replace(f"scalar {sub.name} ", f"scalar {m.group(1)}AuxDyn.{attr} ", 1)
                    scalars.append(col)
                else:
                    c.columns.append(col)
            continue
        else:  # interface object (possibly split: its members become attributes)
            c = cont(n)
            c.interface = interface_of(b.typename)
            for sub in b.branches:
                attr = sub.name.rsplit(".", 1)[-1]
                col = column_of(n, attr, sub, entries, events)
                if isinstance(col, str):
                    scalars.append(col.replace(f"scalar {sub.name} ", f"scalar {n}AuxDyn.{attr} ", 1))
                else:
                    c.columns.append(col)
            continue
        if isinstance(col, str):
            scalars.append(col)
        else:
            cont(m.group(1)).columns.append(col)

    lines = [f"# rootparams recipe calibrated on {name} (rootparams.calibrate; {entries} events)"]
    lines += scalars
    for c in conts.values():
        keyed = [tuple(col.counts) for col in c.columns if col.counts is not None]
        if keyed:
            common = max(set(keyed), key=lambda k: (keyed.count(k), -keyed.index(k)))
            mult = np.array(common)
        else:
            mult = np.zeros(entries, dtype=int)
        lines.append(f"container {c.name} {c.interface} {c.aux} " + " ".join(empirical(mult)))
        tail = []
        for col in c.columns:
            lines += [ln for ln in col.lines if not ln.startswith("inner ")]
            tail += [ln for ln in col.lines if ln.startswith("inner ")]
            if col.counts is not None and tuple(col.counts) != tuple(mult):
                tail.append(f"size {c.name} {col.attr} " + " ".join(empirical(col.counts)))
        lines += tail
    return lines


def flat_recipe(tree, name: str, events) -> list[str]:
    import awkward as ak

    entries = min(tree.num_entries, events or tree.num_entries)
    counters = {b.count_branch.name for b in tree.branches if getattr(b, "count_branch", None) is not None}
    lines = [
        f"# rootparams recipe calibrated on {name} (rootparams.calibrate; {entries} events)",
        "layout flat",
    ]
    collections: dict[str, list[str]] = {}
    for b in tree.branches:
        t = normalize(b.typename)
        if b.name in counters:
            continue
        counter = getattr(b, "count_branch", None)
        if counter is None:
            if t not in SCALAR_TYPES:
                raise CalibrationError(f"{name}: branch {b.name} of type {b.typename} is not a flat leaf")
            x = ak.to_numpy(read(b, events)).astype(np.float64)
            lines.append(f"scalar {b.name} {SCALAR_TYPES[t]} " + " ".join(fit_values(x, SCALAR_TYPES[t])))
            continue
        leaf = SCALAR_TYPES.get(t.removesuffix("[]"))
        if leaf is None:
            raise CalibrationError(f"{name}: array branch {b.name} of type {b.typename} is not supported")
        arr = read(b, events)
        x = ak.to_numpy(ak.flatten(arr, axis=None)).astype(np.float64)
        col = f"column {{C}} {b.name} {leaf} " + " ".join(fit_values(x, leaf, run_share(arr)))
        collections.setdefault(counter.name, []).append(col)
    for counter, cols in collections.items():
        cname = counter[1:] if counter.startswith("n") else counter
        counts = ak.to_numpy(read(tree[counter], events))
        lines.append(f"collection {cname} {counter} " + " ".join(empirical(counts)))
        lines += [c.replace("{C}", cname, 1) for c in cols]
    return lines


def is_flat(tree) -> bool:
    return all(
        not b.branches and normalize(b.typename).removesuffix("[]") in SCALAR_TYPES for b in tree.branches
    )


def recipe_from_file(path: str | Path, tree: str | None = None, events: int | None = None) -> str:
    """The recipe text that clones ``path``'s event tree (auto-detected when ``tree`` is None)."""
    t, name = open_tree(path, tree)
    label = f"{Path(path).name}:{name}"
    if events is not None and events < 1:
        raise CalibrationError(f"{path}: --events must be >= 1 (got {events})")
    lines = flat_recipe(t, label, events) if is_flat(t) else xaod_recipe(t, label, events)
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None, prog: str = "python -m rootparams.calibrate") -> int:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n")[0])
    parser.add_argument("file", help="a real ROOT file")
    parser.add_argument("--tree", default=None, help="the TTree (default: the one obvious event tree)")
    parser.add_argument("--output", default=None, help="where to write the recipe (default: stdout)")
    parser.add_argument("--events", type=int, default=None, help="calibrate on the first N events only")
    args = parser.parse_args(argv)
    try:
        text = recipe_from_file(args.file, args.tree, args.events)
    except CalibrationError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 2
    if args.output:
        Path(args.output).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
