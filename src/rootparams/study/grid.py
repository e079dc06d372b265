"""Grid points of a study: which files to write and which timed reads to make.

A *file point* is everything that changes the bytes on disk (format, container, algorithm, level, AutoFlush,
split level, basket size; for RNTuple, page size). A *read point* adds everything that changes how the file
is read (TTreeCache size or RNTuple cluster cache, learn entries, cluster bunch size, implicit-MT threads,
branch selection, storage profile). A setting without meaning for a point's container keeps a fixed value
(vocabulary.CONTAINER_ONLY: split level -1, basket size 0, learn entries "default" for RNTuple; page size 0,
cluster bunch 1 for TTree), so that no two points differ only in a setting that changes nothing. Scans are
expanded per format and de-duplicated, so a point shared by several scans is generated and measured once; each
point remembers the scans it is in.

Every point has a short, readable id used in paths and Snakemake wildcards, and can be parsed back from it.
"""

from __future__ import annotations

import hashlib
import itertools
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from rootparams.study.formats import is_flat_format
from rootparams.study.scans import kinds as scan_kinds
from rootparams.vocabulary import (
    ALGORITHM_CODES,
    CONTAINERS,
    FILE_KEYS,
    FULL_PRECISION,
    LATER_FILE_KEY_DEFAULTS,
    OFFSETS_GENERATED,
    OFFSETS_STORED,
    READ_KEYS,
    RNTUPLE,
    TTREE,
    UNCOMPRESSED,
    UNIFORM,
    branch_compression_problem,
    encode,
    fixed_settings,
    float_precision_problem,
    mantissa_bits,
    parse_branch_compression,
    unrewritable,
)


