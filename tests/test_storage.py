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
    hdd = storage.resolve_profile("hdd")
    assert (hdd.read_bps, hdd.read_iops) == (150_000_000, 50)
    custom = storage.resolve_profile("nfs", {"nfs": {"read_bps": 10_000_000}})
    assert custom.as_record() == {
        "storage_profile": "nfs",
        "storage_read_bps": 10_000_000,
        "storage_read_iops": 0,
    }


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
    with storage.throttle_group(profile, path) as procs:
        start = time.monotonic()
        subprocess.run(
            ["cat", str(path)], stdout=subprocess.DEVNULL, check=True, preexec_fn=storage.join_group(procs)
        )
        elapsed = time.monotonic() - start
    assert elapsed >= 0.9 * path.stat().st_size / profile.read_bps, elapsed
    assert not any(storage.BLKIO.glob(f"rootparams-{os.getpid()}"))  # the group is gone
    # The same read, cold again, without the throttle is much faster (the host caches this disk).
    pagecache.make_cold(path)
    start = time.monotonic()
    subprocess.run(["cat", str(path)], stdout=subprocess.DEVNULL, check=True)
    assert time.monotonic() - start < elapsed / 2


def test_unknown_profile_names_the_valid_ones():
    with pytest.raises(
        storage.StorageProfileError, match=r"unknown storage profile 'tape'; valid are 'native', 'hdd', 'ssd'"
    ):
        storage.resolve_profile("tape")
