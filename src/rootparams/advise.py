"""``rootparams advise FILE``: how should this file be written, for this storage? One command, the study's rules.

It runs the study's own workflow (Snakemake underneath, resumable) on a configuration made for the one file:

* the file **as it is**, read cold on the storage given, with the study's instrument and validity rules: what
  limits its reads now (rootparams.bottleneck: the storage, decompression or deserialisation);
* the file at the settings that matter (compression algorithm and level, TTree against RNTuple, cluster size):
  rewritten by ROOT where the file is large enough for valid timed windows, else through a **calibrated clone**
  (rootparams.calibrate: a synthetic file of the same content kinds, sizes and compression ratios, written with
  enough events that every timed window is valid). A small real file's own loops are too short to time a rate
  (a 100-event PHYSLITE file reads in tens of milliseconds), so the clone is how a sample becomes an answer;
* the study's decision (rootparams.decision) among those settings, with its uncertainty: the setting named only
  where it is cheapest in 95 % of the bootstrap replicates, ties said as ties.

The plan (points, files, repetitions) is fitted to a time budget before anything starts and printed with its
estimate; progress is shown with an estimate of the time left. The answer is printed and written to
``<out>/advise.md`` and ``<out>/advise.html`` (one page, the supporting figures inside); the whole study's
outputs stay in ``<out>/results/``.
"""

from __future__ import annotations

import argparse
import base64
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

from rootparams import bottleneck, inspection, labels, paths, sources
from rootparams.config import clone_autoflush
from rootparams.errors import UserError
from rootparams.vocabulary import RNTUPLE

# Where the workflow lives: beside the package in the checkout it was installed from (pip install -e .).
CHECKOUT = Path(__file__).resolve().parents[2]

DEFAULT_BUDGET = "20m"
# A calibrated clone is written with about this many compressed bytes: its timed loops then last 1-3 s on a local
# disk (PHYSLITE-like content reads at 4000-6000 events/s, NanoAOD-like at ~25000), above the 1 s minimum window.
CLONE_TARGET_BYTES = 100_000_000
CLONE_MAX_EVENTS = 400_000
# A file at least this large is rewritten by ROOT itself (its own content, its timed loops long enough).
REWRITE_MIN_BYTES = 100_000_000

# For the plan's estimate only (the progress line corrects it with the run's own pace): write speeds in MB/s of
# uncompressed data, as the default study measured them on a 2-core virtual machine (results/tables/files.csv,
# write_mb_per_s_uncompressed), by algorithm and level.
WRITE_MB_PER_S = {
    ("lz4", 1): 86, ("lz4", 5): 40, ("lz4", 9): 21,
    ("zlib", 1): 35, ("zlib", 5): 27, ("zlib", 9): 5,
    ("zstd", 1): 69, ("zstd", 5): 27, ("zstd", 9): 4,
    ("lzma", 1): 14, ("lzma", 5): 6, ("lzma", 9): 4,
    ("none", 0): 80,
}  # fmt: skip
# A calibrated clone's files are each generated from its recipe (the same events every time), at a cost per
# top-level branch and event that depends on the layout (a 2-core virtual machine, benchmarks/clone_generation.py,
# 1000 events: the PHYSLITE sample's clone, 1503 branches of xAOD objects, 0.45 ms per event; the CMS NanoAOD
# sample's, 947 flat arrays, 0.09 ms; a file of objects, not measured, is costed as xAOD objects). ROOT's own writing
# is in WRITE_MB_PER_S.
GENERATE_SECONDS_PER_BRANCH_EVENT = {
    inspection.XAOD: 0.3e-6,
    inspection.OBJECTS: 0.3e-6,
    inspection.FLAT: 0.1e-6,
}
# One repetition beyond its timed loop: eviction and its check, the reader's start and open, the monitor, the
# record (the default study: 1260 repetitions in 74 min of measuring, loops of 1.5-3 s).
REPETITION_OVERHEAD_SECONDS = 1.7
# Snakemake's start, the tables, the ~30 figures, the decision and the report; the calibration; a C++ build.
FIXED_SECONDS = 150
CALIBRATE_SECONDS = 40
BUILD_SECONDS = 240

