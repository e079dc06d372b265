"""Storage primitives: what the disk under each storage profile delivers to a reader that reads like ROOT, measured
with fio in a minute or two, so that a model of the cold read can predict a read's time from a few figures of the
host instead of measuring every point.

For native storage and every local storage profile the study reads on, a scratch file in the study's data_dir is
read cold (evicted and verified out of the page cache before every run) by fio inside the profile's cgroup, the
same throttle the timed reads run under (rootparams.host.storage):

- **sequential** reads of 1 MiB blocks, buffered (what ROOT sees: its reads go through the page cache and the
  kernel's read-ahead) and direct (O_DIRECT: the device's own streaming rate, without read-ahead);
- **random** buffered reads of 4 KiB, 64 KiB, 512 KiB and 4 MiB (the sizes of ROOT's requests: a basket of
  ~32 kB at a time without the TTreeCache, a cluster's baskets in large reads with it), one at a time
  (ROOT reads synchronously: iodepth 1).

Beside fio, one more job of native storage, read by this module itself: the **page-cache fill**, the CPU a cold
read costs beyond a warm one (``measure_page_cache_fill``). A cold read's pages are new to the page cache: the kernel
allocates them, builds the block requests and, on a virtual machine whose host takes back free memory (free page
reporting, rootparams.host.hostmemory), faults in memory the host must back again. That is system CPU of the reader's
own thread, which no warm read shows; its figure, seconds per MB the block layer brings in, is the model's part
``page_cache_fill``.

Each run reports bandwidth, IOPS and per-request latency (mean, p50, p99), and, from the cgroup's counters, the
block requests and bytes it cost the disk: the throttle's IOPS limit counts those requests (bios), not the
reader's calls. Every run is repeated (three times by default) in interleaved, shuffled rounds, and the table has
the mean with its 95 % interval and n (rootparams.stats.intervals). A throttled profile is checked against its nominal
figures (bandwidth within NOMINAL_TOLERANCE of read_bps where that limit binds, never above it; block requests per
second never above read_iops): the check's verdict (pass, fail, or cannot tell where the disk itself is not fast
enough to show the limit) is a column of the table, so a throttle that does not do what its profile says is seen,
not hidden.
"""

from __future__ import annotations

import json
import math
import os
import random
import resource
import shlex
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from rootparams.errors import UserError
from rootparams.host import hostmemory, pagecache, storage
from rootparams.host.exclusive import DEFAULT_LOCK, HostLock, Lifeline
from rootparams.host.storage import StorageProfile
from rootparams.stats.intervals import Interval
from rootparams.study.config import used_storage_profiles
from rootparams.study.labels import STORAGE_ORDER
from rootparams.tools import paths
from rootparams.tools.processes import die_with_parent

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30

# The defaults of a measurement, the same as the schema's (measurement.storage_primitives, which a study may set
# smaller; tests/test_storage_primitives.py checks that they agree). 3 repetitions give a t interval (2 degrees of
# freedom); 1 s per run and six runs per profile keep four profiles within two minutes (the throttled ones run until
# the time is up, native until the file has been read once; fio itself takes ~0.3 s to start and stop). A run reads
# the scratch file at most once, so that no read finds pages an earlier read of the same run brought into the page
# cache; 1 GiB lasts ~0.7 s at the ~1.5 GB/s of a host-cached disk, and fits any data_dir that holds a study.
REPETITIONS = 3
_RUNTIME_SECONDS = 1.0
SCRATCH_BYTES = 1 * GIB
# A throttle is trusted where it delivers its nominal bandwidth within 10 %; the physics check of the timed reads
# (docs/measurement.md, "The instrument checks its own physics") holds the same margin.
NOMINAL_TOLERANCE = 0.10
# A sequential read tests a throttle's bandwidth only where the disk itself is at least this much faster: a disk about
# as fast as the limit compounds with it (measured: under ssd's 500 MB/s, buffered reads of a disk that managed
# ~510 MB/s natively ran at ~360 MB/s).
_DISK_HEADROOM = 2.0


# The page-cache fill (measure_page_cache_fill): the first FILL_BYTES of the scratch file, read in 1 MiB calls cold
# and then warm, FILL_RUNS_PER_ROUND times in every round. 256 MB take ~0.2-0.7 s on a host-cached disk and give
# 0.01-0.6 s of system CPU, above the kernel's 4 ms accounting tick. The figure varies from run to run on a virtual
# machine whose host takes back free memory: measured on a 2-core VM, 0.0 to 2.3 ms per MB, whether the allocator
# hands the page cache memory the host still backs or memory it took back (the wait below does not decide it: 3, 6
# and 10 s gave both). So the runs are many, and the table gives their mean with its interval; holding free page
# reporting (measurement.hold_free_page_reporting) takes the second case away.
FILL_PATTERN = "page-cache fill"
_FILL_BYTES = 256 * MIB
_FILL_CHUNK_BYTES = 1 * MIB
_FILL_RUNS_PER_ROUND = 4
# Free page reporting hands a freed block to the host about 2 s after it was freed (PAGE_REPORTING_DELAY in the
# kernel's mm/page_reporting.c). A timed read starts seconds after the reader before it ended, so the fill waits at
# least that long before it reads.
_REPORTING_WAIT_SECONDS = 3.0


