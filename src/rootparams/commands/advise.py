"""``rootparams advise FILE``: how should this file be written, for this storage? One command, the study's rules.

It runs the study's own workflow (Snakemake underneath, resumable) on a configuration made for the one file:

* the file **as it is**, read cold on the storage given, with the study's instrument and validity rules: what
  limits its reads now (rootparams.model.bottleneck: the storage, decompression or deserialisation);
* **every compression setting on the file's own bytes**: its baskets (an RNTuple's pages) recompressed at each
  algorithm and level without reading any object (rootparams.tools.recompress: no class dictionary is needed, so this works
  on any experiment's file). A file too short for a valid timed window is **tiled**: its own clusters repeated until
  the fastest setting's timed loop lasts about TARGET_LOOP_SECONDS (a warm read of the file at LZ4-1 measures the
  pace first). Each basket keeps its own bytes; only the order in which baskets are met across copies differs from a
  longer real file;
* **the settings that change the layout** (cluster size, TTree against RNTuple) on a **calibrated clone**
  (rootparams.ownfile.calibrate: a synthetic file of the same kinds of content, sizes and compression ratios), labelled as a
  clone everywhere; the clone is also read at the file's own setting, beside the file, so that the answer states how
  faithful it is (size per event, compression ratio and rate, against the file);
* the study's decision (rootparams.decide.decision) among those settings, with its uncertainty: the setting named only
  where it is cheapest in 95 % of the bootstrap replicates, ties said as ties; one decision for the compression (on
  the file's own bytes) and one for the layout (on the clone);
* what to type to get it (rootparams.present.applying): hadd, the ROOT calls, the framework's output keys.

The plan (points, files, repetitions) is fitted to a time budget before anything starts and printed with its
estimate; progress is shown with an estimate of the time left. ``--quick`` gives a first answer in about three
minutes: the compression settings at level 5 on the file's own bytes, three repetitions, no clone. The answer is
printed and written to ``<out>/advise.md``, ``<out>/advise.html`` (one page, the supporting figures inside) and
``<out>/advise.json``; the whole study's outputs stay in ``<out>/results/``. One setting that fails (a writer, a
recompression or a reader error) is reported with its reason and the answer is made from the others.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import fcntl
import html
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from rootparams.errors import UserError
from rootparams.measure.measure import reader_command
from rootparams.model import bottleneck
from rootparams.ownfile import inspection, sources
from rootparams.ownfile.calibrate import RATIO_TARGET, SIZE_TARGET  # a clone stands for the file within these
from rootparams.present import applying
from rootparams.present.figures import DECISION_FIGURES, FIGURE_NAMES, pareto_figure_name
from rootparams.study import labels
from rootparams.study.config import clone_autoflush, tile_copies
from rootparams.study.grid import FilePoint
from rootparams.tools import paths
from rootparams.tools.build import ensure_built
from rootparams.tools.processes import json_result
from rootparams.tools.recompress import MAX_OUTPUT_BYTES, RecompressError, recompress_file
from rootparams.vocabulary import PAPER_READ_DEFAULTS, RNTUPLE, TTREE, CompressionSettingError, decode

# Where the workflow lives: beside the package in the checkout it was installed from (pip install -e .).
CHECKOUT = Path(__file__).resolve().parents[3]

_DEFAULT_BUDGET = "20m"
_QUICK_BUDGET = "3m"
# How the user names the TTree or RNTuple of a file with several (errors say it).
_TREE_OPTION = "--tree NAME"
# A tiled file is made long enough that its fastest setting's timed loop lasts about this long (the study's valid
# window is at least 1 s: measurement.min_window_seconds); --quick aims lower.
_TARGET_LOOP_SECONDS = 1.4
_QUICK_TARGET_LOOP_SECONDS = 1.2
# The pace probe: the file recompressed at LZ4-1 (usually the fastest to read) with this many compressed bytes,
# read warm twice; the faster read sets the seconds per copy.
_PROBE_SETTING = 401
_PROBE_BYTES = 30_000_000
# Without a probe (a dry run, or no tools yet): tile to these bytes (config's tile: auto rule), and assume this read
# pace for the estimate.
TILE_TARGET_BYTES, TILE_TARGET_UNCOMPRESSED_BYTES = 150_000_000, 600_000_000
_ASSUMED_READ_BYTES_PER_SECOND = (
    150e6  # compressed bytes per second at the file's own setting, for the estimate
)
# A tiled file (and each of its recompressions) stays below this size.
_MAX_TILED_BYTES = min(1_200_000_000, MAX_OUTPUT_BYTES)
_CLONE_MAX_EVENTS = 2_000_000
# A file read longer than this as it is needs no tiling (and no probe).
_LONG_ENOUGH_BYTES = 1_000_000_000

# For the plan's estimate only (the progress line corrects it with the run's own pace).
# Compression speed in MB/s of uncompressed data (a 2-core virtual machine, benchmarks/compressor_speed.py's order of
# magnitude): what recompressing one copy costs.
_COMPRESS_MB_PER_S = {
    ("lz4", 1): 400, ("lz4", 5): 60, ("lz4", 9): 30,
    ("zlib", 1): 60, ("zlib", 5): 35, ("zlib", 9): 8,
    ("zstd", 1): 300, ("zstd", 5): 80, ("zstd", 9): 40,
    ("lzma", 1): 20, ("lzma", 5): 8, ("lzma", 9): 5,
    ("none", 0): 1000,
}  # fmt: skip
# ROOT's own writing of a clone's files (recipe generation included), uncompressed MB/s, as the default study measured
# (results/tables/files.csv, write_mb_per_s_uncompressed).
_WRITE_MB_PER_S = {
    ("lz4", 1): 86, ("lz4", 5): 40, ("lz4", 9): 21,
    ("zlib", 1): 35, ("zlib", 5): 27, ("zlib", 9): 5,
    ("zstd", 1): 69, ("zstd", 5): 27, ("zstd", 9): 4,
    ("lzma", 1): 14, ("lzma", 5): 6, ("lzma", 9): 4,
    ("none", 0): 80,
}  # fmt: skip
# Decompression speed on one core, MB/s of uncompressed output, as ROOT's reads of real files decompressed on a 2-core
# VM (the PHYSLITE sample tiled: ZLIB-5 150, ZSTD-5 170, LZMA-5 130; a flat dimuon ntuple: ZLIB-5 210, LZMA-5 48;
# ZSTD pays a context per basket, which small baskets feel): a read at another algorithm than the probe's LZ4 takes
# longer by the uncompressed bytes it decompresses (the probe's, for the study's branch selection) over these.
_UNZIP_MB_PER_S = {"lz4": 1500.0, "zstd": 250.0, "zlib": 180.0, "lzma": 80.0, "none": 1e9}
# A calibrated clone's files are each generated from its recipe (the same events every time), at a cost per
# top-level branch and event that depends on the layout (a 2-core virtual machine, benchmarks/clone_generation.py,
# 1000 events: the PHYSLITE sample's clone, 1503 branches of xAOD objects, 0.45 ms per event; the CMS NanoAOD
# sample's, 947 flat arrays, 0.09 ms; a file of objects, not measured, is costed as xAOD objects). ROOT's own writing
# is in WRITE_MB_PER_S.
_GENERATE_SECONDS_PER_BRANCH_EVENT = {
    inspection.XAOD: 0.3e-6,
    inspection.OBJECTS: 0.3e-6,
    inspection.FLAT: 0.1e-6,
}
# What tiling a file whose baskets are cut short by its end means for the comparison (FileFacts.cut_short).
_CUT_SHORT_CONSEQUENCE = (
    "the copies keep baskets that small, which compress worse and read with more calls than a long file's full ones; "
    "the settings are compared at that basket size"
)
# One repetition beyond its timed loop: eviction and its check, the reader's start and open, the monitor, the
# record; one point's file made from the user's file: the recompression's checks (ROOT's reader, uproot).
_REPETITION_OVERHEAD_SECONDS = 1.7
_RECOMPRESSION_CHECK_SECONDS = 6.0
# Snakemake's start, the tables, the figures advise shows, the decision; the calibration; a C++ build.
_FIXED_SECONDS = 90
_CALIBRATE_SECONDS = 40
_BUILD_SECONDS = 240

# What is scanned. The compression settings on the file's own bytes; on the clone, TTree against RNTuple at these
# algorithms (level 5) and the cluster sizes.
ALGORITHMS = ["lz4", "zlib", "zstd", "lzma"]
_CONTAINER_ALGORITHMS = ["lz4", "zlib", "zstd"]
# The plan's tiers, smallest first: the largest that fits the budget at 10 repetitions is taken (else the first,
# with fewer repetitions). Each adds to the one before.
_TIERS = (
    ("algorithms at level 5", {"levels": [5], "clone": False}),
    ("and the layout on a clone", {"levels": [5], "clone": True}),
    ("and level 1", {"levels": [1, 5], "clone": True}),
    ("and level 9", {"levels": [1, 5, 9], "clone": True}),
)
# --quick leaves LZMA out (its reads are the slowest, several times ZLIB's on a flat ntuple): the full answer has it.
_QUICK_TIER = ("quick: LZ4, ZLIB and ZSTD at level 5, no clone", {"levels": [5], "clone": False})
_QUICK_ALGORITHMS = ["lz4", "zlib", "zstd"]
_QUICK_REPETITIONS = 3
MIN_REPETITIONS, MAX_REPETITIONS = 3, 10

OWN, CLONE = "your file's own bytes", "clone"


class AdviseError(UserError):
    """advise cannot go on; the message says why and what would work."""


def _parse_duration(text: str) -> float:
    """'20m', '90s', '1h', '1h30m' or a number of seconds, in seconds."""
    s = str(text).strip().lower()
    if re.fullmatch(r"\d+(\.\d+)?", s):
        return float(s)
    parts = re.fullmatch(r"(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m(?:in)?)?(?:(\d+(?:\.\d+)?)s)?", s)
    if not s or not parts or not any(parts.groups()):
        raise AdviseError(f"--budget {text!r} is not a duration; give e.g. 20m, 1h, 1h30m, 900s or 900")
    h, m, sec = (float(g) if g else 0.0 for g in parts.groups())
    return 3600 * h + 60 * m + sec


def _parse_size(text: str) -> float:
    """'150MB', '2GB', '500kB' or a number of bytes, in bytes."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmg]?)b?\s*", str(text).lower())
    if not m:
        raise AdviseError(f"size {text!r} is not a size; give e.g. 150MB, 1GB, 500kB or a number of bytes")
    return float(m.group(1)) * {"": 1, "k": 1e3, "m": 1e6, "g": 1e9}[m.group(2)]


