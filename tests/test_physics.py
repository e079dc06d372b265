"""The instrument checks its own physics on real files and real cold reads (rootparams.physics; the same
checks at study scale: benchmarks/physics_checks.py):
(a) an algorithm's read rate does not depend on its compression level on unthrottled storage;
(b) under a bandwidth limit, an I/O-bound read of B bytes takes B / bandwidth, repetition after repetition;
(c) one point measured by two separate jobs at different times gives the same mean.
The rules themselves are also checked on hand-made numbers."""

import math
import os
from concurrent.futures import ThreadPoolExecutor

import pytest
from conftest import require

from rootparams import physics
from rootparams.config import load_study_config
from rootparams.generate import generate_file
from rootparams.grid import FilePoint
from rootparams.storage import can_count_block_requests

READ = {"cache_size": -1, "learn_entries": "default", "threads": 1, "branches": "all"}
NATIVE = {**READ, "storage_profile": "native"}
# A quiet-machine measurement, as the study makes it; retried when another process or the hypervisor took CPU.
MEASUREMENT = load_study_config({"measurement": {"attempts": 3, "max_cpu_steal": 0.15}})["measurement"]
# Timed loops of ~0.6 s (LZ4) to ~2 s (LZMA) on the 2-core VM. The files are small because level-9 writing
# is slow (ZSTD-9, LZMA-9: ~8 s per 1000 events): 12 files take ~2.5 min on two cores.
TRUTH3_EVENTS = 8000
ROUNDS, REPS_PER_ROUND = 5, 2  # interleaved, so that a drift of the shared machine shifts every level alike
# On the shared VMs the same read's CPU time varies by up to 1.7x from one repetition to the next, with no steal
# showing (docs/measurement.md, "The instrument checks its own physics"): interference only ever slows a read
# down, so the repeat check also prints each point's fastest repetition beside the mean.
STATISTIC = "best"


@pytest.fixture(scope="module")
def truth3_files(build, tmp_path_factory):
    out = tmp_path_factory.mktemp("physics")
    settings = [(alg, level) for alg in ("lz4", "zlib", "zstd", "lzma") for level in (1, 5, 9)]

    def write(setting):
        alg, level = setting
        path = out / f"truth3_{alg}{level}.root"
        generate_file(FilePoint("truth3", alg, level, -10_000_000, 1, 32000), events=TRUTH3_EVENTS, seed=5,
                      writer=str(build["writer"]), reader=str(build["reader"]), output=str(path),
                      catalogue=None)  # fmt: skip
        return path

    # Writing is not timed here: one writer per core.
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        return dict(zip(settings, pool.map(write, settings), strict=True))


def measure(
    build, files, tmp_path, read=NATIVE, measurement=MEASUREMENT, events=TRUTH3_EVENTS, rounds=ROUNDS
):
    return physics.measure(files, reader=str(build["reader"]), events=events, read=read, measurement=measurement,
                           rounds=rounds, reps_per_round=REPS_PER_ROUND, scratch=tmp_path)  # fmt: skip


