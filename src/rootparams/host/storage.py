"""Storage profiles: make the data disk behave like another medium for the timed read only.

The 2-core virtual machines this was developed on read "cold" files at ~1.5 GB/s because their host caches the disk; the paper's testbed
was a 5400 rpm HDD (~150 MB/s, 10-50 IOPS). A profile limits read bandwidth and IOPS on the device that
holds the file through the kernel's block I/O controller: a cgroup v1 blkio throttle
(``blkio.throttle.read_bps_device`` and ``read_iops_device``) or, on hosts with the unified cgroup v2 hierarchy
(most current distributions), the ``io`` controller's ``io.max`` (``MAJ:MIN rbps=... riops=...``, what systemd's
``IOReadBandwidthMax=`` and ``IOReadIOPSMax=`` write). Only the reader process is put into the group, so the
warm-up and the rest of the pipeline are not slowed down. ``native`` applies no limit.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from rootparams.errors import UserError

BLKIO = Path("/sys/fs/cgroup/blkio")
MOUNTS = Path("/proc/self/mounts")


@dataclass(frozen=True)
class Controller:
    """Where this host's block I/O controller lives: cgroup v1's blkio hierarchy, or a cgroup v2 hierarchy with
    the io controller available."""

    version: int  # 1 or 2
    root: Path

    @property
    def description(self) -> str:
        return f"cgroup v{self.version} {'blkio' if self.version == 1 else 'io'} at {self.root}"


def _cgroup2_mounts() -> list[Path]:
    try:
        lines = MOUNTS.read_text().splitlines()
    except OSError:
        return []
    return [Path(f.split()[1]) for f in lines if len(f.split()) > 2 and f.split()[2] == "cgroup2"]


def _io_controller() -> Controller | None:
    """cgroup v1 blkio where it is mounted (it then owns the io controller), else a cgroup v2 hierarchy whose
    root offers ``io``; None when neither."""
    if (BLKIO / "blkio.throttle.read_bps_device").exists():
        return Controller(1, BLKIO)
    for mount in _cgroup2_mounts():
        with suppress(OSError):
            if "io" in (mount / "cgroup.controllers").read_text().split():
                return Controller(2, mount)
    return None


@dataclass(frozen=True)
class StorageProfile:
    name: str
    read_bps: int | None = None  # bytes per second
    read_iops: int | None = None
    # Remote profiles (docs/measurement.md, "Remote reads"): the file is read through root:// from our own
    # XRootD server on this host, directly or through a latency/bandwidth proxy (rootparams.host.remote).
    rtt_ms: float | None = None
    bandwidth_bps: int | None = None
    # A user's own endpoint (root://host//dir/): the files are read there (copied there first with copy), and
    # eviction is that server's business: this host's page cache holds nothing of the read.
    remote_url: str | None = None
    copy: bool = False

    @property
    def throttled(self) -> bool:
        return bool(self.read_bps or self.read_iops)

    @property
    def needs_proxy(self) -> bool:
        """A remote profile that adds latency or limits bandwidth: read through a proxy (rootparams.host.remote)."""
        return bool(self.rtt_ms) or bool(self.bandwidth_bps)

    @property
    def access(self) -> str:
        """How the reader reaches the file: "local" (a path) or "xrootd" (root:// from our own server on this
        host: the file's disk and page cache are still ours to evict and to verify) or "endpoint" (a user's
        server: eviction is its business, and every record says so)."""
        if self.remote_url:
            return "endpoint"
        return "xrootd" if self.rtt_ms is not None else "local"

    def endpoint_url(self, path: str | Path) -> str:
        """Where a user's endpoint holds the file ``path`` of data_dir: <remote_url>/<format>/<file>, the
        layout of data_dir/files, so that files of different formats do not collide. ``?remote=1``: ROOT
        would open a root:// URL of this host as a local file without it."""
        path = Path(path)
        return f"{self.remote_url.rstrip('/')}/{path.parent.name}/{path.name}?remote=1"

    def as_record(self) -> dict[str, object]:
        return {
            "storage_profile": self.name,
            "storage_access": self.access,
            "storage_read_bps": self.read_bps or 0,
            "storage_read_iops": self.read_iops or 0,
            "remote_rtt_ms": self.rtt_ms if self.rtt_ms is not None else float("nan"),
            "remote_bandwidth_bps": self.bandwidth_bps or 0,
            "remote_url": self.remote_url or "",
        }


