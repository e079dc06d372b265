"""What a ROOT file is: ``rootparams inspect FILE|URL``.

    rootparams inspect FILE|URL [--tree NAME] [--all-branches] [--top N] [--csv | --json]

finds the event data (a TTree or an RNTuple; ``CollectionTree``, ``EventData`` or ``Events``, or the only one, as
rootparams.ownfile.sources does) and tells: its layout (ATLAS xAOD, flat, or objects), its entries and clusters, the file's
compression setting and the branches or fields stored at another one, the compressed and uncompressed bytes of every
top-level branch (sub-branches summed into it) or top-level field, each with its content kind, the same bytes per
kind (rootparams.ownfile.contentkinds: ATLAS's grouping for an xAOD file, by leaf type for any other), and the whole file's
totals.

What is counted, and where it comes from (the file's own bookkeeping; no data is decompressed except for the
element counts below):

* TTree: a branch's bytes are ROOT's TBranch::GetZipBytes/GetTotBytes (the ``fZipBytes``/``fTotBytes`` the file
  stores): its baskets, their keys included. They add up to TTree::GetZipBytes; the rest of the file is the other
  trees, the tree's own metadata, streamer info and keys. Baskets kept inside the TTree object (never written as
  baskets of their own, as in small NanoAOD samples) count in no branch's bytes; they are reported on their own.
  Clusters are ROOT's (TTree::GetClusterIterator over the tree's cluster ranges and AutoFlush).
* RNTuple: a field's bytes are RNTupleInspector's: compressed, the on-disk size of every page of its columns and
  of its subfields'; uncompressed, their elements at their in-memory size. Pages that same-page merging stores
  once for several columns count once per column, as RNTupleInspector counts them; the bytes stored once are
  reported beside.
  Columns added after the first entries (deferred) begin with zero pages that are not on disk; they count as
  RNTupleInspector counts them. Projected fields (aliases of other fields' columns) are not listed.
* The kind of a ``vector<float>``/``vector<double>`` (dense or low-multiplicity) depends on its elements per
  event: an RNTuple's page list holds them, a TTree's are counted by reading the branch over its first
  ``MULTIPLICITY_ENTRIES`` entries with uproot.

Local files are read with uproot. A URL (``root://``, ``https://``, ...) is opened by ROOT (TFile::Open, so that
XRootD and HTTP go through ROOT's own clients; ``root://localhost`` needs ``?remote=1`` not to be read as a local
file), and uproot reads the same bytes through it. A TTree whose metadata uproot cannot model is read by ROOT
instead, in a process of its own (``inspect_tree_with_root``, rootparams.tools.root_metadata), and the output says so.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import re
import sys
import tempfile
import textwrap
import warnings
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path

from rootparams.errors import UserError
from rootparams.ownfile import sources
from rootparams.ownfile.contentkinds import (
    BY_LEAF,
    KINDS_BY_GROUPING,
    Unit,
    grouping_of,
    holds_array,
    kind_of,
    leaf_kind,
    needs_elements,
    own_bytes_type,
)
from rootparams.ownfile.contentkinds import XAOD as XAOD_GROUPING
from rootparams.ownfile.sources import SourceError, resolve_path
from rootparams.tools import root_metadata, streamed
from rootparams.vocabulary import RNTUPLE, TTREE, CompressionSettingError, decode

# uproot, awkward and ROOT take a second or more to import: the functions that read a file import them.

# Entries over which a TTree's vector<float>/vector<double> branches are read to count their elements.
_MULTIPLICITY_ENTRIES = 1000
# Rows of the text output's branch table unless --top says otherwise.
_DEFAULT_TOP = 25
# The layouts of event data: an ATLAS xAOD file (its kinds are ATLAS's grouping); a flat one, every top-level
# branch (field) a leaf of numbers, arrays of numbers or strings; one of objects, split or streamed classes
# (TClonesArray, a class per entry, collections of classes). Every layout but xAOD is grouped by leaf type.
XAOD, FLAT, OBJECTS = "xAOD", "flat", "objects"
# In-memory bytes of an element of each RNTuple column type (the binary format's type codes), as ROOT's
# RColumnElementBase::Generate(type)->GetSize() gives them: the size RNTupleInspector counts as uncompressed.
# Index columns are 64-bit in memory, a switch is an index and a tag (16 bytes), a bit is a bool.
_RNTUPLE_ELEMENT_BYTES = {
    0x00: 1,  # Bit
    0x01: 1,  # Byte
    0x02: 1,  # Char
    0x03: 1,  # Int8
    0x04: 1,  # UInt8
    0x05: 2,  # Int16
    0x06: 2,  # UInt16
    0x07: 4,  # Int32
    0x08: 4,  # UInt32
    0x09: 8,  # Int64
    0x0A: 8,  # UInt64
    0x0B: 4,  # Real16 (a float in memory)
    0x0C: 4,  # Real32
    0x0D: 8,  # Real64
    0x0E: 8,  # Index32
    0x0F: 8,  # Index64
    0x10: 16,  # Switch
    0x11: 2,  # SplitInt16
    0x12: 2,  # SplitUInt16
    0x13: 4,  # SplitInt32
    0x14: 4,  # SplitUInt32
    0x15: 8,  # SplitInt64
    0x16: 8,  # SplitUInt64
    0x17: 4,  # SplitReal16
    0x18: 4,  # SplitReal32
    0x19: 8,  # SplitReal64
    0x1A: 8,  # SplitIndex32
    0x1B: 8,  # SplitIndex64
    0x1C: 4,  # Real32Trunc
    0x1D: 4,  # Real32Quant
}
# What a file is when it is not a ROOT file, by its first bytes.
_MAGIC = {
    b"\x89HDF": "an HDF5 file",
    b"\x1f\x8b": "a gzip file",
    b"PK\x03\x04": "a zip archive",
    b"PAR1": "a Parquet file",
    b"\x7fELF": "an executable (ELF)",
    b"%PDF": "a PDF document",
    b"SQLite format 3": "an SQLite database",
}


class InspectError(UserError, ValueError):
    """A file or URL that cannot be inspected; the message names it and what would be valid."""


@dataclass
class Row:
    """One line of the branch (field) table: a top-level branch with its sub-branches, a top-level field with its
    subfields, or with --all-branches every branch (field) with its own bytes only."""

    name: str
    top: str  # the top-level branch or field it belongs to (itself for a top-level row)
    type: str  # the class or type the branch stores (the field's type)
    kind: str  # the kind holding most of its compressed bytes (contentkinds)
    compressed: int
    uncompressed: int
    compression: int | None  # ROOT's setting of its baskets (pages); None where its parts differ
    in_tree_object: int = 0  # TTree: bytes of its baskets kept inside the TTree object (uncompressed)

    @property
    def ratio(self) -> float | None:
        return self.uncompressed / self.compressed if self.compressed else None


@dataclass
class KindTotal:
    kind: str
    units: int  # branches (fields) holding data, as the study counts them
    compressed: int
    uncompressed: int
    in_tree_object: int = 0

    @property
    def ratio(self) -> float | None:
        return self.uncompressed / self.compressed if self.compressed else None


@dataclass
class Inspection:
    source: str  # the file or URL as given
    reader: str  # how it was read
    file_size: int
    file_compression: int  # TFile::GetCompressionSettings
    container: str  # vocabulary.TTREE or RNTUPLE
    name: str
    entries: int
    clusters: int | None  # None where the file records no cluster boundaries
    clusters_how: str  # where the cluster count comes from
    layout: str  # XAOD, FLAT or OBJECTS; the grouping of kinds follows (XAOD: ATLAS's, else by leaf type)
    compressed: int  # the event data's compressed bytes (TTree::GetZipBytes; RNTupleInspector's total)
    uncompressed: int
    top_level: int  # top-level branches (fields)
    everything: int  # every branch (field)
    rows: list[Row]
    kinds: list[KindTotal]
    # branch (field) -> its setting, where it differs from the file's
    other_compression: dict[str, int | None]
    # the setting of every basket (page) of the event data; None where they differ
    data_compression: int | None
    in_tree_object: int = 0  # TTree: uncompressed bytes of the baskets kept inside the TTree object
    tree_key_bytes: int = 0  # TTree: on-disk size of the tree's own key (its metadata and those baskets)
    stored_once: int | None = None  # RNTuple: compressed bytes with every merged page counted once
    multiplicity_entries: int | None = None  # TTree: entries read to count vector<float/double> elements
    all_branches: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def ratio(self) -> float | None:
        return self.uncompressed / self.compressed if self.compressed else None

    @property
    def what(self) -> str:
        return "field" if self.container == RNTUPLE else "branch"

    @property
    def grouping(self) -> str:
        """The grouping of its kinds (rootparams.ownfile.contentkinds): ATLAS's for an xAOD file, else by leaf type."""
        return XAOD_GROUPING if self.layout == XAOD else BY_LEAF

    @property
    def layout_text(self) -> str:
        """``TTree (flat)``, ``RNTuple (xAOD)``, ``TTree (objects)``: the container and its layout."""
        return f"{'RNTuple' if self.container == RNTUPLE else 'TTree'} ({self.layout})"

    def count(self, n: int) -> str:
        """``n`` branches (fields), in words."""
        return f"{n:,} {self.what}" + ("" if n == 1 else "es" if self.what == "branch" else "s")


