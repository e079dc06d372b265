"""Warm reads: the CPU a read costs without any storage wait, measured apart from the cold reads it helps predict.

A point's cold timed loop is storage time + decompression + deserialisation (- their overlap). The two CPU parts
are measured here by *warm* reads: the file wholly in the page cache (read once, then verified with mincore), the
same C++ reader in a fresh child of the same fork server, the same read settings and event count as the study's
point, under the same host lock, right after the block's cold rounds (rootparams.measure.measure.measure_block). What they
give per *warm set* (one file at one CPU-relevant read setting):

- ``unzip_cpu_s_per_mb_uncompressed``: ROOT's decompression time (PerfStats' unzip time; in the reading thread,
  on an otherwise idle core, that is its CPU time) per MB it put out;
- ``deser_cpu_us_per_event``: the loop's CPU time outside decompression per event (the quantity
  rootparams.decide.instrument_checks.outside_unzip_us_per_event computes on a cold record): streaming, object building, the
  TTreeCache's copies;
- ``warm_rate_hz``: events per second of the warm loop.

A warm set is a distinct (file, branch selection, threads, reading style, TTreeCacheUnzip, events). The read
settings that only change the I/O (storage profile, TTreeCache size, learn entries, cluster bunch, asynchronous
prefetching) are left out: they decide how the bytes come from storage, not what the CPU does with them, so one
warm set stands for every point that differs only in them, and its warm reads are made with the fixed I/O
settings WARM_IO. (ROOT's decompression works basket by basket, so its cost per byte does not depend on the cache;
the CPU outside it does a little: with the cache off, every basket is a read call of its own. The records keep
``read_calls``, so that a model can add a per-call cost for such points.)

These figures are of each file's own mix of content; ROOT's decompression per content kind
(rootparams.ownfile.contentkinds) is a primitive of its own, rootparams.measure.unzipkinds.
"""

from __future__ import annotations

import hashlib
import json
import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from rootparams.stats.intervals import Interval
from rootparams.study.grid import READING_STYLE_TOKENS, ReadPoint
from rootparams.tools import paths

# The read settings of a warm read that only change the I/O, and the values every warm read is made with: the
# TTreeCache (or RNTuple's cluster cache) on at one cluster, ROOT's own learn entries, no prefetching, the local
# file without a throttle. The TTreeCache on is how the study reads by default, and it makes one read call per
# cluster, so that the CPU outside decompression holds as little I/O bookkeeping as the reader allows.
WARM_IO = {
    "cache_size": -1,
    "learn_entries": "default",
    "cluster_bunch": 1,
    "async_prefetch": False,
    "storage_profile": "native",
}
# The read settings (and read attributes) that make a warm set, besides the file and the event count.
_WARM_READ_KEYS = ("branches", "threads", "reading_style", "unzip", "container", "tree")
# A warm read is made only when at least this share of the file's pages is in the page cache (verified with
# mincore just before the read); below it the read is flagged and tried again: a warm read must wait for no
# storage.
_MIN_RESIDENT_FRACTION = 0.999
# Bytes a warm read may fetch from storage (the reader's /proc/<pid>/io): a page or two of metadata the kernel
# dropped meanwhile. More, and the read waited for storage and is flagged.
_MAX_STORAGE_BYTES = 1 << 20
# The measurement settings that change how a warm read is made (the others judge or schedule reads, or concern
# cold reads only): a kept warm record is reused only when these are unchanged.
_WARM_MAKING_KEYS = ("reader_process", "memory_probe_loads", "hold_free_page_reporting")
# What a kept warm record must match to be reused by a rerun (besides its place, which names the set).
_WARM_IDENTITY_KEYS = (
    "format",
    "file_id",
    "warm_id",
    "events_requested",
    "file_size_bytes",
    "file_mtime_ns",
    "warm_measurement_key",
)
# The labels of a point that are not the warm set's: its cold read's identity and I/O settings.
_POINT_ONLY_LABELS = ("read_id", "measurement_key", *WARM_IO)


@dataclass(frozen=True)
class WarmSet:
    """One file at one CPU-relevant read setting (module docstring): the read its warm reads make, what every
    warm record of it carries (``labels``), where warm read ``k``'s record goes (``records[k]``), and the read
    ids of the study's points it stands for."""

    root_file: str
    events: int
    read: dict[str, Any]
    labels: dict[str, Any]
    records: dict[int, str]
    stands_for: tuple[str, ...] = field(default=())

    @property
    def name(self) -> str:
        return f"{self.labels.get('format', '')} {self.labels['file_id']} {self.labels['warm_id']}".strip()