def test_the_rate_does_not_depend_on_the_compression_level(build, truth3_files, tmp_path):
    # The 10 % tolerance of benchmarks/physics_checks.py needs a quiet machine. On CI's shared VM one level's
    # repetitions were 7-20 % apart (1σ) and even the fastest ones 25 % (2026-11-23, ZSTD, twice in a row), so
    # the test passes a group within 10 % or whose means differ by at most LEVEL_SIGMAS standard errors: it
    # asks whether the levels differ beyond the noise this run measured, and prints what difference it could
    # resolve. A second measurement when the first fails: a slow spell of the host can last through every
    # repetition of one level despite the interleaved rounds. A real dependence on the level fails both times.
    for attempt in (1, 2):
        results = measure(build, truth3_files, tmp_path / f"attempt{attempt}")
        rates = {key: rate for key, (rate, _) in results.items()}
        verdicts = physics.level_spread(rates, "mean", sigmas=physics.LEVEL_SIGMAS)
        # ZLIB's inflate is measurably faster at higher levels (its unzip time falls by ~25 % from level 1 to 9
        # on TRUTH3), which can take its rate just past the tolerance: a level may change the decompression
        # time, never the rest of the read.
        outside_rates = physics.rates_outside_unzip({k: recs for k, (_, recs) in results.items()})
        outside = physics.level_spread(outside_rates, "mean", sigmas=physics.LEVEL_SIGMAS)
        print(f"attempt {attempt}")
        print(physics.markdown(verdicts, "algorithm"))  # the figures, for pytest -s or -rP
        print(physics.markdown(outside, "algorithm, outside decompression"))
        print(physics.markdown(physics.level_spread(rates, STATISTIC), "algorithm (fastest repetition)"))
        # LZ4 1 apart from 5/9, so 4 groups of at least two levels: lz4 5/9, zlib, zstd, lzma.
        assert len(verdicts) == len(outside) == 4
        unexplained = [v for v in verdicts if not v.passed and v.name != "zlib levels 1/5/9"]
        if all(v.passed for v in outside) and not unexplained:
            break
    assert all(v.passed for v in outside), physics.markdown(outside, "algorithm, outside decompression")
    assert not unexplained, physics.markdown(verdicts, "algorithm")


def test_the_same_point_measured_by_two_jobs_at_different_times_agrees(build, truth3_files, tmp_path):
    point = {"zlib-5": truth3_files[("zlib", 5)]}
    ((first, _),) = measure(build, point, tmp_path / "first").values()
    measure(build, {"lzma-9": truth3_files[("lzma", 9)]}, tmp_path / "between", rounds=1)  # other work
    ((second, _),) = measure(build, point, tmp_path / "second").values()
    # The rule: means within 3 % or 2σ. The fastest repetitions are printed beside.
    verdict = physics.repeat_check(first, second, "mean")
    print(physics.markdown([verdict, physics.repeat_check(first, second, STATISTIC)], "point"))
    assert verdict.passed, verdict.detail


def test_an_io_bound_read_takes_bytes_over_bandwidth(build, truth3_files, tmp_path):
    require(os.geteuid() == 0 and can_count_block_requests(), "root and cgroup v1 blkio (CI runs as root)")
    bandwidth = 4_000_000  # slow enough that decompression and streaming are a few % of the read
    profiles = {"limited": {"read_bps": bandwidth}}
    measurement = {**MEASUREMENT, "storage_profiles": profiles}
    read = {**READ, "storage_profile": "limited"}
    files = {"lz4-1": truth3_files[("lz4", 1)]}
    ((_, records),) = measure(build, files, tmp_path, read, measurement, events=1500, rounds=2).values()
    assert all(r.get("loop_disk_completed_read_bytes", -1) >= 0 for r in records), (
        "the disk's count is missing"
    )
    verdicts = physics.bandwidth_check(records, bandwidth)
    print(physics.markdown(verdicts, "repetition"))
    assert len(verdicts) == 2 * REPS_PER_ROUND, physics.markdown(verdicts, "repetition")
    assert all(v.passed for v in verdicts), physics.markdown(verdicts, "repetition")
    # The disk sends what ROOT asked for, read-ahead included; ROOT may ask twice for a few bytes (the
    # header, the keys) that the page cache then serves, so ROOT's count can exceed the disk's by a little.
    assert all(r["storage_request_bytes"] >= 0.95 * r["process_bytes_read"] for r in records)


# The rules on hand-made numbers ------------------------------------------------------------------------------


def test_level_spread_groups_lz4_modes_and_flags_a_spread_level():
    rates = {("lz4", 1): physics.Rate(200, 2, 5), ("lz4", 5): physics.Rate(150, 2, 5),
             ("lz4", 9): physics.Rate(152, 2, 5), ("zlib", 1): physics.Rate(100, 1, 5),
             ("zlib", 5): physics.Rate(104, 1, 5), ("zlib", 9): physics.Rate(80, 1, 5)}  # fmt: skip
    verdicts = {v.name: v for v in physics.level_spread(rates)}
    assert set(verdicts) == {"lz4 levels 5/9", "zlib levels 1/5/9"}  # LZ4-1 alone in its mode
    assert verdicts["lz4 levels 5/9"].passed and not verdicts["zlib levels 1/5/9"].passed
    assert verdicts["zlib levels 1/5/9"].value == pytest.approx(24 / (284 / 3))