# The plan's tiers, smallest first: the largest that fits the budget at 10 repetitions is taken (else the first,
# with fewer repetitions). Each adds to the one before.
ALGORITHMS = ["lz4", "zlib", "zstd", "lzma"]
CONTAINER_ALGORITHMS = ["lz4", "zlib", "zstd"]  # TTree against RNTuple, at level 5
TIERS = (
    ("algorithms at level 5, TTree and RNTuple", {"levels": [5], "autoflush": False}),
    ("and cluster sizes", {"levels": [5], "autoflush": True}),
    ("and level 1", {"levels": [1, 5], "autoflush": True}),
    ("and level 9", {"levels": [1, 5, 9], "autoflush": True}),
)
MIN_REPETITIONS, MAX_REPETITIONS = 3, 10


class AdviseError(UserError):
    """advise cannot go on; the message says why and what would work."""


def parse_duration(text: str) -> float:
    """'20m', '90s', '1h', '1h30m' or a number of seconds, in seconds."""
    s = str(text).strip().lower()
    if re.fullmatch(r"\d+(\.\d+)?", s):
        return float(s)
    parts = re.fullmatch(r"(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m(?:in)?)?(?:(\d+(?:\.\d+)?)s)?", s)
    if not s or not parts or not any(parts.groups()):
        raise AdviseError(f"--budget {text!r} is not a duration; give e.g. 20m, 1h, 1h30m, 900s or 900")
    h, m, sec = (float(g) if g else 0.0 for g in parts.groups())
    return 3600 * h + 60 * m + sec


def parse_size(text: str) -> float:
    """'150MB', '2GB', '500kB' or a number of bytes, in bytes."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmg]?)b?\s*", str(text).lower())
    if not m:
        raise AdviseError(
            f"--clone-size {text!r} is not a size; give e.g. 150MB, 1GB, 500kB or a number of bytes"
        )
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
    ):  # whole words while they fit: atlas_physlite_run2_ttbar_100ev -> ..._ttbar
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
    """What the plan needs to know of the file: sources.describe's description and rootparams.inspection's bytes
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
        return self.tot_bytes / self.zip_bytes if self.zip_bytes else math.nan

    def text(self) -> str:
        s = self.source
        algorithm, level = s.algorithm_level
        kind = "RNTuple" if s.container == RNTUPLE else "TTree"
        af = "" if s.container == RNTUPLE else f", AutoFlush {s.autoflush}"
        unit = "fields" if s.container == RNTUPLE else "branches"
        # Baskets kept inside the TTree object are compressed with its metadata: their own ratio is not known.
        ratio = "ratio not known" if self.inspection.in_tree_object else f"ratio {self.ratio:.2f}"
        return (
            f"{kind} {s.tree}, {s.entries} entries, {algorithm.upper()}-{level}{af}, {inspection.human(self.size_bytes)} "
            f"({inspection.human(self.zip_bytes / s.entries)}/event compressed, {ratio}, "
            f"{self.branches} top-level {unit})"
        )

    def kinds_text(self, top: int = 4) -> str:
        """The largest content kinds, with their share of the compressed bytes and their ratio."""
        ins = self.inspection
        kinds = sorted(ins.kinds, key=lambda k: k.compressed, reverse=True)[:top]
        return "; ".join(
            f"{k.kind} {100 * k.compressed / ins.compressed:.0f} % (ratio {k.uncompressed / k.compressed:.1f})"
            for k in kinds
            if k.compressed
        )


def file_facts(path: str) -> FileFacts:
    return FileFacts(sources.describe(path), inspection.inspect_file(path))