class StorageBenchError(UserError):
    """fio is missing, failed, or said something that cannot be read; or the scratch file does not fit."""


@dataclass(frozen=True)
class FioJob:
    """One kind of run: an access pattern, a request size and buffered or direct I/O."""

    pattern: str  # "sequential" or "random"
    block_bytes: int
    io_mode: str  # "buffered" or "direct"

    @property
    def name(self) -> str:
        return f"{self.pattern}-{self.io_mode}-{self.block_bytes}"

    @property
    def rw(self) -> str:
        return {"sequential": "read", "random": "randread"}[self.pattern]


JOBS = (
    # Buffered, because ROOT reads through the page cache: with the kernel's read-ahead, which decides how much a
    # cold sequential read gets per request. Direct beside it (cheap: one more run), the device's own streaming
    # rate at ROOT's block size, without read-ahead.
    FioJob("sequential", 1 * MIB, "buffered"),
    FioJob("sequential", 1 * MIB, "direct"),
    # ROOT's request sizes: one basket at a time without the TTreeCache (4 to 64 kB), a cluster's baskets in large
    # vectored reads with it (512 kB to MBs, capped at max_sectors_kb per block request).
    *(FioJob("random", size, "buffered") for size in (4 * KIB, 64 * KIB, 512 * KIB, 4 * MIB)),
)


def _find_fio(fio: str | None = None) -> str:
    """The fio executable: ``fio`` if given, else the one on PATH."""
    found = shutil.which(fio or "fio")
    if found is None:
        raise StorageBenchError(
            f"fio is not installed: {fio or 'fio'!r} is neither an executable file nor on PATH "
            f"({os.environ.get('PATH', '')}). The storage primitives are measured with it; install it "
            "(Debian/Ubuntu: apt-get install fio; Fedora/RHEL: dnf install fio; ./run does it as root)."
        )
    return found


def fio_version(fio: str) -> str:
    proc = subprocess.run([fio, "--version"], capture_output=True, text=True)
    return proc.stdout.strip() or proc.stderr.strip()


def _fio_command(
    fio: str, job: FioJob, path: str | Path, size_bytes: int, runtime_seconds: float, output: str | Path
) -> list[str]:
    """The fio command line of one run of ``job`` on the file ``path``, its JSON report written to ``output``."""
    return [
        fio,
        f"--name={job.name}",
        f"--filename={path}",
        f"--rw={job.rw}",
        f"--bs={job.block_bytes}",
        f"--direct={int(job.io_mode == 'direct')}",
        # ROOT reads with read(2), one request at a time, from one thread.
        "--ioengine=sync",
        "--iodepth=1",
        "--numjobs=1",
        # The whole file once at most: a run never rereads what it has brought into the page cache (random reads
        # hit every block once: fio's random map). The time limit ends the slow profiles' runs early.
        f"--size={size_bytes}",
        f"--runtime={max(1, round(runtime_seconds * 1000))}ms",
        # fio would tell the kernel that random reads are random (POSIX_FADV_RANDOM), which turns off the read-ahead;
        # ROOT gives no such hint, so neither does this run.
        "--fadvise_hint=0",
        # The file is ours, made and evicted (and verified cold) before the run; fio must not lay it out again.
        "--allow_file_create=0",
        "--invalidate=1",
        # The job as a thread of the one fio process, so that the process's death signal (the measuring job is
        # gone) ends the reads too.
        "--thread",
        # Latency from submission to completion, with its median and 99th percentile.
        "--lat_percentiles=1",
        "--percentile_list=50:99",
        "--output-format=json",
        f"--output={output}",
    ]


@dataclass(frozen=True)
class FioResult:
    """What one fio run measured (its job's read side)."""

    job_name: str
    io_bytes: int
    runtime_s: float
    bandwidth_bps: float
    iops: float
    total_ios: int
    latency_s_mean: float
    latency_s_p50: float
    latency_s_p99: float
    fio_version: str


def _percentile(latency: Mapping[str, Any], which: float) -> float:
    """One percentile (ns) of fio's ``{"50.000000": ns, ...}``; NaN where fio gave none (no request completed)."""
    for key, value in (latency.get("percentile") or {}).items():
        if math.isclose(float(key), which):
            return float(value)
    return math.nan


