"""A user's own ROOT file as a format of the study (docs/formats.md, "Your own files").

A format can name a file instead of a recipe: ``formats: {myphys: {source: /data/DAOD_PHYS.root}}``. Its
points are then

* the file **as it is** (file id ``asis``): every read-side scan (TTreeCache, learn entries, threads, storage,
  branch selection) reads the original, which is never written to;
* **rewrites** of it (file ids ``rewrite_...``): the file-side scans that ROOT can make by copying the tree
  (compression algorithm and level, AutoFlush, basket size), each in a process of its own
  (rootparams.tools.rewrite), so that a crash of ROOT on the user's classes fails that point alone.

A format can also clone a file's profile (``calibrate: <file>``): rootparams.ownfile.calibrate writes a synthetic
recipe that behaves like the file, and the format is then generated like the built-in ones, so that every
file-side scan, split level included, runs on it.

Either file may be named ``skhep_testdata:<name>``: that file of the scikit-hep-testdata package (real ATLAS and
CMS samples among its test files), which the package downloads into its cache directory on first use
(``resolve_path``; rootparams.study.config resolves it when the study is loaded, before any job).

This module reads what the configuration needs from the file (which tree or RNTuple, its entries, its
compression setting and AutoFlush, whether it has ATLAS particle containers) with uproot, in the scheduling
process, before any job; a TTree whose metadata uproot cannot model (a class version or branch type it has no
model for) is read by ROOT instead, in a process of its own (rootparams.tools.root_metadata). A wrong path, a file that
is not ROOT, a missing tree or a file with several and none named stops the study there, with a message that names
the file and what it does hold (``choose_event_data``, which rootparams.ownfile.inspection shares). Its points' files (the catalogue entry of the file as it
is, the rewrites) are made by rootparams.measure.generate, as every point's are.
"""

from __future__ import annotations

import difflib
import os
import re
import shutil
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from rootparams.errors import UserError
from rootparams.tools import root_metadata
from rootparams.vocabulary import RNTUPLE, TTREE, CompressionSettingError, container_of_class, decode

# The event data's usual names, taken when a file holds several trees: ATLAS's TTree and RNTuple, CMS's TTree.
EVENT_DATA_NAMES = ("CollectionTree", "EventData", "Events")
# How a study's configuration names the tree of a file with several (advise and inspect say --tree NAME).
_TREE_KEY = "the format's 'tree' key"
_CONTAINER_WORDS = {TTREE: "TTree", RNTUPLE: "RNTuple"}
# What ATLAS's particle containers' interface objects are (the reader's own test is the class hierarchy).
_ATLAS_CONTAINER_PREFIX = "DataVector<xAOD::"
# A source or calibrate file written skhep_testdata:<name> is that file of the scikit-hep-testdata package (PyPI).
_PUBLIC_SAMPLE_PREFIX = "skhep_testdata:"
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
    if not path.startswith(_PUBLIC_SAMPLE_PREFIX):
        return path
    name = path.removeprefix(_PUBLIC_SAMPLE_PREFIX)
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
            + (f"; did you mean {_PUBLIC_SAMPLE_PREFIX}{close[0]}?" if close else "")
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


def describe(path: str, tree: str | None = None, *, option: str = _TREE_KEY) -> SourceFile:
    """What the study needs to know of ``path`` (``tree``: the TTree's or RNTuple's name, found when omitted;
    ``option``: how the user names one, for the errors). Cached per file state, so that the scheduling process
    opens each file once."""
    p = Path(path)
    if not p.is_file():
        where = "does not exist" if not p.exists() else "is not a regular file"
        raise SourceError(
            f"{path} {where} (a format's source must be a ROOT file; relative paths are taken "
            f"from the workflow directory, {os.getcwd()})"
        )
    st = p.stat()
    return _describe(str(p.resolve()), tree, st.st_size, st.st_mtime_ns, option)


@cache
def _describe(path: str, tree: str | None, size: int, mtime_ns: int, option: str) -> SourceFile:
    import uproot  # here, not at the top: a study without its own files never pays for its import

    with open(path, "rb") as f:
        if f.read(4) != b"root":
            raise SourceError(f"{path} is not a ROOT file (it does not start with 'root'); give a .root file")
    try:
        file = uproot.open(path)
    except Exception as error:  # uproot's message says what is wrong with the header
        raise SourceError(f"{path}: not a readable ROOT file: {error}") from error
    with file:
        try:
            classes = file.classnames(recursive=True, cycle=False)
        except Exception as error:
            raise SourceError(
                f"{path}: a damaged or truncated ROOT file, its keys cannot be read ({one_line(error)})"
            ) from error
        name, container = choose_event_data(
            path, classes, tree, option=option, entries_of=lambda n: uproot_entries(file, n)
        )
        try:
            entries, autoflush, atlas = _read_with_uproot(file[name], container)
        except Exception as error:  # a class version or a branch type uproot has no model for
            if container == RNTUPLE:
                raise SourceError(f"{path}: its RNTuple {name} cannot be read ({one_line(error)})") from error
            entries, autoflush, atlas = _read_with_root(path, name, error)
        setting = int(file.file.fCompress)
    if entries < 1:
        # One entry is enough: a short file is repeated (formats.<name>.tile, advise) until its reads can be timed.
        raise SourceError(f"{path}: {name} has no entries; there is nothing to read or to write again")
    return SourceFile(path, name, container, entries, setting, autoflush, atlas)