@dataclass
class Plan:
    file: str
    facts: FileFacts
    name: str  # the format of the file as it is
    made: str  # the format whose settings are scanned: the file itself (rewrites) or its clone
    approach: str  # "rewrite" or "clone"
    clone_events: int
    tier: str
    levels: list[int]
    autoflush: list[int]
    repetitions: int
    storage: str  # the directory the files are written to, or a root:// URL
    out: Path
    budget_seconds: float
    estimate: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    asked: dict[str, Any] = field(default_factory=dict)  # the command's options the plan was made for
    planned_on: str = field(
        default_factory=lambda: time.strftime("%Y-%m-%d %H:%M")
    )  # kept when a rerun resumes

    @property
    def estimate_seconds(self) -> float:
        return sum(self.estimate.values())

    @property
    def remote(self) -> bool:
        return self.storage.startswith(("root://", "roots://"))

    def points(self) -> list[tuple[str, str, int, int | None]]:
        """The file settings of the scanned format: (container, algorithm, level, autoflush or None)."""
        # The compression and cluster-size scans write the container of the file (its clone's default); the
        # container scan writes both at level 5, where both can be written.
        own = self.facts.source.container
        out = [(own, a, lv, None) for a in ALGORITHMS for lv in self.levels]
        if self.facts.flat and own != RNTUPLE:
            pass  # a flat ntuple's RNTuple (collections of records) is built neither by our writer nor by a rewrite
        elif self.approach == "clone" or own == RNTUPLE:
            out += [(c, a, 5, None) for a in CONTAINER_ALGORITHMS for c in ("ttree", "rntuple")]
        if own == RNTUPLE and self.approach == "rewrite":
            # An RNTuple can be rewritten at another compression only, not as a TTree.
            out = [("rntuple", a, 5, None) for a in CONTAINER_ALGORITHMS]
        algorithm, level = self.facts.source.algorithm_level
        out += [(own, algorithm, level, af) for af in self.autoflush]
        return list(dict.fromkeys(out))

    def config(self) -> dict[str, Any]:
        """The study configuration of this plan (a file of it is what Snakemake runs)."""
        s = self.facts.source
        algorithm, level = s.algorithm_level
        fmts: dict[str, Any] = {self.name: {"source": self.file, "read": s.entries}}
        if self.approach == "clone":
            fmts[self.made] = {
                "calibrate": self.file,
                "written": self.clone_events,
                "read": self.clone_events,
            }
            if s.container == RNTUPLE:
                fmts[self.made]["tree"] = s.tree
        if s.atlas_containers == 0:
            for f in fmts.values():
                f["branches"] = "all"  # no ATLAS particle containers: the reader reads every branch
        scans: dict[str, Any] = {
            # The file as it is, at the reader's defaults (TTreeCache on), and the scanned format's default read.
            "cache": {"formats": list(dict.fromkeys([self.name, self.made])), "cache_size": [-1]},
        }
        if not (s.container == RNTUPLE and self.approach == "rewrite"):
            scans["compression"] = {"formats": [self.made], "algorithm": ALGORITHMS, "level": self.levels}
        if any(p[0] == "rntuple" for p in self.points()):
            scans["container"] = {
                "formats": [self.made],
                "container": ["rntuple"]
                if s.container == RNTUPLE and self.approach == "rewrite"
                else ["ttree", "rntuple"],
                "algorithm": CONTAINER_ALGORITHMS,
                "level": [5],
            }
        if self.autoflush:
            scans["autoflush"] = {
                "formats": [self.made],
                "algorithm": [algorithm],
                "level": [level],
                "autoflush": self.autoflush,
            }
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
        s = self.facts.source
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
        settings = ", ".join(_setting_text(p) for p in self.points())
        if self.approach == "clone":
            made = (
                f"a calibrated clone of {self.clone_events} events (about "
                f"{inspection.human(self.clone_events * self.facts.zip_bytes / s.entries)}; the file itself is too small "
                "for valid timed windows, or ROOT cannot rewrite it)"
            )
        else:
            made = "the file rewritten by ROOT"
        lines += [
            f"  plan:      the file as it is, and {made}",
            f"             at {settings}",
            f"             {self.repetitions} repetitions per point, interleaved rounds ({self.tier})",
            f"  estimate:  {minutes(self.estimate_seconds)} ("
            + ", ".join(f"{k} {minutes(v)}" for k, v in self.estimate.items() if v >= 1)
            + f"); budget {minutes(self.budget_seconds)}",
            f"  outputs:   {self.out}/advise.md, {self.out}/advise.html, the study in {self.out}/results/",
        ]
        lines += [f"  note:      {n}" for n in self.notes]
        return "\n".join(lines)


