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

Either file may be named ``skhep_testdata:<name>``: that file of the scikit-hep-testdata package (real ATLAS and
CMS samples among its test files), which the package downloads into its cache directory on first use
(``resolve_path``; rootparams.config resolves it when the study is loaded, before any job).

This module reads what the configuration needs from the file (which tree or RNTuple, its entries, its
compression setting and AutoFlush, whether it has ATLAS particle containers) with uproot, in the scheduling
process, before any job: a wrong path, a file that is not ROOT or a missing tree stops the study there, with
a message that names the file and what it does hold. Its points' files (the catalogue entry of the file as it
is, the rewrites) are made by rootparams.generate, as every point's are.
"""

from __future__ import annotations

import difflib
import os
import shutil
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from rootparams.errors import UserError
from rootparams.vocabulary import RNTUPLE, CompressionSettingError, container_of_class, decode

# The event data's usual names, taken when a file holds several trees: ATLAS's TTree and RNTuple, CMS's TTree.
EVENT_DATA_NAMES = ("CollectionTree", "EventData", "Events")
# What ATLAS's particle containers' interface objects are (the reader's own test is the class hierarchy).
ATLAS_CONTAINER_PREFIX = "DataVector<xAOD::"
# A source or calibrate file written skhep_testdata:<name> is that file of the scikit-hep-testdata package (PyPI).
PUBLIC_SAMPLE_PREFIX = "skhep_testdata:"
# The public samples the documentation's measurements used, by the names an offline mirror of them has (the
# development machines reach no GitHub, where scikit-hep-testdata downloads from) and by the package's names.
OFFLINE_MIRROR_NAMES = {
    "atlas_physlite_run2_ttbar_100ev.root": "uproot-issue-123b.root",
    "atlas_physlite_rntuple_100ev.root": "uproot-physlite-rntuple_v1-0-0-0.root",
    "cms_nanoaod_2015_ttbar_200ev.root": "nanoAOD_2015_CMS_Open_Data_ttbar.root",
}


class SourceError(UserError, ValueError):
    """A format's source file cannot be used as it is; the message names the file and what would be valid."""


@dataclass(frozen=True)
class SourceFile:
    path: str
    tree: str  # the TTree's or the RNTuple's name
    container: str  # vocabulary.TTREE or RNTUPLE
    entries: int
    compression_setting: int  # the file's (TFile::GetCompressionSettings), 100 * algorithm + level
    autoflush: int  # TTree::GetAutoFlush; 0 for an RNTuple (it has no AutoFlush)
    atlas_containers: int  # top-level branches/fields whose class is DataVector<xAOD::...>

    @property
    def algorithm_level(self) -> tuple[str, int]:
        try:
            return decode(self.compression_setting)
        except CompressionSettingError as error:
            raise SourceError(f"{self.path}: {error}") from error


def resolve_path(path: str, cache_dir: str | Path | None = None) -> str:
    """``path`` as a local file: ``skhep_testdata:<name>`` is that file of scikit-hep-testdata, taken from the
    package's cache directory (``cache_dir``, default ~/.local/skhepdata) and downloaded there from GitHub on first
    use (skhep_testdata.data_path); any other path is returned as it is."""
    if not path.startswith(PUBLIC_SAMPLE_PREFIX):
        return path
    name = path.removeprefix(PUBLIC_SAMPLE_PREFIX)
    try:  # here, not at the top: only a study that names a public sample needs the package
        import skhep_testdata
        from skhep_testdata.data import cache_path
        from skhep_testdata.remote_files import is_known_remote
    except ImportError as error:
        raise SourceError(
            f"{path}: the scikit-hep-testdata package is not installed; pip install scikit-hep-testdata "
            "(./run installs it with rootparams)"
        ) from error
    if name not in skhep_testdata.known_files and not is_known_remote(name):
        close = difflib.get_close_matches(name, sorted(skhep_testdata.known_files), n=1)
        raise SourceError(
            f"{path}: scikit-hep-testdata {skhep_testdata.__version__} has no file {name!r}"
            + (f"; did you mean {PUBLIC_SAMPLE_PREFIX}{close[0]}?" if close else "")
            + " (python -m skhep_testdata --list lists its files)"
        )
    cache = cache_path(cache_dir)
    cache.mkdir(parents=True, exist_ok=True)
    # A failed download: requests' errors are OSErrors, a remote dataset's a RuntimeError.
    try:
        return skhep_testdata.data_path(name, cache_dir=None if cache_dir is None else str(cache))
    except (OSError, RuntimeError) as error:
        raise SourceError(
            f"{path}: {name} is not in scikit-hep-testdata's cache ({cache}), and downloading it from GitHub "
            f"failed ({type(error).__name__}: {error}). It needs the internet once, or a copy of the file in "
            f"{cache} named {name}"
        ) from error


