"""The timed reads of a block of grid points (a format's): make each file cold, read it in a fresh native process
under TTreePerfStats while dool samples the system, check the conditions, and write one record per repetition.

Once per block (docs/measurement.md has the reasons and the measured costs):
 1. take the host's timed-read lock and start watching the workflow (exclusive.py): no other timed read runs
    on this host meanwhile, and the job stops at once if the Snakemake that started it is killed; optionally
    (measurement.hold_free_page_reporting), hold a VM's free page reporting to its host off (hostmemory.py);
 2. start dool (one monitor for the whole block; each repetition's samples are picked out afterwards by its
    recorded span), a blkio group per storage profile, a server per remote profile, and the reader's fork
    server: ROOT's start-up is paid here once, and every read is made by a child forked from the initialized
    server, which has never opened a data file (``measurement.reader_process: exec`` makes one process per read instead).
Then in rounds (schedule): repetition k of every point before repetition k+1 of any, each round in a shuffled
order, so that a slow spell of the host falls on every point alike (with ``measurement.eviction: system``, each
round starts with the paper's drop_caches and a warm-up read). For each repetition:
 3. evict the file under test (fdatasync + POSIX_FADV_DONTNEED) and verify with mincore, immediately before
    the read, that none of its pages is resident;
 4. read it: the child joins its profile's blkio group, opens the file and reads N events; the reader reports
    every metric per span (process, open, loop, note_window: read_collection_tree.cxx). Around it the harness
    reads /proc/stat (what other processes and the hypervisor took), the group's block-layer counters
    (requests and bytes this read sent to the disk) and the disk's own counters (what others read);
 5. flag what was not as it should be (busy machine, CPU steal, other processes reading the disk, the kernel's
    bytes not matching ROOT's), try again if so (up to measurement.attempts), judge whether the timed loop
    holds the read's I/O (window validity), and write the record atomically.
Between reads the drift sentinel (one reference point of the study) is read every sentinel.every_seconds. After
the rounds, a point short of unflagged repetitions has its flagged ones measured again (makeup_rounds). With
measurement.warm_reads, the block's warm sets are then read warm (the file verified resident, rootparams.measure.cpu_primitives):
the CPU primitives, from the same files, server and lock. Finally the monitor's samples are attributed to each
record's loop span, and the records completed.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import platform
import random
import re
import socket
import sys
import time
from collections.abc import Callable, Iterable
from contextlib import ExitStack
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from rootparams.host import hostmemory, pagecache, remote, storage
from rootparams.host.exclusive import DEFAULT_LOCK, HostLock, Lifeline
from rootparams.host.monitor import (
    Monitor,
    MonitorCSVError,
    find_monitor,
    parse_monitor_csv,
    summarize_window,
)
from rootparams.measure import cpu_primitives
from rootparams.stats.intervals import MIN_PAIRS, Interval, ratio_paired, t_quantile
from rootparams.tools import paths
from rootparams.tools.processes import DamagedFileError, ReaderServer, ToolError, exec_read, run_tool
from rootparams.tools.records import read_json, write_json_atomic
from rootparams.vocabulary import TTREE, required_repetitions

# Below this many bytes read, the kernel's and ROOT's byte counts are not compared (a few pages of
# read-ahead would dominate the ratio).
_CROSSCHECK_MIN_BYTES = 4 << 20
# Disk bytes read by other processes during a read that are tolerated (the blkio group counts at dispatch,
# /proc/diskstats at completion, so a read-ahead request in flight at either end can shift a few MB).
_OTHERS_DISK_TOLERANCE_BYTES = 16 << 20


class ReadError(ToolError):
    """A timed read failed; the message names the file and ROOT's complaint."""


def _columns_key(path: str, read: dict[str, Any]) -> tuple[str, str, str]:
    """What a columnar read's branches depend on: the file read, its selection and its tree."""
    return path, str(read["branches"]), str(read.get("tree") or "")


def _reader_args(
    path: str, events: int, read: dict[str, Any], disk_device: str | None = None
) -> dict[str, Any]:
    """The reader's options for one timed read of ``path`` at the read point ``read`` (its ``container``, the
    file's, may be "auto": the reader looks). With ``disk_device`` ("major:minor" of the disk holding the
    file), the spans also count the bytes that disk completed."""
    learn = -1 if read["learn_entries"] == "default" else int(read["learn_entries"])
    args = {
        "file": path,
        "events": events,
        "container": read.get("container", TTREE),
        "branches": read["branches"],
        "cache-size": read["cache_size"],
        "learn-entries": learn,
        "cluster-bunch": read.get("cluster_bunch", 1),
        "async-prefetch": int(bool(read.get("async_prefetch", False))),
        "unzip": int(bool(read.get("unzip", False))),
        "threads": read["threads"],
    }
    if read.get("tree"):  # a source file's own tree or RNTuple (the reader's default is CollectionTree)
        args["tree"] = read["tree"]
    if disk_device:
        args["disk-device"] = disk_device
    return args


def reader_command(
    reader: str, path: str, events: int, read: dict[str, Any], disk_device: str | None = None
) -> list[str]:
    """The same options as a command line, for a reader process of its own."""
    args = _reader_args(path, events, read, disk_device)
    return [reader, *(x for k, v in args.items() for x in (f"--{k}", str(v)))]


def _uproot_command(
    path: str, events: int, read: dict[str, Any], columns: str, disk_device: str | None = None
) -> list[str]:
    """One uproot read (rootparams.tools.uproot_read) in a Python process of its own: the same interpreter as the
    harness, so the same uproot, awkward and numpy."""
    cmd = [
        sys.executable,
        "-m",
        "rootparams.tools.uproot_read",
        "--file",
        path,
        "--events",
        str(events),
        "--tree",
        read.get("tree") or "CollectionTree",
        "--branches",
        columns,
    ]
    if disk_device:
        cmd += ["--disk-device", disk_device]
    return cmd


@dataclass(frozen=True)
class CpuTimes:
    """/proc/stat's first line (all CPUs, in clock ticks)."""

    busy: int
    steal: int
    total: int

    @classmethod
    def now(cls) -> CpuTimes:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
        idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
        steal = fields[7] if len(fields) > 7 else 0
        total = sum(fields[:8])
        return cls(total - idle - steal, steal, total)


def _cpu_use_between(before: CpuTimes, after: CpuTimes, reader_cpu_seconds: float) -> tuple[float, float]:
    """(busy, steal) as fractions of all CPUs' time between two snapshots: busy is what processes other than
    the reader used (the reader's own CPU time is subtracted), steal what the hypervisor gave to other
    machines. They are told apart because they have different causes and remedies."""
    total = after.total - before.total
    if total <= 0:
        return 0.0, 0.0
    reader_ticks = reader_cpu_seconds * os.sysconf("SC_CLK_TCK")
    busy = max(0.0, (after.busy - before.busy - reader_ticks) / total)
    return min(busy, 1.0), (after.steal - before.steal) / total


def _host_fingerprint() -> dict[str, str]:
    return {
        "host": socket.gethostname(),
        "kernel": platform.release(),
        "slurm_job_id": os.environ.get("SLURM_JOB_ID", ""),
        "slurm_node": os.environ.get("SLURMD_NODENAME", ""),
    }


# Measurement settings that do not change how a read is made, only how it is judged or scheduled: a change of
# these keeps the repetitions already taken.
_JUDGING_KEYS = (
    "min_window_io_share",
    "min_window_seconds",
    "window_by_scan",
    "min_repetitions",
    "makeup_rounds",
    "sentinel",
    "order",
    "host_lock",
)
# Measurement settings of what a block measures besides its cold reads: a change of these keeps the cold
# repetitions already taken (measurement.warm_reads: the warm reads of rootparams.measure.cpu_primitives, with an identity of
# their own).
# measurement.adaptive chooses which points get how many repetitions, not how a read is made; so do the passes and
# the sequential rounds (when, and how many), whose records every pass must recognise as the point's.
_ALONGSIDE_KEYS = (
    "warm_reads",
    "adaptive",
    "passes",
    "target_half_width",
    "max_repetitions",
    "sequential_budget_seconds",
)
# Measurement settings of jobs other than the blocks (measurement.storage_primitives: how much the rule
# storage_primitives measures; measurement.cpu_reference_runs: the rule cpu_reference's runs of 7-Zip), never part
# of a point's read: the key leaves them out, so that records kept before they existed, or under other values, are
# reused. The workflow gives the blocks, tables and figures the settings without them (reads_measurement).
ELSEWHERE_KEYS = ("storage_primitives", "cpu_reference_runs")


def reads_measurement(measurement: dict[str, Any]) -> dict[str, Any]:
    """The measurement settings of the reads, for the blocks, tables and figures: without those that size other
    jobs (ELSEWHERE_KEYS), so that a study that sets them, or did not have them, runs none of those jobs again."""
    return {k: v for k, v in measurement.items() if k not in ELSEWHERE_KEYS}


def measurement_key(measurement: dict[str, Any], storage_profile: str) -> str:
    """The key of the settings that make a point's read: every measurement setting but the judging ones, and of the
    study's own storage profiles only the one the point reads on, so that redefining a profile re-measures the
    points on it and no others. (For a point on a built-in profile the key is the one kept records carry from
    before profiles were keyed per point.)"""
    left_out = (*_JUDGING_KEYS, *_ALONGSIDE_KEYS, *ELSEWHERE_KEYS)
    making = {k: v for k, v in measurement.items() if k not in left_out}
    own = measurement.get("storage_profiles") or {}
    if "storage_profiles" in making:
        making["storage_profiles"] = {storage_profile: own[storage_profile]} if storage_profile in own else {}
    settings = json.dumps(making, sort_keys=True, default=str)
    return hashlib.sha1(settings.encode()).hexdigest()[:12]