@dataclass(frozen=True, order=True)
class FilePoint:
    format: str
    algorithm: str
    level: int
    autoflush: int
    split_level: int
    basket_size: int
    container: str = TTREE
    page_size: int = 0
    # How the file is made: "recipe" (written by our writer from a recipe), "asis" (a user's source file, the
    # settings being the file's own) or "rewrite" (the source copied by ROOT at these settings; split level -1
    # and basket size 0 mean each branch keeps the source's). rootparams.ownfile.sources.
    origin: str = "recipe"
    # Per-branch compression: "uniform" (every branch at algorithm-level), "largest<N>:<alg>-<level>" (the N
    # largest top-level branches at their own setting, the rest at algorithm-level) or "match:<regex>:<alg>-<level>"
    # (the top-level branches whose name the regex finds). TTree only; rootparams.measure.generate picks the branches.
    branch_compression: str = LATER_FILE_KEY_DEFAULTS["branch_compression"]
    # Float precision of the writer: "full", or "mantissa<N>" = every float variable rounded to N explicit
    # mantissa bits (N in 1..22); in an RNTuple, its float fields also stored truncated (bit-packed).
    float_precision: str = LATER_FILE_KEY_DEFAULTS["float_precision"]
    # Entry offsets of counted arrays: "stored" (ROOT's default) or "generated" on read (kGenerateOffsetMap). TTree
    # only, our writer's files only.
    offsets: str = LATER_FILE_KEY_DEFAULTS["offsets"]

    def __post_init__(self):
        if self.algorithm == UNCOMPRESSED and self.level != 0:
            # Uncompressed files have no level; one canonical id avoids writing the same file twice.
            object.__setattr__(self, "level", 0)
        if self.origin not in ("recipe", "asis", "rewrite"):
            raise ValueError(f"origin {self.origin!r}: must be 'recipe', 'asis' or 'rewrite'")
        if self.origin != "recipe":
            object.__setattr__(self, "split_level", -1)  # a copy keeps the split levels
            object.__setattr__(self, "page_size", 0)
            object.__setattr__(self, "float_precision", FULL_PRECISION)  # our writer rounds; a copy does not
            object.__setattr__(self, "branch_compression", UNIFORM)  # ROOT's copy keeps one setting
            object.__setattr__(self, "offsets", OFFSETS_STORED)  # a setting of our writer, not of a copy
        if (problem := branch_compression_problem(self.branch_compression)) is not None:
            raise ValueError(problem)
        if self.branch_compression != UNIFORM and self.container != TTREE:
            raise ValueError(
                f"branch_compression {self.branch_compression!r} with container {self.container!r}: only a TTree "
                "has a compression setting per branch; ROOT 6.40's RNTuple has one per file "
                "(RNTupleWriteOptions::SetCompression); use branch_compression 'uniform' for RNTuple"
            )
        if (problem := float_precision_problem(self.float_precision)) is not None:
            raise ValueError(problem)
        if self.offsets not in (OFFSETS_STORED, OFFSETS_GENERATED):
            raise ValueError(
                f"offsets {self.offsets!r}: must be {OFFSETS_STORED!r} (ROOT's default) or {OFFSETS_GENERATED!r} "
                "(rebuilt from the counter on read: ROOT's kGenerateOffsetMap)"
            )
        if self.offsets != OFFSETS_STORED and self.container != TTREE:
            raise ValueError(
                f"offsets {self.offsets!r} with container {self.container!r}: generated offsets are a TTree I/O "
                "feature (TTree::SetIOFeatures); an RNTuple stores its collections' offsets as index columns; use "
                f"offsets {OFFSETS_STORED!r} for RNTuple"
            )
        if self.origin == "asis":
            object.__setattr__(self, "basket_size", 0)
        if self.container not in CONTAINERS:
            raise ValueError(f"container {self.container!r}: must be {' or '.join(map(repr, CONTAINERS))}")
        for key, value in fixed_settings(self.container, FILE_KEYS).items():
            object.__setattr__(self, key, value)  # a setting its container does not have

    @property
    def compression_setting(self) -> int:
        return encode(self.algorithm, self.level)

    @property
    def id(self) -> str:
        if self.origin == "asis":
            return "asis"
        common = f"{self.algorithm}-{self.level}_af{self.autoflush}"
        if self.origin == "rewrite":
            return f"rewrite_{common}_basket{self.basket_size}"
        # The float precision last, and only where it is not full, so that the ids of full-precision files
        # do not change.
        lossy = f"_fpm{mantissa_bits(self.float_precision)}" if self.float_precision != FULL_PRECISION else ""
        lossy = _branch_compression_token(self.branch_compression) + lossy  # per-branch compression before it
        # Generated offsets last, and only where they are, so that the ids of files with stored offsets do not change.
        lossy += "_offgen" if self.offsets == OFFSETS_GENERATED else ""
        if self.container == RNTUPLE:
            return f"rntuple_{common}_page{self.page_size}{lossy}"
        return f"{common}_split{self.split_level}_basket{self.basket_size}{lossy}"

    @classmethod
    def from_id(cls, format: str, file_id: str) -> FilePoint:
        if file_id == "asis":
            raise ValueError(
                "the 'asis' point's settings are its source file's: look it up among the study's points"
            )
        if m := re.fullmatch(_REWRITE_ID_FIELDS, file_id):
            return cls(
                format,
                m["algorithm"],
                int(m["level"]),
                int(m["autoflush"]),
                -1,
                int(m["basket_size"]),
                origin="rewrite",
            )
        m = re.fullmatch(_FILE_ID_FIELDS, file_id)
        if not m or m["algorithm"] not in ALGORITHM_CODES:
            raise ValueError(
                f"not a file id: {file_id!r} (expected e.g. 'zlib-5_af100_split0_basket32000', "
                "'rntuple_zstd-5_af100_page1048576', 'asis' or 'rewrite_lz4-4_af100_basket0')"
            )
        g = {k: v for k, v in m.groupdict().items() if v is not None}
        precision = f"mantissa{int(g['float_mantissa'])}" if "float_mantissa" in g else FULL_PRECISION
        if "hot_regex" in g:
            raise ValueError(
                f"file id {file_id!r}: its per-branch compression names a regex by its hash only; look the point "
                "up among the study's points"
            )
        hot = f"largest{g['hot_n']}:{g['hot_alg']}-{g['hot_level']}" if "hot_n" in g else UNIFORM
        return cls(
            format,
            g["algorithm"],
            int(g["level"]),
            int(g["autoflush"]),
            int(g.get("split_level", -1)),
            int(g.get("basket_size", 0)),
            g.get("container", TTREE),
            int(g.get("page_size", 0)),
            branch_compression=hot,
            float_precision=precision,
            offsets=OFFSETS_GENERATED if "offgen" in g else OFFSETS_STORED,
        )


