"""Clone the profile of a real ROOT file into a synthetic recipe.

    rootparams calibrate FILE [--tree NAME] [--output RECIPE] [--events N]   (or python -m rootparams.ownfile.calibrate)

reads a real TTree or RNTuple with uproot and writes the writer's recipe text (the language of
write_collection_tree.cxx, as ``formats.recipe_text`` writes it for the built-in formats) that reproduces,
branch by branch (field by field): the type, the per-event element counts (the multiplicity of each collection,
and the length of inner vectors), the value distribution and what makes it compressible (share of the most
common value, number of distinct values, mantissa bits kept, runs of equal neighbours, integer ranges and
vocabularies, exp/gaus/uniform fits, repetition within one basket's worth of the branch beyond chance, sorted
order), the framing ROOT gives its objects and the container structure. The recipe is then a format like the
built-in ones: the writer writes it at any file setting. docs/formats.md ("Cloning a real file's profile") says
what each kind of data holds and how it is reproduced, and how close the clones of real files come.

Two layouts:
- xAOD (an ATLAS ``CollectionTree``, or ``EventData`` RNTuple): ``<C>`` interface, ``<C>Aux.`` store and
  ``<C>AuxDyn.<attr>`` branches (``<C>``, ``<C>Aux:``, ``<C>AuxDyn:<attr>`` fields) become a ``container`` with
  ``dyn`` attributes. Members of split static stores (``EventInfoAux.runNumber``) and leaves of split objects
  become attributes of the container too (the branch is then ``<C>AuxDyn.<member>``), scalar leaves
  (``EventInfoAuxDyn.GenFiltHT/F``) ``scalar`` lines under their own names. An object branch ROOT frames as an
  object (an interface, an aux store with or without members, a vector of object-wise element links) is decoded
  from its bytes (rootparams.tools.streamed) and written as a ``record`` of the same framing: its constant bytes, its
  element count, its members (``member`` attributes). Element links get their keys (``keys``), branches their real
  basket sizes (``basket``).
- flat (a NanoAOD ``Events``, TTree or RNTuple): ``layout flat``, a ``collection`` per counter ``n<C>`` with its
  arrays as ``column`` lines, other leaves as ``scalar`` lines.

What neither uproot nor the decoder reads as numbers (strings, sets, triple-nested vectors, maps) is approximated
as a ``uint8`` attribute of the same uncompressed bytes per event whose share of zero bytes gives the branch's own
compression ratio (marked ``# opaque`` in the recipe).
"""

from __future__ import annotations

import argparse
import itertools
import re
import sys
import warnings
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from rootparams.errors import UserError
from rootparams.ownfile.contentkinds import XAOD, grouping_of
from rootparams.ownfile.sources import EVENT_DATA_NAMES
from rootparams.tools import streamed
from rootparams.vocabulary import RNTUPLE, TTREE, container_of_class

# uproot and awkward take seconds to import: the functions that read a file import them.

NS = "xAODlike::"

