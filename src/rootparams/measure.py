"""The timed reads of one grid point: check the machine is quiet, make the file cold, read it in a fresh
native process under TTreePerfStats while dool samples the system, and write one record per repetition.

Once per point:
 1. start the monitor and wait for its first real sample (so the first window is covered from its start);
 2. with measurement.eviction = "system" (as root): drop the whole page cache (sync; echo 3 > drop_caches),
    the paper's method, then read a small warm-up file of the same format with the same reader, so that the
    reader, ROOT's libraries and modules are back in memory: otherwise reading them would show up in the
    monitor's disk traffic and in the start-up of the first timed read (the warm-up file is a different
    file: the file under test stays cold). The default, "file", skips this: every other process (Snakemake,
    dool, the shell) would re-read its own evicted pages during the next reads and pollute the monitor's
    disk counters, and step 3 is what makes the file cold either way;
Then for each repetition:
 3. evict the file under test (fdatasync + POSIX_FADV_DONTNEED on its pages only, so the libraries stay
    warm) and verify with mincore, immediately before the read, that none of its pages is resident;
 4. run the reader (one fresh process; the event loop and all timing are in C++), with /proc/stat read just
    before and after it: what the CPUs did meanwhile, minus the reader's own CPU time, is what the rest of
    the machine used, and the steal column is what the hypervisor gave to other machines;
 5. wait for the monitor sample that covers the end of the read and summarize the read's window;
 6. flag what was not as it should be (busy machine, CPU steal, disk bytes against ROOT's bytes), try again
    if so (up to measurement.attempts), and write the record atomically.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import resource
import socket
import subprocess
import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rootparams import pagecache, storage
from rootparams.monitor import Monitor, find_monitor, summarize_window
from rootparams.records import write_json_atomic

JSON_MARKER = "ROOTPARAMS_JSON "
# Below this many bytes read, a 1 s monitor cannot resolve the read: the disk cross-check is not applied.
CROSSCHECK_MIN_BYTES = 4 << 20


class ReadError(RuntimeError):
    """The reader failed; the message names the file and ROOT's complaint."""


# What the reader says about a file that is not a sound ROOT file with our tree (read_collection_tree.cxx).
DAMAGED_FILE_MESSAGES = (
    "cannot be opened as a ROOT file",
    "ROOT had to recover the file",
    "corrupt basket or I/O error",
    "has no TTree named",
    "were requested",
)


def is_damaged_file_error(error: Exception) -> bool:
    return isinstance(error, ReadError) and any(m in str(error) for m in DAMAGED_FILE_MESSAGES)


def run_tool(cmd: list[str], what: str, preexec=None) -> dict[str, Any]:
    """Run one of our executables (argument list, never a shell string) and return its JSON line."""
    proc = subprocess.run(cmd, capture_output=True, text=True, preexec_fn=preexec)
    lines = [line for line in proc.stdout.splitlines() if line.startswith(JSON_MARKER)]
    if proc.returncode != 0 or not lines:
        err = "\n".join(line for line in proc.stderr.splitlines() if line.strip())[-3000:]
        raise ReadError(f"{what} failed (exit code {proc.returncode}):\n{err or proc.stdout[-2000:]}")
    result = json.loads(lines[-1][len(JSON_MARKER) :])
    warnings = [line for line in proc.stderr.splitlines() if line.startswith(("Error in", "Warning in"))]
    if warnings:
        result["root_messages"] = " | ".join(warnings)[:2000]
    return result


def reader_command(reader: str, path: str, events: int, read: dict[str, Any]) -> list[str]:
    learn = -1 if read["learn_entries"] == "default" else int(read["learn_entries"])
    return [
        reader, "--file", path, "--events", str(events), "--branches", read["branches"],
        "--cache-size", str(read["cache_size"]), "--learn-entries", str(learn), "--threads", str(read["threads"]),
    ]  # fmt: skip


@dataclass(frozen=True)
class CpuTimes:
    """/proc/stat's first line (all CPUs, in clock ticks) and this process's children's CPU time."""

    busy: int
    steal: int
    total: int
    children_cpu_seconds: float

    @classmethod
    def now(cls) -> CpuTimes:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
        idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
        steal = fields[7] if len(fields) > 7 else 0
        total = sum(fields[:8])
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return cls(total - idle - steal, steal, total, usage.ru_utime + usage.ru_stime)


def cpu_use_between(before: CpuTimes, after: CpuTimes) -> tuple[float, float]:
    """(busy, steal) as fractions of all CPUs' time between two snapshots: busy is what processes other than
    the children waited for in between used, steal what the hypervisor gave to other machines. They are told
    apart because they have different causes and remedies."""
    total = after.total - before.total
    if total <= 0:
        return 0.0, 0.0
    ticks = os.sysconf("SC_CLK_TCK")
    children = (after.children_cpu_seconds - before.children_cpu_seconds) * ticks
    busy = max(0.0, (after.busy - before.busy - children) / total)
    return min(busy, 1.0), (after.steal - before.steal) / total


