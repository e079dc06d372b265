"""What ROOT itself reads of a file's event data, in a process of its own: the fallback of rootparams.ownfile.sources and
rootparams.ownfile.inspection where uproot cannot model a TTree's metadata (a class version it has no model for, a branch
type it cannot name). uproot stays the first choice everywhere; ROOT is asked only then.

    python -m rootparams.tools.root_metadata FILE|URL [--tree NAME]

prints one line ``ROOTPARAMS_JSON {...}``: the file's size and compression setting and its TTrees and RNTuples at
any depth (name -> class, and a TTree's entries); with ``--tree``, that TTree's entries, AutoFlush, clusters, bytes,
the key that holds it, and every branch: its type as ROOT names it (TBranchElement::GetTypeName, else its first
leaf's TLeaf::GetTypeName, the names rootparams.ownfile.inspection gives), its own compressed and uncompressed bytes
(TBranch::GetZipBytes/GetTotBytes of its own baskets), its compression setting and the bytes of its baskets kept
inside the TTree object.

Only metadata is read: no basket is decompressed and no object streamed, so a file whose classes have no dictionary
here is described all the same. A process of its own, because ROOT may abort the process on a damaged file; the
caller (``read``) gets an error that names the file and carries ROOT's own words.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import warnings

from rootparams.errors import UserError
from rootparams.tools.processes import JSON_MARKER, json_result

# Reading a TTree's metadata takes a second or two (most of it ROOT's start); a file that takes longer is hung.
_TIMEOUT_SECONDS = 300


# ROOT's names of basic types as uproot spells them (its typename), for the type a person reads; the kinds are
# given by ROOT's own names, which rootparams.ownfile.contentkinds knows in both spellings.
_CPP_SPELLING = {
    "Bool_t": "bool",
    "Char_t": "int8_t",
    "UChar_t": "uint8_t",
    "Short_t": "int16_t",
    "UShort_t": "uint16_t",
    "Int_t": "int32_t",
    "UInt_t": "uint32_t",
    "Long_t": "int64_t",
    "ULong_t": "uint64_t",
    "Long64_t": "int64_t",
    "ULong64_t": "uint64_t",
    "Float_t": "float",
    "Float16_t": "float",
    "Double_t": "double",
    "Double32_t": "double",
}


class RootMetadataError(UserError):
    """ROOT could not describe the file or its TTree; the message names the file and gives ROOT's words."""


def read(target: str, tree: str | None = None, timeout: float = _TIMEOUT_SECONDS) -> dict:
    """What ROOT reads of ``target`` (a path or a URL): its listing, and with ``tree`` that TTree (the module's
    docstring says what). Raises RootMetadataError naming the file and what ROOT said."""
    what = f"its TTree {tree}" if tree else "its keys"
    argv = [
        sys.executable,
        "-m",
        "rootparams.tools.root_metadata",
        target,
        *(["--tree", tree] if tree else []),
    ]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as error:
        raise RootMetadataError(
            f"{target}: ROOT did not finish reading {what} within {timeout:.0f} s"
        ) from error
    result = json_result(done.stdout.splitlines())
    if done.returncode == 0 and result is not None:
        return result
    said = [ln.strip() for ln in done.stderr.splitlines() if ln.strip()]
    errors = [
        ln for ln in said if ln.startswith(("Error", "Fatal", "SysError", "rootparams")) or "rror" in ln
    ]
    reason = (errors or said or ["no message"])[-1]
    if done.returncode < 0:
        reason = f"ROOT was killed by signal {-done.returncode}; its last words: {reason}"
    raise RootMetadataError(f"{target}: ROOT cannot read {what} ({reason.removeprefix('rootparams: ')})")


# ----------------------------------------------------------------------------------------------------------
# In the child process


def _import_root():
    warnings.filterwarnings("ignore", message=r"(?s).*This distribution of ROOT is in alpha stage")
    # One try of an XRootD server it cannot reach, as rootparams.ownfile.inspection: a wrong host is reported in seconds.
    os.environ.setdefault("XRD_CONNECTIONRETRY", "1")
    import ROOT  # here: only the child pays for it

    ROOT.gROOT.SetBatch(True)
    ROOT.gErrorIgnoreLevel = ROOT.kError  # classes without a dictionary here: warnings that do not matter
    return ROOT


class _Refusal(Exception):
    """What the child prints as its one-line error (the file and what is wrong)."""


def _listing(ROOT, directory, prefix: str = "") -> dict[str, str]:
    """Every key's class at any depth (``dir/name``), the highest cycle of each name."""
    found: dict[str, tuple[int, str]] = {}
    for key in directory.GetListOfKeys():
        name, cls = prefix + key.GetName(), key.GetClassName()
        klass = ROOT.TClass.GetClass(cls)
        if klass and klass.InheritsFrom("TDirectory"):
            sub = directory.GetDirectory(key.GetName())
            if sub:
                for inner, inner_cls in _listing(ROOT, sub, name + "/").items():
                    found.setdefault(inner, (0, inner_cls))
            continue
        if name not in found or key.GetCycle() > found[name][0]:
            found[name] = (key.GetCycle(), cls)
    return {name: cls for name, (_, cls) in found.items()}


def _autoflush_recorded(tfile) -> bool:
    """Whether the file's TTree class version has fAutoFlush (ROOT 5.26 and later): before it, ROOT 6 reports its
    constructor's default, which the file never held."""
    infos = tfile.GetStreamerInfoList()
    for info in infos or []:
        if info.GetName() == "TTree":
            return bool(info.GetElements().FindObject("fAutoFlush"))
    return True


