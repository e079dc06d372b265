"""The remote storage primitives (rootparams.measure.remote_primitives): which profiles are measured, how a probe's request times
become a profile's round trip, bandwidth and check, the remote medium the model builds from them, and, with a real
xrootd and toxiproxy, that the round trip measured through a 20 ms profile is 20 ms and a little more."""

from __future__ import annotations

import math
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import require
from test_model import _study
from test_remote_endpoint import have_toxiproxy, have_xrootd

from rootparams.host import storage
from rootparams.measure import remote_primitives
from rootparams.measure.remote_primitives import KIB, MIB
from rootparams.model import model
from rootparams.study.config import load_study_config

WAN = storage.PROFILES["xrootd-wan"]
LAN = storage.PROFILES["xrootd-lan"]


def test_only_the_remote_profiles_of_the_study_are_measured_and_the_default_study_has_none():
    assert remote_primitives.profiles_to_measure(load_study_config({})) == []
    config = load_study_config(
        {
            "read_defaults": {"storage_profile": "native"},
            "measurement": {
                "storage_profiles": {
                    "site": {"remote_url": "root://eos.example.org//eos/user/x/", "copy": True},
                    "dc": {"rtt_ms": 5, "bandwidth_bps": 50_000_000},
                }
            },
            "scans": {
                "s": {"storage_profile": ["hdd", "xrootd-far", "dc", "xrootd-lan"]},
                "t": {"storage_profile": ["site", "xrootd-far"]},
            },
        }
    )
    profiles = remote_primitives.profiles_to_measure(config)
    assert [p.name for p in profiles] == ["xrootd-far", "dc", "xrootd-lan", "site"]
    assert [p.access for p in profiles] == ["xrootd", "xrootd", "xrootd", "endpoint"]


def test_reads_are_spread_over_the_file_without_sharing_a_page():
    offsets = remote_primitives._spread_offsets(128 * MIB, 200, KIB)
    assert len(set(offsets)) == 200 and offsets[0] == 0 and offsets[-1] + KIB <= 128 * MIB
    assert min(np.diff(offsets)) >= 600 * KIB  # far beyond a page and the kernel's first read-ahead window
    shifted = remote_primitives._spread_offsets(128 * MIB, 64, 16 * KIB, shift=64 * KIB)
    assert shifted[0] == 64 * KIB and shifted[-1] + 16 * KIB <= 128 * MIB
    with pytest.raises(remote_primitives.RemoteBenchError, match="too small"):
        remote_primitives._spread_offsets(MIB, 200, 16 * KIB)
    plan = remote_primitives._probe_plan("root://h//f?remote=1&filetype=raw", "/f", 128 * MIB)
    assert len(plan["round_trip"]["offsets"]) == remote_primitives._ROUND_TRIP_READS
    assert plan["transfer"] == {"bytes": 64 * MIB, "offsets": [0, 32 * MIB, 64 * MIB]}
    assert len(plan["vector"]["positions"]) == remote_primitives._VECTOR_REPETITIONS
    with pytest.raises(remote_primitives.RemoteBenchError, match="larger than the scratch file"):
        remote_primitives._probe_plan("u", None, 32 * MIB)


def _result(rtt=0.0211, bandwidth=94e6, spread=0.0002, transfer_bytes=64 * MIB, seed=1):
    """A probe's output for a network of ``rtt`` and ``bandwidth`` (made-up request times, the shapes probe
    returns)."""
    rng = np.random.default_rng(seed)
    pieces, piece = 64, 16 * KIB
    return {
        "file_class": "TNetXNGFile",
        "cold": True,
        "root_version": "6.40/00",
        "open_seconds": 0.2,
        "round_trip_bytes": KIB,
        "transfer_bytes": transfer_bytes,
        "vector_pieces": pieces,
        "vector_piece_bytes": piece,
        "resident_pages": 0,
        "requested_pages": 51912,
        "round_trip": list(rtt + KIB / bandwidth + spread * rng.random(200)),
        "transfer": [rtt + spread / 2 + transfer_bytes / bandwidth] * 3,
        "vector": [rtt + spread / 2 + pieces * piece / bandwidth] * 10,
    }