def _parse_fio_json(report: str | Mapping[str, Any], source: str = "fio's report") -> FioResult:
    """The read side of the single job in a fio JSON report (``--output-format=json``)."""
    try:
        data = json.loads(report) if isinstance(report, str) else report
    except json.JSONDecodeError as error:
        start = report[:200] if isinstance(report, str) else ""
        raise StorageBenchError(
            f"{source} is not fio's JSON ({error}); it starts with {start!r}. Expected the output of "
            "fio --output-format=json."
        ) from error
    jobs = data.get("jobs") if isinstance(data, Mapping) else None
    if not isinstance(jobs, list) or len(jobs) != 1:
        raise StorageBenchError(
            f"{source} holds {len(jobs) if isinstance(jobs, list) else 'no'} jobs under 'jobs'; a run of the "
            "storage primitives has exactly one"
        )
    job = jobs[0]
    if job.get("error"):
        raise StorageBenchError(
            f"{source}: fio's job {job.get('jobname')!r} ended with error {job['error']} "
            f"({os.strerror(job['error']) if isinstance(job['error'], int) else job['error']})"
        )
    read = job.get("read")
    if not isinstance(read, Mapping) or "lat_ns" not in read:
        raise StorageBenchError(
            f"{source}: job {job.get('jobname')!r} has no read statistics (keys: "
            f"{sorted(read) if isinstance(read, Mapping) else read!r}); expected 'read' with 'lat_ns'"
        )
    if not read.get("total_ios"):
        raise StorageBenchError(
            f"{source}: job {job.get('jobname')!r} completed no read in {read.get('runtime', 0)} ms; the file is "
            "empty or the run's time limit is too short"
        )
    # With --lat_percentiles the percentiles are of the total latency (lat_ns); older fio puts them in clat_ns,
    # which for the synchronous engine is the same time.
    latency = read["lat_ns"]
    percentiles = latency if latency.get("percentile") else read.get("clat_ns", {})
    return FioResult(
        job_name=str(job.get("jobname", "")),
        io_bytes=int(read["io_bytes"]),
        runtime_s=float(read["runtime"]) / 1e3,
        bandwidth_bps=float(read["bw_bytes"]),
        iops=float(read["iops"]),
        total_ios=int(read["total_ios"]),
        latency_s_mean=float(latency["mean"]) / 1e9,
        latency_s_p50=_percentile(percentiles, 50) / 1e9,
        latency_s_p99=_percentile(percentiles, 99) / 1e9,
        fio_version=str(data.get("fio version", "")),
    )


@dataclass(frozen=True)
class Device:
    """The whole disk that holds a file, and the queue settings that shape a cold read."""

    name: str  # the kernel's name: vda, sda, nvme0n1
    number: str  # major:minor
    read_ahead_kb: int  # how far the kernel reads ahead of a buffered sequential read
    max_sectors_kb: int  # the largest block request; a larger read is split into several
    # The most memory segments of one request: a read into scattered 4 KiB pages (O_DIRECT into a user buffer, a
    # random read into the page cache) is split at max_segments x 4 KiB, below max_sectors_kb.
    max_segments: int
    rotational: int  # 1 where the kernel believes it is a spinning disk (a VM's virtual disk often says so)

    def as_record(self) -> dict[str, Any]:
        return {
            "device": self.name,
            "device_number": self.number,
            "read_ahead_kb": self.read_ahead_kb,
            "max_sectors_kb": self.max_sectors_kb,
            "max_segments": self.max_segments,
            "rotational": self.rotational,
        }


_DEVICE_COLUMNS = ["device", "device_number", "read_ahead_kb", "max_sectors_kb", "max_segments", "rotational"]


def _device_of(path: str | Path) -> Device:
    """The disk of ``path`` (storage.block_device_of: the whole disk, not a partition) and its queue settings."""
    number = storage.block_device_of(path)
    sys_dev = Path(f"/sys/dev/block/{number}").resolve()
    queue = sys_dev / "queue"

    def setting(name: str) -> int:
        try:
            return int((queue / name).read_text().strip())
        except (OSError, ValueError):
            return -1  # not exposed by this kernel or device: recorded as unknown

    return Device(
        sys_dev.name,
        number,
        setting("read_ahead_kb"),
        setting("max_sectors_kb"),
        setting("max_segments"),
        setting("rotational"),
    )