# What a cgroup v1 blkio throttle can emulate (docs/measurement.md, "Storage profiles"): a read bandwidth, and a
# limit on block requests per second. The throttle counts every request (bio), also the pieces of one contiguous
# read that the kernel's read-ahead splits into several; a real disk streams those without seeking. So the paper's
# testbed (the ATLAS note: WDC WD5000AZRZ, 5400 rpm, ~150 MB/s host to disk, ~10-50 IOPS) comes in two emulations:
# "hdd" is its streaming bandwidth (seeks not modelled), "hdd_seek" adds 50 requests/s, i.e. a seek charged to
# every request: right for scattered reads (TTreeCache off), pessimistic for streaming ones. "ssd" is a SATA SSD,
# "native" no limit. Custom numbers are given as {read_bps: ..., read_iops: ...} in the config. The xrootd
# profiles read through a local XRootD server on the machine's own (unthrottled) disk, behind a toxiproxy that
# adds half the round-trip time each way and limits the bandwidth (three networks: a LAN, a WAN link, a far site);
# custom ones are {rtt_ms: ..., bandwidth_bps: ...}. Listed fast to slow, the xrootd ones by their added
# round-trip time: figures order the profiles so (labels.STORAGE_ORDER).
PROFILES = {
    "native": StorageProfile("native"),
    "ssd": StorageProfile("ssd", read_bps=500_000_000, read_iops=20_000),
    "hdd": StorageProfile("hdd", read_bps=150_000_000),
    "hdd_seek": StorageProfile("hdd_seek", read_bps=150_000_000, read_iops=50),
    "xrootd-local": StorageProfile("xrootd-local", rtt_ms=0.0),  # the server alone: its own cost, no proxy
    "xrootd-lan": StorageProfile("xrootd-lan", rtt_ms=0.2, bandwidth_bps=125_000_000),
    "xrootd-wan": StorageProfile("xrootd-wan", rtt_ms=20.0, bandwidth_bps=100_000_000),
    "xrootd-far": StorageProfile("xrootd-far", rtt_ms=100.0),
}


class StorageProfileError(UserError):
    """A throttled profile cannot be applied on this machine."""


def resolve_profile(name: str, custom: dict[str, dict] | None = None) -> StorageProfile:
    """The profile called ``name``: built in, or defined in the config's measurement.storage_profiles."""
    if name in PROFILES:
        return PROFILES[name]
    if custom and name in custom:
        c = custom[name]
        if "remote_url" in c:
            return StorageProfile(name, remote_url=c["remote_url"], copy=bool(c.get("copy", False)))
        remote = "rtt_ms" in c or "bandwidth_bps" in c
        return StorageProfile(
            name,
            c.get("read_bps"),
            c.get("read_iops"),
            rtt_ms=float(c.get("rtt_ms", 0.0)) if remote else None,
            bandwidth_bps=c.get("bandwidth_bps"),
        )
    raise StorageProfileError(
        f"unknown storage profile {name!r}; valid are {', '.join(map(repr, [*PROFILES, *(custom or {})]))}"
    )


def throttling_unavailable_reason() -> str | None:
    """Why no throttled profile can be applied on this machine, or None if one can."""
    problems = []
    if os.geteuid() != 0:
        problems.append("it needs root")
    if _io_controller() is None:
        v2 = ", ".join(map(str, _cgroup2_mounts())) or "none mounted"
        problems.append(
            f"there is no block I/O controller (no cgroup v1 blkio at {BLKIO}, and no cgroup v2 hierarchy "
            f"offering io: {v2})"
        )
    return " and ".join(problems) or None