def test_a_probe_becomes_a_round_trip_a_bandwidth_and_the_model_s_latency():
    described = {"remote_rtt_ms_applied": 20, "remote_bandwidth_bps_applied": 100_000_000}
    row = remote_primitives._summarize_probe("h", WAN, _result(), described)
    assert row["round_trip_n"] == 200 and row["transfer_n"] == 3 and row["vector_n"] == 10
    # the mean round trip: rtt, the 1 kB's transfer and half the spread
    assert row["round_trip_s_mean"] == pytest.approx(0.0211 + KIB / 94e6 + 0.0001, rel=0.02)
    assert row["round_trip_s_p2_5"] < row["round_trip_s_median"] < row["round_trip_s_p97_5"]
    assert row["round_trip_s_mean_ci95_low"] < row["round_trip_s_mean"] < row["round_trip_s_mean_ci95_high"]
    # the transfer less one round trip: the bandwidth itself, not bytes over a time that holds a round trip too
    assert row["bandwidth_bps"] == pytest.approx(94e6, rel=1e-3)
    assert row["transfer_raw_bps"] < row["bandwidth_bps"]
    assert row["round_trip_share_of_transfer"] == pytest.approx(0.0212 / (0.0212 + 64 * MIB / 94e6), rel=0.02)
    # what the model charges per request: the round trip less its own bytes' transfer
    assert row["request_seconds"] == pytest.approx(row["round_trip_s_mean"] - KIB / row["bandwidth_bps"])
    # a vector read as the model predicts it: one round trip and its bytes
    assert row["vector_vs_predicted"] == pytest.approx(1.0, abs=0.01)
    assert (row["nominal_rtt_s"], row["applied_rtt_s"], row["nominal_bandwidth_bps"]) == (0.02, 0.02, 100e6)
    assert row["nominal_check"] == "pass", row["nominal_check_detail"]
    assert row["rtt_minus_nominal_s"] == pytest.approx(row["round_trip_s_median"] - 0.02)
    assert row["cold"] and row["resident_share"] == 0
    # pages the eviction could not drop are counted, and the row is not called cold
    warmish = remote_primitives._summarize_probe(
        "h", WAN, {**_result(), "resident_pages": 512, "requested_pages": 51912}, described
    )
    assert not warmish["cold"] and warmish["resident_share"] == pytest.approx(512 / 51912)


def test_the_check_against_the_nominal_figures():
    applied = {"remote_rtt_ms_applied": 20, "remote_bandwidth_bps_applied": 100_000_000}
    # shorter than the delay applied: the proxy delays nothing
    short = remote_primitives._summarize_probe("h", WAN, _result(rtt=0.0005), applied)
    assert (
        short["nominal_check"] == "fail" and "shorter than the 20 ms delay" in short["nominal_check_detail"]
    )
    # far beyond the allowance for the proxy's hop, the server's read and the timers
    slow = remote_primitives._summarize_probe("h", WAN, _result(rtt=0.0251), applied)
    assert slow["nominal_check"] == "fail" and "from the nominal 20 ms" in slow["nominal_check_detail"]
    # a bandwidth 15 % under its limit
    narrow = remote_primitives._summarize_probe("h", WAN, _result(bandwidth=85e6), applied)
    assert (
        narrow["nominal_check"] == "fail"
        and "-15 % from the limit 100 MB/s" in narrow["nominal_check_detail"]
    )
    # xrootd-lan: 0.2 ms nominal, no delay applied (whole milliseconds): the proxy's hop is what is measured
    lan = remote_primitives._summarize_probe(
        "h", LAN, _result(rtt=0.0003, bandwidth=120e6), {"remote_rtt_ms_applied": 0}
    )
    assert lan["nominal_check"] == "pass", lan["nominal_check_detail"]
    # a profile without a bandwidth limit is not checked on it, and says what it measured
    far = remote_primitives._summarize_probe(
        "h",
        storage.PROFILES["xrootd-far"],
        _result(rtt=0.1015, bandwidth=650e6),
        {"remote_rtt_ms_applied": 100},
    )
    assert far["nominal_check"] == "pass" and "no limit" in far["nominal_check_detail"]
    # a user's endpoint has no nominal figures
    site = storage.StorageProfile("site", remote_url="root://x//y/", copy=True)
    mine = remote_primitives._summarize_probe("h", site, _result(), {})
    assert mine["nominal_check"] == "" and math.isnan(mine["nominal_rtt_s"])