def host_fingerprint() -> dict[str, str]:
    return {
        "host": socket.gethostname(),
        "kernel": platform.release(),
        "slurm_job_id": os.environ.get("SLURM_JOB_ID", ""),
        "slurm_node": os.environ.get("SLURMD_NODENAME", ""),
    }


def point_identity(root_file: str, measurement: dict[str, Any]) -> dict[str, Any]:
    """What a kept repetition record must match to be reused by a rerun: the very file (its size and
    modification time, so a regenerated file is measured again) and the measurement settings."""
    st = os.stat(root_file)
    settings = json.dumps(measurement, sort_keys=True, default=str)
    return {
        "file_size_bytes": st.st_size,
        "file_mtime_ns": st.st_mtime_ns,
        "measurement_key": hashlib.sha1(settings.encode()).hexdigest()[:12],
    }


IDENTITY_KEYS = (
    "file_id",
    "read_id",
    "events_requested",
    "file_size_bytes",
    "file_mtime_ns",
    "measurement_key",
)


def reusable_record(path: str, labels: dict[str, Any]) -> dict[str, Any] | None:
    """The record at ``path`` if an earlier run took it under the same identity, else None."""
    try:
        with open(path) as f:
            record = json.load(f)
    except (OSError, ValueError):
        return None  # absent, or cut short by a crash (records are written atomically, so rarely)
    if all(record.get(k) == labels.get(k) for k in IDENTITY_KEYS if k in labels):
        return record
    return None


def measure_point(
    *,
    root_file: str,
    warmup_file: str,
    reader: str,
    events: int,
    read: dict[str, Any],
    measurement: dict[str, Any],
    monitor_csv: str | Callable[[int], str],
    records: dict[int, str],
    labels: dict[str, Any],
) -> list[dict[str, Any]]:
    """Make the timed repetitions of one point, writing repetition ``rep``'s record to ``records[rep]``
    as soon as it is taken; return every repetition's record (``reused``: kept from an earlier run).

    Repetitions whose record an earlier run already wrote under the same identity (see point_identity)
    are kept, not measured again. ``monitor_csv`` is a path or, given the first repetition this call
    measures, returns one (so that the samples of earlier runs are kept too).

    A repetition whose conditions were not met (busy machine, CPU stolen by the hypervisor, disk bytes not
    matching ROOT's) is tried again, up to ``measurement.attempts`` times in all; the record keeps the last
    attempt, its number, and why the earlier ones were discarded. If every attempt is flagged, the last one
    is kept, flagged.
    """
    kept = {rep: r for rep, path in records.items() if (r := reusable_record(path, labels)) is not None}
    todo = sorted(set(records) - set(kept))
    out = {rep: {**r, "reused": True} for rep, r in kept.items()}
    if not todo:
        return [out[rep] for rep in sorted(out)]
    cold = measurement["cache_state"] == "cold"
    if not os.access(root_file, os.R_OK):
        raise ReadError(f"{root_file}: not readable")
    tool = find_monitor(measurement["monitor"])
    profile = storage.resolve_profile(read["storage_profile"], measurement["storage_profiles"])
    storage.check_throttling_possible(profile, root_file)
    csv_path = monitor_csv(todo[0]) if callable(monitor_csv) else monitor_csv
    with Monitor(tool, csv_path) if tool else nullcontext() as mon:
        if not tool:
            Path(csv_path).parent.mkdir(parents=True, exist_ok=True)
            Path(csv_path).write_text("")  # the records say monitor = none
        point_start = time.time()
        system_eviction = "none"
        if cold and measurement["eviction"] == "system":
            # The paper's method, once per point; the warm-up read then brings the reader and ROOT's
            # libraries back (from another file, so the file under test stays cold).
            system_eviction, _ = pagecache.make_cold(root_file, system_wide=True)
            run_tool(reader_command(reader, warmup_file, 2, read), f"warm-up read of {warmup_file}")
        if mon:
            # The first repetition's samples start after the preparation (its disk traffic stays out).
            mon.wait_for_sample_after(time.time(), timeout=10)
        point_prepare = time.time() - point_start
        for rep in todo:
            discarded: list[str] = []
            for attempt in range(1, measurement["attempts"] + 1):
                record = _attempt(root_file, reader, events, read, measurement, mon, profile)
                if not record["flagged"] or attempt == measurement["attempts"]:
                    break
                discarded.append(f"attempt {attempt}: {record['flag_reasons']}")
            record = {
                **labels,
                "rep": rep,
                **record,
                "monitor": tool[0] if tool else "none",
                "monitor_csv": csv_path,
                "point_eviction_method": system_eviction,
                "harness_point_prepare_seconds": point_prepare,
                "attempt": attempt,
                "discarded_attempts": " | ".join(discarded),
            }
            write_json_atomic(records[rep], record)
            out[rep] = {**record, "reused": False}
    return [out[rep] for rep in sorted(out)]