def _setting_text(point: tuple[str, str, int, int | None]) -> str:
    container, algorithm, level, af = point
    name = "uncompressed" if algorithm == "none" else f"{algorithm.upper()}-{level}"
    text = f"RNTuple {name}" if container == "rntuple" else name
    if af is None:
        return text
    return f"{text}, {'clusters' if container == 'rntuple' else 'AutoFlush'} {labels.autoflush_label(af)}"


def _estimate(plan: Plan, build_present: bool) -> dict[str, float]:
    s = plan.facts.source
    events = plan.clone_events if plan.approach == "clone" else s.entries
    tot_per_event = plan.facts.tot_bytes / s.entries
    zip_per_event = plan.facts.zip_bytes / s.entries
    write = 0.0
    for _, algorithm, level, _ in plan.points():
        speed = WRITE_MB_PER_S.get((algorithm, level), WRITE_MB_PER_S.get((algorithm, 5), 20))
        write += events * tot_per_event / 1e6 / speed
    if plan.approach == "clone":  # every file's events generated from the recipe
        per_branch_event = GENERATE_SECONDS_PER_BRANCH_EVENT[plan.facts.inspection.layout]
        write += len(plan.points()) * events * plan.facts.branches * per_branch_event
    # A local disk reads ~150 MB/s of compressed bytes at these event sizes (decompression and deserialisation
    # included); the file as it is is read too (at the same pace per byte).
    loop_per_file = events * zip_per_event / 150e6
    read_points = len(plan.points()) + 1 + (1 if plan.approach == "clone" else 0)
    reads = plan.repetitions * (
        read_points * REPETITION_OVERHEAD_SECONDS
        + len(plan.points()) * loop_per_file
        + s.entries * zip_per_event / 150e6
    )
    out = {"writing": write, "reading": reads, "tables, figures, decision": FIXED_SECONDS}
    if plan.approach == "clone":
        out["calibration"] = CALIBRATE_SECONDS
    if not build_present:
        out["C++ build"] = BUILD_SECONDS
    return out


def make_plan(
    file: str,
    *,
    storage: str | None,
    budget_seconds: float,
    out: Path,
    approach: str = "auto",
    repetitions: int | None = None,
    clone_bytes: float = CLONE_TARGET_BYTES,
) -> Plan:
    facts = file_facts(file)
    s = facts.source
    name = format_name(file)
    notes: list[str] = []
    # The command's options the plan answers (a rerun with the same ones resumes it).
    asked = {"file": str(Path(file).resolve()), "storage": storage, "budget_seconds": budget_seconds,
             "approach": approach, "repetitions": repetitions, "clone_bytes": clone_bytes}  # fmt: skip
    if approach == "auto":
        approach = "rewrite" if facts.size_bytes >= REWRITE_MIN_BYTES else "clone"
        if approach == "clone":
            notes.append(
                f"the file holds {inspection.human(facts.zip_bytes)} of event data: its timed loops are shorter than "
                "a valid window, so its own rates are shown hollow and the settings are compared on its clone"
            )
    if approach == "rewrite" and s.container != RNTUPLE and s.atlas_containers:
        notes.append(
            "ROOT may refuse to rewrite ATLAS classes without their dictionaries; a refused rewrite is recorded "
            "and named in the run summary: then rerun with --clone"
        )
    per_event = facts.zip_bytes / s.entries
    clone_events = int(min(CLONE_MAX_EVENTS, max(s.entries, math.ceil(clone_bytes / per_event))))
    storage_dir = storage or str(out / "data")
    if storage and not storage.startswith(("root://", "roots://")):
        storage_dir = str(Path(storage).resolve() / f"rootparams-advise-{name}")
    build_present = (CHECKOUT / paths.BUILD_INFO).exists() or (out / paths.BUILD_INFO).exists()
    af_values = [] if (s.container == RNTUPLE and approach == "rewrite") else _autoflush_values(s, approach)

    def plan_of(tier: tuple[str, dict], reps: int) -> Plan:
        name_of_tier, spec = tier
        plan = Plan(
            file=str(Path(file).resolve()),
            facts=facts,
            name=name,
            made=f"{name}_clone" if approach == "clone" else name,
            approach=approach,
            clone_events=clone_events,
            tier=name_of_tier,
            levels=list(spec["levels"]),
            autoflush=af_values if spec["autoflush"] else [],
            repetitions=reps,
            storage=storage_dir,
            out=out,
            budget_seconds=budget_seconds,
            notes=notes,
        )
        plan.estimate = _estimate(plan, build_present)
        plan.asked = asked
        return plan

    # A rerun of the same command resumes the plan it made then (the estimate now, with files already written and
    # the build there, would be smaller and could choose a larger plan: the study would start over).
    previous = _previous_choice(out)
    if previous and previous.get("asked") == asked:
        tier = next((t for t in TIERS if t[0] == previous["tier"]), None)
        if tier is not None:
            plan = plan_of(tier, int(previous["repetitions"]))
            plan.planned_on = previous.get("made", plan.planned_on)
            notes.append(f"resuming the plan made on {plan.planned_on} in {out}")
            return plan
    # The largest tier that fits at full repetitions; else the smallest tier with fewer repetitions.
    options = [repetitions] if repetitions else list(range(MAX_REPETITIONS, MIN_REPETITIONS - 1, -1))
    fitting = [p for p in (plan_of(t, options[0]) for t in TIERS) if p.estimate_seconds <= budget_seconds]
    if fitting:
        return fitting[-1]
    for reps in options[1:]:
        plan = plan_of(TIERS[0], reps)
        if plan.estimate_seconds <= budget_seconds:
            return plan
    plan = plan_of(TIERS[0], options[-1])
    notes.append(
        f"even the smallest plan ({TIERS[0][0]}, {plan.repetitions} repetitions) is estimated at "
        f"{minutes(plan.estimate_seconds)}, beyond the budget: raise --budget, or let it run longer"
    )
    return plan