def block_device_of(path: str | Path) -> str:
    """``major:minor`` of the whole disk that holds ``path`` (throttles apply to disks, not partitions)."""
    dev = os.stat(path).st_dev
    major, minor = os.major(dev), os.minor(dev)
    sys_dev = Path(f"/sys/dev/block/{major}:{minor}")
    if not sys_dev.exists():
        raise StorageProfileError(
            f"{path} is on device {major}:{minor}, which is not a block device (tmpfs, overlay or network "
            "filesystem?); a blkio throttle cannot apply to it. Use storage_profile: native, or put data_dir "
            "on a local disk."
        )
    if (sys_dev / "partition").exists():
        return (sys_dev.resolve().parent / "dev").read_text().strip()
    return f"{major}:{minor}"


def check_throttling_possible(profile: StorageProfile, path: str | Path) -> None:
    if not profile.throttled:
        return
    reason = throttling_unavailable_reason()
    if reason:
        raise StorageProfileError(
            f"storage profile {profile.name!r} ({profile.read_bps or 'unlimited'} B/s, "
            f"{profile.read_iops or 'unlimited'} IOPS) cannot be applied: {reason}. "
            "Run as root on a machine with cgroup v1 blkio or cgroup v2 io, or set storage_profile: native "
            "(reads then run at the disk's own speed, and every record says so)."
        )
    block_device_of(path)


@dataclass(frozen=True)
class BlockCounters:
    """Read requests and bytes at the block layer: of one cgroup (``IoGroup.counters``) or of the
    whole disk (``disk_counters``, from /proc/diskstats)."""

    requests: int
    bytes: int

    def __sub__(self, other: BlockCounters) -> BlockCounters:
        return BlockCounters(self.requests - other.requests, self.bytes - other.bytes)


# A read limit no storage reaches (1 PB/s): set only so that cgroup v1's blk-throttle counts an unthrottled group.
_UNREACHABLE_BYTES_PER_SECOND = 1 << 50


class IoGroup:
    """A cgroup (v1 blkio or v2 io) on the disk that holds the file under test: the storage profile's throttle
    (none for native), and the read requests and bytes that the group's processes sent to that disk.

    One group serves all repetitions of a point: each reader joins it before it opens the file. Its
    counters are read before and after each read, so every repetition records how many block requests its
    bytes took (the IOPS limit of a throttled profile counts exactly these)."""

    def __init__(
        self, profile: StorageProfile, path: str | Path, tag: str = "", controller: Controller | None = None
    ):
        self.profile = profile
        self.device = block_device_of(path)
        self.controller = controller or _io_controller()
        if self.controller is None:
            raise StorageProfileError(
                f"no block I/O controller on this machine: {throttling_unavailable_reason()}"
            )
        if self.controller.version == 2:
            _enable_io(self.controller.root)
        # One group per measuring job and profile: rootparams-<pid>[-<profile>] (remove_stale_groups parses it).
        self.dir = self.controller.root / (f"rootparams-{os.getpid()}" + (f"-{tag}" if tag else ""))
        self.dir.mkdir(exist_ok=True)
        try:
            if self.controller.version == 1:
                # Without a rule for the device, blk-throttle keeps no counters for the group on some kernels
                # (seen: an unthrottled group's io_service_bytes stayed 0 while its reader fetched 33 MB, so every
                # native read looked like another process's): a limit no disk reaches makes it count.
                bps = int(profile.read_bps) if profile.read_bps else _UNREACHABLE_BYTES_PER_SECOND
                (self.dir / "blkio.throttle.read_bps_device").write_text(f"{self.device} {bps}\n")
                if profile.read_iops:
                    (self.dir / "blkio.throttle.read_iops_device").write_text(
                        f"{self.device} {int(profile.read_iops)}\n"
                    )
            elif profile.throttled:
                limits = []
                if profile.read_bps:
                    limits.append(f"rbps={int(profile.read_bps)}")
                if profile.read_iops:
                    limits.append(f"riops={int(profile.read_iops)}")
                (self.dir / "io.max").write_text(f"{self.device} {' '.join(limits)}\n")
        except BaseException:
            self.remove()
            raise

    @property
    def procs(self) -> Path:
        return self.dir / "cgroup.procs"

    def counters(self) -> BlockCounters:
        if self.controller.version == 2:
            return _read_io_stat(self.dir / "io.stat", self.device)
        requests = _read_stat(self.dir / "blkio.throttle.io_serviced", self.device)
        nbytes = _read_stat(self.dir / "blkio.throttle.io_service_bytes", self.device)
        return BlockCounters(requests, nbytes)

    def remove(self) -> None:
        _remove_group(self.dir)