def _attempt(
    root_file: str,
    reader: str,
    events: int,
    read: dict[str, Any],
    measurement: dict[str, Any],
    mon: Monitor | None,
    profile: storage.StorageProfile,
) -> dict[str, Any]:
    harness_start = time.time()
    cold = measurement["cache_state"] == "cold"
    record: dict[str, Any] = {**host_fingerprint(), "cache_state": measurement["cache_state"]}
    record.update(profile.as_record())
    if cold:
        method, _ = pagecache.make_cold(root_file, system_wide=False)
    else:
        method = "warm-read"
        pagecache.make_warm(root_file)
    state = pagecache.residency(root_file)
    if cold and state.resident_pages:
        raise pagecache.EvictionError(
            f"{root_file}: {state.resident_pages} of {state.total_pages} pages came back into the page cache "
            "between eviction and the read (something else is reading the file); refusing to measure"
        )
    record["eviction_method"] = method
    record["resident_fraction_before"] = state.fraction
    record["file_pages"] = state.total_pages
    record["harness_prepare_seconds"] = time.time() - harness_start
    # Only the reader goes into the throttled group: the warm-up and the rest of the pipeline are not slowed.
    with storage.throttle_group(profile, root_file) as procs:
        cpu_before = CpuTimes.now()
        result = run_tool(
            reader_command(reader, root_file, events, read),
            f"timed read of {root_file}",
            preexec=storage.join_group(procs),
        )
        cpu_after = CpuTimes.now()
    record["cpu_busy_during"], record["cpu_steal_during"] = cpu_use_between(cpu_before, cpu_after)
    reader_done = time.time()
    window: dict[str, Any] = {}
    if mon:
        # The sample covering the end of the read, so that the window is complete; the next repetition's
        # eviction then falls into later samples.
        mon.wait_for_sample_after(result["end_time"] + 0.05, timeout=10)
        samples = mon.samples()
        window = summarize_window(samples, result["start_time"], result["end_time"])
        # ROOT's byte count covers the whole process (open and first event included), so the disk side of
        # the cross-check covers the same span.
        process = summarize_window(samples, result["process_start_time"], result["end_time"])
        window["process_disk_read_bytes"] = process.get("disk_read_bytes", float("nan"))
    record["harness_monitor_wait_seconds"] = time.time() - reader_done
    record.update(result)
    record.update({f"mon_{k}": v for k, v in window.items()})
    record["harness_total_seconds"] = time.time() - harness_start
    ratio = disk_to_root_ratio(record, cold)
    if ratio is not None:
        record["disk_to_root_bytes_ratio"] = ratio
    record["flag_reasons"] = "; ".join(flag_reasons(record, measurement, cold))
    record["flagged"] = bool(record["flag_reasons"])
    return record


def flag_reasons(record: dict[str, Any], measurement: dict[str, Any], cold: bool) -> list[str]:
    """Why a repetition's conditions were not met (empty when they were)."""
    reasons = []
    busy = record["cpu_busy_during"]
    if busy > measurement["busy_cpu_threshold"]:
        reasons.append(f"busy machine: other processes used {busy:.0%} of the CPUs during the read")
    # On a VM the hypervisor can give this machine's CPU to others (/proc/stat's steal; dool's "stl").
    steal = record.get("cpu_steal_during", 0.0)
    if steal > measurement["max_cpu_steal"]:
        reasons.append(f"CPU stolen by the hypervisor: {steal:.0%} during the read")
    ratio = disk_to_root_ratio(record, cold)
    if ratio is not None and abs(ratio - 1) > measurement["disk_crosscheck_tolerance"]:
        reasons.append(f"disk read {ratio:.2f}x the bytes ROOT read")
    return reasons


def disk_to_root_ratio(record: dict[str, Any], cold: bool) -> float | None:
    """Disk bytes dool saw over the reader's lifetime over the bytes ROOT read; None where the cross-check
    does not apply (warm read, no monitor, a read too small for 1 s samples to resolve)."""
    process_disk = record.get("mon_process_disk_read_bytes")
    if not cold or process_disk is None or record["bytes_read"] < CROSSCHECK_MIN_BYTES:
        return None
    return process_disk / record["bytes_read"]