def profiles_to_measure(config: Mapping[str, Any]) -> list[StorageProfile]:
    """native, then every local profile the study reads on (read_defaults and the scans), in the config's order.

    Remote profiles are left out: they read through root:// over the unthrottled disk, and what they add is the
    network's round trips and bandwidth, which rootparams.measure.remote_primitives measures through their endpoints; their disk
    is native's. The config
    is the workflow's, after without_throttling: on a machine that cannot throttle only native remains."""
    custom = config["measurement"]["storage_profiles"]
    names = dict.fromkeys(["native", *(name for _, name in used_storage_profiles(config))])
    profiles = [storage.resolve_profile(name, custom) for name in names]
    return [p for p in profiles if p.access == "local"]


def write_scratch_file(path: Path, size_bytes: int, seed: int = 0) -> None:
    """``size_bytes`` of random bytes at ``path``, on the disk: random, so that no layer below (a host's zero
    detection, deduplication or compression) can serve the reads cheaper than real data; fdatasync'd, so that every
    page can be evicted."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    rng = np.random.default_rng(seed)
    chunk = 16 * MIB
    try:
        with open(partial, "wb") as f:
            left = size_bytes
            while left > 0:
                f.write(rng.bytes(min(chunk, left)))
                left -= chunk
            f.flush()
            os.fdatasync(f.fileno())
        partial.replace(path)
    finally:
        partial.unlink(missing_ok=True)


def _check_free_space(data_dir: Path, size_bytes: int) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    free = shutil.disk_usage(data_dir).free
    # What the scratch file needs, with room to spare for the rest of the host.
    if free < size_bytes + 256 * MIB:
        raise StorageBenchError(
            f"data_dir {data_dir} has {free / 1e9:.2f} GB free; the storage primitives need a scratch file of "
            f"{size_bytes / 1e9:.2f} GB there (plus 0.27 GB to spare), on the disk the study reads from. Free "
            "space there, or set data_dir to a local disk with more room."
        )


def _preexec(group: storage.IoGroup | None) -> Callable[[], None]:
    join = storage.join_group(group.procs if group else None)

    def before_exec() -> None:
        die_with_parent(signal.SIGKILL)  # fio ends with the measuring job
        if join:
            join()  # into the profile's throttle before the first read

    return before_exec


def _run_fio(
    fio: str,
    job: FioJob,
    path: Path,
    size_bytes: int,
    runtime_seconds: float,
    group: storage.IoGroup | None,
    workdir: Path,
    profile_name: str,
) -> tuple[FioResult, storage.BlockCounters | None]:
    """One run, cold: the file evicted and verified out of the page cache, fio inside ``group``; its result and
    the block requests and bytes it cost the disk (None where no group can count them)."""
    pagecache.make_cold(path, system_wide=False)  # the file's own pages: verified with mincore, never assumed
    output = workdir / f"{profile_name}-{job.name}.json"
    output.unlink(missing_ok=True)
    cmd = _fio_command(fio, job, path, size_bytes, runtime_seconds, output)
    before = group.counters() if group else None
    proc = subprocess.run(cmd, capture_output=True, text=True, preexec_fn=_preexec(group))
    used = group.counters() - before if group is not None and before is not None else None
    if proc.returncode != 0 or not output.exists():
        raise StorageBenchError(
            f"fio failed (exit code {proc.returncode}) reading {path} ({job.name}, storage profile "
            f"{profile_name!r}): {(proc.stderr or proc.stdout).strip()[-1500:] or 'no message'}\n"
            f"the command was: {shlex.join(cmd)}"
        )
    return _parse_fio_json(output.read_text(), source=f"fio's report {output}"), used


def _read_system_seconds(path: Path, nbytes: int, chunk: int) -> tuple[float, float, int]:
    """(system CPU seconds of this thread, wall seconds, bytes) of reading the first ``nbytes`` of ``path`` in calls
    of ``chunk`` bytes. The thread's own system time: what the kernel did for these reads, not for other threads."""
    view = memoryview(bytearray(chunk))
    done = 0
    with open(path, "rb", buffering=0) as f:
        before, start = resource.getrusage(resource.RUSAGE_THREAD).ru_stime, time.perf_counter()
        while done < nbytes:
            got = f.readinto(view[: min(chunk, nbytes - done)])
            if not got:
                break
            done += got
        wall = time.perf_counter() - start
        system = resource.getrusage(resource.RUSAGE_THREAD).ru_stime - before
    return system, wall, done


