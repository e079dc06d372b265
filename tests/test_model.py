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