def _warm_key(point: Any) -> tuple:
    """The warm set a planned point (rootparams.measure.measure.PlannedPoint) belongs to: its file and the read settings
    that change the CPU's work."""
    return (
        point.root_file,
        int(point.events),
        *(json.dumps(point.read.get(key), sort_keys=True) for key in _WARM_READ_KEYS),
    )


def warm_id(read: Mapping[str, Any], events: int) -> str:
    """A set's name within its file: threads, TTreeCacheUnzip, reading style, branch selection and events, with
    the read ids' own tokens (rootparams.study.grid.ReadPoint)."""
    token = ReadPoint(-1, "default", int(read["threads"]), str(read["branches"]), "native").branches_token
    unzip = "_unzip" if read.get("unzip") else ""
    style = READING_STYLE_TOKENS[read.get("reading_style", "getentry")]
    return f"warm_mt{read['threads']}{unzip}{style}_{token}_ev{events}"


def warm_measurement_key(measurement: Mapping[str, Any]) -> str:
    """The key of the settings that make a warm read: WARM_MAKING_KEYS and WARM_IO."""
    making = {k: measurement.get(k) for k in _WARM_MAKING_KEYS}
    settings = json.dumps({**making, "io": WARM_IO}, sort_keys=True, default=str)
    return hashlib.sha1(settings.encode()).hexdigest()[:12]


def _warm_records_dir(point: Any, set_id: str) -> Path:
    """Where a set's warm records go: paths.warm_record for a point of the study; for points measured on their
    own (tests, benchmarks), whose records lie one directory per point under a common one, a ``warm`` directory
    there, per file: every point of the set finds the same place."""
    labels = point.labels
    file_id = labels.get("file_id", Path(point.root_file).stem)
    if "format" in labels:
        return Path(paths.warm_record(labels["format"], file_id, set_id, 0)).parent
    return Path(point.records[min(point.records)]).parent.parent / "warm" / file_id / set_id


def choose_warm_sets(points: Sequence[Any], reads: int, measurement: Mapping[str, Any]) -> list[WarmSet]:
    """The warm sets of a block's planned points, in the order of their first point, each with ``reads`` warm
    reads; none where ``reads`` is 0."""
    if reads <= 0:
        return []
    groups: dict[tuple, list[Any]] = {}
    for p in points:
        groups.setdefault(_warm_key(p), []).append(p)
    out = []
    for members in groups.values():
        first = members[0]
        set_id = warm_id(first.read, first.events)
        where = _warm_records_dir(first, set_id)
        labels = {k: v for k, v in first.labels.items() if k not in _POINT_ONLY_LABELS}
        labels.setdefault("file_id", Path(first.root_file).stem)
        labels.update(
            {
                **WARM_IO,
                "warm_id": set_id,
                "events_requested": first.events,
                "warm_measurement_key": warm_measurement_key(measurement),
            }
        )
        read = {**first.read, **WARM_IO}
        out.append(
            WarmSet(
                root_file=first.root_file,
                events=first.events,
                read=read,
                labels=labels,
                records={k: str(where / f"warm{k}.json") for k in range(reads)},
                stands_for=tuple(sorted({str(p.labels.get("read_id", "")) for p in members} - {""})),
            )
        )
    return out


def reusable_warm_record(path: str, labels: Mapping[str, Any]) -> dict[str, Any] | None:
    """The warm record at ``path`` if an earlier run took it under the same identity (WARM_IDENTITY_KEYS), else
    None."""
    try:
        with open(path) as f:
            record = json.load(f)
    except (OSError, ValueError):
        return None
    if all(record.get(k) == labels.get(k) for k in _WARM_IDENTITY_KEYS if k in labels):
        return record
    return None


def kept_warm_records(warm: WarmSet) -> dict[int, dict[str, Any]]:
    return {
        k: r for k, path in warm.records.items() if (r := reusable_warm_record(path, warm.labels)) is not None
    }