def measure_page_cache_fill(
    path: Path,
    nbytes: int = _FILL_BYTES,
    chunk: int = _FILL_CHUNK_BYTES,
    wait_seconds: float = _REPORTING_WAIT_SECONDS,
) -> dict[str, float]:
    """One run of the page-cache fill: ``path`` evicted (verified with mincore), ``wait_seconds`` for the host to
    take back the freed memory as it does before a timed read, then its first ``nbytes`` read cold and at once again
    warm, in the same calls. The difference of the two reads' system CPU per MB read is what filling the page
    cache costs the reader's CPU: page allocation, the block requests, and the host backing reported memory again."""
    pagecache.make_cold(path, system_wide=False)
    time.sleep(wait_seconds)
    cold_system, cold_wall, done = _read_system_seconds(path, nbytes, chunk)
    warm_system, warm_wall, _ = _read_system_seconds(path, nbytes, chunk)
    if not done:
        raise StorageBenchError(f"the scratch file {path} is empty: the page-cache fill read nothing")
    return {
        "fill_bytes": done,
        "cold_system_s": cold_system,
        "warm_system_s": warm_system,
        "cold_wall_s": cold_wall,
        "warm_wall_s": warm_wall,
        "fill_cpu_s_per_mb": (cold_system - warm_system) / (done / 1e6),
    }


def measure_storage(
    profiles: Sequence[StorageProfile],
    data_dir: str | Path,
    *,
    repetitions: int = REPETITIONS,
    runtime_seconds: float = _RUNTIME_SECONDS,
    scratch_bytes: int = SCRATCH_BYTES,
    fill_runs: int = _FILL_RUNS_PER_ROUND,
    jobs: Sequence[FioJob] = JOBS,
    host_lock: str | Path = DEFAULT_LOCK,
    hold_free_page_reporting: bool = False,
    seed: int = 0,
    fio: str | None = None,
    say: Callable[[str], None] = print,
) -> list[dict[str, Any]]:
    """Every run of every job on every profile, ``repetitions`` times, with ``fill_runs`` page-cache fills in each
    round: one record per run.

    The runs are taken in rounds, repetition k of every (profile, job) before repetition k+1 of any, each round in a
    shuffled order (``seed``), so that a slow spell of the host falls on all of them alike. The host's timed-read
    lock is held throughout: writing and reading a GB would disturb a timed read of another job or study. The
    host's free page reporting is held off where the study's timed reads hold it (``hold_free_page_reporting``, as
    measurement.hold_free_page_reporting), so that the primitives describe the reads they model: on a virtual machine
    with reporting on, a buffered read fills the page cache with memory the host must fault in again."""
    fio = _find_fio(fio)
    version = fio_version(fio)
    scratch = Path(paths.storage_scratch_file(str(data_dir)))
    Path(data_dir).mkdir(parents=True, exist_ok=True)
    # Before a GB is written: a profile this machine cannot apply is an error at once.
    for profile in profiles:
        storage.check_throttling_possible(profile, Path(data_dir))
    work = [(p, job) for p in profiles for job in jobs]
    say(
        f"storage primitives: {len(profiles)} profiles ({', '.join(p.name for p in profiles)}) x {len(jobs)} fio "
        f"jobs x {repetitions} repetitions, each at most {runtime_seconds:g} s on a {scratch_bytes / 1e9:.2f} GB "
        f"scratch file in {Path(data_dir)}; at most {len(work) * repetitions * runtime_seconds / 60:.1f} min of reads"
    )
    records: list[dict[str, Any]] = []
    host = socket.gethostname()
    with ExitStack() as stack:
        lifeline = stack.enter_context(Lifeline(say))
        stack.enter_context(HostLock(host_lock, say))
        page_reporting = stack.enter_context(hostmemory.free_page_reporting_held(hold_free_page_reporting))
        _check_free_space(Path(data_dir), scratch_bytes)
        lifeline.on_loss(lambda: scratch.unlink(missing_ok=True))
        stack.callback(scratch.unlink, missing_ok=True)  # a GB nobody needs afterwards
        started = time.time()
        write_scratch_file(scratch, scratch_bytes, seed)
        say(
            f"wrote the scratch file {scratch} ({scratch_bytes / 1e9:.2f} GB) in {time.time() - started:.1f} s"
        )
        device = _device_of(scratch)
        workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="rootparams-fio-")))
        # One cgroup per profile for the whole measurement, made before any run, so that no group is made or removed
        # between the runs of a round.
        groups: dict[str, storage.IoGroup | None] = {}
        for profile in profiles:
            group = stack.enter_context(
                storage.point_group(profile, scratch, tag=f"primitives-{profile.name}")
            )
            groups[profile.name] = group
            if group is not None:
                lifeline.on_loss(group.remove)
        rng = random.Random(seed)
        for rep in range(repetitions):
            order = list(work)
            rng.shuffle(order)
            for position, (profile, job) in enumerate(order):
                start = time.time()
                result, used = _run_fio(
                    fio,
                    job,
                    scratch,
                    scratch_bytes,
                    runtime_seconds,
                    groups[profile.name],
                    workdir,
                    profile.name,
                )
                records.append(
                    _record(host, profile, device, job, rep, position, start, result, used, scratch_bytes)
                    | {"free_page_reporting": page_reporting, "fio_version": version}
                )
            for run in range(fill_runs):
                start = time.time()
                fill = measure_page_cache_fill(scratch, min(_FILL_BYTES, scratch_bytes))
                records.append(
                    _fill_record(host, device, rep, len(order) + run, start, fill, scratch_bytes)
                    | {"free_page_reporting": page_reporting, "fio_version": version}
                )
            say(f"storage primitives: round {rep + 1} of {repetitions} done")
    return records


