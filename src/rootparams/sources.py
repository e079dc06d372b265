"""A user's own ROOT file as a format of the study (docs/formats.md, "Your own files").

A format can name a file instead of a recipe: ``formats: {myphys: {source: /data/DAOD_PHYS.root}}``. Its
points are then

* the file **as it is** (file id ``asis``): every read-side scan (TTreeCache, learn entries, threads, storage,
  branch selection) reads the original, which is never written to;
* **rewrites** of it (file ids ``rewrite_...``): the file-side scans that ROOT can make by copying the tree
  (compression algorithm and level, AutoFlush, basket size), each in a process of its own
  (rootparams.rewrite), so that a crash of ROOT on the user's classes fails that point alone.

A format can also clone a file's profile (``calibrate: <file>``): rootparams.calibrate writes a synthetic
recipe that behaves like the file, and the format is then generated like the built-in ones, so that every
file-side scan, split level included, runs on it.

This module reads what the configuration needs from the file (which tree or RNTuple, its entries, its
compression setting and AutoFlush, whether it has ATLAS particle containers) with uproot, in the scheduling
process, before any job: a wrong path, a file that is not ROOT or a missing tree stops the study there, with
a message that names the file and what it does hold.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from rootparams.errors import UserError

# The event data's usual names, taken when a file holds several trees: ATLAS's TTree and RNTuple, CMS's TTree.
EVENT_DATA_NAMES = ("CollectionTree", "EventData", "Events")
# What ATLAS's particle containers' interface objects are (the reader's own test is the class hierarchy).
ATLAS_CONTAINER_PREFIX = "DataVector<xAOD::"


class SourceError(UserError, ValueError):
    """A format's source file cannot be used as it is; the message names the file and what would be valid."""


@dataclass(frozen=True)
class SourceFile:
    path: str
    tree: str  # the TTree's or the RNTuple's name
    container: str  # "ttree" or "rntuple"
    entries: int
    compression_setting: int  # the file's (TFile::GetCompressionSettings), 100 * algorithm + level
    autoflush: int  # TTree::GetAutoFlush; 0 for an RNTuple (it has no AutoFlush)
    atlas_containers: int  # top-level branches/fields whose class is DataVector<xAOD::...>

    @property
    def algorithm_level(self) -> tuple[str, int]:
        from rootparams.grid import ALGORITHM_NAMES

        code, level = divmod(self.compression_setting, 100)
        if code not in ALGORITHM_NAMES:
            raise SourceError(
                f"{self.path}: compression setting {self.compression_setting} (algorithm {code}) is not one this "
                f"study knows; known algorithms are {', '.join(f'{n} ({c})' for c, n in sorted(ALGORITHM_NAMES.items()))}"
            )
        return (ALGORITHM_NAMES[code], level) if code else ("none", 0)


def describe(path: str, tree: str | None = None) -> SourceFile:
    """What the study needs to know of ``path`` (``tree``: the TTree's or RNTuple's name, found when omitted).
    Cached per file state, so that the scheduling process opens each file once."""
    p = Path(path)
    if not p.is_file():
        where = "does not exist" if not p.exists() else "is not a regular file"
        raise SourceError(f"{path} {where} (a format's source must be a ROOT file; relative paths are taken "
                          f"from the workflow directory, {os.getcwd()})")  # fmt: skip
    st = p.stat()
    return _describe(str(p.resolve()), tree, st.st_size, st.st_mtime_ns)