def _branch_compression_token(value: str) -> str:
    """The file id's part for a per-branch compression: "" for uniform, "_bclargest4-lz4-1", or for a regex
    "_bcre<the first 8 hex digits of its SHA-1>-lz4-1" (a regex can hold any character; the hash keeps the id
    a path and a wildcard)."""
    parsed = parse_branch_compression(value)
    if parsed is None:
        return ""
    n, regex, alg, level = parsed
    which = f"largest{n}" if n else "re" + hashlib.sha1(regex.encode()).hexdigest()[:8]
    return f"_bc{which}-{alg}-{level}"


# The ids as patterns, the one definition of their shape: FilePoint.id and ReadPoint.id write them, the
# Snakemake wildcard constraints (workflow/rules/common.smk) and FilePoint.from_id read them. The fields of a
# file id are named groups for parsing; Snakemake gets the same pattern with plain groups (it reserves names
# for its wildcards).
_FILE_ID_FIELDS = (
    r"(?:(?P<container>rntuple)_)?(?P<algorithm>[a-z0-9]+)-(?P<level>\d)_af(?P<autoflush>-?\d+)"
    r"(?:_split(?P<split_level>\d+)_basket(?P<basket_size>\d+)|_page(?P<page_size>\d+))"
    r"(?:_bc(?:largest(?P<hot_n>[1-9]\d*)|re(?P<hot_regex>[0-9a-f]{8}))-(?P<hot_alg>[a-z0-9]+)-(?P<hot_level>\d))?"
    r"(?:_fpm(?P<float_mantissa>[1-9]\d?))?"
    r"(?P<offgen>_offgen)?"
)
_REWRITE_ID_FIELDS = (
    r"rewrite_(?P<algorithm>[a-z0-9]+)-(?P<level>\d)_af(?P<autoflush>-?\d+)_basket(?P<basket_size>\d+)"
)
FILE_ID_PATTERN = re.sub(r"\(\?P<\w+>", "(?:", _FILE_ID_FIELDS)  # files our writer makes from a recipe
REWRITE_ID_PATTERN = re.sub(r"\(\?P<\w+>", "(?:", _REWRITE_ID_FIELDS)  # a source copied by ROOT
ASIS_ID = "asis"  # a source as it is
READ_ID_PATTERN = r"cache-?\d+_learn(?:D|\d+)_mt\d+(?:_bunch\d+)?(?:_async)?(?:_unzip)?(?:_rdf|_uproot|_bulk)?_[a-z0-9]+_[a-z][a-z0-9_-]*"
# Reading styles (config schema, reading_style) and their short names in read ids; getentry, the default, has none
# so that the ids of the paper's points do not change.
READING_STYLE_TOKENS = {"getentry": "", "rdataframe": "_rdf", "uproot": "_uproot", "bulk": "_bulk"}
# Selections named in the id as they are; any other (regex:, list:, vars:) by a digest.
_NAMED_SELECTIONS = ("particle", "all", "analysis", "sparse")