def point_identity(
    catalogue: dict[str, Any], measurement: dict[str, Any], storage_profile: str
) -> dict[str, Any]:
    """What a kept repetition record must match to be reused by a rerun: the very file, as its catalogue entry
    describes it (its size and the modification time it had when it was catalogued, so that a file written again
    is measured again, and a measured file may be removed without its records losing their identity), and the
    settings that make its read (measurement_key)."""
    mtime = catalogue.get("file_mtime_ns")
    if mtime is None:  # a catalogue entry from before it recorded the time: the file itself
        mtime = os.stat(catalogue["path"]).st_mtime_ns
    return {
        "file_size_bytes": catalogue["size_bytes"],
        "file_mtime_ns": mtime,
        "measurement_key": measurement_key(measurement, storage_profile),
    }


_IDENTITY_KEYS = (
    "file_id",
    "read_id",
    "events_requested",
    "file_size_bytes",
    "file_mtime_ns",
    "measurement_key",
)


def _reusable_record(path: str, labels: dict[str, Any]) -> dict[str, Any] | None:
    """The record at ``path`` if an earlier run took it under the same identity, else None."""
    try:
        with open(path) as f:
            record = json.load(f)
    except (OSError, ValueError):
        return None  # absent, or cut short by a crash (records are written atomically, so rarely)
    if all(record.get(k) == labels.get(k) for k in _IDENTITY_KEYS if k in labels):
        return record
    return None


def attach_monitor(record: dict[str, Any], samples) -> dict[str, Any]:
    """The record with the monitor's samples over its loop and process spans (mon_*), marked complete."""
    window = summarize_window(samples, record["loop_start_time"], record["end_time"])
    process = summarize_window(samples, record["process_start_time"], record["end_time"])
    return {
        **record,
        **{f"mon_{k}": v for k, v in window.items()},
        "mon_process_disk_read_bytes": process.get("disk_read_bytes", float("nan")),
        "complete": True,
    }


def _complete_kept_records(kept: dict[int, dict[str, Any]], records: dict[int, str]) -> None:
    """Records kept from a run that was stopped before it attributed the monitor's samples (a kill during
    the point) get them now, from the samples that run wrote; if that run's monitor died with it before the
    read's last sample, ``mon_monitor_coverage`` says how much of the loop the samples cover."""
    by_csv: dict[str, Any] = {}
    for rep, record in kept.items():
        if record.get("complete") or not record.get("monitor_csv"):
            continue
        path = record["monitor_csv"]
        if path not in by_csv:
            try:
                by_csv[path] = parse_monitor_csv(Path(path).read_text(), path)
            except (OSError, MonitorCSVError):
                by_csv[path] = None
        if by_csv[path] is not None:
            kept[rep] = attach_monitor(record, by_csv[path])
            write_json_atomic(records[rep], kept[rep])


@dataclass
class ReadStorage:
    """Where a read goes: a storage profile, the blkio group of its reads (None where none can be made: native
    only), the disk holding the file, and for a remote profile the XRootD server (and proxy) that serves it."""

    profile: storage.StorageProfile
    group: storage.IoGroup | None
    device: str | None
    endpoint: remote.Endpoint | None = None
    fresh: bool = True  # no read has gone through it yet (a remote profile's warm-up is still to come)

    def read_path(self, path: str) -> str:
        """What the reader opens for the local file ``path``: the path, its URL on our XRootD server, or its
        URL on a user's endpoint."""
        if self.endpoint:
            return self.endpoint.url(path)
        return self.profile.endpoint_url(path) if self.profile.access == "endpoint" else path


class _StorageSet:
    """The storage every read of a block needs, made once per block: one blkio group per storage profile and disk
    (a throttle's first ~75 ms burst is paid once, not per point), one XRootD server (and proxy) per remote
    profile and exported directory, each file copied once to a user's endpoint. All removed when the block ends."""

    def __init__(self, stack: ExitStack, lifeline: Lifeline, measurement: dict[str, Any], logs_dir: Path):
        self.stack, self.lifeline, self.measurement, self.logs_dir = stack, lifeline, measurement, logs_dir
        self._groups: dict[tuple[str, str | None], storage.IoGroup | None] = {}
        self._endpoints: dict[tuple[str, str], remote.Endpoint] = {}
        self._copied: set[str] = set()
        self._contexts: dict[tuple[str, str], ReadStorage] = {}

    def profile(self, name: str) -> storage.StorageProfile:
        return storage.resolve_profile(name, self.measurement["storage_profiles"])

    def for_read(self, profile_name: str, root_file: str, remote_logs: str | None = None) -> ReadStorage:
        key = (profile_name, str(Path(root_file).resolve().parent))
        if key in self._contexts:
            return self._contexts[key]
        profile = self.profile(profile_name)
        storage.check_throttling_possible(profile, root_file)
        device = _device_of(root_file)
        group_key = (profile.name, device)
        if group_key not in self._groups:
            group = self.stack.enter_context(storage.point_group(profile, root_file, tag=profile.name))
            if group:
                self.lifeline.on_loss(group.remove)
            self._groups[group_key] = group
        group = self._groups[group_key]
        endpoint = None
        if profile.access == "xrootd":
            # One server (and latency proxy) per exported directory; it joins the profile's blkio group, so the
            # group counts the disk reads made for the reader.
            if key not in self._endpoints:
                logs = Path(remote_logs) if remote_logs else self.logs_dir / "remote-logs" / profile.name
                self._endpoints[key] = self.stack.enter_context(
                    remote.remote_endpoint(profile, Path(root_file).resolve().parent, logs)
                )
                if group:
                    group.procs.write_text(str(self._endpoints[key].server.pid))  # the proxy reads no disk
            endpoint = self._endpoints[key]
        self._contexts[key] = ReadStorage(profile, group, group.device if group else device, endpoint)
        return self._contexts[key]

    def copy_for_endpoint(self, context: ReadStorage, root_file: str, say: Callable[[str], None]) -> None:
        """A user's endpoint with copy: true gets each file once, before its first read."""
        if context.profile.access == "endpoint" and context.profile.copy and root_file not in self._copied:
            say(f"copying {root_file} to {context.profile.endpoint_url(root_file)}")
            remote.copy_to(root_file, context.profile.endpoint_url(root_file))
            self._copied.add(root_file)


def _device_of(path: str) -> str | None:
    try:
        return storage.block_device_of(path)
    except storage.StorageProfileError:
        return None  # tmpfs or a network filesystem: no block device to count


@dataclass
class Instrument:
    """What serves every read of a block: the reader (its fork server), the monitor, and the memory probe."""

    reader: str
    server: ReaderServer | None  # None: one reader process per repetition (measurement.reader_process = exec)
    monitor: Monitor | None
    messages_dir: Path
    probe_loads: int = 0  # 0: no memory probe
    fastest_probe: float = float("nan")  # the fastest memory probe of this block so far
    # The branches a columnar reading style (rdataframe, uproot, bulk) reads, by the path read, the selection and
    # the tree: the reader's own resolution of the selection (--resolve-selection), made before the file is evicted.
    # Keyed by the selection too: a block that reads one file with two selections (analysis and all) reads each.
    columns: dict[tuple[str, str, str], str] = field(default_factory=dict)

    def resolve_columns(self, path: str, read: dict[str, Any], *, also: str | None = None) -> None:
        """Find, once, the branches that ``read``'s selection means in ``path`` (for reading style rdataframe,
        uproot or bulk; getentry resolves it itself). The reader reads the file's metadata for that: call this before
        the eviction. ``also``: another name of the same file (its URL) that reads use."""
        if read.get("reading_style", "getentry") == "getentry" or _columns_key(path, read) in self.columns:
            return
        cmd = [self.reader, "--file", path, "--resolve-selection", read["branches"]]
        if read.get("tree"):
            cmd += ["--tree", read["tree"]]
        try:
            found = run_tool(cmd, f"resolving branch selection {read['branches']!r} in {path}")
        except ToolError as error:
            raise ReadError(str(error)) from error
        self.columns[_columns_key(path, read)] = ",".join(found["branches"])
        if also:
            self.columns[_columns_key(also, read)] = self.columns[_columns_key(path, read)]

    def memory_probe(self) -> float:
        """Seconds of the host's memory probe now (NaN without one), and the block's fastest so far updated."""
        if not (self.server and self.probe_loads):
            return float("nan")
        seconds = self.server.memory_probe(self.probe_loads)
        if not seconds >= self.fastest_probe:  # also when fastest is still NaN
            self.fastest_probe = seconds
        return seconds

    def read(
        self, where: ReadStorage, path: str, events: int, read: dict[str, Any], what: str, tag: str
    ) -> tuple[dict, dict]:
        """One read of ``path`` (a local path or a URL) by a fresh reader: the C++ reader (reading styles
        getentry, rdataframe and bulk) or a Python process of its own (uproot)."""
        style = read.get("reading_style", "getentry")
        args = _reader_args(path, events, read, where.device)
        if style != "getentry":
            if _columns_key(path, read) not in self.columns:
                raise ReadError(
                    f"{what}: the columns of {read['branches']!r} in {path} were not resolved before the read "
                    "(a harness bug)"
                )
            args["reading-style"], args["columns"] = style, self.columns[_columns_key(path, read)]
        procs = where.group.procs if where.group else None
        try:
            if style == "uproot":
                cmd = _uproot_command(
                    path, events, read, self.columns[_columns_key(path, read)], where.device
                )
                return exec_read(cmd, what, storage.join_group(procs))
            if self.server:
                if where.group:
                    args["cgroup-procs"] = where.group.procs
                return self.server.read(args, what, self.messages_dir / f"{tag}.log")
            # The options above, the reading style's included (reader_command would leave them out).
            cmd = [self.reader, *(x for k, v in args.items() for x in (f"--{k}", str(v)))]
            return exec_read(cmd, what, storage.join_group(procs))
        except DamagedFileError:
            raise
        except ToolError as error:
            raise ReadError(str(error)) from error