def warm_flag_reasons(record: Mapping[str, Any]) -> list[str]:
    """Why a warm read did not read from memory alone (empty when it did): the file was not wholly resident
    just before the read, or the reader fetched bytes from storage."""
    reasons = []
    resident = record.get("resident_fraction_before")
    # None: the record holds no verification; NaN: a user's endpoint serves the file, its cache is not ours.
    if resident is not None and resident == resident and resident < _MIN_RESIDENT_FRACTION:
        reasons.append(
            f"not warm: {resident:.2%} of the file's pages were in the page cache before the read "
            f"(a warm read needs {_MIN_RESIDENT_FRACTION:.1%})"
        )
    fetched = record.get("process_storage_read_bytes", 0) or 0
    if fetched > _MAX_STORAGE_BYTES:
        reasons.append(
            f"not warm: the reader fetched {fetched / 1e6:.1f} MB from storage "
            f"(a warm read may fetch {_MAX_STORAGE_BYTES / 1e6:.1f} MB)"
        )
    return reasons


# The primitives ---------------------------------------------------------------------------------------------


# On a shared virtual machine a slow spell of the host slows a whole warm read (its loop by 30-70 %, its
# decompression per MB by 10-30 %), one read at a time, so pairing reads by round does not remove it, while the
# other reads' loops stay within 7 % of each other; the memory probe around the reads does not tell them apart. A
# read whose loop took more than SLOW_SPELL_FACTOR times its set's median loop counts as made in a spell (the
# median: a bound on the fastest read leaves out all but two reads when that one was unusually fast).
_SLOW_SPELL_FACTOR = 1.15


def outside_slow_spells(records: Iterable[Mapping[str, Any]], factor: float = _SLOW_SPELL_FACTOR) -> list:
    """The unflagged warm reads of one set whose loop took at most `factor` times the set's median loop."""
    good = [r for r in records if not r.get("flagged")]
    if not good:
        return []
    median = statistics.median(r["loop_seconds"] for r in good)
    return [r for r in good if r["loop_seconds"] <= factor * median]


def unzip_cpu_s_per_mb_uncompressed(record: Mapping[str, Any]) -> float:
    """Seconds of ROOT's decompression per MB (1e6 bytes) it put out, over the loop."""
    out = _number(record.get("loop_unzip_output_bytes"))
    if not out > 0:
        return math.nan
    return _number(record.get("loop_unzip_seconds")) / out * 1e6


def deser_cpu_us_per_event(record: Mapping[str, Any]) -> float:
    """The loop's CPU microseconds per event outside decompression (rootparams.decide.instrument_checks.outside_unzip_us_per_event,
    the same formula on a cold record)."""
    events = _number(record.get("events_read")) or math.nan
    return (
        1e6 * (_number(record.get("loop_cpu_seconds")) - _number(record.get("loop_unzip_seconds"))) / events
    )