@dataclass(frozen=True, order=True)
class ReadPoint:
    cache_size: int
    learn_entries: int | str
    threads: int
    branches: str
    storage_profile: str
    cluster_bunch: int = 1
    async_prefetch: bool = False
    reading_style: str = "getentry"
    unzip: bool = False

    @property
    def branches_token(self) -> str:
        # Regexes and lists can hold any character; a short digest keeps the path safe and unique.
        if self.branches in _NAMED_SELECTIONS:
            return self.branches
        return "sel" + hashlib.sha1(self.branches.encode()).hexdigest()[:10]

    @property
    def learn_token(self) -> str:
        return "D" if self.learn_entries == "default" else str(self.learn_entries)

    @property
    def id(self) -> str:
        # The bunch size appears only where it is not ROOT's default, so TTree read ids do not change.
        bunch = f"_bunch{self.cluster_bunch}" if self.cluster_bunch != 1 else ""
        prefetch = "_async" if self.async_prefetch else ""  # likewise: ROOT's default (off) unnamed
        unzip = "_unzip" if self.unzip else ""
        style = READING_STYLE_TOKENS[self.reading_style]
        return (
            f"cache{self.cache_size}_learn{self.learn_token}_mt{self.threads}{bunch}{prefetch}{unzip}{style}"
            f"_{self.branches_token}_{self.storage_profile}"
        )

    def for_container(self, container: str) -> ReadPoint:
        """This read of a file stored as ``container``: settings without meaning there take their fixed value
        (made from the raw settings: a point fixed for one container does not carry the other's values).
        uproot has no TTreeCache, no implicit MT and no ROOT prefetching, and RDataFrame sets its TTreeCache
        itself: their reads keep the fixed values of those settings, so that a scan crossing them with the
        reading style measures each style once. The bulk read keeps its TTreeCache size (it makes the cache as
        GetEntry does) but has no learning phase, no implicit MT, parallel unzip or asynchronous prefetching."""
        if self.reading_style == "uproot":
            self = replace(
                self,
                cache_size=-1,
                learn_entries="default",
                cluster_bunch=1,
                async_prefetch=False,
                unzip=False,
                threads=1,
            )
        elif self.reading_style == "rdataframe":  # RDataFrame sizes and fills the TTreeCache itself
            self = replace(self, cache_size=-1, learn_entries="default", async_prefetch=False, unzip=False)
        elif self.reading_style == "bulk":  # read_bulk.cxx: one thread, the columns' branches cached at once
            self = replace(
                self, learn_entries="default", threads=1, cluster_bunch=1, async_prefetch=False, unzip=False
            )
        return replace(self, **fixed_settings(container, READ_KEYS))


@dataclass(frozen=True, order=True)
class Point:
    file: FilePoint
    read: ReadPoint
    scans: tuple[str, ...] = field(default=(), compare=False)

    def as_record(self) -> dict[str, Any]:
        record = {**asdict(self.file), **asdict(self.read)}
        record["scans"] = ";".join(self.scans)
        return record


def format_read_defaults(config: dict[str, Any], fmt: str) -> dict[str, Any]:
    """The read settings of ``fmt``'s default read: the study's read_defaults, with the format's own branch selection
    where it has one (formats.<f>.branches, e.g. a format without ATLAS particle containers)."""
    settings = {k: config["read_defaults"][k] for k in READ_KEYS}
    settings["branches"] = config["formats"].get(fmt, {}).get("branches", settings["branches"])
    return settings


def default_file_point(config: dict[str, Any], fmt: str) -> FilePoint:
    settings = config["file_defaults"][fmt]
    return FilePoint(fmt, **{k: settings[k] for k in FILE_KEYS})


def content_file_point(fmt: str) -> FilePoint:
    """Settings of the file that holds a format's events for all its grid points: fast to read back
    (LZ4), whole objects (split 0), clusters of ~30 MB whatever the event size."""
    return FilePoint(fmt, "lz4", 1, -30_000_000, 0, 32000)


def format_kind(config: Mapping[str, Any], fmt: str) -> str:
    """How a format's files are made: "recipe" (a built-in synthetic format), "source" (a user's file, measured
    as it is and rewritten) or "clone" (a synthetic recipe calibrated on a user's file)."""
    entry = config["formats"][fmt]
    return "source" if "source" in entry else "clone" if "calibrate" in entry else "recipe"