def seed_public_sample_cache(mirror: str | Path, cache_dir: str | Path | None = None) -> list[str]:
    """Copy the public samples an offline mirror holds (``mirror``/<name of OFFLINE_MIRROR_NAMES>) into
    scikit-hep-testdata's cache under the package's names, where the cache lacks them, for a machine that reaches
    no GitHub. Returns the package's names of the files copied."""
    from skhep_testdata.data import cache_path  # here, not at the top: as in resolve_path

    cache = cache_path(cache_dir)
    cache.mkdir(parents=True, exist_ok=True)
    copied = []
    for mirror_name, name in OFFLINE_MIRROR_NAMES.items():
        found, target = Path(mirror) / mirror_name, cache / name
        if found.is_file() and not target.exists():
            partial = target.with_name(f".{name}.partial")
            shutil.copyfile(found, partial)
            partial.replace(target)  # whole or not at all: a cached file is taken as it is
            copied.append(name)
    return copied


def describe(path: str, tree: str | None = None) -> SourceFile:
    """What the study needs to know of ``path`` (``tree``: the TTree's or RNTuple's name, found when omitted).
    Cached per file state, so that the scheduling process opens each file once."""
    p = Path(path)
    if not p.is_file():
        where = "does not exist" if not p.exists() else "is not a regular file"
        raise SourceError(
            f"{path} {where} (a format's source must be a ROOT file; relative paths are taken "
            f"from the workflow directory, {os.getcwd()})"
        )
    st = p.stat()
    return _describe(str(p.resolve()), tree, st.st_size, st.st_mtime_ns)


@cache
def _describe(path: str, tree: str | None, size: int, mtime_ns: int) -> SourceFile:
    import uproot  # here, not at the top: a study without its own files never pays for its import

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
        containers = {k: container_of_class(v) for k, v in kinds.items()}
        candidates = {k: c for k, c in containers.items() if c is not None}
        name = tree or _event_data_name(path, candidates)
        if name not in candidates:
            what = (
                "holds no TTree or RNTuple"
                if not candidates
                else ("holds " + ", ".join(f"{k} ({v})" for k, v in candidates.items()))
            )
            raise SourceError(
                f"{path} has no TTree or RNTuple named {name!r}; it {what}. Give one of them as the "
                "format's tree"
            )
        obj = file[name]
        if candidates[name] == RNTUPLE:
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
    raise SourceError(
        f"{path}: cannot tell which tree holds the events; it has {listed}. Name it with the "
        "format's 'tree' key"
    )


def file_settings(source: SourceFile) -> dict:
    """The file settings of a source's points that a scan does not vary: the file's own. Split level -1 and
    basket size 0 mean "as in the file" (a rewrite keeps every branch's split level and, with basket size 0,
    its basket size); page size 0 likewise for an RNTuple."""
    algorithm, level = source.algorithm_level
    return {
        "container": source.container,
        "algorithm": algorithm,
        "level": level,
        "autoflush": source.autoflush,
        "split_level": -1,
        "basket_size": 0,
        "page_size": 0,
    }