def _previous_choice(out: Path) -> dict[str, Any] | None:
    try:
        return json.loads((out / "plan.json").read_text())
    except (OSError, ValueError):
        return None


def _autoflush_values(s: sources.SourceFile, approach: str) -> list[int]:
    """Cluster sizes around the one the scanned files have by default: 100 and 1000 events, 10 MB and 30 MB
    (negative: bytes)."""
    own = sources.file_settings(s)
    default = clone_autoflush(own) if approach == "clone" else s.autoflush
    values = [100, 1000, -10_000_000, -30_000_000]
    return [v for v in values if v != default][:3]


# --- Running the workflow, with progress -------------------------------------------------------------------


def _job_weights(plan: Plan, jobs: dict[str, int]) -> dict[str, float]:
    """Each rule's estimated seconds per job, for the progress line's estimate of the time left (its pace is
    then the run's own): the plan's writing shared among the jobs that write files, its reading among the
    measuring blocks, a few seconds for every other job."""
    e = plan.estimate
    writers = (
        "generate_content",
        "generate_file",
        "rewrite_file",
        "generate_warmup_file",
        "generate_sentinel_file",
    )
    n_writers = sum(jobs.get(r, 0) for r in writers) or 1
    weights = {r: e["writing"] / n_writers for r in writers}
    weights["measure_block"] = e["reading"] / max(1, jobs.get("measure_block", 1))
    weights["build_cxx"] = e.get("C++ build", 10.0)
    weights["calibrate_recipe"] = e.get("calibration", 10.0) / max(1, jobs.get("calibrate_recipe", 1))
    return weights


def _block_weights(plan: Plan, jobs: dict[str, int]) -> dict[str, float]:
    """The measuring blocks' estimated seconds, by block: the file as it is is read at its own (small) size, the
    rest of the plan's reading is shared among the other blocks. Without this, the short block of the file as it
    is counted as half the reading, and the time left was underestimated once it had finished."""
    as_is = plan.repetitions * (REPETITION_OVERHEAD_SECONDS + plan.facts.zip_bytes / 150e6)
    others = max(1, jobs.get("measure_block", 1) - 1)
    rest = max(plan.estimate["reading"] - as_is, 0.0) / others
    return {plan.name: as_is, "": rest}