def left_out_of(config: Mapping[str, Any], fmt: str, scan: Mapping[str, Any]) -> bool:
    """A source format that a scan covers only because the scan names no formats, and whose file cannot be
    rewritten at the scan's settings: expand_points leaves it out of that scan."""
    if "formats" in scan or format_kind(config, fmt) != "source":
        return False
    return bool(unrewritable(config["file_defaults"][fmt]["container"], list(scan)))


def scan_formats(config: Mapping[str, Any], scan: Mapping[str, Any], name: str | None = None) -> list[str]:
    """The formats whose points scan ``name`` makes: its own list, else every format of the study that does
    not keep to scans of its own (a format's ``scans`` key: the skimmed and event-size formats)."""
    if "formats" in scan:
        candidates = scan["formats"]
    else:
        entries = config["formats"]
        candidates = [f for f in entries if "scans" not in entries[f] or name in entries[f]["scans"]]
    return [f for f in candidates if not left_out_of(config, f, scan)]


def _point(
    fmt: str, file_defaults: dict, read_defaults: dict, change: dict, source: bool = False
) -> tuple[FilePoint, ReadPoint]:
    """The point of ``fmt`` at its defaults with ``change``. Made from the raw settings, never from another
    point: a point fixes the settings its container does not have, and a point made from another would carry
    those fixed values over (an RNTuple made from the TTree default point would get page size 0). For a
    ``source`` format, a change of a file setting makes a rewrite, no change the file as it is."""
    file_change = {k: v for k, v in change.items() if k in FILE_KEYS}
    if is_flat_format(fmt) and not source:
        file_change.pop("split_level", None)  # leaf-list arrays have no split level: one file, the default's
    origin = ("rewrite" if file_change else "asis") if source else "recipe"
    file_point = FilePoint(fmt, **{**file_defaults, **file_change}, origin=origin)
    read = ReadPoint(**{**read_defaults, **{k: v for k, v in change.items() if k in READ_KEYS}})
    return file_point, read.for_container(file_point.container)


def expand_points(config: dict[str, Any]) -> list[Point]:
    """Every read point of the study, de-duplicated, in a stable order.

    Each format contributes its default point (so a study with no scans still measures something; not a
    format that keeps to scans of its own, formats.<f>.scans) and every point of every scan that covers it;
    parameters a scan does not vary keep the format's defaults.
    """
    found: dict[tuple[FilePoint, ReadPoint], set[str]] = {}
    for fmt, entry in config["formats"].items():
        file_defaults = {k: config["file_defaults"][fmt][k] for k in FILE_KEYS}
        read_defaults = format_read_defaults(config, fmt)
        source = format_kind(config, fmt) == "source"
        if "scans" not in entry:  # a format that keeps to scans of its own is measured in them only
            found.setdefault(_point(fmt, file_defaults, read_defaults, {}, source), set()).add("default")
        for name, scan in config["scans"].items():
            if fmt not in scan_formats(config, scan, name):
                continue
            varied = [k for k in (*FILE_KEYS, *READ_KEYS) if k in scan]
            for values in itertools.product(*(scan[k] for k in varied)):
                change = dict(zip(varied, values, strict=True))
                found.setdefault(_point(fmt, file_defaults, read_defaults, change, source), set()).update(
                    scan_kinds(name, scan)
                )
    # Sorted by id on the read side: learn entries mix integers and "default".
    return sorted(
        (Point(f, r, tuple(sorted(s))) for (f, r), s in found.items()), key=lambda p: (p.file, p.read.id)
    )