# ----------------------------------------------------------------------------------------------------------
# Opening


def _is_url(target: str) -> bool:
    return re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", target) is not None and not target.startswith("file://")


def _not_root(target: str, head: bytes) -> str:
    for magic, what in _MAGIC.items():
        if head.startswith(magic):
            return f"{target} is not a ROOT file: it is {what}"
    if head and all(32 <= c < 127 or c in b"\t\r\n" for c in head):
        return f"{target} is not a ROOT file: it is text (it starts with {head[:16].decode()!r})"
    return f"{target} is not a ROOT file: it starts with {head[:8]!r}, where a ROOT file starts with 'root'"


def _open_local(target: str):
    """(uproot file, size) of a local file; errors name the file and what it is."""
    import uproot  # here, not at the top: see the note above

    path = Path(target.removeprefix("file://"))
    if not path.exists():
        raise InspectError(
            f"{target}: no such file (give a ROOT file holding a TTree or an RNTuple, or a root:// or https:// URL)"
        )
    if path.is_dir():
        roots = sorted(p.name for p in path.glob("*.root"))[:5]
        hint = f"; it holds {', '.join(roots)}" if roots else ""
        raise InspectError(f"{target} is a directory, not a ROOT file{hint}")
    with open(path, "rb") as f:
        head = f.read(16)
    if not head.startswith(b"root"):
        raise InspectError(_not_root(target, head) + "; give a ROOT file holding a TTree or an RNTuple")
    try:
        return uproot.open(path), path.stat().st_size
    except Exception as error:  # uproot says what is wrong with the header
        raise InspectError(
            f"{target}: a damaged or truncated ROOT file ({path.stat().st_size:,} B), its header cannot be read "
            f"({sources.one_line(error)})"
        ) from error


class _RootFileObject:
    """A TFile opened by ROOT as the file-like object uproot reads (read, seek, tell): uproot interprets the
    bytes that ROOT's own client (XRootD, HTTP) fetches."""

    def __init__(self, tfile):
        self.tfile = tfile
        self.size = int(tfile.GetSize())
        self.position = 0

    def seek(self, position: int, whence: int = 0) -> int:
        base = {0: 0, 1: self.position, 2: self.size}[whence]
        self.position = base + position
        return self.position

    def tell(self) -> int:
        return self.position

    def read(self, n: int = -1) -> bytes:
        import ctypes

        n = self.size - self.position if n < 0 else min(n, self.size - self.position)
        if n <= 0:
            return b""
        buffer = ctypes.create_string_buffer(n)
        if self.tfile.ReadBuffer(buffer, self.position, n):  # kTRUE: the read failed
            raise OSError(f"ROOT could not read {n} bytes at {self.position} of {self.tfile.GetName()}")
        self.position += n
        return buffer.raw


def _import_root():
    warnings.filterwarnings("ignore", message=r"(?s).*This distribution of ROOT is in alpha stage")
    # XRootD's client tries a server it cannot reach 5 times, a minute or two each: one try, unless the user says
    # otherwise, so that a wrong host or port is reported in seconds.
    os.environ.setdefault("XRD_CONNECTIONRETRY", "1")
    import ROOT  # ~1-2 s: only for URLs

    return ROOT


def _with_stderr_captured(call):
    """(call(), what ROOT wrote to stderr meanwhile): ROOT reports a failed open there."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as captured:
        os.dup2(captured.fileno(), 2)
        try:
            result = call()
        except Exception as error:  # PyROOT raises OSError where TFile::Open returns null
            result = error
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        captured.seek(0)
        text = captured.read().decode(errors="replace")
    return result, text


def _open_url(target: str):
    """(uproot file, size) of a URL, opened by ROOT; errors carry ROOT's own words."""
    import uproot

    ROOT = _import_root()
    level = ROOT.gErrorIgnoreLevel
    # The file's classes may have no dictionary here: warnings that do not matter.
    ROOT.gErrorIgnoreLevel = ROOT.kError
    try:
        tfile, said = _with_stderr_captured(lambda: ROOT.TFile.Open(target))
    finally:
        ROOT.gErrorIgnoreLevel = level
    if isinstance(tfile, Exception) or not tfile or tfile.IsZombie():
        errors = [ln.strip() for ln in said.splitlines() if "Error" in ln or "error" in ln]
        why = errors[-1] if errors else (str(tfile) if isinstance(tfile, Exception) else "no reason given")
        raise InspectError(f"{target}: ROOT cannot open it ({why})")
    try:
        return uproot.open(_RootFileObject(tfile)), int(tfile.GetSize())
    except Exception as error:
        raise InspectError(
            f"{target}: ROOT opened it, but its header cannot be read ({sources.one_line(error)})"
        ) from error


# ----------------------------------------------------------------------------------------------------------
# Finding the event data


def choose_event_data(target: str, file, tree: str | None) -> tuple[str, str]:
    """(name, container) of the event data, chosen as rootparams.ownfile.sources chooses it (``tree`` if given, else the
    only TTree or RNTuple at the top, else the first of sources.EVENT_DATA_NAMES there, else the only one in the
    file). Errors list what the file holds, each TTree or RNTuple with its entries."""
    try:
        classes = file.classnames(recursive=True, cycle=False)
    except Exception as error:
        raise InspectError(
            f"{target}: a damaged or truncated ROOT file, its keys cannot be read ({sources.one_line(error)})"
        ) from error
    try:
        return sources.choose_event_data(
            target, classes, tree, option="--tree NAME", entries_of=lambda n: sources.uproot_entries(file, n)
        )
    except SourceError as error:
        raise InspectError(str(error)) from None


# ----------------------------------------------------------------------------------------------------------
# TTree


