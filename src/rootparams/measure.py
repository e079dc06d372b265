"""One timed repetition: check the machine is quiet, make the file cold, read it in a fresh native process
under TTreePerfStats while dool samples the system, and write one record.

Order of a repetition, and why:
 1. sample /proc/stat for the CPU use of everything else (a busy machine flags the repetition);
 2. start the monitor and wait for its first real sample (so the window is covered from its start);
 3. evict the file (drop_caches as root, else fdatasync + fadvise);
 4. make the same read of a small warm-up file of the same format: drop_caches also evicted the reader,
    ROOT's libraries and modules, and reading those back would otherwise show up in the monitor's disk
    traffic and in the start-up of the timed read (the warm-up file is a different file, so the file under
    test stays cold);
 5. wait for the next monitor sample, then verify with mincore that none of the file's pages are resident,
    immediately before the read;
 6. run the reader (one fresh process; the event loop and all timing are in C++);
 7. wait for the monitor sample that covers the end of the window, stop it, summarize the window;
 8. cross-check disk bytes against ROOT's bytes, set flags, write the record atomically.
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


def cpu_busy_fraction(seconds: float = 0.5) -> float:
    """Fraction of all CPUs' time not idle over ``seconds`` (this process sleeps meanwhile)."""

    def snapshot() -> tuple[int, int]:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
        idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
        return idle, sum(fields[:8])

    idle0, total0 = snapshot()
    time.sleep(seconds)
    idle1, total1 = snapshot()
    total = total1 - total0
    return 1.0 - (idle1 - idle0) / total if total > 0 else 0.0


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
    """Make one timed repetition and write its record to ``record_path``; return the record."""
    harness_start = time.time()
    last_mark = [harness_start]

    def mark(step: str) -> None:
        # Where the harness spends its time per repetition (reported by benchmarks/read_throughput.py).
        now = time.time()
        record[f"harness_{step}_seconds"] = now - last_mark[0]
        last_mark[0] = now

    cold = measurement["cache_state"] == "cold"
    if cold and not pagecache.can_drop_caches() and not os.access(root_file, os.R_OK):
        raise pagecache.EvictionError(f"{root_file}: not readable")
    tool = find_monitor(measurement["monitor"])
    profile = storage.resolve_profile(measurement["storage_profile"])
    storage.check_throttling_possible(profile, root_file)
    record: dict[str, Any] = {**labels, **host_fingerprint(), "cache_state": measurement["cache_state"]}
    busy = cpu_busy_fraction()
    mark("busy_check")
    record.update(profile.as_record())
    record["cpu_busy_before"] = busy
    record["monitor"] = tool[0] if tool else "none"

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

    reasons = []
    if busy > measurement["busy_cpu_threshold"]:
        reasons.append(f"busy machine: {busy:.0%} CPU used before the read")
    if cold and tool and result["bytes_read"] >= CROSSCHECK_MIN_BYTES and "process_disk_read_bytes" in window:
        ratio = window["process_disk_read_bytes"] / result["bytes_read"]
        record["disk_to_root_bytes_ratio"] = ratio
        if abs(ratio - 1) > measurement["disk_crosscheck_tolerance"]:
            reasons.append(f"disk read {ratio:.2f}x the bytes ROOT read")
    record["flagged"] = bool(reasons)
    record["flag_reasons"] = "; ".join(reasons)
    write_json_atomic(record_path, record)
    return record