def format_name(path: str) -> str:
    """A study format name for the file: lower case, digits and _, starting with a letter, at most 24 characters
    (so that ``<name>_clone`` keeps to the schema's 30)."""
    stem = re.sub(r"[^a-z0-9_]+", "_", Path(path).name.split(".root")[0].lower()).strip("_")
    if not stem or not stem[0].isalpha():
        stem = f"f_{stem}"
    name = ""
    for word in filter(
        None, stem.split("_")
    ):  # whole words while they fit: atlas_physlite_run2_ttbar_100ev -> ...
        if len(name) + len(word) + bool(name) > 24:
            break
        name = f"{name}_{word}" if name else word
    return name or stem[:24]


def minutes(seconds: float) -> str:
    seconds = max(0.0, seconds)
    if seconds < 90:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min" if seconds < 5400 else f"{seconds / 3600:.1f} h"


@dataclass
class FileFacts:
    """What the plan needs to know of the file: sources.describe's description and rootparams.ownfile.inspection's bytes
    (per content kind too)."""

    source: sources.SourceFile
    inspection: inspection.Inspection

    @property
    def size_bytes(self) -> int:
        return self.inspection.file_size

    @property
    def zip_bytes(self) -> float:
        """The event data's compressed bytes; baskets kept inside the TTree object (small files written without
        AutoFlush, as the CMS NanoAOD sample) are in the tree's key."""
        ins = self.inspection
        return float(ins.compressed + (ins.tree_key_bytes if ins.in_tree_object else 0))

    @property
    def tot_bytes(self) -> float:
        return float(self.inspection.uncompressed + self.inspection.in_tree_object)

    @property
    def branches(self) -> int:
        return self.inspection.top_level

    @property
    def flat(self) -> bool:
        """A flat ntuple (NanoAOD-like leaf-list arrays): its clone is written as a TTree only."""
        return self.inspection.layout == inspection.FLAT

    @property
    def ratio(self) -> float:
        """Uncompressed over compressed event data (baskets kept in the TTree object counted with its key: the key
        compresses them with the tree's metadata, a little more than they would be alone)."""
        return self.tot_bytes / self.zip_bytes if self.zip_bytes else math.nan

    @property
    def cut_short(self) -> str | None:
        """Why the file's baskets (pages) are smaller than a longer file of the same writer would have, or None: a
        file that holds less than one cluster as its writer makes them (a byte-based or no AutoFlush, fewer entries
        than an AutoFlush in entries, an RNTuple in one cluster) ends its only cluster, and every basket with it,
        early. Tiling repeats those baskets as they are: real bytes, but in baskets as small as the sample's, which
        compress worse and cost more calls than a long file's; the clone, written with full baskets, shows how much."""
        s, ins = self.source, self.inspection
        if s.container == RNTUPLE:
            if (ins.clusters or 1) <= 1:
                return f"it is one cluster of {s.entries} entries: its pages end where the file does"
            return None
        if s.autoflush > 0 and s.entries >= s.autoflush:
            return None  # at least one whole cluster: its baskets are cut where a long file's are
        if s.autoflush > 0:
            return f"it holds {s.entries} entries, fewer than one cluster of AutoFlush {s.autoflush}"
        how = "no AutoFlush" if s.autoflush == 0 else f"AutoFlush {labels.autoflush_label(s.autoflush)}"
        return (
            f"it is one cluster ({how}) of {inspection.human(self.zip_bytes)}: its baskets end where the file does, "
            "smaller than a long file's"
        )

    @property
    def own_setting(self) -> tuple[str, str, int]:
        """(container, algorithm, level) of the event data: the setting most of its baskets (pages) were written at,
        which a file may hold apart from its TFile's own (ROOT 5's files: 1-9, ZLIB; a tree written into a file of
        another setting)."""
        algorithm, level = self.source.algorithm_level
        data = self.inspection.data_compression
        if data is not None and data >= 0:
            with contextlib.suppress(CompressionSettingError):
                algorithm, level = decode(data)
        return self.source.container, algorithm, level

    def text(self) -> str:
        s = self.source
        _, algorithm, level = self.own_setting
        kind = "RNTuple" if s.container == RNTUPLE else "TTree"
        af = "" if s.container == RNTUPLE else f", AutoFlush {labels.autoflush_label(s.autoflush)}"
        unit = "fields" if s.container == RNTUPLE else "branches"
        in_object = " (its baskets kept in the tree object)" if self.inspection.in_tree_object else ""
        name = "uncompressed" if algorithm == "none" else f"{algorithm.upper()}-{level}"
        return (
            f"{kind} {s.tree}, {s.entries} entries, {name}{af}, {inspection.human(self.size_bytes)} "
            f"({inspection.human(self.zip_bytes / s.entries)}/event compressed, ratio {self.ratio:.2f}{in_object}, "
            f"{self.branches} top-level {unit})"
        )

    def kinds_text(self, top: int = 4) -> str:
        """The largest content kinds, with their share of the compressed bytes and their ratio."""
        ins = self.inspection
        kinds = sorted(ins.kinds, key=lambda k: k.compressed, reverse=True)[:top]
        return "; ".join(
            f"{k.kind} {100 * k.compressed / ins.compressed:.0f} % (ratio {k.uncompressed / k.compressed:.1f})"
            for k in kinds
            if k.compressed and ins.compressed
        )


def _file_facts(path: str, tree: str | None = None) -> FileFacts:
    """``path``'s description and inspection, of the same TTree or RNTuple (``tree``, or the one found). Both are
    kept per file state (its size and modification time), as sources.describe keeps the description: advise plans
    twice, before and after its pace probe, and the file has not changed in between."""
    source = sources.describe(path, tree, option=_TREE_OPTION)
    facts = FileFacts(source, inspection.inspect_unchanged(path, source.tree))
    if facts.zip_bytes <= 0:
        raise AdviseError(
            f"{path}: {source.tree} holds no event data on disk (0 bytes in its baskets); there is nothing to "
            "compare settings on"
        )
    return facts


@dataclass
class Pace:
    """How fast the file reads, measured before the plan is made: the file recompressed at LZ4-1 (PROBE_SETTING),
    ``copies`` copies, read warm (twice, the faster taken) with the study's reader and default read settings."""

    copies: int
    loop_seconds: float  # the faster warm loop over the probe file
    bytes_per_copy: float  # the probe file's size over its copies
    # What the loop decompressed, over the copies (the study's branch selection's); None where the reader said none.
    unzipped_bytes_per_copy: float | None = None

    @property
    def seconds_per_copy(self) -> float:
        return self.loop_seconds / self.copies

    def text(self) -> str:
        return (
            f"a warm read of {self.copies} copies at LZ4-1 took {self.loop_seconds:.2f} s "
            f"({1e3 * self.seconds_per_copy:.1f} ms per copy)"
        )