_DONE = re.compile(r"Finished jobid: (\d+) \(Rule: (\w+)\)")
_JOBID = re.compile(r"^\s+jobid: (\d+)\s*$")
_BLOCK = re.compile(r"^\s+wildcards: .*\bblock=([^,\s]+)")
_JOB_ROW = re.compile(r"^(\w+)\s+(\d+)\s*$")


def planned_jobs(workdir: Path, snakemake: list[str], env: dict[str, str]) -> dict[str, int]:
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


def run_workflow(plan: Plan, config_path: Path, env: dict[str, str], cores: int) -> int:
    """Snakemake on the plan's configuration in ``plan.out``, printing a progress line per finished job with an
    estimate of the time left; its whole output goes to ``<out>/advise.log``."""
    snakemake = [
        sys.executable, "-m", "snakemake", "-s", str(CHECKOUT / "Snakefile"), "-d", str(plan.out),
        "--configfile", str(config_path), "--cores", str(cores), "--rerun-incomplete", "--keep-going",
    ]  # fmt: skip
    jobs = planned_jobs(plan.out, snakemake, env)
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
class Answer:
    decision: list[dict[str, Any]]  # cost_choice rows of the scanned format
    as_is: dict[str, Any]  # the file as it is: rate, validity, bottleneck
    bottlenecks: dict[str, bottleneck.Bottleneck | None]  # by setting
    rates: list[dict[str, Any]]  # per scanned setting: size, ratio, read rate, n, valid
    figures: list[Path]
    run_summary: Path


def collect(plan: Plan) -> Answer:
    import pandas as pd  # here: the command's --help does not pay for it

    tables = plan.out / paths.TABLES
    choice = pd.read_csv(tables / "cost_choice.csv")
    choice = choice[choice["format"] == plan.made]
    reps = pd.read_csv(tables / "repetitions.csv", low_memory=False)
    summary = pd.read_csv(tables / "summary.csv", low_memory=False)
    files = pd.read_csv(tables / "files.csv")

    def rows_of(fmt: str, file_id: str, read_id: str):
        return reps[(reps["format"] == fmt) & (reps["file_id"] == file_id) & (reps["read_id"] == read_id)]

    rates = []
    bottlenecks: dict[str, bottleneck.Bottleneck | None] = {}
    merged = summary.merge(
        files[
            [
                "format",
                "file_id",
                "size_bytes",
                "compression_ratio",
                "bytes_per_event",
                "write_mb_per_s_uncompressed",
            ]
        ],
        on=["format", "file_id"],
        how="left",
    )
    for _, row in merged.iterrows():
        if row["format"] not in (plan.name, plan.made):
            continue
        label = (
            "as it is"
            if row["format"] == plan.name and str(row["file_id"]).startswith("asis")
            else _label(row)
        )
        b = bottleneck.classify(rows_of(row["format"], row["file_id"], row["read_id"]).to_dict("records"))
        bottlenecks[label] = b
        rates.append(
            {
                "setting": label,
                "format": row["format"],
                "cache_size": row.get("cache_size"),
                "bytes_per_event": row["bytes_per_event"],
                "compression_ratio": row["compression_ratio"],
                "rate": row["event_rate_hz_mean"],
                "rate_low": row["event_rate_hz_ci95_low"],
                "rate_high": row["event_rate_hz_ci95_high"],
                "n": int(row["n"]),
                "valid": bool(row["valid"]),
                "invalid_reasons": row.get("invalid_reasons") if not bool(row["valid"]) else "",
                "write_mb_per_s": row["write_mb_per_s_uncompressed"],
                "bottleneck": b.text() if b else "spans not recorded",
            }
        )
    as_is = next((r for r in rates if r["setting"] == "as it is"), {})
    # The figures of what advise scans (compression, cluster size, TTree against RNTuple) and of the decision.
    wanted = ("fig01", "fig02", "fig03", "fig04", "fig13", "fig14", "fig15", "fig30", "fig31")
    figures = [
        f for f in sorted((plan.out / paths.RESULTS / "figures").glob("*.png")) if f.name.startswith(wanted)
    ]
    return Answer(
        decision=choice.to_dict("records"),
        as_is=as_is,
        bottlenecks=bottlenecks,
        rates=rates,
        figures=figures,
        run_summary=plan.out / paths.RESULTS / "run_summary.md",
    )