def tree_clusters(entries: int, autoflush: int, range_ends, range_sizes) -> int | None:
    """Clusters of a TTree as ROOT's TTree::TClusterIterator walks them: each recorded cluster range (inclusive
    last entry, cluster size), then AutoFlush up to the last entry. None where a size is not recorded (AutoFlush
    0 or negative, a range of size 0): ROOT then estimates clusters from its cache size at read time."""
    if entries <= 0:
        return 0
    ends, sizes = [int(e) for e in range_ends], [int(s) for s in range_sizes]
    count, start, r = 0, 0, 0
    while start < entries:
        count += 1
        while r < len(ends) and start > ends[r]:
            r += 1
        if r < len(ends):
            if sizes[r] <= 0:
                return None
            following = min(start + sizes[r], ends[r] + 1)
        else:
            if autoflush <= 0:
                return None
            following = start + autoflush
        start = min(following, entries)
    return count


# TBranchElement::GetTypeName's names of basic types, by the branch's streamer type modulo 20.
_ROOT_BASIC_TYPES = (
    "",
    "Char_t",
    "Short_t",
    "Int_t",
    "Long_t",
    "Float_t",
    "Int_t",
    "char*",
    "Double_t",
    "Double32_t",
    "",
    "UChar_t",
    "UShort_t",
    "UInt_t",
    "ULong_t",
    "UInt_t",
    "Long64_t",
    "ULong64_t",
    "Bool_t",
    "Float16_t",
)
# TLeaf::GetTypeName of the leaf-list classes: (signed, unsigned).
_ROOT_LEAF_TYPES = {
    "TLeafB": ("Char_t", "UChar_t"),
    "TLeafS": ("Short_t", "UShort_t"),
    "TLeafI": ("Int_t", "UInt_t"),
    "TLeafL": ("Long64_t", "ULong64_t"),
    "TLeafG": ("Long_t", "ULong_t"),
    "TLeafF": ("Float_t", "Float_t"),
    "TLeafF16": ("Float16_t", "Float16_t"),
    "TLeafD": ("Double_t", "Double_t"),
    "TLeafD32": ("Double32_t", "Double32_t"),
    "TLeafO": ("Bool_t", "Bool_t"),
    "TLeafC": ("Char_t", "Char_t"),
}


def _branch_type(branch) -> str:
    """What a branch without sub-branches stores, named as ROOT names it (TBranchElement::GetTypeName, else its
    first leaf's TLeaf::GetTypeName), so that its kind is the one the study's ROOT-based benchmarks give it."""
    if branch.has_member("fClassName"):  # a TBranchElement
        if int(branch.member("fType")) in (3, 4):  # a split collection's counter
            return "Int_t"
        streamer_type = int(branch.member("fStreamerType"))
        if 1 <= streamer_type <= 59:
            return _ROOT_BASIC_TYPES[streamer_type % 20]
        if int(branch.member("fID")) >= 0:
            element = streamed.streamer_element(branch)
            if element is not None and element.has_member("fTypeName"):
                return str(element.member("fTypeName"))
        return str(branch.member("fClassName"))
    leaves = branch.member("fLeaves") if branch.has_member("fLeaves") else []
    if leaves:
        leaf = leaves[0]
        if leaf.classname == "TLeafC":  # a C string (leaf type /C), one per entry
            return "char*"
        names = _ROOT_LEAF_TYPES.get(leaf.classname)
        if names:
            unsigned = leaf.has_member("fIsUnsigned") and bool(leaf.member("fIsUnsigned"))
            return names[unsigned]
    try:
        return str(branch.typename).removesuffix("[]")
    except Exception:
        return "?"


def _display_type(branch, top_level: bool) -> str:
    """The class of a top-level branch, else uproot's C++ name of what it stores."""
    if top_level and branch.has_member("fClassName") and branch.member("fClassName"):
        return str(branch.member("fClassName"))
    try:
        return str(branch.typename)
    except Exception:
        return _branch_type(branch)


def _embedded_bytes(branch) -> int:
    """Bytes held by the branch's baskets that live inside the TTree object (the basket buffers' content)."""
    try:
        baskets = branch.embedded_baskets or []
    except Exception:
        return 0
    return sum(max(0, int(b.member("fLast")) - int(b.member("fKeylen"))) for b in baskets)


@dataclass
class _Node:
    branch: object
    name: str
    top: str
    type: str  # display type
    unit: Unit
    compression: int
    in_tree_object: int
    top_class: str
    top_index: int  # which top-level branch: a tree may hold two of the same name (Delphes' "Particle")

    def part(self) -> _Part:
        """The branch as the builder of an inspection sees it: its setting (fCompress; -1: none of its own) counts
        where it stores bytes, in its baskets or inside the TTree object."""
        unit = self.unit
        settings = frozenset({self.compression} if self.compression >= 0 else ())
        holds = bool(unit.tot_bytes or self.in_tree_object)
        return _Part(
            self.name,
            self.top,
            self.top_index,
            self.type,
            unit.kind,
            unit.zip_bytes,
            unit.tot_bytes,
            settings,
            holds,
            self.in_tree_object,
        )


def _leaf_is_array(branch) -> bool:
    """Whether a branch without sub-branches holds several values per entry (contentkinds.holds_array)."""
    element = branch.has_member("fClassName")
    leaves = branch.member("fLeaves") if branch.has_member("fLeaves") else []
    leaf = leaves[0] if leaves else None
    return holds_array(
        int(branch.member("fType")) if element else None,
        int(branch.member("fStreamerType")) if element else None,
        leaf is not None and leaf.member("fLeafCount") is not None,
        int(leaf.member("fLen")) if leaf is not None and leaf.has_member("fLen") else 1,
    )


def _top_class(branch) -> str:
    return str(branch.member("fClassName")) if branch.has_member("fClassName") else ""


def _tree_layout(grouping: str, split: bool, units: list[Unit]) -> str:
    """A TTree's layout, whichever reader described it: xAOD where ATLAS's grouping applies; flat where no top-level
    branch is split and no leaf holds a streamed object; else objects."""
    if grouping == XAOD_GROUPING:
        return XAOD
    if not split and all(u.kind != "streamed objects" for u in units):
        return FLAT
    return OBJECTS


def _tree_units(nodes: list[_Node]) -> list[tuple[int, Unit, int]]:
    """A TTree's units of content (every branch is one), for the builder: (top index, unit, bytes in the tree
    object)."""
    return [(n.top_index, n.unit, n.in_tree_object) for n in nodes]


def _tree_clusters(tree, entries: int) -> tuple[int | None, str]:
    """(clusters, where the count comes from) of a TTree read by uproot."""
    # A TTree written before ROOT 5.26 (class version < 18) has no AutoFlush, one before 5.30 (< 19) no cluster
    # ranges: neither is recorded, as ROOT 6 reads such a tree.
    autoflush = int(tree.member("fAutoFlush", none_if_missing=True) or 0)
    ranges = int(tree.member("fNClusterRange", none_if_missing=True) or 0)
    ends, sizes = (tree.member(m, none_if_missing=True) for m in ("fClusterRangeEnd", "fClusterSize"))
    clusters = tree_clusters(entries, autoflush, [] if ends is None else ends, [] if sizes is None else sizes)
    if clusters is None:
        how = f"not recorded (AutoFlush {autoflush}): ROOT estimates them from its cache size when reading"
    elif ranges:
        how = f"{ranges} cluster ranges, then AutoFlush {autoflush} entries"
    else:
        how = f"AutoFlush {autoflush} entries"
    return clusters, how