def sentinel_point(config: dict[str, Any]) -> Point | None:
    """The drift sentinel (measurement.sentinel): the default point of its format (the study's first format
    unless it names one), read again through every block of the study; None when it is off (every_seconds 0)."""
    sentinel = config["measurement"]["sentinel"]
    if not sentinel["every_seconds"]:
        return None
    fmt = sentinel["format"] or next(iter(config["formats"]))
    file_defaults = {k: config["file_defaults"][fmt][k] for k in FILE_KEYS}
    read_defaults = format_read_defaults(config, fmt)
    file_point, read_point = _point(
        fmt, file_defaults, read_defaults, {}, format_kind(config, fmt) == "source"
    )
    return Point(file_point, read_point, ("sentinel",))


def file_points(points: list[Point]) -> list[FilePoint]:
    return sorted({p.file for p in points})


def points_by_id(points: list[Point]) -> tuple[dict[tuple[str, str], FilePoint], dict[str, ReadPoint]]:
    """The study's file points by (format, file id) and read points by read id: how the workflow's rules turn
    wildcards back into points (one mechanism for both kinds)."""
    files = {(p.file.format, p.file.id): p.file for p in points}
    reads = {p.read.id: p.read for p in points}
    return files, reads


# ---- The TTreeCache's learning phase -------------------------------------------------------------------------------

# TTreeCache::fgLearnEntries in ROOT 6.40 (TTreeCache.cxx; 0x64 in the installed libTree.so): the learning phase's
# entries where learn_entries is "default". (TTree::SetCacheLearnEntries' default argument, 10, is not it.)
_ROOT_LEARN_ENTRIES = 100


def cache_learning_entries(cluster_starts: list[int], learn_entries: int, events: int) -> int:
    """The entries of a read of the first ``events`` entries that a TTreeCache serves from its learning phase
    (read_ttree.cxx's learning_phase_entries applies the same rule to the file it reads).

    While the cache learns, its first basket read prefills the clusters of entries 0 to ``learn_entries``
    (TTreeCache.Prefill, the reader's pin), and learning ends at the first basket read at an entry at or after
    ``learn_entries``, which fills the cache for the branches learnt from that entry's cluster on (TTreeCache.cxx,
    FillBuffer). Baskets do not straddle clusters, so the learning phase covers every entry up to the first cluster
    start at or after ``learn_entries`` (at least the whole first cluster: ROOT takes at least 1 learn entry), or
    the whole read where no cluster starts before its end. ``cluster_starts``: the tree's cluster starts
    (TTree::GetClusterIterator), 0 first."""
    learn = max(int(learn_entries), 1)
    for start in sorted(cluster_starts):
        if start >= events:
            break
        if start > 0 and start >= learn:
            return int(start)
    return int(events)


def _regular_cluster_starts(autoflush: int, events: int) -> list[int]:
    """The cluster starts of a tree of ``events`` entries written at AutoFlush ``autoflush`` > 0 (entries per
    cluster). A byte-based (negative) or disabled (0) AutoFlush gives clusters the writer's sizes decide: ValueError
    (read them from the file: the reader's --inspect cluster_starts)."""
    if autoflush <= 0:
        raise ValueError(
            f"autoflush {autoflush}: the clusters of a byte-based or disabled AutoFlush are known only "
            "from the file (the reader's --inspect cluster_starts)"
        )
    return list(range(0, max(int(events), 1), int(autoflush)))


def cache_learning_share(
    read: ReadPoint, file: FilePoint, events: int, cluster_starts: list[int] | None = None
) -> float:
    """The share of a read of ``events`` entries that the TTreeCache serves from its learning phase
    (cache_learning_entries): 0 where no cache learns (an RNTuple, the cache off, a reading style that stops the
    learning at once: RDataFrame, bulk, or uproot without a TTreeCache). ``cluster_starts``: the file's, where its
    AutoFlush is not a count of entries."""
    if file.container != TTREE or read.cache_size == 0 or read.reading_style != "getentry":
        return 0.0
    learn = _ROOT_LEARN_ENTRIES if str(read.learn_entries) == "default" else int(read.learn_entries)
    starts = cluster_starts if cluster_starts is not None else _regular_cluster_starts(file.autoflush, events)
    return cache_learning_entries(starts, learn, events) / events
