"""One timed repetition: check the machine is quiet, make the file cold, read it in a fresh native process
under TTreePerfStats while dool samples the system, and write one record.

Order of a repetition, and why:
 1. start the monitor and wait for its first real sample (so the window is covered from its start);
 2. evict the file (drop_caches as root, else fdatasync + fadvise);
 3. make the same read of a small warm-up file of the same format: drop_caches also evicted the reader,
    ROOT's libraries and modules, and reading those back would otherwise show up in the monitor's disk
    traffic and in the start-up of the timed read (the warm-up file is a different file, so the file under
    test stays cold);
 4. sample /proc/stat for the CPU use of everything else (a busy machine flags the repetition);
 5. wait for the next monitor sample, then verify with mincore that none of the file's pages are resident,
    immediately before the read;
 6. run the reader (one fresh process; the event loop and all timing are in C++);
 7. wait for the monitor sample that covers the end of the window, stop it, summarize the window;
 8. flag what was not as it should be (busy machine, CPU steal, disk bytes against ROOT's bytes), try
    again if so (up to measurement.attempts), write the record atomically.
"""

from __future__ import annotations

import json
import os
import platform
import socket
import subprocess
import time
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


def cpu_use(seconds: float = 0.5) -> tuple[float, float]:
    """(busy, steal) fractions of all CPUs' time over ``seconds`` while this process sleeps: busy is what
    other processes used, steal what the hypervisor gave to other machines (/proc/stat's 8th field); they
    are told apart because they have different causes and remedies."""

    def snapshot() -> tuple[int, int, int]:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
        idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
        steal = fields[7] if len(fields) > 7 else 0
        return idle, steal, sum(fields[:8])

    idle0, steal0, total0 = snapshot()
    time.sleep(seconds)
    idle1, steal1, total1 = snapshot()
    total = total1 - total0
    if total <= 0:
        return 0.0, 0.0
    steal = (steal1 - steal0) / total
    return 1.0 - (idle1 - idle0) / total - steal, steal


def host_fingerprint() -> dict[str, str]:
    return {
        "host": socket.gethostname(),
        "kernel": platform.release(),
        "slurm_job_id": os.environ.get("SLURM_JOB_ID", ""),
        "slurm_node": os.environ.get("SLURMD_NODENAME", ""),
    }


def measure_repetition(
    *,
    root_file: str,
    warmup_file: str,
    reader: str,
    events: int,
    read: dict[str, Any],
    measurement: dict[str, Any],
    monitor_csv: str,
    record_path: str,
    labels: dict[str, Any],
) -> dict[str, Any]:
    """Make one timed repetition and write its record to ``record_path``; return the record.

    A repetition whose conditions were not met (busy machine, CPU stolen by the hypervisor, disk bytes not
    matching ROOT's) is tried again, up to ``measurement.attempts`` times in all; the record keeps the last
    attempt, its number, and why the earlier ones were discarded. If every attempt is flagged, the last one
    is kept, flagged.
    """
    cold = measurement["cache_state"] == "cold"
    if cold and not pagecache.can_drop_caches() and not os.access(root_file, os.R_OK):
        raise pagecache.EvictionError(f"{root_file}: not readable")
    tool = find_monitor(measurement["monitor"])
    profile = storage.resolve_profile(measurement["storage_profile"])
    storage.check_throttling_possible(profile, root_file)
    discarded: list[str] = []
    for attempt in range(1, measurement["attempts"] + 1):
        record = _attempt(
            root_file, warmup_file, reader, events, read, measurement, monitor_csv, tool, profile
        )
        if not record["flagged"] or attempt == measurement["attempts"]:
            break
        discarded.append(f"attempt {attempt}: {record['flag_reasons']}")
    record = {**labels, **record, "attempt": attempt, "discarded_attempts": " | ".join(discarded)}
    write_json_atomic(record_path, record)
    return record


def _attempt(
    root_file: str,
    warmup_file: str,
    reader: str,
    events: int,
    read: dict[str, Any],
    measurement: dict[str, Any],
    monitor_csv: str,
    tool: tuple[str, str] | None,
    profile: storage.StorageProfile,
) -> dict[str, Any]:
    harness_start = time.time()
    last_mark = [harness_start]
    cold = measurement["cache_state"] == "cold"
    record: dict[str, Any] = {**host_fingerprint(), "cache_state": measurement["cache_state"]}
    record.update(profile.as_record())
    record["monitor"] = tool[0] if tool else "none"

    def mark(step: str) -> None:
        # Where the harness spends its time per repetition (reported by benchmarks/read_throughput.py).
        now = time.time()
        record[f"harness_{step}_seconds"] = now - last_mark[0]
        last_mark[0] = now

    def prepare_and_read(mon: Monitor | None) -> dict[str, Any]:
        mark("monitor_start")
        if cold:
            method, _ = pagecache.make_cold(root_file)
        else:
            method = "warm-read"
            pagecache.make_warm(root_file)
        mark("eviction")
        run_tool(reader_command(reader, warmup_file, 2, read), f"warm-up read of {warmup_file}")
        mark("warmup")
        # Sampled just before the read, after the workflow's own start-up of this job has settled.
        record["cpu_busy_before"], record["cpu_steal_before"] = cpu_use()
        mark("busy_check")
        if mon:
            # Start on a fresh monitor interval, so that the samples covering the timed read do not also
            # hold the eviction and the warm-up.
            mon.wait_for_sample_after(time.time(), timeout=10)
        mark("monitor_align")
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
            return run_tool(
                reader_command(reader, root_file, events, read),
                f"timed read of {root_file}",
                preexec=storage.join_group(procs),
            )

    if tool:
        with Monitor(tool, monitor_csv) as mon:
            result = prepare_and_read(mon)
            mark("reader")
            mon.wait_for_sample_after(result["end_time"] + 0.05, timeout=10)
        samples = mon.samples()
        window = summarize_window(samples, result["start_time"], result["end_time"])
        # ROOT's byte count covers the whole process (open and first event included), so the disk side of
        # the cross-check covers the same span.
        process = summarize_window(samples, result["process_start_time"], result["end_time"])
        window["process_disk_read_bytes"] = process.get("disk_read_bytes", float("nan"))
    else:
        Path(monitor_csv).parent.mkdir(parents=True, exist_ok=True)
        Path(monitor_csv).write_text("")  # the record says monitor = none
        result = prepare_and_read(None)
        mark("reader")
        window = {}
    mark("monitor_stop")
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
    busy = record["cpu_busy_before"]
    if busy > measurement["busy_cpu_threshold"]:
        reasons.append(f"busy machine: {busy:.0%} CPU used before the read")
    # On a VM the hypervisor can give this machine's CPU to others; dool sees it as "stl" during the read.
    steal_before = record.get("cpu_steal_before", 0.0)
    steal = record.get("mon_cpu_steal_pct_mean", 0.0) / 100
    if steal > measurement["max_cpu_steal"]:
        reasons.append(f"CPU stolen by the hypervisor: {steal:.0%} during the read")
    elif steal_before > measurement["max_cpu_steal"]:
        reasons.append(f"CPU stolen by the hypervisor: {steal_before:.0%} just before the read")
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