def _tree_nodes(tree, grouping: str, entries: int) -> list[_Node]:
    """Every branch of a TTree read by uproot, depth first, with its unit (its kind still to be decided)."""
    nodes: list[_Node] = []

    def walk(branch, top: str, top_class: str, top_level: bool, top_index: int) -> None:
        subs = branch.branches
        own = own_bytes_type(int(branch.member("fType")) if branch.has_member("fType") else None)
        unit = Unit(
            branch.name,
            top,
            (own if grouping == BY_LEAF else "object") if subs else _branch_type(branch),
            int(branch.member("fZipBytes")),
            int(branch.member("fTotBytes")),
            entries,
        )
        unit.array = not subs and _leaf_is_array(branch)
        nodes.append(
            _Node(
                branch,
                branch.name,
                top,
                _display_type(branch, top_level),
                unit,
                int(branch.member("fCompress")),
                _embedded_bytes(branch),
                top_class,
                top_index,
            )
        )
        for sub in subs:
            walk(sub, top, top_class, False, top_index)

    for i, branch in enumerate(tree.branches):
        walk(branch, branch.name, _top_class(branch), True, i)
    return nodes


def _count_elements(nodes: list[_Node], entries: int) -> int:
    """The elements per event of an xAOD TTree's vector<float/double> branches, read with uproot over its first
    MULTIPLICITY_ENTRIES entries (into each unit's ``elements``); returns the entries read."""
    import awkward as ak

    sampled = min(entries, _MULTIPLICITY_ENTRIES)
    for node in nodes:
        unit = node.unit
        if needs_elements(unit.type) and unit.tot_bytes + node.in_tree_object and sampled:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    values = node.branch.array(entry_stop=sampled, library="ak")
                unit.elements, unit.entries = int(ak.sum(ak.num(values, axis=1))), sampled
            except Exception:  # counted as dense, as the study's benchmark does
                unit.elements = None
    return sampled


def inspect_tree(target: str, file, name: str, all_branches: bool) -> Inspection:
    """The inspection of the TTree ``name`` of ``file`` (open with uproot)."""
    tree = file[name]
    entries = int(tree.num_entries)
    clusters, how = _tree_clusters(tree, entries)
    grouping = grouping_of(name, [(b.name, _top_class(b)) for b in tree.branches])
    nodes = _tree_nodes(tree, grouping, entries)
    sampled = _count_elements(nodes, entries) if grouping == XAOD_GROUPING else None
    for node in nodes:
        node.unit.kind = kind_of(node.unit, grouping, node.top_class)
    layout = _tree_layout(grouping, any(b.branches for b in tree.branches), [n.unit for n in nodes])
    compressed, uncompressed = int(tree.member("fZipBytes")), int(tree.member("fTotBytes"))
    counted = sum(n.unit.zip_bytes for n in nodes)
    # A writer that left the tree's totals empty (as uproot's did): its branches' bytes are the event data's.
    unset_totals = compressed == 0 and counted > 0
    if unset_totals:
        compressed, uncompressed = counted, sum(n.unit.tot_bytes for n in nodes)
    inspection = _inspection(
        [n.part() for n in nodes],
        _tree_units(nodes),
        grouping=grouping,
        file_compression=int(file.file.fCompress),
        all_branches=all_branches,
        source=target,
        reader="uproot",
        file_size=0,
        container=TTREE,
        name=name,
        entries=entries,
        clusters=clusters,
        clusters_how=how,
        layout=layout,
        compressed=compressed,
        uncompressed=uncompressed,
        top_level=len(tree.branches),
        multiplicity_entries=sampled,
    )
    if inspection.in_tree_object:
        try:
            inspection.tree_key_bytes = int(file.key(name).data_compressed_bytes)
        except Exception:
            inspection.tree_key_bytes = 0
        holding = sum(1 for n in nodes if n.in_tree_object)
        inspection.notes.append(
            f"{holding} branches keep baskets inside the TTree object (never written as baskets of their own): "
            f"{human(inspection.in_tree_object)} uncompressed, stored in the tree's own key "
            f"({human(inspection.tree_key_bytes)} on disk with the tree's metadata); ROOT counts them in no "
            "branch's bytes; the tables give them a column of their own (in tree object)"
        )
    if unset_totals:
        inspection.notes.append(
            "the TTree records no compressed bytes of its own (its writer left the totals empty): the event data's "
            "bytes are its branches' sums"
        )
    if counted != compressed:
        inspection.notes.append(
            f"the branches' compressed bytes add up to {counted:,} B, the tree's total says {compressed:,} B"
        )
    return inspection


def _inspect_tree_with_root(
    target: str, name: str, all_branches: bool, uproot_error: Exception
) -> Inspection:
    """``inspect_tree`` for a TTree whose metadata uproot cannot model (a class version or a branch type it has no
    model for): the same facts, bytes and kinds, read by ROOT in a process of its own (rootparams.tools.root_metadata).
    ROOT names every branch's type as ``_branch_type`` does; what it does not give without reading data is the
    elements per event of vector<float/double> branches: they count as dense, as where uproot cannot read them."""
    try:
        meta = root_metadata.read(target, name)
    except root_metadata.RootMetadataError as error:
        raise InspectError(
            f"{target}: its TTree {name} cannot be read, neither by uproot ({sources.one_line(uproot_error)}) nor "
            f"by ROOT ({str(error).removeprefix(f'{target}: ')})"
        ) from error
    tree = meta["tree"]
    entries, autoflush = int(tree["entries"]), int(tree["autoflush"])
    nodes = []
    top_index = -1  # which top-level branch a branch belongs to (ROOT lists them depth first)
    for b in tree["branches"]:
        top_index += b["name"] == b["top"]
        unit = Unit(b["name"], b["top"], "object" if b["sub_branches"] else b["type"], b["zip_bytes"],
                    b["tot_bytes"], entries)  # fmt: skip
        unit.array = b["array"]
        nodes.append(
            _Node(None, b["name"], b["top"], b["shown_type"], unit, b["compression"], b["in_tree_object"],
                  b["top_class"], max(top_index, 0))
        )  # fmt: skip
    # The grouping and layout as inspect_tree decides them (contentkinds.grouping_of, the one place).
    tops = [b for b in tree["branches"] if b["name"] == b["top"]]
    grouping = grouping_of(name, [(b["name"], b["top_class"] or b["shown_type"]) for b in tops])
    for node in nodes:
        node.unit.kind = kind_of(node.unit, grouping, node.top_class)
    layout = _tree_layout(grouping, any(b["sub_branches"] for b in tops), [n.unit for n in nodes])
    holding = [n for n in nodes if n.unit.tot_bytes or n.in_tree_object]
    counted = sum(n.unit.zip_bytes for n in nodes)
    compressed, uncompressed = int(tree["zip_bytes"]), int(tree["tot_bytes"])
    if compressed == 0 and counted > 0:  # as inspect_tree: a writer that left the tree's totals empty
        compressed, uncompressed = counted, sum(n.unit.tot_bytes for n in nodes)
    clusters = tree["clusters"]
    if clusters is None:
        how = f"not recorded (AutoFlush {autoflush}): ROOT estimates them from its cache size when reading"
    else:
        how = f"ROOT's cluster iterator, AutoFlush {autoflush} entries"
    inspection = _inspection(
        [n.part() for n in nodes],
        _tree_units(nodes),
        grouping=grouping,
        file_compression=int(meta["compression_setting"]),
        all_branches=all_branches,
        source=target,
        reader="ROOT",
        file_size=int(meta["file_size"]),
        container=TTREE,
        name=name,
        entries=entries,
        clusters=clusters,
        clusters_how=how,
        layout=layout,
        compressed=compressed,
        uncompressed=uncompressed,
        top_level=int(tree["top_level"]),
        tree_key_bytes=int(tree["key_bytes"]) if any(n.in_tree_object for n in nodes) else 0,
    )
    inspection.notes.append(
        f"uproot cannot read this TTree's metadata ({_cut(sources.one_line(uproot_error), 160)}); ROOT "
        f"{meta['root_version']} read it instead"
    )
    if not tree["autoflush_recorded"]:
        inspection.notes.append(
            "written before ROOT had AutoFlush (ROOT 5.25 or older): no clusters recorded"
        )
    if layout == XAOD and any(needs_elements(n.unit.type) for n in holding):
        inspection.notes.append(
            "vector<float/double> branches all count as dense: ROOT's metadata does not say their elements per event"
        )
    if inspection.in_tree_object:
        inspection.notes.append(
            f"{sum(1 for n in nodes if n.in_tree_object)} branches keep baskets inside the TTree object: "
            f"{human(inspection.in_tree_object)} uncompressed, in the tree's own key "
            f"({human(inspection.tree_key_bytes)} on disk with the tree's metadata)"
        )
    return inspection