def _read_with_uproot(obj, container: str) -> tuple[int, int, int]:
    """(entries, AutoFlush, ATLAS particle containers) of a TTree or an RNTuple, read by uproot."""
    if container == RNTUPLE:
        fields = [r for i, r in enumerate(obj.field_records) if r.parent_field_id == i]
        atlas = sum(r.type_name.startswith(_ATLAS_CONTAINER_PREFIX) for r in fields)
        return int(obj.num_entries), 0, atlas
    atlas = sum(_stored_class(b).startswith(_ATLAS_CONTAINER_PREFIX) for b in obj.branches)
    # A TTree written before ROOT 5.26 (class version < 18) has no AutoFlush: 0, as ROOT writes "none".
    autoflush = obj.member("fAutoFlush", none_if_missing=True)
    return int(obj.num_entries), int(autoflush or 0), atlas


def _stored_class(branch) -> str:
    """What a top-level branch stores, as uproot names it, else its class; "" where neither is known."""
    try:
        return str(branch.typename)
    except Exception:  # a type uproot cannot name (a 2-D leaf-list array): not an ATLAS container either
        return str(branch.member("fClassName", none_if_missing=True) or "")


def _read_with_root(path: str, name: str, uproot_error: Exception) -> tuple[int, int, int]:
    """(entries, AutoFlush, ATLAS particle containers) of a TTree that uproot cannot model, read by ROOT."""
    try:
        tree = root_metadata.read(path, name)["tree"]
    except root_metadata.RootMetadataError as error:
        raise SourceError(
            f"{path}: its TTree {name} cannot be read, neither by uproot ({one_line(uproot_error)}) nor by "
            f"ROOT ({str(error).removeprefix(f'{path}: ')})"
        ) from error
    atlas = sum(
        b["name"] == b["top"] and b["class"].startswith(_ATLAS_CONTAINER_PREFIX) for b in tree["branches"]
    )
    return int(tree["entries"]), int(tree["autoflush"]), atlas


def one_line(error: Exception) -> str:
    """An exception as one line: its type and its words (uproot's span several lines; a missing member's list of
    the members there is left out)."""
    text = " ".join(str(error).split())
    text = re.sub(r" because (\S+) has only the following members:.*", r" in \1", text)
    return f"{type(error).__name__}: {text}"


def uproot_entries(file, name: str) -> int | None:
    """The entries of a TTree or RNTuple of an open uproot file; None where uproot cannot tell."""
    try:
        return int(file[name].num_entries)
    except Exception:  # listed as "entries unknown": the choice does not depend on it
        return None


def event_data_candidates(classes: dict[str, str]) -> dict[str, str]:
    """The TTrees and RNTuples among a file's keys (name -> ROOT class, at any depth): name -> container."""
    return {k: c for k, v in classes.items() if (c := container_of_class(v)) is not None}


def choose_event_data(
    path: str,
    classes: dict[str, str],
    tree: str | None,
    *,
    option: str = _TREE_KEY,
    entries_of: Callable[[str], int | None] = lambda name: None,
) -> tuple[str, str]:
    """(name, container) of the event data among a file's keys (``classes``: name -> ROOT class, at any depth,
    ``dir/name`` in a directory): ``tree`` if given; else the only TTree or RNTuple at the top, the first of
    EVENT_DATA_NAMES there, or the only one in the whole file. Errors name the file, list what it holds (each
    candidate with its entries, from ``entries_of``) and say how to choose (``option``)."""
    candidates = event_data_candidates(classes)
    if tree is not None:
        name = tree.split(";")[0]
        if name in candidates:
            return name, candidates[name]
        if not candidates:
            raise SourceError(
                f"{path} holds no TTree or RNTuple (it holds {_holdings(classes)}), so no {tree!r}"
            )
        raise SourceError(
            f"{path} has no TTree or RNTuple named {tree!r}; it holds {_listing(candidates, entries_of)}: "
            f"name one of them with {option}"
        )
    if not candidates:
        raise SourceError(
            f"{path} holds no TTree or RNTuple (it holds {_holdings(classes)}); rootparams reads the event data "
            "of a TTree or an RNTuple"
        )
    top = {k: c for k, c in candidates.items() if "/" not in k}
    known = [n for n in EVENT_DATA_NAMES if n in top]
    if len(top) == 1 or (not top and len(candidates) == 1):
        return next(iter((top or candidates).items()))
    if known:
        return known[0], top[known[0]]
    raise SourceError(f"{path} holds {_listing(candidates, entries_of)}; name the one to use with {option}")


def _listing(candidates: dict[str, str], entries_of: Callable[[str], int | None], limit: int = 12) -> str:
    """``3 TTrees: sig (502 entries), fullmassplane (1,572), control (316)``; the container named per item where
    the file has both."""
    counts = Counter(candidates.values())
    mixed = len(counts) > 1
    what = " and ".join(
        f"{n} {_CONTAINER_WORDS[c]}{'s' if n > 1 else ''}" for c, n in sorted(counts.items(), reverse=True)
    )
    items = []
    for i, (name, container) in enumerate(list(candidates.items())[:limit]):
        entries = entries_of(name)
        unit = (" entry" if entries == 1 else " entries") if i == 0 else ""
        count = "entries unknown" if entries is None else f"{entries:,}{unit}"
        items.append(f"{name} ({_CONTAINER_WORDS[container]}, {count})" if mixed else f"{name} ({count})")
    more = f" and {len(candidates) - limit} more" if len(candidates) > limit else ""
    return f"{what}: " + ", ".join(items) + more


def _holdings(classes: dict[str, str]) -> str:
    """What a file without a TTree or RNTuple holds: ``1 TH1F, 2 TProfile``."""
    counts = Counter(v for v in classes.values() if v not in ("TDirectory", "TDirectoryFile"))
    if not counts:
        return "nothing (no keys)" if not classes else "only directories"
    return ", ".join(f"{n} {c}" for c, n in counts.most_common(8)) + (" and more" if len(counts) > 8 else "")


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