def _label(row) -> str:
    """A measured setting's name, as the plan names its points (_setting_text): a TTree with its AutoFlush, an
    RNTuple with its cluster size unless it is RNTuple's own default (0)."""
    try:
        af: int | None = int(row["autoflush"])
    except (TypeError, ValueError):
        af = None
    if row["container"] == "rntuple" and af == 0:
        af = None
    return _setting_text((str(row["container"]), str(row["algorithm"]), int(row["level"]), af))


def answer_text(plan: Plan, a: Answer) -> str:
    s = plan.facts.source
    lines = [
        f"# How to write {Path(plan.file).name}",
        "",
        f"The file: {plan.facts.text()}. Its largest content kinds: {plan.facts.kinds_text()}.",
        "",
    ]
    if a.as_is:
        r = a.as_is
        valid = "" if r["valid"] else f" (not a valid timed window: {r['invalid_reasons']}; drawn hollow)"
        lines += [
            f"As it is, on {'your XRootD storage' if plan.remote else 'the storage given'}: {_rate_text(r)}{valid}.",
            f"What limits its reads: {r['bottleneck']}.",
        ]
        b = a.bottlenecks.get("as it is")
        if b is not None:
            lines.append(f"What could move it: {b.lever}.")
        lines.append("")
    where = "its calibrated clone" if plan.approach == "clone" else "the file rewritten by ROOT"
    lines += [f"## The decision (on {where}, at the study's prices)", ""]
    if not a.decision:
        lines.append("No decision: no setting had enough valid repetitions (see the run summary).")
    for d in a.decision:
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
    lines += ["", "## The settings measured", "",
              "| setting | file kB/event | ratio | events/s (95 % CI) | n | valid | write MB/s | what limits the read |",
              "|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for r in sorted(a.rates, key=lambda r: (r["format"] != plan.name, -(r["rate"] or 0))):
        lines.append(
            f"| {r['setting']} | {r['bytes_per_event'] / 1e3:.2f} | {r['compression_ratio']:.2f} | "
            f"{_rate_text(r, short=True)} | {r['n']} | "
            f"{'yes' if r['valid'] else 'no'} | {_or_dash(r['write_mb_per_s'], '.1f')} | {r['bottleneck']} |"
        )
    lines += [
        "",
        "file kB/event: the file's size on disk over its events (metadata included: a large part of a file of a "
        "few hundred events); ratio: uncompressed over compressed event data; write MB/s: uncompressed data.",
        "The costs are the study's (storage, write CPU and read CPU prices: config/README.md, decision); the "
        "intervals are 95 % intervals over the repetitions (rates) and bootstrap replicates over the interleaved "
        f"rounds (costs). The machine, its noise and the physics checks: {a.run_summary}.",
    ]
    if plan.approach == "clone":
        lines.append(
            f"The clone reproduces the file's content kinds, sizes and compression ratios ({s.entries} events "
            f"measured, {plan.clone_events} written); its absolute rates are those of the clone's content, its "
            "ranking of settings is the answer for the file."
        )
    return "\n".join(lines) + "\n"


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


def write_html(plan: Plan, a: Answer, markdown: str, path: Path) -> None:
    """One page: the answer, and the figures that support it (inside the page, so that it can be mailed)."""
    body = []
    for line in markdown.splitlines():
        if line.startswith("# "):
            body.append(f"<h1>{html.escape(line[2:])}</h1>")
        elif line.startswith("## "):
            body.append(f"<h2>{html.escape(line[3:])}</h2>")
        elif line.startswith("|---"):
            continue
        elif line.startswith("| "):
            cells = [html.escape(c.strip()) for c in line.strip("|").split("|")]
            tag = "th" if "setting" in cells[0] else "td"
            body.append("<tr>" + "".join(f"<{tag}>{c}</{tag}>" for c in cells) + "</tr>")
        elif line.startswith("- "):
            body.append(f"<li>{_bold(html.escape(line[2:]))}</li>")
        elif line:
            body.append(f"<p>{html.escape(line)}</p>")
    text = "\n".join(body)
    text = re.sub(r"((?:<tr>.*</tr>\n?)+)", r"<table>\1</table>", text)
    text = re.sub(r"((?:<li>.*</li>\n?)+)", r"<ul>\1</ul>", text)
    figures = "".join(
        f'<figure><img src="data:image/png;base64,{base64.b64encode(f.read_bytes()).decode()}" '
        f'alt="{html.escape(f.stem)}"><figcaption>{html.escape(f.stem)}</figcaption></figure>'
        for f in a.figures
    )
    path.write_text(
        "<!doctype html><html><head><meta charset='utf-8'><title>rootparams advise</title><style>"
        "body{font-family:sans-serif;max-width:1100px;margin:2em auto}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:3px 8px;font-size:90%}img{max-width:100%}</style></head><body>"
        f"{text}<h2>Figures</h2>{figures or '<p>none</p>'}</body></html>\n"
    )


def _bold(text: str) -> str:
    return re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", text)


# --- The command -------------------------------------------------------------------------------------------


def build_parser(prog: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog,
        description="How should this ROOT file be written, for this storage? Inspects the file, measures it as "
        "it is (cold, with the study's instrument), measures it at the settings that matter (rewritten by ROOT, or "
        "a calibrated clone when the file is small or ROOT cannot rewrite it), and prints the decision with its "
        "uncertainty. Runs the study's workflow underneath: rerun the same command to resume.",
    )
    p.add_argument(
        "file",
        help="a ROOT file with a TTree or an RNTuple: a local path, or skhep_testdata:<name> for a public sample "
        "(e.g. skhep_testdata:uproot-issue-123b.root, an ATLAS PHYSLITE file)",
    )
    p.add_argument(
        "--storage",
        help="where the files are written and read: a directory on the storage you want the answer for (default: "
        "<out>/data), or root://host[:port]//dir/ of your own XRootD server (files copied there with xrdcp)",
    )
    p.add_argument(
        "--budget", default=DEFAULT_BUDGET, help="the time the answer may take (default %(default)s)"
    )
    p.add_argument("--out", help="the directory of the answer and its study (default: advise/<file name>)")
    p.add_argument("--clone", dest="approach", action="store_const", const="clone", default="auto",
                   help="compare settings on a calibrated clone even when the file is large")  # fmt: skip
    p.add_argument("--rewrite", dest="approach", action="store_const", const="rewrite",
                   help="compare settings on the file rewritten by ROOT even when it is small")  # fmt: skip
    p.add_argument(
        "--clone-size",
        default="100MB",
        help="the calibrated clone's compressed size (default %(default)s: timed loops of 1-4 s on a local disk; "
        "smaller is faster and its windows may be too short to be valid)",
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
        budget = parse_duration(args.budget)
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
        plan = make_plan(
            args.file,
            storage=args.storage,
            budget_seconds=budget,
            out=out,
            approach=args.approach,
            repetitions=args.repetitions,
            clone_bytes=parse_size(args.clone_size),
        )
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
            {"asked": plan.asked, "tier": plan.tier, "repetitions": plan.repetitions, "made": plan.planned_on,
             "estimate_seconds": plan.estimate, "text": plan.text()},
            indent=2,
        )
    )  # fmt: skip
    if args.dry_run:
        print(f"advise: dry run; the study's configuration is {config_path}")
        return 0
    _reuse_build(out)
    start = time.monotonic()
    code = run_workflow(plan, config_path, env or dict(os.environ), args.cores)
    if code != 0:
        return code
    answer = collect(plan)
    text = answer_text(plan, answer)
    (out / "advise.md").write_text(text)
    write_html(plan, answer, text, out / "advise.html")
    wall = time.monotonic() - start
    print()
    print(text)
    print(
        f"advise: done in {minutes(wall)} (estimated {minutes(plan.estimate_seconds)}, budget "
        f"{minutes(plan.budget_seconds)}). The page: {out / 'advise.html'}"
    )
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