def _enable_io(root: Path) -> None:
    """cgroup v2 gives a group's children a controller only through the parent's cgroup.subtree_control."""
    control = root / "cgroup.subtree_control"
    if "io" not in control.read_text().split():
        try:
            control.write_text("+io\n")
        except OSError as error:
            raise StorageProfileError(
                f"cannot enable the io controller for the groups under {root} ({error}); a throttled profile "
                f"needs it (as root: echo +io > {control})"
            ) from error


def _read_stat(path: Path, device: str) -> int:
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] == device and parts[1] == "Read":
            return int(parts[2])
    return 0


def _read_io_stat(path: Path, device: str) -> BlockCounters:
    """cgroup v2 io.stat: ``MAJ:MIN rbytes=... wbytes=... rios=... wios=... dbytes=... dios=...``; a device
    the group has not read from has no line yet."""
    for line in path.read_text().splitlines():
        parts = line.split()
        if parts and parts[0] == device:
            values = dict(p.split("=", 1) for p in parts[1:] if "=" in p)
            return BlockCounters(int(values.get("rios", 0)), int(values.get("rbytes", 0)))
    return BlockCounters(0, 0)


def disk_counters(device: str) -> BlockCounters:
    """Completed read requests and bytes of a whole disk since boot (/proc/diskstats), every process's."""
    major, minor = device.split(":")
    for line in Path("/proc/diskstats").read_text().splitlines():
        f = line.split()
        if f[0] == major and f[1] == minor:
            return BlockCounters(int(f[3]), int(f[5]) * 512)
    raise StorageProfileError(f"device {device} is not in /proc/diskstats")


def _can_count_block_requests() -> bool:
    """Root and a block I/O controller (v1 or v2): a group (unthrottled for native) can count the requests."""
    return throttling_unavailable_reason() is None


@contextmanager
def point_group(profile: StorageProfile, path: str | Path, tag: str = "") -> Iterator[IoGroup | None]:
    """The cgroup (v1 blkio or v2 io) of the reads of ``path`` on ``profile`` (``tag`` tells a job's groups apart), removed
    afterwards; None where no group can be made (then a throttled profile is an error, raised by
    check_throttling_possible before any read)."""
    check_throttling_possible(profile, path)
    if not _can_count_block_requests():
        yield None
        return
    try:
        block_device_of(path)
    except StorageProfileError:
        if profile.throttled:
            raise
        yield None  # tmpfs or a network filesystem: no block device to count, native needs none
        return
    _remove_stale_groups()
    group = IoGroup(profile, path, tag)
    try:
        yield group
    finally:
        group.remove()


def _remove_stale_groups() -> None:
    """Remove the groups of measuring jobs that are gone (a job killed before it could clean up)."""
    controller = _io_controller()
    if controller is None:
        return
    for group in controller.root.glob("rootparams-*"):
        pid = group.name.removeprefix("rootparams-").split("-")[0]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            _remove_group(group)


def _remove_group(group: Path, attempts: int = 40) -> None:
    # Processes still inside go back to the root group first; rmdir needs it empty. A job that loses its
    # workflow removes its group while its reader server may still fork a reader into it, and an exiting
    # reader keeps the group busy for a moment: so move and retry, for up to ~2 s.
    procs = group / "cgroup.procs"
    for _ in range(attempts):
        with suppress(OSError):
            for pid in procs.read_text().split():
                with suppress(OSError):
                    (group.parent / "cgroup.procs").write_text(pid)
        try:
            group.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.05)


def join_group(procs: Path | None):
    """A ``preexec_fn`` for subprocess: move the child into the group before it execs the reader."""
    if procs is None:
        return None

    def join() -> None:
        procs.write_text(str(os.getpid()))

    return join