def test_the_tables_keep_every_request_and_say_why_a_profile_was_not_measured(tmp_path):
    described = {"remote_rtt_ms_applied": 20, "remote_bandwidth_bps_applied": 100_000_000}
    rows = [
        remote_primitives._summarize_probe("h", WAN, _result(), described),
        remote_primitives.not_measured("h", LAN, "toxiproxy-server is not installed"),
    ]
    requests = remote_primitives._request_records("h", WAN, _result())
    assert len(requests) == 200 + 3 + 10
    assert {r["kind"] for r in requests} == {"round_trip", "transfer", "vector_read"}
    table = remote_primitives.write_tables(rows, requests, tmp_path / "remote.csv", tmp_path / "requests.csv")
    assert list(table["storage_profile"]) == ["xrootd-lan", "xrootd-wan"]  # the study's order, fast to slow
    back = pd.read_csv(tmp_path / "remote.csv")
    assert list(back.columns) == remote_primitives.SUMMARY_COLUMNS
    assert back.loc[0, "nominal_check"] == "not measured" and math.isnan(back.loc[0, "bandwidth_bps"])
    assert len(pd.read_csv(tmp_path / "requests.csv")) == 213
    lines = remote_primitives.describe(back)
    assert "not measured (toxiproxy-server" in lines[0] and "round trip 21." in lines[1]
    # the model builds a medium of the measured profile only
    media = model._media_from_remote(back)
    assert list(media) == ["xrootd-wan"]


def test_a_remote_medium_is_measured_pays_a_round_trip_per_request_and_reads_nothing_ahead():
    table = pd.DataFrame(
        [remote_primitives._summarize_probe("h", WAN, _result(), {"remote_rtt_ms_applied": 20})]
    )
    wan = model._media_from_remote(table)["xrootd-wan"]
    assert wan.measured and wan.requests_per == "round_trip" and not wan.read_ahead
    assert wan.bandwidth_bps == pytest.approx(94e6, rel=1e-3) and wan.request_seconds == pytest.approx(
        table["request_seconds"].iloc[0]
    )
    # a TTree: every read call is a request over the network (a TTreeCache fill is one vector read; the learning
    # phase's baskets one each), so a point with 3 clusters and 40 read calls pays 40 round trips
    point = {"events_read": 300, "loop_bytes_read": 94e6, "loop_storage_read_bytes": 120e6,
             "loop_read_calls": 40, "events_per_cluster": 100, "container": "ttree", "cache_size": -1}  # fmt: skip
    cpu = {"unzip_seconds": 0.2, "loop_seconds": 0.5}
    p = model.predict(point, cpu, wan, read_ahead_bytes=8 << 20)
    assert p["storage_requests"] == pytest.approx(40 * wan.request_seconds)
    assert p["storage_transfer"] == pytest.approx(1.0, rel=1e-3)  # ROOT's bytes, not the server disk's
    assert p["overlap"] == 0  # no read-ahead over the network
    # without the cache: every read call, as before
    no_cache = model.predict({**point, "cache_size": 0, "loop_read_calls": 900}, cpu, wan)
    assert no_cache["storage_requests"] == pytest.approx(900 * wan.request_seconds)
    # RNTuple counts the byte ranges of its vector reads as read calls: one request per cluster loaded
    rntuple = model.predict({**point, "container": "rntuple"}, cpu, wan)
    assert rntuple["storage_requests"] == pytest.approx(3 * wan.request_seconds)
    assert model._media_from_remote(None) == {} and model._media_from_remote(pd.DataFrame()) == {}