def _number(value: Any) -> float:
    """A record's figure, NaN where the reader did not record it (None: e.g. no PerfStats for the reading
    style)."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


# The columns of results/primitives/cpu.csv, one row per warm read: the set, the read, and the primitives.
_SET_COLUMNS = [
    "format",
    "file_id",
    "warm_id",
    "container",
    "algorithm",
    "level",
    "split_level",
    "autoflush",
    "basket_size",
    "branches",
    "threads",
    "reading_style",
    "unzip",
    "events_requested",
    "stands_for_read_ids",
]
READ_COLUMNS = {
    # column: the record's key
    "warm_rep": "warm_rep",
    "warm_round": "warm_round",
    "round_key": "round_key",
    "attempt": "attempt",
    "flagged": "flagged",
    "flag_reasons": "flag_reasons",
    "cache_size": "cache_size",
    "learn_entries": "learn_entries",
    "warm_loop_seconds": "loop_seconds",
    "warm_loop_cpu_seconds": "loop_cpu_seconds",
    "warm_loop_system_cpu_seconds": "loop_system_cpu_seconds",
    "unzip_seconds": "loop_unzip_seconds",
    "unzip_input_bytes": "loop_unzip_input_bytes",
    "unzip_output_bytes": "loop_unzip_output_bytes",
    "events_read": "events_read",
    "read_calls": "loop_read_calls",
    "bytes_read": "loop_bytes_read",
    "resident_fraction": "resident_fraction_before",
    "resident_fraction_after": "resident_fraction_after",
    "storage_read_bytes": "process_storage_read_bytes",
    "storage_requests": "storage_requests",
    "cpu_busy_during": "cpu_busy_during",
    "cpu_steal_during": "cpu_steal_during",
    "memory_probe_before_seconds": "memory_probe_before_seconds",
    "memory_probe_after_seconds": "memory_probe_after_seconds",
    "memory_probe_slowdown": "memory_probe_slowdown",
    "process_start_time": "process_start_time",
    "end_time": "end_time",
}
PRIMITIVES = (
    "unzip_cpu_s_per_mb_uncompressed",
    "deser_cpu_us_per_event",
    "warm_rate_hz",
    "memory_latency_ns",
    "system_cpu_us_per_event",
)


def cpu_table(records: Iterable[Mapping[str, Any]], probe_loads: int | None = None) -> pd.DataFrame:
    """One row per warm read: the set's settings, the read's figures (READ_COLUMNS) and its primitives. The host's
    memory latency (``memory_latency_ns``): the memory probe just before the read (the reader server's chain of
    ``probe_loads`` dependent loads through 64 MB: measurement.memory_probe_loads) per load; NaN without a probe."""
    rows = []
    for r in records:
        row = {c: r.get(c) for c in _SET_COLUMNS}
        row.update({c: r.get(key) for c, key in READ_COLUMNS.items()})
        row["unzip_cpu_s_per_mb_uncompressed"] = unzip_cpu_s_per_mb_uncompressed(r)
        row["deser_cpu_us_per_event"] = deser_cpu_us_per_event(r)
        row["warm_rate_hz"] = _number(r.get("events_read")) / (_number(r.get("loop_seconds")) or math.nan)
        # The kernel's share of the warm loop (its read calls from the page cache): a cold read's beyond it is the
        # page-cache fill (rootparams.model.model).
        row["system_cpu_us_per_event"] = (
            1e6 * _number(r.get("loop_system_cpu_seconds")) / (_number(r.get("events_read")) or math.nan)
        )
        row["memory_latency_ns"] = (
            1e9 * _number(r.get("memory_probe_before_seconds")) / probe_loads if probe_loads else math.nan
        )
        rows.append(row)
    columns = [*_SET_COLUMNS, *READ_COLUMNS, *PRIMITIVES]
    table = pd.DataFrame(rows, columns=columns)
    return table.sort_values(["format", "file_id", "warm_id", "warm_rep"], kind="stable").reset_index(
        drop=True
    )


def cpu_summary(table: pd.DataFrame) -> pd.DataFrame:
    """One row per warm set: each primitive's mean over the set's unflagged warm reads, its 95 % interval
    (rootparams.stats.intervals.Interval) and n, and how many reads were flagged. A warm loop shorter than the cold reads'
    minimum window is kept: the rate of a warm loop is not judged here, only CPU per byte and per event, which
    PerfStats and the reader's CPU clock resolve far below a second."""
    rows = []
    for _, group in table.groupby(["format", "file_id", "warm_id"], sort=True, dropna=False):
        good = group[~group["flagged"].astype(bool)]
        row = {c: group[c].iloc[0] for c in _SET_COLUMNS}
        row["n_flagged"] = int(group["flagged"].astype(bool).sum())
        row["unzip_output_bytes"] = good["unzip_output_bytes"].median() if len(good) else math.nan
        row["read_calls"] = good["read_calls"].median() if len(good) else math.nan
        row["resident_fraction_min"] = good["resident_fraction"].min() if len(good) else math.nan
        for name in PRIMITIVES:
            interval = Interval.of(good[name])
            row[f"{name}_mean"] = interval.mean
            row[f"{name}_ci95_low"] = interval.low
            row[f"{name}_ci95_high"] = interval.high
            row[f"{name}_n"] = interval.n
        rows.append(row)
    columns = [
        *_SET_COLUMNS,
        "n_flagged",
        "unzip_output_bytes",
        "read_calls",
        "resident_fraction_min",
        *(f"{name}_{s}" for name in PRIMITIVES for s in ("mean", "ci95_low", "ci95_high", "n")),
    ]
    return pd.DataFrame(rows, columns=columns)


def records_of_blocks(blocks: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Every warm record the block records list (their ``warm_sets``), each with the read ids of the study's
    points its set stands for now (``stands_for_read_ids``, ";"-joined): a kept record may predate a scan."""
    out = []
    for block in blocks:
        for warm in block.get("warm_sets", []):
            for path in warm["records"]:
                with open(path) as f:
                    record = json.load(f)
                record["stands_for_read_ids"] = ";".join(warm["stands_for_read_ids"])
                out.append(record)
    return out
