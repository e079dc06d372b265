"""The storage primitives (rootparams.measure.storage_primitives): fio's command line and JSON report, the table and its check
against a profile's nominal figures, and a real measurement: the full study's (tests/conftest.py). Whether a
throttle delivers its nominal figures on this host is printed by benchmarks/timed_checks.py."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import yaml
from conftest import REPO, TINY_FULL

from rootparams.host import storage
from rootparams.measure import storage_primitives
from rootparams.measure.measure import measurement_key
from rootparams.measure.storage_primitives import MIB, FioJob, StorageBenchError
from rootparams.study.config import load_study_config

# A real report: fio 3.33, 4 KiB random buffered reads of a cold 64 MiB file for 0.3 s on the development VM.
FIO_REPORT = REPO / "tests" / "data" / "fio-randread-4k.json"


def test_a_real_fio_report_is_read_in_seconds_and_bytes():
    result = storage_primitives._parse_fio_json(FIO_REPORT.read_text(), source=str(FIO_REPORT))
    assert result.job_name == "random-buffered-4096"
    assert result.fio_version == "fio-3.33"
    assert (result.io_bytes, result.total_ios, result.runtime_s) == (19001344, 4639, 0.301)
    assert result.bandwidth_bps == 63127388 and result.iops == pytest.approx(15411.960133)
    assert result.io_bytes == 4096 * result.total_ios
    # fio's nanoseconds as seconds; the percentiles of the total latency (--lat_percentiles)
    assert result.latency_s_mean == pytest.approx(64044.498814e-9)
    assert result.latency_s_p50 == pytest.approx(59136e-9)
    assert result.latency_s_p99 == pytest.approx(113152e-9)
    assert result.latency_s_p50 <= result.latency_s_p99


def test_what_is_not_one_job_s_report_is_refused_with_its_source():
    report = json.loads(FIO_REPORT.read_text())
    with pytest.raises(
        StorageBenchError, match=r"out\.json is not fio's JSON .* starts with 'fio: some warning"
    ):
        storage_primitives._parse_fio_json("fio: some warning\n{}", source="out.json")
    with pytest.raises(StorageBenchError, match=r"r\.json holds 2 jobs under 'jobs'; .* exactly one"):
        storage_primitives._parse_fio_json({**report, "jobs": report["jobs"] * 2}, source="r.json")
    failed = {**report, "jobs": [{**report["jobs"][0], "error": 5}]}
    with pytest.raises(
        StorageBenchError, match=r"r\.json: fio's job 'random-buffered-4096' ended with error 5"
    ):
        storage_primitives._parse_fio_json(failed, source="r.json")
    idle = {**report, "jobs": [{**report["jobs"][0], "read": {**report["jobs"][0]["read"], "total_ios": 0}}]}
    with pytest.raises(StorageBenchError, match="completed no read"):
        storage_primitives._parse_fio_json(idle, source="r.json")


def test_the_command_reads_as_root_does(tmp_path):
    random4k = storage_primitives._fio_command(
        "fio", FioJob("random", 4096, "buffered"), tmp_path / "f", 1 << 30, 1.5, tmp_path / "o.json"
    )
    assert random4k[0] == "fio"
    for option in (
        "--rw=randread",
        "--bs=4096",
        "--direct=0",
        "--ioengine=sync",  # read(2), as TFile
        "--iodepth=1",  # one request at a time
        "--numjobs=1",
        f"--size={1 << 30}",  # the file once at most
        "--runtime=1500ms",
        "--fadvise_hint=0",  # no POSIX_FADV_RANDOM: the kernel's read-ahead as ROOT gets it
        "--allow_file_create=0",
        "--lat_percentiles=1",
        "--percentile_list=50:99",
        "--output-format=json",
        f"--output={tmp_path / 'o.json'}",
        f"--filename={tmp_path / 'f'}",
    ):
        assert option in random4k, option
    assert "--time_based" not in random4k  # a time-based run would read the file again, from the page cache
    direct = storage_primitives._fio_command(
        "fio", FioJob("sequential", MIB, "direct"), "f", 1 << 30, 1.5, "o.json"
    )
    assert {"--rw=read", f"--bs={MIB}", "--direct=1"} <= set(direct)


def test_the_jobs_are_root_s_request_sizes():
    assert [(j.pattern, j.block_bytes, j.io_mode) for j in storage_primitives.JOBS] == [
        ("sequential", MIB, "buffered"),
        ("sequential", MIB, "direct"),
        ("random", 4 << 10, "buffered"),
        ("random", 64 << 10, "buffered"),
        ("random", 512 << 10, "buffered"),
        ("random", 4 << 20, "buffered"),
    ]


def test_a_study_that_sets_nothing_measures_as_many_runs_as_storagebench_s_defaults():
    # measurement.storage_primitives's defaults (the schema) are the module's: the default study is unchanged.
    measurement = load_study_config({})["measurement"]
    assert measurement["storage_primitives"] == {
        "repetitions": storage_primitives.REPETITIONS,
        "runtime_seconds": storage_primitives._RUNTIME_SECONDS,
        "fill_runs": storage_primitives._FILL_RUNS_PER_ROUND,
        "scratch_mib": storage_primitives.SCRATCH_BYTES // MIB,
    }
    # And it is no setting of a point's read: records kept before it existed, or under other values, are reused.
    before = {k: v for k, v in measurement.items() if k != "storage_primitives"}
    smaller = {**measurement, "storage_primitives": {"repetitions": 2, "scratch_mib": 256}}
    key = measurement_key(measurement, "hdd")
    assert measurement_key(smaller, "hdd") == key == measurement_key(before, "hdd")


def test_fio_missing_says_how_to_install_it():
    with pytest.raises(StorageBenchError, match=r"fio is not installed: 'no-such-fio' .*apt-get install fio"):
        storage_primitives._find_fio("no-such-fio")


def test_the_profiles_measured_are_native_and_the_study_s_local_ones():
    config = load_study_config(
        {
            "read_defaults": {"storage_profile": "hdd"},
            "measurement": {"storage_profiles": {"nfs": {"read_bps": 10_000_000}}},
            "scans": {
                "s": {"storage_profile": ["hdd_seek", "xrootd-wan", "nfs", "hdd"]},
                "t": {"storage_profile": ["native"]},
            },
        }
    )
    profiles = storage_primitives.profiles_to_measure(config)
    # remote profiles (xrootd-wan) are left out: their disk is native's, their network is measured elsewhere
    assert [p.name for p in profiles] == ["native", "hdd", "hdd_seek", "nfs"]
    assert profiles[-1].read_bps == 10_000_000
    # The default study reads on hdd: native beside it, nothing else.
    assert [p.name for p in storage_primitives.profiles_to_measure(load_study_config({}))] == [
        "native",
        "hdd",
    ]


def _run(profile, job, rep, bandwidth, *, runtime=1.5, requests=300, request_bytes=4 * MIB, io_bytes=None):
    """One record as measure_storage makes it, with made-up figures."""
    p = storage.PROFILES[profile]
    return {
        "host": "h",
        "storage_profile": profile,
        "device": "vda",
        "device_number": "254:0",
        "read_ahead_kb": 8192,
        "max_sectors_kb": 4096,
        "max_segments": 254,
        "rotational": 1,
        "pattern": job.pattern,
        "block_bytes": job.block_bytes,
        "io_mode": job.io_mode,
        "rep": rep,
        "position_in_round": 0,
        "start_time": 0.0,
        "runtime_s": runtime,
        "io_bytes": io_bytes if io_bytes is not None else bandwidth * runtime,
        "reads": bandwidth * runtime / job.block_bytes,
        "bandwidth_bps": bandwidth,
        "iops": bandwidth / job.block_bytes,
        "latency_s_mean": job.block_bytes / bandwidth,
        "latency_s_p50": job.block_bytes / bandwidth,
        "latency_s_p99": 2 * job.block_bytes / bandwidth,
        "device_requests": requests,
        "device_bytes": requests * request_bytes,
        "scratch_bytes": 1 << 30,
        "free_page_reporting": "absent",
        "nominal_read_bps": p.read_bps or math.nan,
        "nominal_read_iops": p.read_iops or math.nan,
        "fio_version": "fio-3.33",
    }


SEQ, DIRECT, RAND4K = storage_primitives.JOBS[0], storage_primitives.JOBS[1], storage_primitives.JOBS[2]


def test_the_table_has_n_intervals_and_the_check_against_nominal():
    records = [_run("hdd", SEQ, rep, bw, requests=54) for rep, bw in enumerate((146e6, 148e6, 147e6))] + [
        _run("native", SEQ, rep, bw, requests=300) for rep, bw in enumerate((1.4e9, 1.5e9, 1.6e9))
    ]
    table = storage_primitives.summarize(records)
    assert list(table.columns) == storage_primitives.SUMMARY_COLUMNS
    assert list(table["storage_profile"]) == ["native", "hdd"]  # the study's order, not the runs'
    native, hdd = table.iloc[0], table.iloc[1]
    assert hdd["n"] == 3 and hdd["bandwidth_bps"] == pytest.approx(147e6)
    assert hdd["bandwidth_bps_ci95_low"] < 147e6 < hdd["bandwidth_bps_ci95_high"]
    assert hdd["bandwidth_vs_nominal"] == pytest.approx(147 / 150)
    assert hdd["device_bytes_per_request"] == 4 * MIB
    assert hdd["device_iops"] == pytest.approx(54 / 1.5)
    assert (hdd["nominal_check"], native["nominal_check"]) == ("pass", "")
    assert math.isnan(native["nominal_read_bps"]) and math.isnan(native["bandwidth_vs_nominal"])
    # A throttle 20 % slow on a sequential read it binds fails, and says by how much.
    slow = storage_primitives.summarize(
        [_run("hdd", SEQ, rep, 120e6) for rep in range(3)] + [_run("native", SEQ, 0, 1.5e9)]
    )
    row = slow[slow["storage_profile"] == "hdd"].iloc[0]
    assert row["nominal_check"] == "fail"
    assert "20 % below the limit 150 MB/s" in row["nominal_check_detail"]


def _fill_run(rep, per_mb):
    fill = {
        "fill_bytes": 256 * MIB,
        "cold_system_s": 0.01 + per_mb * 256 * MIB / 1e6,
        "warm_system_s": 0.01,
        "cold_wall_s": 0.2,
        "warm_wall_s": 0.02,
        "fill_cpu_s_per_mb": per_mb,
    }
    base = _run("native", SEQ, rep, 1.4e9)
    device = storage_primitives.Device(*(base[c] for c in storage_primitives._DEVICE_COLUMNS))
    record = storage_primitives._fill_record("h", device, rep, 6, 0.0, fill, 1 << 30)
    return record | {"free_page_reporting": "absent", "fio_version": "fio-3.33"}


def test_the_page_cache_fill_is_a_row_of_native_storage_with_its_interval():
    records = [_run("native", SEQ, rep, 1.5e9) for rep in range(3)]
    records += [_fill_run(rep, per_mb) for rep, per_mb in enumerate((1.4e-3, 1.6e-3, 1.5e-3, 1.5e-3))]
    table = storage_primitives.summarize(records)
    assert list(table["pattern"]) == ["sequential", storage_primitives.FILL_PATTERN]  # fio's jobs first
    fill = table.iloc[1]
    assert fill["n"] == 4 and fill["fill_cpu_s_per_mb"] == pytest.approx(1.5e-3)
    assert fill["fill_cpu_s_per_mb_ci95_low"] < 1.5e-3 < fill["fill_cpu_s_per_mb_ci95_high"]
    assert fill["bandwidth_bps"] == pytest.approx(256 * MIB / 0.2)  # the cold read's
    assert fill["nominal_check"] == "" and math.isnan(table.iloc[0]["fill_cpu_s_per_mb"])
    assert "1.500 ms of system CPU per MB" in storage_primitives.describe(table)[1]


def test_a_limit_that_does_not_bind_is_checked_as_a_ceiling():
    # hdd_seek on 1 MiB direct reads: 50 requests/s of 1 MiB (52 MB/s) bind, not the 150 MB/s.
    seek = storage_primitives.summarize(
        [_run("hdd_seek", DIRECT, rep, 52.4e6, requests=75, request_bytes=MIB) for rep in range(3)]
    ).iloc[0]
    assert seek["nominal_check"] == "pass", seek["nominal_check_detail"]
    assert "allows 52.4 MB/s, less than read_bps" in seek["nominal_check_detail"]
    # More block requests than the limit allows fail.
    leaky = storage_primitives.summarize(
        [_run("hdd_seek", RAND4K, rep, 1e6, requests=150, request_bytes=4096) for rep in range(3)]
    ).iloc[0]
    assert (
        leaky["nominal_check"] == "fail"
        and "100 block requests/s exceed the limit 50" in leaky["nominal_check_detail"]
    )
    # A disk not much faster than the profile (ssd's 500 MB/s on a 600 MB/s disk) compounds with the throttle: the
    # row cannot tell whether the throttle delivers read_bps, whatever it measured.
    ssd = storage_primitives.summarize(
        [_run("ssd", SEQ, rep, 360e6) for rep in range(3)]
        + [_run("native", SEQ, rep, 600e6) for rep in range(3)]
    )
    row = ssd[ssd["storage_profile"] == "ssd"].iloc[0]
    assert row["nominal_check"] == "cannot tell"
    assert (
        "the disk itself reads this at 600 MB/s (native), not 2x read_bps 500 MB/s"
        in row["nominal_check_detail"]
    )


def test_a_study_s_storage_primitives_have_every_run_and_leave_nothing_behind(full_run):
    """The storage primitives of the session's full study (tests/conftest.py, rule storage_primitives): fio
    under native storage and the study's local profile (ssd, where this machine can throttle), every job in
    every round, the page-cache fill beside them, every throttled row checked against its nominal figures, the
    disk described, and the scratch file and the jobs' groups gone. Whether a throttle delivers its nominal
    bandwidth, and a cold read's CPU beyond a warm one's, are timed checks of the host:
    benchmarks/timed_checks.py (storage) prints them for the hdd profile."""
    import pandas as pd

    from rootparams.tools import paths

    table = pd.read_csv(full_run / paths.STORAGE_PRIMITIVES_TABLE)
    runs = pd.read_csv(full_run / paths.STORAGE_PRIMITIVES_RUNS)
    # The study's measurement.storage_primitives: fewer and shorter runs than the default study's, the same rows.
    size = load_study_config(yaml.safe_load(Path(TINY_FULL).read_text()))["measurement"]["storage_primitives"]
    reps = size["repetitions"]
    profiles = ["native", "ssd"] if storage.throttling_unavailable_reason() is None else ["native"]
    assert list(dict.fromkeys(table["storage_profile"])) == profiles
    assert list(table.columns) == storage_primitives.SUMMARY_COLUMNS
    fills = size["fill_runs"] * reps
    assert len(runs) == len(profiles) * len(storage_primitives.JOBS) * reps + fills
    assert (runs["scratch_bytes"] == size["scratch_mib"] * MIB).all()
    fio = table[table["pattern"] != storage_primitives.FILL_PATTERN]
    assert len(fio) == len(profiles) * len(storage_primitives.JOBS)
    assert (fio["n"] == reps).all()
    throttled = fio[fio["storage_profile"] != "native"]
    assert throttled["nominal_check"].isin(["pass", "fail", "cannot tell"]).all()
    # Every byte fio read sequentially came from the disk, through the profile's group (the reads were cold).
    assert (throttled.loc[throttled["pattern"] == "sequential", "read_amplification"] >= 1.0).all()
    (fill,) = table[table["pattern"] == storage_primitives.FILL_PATTERN].to_dict("records")
    assert fill["storage_profile"] == "native" and fill["n"] == fills
    assert math.isfinite(fill["fill_cpu_s_per_mb_ci95_high"])
    native = table[table["storage_profile"] == "native"].iloc[0]
    assert isinstance(native["device"], str) and native["read_ahead_kb"] > 0 and native["max_sectors_kb"] > 0
    assert native["max_segments"] > 0
    assert native["rotational"] in (0, 1)
    assert not list((full_run / "data").rglob("storage-scratch*"))  # the scratch file is gone
    # And the groups: none of a job that is gone (later jobs of the study remove such groups too).
    controller = storage._io_controller()
    left = [
        g
        for g in (controller.root.glob("rootparams-*-primitives-*") if controller else [])
        if not Path("/proc", g.name.split("-")[1]).exists()
    ]
    assert not left, left
