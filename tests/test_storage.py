"""Storage profiles: a blkio throttle on the data disk, for the timed reader only."""

import os
import subprocess
import time
from pathlib import Path

import pytest
from conftest import require

from rootparams import pagecache, storage


def test_named_and_custom_profiles():
    assert storage.resolve_profile("native").throttled is False
    hdd, seek = storage.resolve_profile("hdd"), storage.resolve_profile("hdd_seek")
    assert (hdd.read_bps, hdd.read_iops) == (150_000_000, None)  # streaming bandwidth only
    assert (seek.read_bps, seek.read_iops) == (150_000_000, 50)  # a seek charged to every request
    custom = storage.resolve_profile("nfs", {"nfs": {"read_bps": 10_000_000}})
    record = custom.as_record()
    assert {
        k: record[k] for k in ("storage_profile", "storage_access", "storage_read_bps", "storage_read_iops")
    } == {
        "storage_profile": "nfs",
        "storage_access": "local",
        "storage_read_bps": 10_000_000,
        "storage_read_iops": 0,
    }
    # Remote profiles: read over root:// through our own server, on the unthrottled disk.
    wan = storage.resolve_profile("xrootd-wan")
    assert (wan.access, wan.rtt_ms, wan.bandwidth_bps, wan.throttled) == ("xrootd", 20.0, 100_000_000, False)
    own = storage.resolve_profile("sat", {"sat": {"rtt_ms": 600}})
    assert (own.access, own.rtt_ms, own.bandwidth_bps) == ("xrootd", 600.0, None)


def test_a_machine_without_blkio_keeps_remote_profiles_and_measures_throttled_ones_natively():
    from rootparams.config import load_study_config, without_throttling

    config = load_study_config({"scans": {"s": {"storage_profile": ["hdd", "native", "xrootd-wan"]}}})
    out = without_throttling(config, "not root")
    assert out["scans"]["s"]["storage_profile"] == ["native", "xrootd-wan"]
    assert out["read_defaults"]["storage_profile"] == "native"


def test_throttling_without_root_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(storage.StorageProfileError, match=r"'hdd' .* needs root.*storage_profile: native"):
        storage.check_throttling_possible(storage.resolve_profile("hdd"), tmp_path)


def test_native_needs_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    storage.check_throttling_possible(storage.resolve_profile("native"), tmp_path)


def test_a_file_on_tmpfs_cannot_be_throttled():
    shm = Path("/dev/shm")
    require(shm.is_dir(), "/dev/shm (tmpfs) is needed for this check")
    with pytest.raises(storage.StorageProfileError, match="not a block device"):
        storage.block_device_of(shm)


@pytest.fixture
def throttling_possible(tmp_path):
    require(os.geteuid() == 0, "throttling needs root (CI runs as root)")
    require(storage.BLKIO.joinpath("blkio.throttle.read_bps_device").exists(), "cgroup v1 blkio is needed")


def test_throttled_cold_read_takes_at_least_size_over_bandwidth(tmp_path, throttling_possible):
    path = tmp_path / "blob.bin"
    path.write_bytes(os.urandom(24 << 20))
    profile = storage.StorageProfile("test", read_bps=16_000_000)
    pagecache.make_cold(path)
    with storage.point_group(profile, path) as group:
        before = group.counters()
        start = time.monotonic()
        subprocess.run(
            ["cat", str(path)],
            stdout=subprocess.DEVNULL,
            check=True,
            preexec_fn=storage.join_group(group.procs),
        )
        elapsed = time.monotonic() - start
        used = group.counters() - before
    assert elapsed >= 0.9 * path.stat().st_size / profile.read_bps, elapsed
    # The group counts the block requests of its processes: every byte of the cold file, in requests.
    assert used.bytes >= path.stat().st_size and 0 < used.requests <= used.bytes / 4096
    assert not any(storage.BLKIO.glob(f"rootparams-{os.getpid()}"))  # the group is gone
    # The same read, cold again, without the throttle is much faster (the host caches this disk).
    pagecache.make_cold(path)
    start = time.monotonic()
    subprocess.run(["cat", str(path)], stdout=subprocess.DEVNULL, check=True)
    assert time.monotonic() - start < elapsed / 2


def test_a_native_group_counts_requests_without_throttling(tmp_path, throttling_possible):
    path = tmp_path / "blob.bin"
    path.write_bytes(os.urandom(8 << 20))
    pagecache.make_cold(path)
    with storage.point_group(storage.resolve_profile("native"), path) as group:
        assert not (group.dir / "blkio.throttle.read_bps_device").read_text().strip()
        disk_before = storage.disk_counters(group.device)
        subprocess.run(
            ["cat", str(path)],
            stdout=subprocess.DEVNULL,
            check=True,
            preexec_fn=storage.join_group(group.procs),
        )
        assert group.counters().bytes >= 8 << 20
        assert (storage.disk_counters(group.device) - disk_before).bytes >= 8 << 20


def test_unknown_profile_names_the_valid_ones():
    with pytest.raises(
        storage.StorageProfileError,
        match=r"unknown storage profile 'tape'; valid are 'native', 'ssd', 'hdd', 'hdd_seek'",
    ):
        storage.resolve_profile("tape")