@dataclass
class Plan:
    file: str
    facts: FileFacts
    name: str  # the format of the file: as it is (tiled) and its recompressions
    tree: str
    copies: int  # the file's own clusters, this many times, in the file the study reads (1: as it is)
    clone: bool  # the layout settings measured on a calibrated clone
    clone_events: int
    clone_compression: (
        bool  # the compression settings on the clone as well (to see how far it is from the file)
    )
    tier: str
    levels: list[int]
    autoflush: list[int]
    repetitions: int
    storage: str  # the directory the files are written to, or a root:// URL
    out: Path
    budget_seconds: float
    quick: bool = False
    pace: Pace | None = None
    estimate: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    asked: dict[str, Any] = field(default_factory=dict)  # the command's options the plan was made for
    planned_on: str = field(
        default_factory=lambda: time.strftime("%Y-%m-%d %H:%M")
    )  # kept when a rerun resumes

    @property
    def algorithms(self) -> list[str]:
        return _QUICK_ALGORITHMS if self.quick else ALGORITHMS

    @property
    def clone_name(self) -> str:
        return f"{self.name}_clone"

    @property
    def estimate_seconds(self) -> float:
        return sum(self.estimate.values())

    @property
    def remote(self) -> bool:
        return self.storage.startswith(("root://", "roots://"))

    @property
    def container(self) -> str:
        return self.facts.source.container

    def own_points(self) -> list[tuple[str, str, int, int | None]]:
        """The compression settings measured on the file's own bytes (the file's own setting among them: its
        recompressed twin stands for it in the decision)."""
        _, algorithm, level = self.facts.own_setting
        points = [(self.container, a, lv, None) for a in self.algorithms for lv in self.levels]
        points.append((self.container, algorithm, level, None))
        return list(dict.fromkeys(points))

    def clone_points(self) -> list[tuple[str, str, int, int | None]]:
        """The settings measured on the clone: its default (the file's own setting, the fidelity anchor), the
        cluster sizes, TTree against RNTuple (a flat TTree's clone is a TTree only)."""
        if not self.clone:
            return []
        _, algorithm, level = self.facts.own_setting
        own_container = TTREE if self.facts.flat else self.container
        points = [(own_container, algorithm, level, None)]
        points += [(own_container, algorithm, level, af) for af in self.autoflush]
        if not self.facts.flat:
            points += [(c, a, 5, None) for a in _CONTAINER_ALGORITHMS for c in (TTREE, RNTUPLE)]
        if self.clone_compression:
            points += [(own_container, a, lv, None) for a in self.algorithms for lv in self.levels]
        return list(dict.fromkeys(points))

    def config(self) -> dict[str, Any]:
        """The study configuration of this plan (a file of it is what Snakemake runs)."""
        s = self.facts.source
        _, algorithm, level = self.facts.own_setting
        level = level or 1  # an uncompressed file has no level; the schema wants one (the grid drops it)
        fmts: dict[str, Any] = {
            self.name: {"source": self.file, "tree": self.tree, "read": "all", "tile": self.copies}
        }
        scans: dict[str, Any] = {
            # The file as it is (tiled), and the clone at the file's own setting beside it.
            "cache": {"formats": [self.name] + ([self.clone_name] if self.clone else []), "cache_size": [-1]},
            "compression": {
                "formats": [self.name] + ([self.clone_name] if self.clone and self.clone_compression else []),
                "algorithm": self.algorithms,
                "level": self.levels,
            },
            "own_setting": {"formats": [self.name], "algorithm": [algorithm], "level": [level]},
        }
        if self.clone:
            fmts[self.clone_name] = {
                "calibrate": self.file,
                "tree": self.tree,
                "written": self.clone_events,
                "read": self.clone_events,
            }
            if not self.facts.flat:
                scans["container"] = {
                    "formats": [self.clone_name],
                    "container": [TTREE, RNTUPLE],
                    "algorithm": _CONTAINER_ALGORITHMS,
                    "level": [5],
                }
            if self.autoflush:
                scans["autoflush"] = {
                    "formats": [self.clone_name],
                    "algorithm": [algorithm],
                    "level": [level],
                    "autoflush": self.autoflush,
                }
        if s.atlas_containers == 0:
            for f in fmts.values():
                f["branches"] = "all"  # no ATLAS particle containers: the reader reads every branch
        measurement: dict[str, Any] = {
            "primitives": False,  # the storage's fio figures are for the model, not for this answer
            "attempts": 2,
            # Most repetitions must be valid for a point to count; a make-up round replaces a flagged one.
            "min_repetitions": max(2, self.repetitions - max(1, self.repetitions // 5)),
        }
        config: dict[str, Any] = {
            "repetitions": self.repetitions,
            "formats": fmts,
            "scans": scans,
            "read_defaults": {"storage_profile": "yours" if self.remote else "native"},
            "measurement": measurement,
            # One setting that cannot be made (a writer, a recompression or a rewrite that fails) is that setting's
            # result; the answer is made from the others.
            "write_failures": "record",
            "rewrite_failures": "record",
        }
        if self.remote:
            measurement["storage_profiles"] = {
                "yours": {"remote_url": self.storage.rstrip("/") + "/", "copy": True}
            }
            config["data_dir"] = str(self.out / "data")
        else:
            config["data_dir"] = self.storage
        return config

    def text(self) -> str:
        lines = [
            f"rootparams advise: {self.file}",
            f"  the file:  {self.facts.text()}",
            f"  content:   {self.facts.kinds_text()} (rootparams inspect FILE: every branch)",
        ]
        where = (
            f"{self.storage} (your XRootD server: files are copied there with xrdcp; eviction is the server's "
            "business and is not verified)"
            if self.remote
            else f"{self.storage} (local: each file evicted from the page cache before each read, verified)"
        )
        lines.append(f"  storage:   {where}")
        s = self.facts.source
        tiled = (
            f"its clusters repeated {self.copies} times ({self.copies * s.entries} entries, about "
            f"{inspection.human(self.copies * self.facts.zip_bytes)}: the file alone is too short to time)"
            if self.copies > 1
            else "as it is"
        )
        own = "; ".join(_setting_text(p) for p in self.own_points())
        lines += [
            f"  plan:      the file, {tiled},",
            f"             its {'pages' if self.container == RNTUPLE else 'baskets'} recompressed (no dictionary "
            f"needed) at {own}",
        ]
        if self.clone:
            per_event = self.facts.zip_bytes / s.entries
            lines += [
                f"             the layout on a calibrated clone of {self.clone_events} events (about "
                f"{inspection.human(self.clone_events * per_event)}) at "
                + "; ".join(_setting_text(p) for p in self.clone_points())
            ]
        lines += [
            f"             {self.repetitions} repetitions per point, interleaved rounds ({self.tier})",
            f"  estimate:  {minutes(self.estimate_seconds)} ("
            + ", ".join(f"{k} {minutes(v)}" for k, v in self.estimate.items() if v >= 1)
            + f"); budget {minutes(self.budget_seconds)}",
            f"  outputs:   {self.out}/advise.md, advise.html, advise.json; the study in {self.out}/results/",
        ]
        if self.pace:
            lines.append(f"  pace:      {self.pace.text()}")
        lines += [f"  note:      {n}" for n in self.notes]
        return "\n".join(lines)

    def targets(self) -> list[str]:
        """What advise needs of the study: its tables, the run summary, and the figures it shows."""
        wanted = ("fig01", "fig02", "fig03", "fig04", "fig13", "fig14", "fig15")
        figures = [paths.figure(n, "png") for n in FIGURE_NAMES if n.startswith(wanted)]
        figures += [paths.figure(pareto_figure_name(f), "png") for f in self.config()["formats"]]
        figures.append(paths.figure(DECISION_FIGURES[1], "png"))
        tables = [paths.SUMMARY_TABLE, paths.FILES_TABLE, paths.REPETITIONS_TABLE, paths.COST_CHOICE_TABLE]
        return [*tables, paths.RUN_SUMMARY, *figures]


def _setting_text(point: tuple[str, str, int, int | None]) -> str:
    container, algorithm, level, af = point
    name = "uncompressed" if algorithm == "none" else f"{algorithm.upper()}-{level}"
    text = f"RNTuple {name}" if container == RNTUPLE else name
    if af is None:
        return text
    return f"{text}, {'clusters' if container == RNTUPLE else 'AutoFlush'} {labels.autoflush_label(af)}"


def _estimate(plan: Plan, build_present: bool) -> dict[str, float]:
    """Seconds per stage, for the plan and the progress line: the recompressions (one copy each, its checks), the
    clone's files, and the reads, from the probe's pace where there is one."""
    s, facts = plan.facts.source, plan.facts
    copies = plan.copies
    own_points, clone_points = plan.own_points(), plan.clone_points()
    tot_mb = facts.tot_bytes / 1e6
    write = sum(
        tot_mb / _COMPRESS_MB_PER_S.get((a, lv), 30) + _RECOMPRESSION_CHECK_SECONDS
        for _, a, lv, _ in own_points
    )
    write += copies * facts.size_bytes / 500e6  # the copies themselves, and the tile
    if plan.clone:
        tot_per_event = facts.tot_bytes / s.entries
        per_branch_event = _GENERATE_SECONDS_PER_BRANCH_EVENT[facts.inspection.layout]
        for _, a, lv, _ in clone_points:
            speed = _WRITE_MB_PER_S.get((a, lv), _WRITE_MB_PER_S.get((a, 5), 20))
            write += plan.clone_events * tot_per_event / 1e6 / speed
            write += plan.clone_events * facts.branches * per_branch_event
    # The loop at LZ4-1, measured (the probe) or assumed from the bytes; another algorithm adds its slower
    # decompression of the same uncompressed bytes.
    if plan.pace:
        lz4_loop = plan.pace.seconds_per_copy * copies
    else:
        lz4_loop = copies * facts.zip_bytes / _ASSUMED_READ_BYTES_PER_SECOND
    per_copy = (
        plan.pace.unzipped_bytes_per_copy
        if plan.pace and plan.pace.unzipped_bytes_per_copy
        else facts.tot_bytes
    )
    unzipped_mb = copies * per_copy / 1e6

    def loop(algorithm: str, scale: float = 1.0) -> float:
        slower = 1 / _UNZIP_MB_PER_S.get(algorithm, 250.0) - 1 / _UNZIP_MB_PER_S["lz4"]
        return scale * (lz4_loop + unzipped_mb * max(slower, 0.0))

    reading = 0.0
    for _, a, _, _ in [*own_points, (TTREE, facts.own_setting[1], 0, None)]:  # the file as it is too
        reading += _REPETITION_OVERHEAD_SECONDS + loop(a)
    for _, a, _, _ in clone_points:
        reading += _REPETITION_OVERHEAD_SECONDS + loop(a, plan.clone_events / max(copies * s.entries, 1))
    out = {
        "making the files": write,
        "reading": plan.repetitions * reading,
        "tables, figures, decision": _FIXED_SECONDS,
    }
    if plan.clone:
        out["calibration"] = _CALIBRATE_SECONDS
    if not build_present:
        out["C++ build"] = _BUILD_SECONDS
    return out


def _make_plan(
    file: str,
    *,
    storage: str | None,
    budget_seconds: float,
    out: Path,
    tree: str | None = None,
    quick: bool = False,
    clone: str = "auto",
    clone_compression: bool = False,
    repetitions: int | None = None,
    pace: Pace | None = None,
    loop_seconds: float | None = None,
) -> Plan:
    """The plan for ``file`` (its ``tree``), fitted to ``budget_seconds``. ``pace``: the probe's measurement (None:
    tiling and the estimate from the file's bytes). ``clone``: "auto" (the layout on a clone from the second tier
    on), "yes" or "no"."""
    facts = _file_facts(file, tree)
    s = facts.source
    name = format_name(file)
    notes: list[str] = []
    # The command's options the plan answers (a rerun with the same ones resumes it).
    asked = {"file": str(Path(file).resolve()), "tree": s.tree, "storage": storage, "budget_seconds": budget_seconds,
             "quick": quick, "clone": clone, "clone_compression": clone_compression, "repetitions": repetitions,
             "loop_seconds": loop_seconds}  # fmt: skip
    target = loop_seconds or (_QUICK_TARGET_LOOP_SECONDS if quick else _TARGET_LOOP_SECONDS)
    copies = _plan_copies(facts, pace, target)
    # A rerun of the same command resumes the plan it made then (the estimate now, with files already written and
    # the build there, would be smaller and could choose a larger plan, and the pace measures a little differently
    # each time: the study would start over).
    previous = _previous_choice(out)
    resumed = previous if previous and previous.get("asked") == asked else None
    if resumed:
        copies = int(resumed.get("copies", copies))
    if copies > 1:
        how = pace.text() if pace else "estimated from its bytes (the run measures its pace first)"
        notes.append(
            f"the file holds {s.entries} entries, too few for a valid timed window: it is read {copies} times over, "
            f"its own baskets copied ({how}); each basket keeps its bytes, only the order in which baskets are met "
            "across copies differs from a longer file"
        )
        if facts.cut_short:
            notes.append(
                f"{facts.cut_short}: {_CUT_SHORT_CONSEQUENCE} (a clone, written with full baskets, shows the "
                "difference: advise adds one where the budget allows, or with --clone yes)"
            )
    storage_dir = storage or str(out / "data")
    if storage and not storage.startswith(("root://", "roots://")):
        storage_dir = str(Path(storage).resolve() / f"rootparams-advise-{name}")
    build_present = (CHECKOUT / paths.BUILD_INFO).exists() or (out / paths.BUILD_INFO).exists()
    clone_events = int(min(_CLONE_MAX_EVENTS, max(s.entries, copies * s.entries)))

    def plan_of(tier: tuple[str, dict], reps: int) -> Plan:
        name_of_tier, spec = tier
        with_clone = {"auto": spec["clone"], "yes": True, "no": False}[clone] or clone_compression
        plan = Plan(
            file=str(Path(file).resolve()),
            facts=facts,
            name=name,
            tree=s.tree,
            copies=copies,
            clone=with_clone,
            clone_events=clone_events,
            clone_compression=clone_compression and with_clone,
            tier=name_of_tier,
            levels=list(spec["levels"]),
            autoflush=_autoflush_values(s) if with_clone else [],
            repetitions=reps,
            storage=storage_dir,
            out=out,
            budget_seconds=budget_seconds,
            quick=quick,
            pace=pace,
            notes=notes,
        )
        plan.estimate = _estimate(plan, build_present)
        plan.asked = asked
        return plan

    if resumed:
        tier = next((t for t in (*_TIERS, _QUICK_TIER) if t[0] == resumed["tier"]), None)
        if tier is not None:
            plan = plan_of(tier, int(resumed["repetitions"]))
            plan.planned_on = resumed.get("made", plan.planned_on)
            notes.append(f"resuming the plan made on {plan.planned_on} in {out}")
            return plan
    if quick:
        return plan_of(_QUICK_TIER, repetitions or _QUICK_REPETITIONS)
    # The largest tier that fits at full repetitions; else the smallest tier with fewer repetitions.
    options = [repetitions] if repetitions else list(range(MAX_REPETITIONS, MIN_REPETITIONS - 1, -1))
    plans = [plan_of(t, options[0]) for t in _TIERS]
    fitting = [p for p in plans if p.estimate_seconds <= budget_seconds]
    if fitting:
        chosen = fitting[-1]
        if chosen is not plans[-1]:  # what the budget left out, and what would add it
            nxt = plans[plans.index(chosen) + 1]
            notes.append(
                f"the next tier ({nxt.tier.removeprefix('and ')}) is estimated at {minutes(nxt.estimate_seconds)}, "
                f"beyond the budget: --budget {math.ceil(nxt.estimate_seconds / 60) + 1}m adds it"
            )
        return chosen
    for reps in options[1:]:
        plan = plan_of(_TIERS[0], reps)
        if plan.estimate_seconds <= budget_seconds:
            return plan
    plan = plan_of(_TIERS[0], options[-1])
    notes.append(
        f"even the smallest plan ({_TIERS[0][0]}, {plan.repetitions} repetitions) is estimated at "
        f"{minutes(plan.estimate_seconds)}, beyond the budget: raise --budget, or let it run longer"
    )
    return plan


def _plan_copies(facts: FileFacts, pace: Pace | None, target_seconds: float) -> int:
    """How many times the file's clusters are repeated so that its fastest setting's timed loop lasts about
    ``target_seconds``: from the probe's pace, else from its bytes (config.tile_copies, tile: auto); at most what
    keeps the tiled file below MAX_TILED_BYTES; 1 for a file long enough as it is."""
    if facts.zip_bytes >= _LONG_ENOUGH_BYTES:
        return 1
    if pace is not None and pace.seconds_per_copy > 0:
        wanted = math.ceil(target_seconds / pace.seconds_per_copy)
        per_copy = max(pace.bytes_per_copy, facts.size_bytes)
    else:
        wanted = tile_copies(facts.source, TILE_TARGET_BYTES, TILE_TARGET_UNCOMPRESSED_BYTES)
        per_copy = facts.size_bytes
    return int(max(1, min(wanted, _MAX_TILED_BYTES // max(per_copy, 1), 100_000)))


def _previous_choice(out: Path) -> dict[str, Any] | None:
    try:
        return json.loads((out / "plan.json").read_text())
    except (OSError, ValueError):
        return None


def _autoflush_values(s: sources.SourceFile) -> list[int]:
    """Cluster sizes around the clone's own (the file's; ROOT's 30 MB TTree default for an RNTuple's clone): 100 and
    1000 events, 10 MB and 30 MB (negative: bytes)."""
    default = clone_autoflush(sources.file_settings(s))
    values = [100, 1000, -10_000_000, -30_000_000]
    return [v for v in values if v != default][:3]


# --- The pace probe ----------------------------------------------------------------------------------------


def _probe_pace(facts: FileFacts, out: Path, say=print) -> Pace | None:
    """The file's read pace at LZ4-1 (Pace), measured on a recompressed copy of PROBE_BYTES read warm twice with the
    study's reader; None, with the reason said, where the file cannot be recompressed (then tiling is estimated from
    its bytes, and the study's own checks refuse what cannot be made)."""
    s = facts.source
    tools = ensure_built(out / paths.BUILD)
    copies = int(
        max(
            1,
            min(
                math.ceil(_PROBE_BYTES / max(facts.zip_bytes, 1)),
                _MAX_TILED_BYTES // max(facts.size_bytes, 1),
            ),
        )
    )
    probe = out / "probe" / f"lz4-1_x{copies}.root"
    try:
        if not probe.exists():
            recompress_file(s.path, tree=s.tree, output=probe, compression=_PROBE_SETTING, copies=copies,
                            recompressor=tools.recompressor, reader=tools.reader, uproot_branches=10)  # fmt: skip
    except RecompressError as error:
        say(
            f"advise: the pace probe could not recompress the file ({str(error).splitlines()[0]}); tiling from its bytes"
        )
        return None
    read = {**PAPER_READ_DEFAULTS, "branches": _selection(facts), "container": s.container, "tree": s.tree}
    cmd = reader_command(tools.reader, str(probe), copies * s.entries, read)
    loops = []
    for _ in range(2):
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        result = json_result(proc.stdout.splitlines())
        if proc.returncode != 0 or result is None:
            say(
                f"advise: the pace probe's read failed (exit code {proc.returncode}); tiling from the file's bytes"
            )
            return None
        loops.append(float(result["loop_seconds"]))
        unzipped = float(result.get("loop_unzip_output_bytes") or 0.0)
    return Pace(
        copies=copies,
        loop_seconds=min(loops),
        bytes_per_copy=probe.stat().st_size / copies,
        unzipped_bytes_per_copy=unzipped / copies if unzipped > 0 else None,
    )


def _selection(facts: FileFacts) -> str:
    """The branch selection the study reads the file with (config: "all" without ATLAS particle containers)."""
    return "all" if facts.source.atlas_containers == 0 else PAPER_READ_DEFAULTS["branches"]


# --- Running the workflow, with progress -------------------------------------------------------------------


def _job_weights(plan: Plan, jobs: dict[str, int]) -> dict[str, float]:
    """Each rule's estimated seconds per job, for the progress line's estimate of the time left (its pace is
    then the run's own): the plan's file making shared among the jobs that make files, its reading among the
    measuring blocks, a few seconds for every other job."""
    e = plan.estimate
    makers = (
        "generate_file",
        "rewrite_file",
        "tile_source",
        "generate_warmup_file",
        "generate_sentinel_file",
    )
    n_makers = sum(jobs.get(r, 0) for r in makers) or 1
    weights = {r: e["making the files"] / n_makers for r in makers}
    weights["measure_block"] = e["reading"] / max(1, jobs.get("measure_block", 1))
    weights["build_cxx"] = e.get("C++ build", 10.0)
    weights["calibrate_recipe"] = e.get("calibration", 10.0) / max(1, jobs.get("calibrate_recipe", 1))
    return weights


def _block_weights(plan: Plan, jobs: dict[str, int]) -> dict[str, float]:
    """The measuring blocks' estimated seconds, by block: each format's share of the plan's reading, by its points."""
    n_own, n_clone = len(plan.own_points()) + 1, len(plan.clone_points())
    total = max(n_own + n_clone, 1)
    reading = plan.estimate["reading"]
    return {
        plan.name: reading * n_own / total,
        plan.clone_name: reading * n_clone / total,
        "": reading / total,
    }


_DONE = re.compile(r"Finished jobid: (\d+) \(Rule: (\w+)\)")
_JOBID = re.compile(r"^\s+jobid: (\d+)\s*$")
_BLOCK = re.compile(r"^\s+wildcards: .*\bblock=([^,\s]+)")
_JOB_ROW = re.compile(r"^(\w+)\s+(\d+)\s*$")


def _planned_jobs(workdir: Path, snakemake: list[str], env: dict[str, str]) -> dict[str, int]:
    """The jobs Snakemake will run, by rule (its dry run's job stats)."""
    dry = subprocess.run([*snakemake, "-n"], cwd=workdir, env=env, capture_output=True, text=True)
    if dry.returncode != 0:
        raise AdviseError(
            "the study's dry run failed; Snakemake said:\n"
            + "\n".join((dry.stdout + dry.stderr).splitlines()[-25:])
        )
    jobs: dict[str, int] = {}
    in_table = False
    for line in dry.stdout.splitlines():
        if line.startswith("job ") and "count" in line:
            in_table = True
            continue
        if in_table:
            m = _JOB_ROW.match(line.strip())
            if m and m.group(1) != "total":
                jobs[m.group(1)] = int(m.group(2))
            elif line.strip().startswith("total"):
                break
    return jobs


class Progress:
    """The progress line of a running study, from Snakemake's own output: a line per finished job with the time
    elapsed and an estimate of the time left, each job weighted by the plan's estimate of its cost (a measuring
    block by what it reads: see _block_weights)."""

    def __init__(self, plan: Plan, jobs: dict[str, int], clock=time.monotonic):
        self.weights = _job_weights(plan, jobs)
        self.blocks = _block_weights(plan, jobs)
        self.total = sum(n * self.weights.get(r, 3.0) for r, n in jobs.items() if r != "measure_block")
        self.total += plan.estimate["reading"] if jobs.get("measure_block") else 0.0
        self.jobs = sum(jobs.values())
        self.clock, self.start = clock, clock()
        self.done_weight, self.finished, self._jobid = 0.0, 0, ""
        self._block_of_job: dict[str, str] = {}

    def feed(self, line: str) -> str | None:
        """One line of Snakemake's output; the progress line when it says a job finished, else None."""
        if m := _JOBID.match(line):
            self._jobid = m.group(1)
        elif m := _BLOCK.match(line):
            self._block_of_job[self._jobid] = m.group(1)
        m = _DONE.search(line)
        if not m:
            return None
        rule = m.group(2)
        self.finished += 1
        if rule == "measure_block":
            block = self._block_of_job.get(m.group(1), "")
            self.done_weight += self.blocks.get(block, self.blocks[""])
        else:
            self.done_weight += self.weights.get(rule, 3.0)
        elapsed = self.clock() - self.start
        fraction = min(0.99, self.done_weight / self.total) if self.total else 0
        # The plan's estimate of what is left, until a quarter of the work is done; then the run's own pace.
        left = elapsed * (1 - fraction) / fraction if fraction > 0.25 else self.total - self.done_weight
        return (
            f"advise: [{self.finished}/{self.jobs}] {rule} done; {minutes(elapsed)} elapsed, "
            f"about {minutes(left)} left"
        )


def _run_workflow(plan: Plan, config_path: Path, env: dict[str, str], cores: int) -> int:
    """Snakemake on the plan's configuration in ``plan.out``, for what advise shows (Plan.targets: the tables, the
    run summary and the figures advise shows, not the study's other figures), printing a progress line per finished
    job with an estimate of the time left; its whole output goes to ``<out>/advise.log``."""
    snakemake = [
        sys.executable, "-m", "snakemake", "-s", str(CHECKOUT / "Snakefile"), "-d", str(plan.out),
        "--configfile", str(config_path), "--cores", str(cores), "--rerun-incomplete", "--keep-going",
        *plan.targets(),
    ]  # fmt: skip
    # Only one advise answers into a directory at a time: the lock is the kernel's, so it goes with its process.
    # Holding it, a Snakemake lock left in the directory is a killed run's (interrupted, machine restarted), not
    # another run's, and is released, so that the rerun resumes instead of stopping at it.
    with open(plan.out / ".advise.lock", "w") as guard:
        try:
            fcntl.flock(guard, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise AdviseError(
                f"{plan.out}: another advise is answering into this directory; wait for it, or give --out another one"
            ) from None
        if any((plan.out / ".snakemake" / "locks").glob("*")):
            print(
                "advise: an earlier run here was interrupted; releasing its lock and resuming where it stopped"
            )
            subprocess.run(
                [*snakemake, "--unlock"], cwd=plan.out, env=env, capture_output=True, text=True, check=True
            )
        return _run_snakemake(plan, snakemake, env)


def _run_snakemake(plan: Plan, snakemake: list[str], env: dict[str, str]) -> int:
    """Snakemake's run itself, under run_workflow's lock: its jobs, a progress line per finished job."""
    jobs = _planned_jobs(plan.out, snakemake, env)
    if not jobs:
        print("advise: every result is already there (a finished earlier run); reporting it")
        return 0
    progress = Progress(plan, jobs)
    print(f"advise: {sum(jobs.values())} jobs to run; the full log is {plan.out / 'advise.log'}")
    with open(plan.out / "advise.log", "a") as log:
        proc = subprocess.Popen(
            snakemake, cwd=plan.out, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        assert proc.stdout is not None
        for line in proc.stdout:
            log.write(line)
            log.flush()
            if text := progress.feed(line):
                print(text, flush=True)
        code = proc.wait()
    if code != 0:
        tail = (plan.out / "advise.log").read_text().splitlines()[-30:]
        print("advise: the study failed; the end of its log:\n" + "\n".join(tail), file=sys.stderr)
    return code


# --- The answer --------------------------------------------------------------------------------------------


@dataclass
class Fidelity:
    """The clone at the file's own setting against the file (tiled) at it: how far the clone is from the file."""

    size: float  # clone's compressed bytes per event over the file's, minus 1
    ratio: float  # clone's compression ratio over the file's, minus 1
    rate: float  # clone's event rate over the file's (means), minus 1; nan where either has none
    rate_low: float
    rate_high: float
    cut_short: bool = False  # the file's baskets are smaller than a long file's (FileFacts.cut_short)
    # How the file's reads read its classes (the reader's read_mode): "objects+baskets" where they have no
    # dictionary here, so basket by basket, without building objects; the clone's have one and are deserialised.
    file_read_mode: str = "objects"
    clone_read_mode: str = "objects"

    @property
    def within(self) -> bool:
        return abs(self.size) <= SIZE_TARGET and abs(self.ratio) <= RATIO_TARGET

    def text(self) -> str:
        if self.file_read_mode != self.clone_read_mode:
            rate = (
                f"; its rates are not comparable with your file's: its classes have a dictionary here and its reads "
                f"deserialise every object, while your file's classes, which have none, are read basket by basket "
                f"({self.file_read_mode}), without the objects' CPU (it reads {_signed(self.rate)} the file's events/s)"
            )
        elif math.isfinite(self.rate):
            rate = (
                f"; it reads {_signed(self.rate)} the file's events/s (between {_signed(self.rate_low)} and "
                f"{_signed(self.rate_high)} at the 95 % intervals' ends)"
            )
        else:
            rate = ""
        head = (
            f"The clone, at your file's own setting, is {_signed(self.size)} in compressed bytes per event and "
            f"{_signed(self.ratio)} in compression ratio against your file{rate}."
        )
        if self.cut_short:
            head += (
                " Part of the difference is the baskets' size, not their content: your file's are cut short by its "
                "end, the clone's are full, as a long file's would be."
            )
        if self.within:
            return head + f" Within the ±{SIZE_TARGET:.0%} / ±{RATIO_TARGET:.0%} targets."
        return (
            head
            + f" **Outside the ±{SIZE_TARGET:.0%} / ±{RATIO_TARGET:.0%} targets: the clone's bytes are not "
            "your file's; take its layout ranking as a hint, not an answer about your file.**"
        )


def _signed(x: float) -> str:
    return f"{100 * x:+.0f} %"


@dataclass
class Answer:
    decisions: dict[str, list[dict[str, Any]]]  # cost_choice rows by where (OWN, CLONE)
    as_is: dict[str, Any]  # the file as it is (tiled): rate, validity, bottleneck
    bottlenecks: dict[str, bottleneck.Bottleneck | None]  # by setting label
    rates: list[dict[str, Any]]  # per measured setting: where, size, ratio, read rate, n, valid
    failures: list[dict[str, str]]  # settings not measured: where, setting, why
    fidelity: Fidelity | None
    apply: applying.ApplyIt | None
    apply_note: str
    figures: list[Path]
    run_summary: Path


def collect(plan: Plan) -> Answer:
    import pandas as pd  # here: the command's --help does not pay for it

    tables = plan.out / paths.TABLES
    choice = pd.read_csv(tables / "cost_choice.csv")
    reps = pd.read_csv(tables / "repetitions.csv", low_memory=False)
    summary = pd.read_csv(tables / "summary.csv", low_memory=False)
    files = pd.read_csv(tables / "files.csv")
    where_of = {plan.name: OWN, plan.clone_name: CLONE}

    def rows_of(fmt: str, file_id: str, read_id: str):
        return reps[(reps["format"] == fmt) & (reps["file_id"] == file_id) & (reps["read_id"] == read_id)]

    keep = [c for c in ("format", "file_id", "size_bytes", "compression_ratio", "bytes_per_event", "zip_bytes",
                        "events", "write_mb_per_s_uncompressed") if c in files.columns]  # fmt: skip
    merged = summary.merge(files[keep], on=["format", "file_id"], how="left")
    rates, failures = [], []
    bottlenecks: dict[str, bottleneck.Bottleneck | None] = {}
    for _, row in merged.iterrows():
        where = where_of.get(row["format"])
        if where is None:
            continue
        asis = row["format"] == plan.name and str(row["file_id"]) == "asis"
        label = "as it is" if asis else _label(row)
        if str(row.get("status", "measured")) != "measured" and not int(row.get("n", 0) or 0):
            failures.append({"where": where, "setting": label, "why": str(row.get("failure") or "")})
            continue
        b = bottleneck.classify(rows_of(row["format"], row["file_id"], row["read_id"]).to_dict("records"))
        bottlenecks[f"{where}: {label}"] = b
        zip_per_event = row["zip_bytes"] / row["events"] if "zip_bytes" in row and row["events"] else math.nan
        rates.append(
            {
                "where": where,
                "setting": label,
                "format": row["format"],
                "file_id": row["file_id"],
                "container": row["container"],
                "algorithm": row["algorithm"],
                "level": int(row["level"]),
                "autoflush": _int_or_none(row.get("autoflush")),
                "read_mode": str(row.get("read_mode") or "objects"),
                "bytes_per_event": row["bytes_per_event"],
                "zip_bytes_per_event": zip_per_event,
                "compression_ratio": row["compression_ratio"],
                "rate": row["event_rate_hz_mean"],
                "rate_low": row["event_rate_hz_ci95_low"],
                "rate_high": row["event_rate_hz_ci95_high"],
                "n": int(row["n"]),
                "valid": bool(row["valid"]),
                "invalid_reasons": row.get("invalid_reasons") if not bool(row["valid"]) else "",
                "write_mb_per_s": row.get("write_mb_per_s_uncompressed"),
                "bottleneck": b.text() if b else "spans not recorded",
            }
        )
    as_is = next((r for r in rates if r["where"] == OWN and r["setting"] == "as it is"), {})
    decisions = {where: choice[choice["format"] == fmt].to_dict("records") for fmt, where in where_of.items()}
    fidelity = _fidelity(plan, rates)
    applied, note = _apply(plan, decisions)
    wanted = {Path(t).name for t in plan.targets() if t.endswith(".png")}
    figures = [f for f in sorted((plan.out / paths.RESULTS / "figures").glob("*.png")) if f.name in wanted]
    return Answer(
        decisions=decisions,
        as_is=as_is,
        bottlenecks=bottlenecks,
        rates=rates,
        failures=failures,
        fidelity=fidelity,
        apply=applied,
        apply_note=note,
        figures=figures,
        run_summary=plan.out / paths.RESULTS / "run_summary.md",
    )


def _fidelity(plan: Plan, rates: list[dict[str, Any]]) -> Fidelity | None:
    """The clone's default file (the file's own compression) against the file as it is (tiled)."""
    if not plan.clone:
        return None
    _, algorithm, level = plan.facts.own_setting
    own = (TTREE if plan.facts.flat else plan.container, algorithm, level)
    own_af = clone_autoflush(sources.file_settings(plan.facts.source))
    s, clusters = plan.facts.source, plan.facts.inspection.clusters
    # The clone at the file's own cluster size where it was measured (an RNTuple's: its entries per cluster, which
    # the cluster-size scan may hold), else at the clone's default.
    file_af = s.autoflush if s.container == TTREE else (round(s.entries / clusters) if clusters else None)
    real = next((r for r in rates if r["where"] == OWN and r["setting"] == "as it is"), None)
    at_own = [r for r in rates if r["where"] == CLONE and (r["container"], r["algorithm"], r["level"]) == own]
    clone = next((r for r in at_own if r["autoflush"] == file_af), None) or next(
        (r for r in at_own if r["autoflush"] in (own_af, None)), None
    )
    if real is None or clone is None:
        return None

    def rel(a, b):
        try:
            return float(a) / float(b) - 1 if float(b) else math.nan
        except (TypeError, ValueError):
            return math.nan

    return Fidelity(
        size=rel(clone["zip_bytes_per_event"], real["zip_bytes_per_event"]),
        ratio=rel(clone["compression_ratio"], real["compression_ratio"]),
        rate=rel(clone["rate"], real["rate"]),
        rate_low=rel(clone["rate_low"], real["rate_high"]),
        rate_high=rel(clone["rate_high"], real["rate_low"]),
        cut_short=bool(plan.facts.cut_short),
        file_read_mode=real["read_mode"],
        clone_read_mode=clone["read_mode"],
    )


def _apply(plan: Plan, decisions: dict[str, list[dict[str, Any]]]) -> tuple[applying.ApplyIt | None, str]:
    """What to type for the decision at the middle number of reads: the compression decided on the file's own
    bytes; the layout (TTree or RNTuple, cluster size) decided on the clone where it is not the file's own."""
    own_rows = decisions.get(OWN) or []
    if not own_rows:
        return None, "no compression setting could be decided (see the run summary)"
    row = own_rows[len(own_rows) // 2]
    reads = int(row["reads_per_file"])
    note = f"for {reads} reads per file"
    if bool(row.get("tie")):
        note += (
            f"; the compression is a tie ({str(row['tied_settings']).replace(';', ',')}): shown for "
            f"{row['setting']}, the lowest mean cost, and any of the tie is as good as the run can tell"
        )
    file_id = str(row["file_id"])
    container, algorithm, level = plan.facts.own_setting
    if file_id and file_id != "asis":
        p = FilePoint.from_id(plan.name, file_id)
        algorithm, level = p.algorithm, p.level
    cluster = None
    clone_rows = [r for r in (decisions.get(CLONE) or []) if int(r["reads_per_file"]) == reads]
    if clone_rows and not bool(clone_rows[0].get("tie")):
        p = FilePoint.from_id(plan.clone_name, str(clone_rows[0]["file_id"]))
        own_af = clone_autoflush(sources.file_settings(plan.facts.source))
        if p.container != (TTREE if plan.facts.flat else plan.container) or p.autoflush != own_af:
            container = p.container
            cluster = p.autoflush
            note += (
                f"; the layout ({'RNTuple' if p.container == RNTUPLE else 'TTree'}, clusters of "
                f"{labels.autoflush_label(p.autoflush)}) from the clone's decision "
                f"({_setting_text((p.container, p.algorithm, p.level, p.autoflush))}): the two were decided apart, "
                "and their combination was not measured as one"
            )
    elif clone_rows:
        note += "; the layout is a tie on the clone: keep your own"
    decision = applying.Decision.from_point((container, algorithm, level, cluster))
    return applying.apply_it(decision, applying.context_of(plan.facts.source, plan.facts.inspection)), note


def _int_or_none(value) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _label(row) -> str:
    """A measured setting's name, as the plan names its points (_setting_text): a TTree with its AutoFlush, an
    RNTuple with its cluster size unless it is RNTuple's own default (0)."""
    try:
        af: int | None = int(row["autoflush"])
    except (TypeError, ValueError):
        af = None
    if row["container"] == "rntuple" and af == 0:
        af = None
    if str(row.get("origin")) == "rewrite":  # a recompression of the file keeps its clusters
        af = None
    return _setting_text((str(row["container"]), str(row["algorithm"]), int(row["level"]), af))


def _decision_lines(rows: list[dict[str, Any]]) -> list[str]:
    if not rows:
        return ["No decision: no setting had enough valid repetitions (see the run summary)."]
    lines = []
    for d in rows:
        reads = int(d["reads_per_file"])
        if bool(d["tie"]):
            cands = str(d["tied_settings"]).split(";")
            ps = str(d["tied_p_cheapest"]).split(";")
            tied = ", ".join(f"{c.strip()} (P {float(p):.2f})" for c, p in zip(cands, ps, strict=False))
            lines.append(
                f"- read {reads} time(s): **cannot tell** between {tied}: none is cheapest in 95 % of the "
                "bootstrap replicates"
            )
        else:
            lines.append(
                f"- read {reads} time(s): **{d['setting']}** (cheapest in {100 * float(d['p_cheapest']):.0f} % of "
                f"the bootstrap replicates; cost {float(d['total_cost']):.4g}, 95 % CI "
                f"{float(d['total_cost_ci95_low']):.4g}-{float(d['total_cost_ci95_high']):.4g}; runner-up "
                f"{d['runner_up']}, n = {int(d['n'])})"
            )
    return lines


def _quick_caveat(repetitions: int) -> str:
    """What a quick answer leaves out, said at its head (advise.md, .html) and on the terminal."""
    return (
        f"**A quick answer**: {repetitions} repetitions, LZ4, ZLIB and ZSTD at level 5 only, no clone. The full "
        "answer (without --quick) adds LZMA, levels 1 and 9, the layout on a clone and 10 repetitions: its intervals "
        "are narrower, so a tie here may be decided there, and another algorithm or level may win (LZMA, the smallest "
        "on most files, often wins when files are read once or ten times)."
    )


def _answer_text(plan: Plan, a: Answer) -> str:
    s = plan.facts.source
    lines = [
        f"# How to write {Path(plan.file).name}",
        "",
        f"The file: {plan.facts.text()}. Its largest content kinds: {plan.facts.kinds_text()}.",
        "",
    ]
    if plan.quick:
        lines += [_quick_caveat(plan.repetitions), ""]
    if plan.copies > 1:
        lines += [
            f"It holds too few entries to time a read: every setting was measured on its own baskets, its clusters "
            f"repeated {plan.copies} times ({plan.copies * s.entries} entries). Each basket keeps its bytes; only the "
            "order in which baskets are met across copies differs from a longer file."
            + (f" But {plan.facts.cut_short}: {_CUT_SHORT_CONSEQUENCE}." if plan.facts.cut_short else ""),
            "",
        ]
    if a.as_is:
        r = a.as_is
        valid = "" if r["valid"] else f" (not a valid timed window: {r['invalid_reasons']}; drawn hollow)"
        lines += [
            f"As it is, on {'your XRootD storage' if plan.remote else 'the storage given'}: {_rate_text(r)}{valid}.",
            f"What limits its reads: {r['bottleneck']}.",
        ]
        b = a.bottlenecks.get(f"{OWN}: as it is")
        if b is not None:
            lines.append(f"What could move it: {b.lever}.")
        lines.append("")
    lines += ["## The compression, on your file's own bytes (at the study's prices)", ""]
    lines += _decision_lines(a.decisions.get(OWN, []))
    if plan.clone:
        lines += ["", "## The layout, on a calibrated clone (TTree or RNTuple, cluster size)", ""]
        if a.fidelity is not None:
            lines += [a.fidelity.text(), ""]
        else:
            lines += [
                "The clone's fidelity could not be measured (the clone or the file has no valid read).",
                "",
            ]
        lines += _decision_lines(a.decisions.get(CLONE, []))
    lines += ["", "## The settings measured", "",
              "| measured on | setting | file kB/event | ratio | events/s (95 % CI) | n | valid | write MB/s | what limits the read |",
              "|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    order = {OWN: 0, CLONE: 1}
    for r in sorted(
        a.rates, key=lambda r: (order[r["where"]], r["setting"] != "as it is", -(r["rate"] or 0))
    ):
        lines.append(
            f"| {r['where']} | {r['setting']} | {r['bytes_per_event'] / 1e3:.2f} | {r['compression_ratio']:.2f} | "
            f"{_rate_text(r, short=True)} | {r['n']} | {'yes' if r['valid'] else 'no'} | "
            f"{_or_dash(r['write_mb_per_s'], '.1f')} | {r['bottleneck']} |"
        )
    if a.failures:
        lines += ["", "## Settings that could not be measured", ""]
        lines += [f"- {f['where']}, {f['setting']}: {f['why']}" for f in a.failures]
        lines.append("The answer above is made from the other settings.")
    lines += [
        "",
        "file kB/event: the file's size on disk over its events; ratio: uncompressed over compressed event data; "
        "write MB/s: uncompressed data (a recompression of your file: its compression only, every copy counted; a "
        "clone: ROOT's writing of it).",
        "The costs are the study's (storage, write CPU and read CPU prices: config/README.md, decision); the "
        "intervals are 95 % intervals over the repetitions (rates) and bootstrap replicates over the interleaved "
        f"rounds (costs). The machine, its noise and the physics checks: {a.run_summary}.",
    ]
    if a.apply is not None:
        lines += ["", f"What follows is {a.apply_note}.", "", a.apply.markdown()]
    elif a.apply_note:
        lines += ["", "## Apply it", "", f"Nothing to apply: {a.apply_note}."]
    return "\n".join(lines) + "\n"


def _answer_json(plan: Plan, a: Answer) -> dict[str, Any]:
    """advise.json: the plan, the decisions, every setting's measurements, the failures, the clone's fidelity and
    what to type."""

    def clean(value):
        if isinstance(value, float) and not math.isfinite(value):
            return None
        if hasattr(value, "item"):  # numpy scalars
            return clean(value.item())
        return value

    def rows(items):
        return [{k: clean(v) for k, v in r.items()} for r in items]

    return {
        "file": plan.file,
        "tree": plan.tree,
        "facts": plan.facts.text(),
        "baskets_cut_short": plan.facts.cut_short,
        "plan": {
            "tier": plan.tier,
            "repetitions": plan.repetitions,
            "copies": plan.copies,
            "clone": plan.clone,
            "clone_events": plan.clone_events if plan.clone else None,
            "quick": plan.quick,
            "estimate_seconds": plan.estimate,
            "notes": plan.notes,
        },
        "decisions": {where: rows(r) for where, r in a.decisions.items()},
        "settings": rows(a.rates),
        "failures": a.failures,
        "clone_fidelity": None
        if a.fidelity is None
        else {k: clean(v) for k, v in a.fidelity.__dict__.items()},
        "apply_note": a.apply_note,
        "apply": a.apply.as_dict() if a.apply is not None else None,
        "run_summary": str(a.run_summary),
    }


def _or_dash(value: Any, spec: str) -> str:
    """A number, or "-" where there is none (the file as it is was not written by the study)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return "-"
    return format(number, spec) if math.isfinite(number) else "-"


def _rate_text(r: dict[str, Any], short: bool = False) -> str:
    if not r["n"] or r["rate"] != r["rate"]:
        return (
            "no usable repetition"
            if short
            else "no usable repetition (every one flagged: see the run summary)"
        )
    if short:
        return f"{r['rate']:.0f} ({r['rate_low']:.0f}-{r['rate_high']:.0f})"
    return f"{r['rate']:.0f} events/s (95 % CI {r['rate_low']:.0f}-{r['rate_high']:.0f}, n = {r['n']})"


def _write_html(plan: Plan, a: Answer, markdown: str, path: Path) -> None:
    """One page: the answer, and the figures that support it (inside the page, so that it can be mailed)."""
    body = []
    text_part = markdown.split("## Apply it")[0] if a.apply is not None else markdown
    for line in text_part.splitlines():
        if line.startswith("# "):
            body.append(f"<h1>{html.escape(line[2:])}</h1>")
        elif line.startswith("## "):
            body.append(f"<h2>{html.escape(line[3:])}</h2>")
        elif line.startswith("|---"):
            continue
        elif line.startswith("| "):
            cells = [html.escape(c.strip()) for c in line.strip("|").split("|")]
            tag = "th" if "setting" in cells[1 if len(cells) > 1 else 0] else "td"
            body.append("<tr>" + "".join(f"<{tag}>{c}</{tag}>" for c in cells) + "</tr>")
        elif line.startswith("- "):
            body.append(f"<li>{_bold(html.escape(line[2:]))}</li>")
        elif line:
            body.append(f"<p>{_bold(html.escape(line))}</p>")
    text = "\n".join(body)
    text = re.sub(r"((?:<tr>.*</tr>\n?)+)", r"<table>\1</table>", text)
    text = re.sub(r"((?:<li>.*</li>\n?)+)", r"<ul>\1</ul>", text)
    if a.apply is not None:
        text += a.apply.html()
    figures = "".join(
        f'<figure><img src="data:image/png;base64,{base64.b64encode(f.read_bytes()).decode()}" '
        f'alt="{html.escape(f.stem)}"><figcaption>{html.escape(f.stem)}</figcaption></figure>'
        for f in a.figures
    )
    path.write_text(
        "<!doctype html><html><head><meta charset='utf-8'><title>rootparams advise</title><style>"
        "body{font-family:sans-serif;max-width:1100px;margin:2em auto}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:3px 8px;font-size:90%}img{max-width:100%}"
        "pre{background:#f6f6f6;padding:6px;overflow-x:auto}</style></head><body>"
        f"{text}<h2>Figures</h2>{figures or '<p>none</p>'}</body></html>\n"
    )


def _bold(text: str) -> str:
    return re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", text)


# --- The command -------------------------------------------------------------------------------------------


def build_parser(prog: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog,
        description="How should this ROOT file be written, for this storage? Inspects the file, measures it as "
        "it is (cold, with the study's instrument), measures every compression setting on the file's own bytes "
        "(its baskets recompressed: no class dictionary needed; a short file repeated until it can be timed), the "
        "layout (cluster size, TTree against RNTuple) on a calibrated clone, and prints the decision with its "
        "uncertainty and what to type to get it. Runs the study's workflow underneath: rerun the same command to "
        "resume.",
    )
    p.add_argument(
        "file",
        help="a ROOT file with a TTree or an RNTuple: a local path, or skhep_testdata:<name> for a public sample "
        "(e.g. skhep_testdata:uproot-issue-123b.root, an ATLAS PHYSLITE file)",
    )
    named = p.add_mutually_exclusive_group()
    named.add_argument(
        "--tree",
        metavar="NAME",
        help="the TTree or RNTuple to advise on (default: CollectionTree, EventData, Events or the only one; "
        "dir/NAME in a directory); needed where the file holds several",
    )
    named.add_argument("--ntuple", dest="tree", metavar="NAME", help="the same as --tree, for an RNTuple")
    p.add_argument(
        "--storage",
        help="where the files are written and read: a directory on the storage you want the answer for (default: "
        "<out>/data), or root://host[:port]//dir/ of your own XRootD server (files copied there with xrdcp)",
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="a first answer in about 3 minutes: LZ4, ZLIB and ZSTD at level 5 on the file's own bytes, 3 "
        "repetitions, no clone (the full answer adds LZMA, levels 1 and 9, the layout on a clone and 10 repetitions)",
    )
    p.add_argument(
        "--budget",
        help=f"the time the answer may take (default {_DEFAULT_BUDGET}, with --quick {_QUICK_BUDGET})",
    )
    p.add_argument("--out", help="the directory of the answer and its study (default: advise/<file name>)")
    p.add_argument("--clone", choices=("auto", "yes", "no"), default="auto",
                   help="measure the layout on a calibrated clone: auto (when the budget allows), yes or no")  # fmt: skip
    p.add_argument(
        "--clone-compression",
        action="store_true",
        help="measure the compression settings on the clone too, beside the file's own bytes: how far the clone's "
        "answer would be from your file's",
    )
    p.add_argument(
        "--loop-seconds",
        type=float,
        help=f"how long the fastest setting's timed read of a short file should last: the file is repeated until it "
        f"does (default {_TARGET_LOOP_SECONDS:g} s, with --quick {_QUICK_TARGET_LOOP_SECONDS:g} s; a loop under "
        "measurement.min_window_seconds, 1 s, is not a valid timed window)",
    )
    p.add_argument(
        "--repetitions", type=int, help="repetitions per point (default: as many, up to 10, as fit)"
    )
    p.add_argument(
        "--cores", type=int, default=2, help="Snakemake cores (timed reads never overlap; default 2)"
    )
    p.add_argument(
        "-n", "--dry-run", action="store_true", help="print the plan and its estimate, run nothing"
    )
    return p


def main(
    argv: list[str] | None = None, prog: str = "rootparams advise", env: dict[str, str] | None = None
) -> int:
    args = build_parser(prog).parse_args(argv)
    try:
        budget = _parse_duration(args.budget or (_QUICK_BUDGET if args.quick else _DEFAULT_BUDGET))
        if args.repetitions is not None and not 2 <= args.repetitions <= 100:
            raise AdviseError(
                f"--repetitions {args.repetitions}: give 2 to 100 (an interval needs at least 2)"
            )
        if args.file.startswith(("root://", "roots://", "http://", "https://")):
            raise AdviseError(
                f"{args.file}: advise reads the file from a local path (copy it with xrdcp first); the storage "
                "to answer for can be remote: --storage root://host//dir/"
            )
        args.file = sources.resolve_path(args.file)  # skhep_testdata:<name>, a public sample, as a local file
        out = Path(args.out or Path("advise") / format_name(args.file)).resolve()
        out.mkdir(parents=True, exist_ok=True)
        if args.loop_seconds is not None and not 0 < args.loop_seconds <= 600:
            raise AdviseError(
                f"--loop-seconds {args.loop_seconds}: give a duration in seconds, above 0 and at most 600"
            )
        options = {"storage": args.storage, "budget_seconds": budget, "out": out, "tree": args.tree,
                   "quick": args.quick, "clone": args.clone, "clone_compression": args.clone_compression,
                   "repetitions": args.repetitions, "loop_seconds": args.loop_seconds}  # fmt: skip
        plan = _make_plan(args.file, **options)
        if not args.dry_run and plan.copies > 1:
            # The tiling is set from the file's measured pace (a warm read at LZ4-1), not from its bytes.
            previous = _previous_choice(out)
            if not (previous and previous.get("asked") == plan.asked):
                _reuse_build(out)
                pace = _probe_pace(plan.facts, out)
                if pace is not None:
                    plan = _make_plan(args.file, **options, pace=pace)
    except UserError as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        return 2
    for line in _environment_notes(plan):
        plan.notes.append(line)
    print(plan.text(), flush=True)
    config_path = out / "advise.yaml"
    config_path.write_text(
        "# Written by rootparams advise: the study of one file. Rerun the same advise command to resume.\n"
        + yaml.safe_dump(plan.config(), sort_keys=False)
    )
    (out / "plan.json").write_text(
        json.dumps(
            {"asked": plan.asked, "tier": plan.tier, "repetitions": plan.repetitions, "copies": plan.copies,
             "made": plan.planned_on, "estimate_seconds": plan.estimate, "text": plan.text()},
            indent=2,
        )
    )  # fmt: skip
    if args.dry_run:
        print(f"advise: dry run; the study's configuration is {config_path}")
        return 0
    _reuse_build(out)
    start = time.monotonic()
    code = _run_workflow(plan, config_path, env or dict(os.environ), args.cores)
    tables = out / paths.TABLES
    if code != 0 and not all(
        (tables / Path(t).name).exists() for t in (paths.SUMMARY_TABLE, paths.COST_CHOICE_TABLE)
    ):
        return code
    if code != 0:
        print(
            "advise: some of the study's jobs failed (see above); the answer is made from what was measured"
        )
    answer = collect(plan)
    text = _answer_text(plan, answer)
    (out / "advise.md").write_text(text)
    _write_html(plan, answer, text, out / "advise.html")
    (out / "advise.json").write_text(json.dumps(_answer_json(plan, answer), indent=2, default=str) + "\n")
    wall = time.monotonic() - start
    print()
    print(text)
    print(
        f"advise: done in {minutes(wall)} (estimated {minutes(plan.estimate_seconds)}, budget "
        f"{minutes(plan.budget_seconds)}). The page: {out / 'advise.html'}"
    )
    if plan.quick:
        print("advise: " + _quick_caveat(plan.repetitions).replace("**", ""))
    return 0


def _environment_notes(plan: Plan) -> list[str]:
    """What this machine cannot do for the answer, said once, up front."""
    notes = []
    if os.geteuid() != 0:
        notes.append(
            "not root: each file is evicted from the page cache on its own (fdatasync + "
            "posix_fadvise DONTNEED) and verified with mincore; throttled storage profiles are not available, "
            "and the block-layer request counts are not recorded"
        )
    return notes


def _reuse_build(out: Path) -> None:
    """The checkout's C++ build, copied into the answer's directory when it has none (not compiled again)."""
    mine, theirs = out / paths.BUILD, CHECKOUT / paths.BUILD
    if not (mine / "build.json").exists() and (theirs / "build.json").exists():
        shutil.copytree(theirs, mine, dirs_exist_ok=True)


if __name__ == "__main__":
    sys.exit(main())
