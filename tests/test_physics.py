"""The instrument checks its own physics on real files and real cold reads (rootparams.physics; the same
checks at study scale: benchmarks/physics_checks.py):
(a) an algorithm's read rate does not depend on its compression level on unthrottled storage;
(b) under a bandwidth limit, an I/O-bound read of B bytes takes B / bandwidth, repetition after repetition;
(c) one point measured by two separate jobs at different times gives the same mean.
The rules themselves are also checked on hand-made numbers."""

import math
import os

import pytest
from conftest import require

from rootparams import physics
from rootparams.config import load_study_config
from rootparams.generate import generate_file
from rootparams.grid import FilePoint
from rootparams.storage import can_count_block_requests

READ = {"cache_size": -1, "learn_entries": "default", "threads": 1, "branches": "particle"}
NATIVE = {**READ, "storage_profile": "native"}
# A quiet-machine measurement, as the study makes it; retried when another process or the hypervisor took CPU.
MEASUREMENT = load_study_config({"measurement": {"attempts": 3, "max_cpu_steal": 0.15}})["measurement"]
TRUTH3_EVENTS = 4000  # timed loops of ~0.5-1.5 s on the development VM
REPS = 5


@pytest.fixture(scope="module")
def truth3_files(build, tmp_path_factory):
    out = tmp_path_factory.mktemp("physics")
    files = {}
    for alg in ("lz4", "zlib", "zstd", "lzma"):
        for level in (1, 5, 9):
            path = out / f"truth3_{alg}{level}.root"
            generate_file(FilePoint("truth3", alg, level, -10_000_000, 1, 32000), events=TRUTH3_EVENTS, seed=5,
                          writer=str(build["writer"]), reader=str(build["reader"]), output=str(path),
                          catalogue=None)  # fmt: skip
            files[(alg, level)] = path
    return files


def measure(build, path, tmp_path, tag, read=NATIVE, measurement=MEASUREMENT, events=TRUTH3_EVENTS):
    return physics.measure(path, reader=str(build["reader"]), events=events, read=read, measurement=measurement,
                           reps=REPS, scratch=tmp_path, tag=tag)  # fmt: skip


def test_the_rate_does_not_depend_on_the_compression_level(build, truth3_files, tmp_path):
    rates = {
        key: measure(build, path, tmp_path, f"{key[0]}{key[1]}")[0] for key, path in truth3_files.items()
    }
    verdicts = physics.level_spread(rates)
    # LZ4 1 apart from 5/9, so 4 groups of at least two levels: lz4 5/9, zlib, zstd, lzma.
    assert len(verdicts) == 4
    assert all(v.passed for v in verdicts), physics.markdown(verdicts, "algorithm")


def test_the_same_point_measured_by_two_jobs_at_different_times_agrees(build, truth3_files, tmp_path):
    path = truth3_files[("zlib", 5)]
    first, _ = measure(build, path, tmp_path, "first")
    measure(build, truth3_files[("lzma", 9)], tmp_path, "in-between")  # other work of the instrument
    second, _ = measure(build, path, tmp_path, "second")
    verdict = physics.repeat_check(first, second)
    assert verdict.passed, verdict.detail


def test_an_io_bound_read_takes_bytes_over_bandwidth(build, truth3_files, tmp_path):
    require(os.geteuid() == 0 and can_count_block_requests(), "root and cgroup v1 blkio (CI runs as root)")
    bandwidth = 4_000_000  # slow enough that decompression and streaming are a few % of the read
    profiles = {"limited": {"read_bps": bandwidth}}
    measurement = {**MEASUREMENT, "storage_profiles": profiles}
    read = {**READ, "branches": "all", "storage_profile": "limited"}
    _, records = measure(build, truth3_files[("lz4", 1)], tmp_path, "bandwidth", read, measurement, 1500)
    verdicts = physics.bandwidth_check(records, bandwidth)
    assert len(verdicts) == REPS and all(v.passed for v in verdicts), physics.markdown(verdicts, "repetition")
    assert all(r["storage_request_bytes"] >= r["process_bytes_read"] for r in records)


# The rules on hand-made numbers ------------------------------------------------------------------------------


def test_level_spread_groups_lz4_modes_and_flags_a_spread_level():
    rates = {("lz4", 1): physics.Rate(200, 2, 5), ("lz4", 5): physics.Rate(150, 2, 5),
             ("lz4", 9): physics.Rate(152, 2, 5), ("zlib", 1): physics.Rate(100, 1, 5),
             ("zlib", 5): physics.Rate(104, 1, 5), ("zlib", 9): physics.Rate(80, 1, 5)}  # fmt: skip
    verdicts = {v.name: v for v in physics.level_spread(rates)}
    assert set(verdicts) == {"lz4 levels 5/9", "zlib levels 1/5/9"}  # LZ4-1 alone in its mode
    assert verdicts["lz4 levels 5/9"].passed and not verdicts["zlib levels 1/5/9"].passed
    assert verdicts["zlib levels 1/5/9"].value == pytest.approx(24 / (284 / 3))


def test_bandwidth_and_repeat_rules():
    ok = {"storage_request_bytes": 20e6, "process_seconds": 2.1, "rep": 0}
    slow = {"storage_request_bytes": 20e6, "process_seconds": 2.5, "rep": 1}
    assert [v.passed for v in physics.bandwidth_check([ok, slow], 10e6)] == [True, False]
    assert physics.repeat_check(physics.Rate(100, 1, 10), physics.Rate(102, 1, 10)).passed  # 2 % apart
    assert physics.repeat_check(physics.Rate(100, 5, 10), physics.Rate(108, 5, 10)).passed  # within 2σ
    assert not physics.repeat_check(physics.Rate(100, 1, 10), physics.Rate(110, 1, 10)).passed
    assert math.isnan(physics.Rate.of([5.0]).std)