def _record(
    host: str,
    profile: StorageProfile,
    device: Device,
    job: FioJob,
    rep: int,
    position: int,
    start: float,
    result: FioResult,
    used: storage.BlockCounters | None,
    scratch_bytes: int,
) -> dict[str, Any]:
    nan = math.nan
    return {
        "host": host,
        "storage_profile": profile.name,
        **device.as_record(),
        "pattern": job.pattern,
        "block_bytes": job.block_bytes,
        "io_mode": job.io_mode,
        "rep": rep,
        "position_in_round": position,
        "start_time": start,
        "runtime_s": result.runtime_s,
        "io_bytes": result.io_bytes,
        "reads": result.total_ios,
        "bandwidth_bps": result.bandwidth_bps,
        "iops": result.iops,
        "latency_s_mean": result.latency_s_mean,
        "latency_s_p50": result.latency_s_p50,
        "latency_s_p99": result.latency_s_p99,
        # What the disk saw (the cgroup's counters): the requests the IOPS limit counts, and the bytes read-ahead
        # brought beyond what fio asked for.
        "device_requests": used.requests if used else nan,
        "device_bytes": used.bytes if used else nan,
        "scratch_bytes": scratch_bytes,
        "nominal_read_bps": profile.read_bps or nan,
        "nominal_read_iops": profile.read_iops or nan,
    }


def _fill_record(
    host: str,
    device: Device,
    rep: int,
    position: int,
    start: float,
    fill: Mapping[str, float],
    scratch_bytes: int,
) -> dict[str, Any]:
    """A page-cache fill run as a row of the runs' table: a job of native storage whose figure is the CPU per MB;
    its bandwidth is the cold read's, the fio columns it has no value for are NaN."""
    nan = math.nan
    return {
        "host": host,
        "storage_profile": "native",
        **device.as_record(),
        "pattern": FILL_PATTERN,
        "block_bytes": _FILL_CHUNK_BYTES,
        "io_mode": "buffered",
        "rep": rep,
        "position_in_round": position,
        "start_time": start,
        "runtime_s": fill["cold_wall_s"],
        "io_bytes": fill["fill_bytes"],
        "reads": math.ceil(fill["fill_bytes"] / _FILL_CHUNK_BYTES),
        "bandwidth_bps": fill["fill_bytes"] / fill["cold_wall_s"] if fill["cold_wall_s"] > 0 else nan,
        "iops": nan,
        "latency_s_mean": nan,
        "latency_s_p50": nan,
        "latency_s_p99": nan,
        "device_requests": nan,
        "device_bytes": nan,
        "scratch_bytes": scratch_bytes,
        "nominal_read_bps": nan,
        "nominal_read_iops": nan,
        **fill,
    }


# The columns of the summary, in order: what was measured where, then the figures, then the check.
SUMMARY_COLUMNS = [
    "host",
    "storage_profile",
    *_DEVICE_COLUMNS,
    "pattern",
    "block_bytes",
    "io_mode",
    "n",
    "bandwidth_bps",
    "bandwidth_bps_ci95_low",
    "bandwidth_bps_ci95_high",
    "iops",
    "iops_ci95_low",
    "iops_ci95_high",
    "latency_s_mean",
    "latency_s_mean_ci95_low",
    "latency_s_mean_ci95_high",
    "latency_s_p50",
    "latency_s_p99",
    # The page-cache fill's row only: system CPU per MB a cold read costs beyond a warm one.
    "fill_cpu_s_per_mb",
    "fill_cpu_s_per_mb_ci95_low",
    "fill_cpu_s_per_mb_ci95_high",
    "device_bandwidth_bps",
    "device_iops",
    "device_bytes_per_request",
    "read_amplification",
    "nominal_read_bps",
    "nominal_read_iops",
    "bandwidth_vs_nominal",
    "device_iops_vs_nominal",
    "nominal_check",
    "nominal_check_detail",
    "runtime_s",
    "scratch_bytes",
    "free_page_reporting",
    "fio_version",
]

_JOB_KEY = ["storage_profile", "pattern", "block_bytes", "io_mode"]