# ----------------------------------------------------------------------------------------------------------
# The one builder of an inspection, from its branches (fields) and its units, whichever the container


@dataclass(frozen=True)
class _Part:
    """A branch (a field), as the builder of an inspection sees it: its own bytes (its baskets', its columns'), the
    compression settings they are stored at, the kind of the unit of content it belongs to."""

    name: str
    top: str  # its top-level branch (field)
    top_index: int  # which top-level branch (field)
    type: str  # as shown
    kind: str
    compressed: int
    uncompressed: int
    settings: frozenset[int]  # ROOT's settings of its baskets (its columns' pages)
    # It stores something: its settings are then its top-level branch's (field's) and the event data's.
    holds: bool
    in_tree_object: int = 0


def _one_setting(settings: Iterable[frozenset[int]]) -> int | None:
    """The setting all of ``settings`` share, or None where they differ or there is none."""
    found = set().union(*settings)
    return found.pop() if len(found) == 1 else None


def _top_rows(parts: list[_Part], units: list[tuple[int, Unit, int]]) -> list[tuple[Row, bool]]:
    """One row per top-level branch (field), with its sub-branches' (subfields') bytes: its kind, the one holding
    most of its units' compressed bytes (of the units that hold data, or of all where none does), its setting, its
    holding parts' (its own where none holds); and whether any part of it holds data."""
    by_top: dict[int, list[_Part]] = {}
    for part in parts:
        by_top.setdefault(part.top_index, []).append(part)
    units_of: dict[int, list[tuple[Unit, int]]] = defaultdict(list)
    for top_index, unit, embedded in units:
        units_of[top_index].append((unit, embedded))
    rows = []
    for top_index, members in by_top.items():
        mine = units_of[top_index]
        holding = [p for p in members if p.holds]
        row = Row(
            members[0].top,
            members[0].top,
            members[0].type,
            _dominant([(u, e) for u, e in mine if u.tot_bytes or e] or mine),
            sum(p.compressed for p in members),
            sum(p.uncompressed for p in members),
            _one_setting(p.settings for p in (holding or members[:1])),
            sum(p.in_tree_object for p in members),
        )
        rows.append((row, bool(holding)))
    return rows


def _inspection(
    parts: list[_Part],
    units: list[tuple[int, Unit, int]],
    *,
    grouping: str,
    file_compression: int,
    all_branches: bool,
    other_by_top: bool = False,
    **facts,
) -> Inspection:
    """The inspection of event data whose branches (fields) are ``parts``, in the order they are listed, and whose
    units of content are ``units`` ((top index, unit with its kind, bytes in the tree object): the study's units,
    contentkinds), for every container alike: its rows (every part with ``all_branches``, else one per top-level
    branch or field), its kinds' totals, the settings that differ from the file's, the event data's setting.
    ``other_by_top``: the settings that differ are said per top-level field (an RNTuple's, whose settings are its
    columns'), else per branch (a TTree's, a setting per branch). ``facts``: the container's own (its name,
    entries, clusters, layout, bytes, ...: the other fields of Inspection)."""
    top_rows = _top_rows(parts, units)
    if all_branches:
        rows = [
            Row(
                p.name,
                p.top,
                p.type,
                p.kind,
                p.compressed,
                p.uncompressed,
                _one_setting([p.settings]),
                p.in_tree_object,
            )
            for p in parts
        ]
    else:
        rows = [row for row, _ in top_rows]
    if other_by_top:
        other = {
            row.name: row.compression
            for row, holds in top_rows
            if holds and row.compression != file_compression
        }
    else:
        other = {
            p.name: setting
            for p in parts
            if p.holds and (setting := _one_setting([p.settings])) is not None and setting != file_compression
        }
    holding = [p.settings for p in parts if p.holds]
    return Inspection(
        **facts,
        file_compression=file_compression,
        everything=len(parts),
        rows=rows,
        kinds=_kind_totals([(unit, embedded) for _, unit, embedded in units], grouping),
        other_compression=other,
        data_compression=_one_setting(holding),
        in_tree_object=sum(p.in_tree_object for p in parts),
        all_branches=all_branches,
    )


def _dominant(units: list[tuple[Unit, int]]) -> str:
    weight: dict[str, int] = defaultdict(int)
    for unit, embedded in units:
        weight[unit.kind] += unit.zip_bytes + embedded
    return max(weight, key=lambda k: (weight[k], -list(weight).index(k)))


def _kind_totals(units: list[tuple[Unit, int]], grouping: str) -> list[KindTotal]:
    totals = {k: KindTotal(k, 0, 0, 0) for k in KINDS_BY_GROUPING[grouping]}
    for unit, embedded in units:
        total = totals.setdefault(unit.kind, KindTotal(unit.kind, 0, 0, 0))
        total.units += 1 if (unit.tot_bytes or embedded) else 0
        total.compressed += unit.zip_bytes
        total.uncompressed += unit.tot_bytes
        total.in_tree_object += embedded
    return [t for t in totals.values() if t.units]


# ----------------------------------------------------------------------------------------------------------
# RNTuple


def _holds_values(type_name: str) -> bool:
    """Whether a field of this type holds numbers or strings, or collections of them (not records)."""
    return leaf_kind(Unit("", "", type_name, 0, 0, 0)) != "streamed objects"


@dataclass
class _Columns:
    """Per physical column of an RNTuple: RNTupleInspector's bytes and elements, and its compression settings."""

    compressed: list[int]
    uncompressed: list[int]
    elements: list[int]
    settings: list[set[int]]
    stored: dict[int, int]  # page offset -> its bytes: a merged page is stored once for several columns
    zero_pages: int  # bytes RNTupleInspector counts for the zero pages of deferred columns
    pages: int


def _rntuple_columns(ntuple) -> _Columns:
    records = ntuple.column_records
    n = len(records)
    cols = _Columns([0] * n, [0] * n, [0] * n, [set() for _ in range(n)], {}, 0, 0)
    for cluster in ntuple.page_link_list:
        for i, column_pages in enumerate(cluster):
            if column_pages.suppressed:
                continue
            if column_pages.compression_settings is not None:
                cols.settings[i].add(int(column_pages.compression_settings))
            size = _RNTUPLE_ELEMENT_BYTES.get(int(records[i].type), 0)
            for page in column_pages.pages:
                cols.pages += 1
                cols.compressed[i] += int(page.locator.num_bytes)
                cols.elements[i] += int(page.num_elements)
                cols.uncompressed[i] += int(page.num_elements) * size
                cols.stored[int(page.locator.offset)] = int(page.locator.num_bytes)
    for i, record in enumerate(records):
        # A column added after the first entries (deferred) starts with elements that no page holds; ROOT's
        # descriptor gives them zero pages of their on-disk size, and RNTupleInspector counts those.
        missing = int(record.first_element_index or 0)
        if missing:
            zero = (missing * int(record.nbits) + 7) // 8
            cols.compressed[i] += zero
            cols.uncompressed[i] += missing * _RNTUPLE_ELEMENT_BYTES.get(int(record.type), 0)
            cols.elements[i] += missing
            cols.zero_pages += zero
    return cols


