"""Storage profiles: make the data disk behave like another medium for the timed read only.

The development VMs read "cold" files at ~1.5 GB/s because their host caches the disk; the paper's testbed
was a 5400 rpm HDD (~150 MB/s, 10-50 IOPS). A profile limits read bandwidth and IOPS on the device that
holds the file through a cgroup v1 blkio throttle (``blkio.throttle.read_bps_device`` and
``read_iops_device``). Only the reader process is put into the group, so the warm-up and the rest of the
pipeline are not slowed down. ``native`` applies no limit.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

BLKIO = Path("/sys/fs/cgroup/blkio")


@dataclass(frozen=True)
class StorageProfile:
    name: str
    read_bps: int | None = None  # bytes per second
    read_iops: int | None = None

    @property
    def throttled(self) -> bool:
        return bool(self.read_bps or self.read_iops)

    def as_record(self) -> dict[str, object]:
        return {
            "storage_profile": self.name,
            "storage_read_bps": self.read_bps or 0,
            "storage_read_iops": self.read_iops or 0,
        }


# The paper's testbed (seed 000: WDC WD5000AZRZ, 5400 rpm, ~150 MB/s host to disk, ~10-50 IOPS), a SATA SSD,
# and no limit. Custom numbers are given as {read_bps: ..., read_iops: ...} in the config.
PROFILES = {
    "native": StorageProfile("native"),
    "hdd": StorageProfile("hdd", read_bps=150_000_000, read_iops=50),
    "ssd": StorageProfile("ssd", read_bps=500_000_000, read_iops=20_000),
}


class StorageProfileError(RuntimeError):
    """A throttled profile cannot be applied on this machine."""


def resolve_profile(name: str, custom: dict[str, dict] | None = None) -> StorageProfile:
    """The profile called ``name``: built in, or defined in the config's measurement.storage_profiles."""
    if name in PROFILES:
        return PROFILES[name]
    if custom and name in custom:
        return StorageProfile(name, custom[name].get("read_bps"), custom[name].get("read_iops"))
    raise StorageProfileError(
        f"unknown storage profile {name!r}; valid are {', '.join(map(repr, [*PROFILES, *(custom or {})]))}"
    )


def throttling_unavailable_reason() -> str | None:
    """Why no throttled profile can be applied on this machine, or None if one can."""
    problems = []
    if os.geteuid() != 0:
        problems.append("it needs root")
    if not (BLKIO / "blkio.throttle.read_bps_device").exists():
        problems.append(f"there is no cgroup v1 blkio controller at {BLKIO}")
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
            "Run as root on a machine with cgroup v1 blkio, or set storage_profile: native "
            "(reads then run at the disk's own speed, and every record says so)."
        )
    block_device_of(path)


@contextmanager
def throttle_group(profile: StorageProfile, path: str | Path) -> Iterator[Path | None]:
    """A blkio cgroup limiting reads from the disk of ``path``; yields its ``cgroup.procs`` file (None when
    the profile is native). The group is removed afterwards."""
    if not profile.throttled:
        yield None
        return
    check_throttling_possible(profile, path)
    device = block_device_of(path)
    group = BLKIO / f"rootparams-{os.getpid()}"
    group.mkdir(exist_ok=True)
    try:
        if profile.read_bps:
            (group / "blkio.throttle.read_bps_device").write_text(f"{device} {int(profile.read_bps)}\n")
        if profile.read_iops:
            (group / "blkio.throttle.read_iops_device").write_text(f"{device} {int(profile.read_iops)}\n")
        yield group / "cgroup.procs"
    finally:
        _remove_group(group)


def _remove_group(group: Path) -> None:
    # Processes still inside (there should be none) go back to the root group first; rmdir needs it empty.
    procs = group / "cgroup.procs"
    if procs.exists():
        for pid in procs.read_text().split():
            with suppress(OSError):
                (BLKIO / "cgroup.procs").write_text(pid)
    with suppress(OSError):
        group.rmdir()


def join_group(procs: Path | None):
    """A ``preexec_fn`` for subprocess: move the child into the group before it execs the reader."""
    if procs is None:
        return None

    def join() -> None:
        procs.write_text(str(os.getpid()))

    return join