@cache
def _describe(path: str, tree: str | None, size: int, mtime_ns: int) -> SourceFile:
    import uproot

    with open(path, "rb") as f:
        if f.read(4) != b"root":
            raise SourceError(f"{path} is not a ROOT file (it does not start with 'root'); give a .root file")
    try:
        file = uproot.open(path)
    except Exception as error:  # uproot's message says what is wrong with the header
        raise SourceError(f"{path}: not a readable ROOT file: {error}") from error
    with file:
        # Top-level trees and RNTuples only; the highest cycle of each name.
        kinds = {k.split(";")[0]: v for k, v in sorted(file.classnames(recursive=False).items())}
        candidates = {k: ("rntuple" if v == "ROOT::RNTuple" else "ttree") for k, v in kinds.items()
                      if v in ("TTree", "ROOT::RNTuple")}  # fmt: skip
        name = tree or _event_data_name(path, candidates)
        if name not in candidates:
            what = (
                "holds no TTree or RNTuple"
                if not candidates
                else ("holds " + ", ".join(f"{k} ({v})" for k, v in candidates.items()))
            )
            raise SourceError(f"{path} has no TTree or RNTuple named {name!r}; it {what}. Give one of them as the "
                              "format's tree")  # fmt: skip
        obj = file[name]
        if candidates[name] == "rntuple":
            fields = [r for i, r in enumerate(obj.field_records) if r.parent_field_id == i]
            atlas = sum(r.type_name.startswith(ATLAS_CONTAINER_PREFIX) for r in fields)
            entries, autoflush = int(obj.num_entries), 0
        else:
            atlas = sum(b.typename.startswith(ATLAS_CONTAINER_PREFIX) for b in obj.branches)
            entries, autoflush = int(obj.num_entries), int(obj.member("fAutoFlush"))
        setting = int(file.file.fCompress)
    if entries < 2:
        raise SourceError(f"{path}: {name} has {entries} entries; a timed read needs at least 2")
    return SourceFile(path, name, candidates[name], entries, setting, autoflush, atlas)


def _event_data_name(path: str, candidates: dict[str, str]) -> str:
    if len(candidates) == 1:
        return next(iter(candidates))
    known = [n for n in EVENT_DATA_NAMES if n in candidates]
    if known:
        return known[0]
    listed = ", ".join(f"{k} ({v})" for k, v in candidates.items()) or "none"
    raise SourceError(f"{path}: cannot tell which tree holds the events; it has {listed}. Name it with the "
                      "format's 'tree' key")  # fmt: skip


def file_settings(source: SourceFile) -> dict:
    """The file settings of a source's points that a scan does not vary: the file's own. Split level -1 and
    basket size 0 mean "as in the file" (a rewrite keeps every branch's split level and, with basket size 0,
    its basket size); page size 0 likewise for an RNTuple."""
    algorithm, level = source.algorithm_level
    return {"container": source.container, "algorithm": algorithm, "level": level, "autoflush": source.autoflush,
            "split_level": -1, "basket_size": 0, "page_size": 0}  # fmt: skip


# The file settings a rewrite can change, per container (rootparams.rewrite). Split level cannot change through
# a copy: ROOT's clone keeps each branch's split level (the branches are made from the source's). An RNTuple is
# rewritten by ROOT's RNTupleMerger, which changes the compression and keeps the clusters and pages.
REWRITABLE = {"ttree": ("algorithm", "level", "autoflush", "basket_size"), "rntuple": ("algorithm", "level")}
WHY_NOT_REWRITABLE = {
    "split_level": "split level cannot change through a copy (ROOT's clone keeps each branch's split level)",
    "container": "a source keeps its container (a TTree is not converted into an RNTuple or back)",
    "page_size": "page_size is an RNTuple setting of our writer, which does not rewrite a source",
    "float_precision": "float_precision is applied by our writer as it writes, which does not rewrite a source",
    "branch_compression": "branch_compression is applied by our writer as it writes (ROOT's copy keeps one setting)",
}


def unrewritable(container: str, varied: list[str]) -> list[str]:
    """The file settings among ``varied`` that a source stored as ``container`` cannot be rewritten at."""
    from rootparams.config import FILE_KEYS

    return [k for k in varied if k in FILE_KEYS and k not in REWRITABLE[container]]