# A unit of an RNTuple's content: (the field that heads it, the fields whose columns are its bytes, its type,
# several values per entry).
_Head = tuple[int, list[int], str, bool]


class _Fields:
    """An RNTuple's fields as a tree: its top-level fields, each field's subfields and columns, the projected fields
    (aliases of other fields' columns, listed apart), and what the inspection says of each field."""

    def __init__(self, ntuple):
        self.records = ntuple.field_records
        self.children: dict[int, list[int]] = defaultdict(list)
        self.tops: list[int] = []
        self.projected: list[int] = []
        for i, record in enumerate(self.records):
            if record.source_field_id is not None:  # a projected field: an alias of another field's columns
                if record.parent_field_id == i:
                    self.projected.append(i)
            elif record.parent_field_id == i:
                self.tops.append(i)
            else:
                self.children[record.parent_field_id].append(i)
        self.columns_of: dict[int, list[int]] = defaultdict(list)
        for i, column in enumerate(ntuple.column_records):
            self.columns_of[column.field_id].append(i)

    def name(self, i: int) -> str:
        return self.records[i].field_name

    def type(self, i: int) -> str:
        return self.records[i].type_name

    def role(self, i: int) -> str:
        return self.records[i].struct_role.name

    def subtree(self, i: int) -> list[int]:
        out = [i]
        for c in self.children[i]:
            out += self.subtree(c)
        return out

    def columns(self, ids: list[int]) -> list[int]:
        return [c for f in ids for c in self.columns_of[f]]

    def qualified(self, i: int) -> str:
        parts = [self.name(i)]
        while self.records[i].parent_field_id != i:
            i = self.records[i].parent_field_id
            parts.append(self.name(i))
        return ".".join(reversed(parts))

    def untyped_collection(
        self, i: int
    ) -> bool:  # RNTupleImporter's leaf-count arrays: _collection0 {_0 {x, y}}
        return self.role(i) == "COLLECTION" and not self.type(i) and bool(self.children[i])

    def members(self, i: int) -> list[int]:
        """The fields a top-level record or untyped collection holds (through an untyped record in between)."""
        inner = self.children[i]
        if len(inner) == 1 and not self.type(inner[0]) and self.children[inner[0]]:
            return self.children[inner[0]]
        return inner

    def display_type(self, i: int) -> str:
        if self.type(i):
            return self.type(i)
        counters = [  # RNTupleImporter projects the collection's size as the TTree's counter (nElectron)
            self.name(p)
            for p in self.projected
            if self.records[p].source_field_id == i and "RNTupleCardinality" in self.type(p)
        ]
        what = "collection" if self.role(i) == "COLLECTION" else "record"
        return (
            f"untyped {what}" + (f" ({counters[0]})" if counters else "") + f", {len(self.members(i))} fields"
        )

    def layout(self, grouping: str) -> str:
        """xAOD where ATLAS's grouping applies; flat where every top-level field holds numbers or strings (or is an
        untyped collection of such fields); else objects."""
        if grouping == XAOD_GROUPING:
            return XAOD
        if all(
            _holds_values(self.type(t))
            or (self.untyped_collection(t) and all(_holds_values(self.type(c)) for c in self.members(t)))
            for t in self.tops
        ):
            return FLAT
        return OBJECTS

    def xaod_heads(self, t: int) -> list[_Head]:
        """The units of top-level field ``t``, as a TTree's: the field with its subfields, or a top-level record's
        direct subfields each on their own (an xAOD static store's members, as a split branch's sub-branches)."""
        if not (self.role(t) == "RECORD" or self.untyped_collection(t)) or not self.children[t]:
            return [(t, self.subtree(t), self.type(t) or "object", False)]
        own = [(t, [t], "std::uint64_t", False)] if self.columns_of[t] else []
        return own + [(f, self.subtree(f), self.type(f) or "object", False) for f in self.members(t)]

    def leaf_heads(self, i: int, in_collection: bool) -> list[_Head]:
        """The same for the grouping by leaf type, every unit below field ``i``: a field of numbers or strings (or
        of collections of them) as a whole; a record's members each on their own; a collection of records (an
        untyped one: NanoAOD's leaf-count arrays) its own index column (its element counts: a counter) and its
        items' members, which hold several values per entry."""
        role = self.role(i)
        if _holds_values(self.type(i)) or not self.children[i] or role not in ("RECORD", "COLLECTION"):
            return [(i, self.subtree(i), self.type(i) or "object", in_collection)]
        own_type = "std::uint64_t" if role == "COLLECTION" else "object"
        own = [(i, [i], own_type, in_collection)] if self.columns_of[i] else []
        inner = in_collection or role == "COLLECTION"
        return own + [h for c in self.children[i] for h in self.leaf_heads(c, inner)]


def _rntuple_units(
    fields: _Fields, cols: _Columns, grouping: str, entries: int
) -> tuple[list[tuple[int, Unit, int]], dict[int, Unit]]:
    """An RNTuple's units of content (top index, unit with its kind, 0), and the unit that holds each field's
    columns, by field."""
    units: list[tuple[int, Unit, int]] = []
    owner: dict[int, Unit] = {}
    for top_index, t in enumerate(fields.tops):
        heads = fields.xaod_heads(t) if grouping == XAOD_GROUPING else fields.leaf_heads(t, False)
        for f, ids, type_name, array in heads:
            columns = fields.columns(ids)
            compressed = sum(cols.compressed[c] for c in columns)
            unit = Unit(fields.qualified(f), fields.name(t), type_name, compressed, 0, entries)
            unit.tot_bytes, unit.array = sum(cols.uncompressed[c] for c in columns), array
            inner = fields.children[f]
            if grouping == XAOD_GROUPING and needs_elements(unit.type) and len(inner) == 1:
                unit.elements = sum(cols.elements[c] for c in fields.columns_of[inner[0]])
            unit.kind = kind_of(unit, grouping, fields.type(t))
            units.append((top_index, unit, 0))
            owner.update((i, unit) for i in ids)
    return units, owner


def _rntuple_parts(
    fields: _Fields, cols: _Columns, owner: dict[int, Unit], grouping: str, entries: int
) -> list[_Part]:
    """Every field of an RNTuple below its top-level fields, depth first, with its own columns' bytes and settings,
    of the kind of the unit holding it (a record with no data of its own, as a split TTree object's empty own
    baskets, of its own kind)."""
    parts = []
    for top_index, t in enumerate(fields.tops):
        for i in fields.subtree(t):
            if i in owner:
                kind = owner[i].kind
            else:
                record = Unit(fields.qualified(i), fields.name(t), "object", 0, 0, entries)
                kind = kind_of(record, grouping, fields.type(t))
            own = fields.columns_of[i]
            parts.append(
                _Part(
                    fields.qualified(i),
                    fields.name(t),
                    top_index,
                    fields.display_type(i),
                    kind,
                    sum(cols.compressed[c] for c in own),
                    sum(cols.uncompressed[c] for c in own),
                    frozenset().union(*(cols.settings[c] for c in own)),
                    bool(own),
                )
            )
    return parts