def _branch(ROOT, b, top: str, top_class: str) -> dict:
    element = b.InheritsFrom("TBranchElement")
    holds_object = element or b.InheritsFrom("TBranchObject")
    class_name = str(b.GetClassName()) if holds_object else ""
    leaves = b.GetListOfLeaves()
    leaf = leaves.At(0) if leaves.GetEntries() else None
    if element:
        type_name = str(b.GetTypeName())
    elif holds_object:
        type_name = class_name
    else:
        type_name = str(leaf.GetTypeName()) if leaf else "?"
    array = bool(leaf and leaf.GetLeafCount())
    static = int(leaf.GetLenStatic()) if leaf else 1
    # As uproot names what a branch stores (inspection's type column): the class of an object's top-level branch,
    # else its type with the leaf's dimension, [] for a variable-length one.
    if b.GetName() == top and class_name:
        shown = class_name
    elif leaf and leaf.InheritsFrom("TLeafC"):
        shown = "char*"  # a C string: its length is per entry
    else:
        shown = _CPP_SPELLING.get(type_name, type_name)
        shown += "[]" if array else (f"[{static}]" if static > 1 and not holds_object else "")
    # The basket a branch keeps in the TTree object (written with the tree's metadata, never on its own): the one
    # at fWriteBasket, with its entries; its content is what it holds beyond its key.
    embedded = 0
    baskets = b.GetListOfBaskets()
    write_basket = int(b.GetWriteBasket())
    basket = baskets.At(write_basket) if 0 <= write_basket < baskets.GetSize() else None
    if basket and basket.GetNevBuf() > 0:
        embedded = max(0, int(basket.GetLast()) - int(basket.GetKeylen()))
    return {
        "name": str(b.GetName()),
        "top": top,
        "top_class": top_class,
        "type": type_name,
        "shown_type": shown,
        "class": class_name,
        "sub_branches": int(b.GetListOfBranches().GetEntries()),
        "zip_bytes": int(b.GetZipBytes("")),
        "tot_bytes": int(b.GetTotBytes("")),
        "compression": int(b.GetCompressionSettings()),
        "array": array,
        "in_tree_object": embedded,
    }


def _tree(ROOT, tfile, name: str) -> dict:
    tree = tfile.Get(name)
    if not tree or not tree.InheritsFrom("TTree"):
        raise _Refusal(f"{tfile.GetName()} has no TTree named {name!r}")
    entries = int(tree.GetEntries())
    autoflush = int(tree.GetAutoFlush()) if _autoflush_recorded(tfile) else 0
    # Counted as ROOT walks them; where AutoFlush is not in entries ROOT estimates clusters from its cache size at
    # read time (the same "not recorded" as inspection.tree_clusters).
    clusters = None
    if autoflush > 0:
        clusters, it = 0, tree.GetClusterIterator(0)
        start = it()
        while start < entries:
            clusters += 1
            start = it()
    branches: list[dict] = []

    def walk(b, top: str, top_class: str) -> None:
        branches.append(_branch(ROOT, b, top, top_class))
        for sub in b.GetListOfBranches():
            walk(sub, top, top_class)

    for b in tree.GetListOfBranches():
        holds_object = b.InheritsFrom("TBranchElement") or b.InheritsFrom("TBranchObject")
        walk(b, str(b.GetName()), str(b.GetClassName()) if holds_object else "")
    directory, _, base = name.rpartition("/")
    holder = tfile.GetDirectory(directory) if directory else tfile
    key = holder.GetKey(base) if holder else None
    return {
        "name": name,
        "entries": entries,
        "autoflush": autoflush,
        "autoflush_recorded": _autoflush_recorded(tfile),
        "clusters": clusters,
        "zip_bytes": int(tree.GetZipBytes()),
        "tot_bytes": int(tree.GetTotBytes()),
        "key_bytes": int(key.GetNbytes() - key.GetKeylen()) if key else 0,
        "top_level": int(tree.GetListOfBranches().GetEntries()),
        "branches": branches,
    }


def _describe(target: str, tree: str | None) -> dict:
    ROOT = _import_root()
    tfile = ROOT.TFile.Open(target)
    if not tfile or tfile.IsZombie():
        raise _Refusal(f"{target}: ROOT cannot open it")
    classes = _listing(ROOT, tfile)
    out = {
        "file": target,
        "file_size": int(tfile.GetSize()),
        "compression_setting": int(tfile.GetCompressionSettings()),
        "classes": classes,
        "entries": {},
        "root_version": str(ROOT.gROOT.GetVersion()),
    }
    for name, cls in classes.items():
        klass = ROOT.TClass.GetClass(cls)
        if klass and klass.InheritsFrom("TTree"):
            obj = tfile.Get(name)
            out["entries"][name] = int(obj.GetEntries()) if obj else None
    if tree:
        out["tree"] = _tree(ROOT, tfile, tree)
    return out


def main(argv: list[str] | None = None) -> int:
    import json

    parser = argparse.ArgumentParser(
        prog="python -m rootparams.tools.root_metadata", description=__doc__.split("\n")[0]
    )
    parser.add_argument("file", metavar="FILE|URL")
    parser.add_argument("--tree", metavar="NAME", help="the TTree to describe branch by branch")
    args = parser.parse_args(argv)
    try:
        out = _describe(args.file, args.tree)
    except _Refusal as refusal:
        print(f"rootparams: {refusal}", file=sys.stderr)
        return 2
    print(JSON_MARKER + json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