def why_not(container: str, key: str) -> str:
    if container == "rntuple" and key in REWRITABLE["ttree"]:
        return (f"{key} cannot change in an RNTuple source (ROOT's RNTupleMerger rewrites its compression only, "
                "keeping its clusters and pages)")  # fmt: skip
    return WHY_NOT_REWRITABLE[key]


def catalogue_source(point, *, source: str, tree: str, reader: str, catalogue: str) -> dict:
    """The catalogue entry of a source as it is: what the reader finds in it, and its identity (size, mtime,
    checksum of its first 64 kB), so that a later run can tell whether the user's file changed."""
    from rootparams.generate import catalogue_entry
    from rootparams.native import run_tool
    from rootparams.records import write_json_atomic
    from rootparams.rewrite import file_identity

    before = file_identity(source)
    inspected = run_tool(
        [reader, "--file", source, "--tree", tree, "--inspect"], f"reading {source} as it is"
    )
    entry = {**catalogue_entry(point, None, inspected, source), **_source_fields(before)}
    write_json_atomic(catalogue, entry)
    return entry


def _source_fields(identity: dict) -> dict:
    return {f"source_{k}": v for k, v in identity.items()}


def rewrite_point(
    point,
    *,
    source: str,
    tree: str,
    rewriter: str,
    reader: str,
    output: str,
    catalogue: str,
    on_failure: str,
    say,
    log_path: str | None = None,
) -> dict:
    """Rewrite ``source`` at ``point``'s settings (rootparams.rewrite: a process of its own; ROOT's output in
    ``log_path``). If ROOT cannot (it crashes on a class without a dictionary, say), ``on_failure`` "fail"
    raises the error, which names the file, the branch or class and the signal; "record" keeps it in the
    catalogue entry (``refused``) and leaves an empty placeholder at ``output``, so that the point's reads are
    recorded as refused and every other point of the study goes on (measure_point never reads a refused
    point's file)."""
    from rootparams.generate import catalogue_entry, requested_settings
    from rootparams.records import write_json_atomic
    from rootparams.rewrite import RewriteError, file_identity, rewrite_file

    identity = file_identity(source)  # also for a refused rewrite, which returns none
    ttree = point.container == "ttree"
    try:
        result = rewrite_file(source, tree=tree, output=output, compression=point.compression_setting,
                              autoflush=point.autoflush if ttree else None,
                              basket_size=point.basket_size if ttree else None, rewriter=rewriter, reader=reader,
                              container=point.container, log_path=log_path)  # fmt: skip
    except RewriteError as error:
        if on_failure == "fail":
            raise
        say(f"rewrite refused, recorded (rewrite_failures: record): {error}")
        open(output, "wb").close()  # the placeholder Snakemake expects; the catalogue says there is no file
        culprits = error.culprits or []
        entry = {
            **requested_settings(point, output),
            "refused": str(error).splitlines()[0],
            "refused_signal": error.signal_name,
            "refused_branches": ";".join(f"{c.get('branch')} ({c.get('class')})" for c in culprits),
            "refused_message": str(error),
            **_source_fields(identity),
        }
        write_json_atomic(catalogue, entry)
        return entry
    w = result["written"]
    written = {"seed": None, "write_start_time": w["rewrite_start_time"], "write_end_time": w["rewrite_end_time"],
               "write_wall_seconds": w["rewrite_wall_seconds"], "write_cpu_seconds": w["rewrite_cpu_seconds"],
               "content_source": f"rewrite of {source}", "generate_seconds": 0.0,
               "root_write_seconds": w["rewrite_wall_seconds"], "root_write_cpu_seconds": w["rewrite_cpu_seconds"],
               "peak_rss_bytes": w["peak_rss_bytes"],
               "write_threads": 1}  # fmt: skip
    entry = {**catalogue_entry(point, written, result["inspected"], output), **_source_fields(identity),
             "refused": None}  # fmt: skip
    write_json_atomic(catalogue, entry)
    return entry