def _inspect_rntuple(target: str, file, name: str, all_branches: bool) -> Inspection:
    """The inspection of the RNTuple ``name`` of ``file`` (open with uproot), from its page list and descriptor."""
    ntuple = file[name]
    entries = int(ntuple.num_entries)
    fields = _Fields(ntuple)
    cols = _rntuple_columns(ntuple)
    grouping = grouping_of(name, [(fields.name(t), fields.type(t)) for t in fields.tops])
    units, owner = _rntuple_units(fields, cols, grouping, entries)
    compressed = sum(cols.compressed)
    stored = sum(cols.stored.values())
    inspection = _inspection(
        _rntuple_parts(fields, cols, owner, grouping, entries),
        units,
        grouping=grouping,
        file_compression=int(file.file.fCompress),
        all_branches=all_branches,
        other_by_top=True,
        source=target,
        reader="uproot",
        file_size=0,
        container=RNTUPLE,
        name=name,
        entries=entries,
        clusters=len(ntuple.cluster_summaries),
        clusters_how=f"{len(ntuple.footer.cluster_group_records)} cluster group(s), {cols.pages:,} pages",
        layout=fields.layout(grouping),
        compressed=compressed,
        uncompressed=sum(cols.uncompressed),
        top_level=len(fields.tops),
        stored_once=stored,
    )
    if stored + cols.zero_pages < compressed:
        inspection.notes.append(
            "same-page merging: pages with the same content are stored once for several columns; "
            "RNTupleInspector and the tables here count them once per column; stored once, the pages take "
            f"{human(stored)}"
        )
    if cols.zero_pages:
        deferred = sum(1 for r in ntuple.column_records if r.first_element_index)
        inspection.notes.append(
            f"{deferred} columns were added after the first entries (deferred); their earlier elements are zero "
            f"pages that are not on disk, counted as {human(cols.zero_pages)} as RNTupleInspector counts them"
        )
    if fields.projected:
        inspection.notes.append(
            f"{len(fields.projected)} projected top-level fields (aliases of other fields' columns, e.g. "
            f"{fields.name(fields.projected[0])}) hold no data of their own: their bytes are those of the fields "
            "they project, listed under those"
        )
    return inspection


# ----------------------------------------------------------------------------------------------------------
# The whole


def inspect_file(target: str, tree: str | None = None, all_branches: bool = False) -> Inspection:
    """What ``target`` (a path or a URL) holds; ``tree``: the TTree's or RNTuple's name (found when None)."""
    url = _is_url(target)
    file, size = _open_url(target) if url else _open_local(target)
    with file:
        name, container = choose_event_data(target, file, tree)
        reader = "ROOT (TFile::Open) and uproot" if url else "uproot"
        try:
            inspect = _inspect_rntuple if container == RNTUPLE else inspect_tree
            inspection = inspect(target, file, name, all_branches)
        except InspectError:
            raise
        except Exception as error:  # a damaged RNTuple, or a TTree uproot cannot model: say which, not where
            if container == RNTUPLE:
                raise InspectError(
                    f"{target}: its RNTuple {name} cannot be read ({sources.one_line(error)})"
                ) from error
            inspection, reader = _inspect_tree_with_root(target, name, all_branches, error), "ROOT"
    inspection.file_size, inspection.reader = size, reader
    return inspection


def inspect_unchanged(path: str, tree: str) -> Inspection:
    """inspect_file of the local file ``path``'s ``tree``, made once per file state (its size and modification
    time), as sources.describe keeps its description: a command that plans twice on an unchanged file (advise,
    before and after its pace probe) reads the metadata of every branch once. The Inspection is shared by every
    caller: not to be changed."""
    st = Path(path).stat()
    return _inspect_unchanged(path, tree, st.st_size, st.st_mtime_ns)


@cache
def _inspect_unchanged(path: str, tree: str, size: int, mtime_ns: int) -> Inspection:
    return inspect_file(path, tree)


# ----------------------------------------------------------------------------------------------------------
# Output


def human(n: float) -> str:
    """Bytes in decimal units: 512 B, 12.3 kB, 1.62 MB, 2.10 GB."""
    n = float(n)
    for unit, scale, digits in (("GB", 1e9, 2), ("MB", 1e6, 2), ("kB", 1e3, 1)):
        if abs(n) >= scale:
            return f"{n / scale:.{digits}f} {unit}"
    return f"{n:.0f} B"


def compression_label(setting: int | None) -> str:
    """ROOT's compression setting as people say it: ``zlib-5``, ``lz4-1``, ``none``."""
    if setting is None:
        return "mixed"
    try:
        algorithm, level = decode(setting)
    except CompressionSettingError:
        return f"setting {setting}"
    if algorithm == "none" and setting % 100:
        return f"level {setting % 100}, ROOT's default algorithm"
    return "none" if algorithm == "none" else f"{algorithm}-{level}"