@dataclass(frozen=True)
class PlannedPoint:
    """One point of a block: the file, the read, what every record of it carries (``labels``: its settings and
    identity, point_identity) and where repetition ``rep``'s record goes (``records[rep]``)."""

    root_file: str
    events: int
    read: dict[str, Any]
    labels: dict[str, Any]
    records: dict[int, str]
    warmup_file: str | None = None
    remote_logs: str | None = None
    # The records of the point's repetitions that other passes take (measurement.passes): read, never measured
    # here, so that the sequential rounds judge the point on all of them.
    other_passes: dict[int, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        labels = self.labels
        if "file_id" in labels and "read_id" in labels:
            return f"{labels.get('format', '')} {labels['file_id']} {labels['read_id']}".strip()
        return self.root_file


def plan_point(
    entry: dict[str, Any],
    measurement: dict[str, Any],
    repetitions: int,
    reps: Iterable[int] | None = None,
) -> PlannedPoint:
    """A point of a block's plan (rootparams.decide.blockplan.plan_entry: its file and read points, files and
    events) with its records' paths and its identity, which comes from its catalogue entry: the file itself may
    be gone once it is measured. ``reps``: the repetition numbers this block takes (its pass's share,
    rootparams.study.blocks; all of them by default); the others are the other passes'."""
    file_point, read_point = entry["file"], entry["read"]
    fmt, file_id, read_id = file_point.format, file_point.id, read_point.id
    mine = [rep for rep in (range(repetitions) if reps is None else reps) if rep < repetitions]
    catalogue = read_json(entry["catalogue"])
    labels = {
        **asdict(file_point),
        **asdict(read_point),
        "file_id": file_id,
        "read_id": read_id,
        "events_requested": entry["events"],
        # How a user's file was remade (its baskets recompressed, or rewritten by ROOT) and how many copies of it
        # the file holds (a tiled source): said beside every rate of it.
        "rewrite_method": catalogue.get("rewrite_method"),
        "tiled_copies": catalogue.get("tiled_copies", 1),
        **point_identity(catalogue, measurement, read_point.storage_profile),
    }
    return PlannedPoint(
        root_file=entry["root"],
        events=entry["events"],
        read={**asdict(read_point), "container": file_point.container, "tree": entry["tree"]},
        labels=labels,
        records={rep: paths.repetition_record(fmt, file_id, read_id, rep) for rep in mine},
        warmup_file=entry["warmup"],
        remote_logs=paths.remote_logs(fmt, file_id, read_id),
        other_passes={
            rep: paths.repetition_record(fmt, file_id, read_id, rep)
            for rep in range(repetitions)
            if rep not in mine
        },
    )


def kept_records(point: PlannedPoint) -> dict[int, dict[str, Any]]:
    """The repetitions of ``point`` an earlier run took under its identity, by repetition."""
    return {
        rep: r
        for rep, path in point.records.items()
        if (r := _reusable_record(path, point.labels)) is not None
    }


def needs_measuring(point: PlannedPoint, measurement: dict[str, Any]) -> bool:
    """Whether a block has anything to read for ``point``: a repetition not yet taken under its identity, or, with
    make-up rounds, fewer unflagged repetitions than it needs and a flagged one to take again (what measure_block
    would do). The workflow asks this before it runs a block, so that a point already measured needs neither its
    file nor a read, and adding a scan to a finished study measures only the new points."""
    kept = kept_records(point)
    if len(kept) < len(point.records):
        return True
    # The point's warm set (measurement.warm_reads) with a warm read still to take needs the file too.
    for warm in cpu_primitives.choose_warm_sets([point], measurement.get("warm_reads", 0), measurement):
        if len(cpu_primitives.kept_warm_records(warm)) < len(warm.records):
            return True
    return measurement.get("makeup_rounds", 0) > 0 and bool(
        _short_points([kept], _required(measurement, [point]))
    )


@dataclass(frozen=True)
class Sentinel:
    """The drift sentinel: one reference point read again every ``every_seconds`` of measuring, through every
    block of the study, into a record of its own under ``directory`` (docs/statistics.md, "The drift sentinel")."""

    point: PlannedPoint
    directory: str
    every_seconds: float


@dataclass
class BlockResult:
    """What a block's job measured: every point's records (reused ones marked), the sentinel's records, the order
    of every round, and the job's own figures (its measuring efficiency). ``failed``: the points the reader could
    not read (by index in the block's points, with the reason; their records hold the repetitions taken before),
    a result of the block like its measurements."""

    records: list[list[dict[str, Any]]]
    sentinel_records: list[str] = field(default_factory=list)
    schedule: list[dict[str, Any]] = field(default_factory=list)
    measured_loop_seconds: float = 0.0
    measured_repetitions: int = 0
    failures: list[str] = field(default_factory=list)
    failed: dict[int, str] = field(default_factory=dict)
    # measurement.warm_reads: per warm set (rootparams.measure.cpu_primitives), its names, the read ids it stands for and its
    # warm records (kept and taken), in the order of the sets; and the warm reads this job took.
    warm_sets: list[dict[str, Any]] = field(default_factory=list)
    measured_warm_reads: int = 0
    # measurement.target_half_width: what the sequential rounds found open, what they resolved and what they cost
    # (sequential_status).
    sequential: dict[str, Any] = field(default_factory=dict)


class PointFailed(ReadError):
    """One or more points of a block could not be measured for a reason a rerun can repair (a damaged file the
    study wrote, an eviction that did not hold, storage that could not be set up); every other point was
    measured, and their records are kept. ``damaged``: files to be written again."""

    def __init__(self, message: str, damaged: list[str]):
        super().__init__(message)
        self.damaged = damaged


def _round_order(points: int, block: str, round_: int, seed: int) -> list[int]:
    """The shuffled order of a block's points in one round: reproducible from (seed, block, round), so that a
    resumed block measures its missing repetitions in the order the plan recorded."""
    order = list(range(points))
    random.Random(f"{seed}:{block}:{round_}").shuffle(order)
    return order


def schedule(
    points: list[PlannedPoint], block: str, seed: int, order: str = "interleaved"
) -> list[list[tuple[int, int]]]:
    """The slots (point index, repetition) of each round. "interleaved": round k holds repetition k of every
    point, in a shuffled order (round_order), so repetition k of every point is measured before repetition k+1 of
    any. "sequential": every repetition of a point before the next point (the instrument before rounds existed;
    kept to compare the two, benchmarks/interleaving.py)."""
    reps = sorted({rep for p in points for rep in p.records})
    if order == "sequential":
        return [[(i, rep) for rep in sorted(p.records)] for i, p in enumerate(points)]
    return [
        [(i, rep) for i in _round_order(len(points), block, k, seed) if rep in points[i].records]
        for k, rep in enumerate(reps)
    ]


def measure_block(
    *,
    block: str,
    points: list[PlannedPoint],
    reader: str,
    measurement: dict[str, Any],
    monitor_csv: str | Callable[[float], str],
    seed: int = 0,
    sentinel: Sentinel | None = None,
    say: Callable[[str], None] = print,
    pairs: list[tuple[int, int]] | None = None,
) -> BlockResult:
    """The timed reads of a block of points (a format's, in the workflow), in rounds: repetition k of every point
    before repetition k+1 of any, each round in a shuffled order (``measurement.order``; schedule), so that a slow
    spell of the host falls on every point alike and two points' repetitions of one round can be compared in
    pairs (rootparams.stats.compare). Every record carries its ``round``, ``round_key`` (pairs share it) and
    ``order_in_round``, and is written the moment it is taken.

    Repetitions whose record an earlier run already wrote under the same identity (point_identity) are kept, not
    measured again. A point with fewer unflagged repetitions than it needs (required_repetitions) after the rounds
    has its flagged ones measured again in up to ``measurement.makeup_rounds`` rounds of their own. The drift
    sentinel, if given, is read at the start, every ``sentinel.every_seconds`` and at the end. With
    ``measurement.target_half_width``, sequential rounds follow (``_sequential_rounds``): for the points whose
    rate's interval, or whose paired ratio with a partner of ``pairs`` (indices into ``points``), is still wider
    than the target.

    A repetition whose conditions were not met (busy machine, CPU stolen by the hypervisor, other processes reading
    the disk, the kernel fetching fewer bytes than ROOT read) is tried again at once, up to ``measurement.attempts`` times
    in all; the record keeps the last attempt, its number, and why the earlier ones were discarded.

    A point that cannot be read is left out of the rest of the block, and every other point is measured. Where
    the reader refuses or fails to read it (its file at its selection: the reader's error, a crash of ROOT, a
    user's file that is damaged), that is the point's result: BlockResult.failed gives the reason, and the
    study reports it with its other points. Where the measurement could not be made (a file this study wrote
    that turned out damaged, an eviction that did not hold, storage that could not be set up), PointFailed is
    raised at the end, naming every point that failed, so that a rerun repairs it (the damaged files listed
    to be written again).

    The phases, in order, are those of _BlockRun: the plan (what is kept, what is left to read), the set-up of
    the instruments, the planned rounds, the make-up rounds, the sequential rounds, the warm reads, the monitor's
    samples attached to every record, and the result."""
    run = _BlockRun(block, points, reader, measurement, seed, sentinel, say)
    if not run.has_work():
        return run.result
    run.check_files()
    with ExitStack() as stack:
        run.set_up(stack, monitor_csv)
        run.planned_rounds()
        run.makeup_rounds()
        if measurement.get("target_half_width"):
            run.sequential_rounds(pairs)
        warm_taken = run.warm_reads()
        run.read_sentinel(force=True)
        run.attach_monitor(warm_taken)
    return run.finish()


class _BlockRun:
    """One run of measure_block: the block's plan, the instruments it sets up, and what it has taken so far
    (``taken``: the cold repetitions, by (point, rep); ``sentinel_taken``: the sentinel's records, by path;
    ``failed``: the points left out, with the reason; ``faults``: those of them a rerun can repair, PointFailed;
    ``damaged``: files found damaged, to be written again)."""

    def __init__(
        self,
        block: str,
        points: list[PlannedPoint],
        reader: str,
        measurement: dict[str, Any],
        seed: int,
        sentinel: Sentinel | None,
        say: Callable[[str], None],
    ):
        self.block, self.points, self.reader, self.measurement = block, points, reader, measurement
        self.seed, self.sentinel, self.say = seed, sentinel, say
        # The plan: the repetitions an earlier run kept (completed with its monitor's samples where it was stopped
        # before it attributed them), the rounds, and in them the repetitions still to take.
        self.kept: list[dict[int, dict[str, Any]]] = []
        for p in points:
            found = kept_records(p)
            _complete_kept_records(found, p.records)
            self.kept.append(found)
        self.rounds = schedule(points, block, seed, measurement.get("order", "interleaved"))
        self.todo = [[(i, rep) for i, rep in slots if rep not in self.kept[i]] for slots in self.rounds]
        self.result = BlockResult([[{**r, "reused": True} for _, r in sorted(k.items())] for k in self.kept])
        self.required = _required(measurement, points)
        short = _short_points(self.kept, self.required) if measurement.get("makeup_rounds", 0) > 0 else []
        # The points with something to read; the others are measured already, and their files may be gone.
        self.active = {i for slots in self.todo for i, _ in slots} | set(short)
        # The warm reads (measurement.warm_reads, rootparams.measure.cpu_primitives): every set of the block's points, each with
        # the warm records an earlier run kept under its identity; the sets with reads to take need their files.
        self.warm_sets = cpu_primitives.choose_warm_sets(
            points, measurement.get("warm_reads", 0), measurement
        )
        self.warm_kept = [cpu_primitives.kept_warm_records(w) for w in self.warm_sets]
        self.warm_todo = [j for j, w in enumerate(self.warm_sets) if len(self.warm_kept[j]) < len(w.records)]
        self.result.warm_sets = _warm_sets_listing(self.warm_sets)
        self.taken: dict[tuple[int, int], dict[str, Any]] = {}
        self.sentinel_taken: dict[str, dict[str, Any]] = {}
        self.failed: dict[int, str] = {}
        self.faults: set[int] = set()  # the failures a rerun can repair (PointFailed); the others are results
        self.damaged: list[str] = []
        self.last_sentinel = -math.inf
        self.makeup_count = 0  # the make-up rounds run

    def has_work(self) -> bool:
        """Whether anything is left to read, cold or warm."""
        return bool(self.active or self.warm_todo)

    def check_files(self) -> None:
        """ReadError unless every file with reads to take is readable."""
        self.cold = self.measurement["cache_state"] == "cold"
        for i in sorted(self.active):
            if not os.access(self.points[i].root_file, os.R_OK):
                raise ReadError(f"{self.points[i].root_file}: not readable")
        for j in self.warm_todo:
            if not os.access(self.warm_sets[j].root_file, os.R_OK):
                raise ReadError(
                    f"{self.warm_sets[j].root_file}: not readable, and its warm reads (measurement.warm_reads = "
                    f"{self.measurement['warm_reads']}) are still to take"
                )

    # ---- The instruments, set up once per block (removed when ``stack`` closes) ----

    def set_up(self, stack: ExitStack, monitor_csv: str | Callable[[float], str]) -> None:
        """Everything the block's reads need, in ``stack``: the host (the lifeline, the lock, free page reporting
        held), the monitor, the storage of every point, the reader, each point's columns, and the fields every
        record carries (``common``)."""
        measurement = self.measurement
        tool = find_monitor(measurement["monitor"])
        self.job_start = time.time()
        self.csv_path = Path(monitor_csv(self.job_start) if callable(monitor_csv) else monitor_csv)
        self.lifeline = stack.enter_context(Lifeline(self.say))
        lock = stack.enter_context(HostLock(measurement.get("host_lock", DEFAULT_LOCK), self.say))
        page_reporting = stack.enter_context(
            hostmemory.free_page_reporting_held(measurement.get("hold_free_page_reporting", False))
        )
        # dool takes about a second to give its first sample: the reader server and the storage start meanwhile.
        self.mon = stack.enter_context(Monitor(tool, self.csv_path, wait=False)) if tool else None
        if not tool:
            self.csv_path.parent.mkdir(parents=True, exist_ok=True)
            self.csv_path.write_text("")  # the records say monitor = none
        self._set_up_storage(stack)
        self._start_reader(stack)
        self._resolve_columns()
        self.common = {
            "block": self.block,
            "monitor": tool[0] if tool else "none",
            "monitor_csv": str(self.csv_path),
            "host_lock_wait_seconds": lock.waited_seconds,
            "free_page_reporting": page_reporting,
            "measurement_order": measurement.get("order", "interleaved"),
            "job_start_time": self.job_start,
            "complete": self.mon is None,
        }

    def _set_up_storage(self, stack: ExitStack) -> None:
        """The storage of every point with reads to take, and of the sentinel (``where``, by index into
        ``everyone``: the points, then the sentinel). A point whose storage cannot be set up (a remote profile's
        tool missing, a profile this machine cannot apply) is left out of the block, and every other point is
        measured."""
        points = self.points
        self.storages = _StorageSet(stack, self.lifeline, self.measurement, self.csv_path.parent)
        self.everyone = [*points, *([self.sentinel.point] if self.sentinel else [])]
        self.where: list[ReadStorage | None] = []
        for i, p in enumerate(self.everyone):
            if i < len(points) and i not in self.active:
                self.where.append(None)  # measured already: no storage to set up
                continue
            try:
                self.where.append(
                    self.storages.for_read(p.read["storage_profile"], p.root_file, p.remote_logs)
                )
            except (remote.RemoteEndpointError, storage.StorageProfileError) as error:
                self.where.append(None)
                if i < len(points):
                    self.failed[i] = str(error)
                    self.faults.add(i)
                    self.say(f"{p.name}: {error}; left out of this block")
                else:
                    self.say(
                        f"the drift sentinel's storage cannot be set up ({error}); no sentinel in this block"
                    )
                    self.sentinel = None

    def _start_reader(self, stack: ExitStack) -> None:
        """The reader (its fork server, unless measurement.reader_process = exec) and the block's reference for the
        memory probe; then the first sample of the monitor."""
        server = None
        messages_dir = self.csv_path.parent / f"{self.csv_path.stem}-reader-messages"
        if self.measurement["reader_process"] == "fork":
            server = stack.enter_context(ReaderServer(self.reader, messages_dir / "server.log"))
        self.instrument = Instrument(
            self.reader,
            server,
            self.mon,
            messages_dir,
            probe_loads=self.measurement.get("memory_probe_loads", 0),
        )
        for _ in range(3):  # the block's reference for the memory probe (a busy start only makes it lenient)
            self.instrument.memory_probe()
        if self.mon:
            self.mon.wait_until_sampling()

    def _resolve_columns(self) -> None:
        """Before any eviction: finding a selection's branches reads the files' metadata. A point whose selection
        cannot be resolved is left out of the block (a result of it, not a fault)."""
        for i, (p, w) in enumerate(zip(self.everyone, self.where, strict=True)):
            if w is None:
                continue
            try:
                self.instrument.resolve_columns(p.root_file, p.read, also=w.read_path(p.root_file))
            except ReadError as error:
                if i < len(self.points):
                    self.failed[i] = str(error)
                    self.say(f"{p.name}: {error}; left out of this block")
                else:
                    self.say(
                        f"the drift sentinel's selection cannot be resolved ({error}); no sentinel in this block"
                    )
                    self.sentinel = None

    # ---- Reads ----

    def _warm_up_remote(self, p: PlannedPoint, w: ReadStorage) -> None:
        # The network client's code (XrdCl) and the server's are paged in by a read through the endpoint, of
        # the file under test itself, which every repetition then evicts and verifies cold again. With the
        # cache on, so that a far profile's warm-up is a few round trips.
        self.storages.copy_for_endpoint(w, p.root_file, self.say)
        if w.fresh and (w.endpoint is not None or w.profile.access == "endpoint"):
            url = w.read_path(p.root_file)
            self.instrument.read(
                w, url, 2, {**p.read, "cache_size": -1}, f"warm-up read of {url}", "warmup-remote"
            )
            if self.mon:
                self.mon.wait_for_sample_after(time.time(), timeout=10)
        w.fresh = False

    def _take(self, i: int, rep: int, slot: dict[str, Any], tag: str) -> dict[str, Any]:
        """Repetition ``rep`` of point ``i`` of ``everyone``, tried again while its conditions are not met (up to
        measurement.attempts in all): its record, with the labels of its point and of its ``slot``."""
        p, w, measurement = self.everyone[i], self.where[i], self.measurement
        self._warm_up_remote(p, w)
        discarded: list[str] = []
        for attempt in range(1, measurement["attempts"] + 1):
            record = _attempt(
                self.instrument, w, p.root_file, p.events, p.read, measurement, f"{tag}-{attempt}"
            )
            if not record["flagged"] or attempt == measurement["attempts"]:
                break
            discarded.append(f"attempt {attempt}: {record['flag_reasons']}")
        return {
            **p.labels,
            "rep": rep,
            **record,
            **self.common,
            **slot,
            "attempt": attempt,
            "discarded_attempts": " | ".join(discarded),
        }

    def read_sentinel(self, force: bool = False) -> None:
        """The drift sentinel, read if ``force`` or if its interval has passed since its last read; left out of the
        rest of the block if it cannot be read."""
        sentinel = self.sentinel
        if sentinel is None or (not force and time.time() - self.last_sentinel < sentinel.every_seconds):
            return
        self.last_sentinel = time.time()
        path = Path(sentinel.directory) / f"{self.block}-{int(self.last_sentinel * 1000)}.json"
        try:
            record = self._take(
                len(self.points), -1, {"sentinel": True, "round_key": None}, f"sentinel-{path.stem}"
            )
        except (ReadError, pagecache.EvictionError) as error:
            self.say(f"the drift sentinel could not be read ({error}); it is left out of this block")
            self.last_sentinel = math.inf
            return
        write_json_atomic(path, record)
        self.sentinel_taken[str(path)] = record

    def run_round(
        self, k: int, slots: list[tuple[int, int]], makeup: bool = False, sequential: bool = False
    ) -> None:
        """Round ``k``: the repetitions ``slots`` (point, rep) in their order, each record written as it is taken; a
        point that cannot be read is left out of the rest of the block. Then the progress, with a rough time left."""
        points, measurement, block = self.points, self.measurement, self.block
        key = None if measurement.get("order") == "sequential" else f"{block}@{self.job_start:.0f}/r{k}"
        slots = [(i, rep) for i, rep in slots if i not in self.failed]
        self.result.schedule.append(
            {
                "round": k,
                "round_key": key,
                "makeup": makeup,
                "sequential": sequential,
                "order": [points[i].name + f" rep{rep}" for i, rep in slots],
            }
        )
        if slots and self.cold and measurement["eviction"] == "system":
            _drop_caches_and_warm_up(self.instrument, self.where[slots[0][0]], points[slots[0][0]], self.mon)
        for position, (i, rep) in enumerate(slots):
            if i in self.failed:
                continue
            self.read_sentinel()
            slot = {
                "round": k,
                "round_key": key,
                "order_in_round": position,
                "makeup_round": makeup,
                "sequential_round": sequential,
            }
            try:
                record = self._take(i, rep, slot, f"{_tag(points[i])}-rep{rep}")
            except DamagedFileError as error:
                self.failed[i] = str(error)
                if points[i].labels.get("origin") != "asis":  # a user's own file is never removed
                    self.damaged.append(points[i].root_file)
                    self.faults.add(i)
                self.say(f"{points[i].name}: {error}; left out of the rest of this block")
                continue
            except pagecache.EvictionError as error:
                self.failed[i] = str(error)
                self.faults.add(i)
                self.say(f"{points[i].name}: {error}; left out of the rest of this block")
                continue
            except ReadError as error:
                self.failed[i] = str(error)
                self.say(f"{points[i].name}: {error}; left out of the rest of this block")
                continue
            write_json_atomic(points[i].records[rep], record)
            self.taken[(i, rep)] = record
        # Progress, with a rough time left from the pace so far (the log and the console).
        taken = len(self.taken)
        total = sum(len(s) for s in self.todo)
        elapsed = time.time() - self.block_start
        left = elapsed / max(taken, 1) * max(total - taken, 0)
        self.say(
            f"block {block}: round {k + 1}"
            f"{' (make-up)' if makeup else ' (sequential)' if sequential else f' of {len(self.rounds)}'} done, "
            f"{taken} of {total} reads taken in {elapsed / 60:.1f} min, about {left / 60:.0f} min left"
        )

    # ---- The phases of reading ----

    def planned_rounds(self) -> None:
        """The block's clock starts, the sentinel is read, then every planned round with a repetition to take."""
        self.block_start = time.time()
        self.read_sentinel(force=True)
        for k, slots in enumerate(self.todo):
            if slots:
                self.run_round(k, slots)

    def makeup_rounds(self) -> None:
        """Up to measurement.makeup_rounds rounds of the flagged repetitions of the points short of unflagged ones,
        each in a shuffled order."""
        points, rounds = self.points, self.rounds
        for extra in range(self.measurement.get("makeup_rounds", 0)):
            current = [
                {**self.kept[i], **{rep: r for (j, rep), r in self.taken.items() if j == i}}
                for i in range(len(points))
            ]
            short = _short_points(current, self.required)
            slots = [(i, rep) for i in short for rep, r in sorted(current[i].items()) if r.get("flagged")]
            if not slots:
                break
            order = _round_order(len(slots), self.block, len(rounds) + extra, self.seed)
            self.run_round(len(rounds) + extra, [slots[j] for j in order], makeup=True)
            self.makeup_count = extra + 1

    def sequential_rounds(self, pairs: list[tuple[int, int]] | None) -> None:
        """measurement.target_half_width: _sequential_rounds after the planned and make-up rounds."""
        self.result.sequential = _sequential_rounds(
            self.points,
            self.kept,
            self.taken,
            self.failed,
            pairs,
            self.measurement,
            self.run_round,
            len(self.rounds) + self.makeup_count,
            self.block,
            self.seed,
        )

    def warm_reads(self) -> dict[str, dict[str, Any]]:
        """The warm reads (_warm_rounds), right after the cold ones: the same files, the same reader server, the same
        lock. A file found damaged is not read again; a point that failed for its storage (a remote profile) still
        has a file. Returns the warm records taken, by path."""
        return _warm_rounds(
            self.warm_sets,
            self.warm_kept,
            [j for j in self.warm_todo if self.warm_sets[j].root_file not in self.damaged],
            self.instrument,
            self.storages,
            self.measurement,
            self.common,
            self.block,
            self.job_start,
            self.seed,
            self.say,
        )

    def attach_monitor(self, warm_taken: dict[str, dict[str, Any]]) -> None:
        """The block's figures; then, once the monitor's sample that covers the end of the last read is in, every
        record taken (cold, sentinel, warm) with the samples of its own spans, written again."""
        taken, sentinel_taken, mon, result = self.taken, self.sentinel_taken, self.mon, self.result
        result.measured_loop_seconds = sum(r.get("loop_seconds", 0.0) for r in taken.values())
        result.measured_repetitions = len(taken)
        result.measured_warm_reads = len(warm_taken)
        if mon and (taken or sentinel_taken or warm_taken):
            # One wait for the sample that covers the end of the last read; then every record gets the samples
            # of its own spans.
            ends = [*taken.values(), *sentinel_taken.values(), *warm_taken.values()]
            mon.wait_for_sample_after(max(r["end_time"] for r in ends) + 0.05, timeout=10)
            samples = mon.samples()
            for (i, rep), record in taken.items():
                taken[(i, rep)] = attach_monitor(record, samples)
                write_json_atomic(self.points[i].records[rep], taken[(i, rep)])
            for path, record in sentinel_taken.items():
                write_json_atomic(path, attach_monitor(record, samples))
            for path, record in warm_taken.items():
                write_json_atomic(path, attach_monitor(record, samples))
        self.say(
            f"block {self.block}: {len(taken)} repetitions and {len(sentinel_taken)} sentinel reads in "
            f"{time.time() - self.block_start:.0f} s"
        )

    def finish(self) -> BlockResult:
        """The block's result: every point's records, kept and taken, by repetition; PointFailed if a point failed
        for a reason a rerun can repair; else the points the reader could not read, with the reason."""
        points, result, failed = self.points, self.result, self.failed
        for i in range(len(points)):
            mine = {rep: r for (j, rep), r in self.taken.items() if j == i}
            merged = {
                **{rep: {**r, "reused": True} for rep, r in self.kept[i].items()},
                **{rep: {**r, "reused": False} for rep, r in mine.items()},
            }
            result.records[i] = [merged[rep] for rep in sorted(merged)]
        result.sentinel_records = sorted(self.sentinel_taken)
        result.warm_sets = _warm_sets_listing(self.warm_sets)
        result.failures = [
            f"{points[i].name} ({points[i].root_file}): {why}" for i, why in sorted(failed.items())
        ]
        if self.faults:
            raise PointFailed(
                "these points could not be read; every other point of the block was measured and kept:\n  "
                + "\n  ".join(result.failures),
                self.damaged,
            )
        result.failed = {i: _failure_reason(why) for i, why in sorted(failed.items())}
        if failed:
            self.say(
                f"block {self.block}: {len(failed)} point(s) could not be read and are recorded as failed, with the "
                "reader's reason:\n  " + "\n  ".join(result.failures)
            )
        return result


def _sequential_status(
    records: list[dict[int, dict[str, Any]]], pairs: list[tuple[int, int]], target: float
) -> tuple[dict[int, float], dict[tuple[int, int], float]]:
    """(the points whose event rate's 95 % interval, the repetitions' own, is wider than ``target`` of their mean;
    the pairs whose paired rate ratio's interval is wider than ``target`` on the log scale), each with its relative
    half-width (inf where it has too few repetitions), from every unflagged record of each point. Only widths are
    looked at, never the means: the rule cannot stop on a lucky mean."""

    def rates(i: int) -> dict[Any, float]:
        return {
            r.get("round_key") or ("rep", rep): float(r["event_rate_hz"])
            for rep, r in records[i].items()
            if not r.get("flagged") and r.get("event_rate_hz")
        }

    by_point = [rates(i) for i in range(len(records))]
    open_points = {}
    for i, values in enumerate(by_point):
        width = Interval.of(list(values.values())).relative_half_width
        if not width <= target:
            open_points[i] = width if math.isfinite(width) else math.inf
    open_pairs = {}
    for a, b in pairs:
        common = [k for k in by_point[a] if k in by_point[b] and not isinstance(k, tuple)]
        if len(common) < MIN_PAIRS:
            open_pairs[(a, b)] = math.inf
            continue
        ratio = ratio_paired([by_point[a][k] for k in common], [by_point[b][k] for k in common])
        width = math.log(ratio.high / ratio.low) / 2 if ratio.low > 0 else math.inf
        if not width <= target:
            open_pairs[(a, b)] = width
    return open_points, open_pairs


def _within_reach(width: float, n: int, most: int, target: float) -> bool:
    """Whether an interval of relative half-width ``width`` from ``n`` repetitions would reach ``target`` by ``most``
    repetitions if their spread stayed as it is: the half-width scales as t(n-1) / sqrt(n). Widths only."""
    if n < 2 or not math.isfinite(width):
        return most > n  # too few repetitions to tell: more of them are the only way to know
    if most <= n:
        return False
    return width * t_quantile(most - 1) / t_quantile(n - 1) * math.sqrt(n / most) <= target


def _sequential_wanted(
    open_points: dict[int, float],
    open_pairs: dict[tuple[int, int], float],
    counts: list[int],
    most: int,
    room: int,
    target: float = 0.0,
) -> list[int]:
    """The points the next sequential round reads: the members of open pairs first (the study's verdicts are made on
    paired ratios, and an absolute rate's interval holds the host's drift between passes, which more reads in one
    pass do not shrink), the points open on their own interval only when no pair is; of either only those whose
    interval could still reach ``target`` by ``most`` repetitions (within_reach; a ``target`` of 0 skips that
    test), never a point at ``most`` repetitions (``counts``); at most ``room`` points (what the time budget
    allows), those nearest their target first (their widths only, never their means). Sorted."""

    def reachable(width: float, n: int) -> bool:
        return n < most and (target <= 0 or _within_reach(width, n, most, target))

    pairs = {
        pair: width
        for pair, width in open_pairs.items()
        if reachable(width, min(counts[pair[0]], counts[pair[1]]))
    }
    if pairs:
        chosen: list[int] = []
        for a, b in sorted(pairs, key=lambda pair: (pairs[pair], pair)):
            members = [i for i in (a, b) if i not in chosen and counts[i] < most]
            if len(chosen) + len(members) > room:
                continue
            chosen.extend(members)
        return sorted(chosen)
    points = sorted(
        (i for i, w in open_points.items() if reachable(w, counts[i])), key=lambda i: (open_points[i], i)
    )
    return sorted(points[: max(room, 0)])


def _sequential_rounds(
    points: list[PlannedPoint],
    kept: list[dict[int, dict[str, Any]]],
    taken: dict[tuple[int, int], dict[str, Any]],
    failed: dict[int, str],
    pairs: list[tuple[int, int]] | None,
    measurement: dict[str, Any],
    run_round: Callable[..., None],
    first_round: int,
    block: str,
    seed: int,
) -> dict[str, Any]:
    """measurement.target_half_width: after the planned rounds (and make-up rounds), rounds of the points still
    open (``sequential_status``; which of them, ``sequential_wanted``: the members of open pairs first), each a
    new repetition of every chosen point in a shuffled order, until none is open, every open point reaches
    measurement.max_repetitions (null: twice the planned), or no point fits in what is left of
    measurement.sequential_budget_seconds. A point's
    earlier passes count (their records are read). Returns what was open before and after, and the cost."""
    target = float(measurement["target_half_width"])
    pairs = [(a, b) for a, b in (pairs or []) if a < len(points) and b < len(points)]
    budget = float(measurement.get("sequential_budget_seconds", 300))
    planned = [max([*p.records, *p.other_passes], default=-1) + 1 for p in points]
    most = measurement.get("max_repetitions") or 2 * max(planned, default=1)
    others = [
        {
            rep: r
            for rep, path in p.other_passes.items()
            if (r := _reusable_record(path, p.labels)) is not None
        }
        for p in points
    ]
    # Repetitions beyond the plan that an earlier run of this block took (a rerun after a crash keeps them).
    for i, p in enumerate(points):
        fmt, file_id, read_id = (p.labels.get(k) for k in ("format", "file_id", "read_id"))
        if None in (fmt, file_id, read_id):
            continue
        for rep in range(planned[i], most):
            path = paths.repetition_record(fmt, file_id, read_id, rep)
            if (record := _reusable_record(path, p.labels)) is not None:
                p.records[rep] = path
                kept[i][rep] = record

    def everything() -> list[dict[int, dict[str, Any]]]:
        return [
            {**others[i], **kept[i], **{rep: r for (j, rep), r in taken.items() if j == i}}
            for i in range(len(points))
        ]

    open_points, open_pairs = _sequential_status(everything(), pairs, target)
    before = {"open_points_before": len(open_points), "open_pairs_before": len(open_pairs)}
    start, rounds, reads, stopped = time.time(), 0, 0, "resolved"
    # The time one read costs in a round (its eviction and verification included): from the sequential rounds
    # once there are any, before them from the planned reads' own spans, which leave the eviction out.
    read_seconds: list[float] = [
        r.get("end_time", 0) - r.get("process_start_time", 0) for r in taken.values() if r.get("end_time")
    ]
    round_read_seconds: list[float] = []
    while True:
        records = everything()
        open_points, open_pairs = _sequential_status(records, pairs, target)
        for i in failed:
            open_points.pop(i, None)
        open_pairs = {pair: w for pair, w in open_pairs.items() if not set(pair) & set(failed)}
        if not open_points and not open_pairs:
            break
        counts = [len(r) for r in records]
        spans = round_read_seconds or read_seconds
        per_read = sum(spans) / len(spans) if spans else 0.0
        room = len(points) if per_read <= 0 else int((budget - (time.time() - start)) // per_read)
        wanted = _sequential_wanted(open_points, open_pairs, counts, most, room, target)
        if not wanted:
            # Why nothing more is read: every open point at its most repetitions, or none within reach of the
            # target by then (sequential_wanted), or no read fits in the budget left.
            if not _sequential_wanted(open_points, open_pairs, counts, most, len(points), 0.0):
                stopped = "max_repetitions"
            elif not _sequential_wanted(open_points, open_pairs, counts, most, len(points), target):
                stopped = "out_of_reach"
            else:
                stopped = "budget"
            break
        slots = []
        for i in sorted(wanted):
            rep = max([*records[i], planned[i] - 1]) + 1
            labels = points[i].labels
            points[i].records[rep] = paths.repetition_record(
                labels["format"], labels["file_id"], labels["read_id"], rep
            )
            slots.append((i, rep))
        order = _round_order(len(slots), block, first_round + rounds, seed)
        before_reads = set(taken)
        round_start = time.time()
        run_round(first_round + rounds, [slots[j] for j in order], sequential=True)
        new = set(taken) - before_reads
        if new:
            round_read_seconds.append((time.time() - round_start) / len(new))
        rounds, reads = rounds + 1, reads + len(new)
    open_points, open_pairs = _sequential_status(everything(), pairs, target)
    return {
        **before,
        "open_points_after": len(open_points),
        "open_pairs_after": len(open_pairs),
        "target_half_width": target,
        "rounds": rounds,
        "reads": reads,
        "seconds": round(time.time() - start, 1),
        "stopped": stopped,
        "pairs": len(pairs),
        "points": len(points),
    }


def _warm_sets_listing(warm_sets: list[cpu_primitives.WarmSet]) -> list[dict[str, Any]]:
    """What the block record says of each warm set: its names, the points it stands for, its records (those
    taken: a warm read that failed has none)."""
    return [
        {
            "format": w.labels.get("format", ""),
            "file_id": w.labels["file_id"],
            "warm_id": w.labels["warm_id"],
            "stands_for_read_ids": list(w.stands_for),
            "records": [w.records[k] for k in sorted(w.records) if Path(w.records[k]).exists()],
        }
        for w in warm_sets
    ]


# Events of the untimed read before a set's warm rounds (_warm_rounds): enough to open the file and run the loop's
# code once. A whole read would add about 4 minutes to the default study (112 sets) and change no timed read.
_WARM_UP_EVENTS = 10


def _warm_rounds(
    warm_sets: list[cpu_primitives.WarmSet],
    kept: list[dict[int, dict[str, Any]]],
    todo: list[int],
    instrument: Instrument,
    storages: _StorageSet,
    measurement: dict[str, Any],
    common: dict[str, Any],
    block: str,
    job_start: float,
    seed: int,
    say: Callable[[str], None],
) -> dict[str, dict[str, Any]]:
    """The warm reads of the sets ``todo`` (indexes in ``warm_sets``), by record path. First, once per set, the
    file is read whole into the page cache and its first events are read by the reader, untimed
    (_WARM_UP_EVENTS): a set that cannot be read is left out before the rounds, and any code or library page a
    resumed block has not touched yet is brought in. A whole warm-up read would warm nothing more: every read is
    a child forked from the server's file-less state (or a process of its own), so nothing of one read's ROOT
    state reaches the next; the page cache is filled again and verified before every timed read. Then rounds
    like the cold ones:
    warm read k of every set before warm read k+1 of any, each round in a shuffled order, so that a slow spell of
    the host falls on every set alike and two sets can be compared round by round. Each warm read goes through
    the cold reads' own attempt (_attempt) with cache_state warm: the file is read whole again and mincore
    verifies that it is resident just before the read (and after it); a read that was not wholly from memory,
    or on a busy machine, is flagged and tried again (cpu_primitives.warm_flag_reasons, flag_reasons). Storage is the
    native profile: no throttle, and its group still counts any request that reaches the disk."""
    taken: dict[str, dict[str, Any]] = {}
    if not todo:
        return taken
    warm_measurement = {**measurement, "cache_state": "warm"}
    where: dict[int, ReadStorage] = {}
    todo = list(todo)
    for j in list(todo):
        w = warm_sets[j]
        try:
            where[j] = storages.for_read(cpu_primitives.WARM_IO["storage_profile"], w.root_file)
            instrument.resolve_columns(w.root_file, w.read)
            pagecache.make_warm(w.root_file)
            what = f"untimed warm-up read of {w.root_file} ({_WARM_UP_EVENTS} events)"
            instrument.read(
                where[j], w.root_file, min(w.events, _WARM_UP_EVENTS), w.read, what, "warm-untimed"
            )
        except (ReadError, DamagedFileError, storage.StorageProfileError) as error:
            say(f"{w.name}: no warm reads: {error}")
            todo.remove(j)
    sets = [warm_sets[j] for j in todo]
    rounds = schedule(sets, f"{block}-warm", seed)
    for k, slots in enumerate(rounds):
        key = f"{block}-warm@{job_start:.0f}/r{k}"
        for position, (s, rep) in enumerate(slots):
            j = todo[s]
            w = warm_sets[j]
            if rep in kept[j]:
                continue
            discarded: list[str] = []
            try:
                for attempt in range(1, measurement["attempts"] + 1):
                    record = _attempt(
                        instrument,
                        where[j],
                        w.root_file,
                        w.events,
                        w.read,
                        warm_measurement,
                        f"warm-{w.labels['file_id']}-{w.labels['warm_id']}-{rep}-{attempt}",
                    )
                    if not record["flagged"] or attempt == measurement["attempts"]:
                        break
                    discarded.append(f"attempt {attempt}: {record['flag_reasons']}")
            except (ReadError, DamagedFileError) as error:
                say(f"{w.name}: warm read {rep} failed: {error}")
                continue
            record = {
                **w.labels,
                "warm_rep": rep,
                **record,
                **common,
                "warm_round": k,
                "round_key": key,
                "order_in_round": position,
                "attempt": attempt,
                "discarded_attempts": " | ".join(discarded),
            }
            write_json_atomic(w.records[rep], record)
            taken[w.records[rep]] = record
        say(f"block {block}: warm round {k + 1} of {len(rounds)} done")
    return taken


def _failure_reason(text: str, limit: int = 800) -> str:
    """Why a point could not be read, in one line for the tables: what failed and the reader's own error, without
    ROOT's warnings (a file without dictionaries gives hundreds) or the list of what the file holds, which the
    block's log keeps."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return "no reason given"
    mine = [line.split("error: ", 1)[1] for line in lines if line.startswith("rootparams-read: error:")]
    fatal = [line for line in lines if line.startswith(("Error in", "Fatal", "*** Break"))]
    detail = mine[-1] if mine else fatal[-1] if fatal else lines[-1] if len(lines) > 1 else ""
    detail = detail.split(" Available: ", 1)[0].split(" Top-level branches: ", 1)[0]
    return f"{lines[0]} {detail}".strip()[:limit]


def _tag(p: PlannedPoint) -> str:
    labels = p.labels
    return f"{labels.get('file_id', Path(p.root_file).stem)}-{labels.get('read_id', 'read')}"


def _required(measurement: dict[str, Any], points: list[PlannedPoint]) -> int:
    return required_repetitions(measurement, max((len(p.records) for p in points), default=1))


def _short_points(records: list[dict[int, dict[str, Any]]], required: int) -> list[int]:
    """The points with fewer unflagged repetitions than required, that have a flagged one to measure again."""
    return [
        i
        for i, recs in enumerate(records)
        if sum(not r.get("flagged") for r in recs.values()) < required
        and any(r.get("flagged") for r in recs.values())
    ]


def _drop_caches_and_warm_up(instrument: Instrument, where: ReadStorage, p: PlannedPoint, mon) -> None:
    """``measurement.eviction: system``, once per round: the paper's drop_caches, then a warm-up read of the
    format's small warm-up file so that the reader's code pages are back in memory (another file, so the files
    under test stay cold)."""
    pagecache.make_cold(p.root_file, system_wide=True)
    warmup_file = p.warmup_file or p.root_file
    warmup = {**p.read, "container": "auto"}  # the format's default file, which may be the other container
    # Its selection is found after the drop (it is the warm-up's own file): ROOT's and Python's code pages come
    # back with it, as the warm-up read's own do.
    instrument.resolve_columns(warmup_file, warmup)
    instrument.read(where, warmup_file, 2, warmup, f"warm-up read of {warmup_file}", "warmup")
    if mon:  # the warm-up's disk traffic stays out of the next repetition's samples
        mon.wait_for_sample_after(time.time(), timeout=10)


def measure_point(
    *,
    root_file: str,
    warmup_file: str,
    reader: str,
    events: int,
    read: dict[str, Any],
    measurement: dict[str, Any],
    monitor_csv: str | Callable,
    records: dict[int, str],
    labels: dict[str, Any],
    say: Callable[[str], None] = print,
    remote_logs: str | None = None,
) -> list[dict[str, Any]]:
    """The timed repetitions of one point (a block of one, measure_block), writing repetition ``rep``'s record to
    ``records[rep]`` as soon as it is taken; return every repetition's record (``reused``: kept from an earlier
    run). For the tests and benchmarks that measure a point on its own."""
    point = PlannedPoint(root_file, events, read, labels, records, warmup_file, remote_logs)
    csv = monitor_csv if not callable(monitor_csv) else monitor_csv(min(records))
    try:
        result = measure_block(
            block="point", points=[point], reader=reader, measurement=measurement, monitor_csv=csv, say=say
        )
    except PointFailed as error:
        raise error.__cause__ or error from None
    if result.failed:
        raise ReadError(result.failed[0])
    return result.records[0]


def _attempt(
    instrument: Instrument,
    where: ReadStorage,
    root_file: str,
    events: int,
    read: dict[str, Any],
    measurement: dict[str, Any],
    tag: str,
) -> dict[str, Any]:
    harness_start = time.time()
    cold = measurement["cache_state"] == "cold"
    record: dict[str, Any] = {**_host_fingerprint(), "cache_state": measurement["cache_state"]}
    record.update(where.profile.as_record())
    # Before the eviction, so that nothing but the verification stands between the eviction and the read.
    record["memory_probe_before_seconds"] = instrument.memory_probe()
    endpoint_read = where.profile.access == "endpoint"
    if endpoint_read:
        # A user's server holds the file: its caches are out of our reach, and every record says so.
        method = "none: the endpoint's server decides (not verified)"
    elif cold:
        method, _ = pagecache.make_cold(root_file, system_wide=False)
    else:
        method = "warm-read"
        pagecache.make_warm(root_file)
    state = pagecache.residency(root_file)
    if cold and state.resident_pages and not endpoint_read:
        raise pagecache.EvictionError(
            f"{root_file}: {state.resident_pages} of {state.total_pages} pages came back into the page cache "
            "between eviction and the read (something else is reading the file); refusing to measure"
        )
    record["eviction_method"] = method
    record["eviction_verified"] = not endpoint_read
    record["resident_fraction_before"] = float("nan") if endpoint_read else state.fraction
    record["file_pages"] = state.total_pages
    record["reader_process"] = "fork" if instrument.server else "exec"
    group, device = where.group, where.device
    group_before = group.counters() if group else None
    disk_before = storage.disk_counters(device) if device else None
    endpoint = where.endpoint
    server_before = remote.process_read_bytes(endpoint.server.pid) if endpoint else 0
    serving_before = sum(map(remote.process_cpu_seconds, endpoint.server_pids)) if endpoint else 0.0
    net_before = remote.interface_bytes() if endpoint else {}
    cpu_before = CpuTimes.now()
    request_start = time.time()
    record["harness_prepare_seconds"] = request_start - harness_start
    path = where.read_path(root_file)
    result, child = instrument.read(where, path, events, read, f"timed read of {path}", tag)
    request_end = time.time()
    cpu_after = CpuTimes.now()
    if path != root_file:
        record["read_path"] = path
    if endpoint:
        # The read span: what the server fetched from storage for it (its /proc/<pid>/io, read-ahead
        # included: the remote counterpart of process_storage_read_bytes) and what crossed each interface.
        record.update(endpoint.describe())  # versions, ports, and the network as the proxy applied it
        record["server_storage_read_bytes"] = remote.process_read_bytes(endpoint.server.pid) - server_before
        for name, nbytes in remote.interface_bytes().items():
            if nbytes - net_before.get(name, 0):
                record[f"read_net_{name}_bytes"] = nbytes - net_before.get(name, 0)
    record["memory_probe_after_seconds"] = instrument.memory_probe()
    record["memory_probe_fastest_seconds"] = instrument.fastest_probe
    if not cold and not endpoint_read:  # the file stayed in memory for the whole warm read
        record["resident_fraction_after"] = pagecache.residency(root_file).fraction
    reader_cpu = child["cpu_user_seconds"] + child["cpu_system_seconds"]
    record["reader_cpu_seconds"] = reader_cpu
    record["harness_request_seconds"] = request_end - request_start
    # Our server and proxy are the storage under test, not other work: their CPU time is the read's.
    serving = sum(map(remote.process_cpu_seconds, endpoint.server_pids)) - serving_before if endpoint else 0.0
    if endpoint:
        record["server_cpu_seconds"] = serving
    record["cpu_busy_during"], record["cpu_steal_during"] = _cpu_use_between(
        cpu_before, cpu_after, reader_cpu + serving
    )
    if group and group_before:
        used = group.counters() - group_before
        record["storage_requests"] = used.requests
        record["storage_request_bytes"] = used.bytes
        record["storage_bytes_per_request"] = used.bytes / used.requests if used.requests else float("nan")
    if device and disk_before:
        everyone = storage.disk_counters(device) - disk_before
        own = record.get("storage_request_bytes", result["process_storage_read_bytes"])
        record["disk_read_bytes_others"] = max(0, everyone.bytes - own)
    record.update(result)
    if read.get("async_prefetch"):
        _blind_to_prefetch(record)
    record["harness_total_seconds"] = time.time() - harness_start
    ratio = _storage_to_root_ratio(record, cold)
    if ratio is not None:
        record["storage_to_root_bytes_ratio"] = ratio
    record["memory_probe_slowdown"] = _memory_slowdown(record)
    record["flag_reasons"] = "; ".join(flag_reasons(record, measurement, cold))
    record["flagged"] = bool(record["flag_reasons"])
    for span in ("loop", "note_window"):
        record[f"{span}_invalid_reasons"] = "; ".join(_window_problems(record, measurement, span))
        record[f"{span}_valid"] = not record[f"{span}_invalid_reasons"]
    return record


# PerfStats' figures of ROOT's file reads, per span: with asynchronous prefetching they miss the reads of
# TFilePrefetch's own thread (its gPerfStats is not ours: a far SUSY5 read with -1 showed 0 loop read calls
# where TFile counted 15.3 MB), so they are not numbers of that read.
_PERFSTATS_READ_KEY = re.compile(
    r"^(open|loop|note_window|process)_(bytes_read|read_calls|io_share|disk_seconds|bytes_per_call|mb_per_s_compressed)$"
)


def _root_bytes_read(record: dict[str, Any]) -> float | None:
    """The bytes ROOT read from the file over the reader process: PerfStats', or the file's own count where
    PerfStats cannot see every thread (async prefetch)."""
    value = record.get("process_bytes_read")
    return record.get("file_bytes_read_useful") if value != value else value


def _blind_to_prefetch(record: dict[str, Any]) -> None:
    """Mark PerfStats' read figures of an async-prefetch read as not measured (NaN), and say why; the file's own
    counters (file_bytes_read_useful, file_read_calls) stay. The window is then judged by its length only."""
    for key in [k for k in record if _PERFSTATS_READ_KEY.match(k)]:
        record[key] = float("nan")
    record["io_counters_note"] = (
        "async prefetch: PerfStats does not see the prefetch thread's reads; read calls, bytes and I/O shares "
        "per span are not measured (file_bytes_read_useful and file_read_calls are the file's totals)"
    )


def flag_reasons(record: dict[str, Any], measurement: dict[str, Any], cold: bool) -> list[str]:
    """Why a repetition's conditions were not met (empty when they were): these are retried."""
    reasons = []
    busy = record["cpu_busy_during"]
    if busy > measurement["busy_cpu_threshold"]:
        reasons.append(f"busy machine: other processes used {busy:.0%} of the CPUs during the read")
    # On a VM the hypervisor can give this machine's CPU to others (/proc/stat's steal; dool's "stl").
    steal = record.get("cpu_steal_during", 0.0)
    if steal > measurement["max_cpu_steal"]:
        reasons.append(f"CPU stolen by the hypervisor: {steal:.0%} during the read")
    others = record.get("disk_read_bytes_others", 0)
    if others > _OTHERS_DISK_TOLERANCE_BYTES:
        reasons.append(f"other processes read {others / 1e6:.0f} MB from the disk during the read")
    ratio = _storage_to_root_ratio(record, cold)
    access = record.get("storage_access", "local")
    # Fewer bytes from the disk than the reader read: part of the file came from memory, the read was not cold.
    # More is not a failed condition: the kernel's read-ahead around a reader's scattered small reads (uproot's
    # one request per basket fetches 1.5-1.7x on a disk reading ahead 8 MB, every time) is part of what that read
    # costs; retrying cannot change it. It stays in the record (storage_to_root_bytes_ratio) and in the summary.
    if access == "local" and ratio is not None and ratio < 1 - measurement["disk_crosscheck_tolerance"]:
        reasons.append(f"the kernel fetched {ratio:.2f}x the bytes ROOT read from storage")
    # Over XRootD the medium under test is the network: the server's disk read-ahead (kept, as
    # storage_to_root_bytes_ratio) costs the reader nothing, but every byte ROOT read must have crossed loopback
    # (once to the reader, once more through the proxy), or the read did not go where the profile says.
    hops = 2 if record.get("proxy_port") else 1
    crossed, root_bytes = record.get("read_net_lo_bytes", 0), _root_bytes_read(record) or 0
    if access == "xrootd" and crossed < hops * root_bytes:
        reasons.append(
            f"only {crossed / 1e6:.1f} MB crossed loopback for the {root_bytes / 1e6:.1f} MB "
            f"ROOT read over {hops} hop(s)"
        )
    limit, slowdown = measurement.get("max_memory_slowdown"), _memory_slowdown(record)
    if limit is not None and slowdown is not None and slowdown > limit:
        reasons.append(
            f"host memory slow: the probe around the read took {slowdown:+.0%} over the point's fastest"
        )
    if not cold:  # a warm read reads from memory alone, verified
        reasons += cpu_primitives.warm_flag_reasons(record)
    return reasons


def _memory_slowdown(record: dict[str, Any]) -> float | None:
    """How much longer the slower of the two memory probes around a read took than the point's fastest probe
    (0.1 = 10 % longer); None without probes."""
    probes = [record.get(f"memory_probe_{when}_seconds", float("nan")) for when in ("before", "after")]
    fastest = record.get("memory_probe_fastest_seconds", float("nan"))
    if any(p != p for p in probes) or not fastest > 0:
        return None
    return max(probes) / fastest - 1


def _storage_to_root_ratio(record: dict[str, Any], cold: bool) -> float | None:
    """Bytes the kernel fetched from storage for the reader process (/proc/<pid>/io, read-ahead included)
    over the bytes ROOT read from the file; None where the cross-check does not apply (warm read, a read too
    small for the comparison to mean something)."""
    storage_bytes = record.get("process_storage_read_bytes")
    if record.get("storage_access") == "xrootd":  # the server read the file, not the reader
        storage_bytes = record.get("server_storage_read_bytes")
    elif record.get("storage_access") == "endpoint":  # a user's server: its storage is not ours to count
        return None
    root_bytes = _root_bytes_read(record)
    if not cold or storage_bytes is None or not root_bytes or root_bytes < _CROSSCHECK_MIN_BYTES:
        return None
    return storage_bytes / root_bytes


def _window_problems(record: dict[str, Any], measurement: dict[str, Any], span: str = "loop") -> list[str]:
    """Why a timed span ("loop": the headline rate's, or "note_window": the note's, from the 2nd entry) does
    not measure what its rate claims: it misses part of the read's I/O, or it is too short for a rate
    (docs/measurement.md, "Window validity"). Not retried: it is a property of the file and the read
    settings, and the point is marked instead."""
    problems = []
    min_share, min_seconds = measurement["min_window_io_share"], measurement["min_window_seconds"]
    shares = [(f"{span}_io_share", "ROOT's bytes"), (f"{span}_storage_share", "storage bytes")]
    if record.get("storage_access") in ("xrootd", "endpoint"):
        # The reader's own storage bytes are its libraries' pages, not the data: the server reads the file.
        shares = shares[:1]
    for key, what in shares:
        share = record.get(key)
        if share is not None and share == share and share < min_share:  # NaN (no storage reads: warm) passes
            problems.append(
                f"the timed {span} holds {share:.0%} of the read's I/O ({what}; < {min_share:.0%})"
            )
    seconds = record[f"{span}_seconds"]
    if seconds < min_seconds:
        problems.append(f"the timed {span} lasts {seconds:.3g} s (< {min_seconds:g} s)")
    return problems


__all__ = [
    "DamagedFileError",
    "ReadError",
    "measure_point",
    "needs_measuring",
    "plan_point",
    "point_identity",
    "reader_command",
    "run_tool",
]