def test_level_spread_on_a_noisy_host_asks_whether_levels_differ_beyond_the_noise():
    # CI's figures (2026-11-23, ZSTD outside decompression, 10 repetitions): 15 % apart, 2.2 standard errors.
    noisy = {("zstd", 1): physics.Rate(10226.5, 708.0, 10), ("zstd", 5): physics.Rate(11857.4, 2367.7, 10),
             ("zstd", 9): physics.Rate(11339.1, 1457.4, 10)}  # fmt: skip
    (strict,) = physics.level_spread(noisy)
    (verdict,) = physics.level_spread(noisy, "mean", sigmas=physics.LEVEL_SIGMAS)
    assert not strict.passed and verdict.passed and "2.2 standard errors" in verdict.detail
    # A real 30 % dependence measured with the same noise is still seen; so is 15 % on a quiet host.
    real = {**noisy, ("zstd", 9): physics.Rate(13300, 1000.0, 10)}
    assert not physics.level_spread(real, "mean", sigmas=physics.LEVEL_SIGMAS)[0].passed
    quiet = {("lzma", 1): physics.Rate(100, 3, 10), ("lzma", 9): physics.Rate(115, 3, 10)}
    assert not physics.level_spread(quiet, "mean", sigmas=physics.LEVEL_SIGMAS)[0].passed
    # One repetition per level: no error to judge by, only the tolerance.
    single = {("lzma", 1): physics.Rate(100, math.nan, 1), ("lzma", 9): physics.Rate(115, math.nan, 1)}
    assert not physics.level_spread(single, "mean", sigmas=physics.LEVEL_SIGMAS)[0].passed


def test_bandwidth_and_repeat_rules():
    common = {"loop_cpu_seconds": 0.1, "open_seconds": 0.1, "open_storage_read_bytes": 1e5}
    ok = {"loop_storage_read_bytes": 20e6, "loop_seconds": 2.1, "rep": 0, **common}
    slow = {"loop_storage_read_bytes": 20e6, "loop_seconds": 2.5, "rep": 1, **common}
    assert [v.passed for v in physics.bandwidth_check([ok, slow], 10e6)] == [True, False]
    # A last read-ahead window submitted but held back by the throttle when the loop ends: B is what the disk
    # completed during the loop, not what the reader submitted.
    trailing = {**ok, "loop_storage_read_bytes": 28.4e6, "loop_disk_completed_read_bytes": 20.2e6}
    (verdict,) = physics.bandwidth_check([trailing], 10e6)
    assert verdict.passed and verdict.value == pytest.approx(2.1 / 2.02)
    assert physics.repeat_check(physics.Rate(100, 1, 10), physics.Rate(102, 1, 10)).passed  # 2 % apart
    assert physics.repeat_check(physics.Rate(100, 5, 10), physics.Rate(108, 5, 10)).passed  # within 2σ
    assert not physics.repeat_check(physics.Rate(100, 1, 10), physics.Rate(110, 1, 10)).passed
    assert math.isnan(physics.Rate.of([5.0]).std)
    assert physics.Rate.of([90.0, 120.0, 100.0]).best == 120.0
    assert physics.repeat_check(physics.Rate(90, 20, 10, 120), physics.Rate(100, 1, 10, 121), "best").passed


def test_the_rate_outside_decompression_leaves_out_roots_unzip_time():
    recs = [
        {"events_read": 1000, "loop_seconds": 2.0, "loop_unzip_seconds": 1.0, "flagged": False},
        {"events_read": 1000, "loop_seconds": 1.5, "loop_unzip_seconds": 1.0, "flagged": False},
        {"events_read": 1000, "loop_seconds": 9.0, "loop_unzip_seconds": 1.0, "flagged": True},  # left out
    ]
    rate = physics.rates_outside_unzip({"p": recs})["p"]
    assert rate.n == 2 and rate.best == 2000 and rate.mean == 1500
