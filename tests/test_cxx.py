"""The compiled writer and reader: real ROOT files, real PerfStats, settings pinned, errors that name the file."""

import os

import pytest

from rootparams.generate import generate_file
from rootparams.grid import FilePoint
from rootparams.measure import ReadError, reader_command, run_tool

READ = {"cache_size": -1, "learn_entries": "default", "threads": 1, "branches": "particle"}


@pytest.fixture(scope="module")
def xaod(build, tmp_path_factory):
    out = tmp_path_factory.mktemp("cxx") / "xaod.root"
    entry = generate_file(FilePoint("xaod", "lz4", 1, 10, 1, 32000), events=40, seed=7,
                          writer=str(build["writer"]), reader=str(build["reader"]), output=str(out), catalogue=None)  # fmt: skip
    return out, entry


def read(build, path, events=40, **overrides):
    return run_tool(
        reader_command(str(build["reader"]), str(path), events, {**READ, **overrides}), "test read"
    )


def test_catalogue_reports_what_was_written(xaod):
    path, entry = xaod
    assert entry["algorithm"] == "lz4" and entry["level"] == 1 and entry["compression_setting"] == 401
    assert entry["branch_compression_settings"] == "401"
    assert entry["autoflush"] == 10 and entry["clusters"] == 4  # 40 events, AutoFlush 10
    assert entry["split_level"] == 1 and entry["branches"] > entry["top_level_branches"]  # split into members
    assert entry["events"] == 40 and entry["size_bytes"] == os.path.getsize(path)
    assert 0.5 < entry["particle_fraction_zip"] < 1.0
    assert not path.with_name(f".{path.name}.partial").exists()


def test_timed_read_records_every_perfstats_metric(build, xaod):
    path, entry = xaod
    r = read(build, path)
    for key in ("read_calls", "bytes_read", "bytes_per_read", "disk_seconds", "unzip_seconds", "event_loop_seconds",
                "event_rate_hz", "read_mb_per_s_compressed", "read_mb_per_s_uncompressed", "cache_size_used",
                "peak_rss_bytes", "rss_increase_bytes", "wall_seconds", "loop_cpu_seconds", "start_time", "end_time"):  # fmt: skip
        assert key in r, key
    assert r["events_read"] == 40 and r["read_calls"] > 0
    assert 0 < r["bytes_read"] <= entry["size_bytes"]
    assert r["unzip_output_bytes"] > r["unzip_input_bytes"] > 0
    assert r["event_rate_hz"] == pytest.approx(39 / r["event_loop_seconds"])
    assert r["start_time"] < r["end_time"]
    assert r["imt_pool_size"] == 0 and r["learn_entries_used"] == 100


def test_cache_settings_are_pinned_against_the_environment(build, xaod, monkeypatch):
    path, _ = xaod
    monkeypatch.setenv("ROOT_TTREECACHE_SIZE", "0")
    # Learn from 1 entry: with ROOT's default of 100 the 40-event file would be read entirely while learning.
    with_cache = read(build, path, cache_size=-1, learn_entries=1)
    assert with_cache["cache_size_used"] > 0 and with_cache["env_TTreeCache.Size"] == "1"
    monkeypatch.setenv("ROOT_TTREECACHE_SIZE", "100000000")
    without = read(build, path, cache_size=0, learn_entries=1)
    assert without["cache_size_used"] == 0
    assert without["read_calls"] > with_cache["read_calls"]


def test_learn_entries_and_threads_are_applied(build, xaod):
    path, _ = xaod
    r = read(build, path, learn_entries=5, threads=2)
    assert r["learn_entries_used"] == 5 and r["imt_pool_size"] == 2


def test_branch_selections(build, xaod):
    path, _ = xaod
    particle, everything = read(build, path), read(build, path, branches="all")
    assert everything["selected_top_branches"] > particle["selected_top_branches"]
    one = read(build, path, branches="list:Electrons,ElectronsAux.")
    assert one["selected_top_branches"] == 2
    assert read(build, path, branches="regex:^Muons")["selected_top_branches"] >= 2
    with pytest.raises(ReadError, match=r"branch 'Nope' .* is not in the tree"):
        read(build, path, branches="list:Nope")


def test_truncated_file_is_an_error_naming_the_file(build, xaod, tmp_path):
    path, _ = xaod
    broken = tmp_path / "truncated.root"
    broken.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    with pytest.raises(ReadError, match=r"truncated\.root"):
        read(build, broken)


def test_not_a_root_file_is_an_error_naming_the_file(build, tmp_path):
    junk = tmp_path / "junk.root"
    junk.write_bytes(b"this is not ROOT" * 100)
    with pytest.raises(ReadError, match=r"junk\.root: cannot be opened"):
        read(build, junk)


def test_more_events_than_the_file_has_is_an_error(build, xaod):
    path, _ = xaod
    with pytest.raises(ReadError, match="has 40 entries, but 41 were requested"):
        read(build, path, events=41)


def test_same_seed_same_content_under_other_settings(build, tmp_path):
    a = generate_file(FilePoint("truth3", "zlib", 1, 100, 0, 32000), events=50, seed=3,
                      writer=str(build["writer"]), reader=str(build["reader"]), output=str(tmp_path / "a.root"), catalogue=None)  # fmt: skip
    b = generate_file(FilePoint("truth3", "lzma", 9, 7, 99, 16000), events=50, seed=3,
                      writer=str(build["writer"]), reader=str(build["reader"]), output=str(tmp_path / "b.root"), catalogue=None)  # fmt: skip
    assert a["size_bytes"] != b["size_bytes"]
    # Uncompressed payload of the same objects: equal up to per-basket framing, which split level changes.
    assert a["tot_bytes"] == pytest.approx(b["tot_bytes"], rel=0.25)


def test_throttled_timed_read_takes_at_least_bytes_over_bandwidth(build, xaod, tmp_path):
    """The whole harness (eviction, warm-up, throttle, reader) with a slow disk: ROOT's reads of the cold
    file cannot go faster than the configured bandwidth."""
    import os

    from conftest import require

    from rootparams.config import load_study_config
    from rootparams.measure import measure_point
    from rootparams.storage import BLKIO

    require(
        os.geteuid() == 0 and (BLKIO / "blkio.throttle.read_bps_device").exists(), "root and cgroup v1 blkio"
    )
    path, _ = xaod
    warmup = tmp_path / "warmup.root"
    generate_file(FilePoint("xaod", "lz4", 1, 10, 1, 32000), events=3, seed=8, writer=str(build["writer"]),
                  reader=str(build["reader"]), output=str(warmup), catalogue=None)  # fmt: skip
    bps = 20_000_000
    # Never retried nor flagged for a busy machine: this test is about the throttle.
    settings = {"monitor": "none", "busy_cpu_threshold": 1.0, "max_cpu_steal": 1.0, "attempts": 1,
                "eviction": "system", "storage_profiles": {"slow": {"read_bps": bps}}}  # fmt: skip
    measurement = load_study_config({"measurement": settings})["measurement"]
    (record,) = measure_point(root_file=str(path), warmup_file=str(warmup), reader=str(build["reader"]), events=40,
                              read={**READ, "storage_profile": "slow"}, measurement=measurement,
                              monitor_csv=str(tmp_path / "m.csv"), records={0: str(tmp_path / "rep0.json")},
                              labels={})  # fmt: skip
    assert record["storage_profile"] == "slow" and record["storage_read_bps"] == bps
    assert record["resident_fraction_before"] == 0.0
    assert record["wall_seconds"] >= 0.9 * record["bytes_read"] / bps