def test_points_on_a_remote_profile_are_predicted_and_judged_per_profile():
    study, storage_table, warm, _ = _study()
    remote_point = study.assign(storage_profile="xrootd-wan", read_id="r2")
    points = pd.concat([study, remote_point], ignore_index=True)
    without = model.predicted_points(points, storage_table, warm)
    assert list(without["storage_profile"]) == ["hdd"]  # no remote primitives: the remote point is left out
    remote = pd.DataFrame(
        [remote_primitives._summarize_probe("h", WAN, _result(), {"remote_rtt_ms_applied": 20})]
    )
    predicted = model.predicted_points(points, storage_table, warm, remote)
    assert list(predicted["storage_profile"]) == ["hdd", "xrootd-wan"]
    wan = predicted.iloc[1]
    assert wan["storage_requests"] == pytest.approx(10 * remote["request_seconds"].iloc[0])
    assert wan["storage_transfer"] == pytest.approx(140e6 / remote["bandwidth_bps"].iloc[0])
    errors = model.errors_table(predicted)
    assert set(errors.loc[errors["group"] == "storage_profile", "value"]) == {"hdd", "xrootd-wan"}


# With a real xrootd and toxiproxy (tools/install-remote; CI installs them, so there it never skips).

# The round trip through xrootd-wan (20 ms applied as 10 ms each way) on a 2-core virtual machine, medians of 200
# reads of 1 kB from a cold file: 20.95-21.36 ms in seven runs (the central 95 % of the requests within 20.67-22.31
# ms, except in one run that another job's start disturbed); the excess over 20 ms is the proxy's hop, the server's
# cold read and Go's timers in the two toxics. The bound below is 20 ms (a round trip is never shorter than the delay
# applied) up to 20 ms + ROUND_TRIP_ALLOWANCE_S (3 ms, about twice the largest excess seen).


@pytest.fixture
def data_dir():
    """A data_dir the server's account (xrootd, when we are root) can read: pytest's tmp_path is private."""
    path = Path(tempfile.mkdtemp(prefix="rootparams-remotebench-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_the_round_trip_through_the_wan_profile_is_its_20_ms(data_dir, tmp_path):
    require(
        have_xrootd() and have_toxiproxy(), "xrootd and toxiproxy-server are needed: run tools/install-remote"
    )
    small = {"round_trip_reads": 50, "transfer_bytes": 16 * MIB, "vector_repetitions": 3}
    rows, requests = remote_primitives.measure_remote(
        [WAN], data_dir, tmp_path / "logs", host_lock=tmp_path / "lock", scratch_bytes=32 * MIB,
        plan_options=small, say=lambda _: None,
    )  # fmt: skip
    (row,) = rows
    assert row["nominal_check"] in ("pass", "fail"), row["nominal_check_detail"]
    # through the server, the file evicted first: pages the server keeps resident despite the eviction are counted
    # (1-3 % of a read's pages at most on a 2-core virtual machine), never left unsaid
    assert row["file_class"] == "TNetXNGFile" and row["resident_share"] < 0.05
    assert row["round_trip_n"] == 50 and len(requests) == 50 + 3 + 3
    median = row["round_trip_s_median"]
    assert 0.020 <= median <= 0.020 + remote_primitives._ROUND_TRIP_ALLOWANCE_S, row
    # The bandwidth can only be below the limit (within the check's tolerance). How close it comes depends on the
    # host's load: toxiproxy paces each 32 kB chunk with a Go timer (development VM: 93-95 MB/s idle, 84-88 MB/s
    # while other jobs compiled on both cores), so the test does not ask for the nominal 100 MB/s.
    assert row["bandwidth_bps"] <= 100e6 * (1 + remote_primitives.NOMINAL_TOLERANCE), row["bandwidth_bps"]
    # The round trip against the transfer (under 20 % with these options) is a timed comparison, printed by
    # benchmarks/timed_checks.py (remote-study) from a study's remote primitives.
    assert math.isfinite(row["round_trip_share_of_transfer"])
    assert not (data_dir / "primitives" / "remote" / "remote-scratch.bin").exists()  # removed afterwards