def summarize(records: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """One row per profile x pattern x block size x I/O mode: the mean of its runs with a 95 % interval and n,
    the block layer's view, and the check against the profile's nominal figures."""
    runs = pd.DataFrame(list(records))
    if runs.empty:
        return pd.DataFrame(columns=SUMMARY_COLUMNS)
    rows = []
    # Rows in the study's order of profiles (fast to slow, labels.STORAGE_ORDER; a user's own after them, by name)
    # and of JOBS, not in the shuffled order of the runs.
    profiles = [p for p in STORAGE_ORDER if p in set(runs["storage_profile"])]
    profiles += sorted(set(runs["storage_profile"]) - set(profiles))
    jobs = [(j.pattern, j.block_bytes, j.io_mode) for j in JOBS] + [
        (FILL_PATTERN, _FILL_CHUNK_BYTES, "buffered")
    ]
    runs["_order"] = [
        (profiles.index(r.storage_profile), _job_rank(jobs, (r.pattern, r.block_bytes, r.io_mode)))
        for r in runs.itertuples()
    ]
    runs = runs.sort_values("_order", kind="stable")
    for key, group in runs.groupby(_JOB_KEY, sort=False):
        row = dict(zip(_JOB_KEY, key, strict=True))
        first = group.iloc[0]
        for column in ("host", *_DEVICE_COLUMNS):
            row[column] = first[column]
        for column in (
            "nominal_read_bps",
            "nominal_read_iops",
            "scratch_bytes",
            "free_page_reporting",
            "fio_version",
        ):
            row[column] = first[column]
        for metric in ("bandwidth_bps", "iops", "latency_s_mean", "fill_cpu_s_per_mb"):
            interval = Interval.of(group.get(metric, []))
            row[metric] = interval.mean
            row[f"{metric}_ci95_low"] = interval.low
            row[f"{metric}_ci95_high"] = interval.high
        row["n"] = Interval.of(group["bandwidth_bps"]).n
        # Percentiles are not averaged over runs into a new percentile; the mean of the runs' own is what the
        # column says, and the p99 of a short run under an IOPS limit rests on few requests.
        row["latency_s_p50"] = group["latency_s_p50"].mean()
        row["latency_s_p99"] = group["latency_s_p99"].mean()
        row["runtime_s"] = group["runtime_s"].mean()
        requests, device_bytes = group["device_requests"].sum(), group["device_bytes"].sum()
        counted = group["device_requests"].notna().all() and requests > 0
        row["device_bandwidth_bps"] = (
            (group["device_bytes"] / group["runtime_s"]).mean() if counted else math.nan
        )
        row["device_iops"] = (group["device_requests"] / group["runtime_s"]).mean() if counted else math.nan
        row["device_bytes_per_request"] = device_bytes / requests if counted else math.nan
        row["read_amplification"] = device_bytes / group["io_bytes"].sum() if counted else math.nan
        rows.append(row)
    table = pd.DataFrame(rows)
    table["bandwidth_vs_nominal"] = table["bandwidth_bps"] / table["nominal_read_bps"]
    table["device_iops_vs_nominal"] = table["device_iops"] / table["nominal_read_iops"]
    native = table[table["storage_profile"] == "native"].set_index(["pattern", "block_bytes", "io_mode"])
    checks = [
        nominal_check(
            row,
            native["bandwidth_bps"].get((row["pattern"], row["block_bytes"], row["io_mode"]), math.nan),
        )
        for _, row in table.iterrows()
    ]
    table["nominal_check"] = [verdict for verdict, _ in checks]
    table["nominal_check_detail"] = [detail for _, detail in checks]
    return table[SUMMARY_COLUMNS]


def _job_rank(jobs: list[tuple[str, int, str]], job: tuple[str, int, str]) -> int:
    return jobs.index(job) if job in jobs else len(jobs)


def nominal_check(row: Mapping[str, Any], native_bandwidth_bps: float) -> tuple[str, str]:
    """(verdict, why) for a throttled profile's row, the verdict "pass", "fail" or "cannot tell"; ("", "") for an
    unthrottled one.

    A throttle can only slow a read down. Everywhere the bandwidth must not exceed read_bps, and the block requests
    per second must not exceed read_iops, by more than NOMINAL_TOLERANCE. A sequential read must moreover run within
    NOMINAL_TOLERANCE of read_bps where that limit binds: where read_iops x the bytes per block request allows more
    (the throttle waits for whichever limit is later, so the lower one holds), and where the disk itself (native, the
    same job) is at least DISK_HEADROOM times faster. A disk about as fast as the limit compounds with it (the
    throttle holds a read-ahead request, then the disk takes its time), so there the row "cannot tell" whether the
    throttle delivers read_bps."""
    read_bps, read_iops = row["nominal_read_bps"], row["nominal_read_iops"]
    has_bps, has_iops = read_bps == read_bps and read_bps > 0, read_iops == read_iops and read_iops > 0
    if not (has_bps or has_iops):
        return "", ""
    tolerance = NOMINAL_TOLERANCE
    problems, notes, untold = [], [], []
    bandwidth, device_iops = row["bandwidth_bps"], row["device_iops"]
    if has_bps:
        ratio = bandwidth / read_bps
        if ratio > 1 + tolerance:
            problems.append(
                f"bandwidth {bandwidth / 1e6:.1f} MB/s is above the limit {read_bps / 1e6:.0f} MB/s"
            )
        iops_ceiling = math.nan
        if has_iops and row["device_bytes_per_request"] == row["device_bytes_per_request"]:
            iops_ceiling = read_iops * row["device_bytes_per_request"]
        if row["pattern"] != "sequential":
            notes.append("bandwidth checked as a ceiling only (random reads are bound by their latency)")
        elif iops_ceiling < read_bps:
            notes.append(
                f"bandwidth checked as a ceiling only: read_iops x {row['device_bytes_per_request'] / 1e3:.0f} kB per "
                f"block request allows {iops_ceiling / 1e6:.1f} MB/s, less than read_bps"
            )
        elif not native_bandwidth_bps >= _DISK_HEADROOM * read_bps:
            untold.append(
                f"the disk itself reads this at {native_bandwidth_bps / 1e6:.0f} MB/s (native), not "
                f"{_DISK_HEADROOM:g}x read_bps {read_bps / 1e6:.0f} MB/s: the two compound, and the measured "
                f"{bandwidth / 1e6:.1f} MB/s cannot test the throttle"
            )
        elif ratio < 1 - tolerance:
            problems.append(
                f"bandwidth {bandwidth / 1e6:.1f} MB/s is {100 * (1 - ratio):.0f} % below the limit "
                f"{read_bps / 1e6:.0f} MB/s that binds this sequential read (tolerance {100 * tolerance:.0f} %)"
            )
        else:
            notes.append(f"bandwidth {ratio:.3f} x read_bps")
    if has_iops:
        if device_iops != device_iops:
            untold.append("block requests not counted (no cgroup counters): read_iops not checked")
        elif device_iops > read_iops * (1 + tolerance):
            problems.append(f"{device_iops:.0f} block requests/s exceed the limit {read_iops:.0f}")
        else:
            notes.append(f"{device_iops:.1f} block requests/s, limit {read_iops:.0f}")
    verdict = "fail" if problems else "cannot tell" if untold else "pass"
    return verdict, "; ".join(problems + untold + notes)


def write_tables(
    records: Sequence[Mapping[str, Any]], table_path: str | Path, runs_path: str | Path | None = None
) -> pd.DataFrame:
    """The summary at ``table_path`` and, where given, every run at ``runs_path`` (both CSV)."""
    table = summarize(records)
    Path(table_path).parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(table_path, index=False)
    if runs_path is not None:
        Path(runs_path).parent.mkdir(parents=True, exist_ok=True)
        pd.DataFrame(list(records)).to_csv(runs_path, index=False)
    return table


def describe(table: pd.DataFrame) -> list[str]:
    """One line per row, for the job's log: the figures a person checks first."""
    lines = []
    for _, r in table.iterrows():
        check = f", nominal {r['nominal_check']}" if r["nominal_check"] else ""
        if r["pattern"] == FILL_PATTERN:
            lines.append(
                f"{r['storage_profile']:>9} {r['pattern']}: {r['fill_cpu_s_per_mb'] * 1e3:.3f} ms of system CPU "
                f"per MB beyond a warm read ({r['fill_cpu_s_per_mb_ci95_low'] * 1e3:.3f}-"
                f"{r['fill_cpu_s_per_mb_ci95_high'] * 1e3:.3f}, n = {r['n']}), free page reporting "
                f"{r['free_page_reporting']}"
            )
            continue
        lines.append(
            f"{r['storage_profile']:>9} {r['pattern']:>10} {r['io_mode']:>8} {int(r['block_bytes']) // KIB:>5} KiB: "
            f"{r['bandwidth_bps'] / 1e6:8.1f} MB/s ({r['bandwidth_bps_ci95_low'] / 1e6:.1f}-"
            f"{r['bandwidth_bps_ci95_high'] / 1e6:.1f}, n = {r['n']}), {r['iops']:8.0f} IOPS, latency p50 "
            f"{r['latency_s_p50'] * 1e3:.3f} ms, p99 {r['latency_s_p99'] * 1e3:.3f} ms{check}"
        )
    return lines
