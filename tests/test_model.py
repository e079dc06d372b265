"""The timed-loop model: its parts add up, the overlap is at most one read-ahead window per cache fill and never
more than the CPU time, and the physics checks are special cases of it."""

import pytest

from rootparams import model

HDD = model.Medium("hdd", 150e6, 0.0)
POINT = {"events_read": 1000, "loop_storage_read_bytes": 150e6, "loop_read_calls": 10, "storage_requests": 600,
         "events_per_cluster": 100, "container": "ttree", "cache_size": -1}  # fmt: skip
CPU = {"unzip_seconds": 0.4, "loop_seconds": 1.0}


def test_the_parts_add_up_to_the_loop():
    p = model.predict(POINT, CPU, HDD, read_ahead_bytes=0)
    assert p["decompression"] == pytest.approx(0.4) and p["deserialisation"] == pytest.approx(0.6)
    assert p["storage_transfer"] == pytest.approx(1.0)  # B / bandwidth: the bandwidth check is this part
    assert p["overlap"] == 0
    assert p["predicted_loop_seconds"] == pytest.approx(sum(p[k] for k in (*model.PARTS, "overlap")))
    assert p["predicted_rate_hz"] == pytest.approx(1000 / 2.0)


def test_the_read_ahead_hides_one_window_per_cache_fill_and_no_more_than_the_cpu():
    window = 8 << 20
    p = model.predict(POINT, CPU, HDD, read_ahead_bytes=window)
    assert model.cache_fills(POINT) == 10
    assert -p["overlap"] == pytest.approx(min(10 * window / 150e6, 1.0))
    busy = model.predict(
        {**POINT, "events_per_cluster": 1}, {"unzip_seconds": 0.0, "loop_seconds": 0.1}, HDD, window
    )
    assert -busy["overlap"] == pytest.approx(0.1)  # at most the CPU time there is
    no_cache = {**POINT, "cache_size": 0, "loop_read_calls": 7000}
    assert model.cache_fills(no_cache) == 7000


def test_another_medium_and_another_cpu():
    slow = model.Medium("seeking disk", 150e6, 1 / 30)
    p = model.predict(POINT, CPU, slow, read_ahead_bytes=0, cpu_factor=2.0)
    assert p["storage_requests"] == pytest.approx(10 / 30)
    assert p["decompression"] == pytest.approx(0.8)
    throttled = model.Medium("hdd_seek", 150e6, 0.0, block_iops=50)
    # both limits: the longer of transfer (1 s) and requests (12 s) counts
    assert model.predict(POINT, CPU, throttled)["throttled_requests"] == pytest.approx(600 / 50 - 1.0)
    assert all(not m.measured and m.source for m in model.MEDIA.values())


def test_a_point_without_events_has_no_rate():
    assert model.predict({**POINT, "events_read": 0}, CPU, HDD)["predicted_rate_hz"] == 0


def test_a_study_is_predicted_from_its_primitives_and_judged_per_scan_and_profile():
    """The study's tables in, every valid point predicted from the primitives, the errors per scan and profile
    (tables of the shapes the workflow writes; the numbers are made up)."""
    import pandas as pd

    key = {"format": "xaod", "file_id": "zlib-5", "read_id": "r1"}
    reps = pd.DataFrame(
        [{**key, "flagged": False, "events_read": 1000, "loop_seconds": 2.0 + 0.02 * i, "loop_cpu_seconds": 1.0,
          "loop_unzip_seconds": 0.4, "loop_unzip_output_bytes": 4e8, "loop_disk_seconds": 0.9,
          "loop_storage_read_bytes": 150e6, "loop_bytes_read": 150e6, "loop_read_calls": 10, "storage_requests": 600,
          "container": "ttree", "cache_size": -1, "threads": 1, "storage_profile": "hdd"} for i in range(3)]
        + [{**key, "flagged": True, "loop_seconds": 99.0}]
    )  # fmt: skip
    files = pd.DataFrame([{"format": "xaod", "file_id": "zlib-5", "events_per_cluster": 100}])
    summary = pd.DataFrame([{**key, "event_rate_hz_mean": 495.0, "event_rate_hz_ci95_low": 490.0,
                             "event_rate_hz_ci95_high": 500.0, "n": 3, "valid": True}])  # fmt: skip
    points = pd.DataFrame([{**key, "scans": "compression"}])
    study = model.study_points(reps, files, summary, points)
    assert len(study) == 1 and study["loop_seconds"].iloc[0] == pytest.approx(
        2.02
    )  # the flagged one left out
    storage = pd.DataFrame(
        [{"storage_profile": p, "pattern": pat, "io_mode": "buffered", "block_bytes": b, "bandwidth_bps": bw,
          "latency_s_mean": lat, "nominal_read_iops": None, "read_ahead_kb": 0}
         for p, bw in (("native", 1e9), ("hdd", 150e6))
         for pat, b, lat in (("sequential", 1 << 20, 1e-3), ("random", 4096, 1e-4))]
    )  # fmt: skip
    warm = pd.DataFrame([{"format": "xaod", "file_id": "zlib-5", "stands_for_read_ids": "r1;r2",
                          "warm_rate_hz_mean": 1000.0, "unzip_cpu_s_per_mb_uncompressed_mean": 0.001}])  # fmt: skip
    predicted = model.predicted_points(study, storage, warm)
    row = predicted.iloc[0]
    assert row["decompression"] == pytest.approx(0.4) and row["deserialisation"] == pytest.approx(0.6)
    assert row["storage_transfer"] == pytest.approx(1.0)
    assert row["storage_requests"] == pytest.approx(10 * (1e-4 - 4096 / 150e6))  # the disk's own latency
    assert row["rate_error"] == pytest.approx(row["predicted_rate_hz"] / 495.0 - 1)
    errors = model.errors_table(predicted)
    assert list(errors["group"]) == ["all", "scan", "storage_profile"]
    # deserialisation 0.6 s predicted, 2.02 - 0.9 - 0.4 = 0.72 s measured: the part most off
    assert (
        errors["meets_targets"].all()
        and (errors["part_most_off"] == "deserialisation -120 ms (median)").all()
    )
    assert model.errors_table(predicted.iloc[0:0]).empty