# Element class of a real DataVector -> the writer's interface class (its element count is all it holds).
_INTERFACES = {
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
_SCALAR_TYPES = {
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
_NESTED_TYPES = {
    "float": "vfloat",
    "double": "vdouble",
    "int": "vint",
    "uint32": "vuint32",
    # no 64-bit nested kind in the writer: doubles holding the integers have the same 8 bytes
    "uint64": "vdouble",
    "int64": "vdouble",
}
_MANTISSA = {"float": 23, "double": 52}


class CalibrationError(UserError, RuntimeError):
    """A file that cannot be calibrated; the message names the file and what would be valid."""


# ----------------------------------------------------------------------------------------------------------
# Opening the file and finding the tree


def open_tree(path: str | Path, tree: str | None = None):
    """(uproot TTree or RNTuple, its name). Errors name the file and the trees and RNTuples it holds."""
    import uproot

    path = Path(path)
    if not path.exists():
        raise CalibrationError(f"{path}: no such file (give a ROOT file holding a TTree or an RNTuple)")
    try:
        f = uproot.open(path)
    except Exception as e:
        raise CalibrationError(f"{path}: not a ROOT file uproot can open ({type(e).__name__}: {e})") from None
    containers = {k.split(";")[0]: container_of_class(v) for k, v in f.classnames(recursive=False).items()}
    trees = sorted(k for k, c in containers.items() if c == TTREE)
    ntuples = sorted(k for k, c in containers.items() if c == RNTUPLE)
    listing = f"TTrees: {', '.join(trees) or 'none'}; RNTuples: {', '.join(ntuples) or 'none'}"
    if tree is None:
        known = [t for t in EVENT_DATA_NAMES if t in trees or t in ntuples]
        if len(known) == 1:
            tree = known[0]
        elif len(trees) + len(ntuples) == 1:
            tree = (trees + ntuples)[0]
        else:
            raise CalibrationError(f"{path}: no obvious event tree, choose one with --tree ({listing})")
    if tree not in trees and tree not in ntuples:
        raise CalibrationError(f"{path}: no TTree or RNTuple named {tree!r} ({listing})")
    return f[tree], tree


def is_ntuple(obj) -> bool:
    return "RNTuple" in type(obj).__name__


# ----------------------------------------------------------------------------------------------------------
# Distributions


def num(v: float, double: bool = False) -> str:
    v = float(v)
    if not np.isfinite(v):  # a fit over values near the type's limits overflowed: the largest finite value
        v = float(np.copysign(np.finfo(np.float64 if double else np.float32).max, v))
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


def mode_runs(x: np.ndarray, mode: float) -> tuple[float, float]:
    """(a, b) of the value ``mode`` in sequence ``x``: the share of elements equal to it after an element equal to
    it, and after any other (independent draws give a == b, the mode's share)."""
    m = x == mode
    after, other = m[1:][m[:-1]], m[1:][~m[:-1]]
    share = float(m.mean())
    return (float(after.mean()) if len(after) else share, float(other.mean()) if len(other) else share)


def fit_values(x: np.ndarray, kind: str, runs: float = 0.0, ordered: bool = False) -> list[str]:
    """The recipe distribution of values ``x`` of type ``kind`` (a leaf type name); ``runs``: the share of
    elements equal to their predecessor in the same vector. ``ordered``: ``x`` is one sequence as the writer
    draws it (a scalar's events): a most common value that comes in runs beyond chance is drawn as ``runs a b v``,
    and the other values' own repetition as ``repeat``."""
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
        a, b = mode_runs(x, values[i]) if ordered else (p_mode, p_mode)
        if a - b >= 0.1:  # runs of the mode: the other values' repetition measured between themselves
            others = (x[1:] != values[i]) & (x[:-1] != values[i])
            equal = float(np.mean(x[1:][others] == x[:-1][others])) if others.any() else 0.0
            rest_counts = np.delete(counts, i)
            rest_chance = float(((rest_counts / rest_counts.sum()) ** 2).sum())
            q = max(0.0, (equal - rest_chance) / (1 - rest_chance)) if rest_chance < 1 else 0.0
            out = ["repeat", f"{q:.3f}"] if q >= 0.05 else []
            out += ["runs", f"{a:.4f}", f"{b:.4f}", num(values[i], double)]
        else:
            out += ["sparse", f"{p_mode:.3f}", num(values[i], double)]
        rest = x[x != values[i]]
        values, counts = np.delete(values, i), np.delete(counts, i)
    integral = bool(np.all(rest == np.round(rest)))
    if integral or kind not in _MANTISSA:
        if len(values) <= 64:
            return [*out, "choice", *weighted(values, counts, double=double)]
        h = entropy_bits(counts)
        if h < 7:  # concentrated: quantiles keep the shape and about the entropy
            return [*out, "choice", *(num(v, double) for v in quantiles(rest, 128))]
        if values[-1] - values[0] + 1 > 16 * len(values):
            # a vocabulary (hashed names and keys, identifiers) spread over a wide range: its own values, each
            # about as often as observed (1024 quantiles), not a range that would hold none of them
            return [*out, "choice", *(num(v, double) for v in quantiles(rest, 1024))]
        med, width = float(np.median(rest)), 2.0**h
        lo = max(float(rest.min()), med - width / 2)
        return [*out, "int", num(np.floor(lo)), num(np.floor(lo + width))]
    body = fit_shape(rest, double)
    bits = mantissa_bits(rest, kind)
    if bits < _MANTISSA[kind] - 2:
        body = ["trunc", str(max(bits, 1)), *body]
    return out + body


def innermost(jagged) -> tuple[np.ndarray, np.ndarray]:
    """(values, lengths of the innermost vectors) of a jagged array (events x ... x values), in file order."""
    import awkward as ak

    a = jagged
    while a.ndim > 2:
        a = ak.flatten(a, axis=1)
    return ak.to_numpy(ak.flatten(a, axis=1)).astype(np.float64), ak.to_numpy(ak.num(a, axis=1)).astype(
        np.int64
    )


def neighbours(lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(vector index of each element, mask of the element pairs (i, i+1) inside one vector)."""
    vid = np.repeat(np.arange(len(lengths)), lengths)
    return vid, vid[1:] == vid[:-1]


def run_share(jagged) -> float:
    """Share of elements (after the first of each vector) equal to the previous one."""
    flat, lengths = innermost(jagged)
    if len(flat) < 2:
        return 0.0
    _, inside = neighbours(lengths)
    return float(np.mean((flat[1:] == flat[:-1])[inside])) if inside.any() else 0.0


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
    lines: list[str]  # dyn (or member) line(s) without the size line
    counts: np.ndarray | None  # per-event element counts (None: a scalar)
    note: str = ""
    member: bool = False  # stored inside its container's aux record (an unsplit store's member)
    record: list[str] = field(default_factory=list)  # the attribute's own branch as a record: its segments


@dataclass
class Cont:
    name: str
    interface: str = "-"
    aux: str = "-"
    columns: list[Column] = field(default_factory=list)
    records: dict[str, list[str]] = field(default_factory=dict)  # "interface"/"aux" -> record segments
    counts: np.ndarray | None = None  # element counts the interface's framing holds


def interface_of(classname: str) -> str:
    m = re.search(r"xAOD::(\w+?)(_v\d+)?>?$", classname.replace(" ", ""))
    stem = m.group(1) if m else ""
    return NS + _INTERFACES.get(stem, "AuxVectorBase")


def read(branch, events):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return branch.array(library="ak", entry_stop=events)


def opaque_column(
    cont: str, attr: str, per_event: np.ndarray, ratio: float, why: str, member=False
) -> Column:
    """A uint8 attribute of ``per_event`` bytes whose share of zero bytes gives compression ratio ``ratio``."""
    word = "member" if member else "dyn"
    dyn = f"{word} {cont} {attr} uint8 " + " ".join(opaque_values(ratio))
    note = f"# opaque: {why}"
    return Column(attr, [note, dyn], np.asarray(per_event, dtype=np.int64), note=note, member=member)


def opaque(cont: str, attr: str, branch, entries: int, why: str) -> Column:
    tot, zipped = branch.uncompressed_bytes, branch.compressed_bytes
    per_event = max(0, round(tot / max(entries, 1)) - 14)
    return opaque_column(cont, attr, np.full(entries, per_event), tot / max(zipped, 1), why)


def link_column(
    cont: str, attr: str, arr, nested: bool, target: str, word: str = "dyn"
) -> tuple[list[str], np.ndarray]:
    """dyn lines of a link attribute. Keys: a hashed key per target container, repeating from link to link; a
    null link (a target thinned away or never set) has key 0 and a fixed index (0xFFFFFFFF, or 0). When the real
    keys are one non-zero value the writer's hash of the target stands for it; otherwise a ``keys`` line gives
    their distribution (null links included) and the null links' index. Indices: the element's own position, a
    walk increasing along a vector, or a fit of the real indices (of the non-null links)."""
    import awkward as ak

    fields = ak.fields(arr)
    kf = next(f for f in fields if f.endswith("m_persKey"))
    xf = next(f for f in fields if f.endswith("m_persIndex"))
    idx = arr[xf]
    flat = ak.to_numpy(ak.flatten(idx, axis=None)).astype(np.float64)
    keys = ak.to_numpy(ak.flatten(arr[kf], axis=None)).astype(np.float64)
    counts = ak.to_numpy(ak.num(idx, axis=1))
    typ = "vlink" if nested else "link"
    inner = (
        [f"inner {cont} {attr} " + " ".join(empirical(ak.to_numpy(ak.flatten(ak.num(idx, axis=2))), 64))]
        if nested
        else []
    )
    if not len(flat):
        return [f"{word} {cont} {attr} {typ} {target} const 0", *inner], counts
    null = keys == 0
    key_lines = []
    if null.any() or len(np.unique(keys)) > 1:
        # the index of a null link: 0xFFFFFFFF (never set) or 0 (its target thinned away), the more common
        null_index = 0 if null.any() and np.mean(flat[null] == 0) > 0.5 else 4294967295
        runs = float(np.mean(keys[1:] == keys[:-1])) if len(keys) > 1 else 0.0
        key_lines = [f"keys {cont} {attr} {null_index} " + " ".join(fit_values(keys, "uint32", runs))]
    ok_mask = ~null & (flat < 2**31)
    ok = flat[ok_mask]
    invalid = 1 - len(ok) / max(1, int((~null).sum())) if (~null).any() else 0.0
    if nested:
        valid_idx = idx[arr[kf] != 0]
        diffs = ak.to_numpy(ak.flatten(valid_idx[..., 1:] - valid_idx[..., :-1], axis=None)).astype(np.int64)
        increasing = len(diffs) and np.mean((diffs > 0) & (diffs < 2**31)) > 0.8
    else:
        local = ak.to_numpy(ak.flatten(ak.local_index(idx, axis=1), axis=None))
        increasing = False
        if len(ok) and np.mean(flat[~null] == local[~null]) > 0.9:
            return [f"{word} {cont} {attr} {typ} {target} linear 0 1 const 0", *inner, *key_lines], counts
    if increasing:
        firsts = valid_idx[ak.num(valid_idx, axis=-1) > 0][..., 0]
        first = ak.to_numpy(ak.flatten(firsts, axis=None)).astype(np.float64)
        steps = diffs[(diffs > 0) & (diffs < 2**31)].astype(np.float64)
        step = fit_values(steps, "int")
        # walk a D: a + D for the first link of a vector, then the previous index + D (a: the median first index)
        body = ["walk", num(np.median(first[first < 2**31]) if len(first) else 0), *step]
    else:
        body = fit_values(ok, "int") if len(ok) else ["const", "0"]
    if invalid >= 0.01:
        body = ["sparse", f"{invalid:.3f}", "4294967295", *body]
    return [f"{word} {cont} {attr} {typ} {target} " + " ".join(body), *inner, *key_lines], counts


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


def seen_within(ids: np.ndarray, window: int) -> float:
    """Share of the items equal to one of the ``window`` items before them."""
    n = len(ids)
    if n < 2:
        return 0.0
    order = np.argsort(ids, kind="stable")
    ranked = ids[order]
    same = ranked[1:] == ranked[:-1]
    previous = np.full(n, -(10**12), dtype=np.int64)
    previous[order[1:][same]] = order[:-1][same]
    return float(np.mean(np.arange(n) - previous <= window))


def unit_ids(arr, nested: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ids of the units, the values, the units' lengths): the units are the elements of a flat column or the inner
    vectors of a nested one, in file order; equal units have equal ids. Links count as (key, index) pairs."""
    import awkward as ak

    inner = ak.flatten(arr, axis=1) if nested else arr
    if ak.fields(inner):
        kf = next(f for f in ak.fields(inner) if f.endswith("m_persKey"))
        xf = next(f for f in ak.fields(inner) if f.endswith("m_persIndex"))
        keys = ak.to_numpy(ak.flatten(inner[kf], axis=None)).astype(np.uint64)
        values = (keys << np.uint64(32)) | ak.to_numpy(ak.flatten(inner[xf], axis=None)).astype(np.uint64)
    else:
        values = ak.to_numpy(ak.flatten(inner, axis=None))
    values = np.ascontiguousarray(values)
    if not nested:
        return (
            np.unique(values, return_inverse=True)[1].astype(np.int64),
            values,
            np.ones(len(values), np.int64),
        )
    lengths = ak.to_numpy(ak.num(inner, axis=1)).astype(np.int64)
    return vector_ids(values, lengths), values, lengths


def vector_ids(values: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    raw = values.tobytes()
    size = values.dtype.itemsize
    table: dict[bytes, int] = {}
    return np.array(
        [table.setdefault(raw[a * size : b * size], len(table)) for a, b in itertools.pairwise(offsets)],
        np.int64,
    )


def reuse_share(arr, nested: bool, window: int) -> float:
    """Share of the elements (flat) or inner vectors (nested) equal to one of the ``window`` before them in the
    column, across events, beyond what independent draws of the same values give (the same count with the values
    shuffled over the positions, the lengths kept): the repetition a compressor finds in one basket."""
    ids, values, lengths = unit_ids(arr, nested)
    if len(ids) < 8:
        return 0.0
    share = seen_within(ids, window)
    shuffled = np.random.default_rng(1).permutation(values)
    base_ids = np.unique(shuffled, return_inverse=True)[1] if not nested else vector_ids(shuffled, lengths)
    base = seen_within(np.asarray(base_ids, np.int64), window)
    return max(0.0, (share - base) / (1 - base)) if base < 1 else 0.0


def seen_mask(ids: np.ndarray, window: int) -> np.ndarray:
    """For each item: whether an equal item is among the ``window`` before it."""
    n = len(ids)
    order = np.argsort(ids, kind="stable")
    ranked = ids[order]
    same = ranked[1:] == ranked[:-1]
    previous = np.full(n, -(10**12), dtype=np.int64)
    previous[order[1:][same]] = order[:-1][same]
    return np.arange(n) - previous <= window


def covered_runs(ids: np.ndarray, window: int) -> tuple[float, np.ndarray]:
    """The share of a stream's items inside repeated pairs (an item and the next, equal to a pair among the
    ``window`` before: what an LZ77 compressor copies rather than codes) and the lengths of the covered runs."""
    if len(ids) < 3:
        return 0.0, np.zeros(0, np.int64)
    pairs = ids[:-1] * (int(ids.max()) + 1) + ids[1:]
    seen = seen_mask(pairs, window)
    covered = np.zeros(len(ids), bool)
    covered[:-1] |= seen
    covered[1:] |= seen
    edges = np.diff(np.concatenate([[0], covered.astype(np.int8), [0]]))
    runs = np.flatnonzero(edges == -1) - np.flatnonzero(edges == 1)
    return float(covered.mean()), runs


def excess(real: float, chance: float) -> float:
    return max(0.0, (real - chance) / (1 - chance)) if chance < 1 else 0.0


def reuse_line(cont: str, attr: str, arr, nested: bool, per_basket: float) -> list[str]:
    """A reuse line when the column repeats itself beyond chance within a basket's worth of it (``per_basket``:
    the real branch's elements, or inner vectors, per basket). Nested: the share of inner vectors equal to an
    earlier one. Flat: runs of elements equal to an earlier run (repeated pairs, the lengths of the runs they
    make), or else single elements equal to an earlier one; both beyond what the same values shuffled give."""
    window = int(min(max(per_basket, 16), 65536))
    if nested:
        q = reuse_share(arr, True, window)
        return [f"reuse {cont} {attr} {q:.3f} {window}"] if q >= 0.05 else []
    ids, values, _ = unit_ids(arr, False)
    if len(ids) < 8:
        return []
    shuffled = np.unique(np.random.default_rng(1).permutation(values), return_inverse=True)[1].astype(
        np.int64
    )
    share, runs = covered_runs(ids, window)
    chance, _ = covered_runs(shuffled, window)
    q = excess(share, chance)
    if q >= 0.05 and len(runs):
        mean = float(runs.mean())
        start = q / (mean - q * mean + q)  # copies start at this rate among the elements not in a copy
        return [f"reuse {cont} {attr} {start:.4f} {window} " + " ".join(empirical(runs, 64))]
    q = excess(seen_within(ids, window), seen_within(shuffled, window))
    return [f"reuse {cont} {attr} {q:.3f} {window}"] if q >= 0.05 else []


def order_line(cont: str, attr: str, arr, nested: bool, integral: bool) -> list[str]:
    """An order line when (nearly) every vector with two elements or more, each event's (flat) or each inner one
    (nested), is sorted: pT-ordered objects, sorted lists of identifiers (with unique, when their values never
    repeat inside one)."""
    flat, lengths = innermost(arr)
    long_enough = lengths >= 2
    if long_enough.sum() < 20:
        return []
    vid, inside = neighbours(lengths)

    def share(
        pair_ok: np.ndarray,
    ) -> float:  # of the vectors with two elements or more, those with every pair ok
        bad = np.bincount(vid[1:][inside & ~pair_ok], minlength=len(lengths))
        return float(np.mean(bad[long_enough] == 0))

    for word, ok in (("ascending", flat[1:] >= flat[:-1]), ("descending", flat[1:] <= flat[:-1])):
        if share(ok) >= 0.95:
            unique = " unique" if integral and share(flat[1:] != flat[:-1]) >= 0.99 else ""
            return [f"order {cont} {attr} {word}{unique}"]
    return []


_LINK_TYPE = re.compile(r"(vector<)?vector<ElementLink<DataVector<xAOD::(\w+)>>>>?")


def column_from_array(
    cont: str, attr: str, t: str, arr, fallback, member: bool = False, basket_events: float = 1.0
) -> Column:
    """The recipe lines of one attribute of normalized type ``t`` whose values (per event) are ``arr``;
    ``fallback(why)`` gives the opaque column when the values cannot be modelled. ``basket_events``: the real
    branch's events per basket (the window of its reuse line)."""
    import awkward as ak

    word = "member" if member else "dyn"
    link = _LINK_TYPE.fullmatch(t)
    events = max(1, len(arr))

    def units_per_basket(nested: bool) -> float:  # elements, or inner vectors for a nested column
        return float(ak.sum(ak.num(arr, axis=1))) / events * basket_events

    if link:
        try:
            nested = t.startswith("vector<vector<")
            lines, counts = link_column(cont, attr, arr, nested, link.group(2), word)
            lines += reuse_line(cont, attr, arr, nested, units_per_basket(nested))
            return Column(attr, lines, counts, member=member)
        except Exception as e:
            return fallback(f"{t} links unreadable ({type(e).__name__})")
    m = re.fullmatch(r"vector<(vector<)?(\w+)>?>", t)
    if not m or m.group(2) not in _SCALAR_TYPES:
        return fallback(t)
    leaf = _SCALAR_TYPES[m.group(2)]
    nested = bool(m.group(1))
    counts = ak.to_numpy(ak.num(arr, axis=1))
    flat = ak.to_numpy(ak.flatten(arr, axis=None)).astype(np.float64)
    runs = run_share(arr)
    if nested:
        typ = _NESTED_TYPES.get(leaf)
        if typ is None:
            return fallback(t)
        inner = ak.to_numpy(ak.flatten(ak.num(arr, axis=2), axis=None))
        integral = leaf not in _MANTISSA
        lines = [
            f"{word} {cont} {attr} {typ} "
            + " ".join(fit_values(flat, "double" if typ == "vdouble" else leaf, runs)),
            f"inner {cont} {attr} " + " ".join(empirical(inner, 64)),
            *reuse_line(cont, attr, arr, True, units_per_basket(True)),
            *order_line(cont, attr, arr, True, integral),
        ]
        return Column(attr, lines, counts, member=member)
    typ = "uint8" if leaf == "bool" else leaf
    cycle = per_position(arr, leaf)
    lines = [f"{word} {cont} {attr} {typ} " + " ".join(cycle or fit_values(flat, leaf, runs))]
    if (
        not cycle
    ):  # a fixed record per position (trigger words) is neither reused nor sorted element by element
        lines += reuse_line(cont, attr, arr, False, units_per_basket(False))
        lines += order_line(cont, attr, arr, False, leaf not in _MANTISSA)
    return Column(attr, lines, counts, member=member)


def column_of(cont: str, attr: str, branch, entries: int, events) -> Column | str:
    """The recipe lines of one branch holding per-element values, or a scalar line (str)."""
    import awkward as ak

    t = normalize(branch.typename)
    if t.endswith("[]"):
        t = f"vector<{t[:-2]}>"
    if t in _SCALAR_TYPES and not branch.branches:
        x = ak.to_numpy(read(branch, events)).astype(np.float64)
        leaf = _SCALAR_TYPES[t]
        return f"scalar {branch.name} {leaf} " + " ".join(fit_values(x, leaf))
    try:
        arr = read(branch, events)
    except Exception as e:
        return opaque(cont, attr, branch, entries, f"{branch.typename} unreadable ({type(e).__name__})")
    col = column_from_array(
        cont,
        attr,
        t,
        arr,
        lambda why: opaque(cont, attr, branch, entries, why),
        basket_events=basket_events(branch),
    )
    if _LINK_TYPE.fullmatch(t) and t.startswith("vector<vector<") and not branch.branches:
        # An unsplit vector of vectors of links: each link framed object-wise as the real file frames it.
        element = link_framing(branch, events)
        if element is not None:
            col.record = [f"body:{attr}:{element}"]
    return col


def basket_events(branch) -> float:
    """Entries in the first basket of ``branch`` (or of the first branch below it that has baskets)."""
    for b in [branch, *branch.itervalues(recursive=True)]:
        if b.num_baskets:
            start, stop = b.basket_entry_start_stop(0)
            return float(max(1, stop - start))
    return 1.0


def link_framing(branch, events) -> str | None:
    """The framing before each link of an unsplit vector<vector<ElementLink>> branch (hex), from its bytes."""
    for entry in streamed.raw_entries(branch, events)[:50]:
        try:
            member, _ = streamed.decode_member(entry, 0, len(entry), branch.name, branch.typename, None)
        except (streamed.Undecodable, ValueError):
            return None
        if member.element:
            return member.element
    return None


# ----------------------------------------------------------------------------------------------------------
# Objects: interface objects, aux stores and other objects, from their streamed bytes


def member_array(m: streamed.Member):
    """The values of a decoded member as uproot would give them (an awkward array per event)."""
    import awkward as ak

    def ints(x) -> np.ndarray:
        return np.asarray(x, dtype=np.int64)

    def native(chunks: list[np.ndarray], dtype) -> np.ndarray:
        flat = np.concatenate(chunks) if chunks else np.zeros(0, dtype)
        return flat.astype(flat.dtype.newbyteorder("="))

    if m.shape == "vector":
        return ak.unflatten(native(m.values, np.float32), ints([len(v) for v in m.values]))
    if m.shape == "nested":
        rows = [r for event in m.values for r in event]
        inner = ak.unflatten(native(rows, np.float32), ints([len(r) for r in rows]))
        return ak.unflatten(inner, ints([len(event) for event in m.values]))
    lengths = [v[0] for v in m.values]
    links = ak.zip(
        {
            "m_persKey": native([v[1] for v in m.values], np.uint32),
            "m_persIndex": native([v[2] for v in m.values], np.uint32),
        }
    )
    if m.shape == "links":
        return ak.unflatten(links, ints([int(n[0]) for n in lengths]))
    inner = ak.unflatten(links, ints(np.concatenate(lengths)) if lengths else ints([]))
    return ak.unflatten(inner, ints([len(n) for n in lengths]))


def zlib_ratio(chunks: list[bytes]) -> float:
    data = b"".join(chunks)
    return len(data) / max(1, len(zlib.compress(data, 5))) if data else 1.0


def member_column(cont: str, m: streamed.Member, per_basket: float = 1.0) -> tuple[Column, str]:
    """An aux store's decoded member as a ``member`` attribute, and its record segment."""
    if m.shape == "opaque" or (m.shape == "scalar" and m.leaf not in _LEAF_OK):
        chunks = [v.tobytes() for v in m.values]
        if m.shape == "opaque":  # its own byte count, version and element count (4 bytes), then the bytes
            sizes = [max(0, len(c) - 4) for c in chunks]
            col = opaque_column(cont, m.name, sizes, zlib_ratio(chunks), m.typename, member=True)
            return col, f"vector:{m.name}:{m.version}"
        col = opaque_column(
            cont, m.name, [len(c) for c in chunks], zlib_ratio(chunks), m.typename, member=True
        )
        return col, f"raw:{m.name}"
    if m.shape == "scalar":
        x = np.concatenate(m.values).astype(np.float64)
        line = f"member {cont} {m.name} {m.leaf} " + " ".join(fit_values(x, m.leaf))
        col = Column(m.name, [line, f"size {cont} {m.name} fixed 1"], None, member=True)
        return col, f"raw:{m.name}"
    t = normalize(m.typename)
    col = column_from_array(
        cont,
        m.name,
        t,
        member_array(m),
        lambda why: opaque_column(cont, m.name, [max(0, s - 10) for s in m.sizes], 4.0, why, member=True),
        member=True,
        basket_events=per_basket,
    )
    if "# opaque" in col.note:
        return col, f"vector:{m.name}:{m.version}"
    segment = f"vector:{m.name}:{m.version}"
    return col, segment + (f":{m.element}" if m.element else "")


_LEAF_OK = {"float", "double", "int8", "uint8", "int16", "uint16", "int", "uint32", "int64", "uint64"}


def object_record(c: Cont, part: str, lay: streamed.Layout, per_basket: float = 1.0) -> bool:
    """Record segments for an object branch of container ``c`` from its layout; its members become ``member``
    attributes of ``c``. False when the entries are not framed (the writer's own class stands for them)."""
    if not lay.framed:
        return False
    segments = [f"h:{lay.header}"] if lay.header else []
    if lay.head_bytes:  # a base class holding data of its own: opaque bytes of the same sizes
        col = opaque_column(
            c.name,
            f"{part}_base",
            [len(h) for h in lay.head_bytes],
            zlib_ratio(lay.head_bytes),
            "base-class data",
            member=True,
        )
        c.columns.append(col)
        segments.append(f"raw:{col.attr}")
    for m in lay.members:
        col, segment = member_column(c.name, m, per_basket)
        c.columns.append(col)
        segments.append(segment)
    if lay.counts is not None:
        segments.append("count")
        if part == "interface":
            c.counts = lay.counts
        if lay.words:
            arr = member_array(
                streamed.Member("words", "vector<unsigned int>", "vector", "uint32", values=lay.words)
            )
            col = column_from_array(c.name, f"{part}_words", "vector<unsignedint>", arr, None, member=True)
            c.columns.append(col)
            segments.append(f"raw:{col.attr}")
    if lay.rest:
        col = opaque_column(
            c.name,
            f"{part}_rest",
            [len(r) for r in lay.rest],
            zlib_ratio(lay.rest),
            "undecoded bytes",
            member=True,
        )
        c.columns.append(col)
        segments.append(f"raw:{col.attr}")
    c.records[part] = segments
    return True


# ----------------------------------------------------------------------------------------------------------
# Basket sizes


def basket_size(branch) -> int:
    """The basket size that makes a clone of ``branch`` fill its baskets as the real file did: the first
    basket's entries, its key and its offsets reach it at that basket's last entry and not before (ROOT writes
    a basket when its buffer, with the next entry's room, reaches the size). A branch of one basket: at least
    its whole content (and the file's own setting for it)."""
    n = branch.num_baskets
    if n == 0:
        return int(branch.member("fBasketSize"))
    start, stop = branch.basket_entry_start_stop(0)
    k = max(1, int(stop - start))
    objlen = int(branch.basket_uncompressed_bytes(0))
    try:
        keylen = int(branch.basket_key(0).fKeylen)
    except ValueError:  # a basket kept inside the TTree object, never flushed: it has no key of its own
        return int(max(branch.member("fBasketSize"), objlen + 4 * k + 512))
    entry = objlen / k
    if n == 1:
        return int(max(branch.member("fBasketSize"), keylen + objlen + 4 * k + 2 * entry + 512))
    return int(max(16, keylen + objlen + 4 * k - entry / 2))


# ----------------------------------------------------------------------------------------------------------
# The tree


def leaves(branch):
    """``branch`` and the branches below it that hold bytes of their own, with the own-bytes parents."""
    out = []
    for sub in branch.branches:
        if sub.branches:
            out += leaves(sub)
            if sub.num_baskets:
                out.append(sub)
        else:
            out.append(sub)
    return out


def xaod_recipe(tree, name: str, events) -> list[str]:
    entries = min(tree.num_entries, events or tree.num_entries)
    streamers = tree.file.streamers
    conts: dict[str, Cont] = {}
    scalars: list[str] = []
    baskets: dict[str, int] = {}

    def cont(c: str) -> Cont:
        return conts.setdefault(c, Cont(c))

    def add(c: Cont, col: Column | str, branch, attr: str, as_scalar: str) -> None:
        if isinstance(col, str):
            scalars.append(col.replace(f"scalar {branch.name} ", f"scalar {as_scalar} ", 1))
            baskets.setdefault(as_scalar, basket_size(branch))
        else:
            c.columns.append(col)
            baskets.setdefault(f"{c.name}AuxDyn.{attr}", basket_size(branch))

    for b in tree.branches:
        n = b.name
        m = re.fullmatch(r"(.+?)Aux(Dyn)?\.(.*)", n)
        if m and m.group(2):  # <C>AuxDyn.<attr>
            c = cont(m.group(1))
            add(c, column_of(m.group(1), m.group(3), b, entries, events), b, m.group(3), n)
        elif m:  # <C>Aux. static store
            c = cont(m.group(1))
            c.aux = NS + "AuxContainerBase"
            if not b.branches:  # unsplit: its members, framed as the real file frames them, in a record
                lay = streamed.layout(streamed.raw_entries(b, events), b.typename, streamers)
                object_record(c, "aux", lay, basket_events(b))
                baskets[f"{c.name}Aux."] = basket_size(b)
                continue
            for sub in b.branches:  # split: members become attributes, the base-class part the aux record
                attr = sub.name.rsplit(".", 1)[-1]
                if "::" in sub.name.split(".", 1)[-1]:
                    if sub.num_baskets and not sub.branches:
                        lay = streamed.layout(streamed.raw_entries(sub, events), attr, streamers)
                        if object_record(c, "aux", lay):
                            baskets[f"{c.name}Aux."] = basket_size(sub)
                    continue
                add(
                    c,
                    column_of(m.group(1), attr, sub, entries, events),
                    sub,
                    attr,
                    f"{m.group(1)}AuxDyn.{attr}",
                )
        else:  # an interface object (possibly split: its data-holding sub-branches become attributes)
            c = cont(n)
            c.interface = interface_of(b.typename)
            if not b.branches:
                if b.num_baskets:
                    raw = streamed.raw_entries(b, events)
                    lay = streamed.layout(raw, b.typename, streamers)
                    if object_record(c, "interface", lay):
                        baskets[n] = basket_size(b)
                    elif raw and all(len(e) == 4 for e in raw):  # a split DataVector's own bytes: its count
                        c.counts = np.array([int.from_bytes(e, "big") for e in raw], np.int64)
                continue
            for sub in leaves(b):
                attr = re.sub(
                    r"\W", "_", sub.name[len(n) + 1 :] if sub.name.startswith(n + ".") else sub.name
                )
                if sub.branches:  # the own bytes of a split collection: its element count
                    counts = ak_counts(sub, events)
                    scalars.append(
                        f"scalar {n}AuxDyn.{attr} uint32 " + " ".join(fit_values(counts, "uint32"))
                    )
                    baskets.setdefault(f"{n}AuxDyn.{attr}", basket_size(sub))
                    continue
                add(c, column_of(n, attr, sub, entries, events), sub, attr, f"{n}AuxDyn.{attr}")

    lines = [f"# rootparams recipe calibrated on {name} (rootparams.ownfile.calibrate; {entries} events)"]
    lines += scalars
    for c in conts.values():
        lines += container_lines(c, entries)
    lines += [f"basket {b} {size}" for b, size in baskets.items()]
    return lines


def container_lines(c: Cont, entries: int) -> list[str]:
    """A container's recipe lines: its multiplicity (the interface's element counts, else the counts most of its
    attributes share), its attributes, their own sizes, inner lengths, keys and records."""
    if c.counts is not None:
        mult = c.counts[:entries]
    else:
        keyed = [
            tuple(col.counts)
            for col in c.columns
            if col.counts is not None and not col.attr.endswith("_rest")
        ]
        if keyed:
            mult = np.array(max(set(keyed), key=lambda k: (keyed.count(k), -keyed.index(k))))
        else:
            mult = np.zeros(entries, dtype=int)
    lines = [f"container {c.name} {c.interface} {c.aux} " + " ".join(empirical(mult))]
    tail = []
    for col in c.columns:
        lines += [ln for ln in col.lines if not ln.startswith(("inner ", "keys ", "size "))]
        tail += [ln for ln in col.lines if ln.startswith(("inner ", "keys ", "size "))]
        sized = any(ln.startswith("size ") for ln in col.lines)
        if col.counts is not None and not sized and tuple(col.counts) != tuple(mult):
            tail.append(f"size {c.name} {col.attr} " + " ".join(empirical(col.counts)))
        if col.record:
            tail.append(f"record {c.name} {col.attr} " + " ".join(col.record))
    lines += tail
    for part, segments in c.records.items():
        if part == "interface" and c.interface == "-":
            continue
        lines.append(f"record {c.name} {part} " + " ".join(segments))
    return lines


def ak_counts(branch, events) -> np.ndarray:
    """The element count of each entry of a split collection's own branch (its first 4 bytes)."""
    return np.array(
        [int.from_bytes(e[:4], "big") if len(e) >= 4 else 0 for e in streamed.raw_entries(branch, events)],
        np.float64,
    )


def flat_recipe(tree, name: str, events) -> list[str]:
    import awkward as ak

    entries = min(tree.num_entries, events or tree.num_entries)
    counters = {b.count_branch.name for b in tree.branches if getattr(b, "count_branch", None) is not None}
    lines = [
        f"# rootparams recipe calibrated on {name} (rootparams.ownfile.calibrate; {entries} events)",
        "layout flat",
    ]
    collections: dict[str, list[str]] = {}
    for b in tree.branches:
        t = normalize(b.typename)
        if b.name in counters:
            continue
        counter = getattr(b, "count_branch", None)
        if counter is None:
            if t not in _SCALAR_TYPES:
                raise CalibrationError(f"{name}: branch {b.name} of type {b.typename} is not a flat leaf")
            x = ak.to_numpy(read(b, events)).astype(np.float64)
            lines.append(f"scalar {b.name} {_SCALAR_TYPES[t]} " + " ".join(fit_values(x, _SCALAR_TYPES[t])))
            continue
        leaf = _SCALAR_TYPES.get(t.removesuffix("[]"))
        if leaf is None:
            raise CalibrationError(f"{name}: array branch {b.name} of type {b.typename} is not supported")
        arr = read(b, events)
        x = ak.to_numpy(ak.flatten(arr, axis=None)).astype(np.float64)
        col = f"column {{C}} {b.name} {leaf} " + " ".join(fit_values(x, leaf, run_share(arr)))
        per_basket = float(ak.sum(ak.num(arr, axis=1))) / max(1, len(arr)) * basket_events(b)
        collections.setdefault(counter.name, []).append(col)
        collections[counter.name] += reuse_line("{C}", b.name, arr, False, per_basket)
        collections[counter.name] += order_line("{C}", b.name, arr, False, leaf not in _MANTISSA)
    for counter, cols in collections.items():
        cname = counter[1:] if counter.startswith("n") else counter
        counts = ak.to_numpy(read(tree[counter], events))
        lines.append(f"collection {cname} {counter} " + " ".join(empirical(counts)))
        lines += [c.replace("{C}", cname, 1) for c in cols]
    return lines


# ----------------------------------------------------------------------------------------------------------
# Any other TTree: not ATLAS xAOD, not a NanoAOD-like leaf-list ntuple (flat trees of vectors, RVecs and strings,
# split objects, TClonesArrays and split collections of objects)

# A fixed array dimension ([3]) or a variable one ([]) in uproot's type names (float[][3], Double32_t[]).
_DIMENSION = re.compile(r"\[(\d*)\]")


def _range_number(text: str) -> float | None:
    """A number of a Double32_t range as ROOT reads it: 8.0, -1, 2*pi, pi/2, -pi; None for anything else."""
    tokens = re.split(r"([*/])", text.replace(" ", ""))

    def one(word: str) -> float:
        sign = -1.0 if word.startswith("-") else 1.0
        word = word.lstrip("+-")
        return sign * (np.pi if word.lower() == "pi" else float(word))

    try:
        value = one(tokens[0])
        for op, word in zip(tokens[1::2], tokens[2::2], strict=True):
            value = value * one(word) if op == "*" else value / one(word)
    except (ValueError, ZeroDivisionError):
        return None
    return value


def packed_range(branch) -> tuple[float, float, int] | None:
    """(xmin, xmax, nbits) of a Double32_t or Float16_t branch that ROOT stores as an nbits integer of its range
    (its member's comment ``//[xmin,xmax,nbits]``, a leaf title ``x/d[xmin,xmax,nbits]``), else None: without a
    range it is stored as a float."""
    element = streamed.streamer_element(branch) if branch.has_member("fClassName") else None
    if element is not None and element.has_member("fTitle"):
        title = str(element.member("fTitle"))
    else:
        leaves = branch.member("fLeaves") if branch.has_member("fLeaves") else []
        title = str(leaves[0].member("fTitle")) if leaves else ""
    m = re.search(r"\[([^,\]]+),([^,\]]+)(?:,\s*(\d+))?\s*\]", title)
    if not m:
        return None
    xmin, xmax = _range_number(m[1]), _range_number(m[2])
    if xmin is None or xmax is None or xmax <= xmin:  # [0,0,n]: a float of fewer mantissa bits
        return None
    nbits = int(m[3]) if m[3] else 32
    return xmin, xmax, nbits if 2 <= nbits <= 32 else 32


def pack(x: np.ndarray, packing: tuple[float, float, int]) -> np.ndarray:
    """The integers ROOT stores for values ``x`` of a ranged Double32_t (TBufferFile::WriteDouble32)."""
    xmin, xmax, nbits = packing
    factor = (float(1 << nbits) if nbits < 32 else float(0xFFFFFFFF)) / (xmax - xmin)
    return np.floor(0.5 + factor * (np.clip(x, xmin, xmax) - xmin))


def stored_values(branch, arr) -> tuple[str, object] | None:
    """(the recipe's leaf type, the values as stored, in the shape of ``arr``) of a branch of numbers: a ranged
    Double32_t or Float16_t as the uint32 integers ROOT writes, an unranged one as a float (32 bits); None when it
    does not hold numbers."""
    import awkward as ak

    base = _DIMENSION.sub("", normalize(str(branch.typename)))
    if base in ("Double32_t", "Float16_t"):
        packing = packed_range(branch)
        if packing is None:
            return "float", arr
        flat = ak.flatten(arr, axis=None) if arr.ndim > 1 else arr
        packed = pack(ak.to_numpy(flat).astype(np.float64), packing).astype(np.uint32)
        if arr.ndim > 1:
            for counts in reversed([ak.num(arr, axis=d) for d in range(1, arr.ndim)]):
                packed = ak.unflatten(packed, ak.flatten(counts, axis=None))
        return "uint32", packed
    leaf = _SCALAR_TYPES.get(base)
    return (leaf, arr) if leaf else None


def _fixed_dimensions(branch) -> list[int]:
    return [int(d) for d in _DIMENSION.findall(normalize(str(branch.typename))) if d]


class ObjectsRecipe:
    """The recipe of a TTree of any other layout, branch by branch, in the writer's xaod layout: one value per
    event as ``scalar`` leaves; a TClonesArray, a split collection of objects or a counted leaf array as a
    ``collection`` (its size as the counter leaf, its members as leaf arrays: the same bytes as ROOT's split
    members); a fixed array as one scalar (or one array) per position; an unsplit ``std::vector`` or
    ``ROOT::RVec`` of numbers (or of vectors of them) as a ``container`` with one attribute, framed as a vector
    branch; a C string or ``std::string`` as a collection of characters; anything else (a class stored unsplit,
    a ``TRefArray``) as opaque bytes of the same size and compressibility. Names are the real branches' (made
    unique and, for leaf arrays and counters, of letters, digits and ``_``)."""

    def __init__(self, tree, events):
        self.tree, self.events = tree, events
        self.entries = min(tree.num_entries, events or tree.num_entries)
        self.names: set[str] = set()
        self.scalars: list[str] = []
        # collection -> its lines (the first: the collection line)
        self.collections: dict[str, list[str]] = {}
        self.conts: dict[str, Cont] = {}
        self.baskets: dict[str, int] = {}
        self.counted: dict[str, str] = {}  # a real counter branch -> its collection
        self.counts: dict[str, np.ndarray] = {}  # collection -> its element count per event
        self.counters = {
            b.count_branch.name
            for b in tree.itervalues(recursive=True)
            if getattr(b, "count_branch", None) is not None
        }

    def unique(self, name: str, plain: bool = False) -> str:
        """``name`` (letters, digits and _ only if ``plain``), with _2, _3, ... if the clone has it already."""
        base = re.sub(r"\W", "_", name) if plain else name
        out, k = base, 1
        while out in self.names:
            k += 1
            out = f"{base}_{k}"
        self.names.add(out)
        return out

    def basket(self, name: str, branch) -> None:
        self.baskets.setdefault(name, basket_size(branch))

    # -- one value per event

    def scalar(self, name: str, leaf: str, x: np.ndarray, branch) -> None:
        """One value per event: its distribution, with the runs its sequence of events holds (the writer draws a
        scalar's values along the events)."""
        x = np.asarray(x, dtype=np.float64)
        runs = float(np.mean(x[1:] == x[:-1])) if len(x) > 1 else 0.0
        name = self.unique(name)
        self.scalars.append(f"scalar {name} {leaf} " + " ".join(fit_values(x, leaf, runs, ordered=True)))
        self.basket(name, branch)

    # -- several values per event

    def collection(self, name: str, counts: np.ndarray, branch) -> str:
        cname = self.unique(name, plain=True)
        self.collections[cname] = [f"collection {cname} {cname} " + " ".join(empirical(counts))]
        self.counts[cname] = np.asarray(counts, np.int64)
        self.basket(cname, branch)
        return cname

    def column(self, cname: str, name: str, leaf: str, arr, branch) -> None:
        import awkward as ak

        column = self.unique(name, plain=True)
        x = ak.to_numpy(ak.flatten(arr, axis=None)).astype(np.float64)
        per_basket = float(ak.sum(ak.num(arr, axis=1))) / max(1, len(arr)) * basket_events(branch)
        self.collections[cname] += [
            f"column {cname} {column} {leaf} " + " ".join(fit_values(x, leaf, run_share(arr))),
            *reuse_line(cname, column, arr, False, per_basket),
            *order_line(cname, column, arr, False, leaf not in _MANTISSA),
        ]
        self.basket(column, branch)

    def opaque(self, branch, why: str) -> None:
        """Opaque bytes: per event, the branch's own bytes of the entry less a vector's framing, with its ratio
        (the real one where its baskets were written, else zlib-5's on the entries: baskets kept inside the TTree
        object have no compressed size of their own)."""
        cname = self.unique(re.sub(r"\W", "_", branch.name) + "_bytes")
        c = self.conts.setdefault(cname, Cont(cname))
        if branch.compressed_bytes and not branch.embedded_baskets:
            c.columns.append(opaque(cname, "bytes", branch, self.entries, why))
        else:
            raw = streamed.raw_entries(branch, self.events)
            sizes = np.array([max(0, len(e) - 10) for e in raw], np.int64)
            c.columns.append(opaque_column(cname, "bytes", sizes, zlib_ratio(raw), why))
        self.basket(f"{cname}AuxDyn.bytes", branch)

    def characters(self, branch, strings) -> None:
        """A C string or std::string per event as a collection of its characters (a length and the bytes, as ROOT
        writes them, with a 4-byte counter for the 1-byte length)."""
        import awkward as ak

        raw = [v.encode("utf-8", "replace") if isinstance(v, str) else bytes(v) for v in ak.to_list(strings)]
        counts = np.array([len(r) for r in raw], np.int64)
        chars = ak.unflatten(np.frombuffer(b"".join(raw), np.int8).astype(np.int64), counts)
        cname = self.collection(branch.name + "_chars", counts, branch)
        self.column(cname, branch.name, "int8", chars, branch)

    def in_a_row(self, branch, leaf: str, values) -> None:
        """Several values per event, at any depth of nesting (per element of a collection, a fixed array's
        positions), in a row per event: a collection of their own, its count per event and one column."""
        import awkward as ak

        flat = values
        while flat.ndim > 2:
            flat = ak.flatten(flat, axis=2)
        if flat.ndim == 1:  # one value per event
            flat = ak.unflatten(flat, np.ones(len(flat), np.int64))
        cname = self.collection(branch.name + "_n", ak.to_numpy(ak.num(flat, axis=1)), branch)
        self.column(cname, branch.name, leaf, flat, branch)

    # -- the branches

    def place(self, branch, collection: str | None) -> None:
        """Branch ``branch`` (and what is below it) into the recipe; ``collection``: the collection whose
        elements it belongs to (a member of a TClonesArray), if any."""
        import awkward as ak

        subs = branch.branches
        kind = int(branch.member("fType")) if branch.has_member("fType") else 0
        if subs:
            if kind in (3, 4) and collection is None:  # a TClonesArray or a split collection of objects
                counts = ak_counts(branch, self.events)
                cname = self.collection(branch.name, counts[: self.entries], branch)
                for sub in subs:
                    self.place(sub, cname)
                return
            if branch.num_baskets and branch.uncompressed_bytes:  # a split object's own bytes
                self.opaque(branch, "the own bytes of a split object")
            for sub in subs:
                self.place(sub, collection)
            return
        if branch.name in self.counters and collection is None:
            return  # a counter leaf: the counter of the collection of its arrays
        if branch.num_entries == 0 and self.tree.num_entries:
            return  # a branch never filled (a member not written): no bytes
        t = normalize(str(branch.typename))
        if _DIMENSION.sub("", t) in ("char*", "string", "TString"):
            if collection is not None:
                return self.opaque(branch, f"{branch.typename}: strings of the elements of a collection")
            try:
                return self.characters(branch, read(branch, self.events))
            except Exception as e:
                return self.opaque(branch, f"{branch.typename} unreadable ({type(e).__name__})")
        vector = re.sub(r"^ROOT::VecOps::RVec<|^ROOT::RVec<|^RVec<", "vector<", t)
        if vector != t or t.startswith("vector<"):  # an unsplit std::vector or ROOT::RVec
            if collection is None and re.fullmatch(r"vector<(vector<)?\w+>?>", vector):
                cname = self.unique(branch.name, plain=True)
                c = self.conts.setdefault(cname, Cont(cname))
                col = column_from_array(
                    cname,
                    cname,
                    vector,
                    read(branch, self.events),
                    lambda why: opaque(cname, cname, branch, self.entries, why),
                    basket_events=basket_events(branch),
                )
                c.columns.append(col)
                self.basket(f"{cname}AuxDyn.{cname}", branch)
                return
            inner = re.fullmatch(r"vector<(\w+)>\[\]", vector)
            if collection is not None and inner and inner.group(1) in _SCALAR_TYPES:
                # a vector of numbers in each element: its values in a row, a collection of their own (without
                # the 10 bytes of framing ROOT gives each element's vector)
                try:
                    flat = ak.flatten(read(branch, self.events), axis=2)
                except Exception as e:
                    return self.opaque(branch, f"{branch.typename} unreadable ({type(e).__name__})")
                return self.in_a_row(branch, _SCALAR_TYPES[inner.group(1)], flat)
            return self.opaque(branch, f"{branch.typename} in a collection")
        if _DIMENSION.sub("", t) not in _SCALAR_TYPES and _DIMENSION.sub("", t) not in (
            "Double32_t",
            "Float16_t",
        ):
            return self.opaque(branch, str(branch.typename))
        try:
            arr = read(branch, self.events)
        except Exception as e:
            return self.opaque(branch, f"{branch.typename} unreadable ({type(e).__name__})")
        if ak.fields(arr):  # a leaf list of several leaves (a struct): each leaf on its own
            return self.opaque(branch, f"{branch.typename}: several leaves in one branch")
        leaf, values = stored_values(branch, arr)
        fixed = _fixed_dimensions(branch)
        positions = int(np.prod(fixed)) if fixed else 1
        counter = getattr(branch, "count_branch", None)
        if collection is None and counter is not None:  # a leaf array counted by a leaf of its own
            if counter.name not in self.counted:
                counts = ak.to_numpy(read(counter, self.events)).astype(np.int64)
                self.counted[counter.name] = self.collection(counter.name, counts, counter)
            collection = self.counted[counter.name]
        if collection is not None:
            counts = ak.to_numpy(ak.num(values, axis=1)).astype(np.int64)
            if not np.array_equal(counts, self.counts[collection][: len(counts)]):
                # a variable array in each element (a member counted by another member): its values in a row
                return self.in_a_row(branch, leaf, values)
        if positions > 16 or len(fixed) > 1:
            # a large or multi-dimensional fixed array: its values in a row, as a collection of its own
            return self.in_a_row(branch, leaf, values)
        for k in range(positions):
            name = branch.name if positions == 1 else f"{branch.name}_{k}"
            part = values if positions == 1 else values[..., k]
            if collection is None:
                self.scalar(name, leaf, ak.to_numpy(part), branch)
            else:
                self.column(collection, name, leaf, part, branch)

    def lines(self, label: str) -> list[str]:
        lines = [
            f"# rootparams recipe calibrated on {label} (rootparams.ownfile.calibrate; {self.entries} events)"
        ]
        lines += self.scalars
        for collection in self.collections.values():
            lines += collection
        for c in self.conts.values():
            lines += container_lines(c, self.entries)
        return lines + [f"basket {b} {size}" for b, size in self.baskets.items()]


def objects_recipe(tree, name: str, events) -> list[str]:
    recipe = ObjectsRecipe(tree, events)
    for branch in tree.branches:
        recipe.place(branch, None)
    return recipe.lines(name)


# ----------------------------------------------------------------------------------------------------------
# RNTuples


class Fields:
    """An RNTuple's fields as uproot describes them: names, types, the field tree, and the bytes of each field's
    columns (pages: compressed bytes; elements x bits: uncompressed bytes)."""

    def __init__(self, ntuple):
        self.ntuple = ntuple
        self.records = ntuple.field_records
        self.children: dict[int, list[int]] = {}
        for k, r in enumerate(self.records):
            if r.parent_field_id != k:
                self.children.setdefault(r.parent_field_id, []).append(k)
        self.top = [k for k, r in enumerate(self.records) if r.parent_field_id == k]
        self.columns: dict[int, list[int]] = {}
        for c, col in enumerate(ntuple.column_records):
            self.columns.setdefault(col.field_id, []).append(c)

    def subtree(self, k: int) -> list[int]:
        out = [k]
        for child in self.children.get(k, []):
            out += self.subtree(child)
        return out

    def pages(self, column: int) -> list:
        return [p for cluster in self.ntuple.page_link_list for p in cluster[column].pages]

    def bytes(self, k: int) -> tuple[int, int]:
        """(compressed, uncompressed) bytes of field ``k`` and the fields below it."""
        zipped = total = 0
        for f in self.subtree(k):
            for c in self.columns.get(f, []):
                nbits = self.ntuple.column_records[c].nbits
                for page in self.pages(c):
                    zipped += page.locator.num_bytes
                    total += page.num_elements * nbits // 8
        return zipped, total

    def page_events(self, k: int) -> float:
        """Entries in the first page of the field's first column (its offsets, or its values for a scalar): the
        events a page holds, an RNTuple's counterpart of a basket."""
        for f in self.subtree(k):
            for c in self.columns.get(f, []):
                pages = self.pages(c)
                if pages:
                    return float(max(1, pages[0].num_elements))
        return 1.0


class NTupleArrays:
    """An RNTuple's field values, read in one pass (uproot's per-field reads each walk the whole field list), or
    field by field when one of them cannot be read. ``get("<field>")`` or ``get("<field>.<sub-field>")``."""

    def __init__(self, ntuple, events):
        self.ntuple, self.events = ntuple, events
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self.all = ntuple.arrays(entry_stop=events)
        except Exception:
            self.all = None

    def get(self, path: str):
        if self.all is not None:
            top, _, sub = path.partition(".")
            if top in self.all.fields:
                return self.all[top][sub] if sub else self.all[top]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return self.ntuple[path].array(entry_stop=self.events)


def xaod_recipe_ntuple(ntuple, name: str, events) -> list[str]:
    """The xAOD recipe of an ATLAS RNTuple: fields ``<C>AuxDyn:<attr>`` (dynamic attributes), ``<C>Aux:`` (static
    stores: their member sub-fields are attributes), ``<C>`` (interface objects: a DataVector's element count is
    the container's multiplicity) and other fields (scalars; records of scalars)."""
    import awkward as ak

    fields = Fields(ntuple)
    values = NTupleArrays(ntuple, events)
    entries = min(ntuple.num_entries, events or ntuple.num_entries)
    conts: dict[str, Cont] = {}
    scalars: list[str] = []

    def cont(c: str) -> Cont:
        return conts.setdefault(c, Cont(c))

    def add_field(c: Cont, attr: str, path: str, k: int, scalar_name: str) -> None:
        r = fields.records[k]
        t = normalize(r.type_name)
        if fields.bytes(k) == (0, 0):  # a base class or an empty record: no columns
            return
        if t in _SCALAR_TYPES:
            x = ak.to_numpy(values.get(path)).astype(np.float64)
            scalars.append(
                f"scalar {scalar_name} {_SCALAR_TYPES[t]} " + " ".join(fit_values(x, _SCALAR_TYPES[t]))
            )
            return

        def fallback(why: str) -> Column:
            zipped, total = fields.bytes(k)
            per_event = np.full(entries, max(0, round(total / max(ntuple.num_entries, 1)) - 8))
            return opaque_column(c.name, attr, per_event, total / max(zipped, 1), why)

        try:
            arr = values.get(path)
        except Exception as e:
            c.columns.append(fallback(f"{r.type_name} unreadable ({type(e).__name__})"))
            return
        if t.startswith(("vector<", "RVec<")) or ak.fields(arr):
            t = re.sub(r"^ROOT::VecOps::RVec<", "vector<", t)
            c.columns.append(
                column_from_array(c.name, attr, t, arr, fallback, basket_events=fields.page_events(k))
            )
        else:
            c.columns.append(fallback(r.type_name))

    for k in fields.top:
        r = fields.records[k]
        if r.source_field_id is not None:  # a projection: its data are another field's
            continue
        fname, t = r.field_name, normalize(r.type_name)
        m = re.fullmatch(r"(.+?)Aux(Dyn)?:(.*)", fname)
        if m and m.group(2):
            add_field(cont(m.group(1)), m.group(3), fname, k, f"{m.group(1)}AuxDyn.{m.group(3)}")
        elif m:  # a static store: an empty record, or one whose members are sub-fields
            c = cont(m.group(1))
            c.aux = NS + "AuxContainerBase"
            for sub in fields.children.get(k, []):
                attr = fields.records[sub].field_name
                add_field(c, attr, f"{fname}.{attr}", sub, f"{c.name}AuxDyn.{attr}")
        elif t in _SCALAR_TYPES:
            x = ak.to_numpy(values.get(fname)).astype(np.float64)
            scalars.append(f"scalar {fname} {_SCALAR_TYPES[t]} " + " ".join(fit_values(x, _SCALAR_TYPES[t])))
        else:  # an interface object: a DataVector (its count), or a record of values
            c = cont(fname)
            c.interface = interface_of(r.type_name)
            subs = fields.children.get(k, [])
            if r.type_name.startswith(("DataVector<", "xAOD::MissingET")) or (
                len(subs) == 1 and fields.records[subs[0]].field_name == "_0"
            ):
                c.counts = ak.to_numpy(ak.num(values.get(fname), axis=1)).astype(np.int64)
                continue
            for sub in subs:
                attr = fields.records[sub].field_name
                add_field(c, attr, f"{fname}.{attr}", sub, f"{fname}AuxDyn.{attr}")

    lines = [f"# rootparams recipe calibrated on {name} (rootparams.ownfile.calibrate; {entries} events)"]
    lines += scalars
    for c in conts.values():
        lines += container_lines(c, entries)
    return lines


def flat_recipe_ntuple(ntuple, name: str, events) -> list[str]:
    """The flat recipe of a NanoAOD-like RNTuple (as ROOT's RNTupleImporter writes a flat TTree): top-level scalar
    fields, and untyped collections of records whose items are projected as ``<Name>_<var>`` arrays with a
    cardinality ``n<Name>``: the same recipe as the TTree's, so that the clone (a TTree imported the same way)
    has the same fields."""
    import awkward as ak

    fields = Fields(ntuple)
    values = NTupleArrays(ntuple, events)
    entries = min(ntuple.num_entries, events or ntuple.num_entries)
    lines = [
        f"# rootparams recipe calibrated on {name} (rootparams.ownfile.calibrate; {entries} events)",
        "layout flat",
    ]
    arrays: dict[int, list[int]] = {}
    counters: dict[int, str] = {}
    for k in fields.top:
        r = fields.records[k]
        t = normalize(r.type_name)
        if r.source_field_id is not None:
            if "RNTupleCardinality" in r.type_name:
                counters[r.source_field_id] = r.field_name
            else:
                arrays.setdefault(r.source_field_id, []).append(k)
        elif t in _SCALAR_TYPES:
            x = ak.to_numpy(values.get(r.field_name)).astype(np.float64)
            lines.append(
                f"scalar {r.field_name} {_SCALAR_TYPES[t]} " + " ".join(fit_values(x, _SCALAR_TYPES[t]))
            )
        elif not r.field_name.startswith("_collection"):
            raise CalibrationError(f"{name}: field {r.field_name} of type {r.type_name} is not a flat leaf")
    for source, items in arrays.items():
        names = [fields.records[k].field_name for k in items]
        cname = names[0].split("_", 1)[0]
        counter = counters.get(source, f"n{cname}")
        counts = ak.to_numpy(ak.num(values.get(names[0]), axis=1))
        lines.append(f"collection {cname} {counter} " + " ".join(empirical(counts)))
        for k, item in zip(items, names, strict=True):
            t = re.sub(r"^ROOT::VecOps::RVec<(.*)>$", r"\1", fields.records[k].type_name)
            leaf = _SCALAR_TYPES.get(normalize(t))
            if leaf is None:
                raise CalibrationError(f"{name}: array field {item} of type {t} is not supported")
            arr = values.get(item)
            x = ak.to_numpy(ak.flatten(arr, axis=None)).astype(np.float64)
            lines.append(f"column {cname} {item} {leaf} " + " ".join(fit_values(x, leaf, run_share(arr))))
            per_page = float(ak.sum(ak.num(arr, axis=1))) / max(1, len(arr)) * fields.page_events(k)
            lines += reuse_line(cname, item, arr, False, per_page)
            lines += order_line(cname, item, arr, False, leaf not in _MANTISSA)
    return lines


def is_flat_ntuple(ntuple) -> bool:
    """A NanoAOD-like RNTuple: untyped collections (``_collection<N>``) and scalars, no xAOD fields."""
    names = [r.field_name for r in ntuple.field_records]
    return any(n.startswith("_collection") for n in names) and not any(
        re.search(r"Aux(Dyn)?:", n) for n in names
    )


def is_flat_tree(tree) -> bool:
    return all(
        not b.branches and normalize(b.typename).removesuffix("[]") in _SCALAR_TYPES for b in tree.branches
    )


def recipe_from_file(path: str | Path, tree: str | None = None, events: int | None = None) -> str:
    """The recipe text that clones ``path``'s event tree or RNTuple (auto-detected when ``tree`` is None)."""
    t, name = open_tree(path, tree)
    label = f"{Path(path).name}:{name}"
    if events is not None and events < 1:
        raise CalibrationError(f"{path}: --events must be >= 1 (got {events})")
    try:
        if is_ntuple(t):
            flat = is_flat_ntuple(t)
            lines = flat_recipe_ntuple(t, label, events) if flat else xaod_recipe_ntuple(t, label, events)
        elif is_flat_tree(t):
            lines = flat_recipe(t, label, events)
        elif grouping_of(name, [(b.name, str(b.typename)) for b in t.branches]) == XAOD:
            lines = xaod_recipe(t, label, events)
        else:
            lines = objects_recipe(t, label, events)
    except CalibrationError:
        raise
    # A structure the recipe does not model yet: say which file, not where in uproot.
    except Exception as error:
        what = "RNTuple" if is_ntuple(t) else "TTree"
        reason = " ".join(f"{type(error).__name__}: {error}".split())[:300]
        raise CalibrationError(
            f"{path}: its {what} {name} cannot be calibrated: a layout the recipe does not model yet ({reason})"
        ) from error
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------------------------------------
# How close a clone comes to its file

# The calibration's targets: a clone written at its real file's own setting holds the real file's compressed bytes
# per event within 15 % and its whole-file compression ratio within 25 % (docs/formats.md, "Measured agreement").
SIZE_TARGET, RATIO_TARGET = 0.15, 0.25


@dataclass(frozen=True)
class Fidelity:
    """A clone against its real file, both at the real file's own setting: compressed bytes per event and
    compression ratio (uncompressed / compressed), and per kind of content where given (kind -> compressed and
    uncompressed bytes per event)."""

    real_bytes_per_event: float
    clone_bytes_per_event: float
    real_ratio: float
    clone_ratio: float
    real_kinds: dict[str, tuple[float, float]] = field(default_factory=dict)
    clone_kinds: dict[str, tuple[float, float]] = field(default_factory=dict)

    @property
    def size_delta(self) -> float:
        """The clone's bytes per event against the file's: +0.21 is 21 % more."""
        return self.clone_bytes_per_event / self.real_bytes_per_event - 1

    @property
    def ratio_delta(self) -> float:
        """The clone's compression ratio against the file's: +0.26 compresses 26 % better."""
        return self.clone_ratio / self.real_ratio - 1

    @property
    def size_ok(self) -> bool:
        return abs(self.size_delta) <= SIZE_TARGET

    @property
    def ratio_ok(self) -> bool:
        return abs(self.ratio_delta) <= RATIO_TARGET

    @property
    def ok(self) -> bool:
        return self.size_ok and self.ratio_ok

    def kind_deltas(self) -> dict[str, tuple[float | None, float | None, float]]:
        """Per kind of the real file: (size delta, ratio delta, share of the real file's compressed bytes); a
        delta is None where the clone has none of that kind's bytes (size -100 %: the delta is -1)."""
        total = sum(z for z, _ in self.real_kinds.values()) or 1.0
        out = {}
        for kind, (z, u) in self.real_kinds.items():
            cz, cu = self.clone_kinds.get(kind, (0.0, 0.0))
            size = cz / z - 1 if z else None
            ratio = (cu / cz) / (u / z) - 1 if z and cz and u else None
            out[kind] = (size, ratio, z / total)
        return out

    def text(self) -> str:
        """One sentence for the user: how the clone's size and compression differ from the file's, whether that is
        within the targets, and, where it is not and kinds were given, the kind that weighs most in the miss."""

        def percent(x: float) -> str:
            return f"{100 * abs(x):.0f} %"

        size = (
            "as large"
            if abs(self.size_delta) < 0.005
            else f"{percent(self.size_delta)} {'larger' if self.size_delta > 0 else 'smaller'}"
        )
        ratio = (
            "as well"
            if abs(self.ratio_delta) < 0.005
            else f"{percent(self.ratio_delta)} {'better' if self.ratio_delta > 0 else 'worse'}"
        )
        head = f"Against your file at its own setting, the clone is {size} and compresses {ratio}"
        targets = f"±{percent(SIZE_TARGET)} size and ±{percent(RATIO_TARGET)} ratio targets"
        if self.ok:
            return f"{head}: within the {targets}."
        missed = (
            targets
            if not (self.size_ok or self.ratio_ok)
            else f"±{percent(SIZE_TARGET)} size target"
            if not self.size_ok
            else f"±{percent(RATIO_TARGET)} ratio target"
        )
        worst = ""
        weighty = {k: v for k, v in self.kind_deltas().items() if v[0] is not None and v[2] >= 0.05}
        if weighty:
            kind, (delta, _, share) = max(weighty.items(), key=lambda kv: abs(kv[1][0]) * kv[1][2])
            more = "more" if delta > 0 else "fewer"
            worst = f" (most in {kind}, {percent(share)} of your bytes: {percent(delta)} {more} bytes)"
        return f"{head}: outside the {missed}{worst}; its absolute rates are not yours."


def clone_fidelity(
    real_bytes_per_event: float,
    real_ratio: float,
    clone_bytes_per_event: float,
    clone_ratio: float,
    real_kinds: dict[str, tuple[float, float]] | None = None,
    clone_kinds: dict[str, tuple[float, float]] | None = None,
) -> Fidelity:
    """How close a clone comes to its real file, both measured at the real file's own setting: compressed bytes per
    event and whole-file compression ratio, optionally per kind of content (kind -> compressed and uncompressed
    bytes per event). ``Fidelity.text()`` says it in a sentence; ``.ok`` whether both are within the targets."""
    for what, value in (
        ("the real file's bytes per event", real_bytes_per_event),
        ("the real file's compression ratio", real_ratio),
        ("the clone's bytes per event", clone_bytes_per_event),
        ("the clone's compression ratio", clone_ratio),
    ):
        if not np.isfinite(value) or value <= 0:
            raise ValueError(f"clone_fidelity: {what} must be a positive number (got {value!r})")
    return Fidelity(
        real_bytes_per_event,
        clone_bytes_per_event,
        real_ratio,
        clone_ratio,
        dict(real_kinds or {}),
        dict(clone_kinds or {}),
    )


def main(argv: list[str] | None = None, prog: str = "python -m rootparams.ownfile.calibrate") -> int:
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