def _ratio(value: float | None) -> str:
    return f"{value:.2f}" if value is not None else "-"


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f} %" if whole else "-"


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def _table(header: list[str], rows: list[list[str]], left: int, text_from: int | None = None) -> list[str]:
    """Columns padded to their widest cell: the first ``left`` columns and those from ``text_from`` on flush
    left, the numbers between them flush right."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    text_from = len(header) if text_from is None else text_from

    def line(cells: list[str]) -> str:
        return "  ".join(
            c.ljust(w) if i < left or i >= text_from else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    return [line(header), *(line(r) for r in rows)]


def _compression_lines(ins: Inspection) -> list[str]:
    file_setting = f"{compression_label(ins.file_compression)} (the file's setting, {ins.file_compression})"
    if not ins.other_compression:
        return [file_setting + f"; every {ins.what} the same"]
    if ins.data_compression is not None:  # one setting for all the event data, another for the file
        return [
            f"{compression_label(ins.data_compression)} (setting {ins.data_compression}) in every {ins.what}; the "
            f"file's own setting, {compression_label(ins.file_compression)} ({ins.file_compression}), is that of "
            "its other objects"
        ]
    by_setting: dict[str, list[str]] = defaultdict(list)
    for name, setting in ins.other_compression.items():
        by_setting[compression_label(setting)].append(name)
    n = len(ins.other_compression)
    lines = [file_setting + f"; {ins.count(n)} at another setting:"]
    for label, names in sorted(by_setting.items(), key=lambda kv: -len(kv[1])):
        shown = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
        lines.append(f"{label}: {len(names)} ({shown})")
    return lines


def text(ins: Inspection, top: int = _DEFAULT_TOP) -> str:
    kind_of = "RNTuple" if ins.container == RNTUPLE else "TTree"
    out = [f"{ins.source}", f"  {kind_of} {ins.name}, read with {ins.reader}"]
    layouts = {
        XAOD: "xAOD (ATLAS: interface objects, aux stores and their dynamic attributes)",
        FLAT: "flat (every top-level " + ins.what + " a number, an array of numbers or a string)",
        OBJECTS: "objects (split or streamed classes: TClonesArray, a class per entry, collections of classes)",
    }
    facts = [
        ("layout", layouts[ins.layout]),
        ("entries", f"{ins.entries:,}"),
        (
            "clusters",
            f"{ins.clusters:,} ({ins.clusters_how})" if ins.clusters is not None else ins.clusters_how,
        ),
    ]
    compression = _compression_lines(ins)
    facts.append(("compression", compression[0]))
    facts += [("", line) for line in compression[1:]]
    facts += [
        ("file size", human(ins.file_size)),
        (
            "event data",
            f"{human(ins.compressed)} compressed, {human(ins.uncompressed)} uncompressed, ratio "
            f"{_ratio(ins.ratio)}; {_share(ins.compressed, ins.file_size)} of the file",
        ),
        (ins.count(2).split()[1], f"{ins.top_level:,} top-level, {ins.everything:,} in all"),
    ]
    out += [f"  {label:<12} {value}" for label, value in facts]
    out += [
        textwrap.fill(note, 114, initial_indent="  note: ", subsequent_indent="        ")
        for note in ins.notes
    ]

    embedded = ins.in_tree_object > 0
    grouping = "ATLAS's grouping for xAOD files" if ins.layout == XAOD else "by what each leaf holds"
    out += ["", f"By kind of content ({grouping})"]
    header = [
        "kind",
        "data branches" if ins.what == "branch" else "data fields",
        "compressed",
        "uncompressed",
        "ratio",
        "share",
    ]
    if embedded:
        header.append("in tree object")
    rows = []
    for k in sorted(ins.kinds, key=lambda k: -(k.compressed + k.in_tree_object)):
        row = [k.kind, str(k.units), human(k.compressed), human(k.uncompressed), _ratio(k.ratio)]
        row.append(_share(k.compressed, ins.compressed))
        if embedded:
            row.append(human(k.in_tree_object))
        rows.append(row)
    total = ["total", str(sum(k.units for k in ins.kinds)), human(ins.compressed), human(ins.uncompressed)]
    total += [_ratio(ins.ratio), _share(ins.compressed, ins.compressed)]
    if embedded:
        total.append(human(ins.in_tree_object))
    out += ["  " + line for line in _table(header, [*rows, total], 1)]
    if ins.multiplicity_entries is not None and ins.multiplicity_entries < ins.entries:
        out.append(
            f"  (dense and low-multiplicity vectors told apart on the first {ins.multiplicity_entries:,} entries)"
        )

    ordered = sorted(ins.rows, key=lambda r: -(r.compressed + r.in_tree_object))
    shown = ordered if top <= 0 else ordered[:top]
    scope = (
        f"every {ins.what}, its own bytes"
        if ins.all_branches
        else (
            "top-level fields, subfields summed in"
            if ins.container == RNTUPLE
            else "top-level branches, sub-branches summed in"
        )
    )
    plural = ins.count(2).split()[1]
    out += [
        "",
        f"{plural.capitalize()} by compressed bytes ({scope}; share: of the {kind_of}'s compressed bytes)",
    ]
    mixed = ins.data_compression is None and bool(ins.other_compression)
    header = [ins.what, "compressed", "uncompressed", "ratio", "share"]
    header += ["in tree object"] * embedded + ["compression"] * mixed + ["kind", "type"]
    rows = []
    for r in shown:
        row = [_cut(r.name, 60), human(r.compressed), human(r.uncompressed), _ratio(r.ratio)]
        row.append(_share(r.compressed, ins.compressed))
        row += [human(r.in_tree_object)] * embedded + [compression_label(r.compression)] * mixed
        rows.append([*row, r.kind, _cut(r.type, 40)])
    out += (
        ["  " + line for line in _table(header, rows, 1, len(header) - 2 - mixed)] if rows else ["  (none)"]
    )
    rest = ordered[len(shown) :]
    if rest:
        part = sum(r.compressed for r in rest)
        out.append(
            f"  ... {len(rest):,} more {plural}: {human(part)} compressed "
            f"({_share(part, ins.compressed)}); --top 0 lists all, --csv or --json gives every one"
        )
    return "\n".join(out) + "\n"


_CSV_COLUMNS = (
    "file",
    "container",
    "tree",
    "name",
    "top_level",
    "type",
    "kind",
    "compressed_bytes",
    "uncompressed_bytes",
    "ratio",
    "share",
    "compression_setting",
    "compression",
    "in_tree_object_bytes",
)


def _csv_text(ins: Inspection) -> str:
    """One row per branch (field), largest first: tidy, for pandas."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(_CSV_COLUMNS)
    for r in sorted(ins.rows, key=lambda r: -(r.compressed + r.in_tree_object)):
        writer.writerow(
            [
                ins.source,
                ins.container,
                ins.name,
                r.name,
                r.top,
                r.type,
                r.kind,
                r.compressed,
                r.uncompressed,
                f"{r.ratio:.4f}" if r.ratio is not None else "",
                f"{r.compressed / ins.compressed:.6f}" if ins.compressed else "",
                "" if r.compression is None else r.compression,
                compression_label(r.compression),
                r.in_tree_object,
            ]
        )
    return buffer.getvalue()


def as_dict(ins: Inspection) -> dict:
    """Everything, for --json: bytes as numbers, settings as ROOT's numbers and in words; the file's facts first,
    then the kinds, then every branch (field), largest first."""
    data = asdict(ins)
    rows, kinds = data.pop("rows"), data.pop("kinds")
    data["ratio"] = ins.ratio
    data["file_compression_label"] = compression_label(ins.file_compression)
    data["data_compression_label"] = compression_label(ins.data_compression)
    data["other_compression"] = [
        {"name": n, "setting": s, "compression": compression_label(s)}
        for n, s in ins.other_compression.items()
    ]
    for kind, obj in zip(kinds, ins.kinds, strict=True):
        kind["ratio"] = obj.ratio
        kind["share"] = obj.compressed / ins.compressed if ins.compressed else None
    for row, obj in zip(rows, ins.rows, strict=True):
        row["ratio"] = obj.ratio
        row["share"] = obj.compressed / ins.compressed if ins.compressed else None
        row["compression_label"] = compression_label(obj.compression)
    data["kinds"] = sorted(kinds, key=lambda k: -k["compressed"])
    data["rows"] = sorted(rows, key=lambda r: -(r["compressed"] + r["in_tree_object"]))
    return data


def _json_text(ins: Inspection) -> str:
    return json.dumps(as_dict(ins), indent=1) + "\n"


def main(argv: list[str] | None = None, prog: str = "python -m rootparams.ownfile.inspection") -> int:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="What a ROOT file is: its event data (TTree or RNTuple), entries, clusters, compression, and "
        "where its bytes go, branch by branch (field by field) and by kind of content.",
        epilog="Bytes are the file's own bookkeeping (TBranch::GetZipBytes/GetTotBytes; RNTupleInspector's page "
        "sizes), in decimal units (1 kB = 1000 B); ratio is uncompressed / compressed. A URL (root://, https://) "
        "is opened by ROOT; root://localhost needs ?remote=1 to go through the server.",
    )
    parser.add_argument("file", metavar="FILE|URL", help="a ROOT file, or a root:// or https:// URL")
    parser.add_argument(
        "--tree",
        default=None,
        metavar="NAME",
        help="the TTree or RNTuple (default: CollectionTree, EventData, Events or the only one)",
    )
    parser.add_argument(
        "--all-branches",
        action="store_true",
        help="every branch (field) with its own bytes, not the top-level ones with their sub-branches summed in",
    )
    parser.add_argument(
        "--top",
        type=int,
        default=_DEFAULT_TOP,
        metavar="N",
        help=f"rows of the text table (default {_DEFAULT_TOP}; 0: all)",
    )
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--csv", action="store_true", help="one CSV row per branch (field), with its kind")
    output.add_argument("--json", action="store_true", help="everything, as JSON")
    args = parser.parse_args(argv)
    try:
        ins = inspect_file(resolve_path(args.file), args.tree, args.all_branches)  # skhep_testdata:<name> too
    except UserError as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        return 2
    try:
        sys.stdout.write(
            _csv_text(ins) if args.csv else _json_text(ins) if args.json else text(ins, args.top)
        )
        sys.stdout.flush()
    except BrokenPipeError:  # the reader stopped early (| head): not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


if __name__ == "__main__":
    sys.exit(main())
