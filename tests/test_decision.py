"""The Pareto front and the cost model's arithmetic (rootparams.decision) on hand-made tables."""

import math

import pandas as pd
import pytest

from rootparams.config import ConfigError, load_study_config
from rootparams.decision import (
    candidates,
    cheapest,
    cost_candidates,
    cost_parts,
    crossovers,
    decision_markdown,
    dominates,
    pareto,
    setting_label,
)

FILE_DEFAULTS = {"container": "ttree", "algorithm": "zlib", "level": 5, "autoflush": 100, "split_level": 0,
                 "basket_size": 32000, "page_size": 1048576}  # fmt: skip
READ_DEFAULTS = {"cache_size": -1, "learn_entries": "default", "cluster_bunch": 1, "async_prefetch": False,
                 "threads": 1, "reading_style": "getentry", "unzip": False, "branches": "particle",
                 "storage_profile": "hdd"}  # fmt: skip


def config(**cost):
    prices = {"currency": "CHF", "disk_per_tb_year": 100.0, "cpu_per_core_hour": 0.36, "lifetime_years": 2.0,
              "copies": 2, "reads_per_file": [1, 10, 100], "storage_profile": None, "lossy": False}  # fmt: skip
    return {"formats": {"xaod": {}}, "file_defaults": {"xaod": FILE_DEFAULTS}, "read_defaults": READ_DEFAULTS,
            "cost": prices | cost}  # fmt: skip


def point(file_id, algorithm, level, *, rate, size, write_s, events=1000, valid=True, threads=1, **settings):
    """A summary row and its files row: ``size`` bytes for ``events`` events, ROOT's write time ``write_s``."""
    summary = {"format": "xaod", "file_id": file_id, "read_id": f"r_{file_id}_{threads}", **FILE_DEFAULTS,
               **READ_DEFAULTS, "algorithm": algorithm, "level": level, "threads": threads,
               "event_rate_hz_mean": rate, "event_rate_hz_std": 0.01 * rate, "n": 10, "window_valid": valid,
               **settings}  # fmt: skip
    files = {"format": "xaod", "file_id": file_id, "size_bytes": size, "events": events,
             "root_write_seconds": write_s, "write_threads": 1}  # fmt: skip
    return summary, files


def tables(*points):
    summary = pd.DataFrame([s for s, _ in points])
    files = pd.DataFrame([f for _, f in points]).drop_duplicates(["format", "file_id"])
    return summary, files


def test_dominates_needs_all_three_and_one_strictly():
    a = {"bytes_per_event": 1.0, "event_rate_hz": 10.0, "write_core_us_per_event": 5.0}
    assert dominates(a, {**a, "bytes_per_event": 2.0})
    assert not dominates(a, a)  # equal everywhere: neither beats the other
    assert not dominates(a, {**a, "bytes_per_event": 2.0, "event_rate_hz": 11.0})  # the other is faster
    # An unknown write cost (a user's file as it is) compares on size and rate only.
    assert dominates(a, {**a, "event_rate_hz": 9.0, "write_core_us_per_event": math.nan})
    assert dominates({**a, "write_core_us_per_event": math.nan}, {**a, "event_rate_hz": 9.0})


def test_pareto_front_on_a_hand_made_table():
    summary, files = tables(
        point("small", "lzma", 5, rate=50, size=500_000, write_s=20.0),  # smallest: on the front
        point("fast", "lz4", 1, rate=200, size=1_000_000, write_s=2.0),  # fastest and cheapest to write
        point("worse", "zlib", 5, rate=150, size=1_100_000, write_s=5.0),  # beaten by "fast" on all three
        point("middle", "zstd", 5, rate=120, size=700_000, write_s=6.0),  # beaten by none
        point("invalid", "zlib", 1, rate=500, size=100_000, write_s=1.0, valid=False),  # would beat all
    )
    rows = pareto(candidates(summary, files, config()))
    on = dict(zip(rows["file_id"], rows["on_front"], strict=True))
    assert on == {"small": True, "fast": True, "worse": False, "middle": True, "invalid": False}
    by = dict(zip(rows["file_id"], rows["dominated_by"], strict=True))
    assert by["worse"] == "LZ4-1" and by["invalid"].startswith("(not valid")
    worse = rows[rows["file_id"] == "worse"].iloc[0]
    assert worse["bytes_per_event"] == 1100 and worse["write_core_us_per_event"] == pytest.approx(5000)


def test_groups_are_separate_fronts():
    # The same file read on two storage profiles: each profile has its own front.
    summary, files = tables(
        point("a", "lz4", 1, rate=200, size=1_000_000, write_s=2.0),
        point("b", "lzma", 5, rate=50, size=500_000, write_s=1.0),
    )
    native = summary.assign(storage_profile="native", event_rate_hz_mean=[100, 400])  # b faster on native
    rows = pareto(candidates(pd.concat([summary, native]), files, config()))
    hdd = rows[rows["storage_profile"] == "hdd"]
    nat = rows[rows["storage_profile"] == "native"]
    assert hdd["on_front"].all()
    assert list(nat.sort_values("file_id")["on_front"]) == [False, True]


def test_cost_arithmetic():
    # 1 MB/event, 100 Hz, 10 ms of ROOT write time per event; 1e6 events:
    # disk: 1 TB x 100 CHF x 2 years x 2 copies = 400; write: 1e4 core-s = 2.78 core-h x 0.36 = 1.0;
    # a read: 1e4 s = 1.0 CHF per core, 2.0 with 2 threads.
    summary, files = tables(
        point("f", "zlib", 5, rate=100, size=1_000_000_000, write_s=10.0, events=1000),
        point("f", "zlib", 5, rate=100, size=1_000_000_000, write_s=10.0, events=1000, threads=2),
    )
    parts = cost_parts(candidates(summary, files, config()), config()["cost"] | {"storage_profile": "hdd"})
    assert list(parts["storage_cost"]) == pytest.approx([400.0, 400.0])
    assert list(parts["write_cost"]) == pytest.approx([1.0, 1.0])
    assert list(parts["read_cost"]) == pytest.approx([1.0, 2.0])


def test_cheapest_and_where_the_choice_changes():
    # small: disk 10 + write 0, 1 per read; big: disk 20, 0.5 per read: equal at 20 reads.
    cpu = 0.36  # CHF per core-hour: 1e4 s of reading = 1 CHF
    summary, files = tables(
        point("small", "lzma", 5, rate=100, size=int(10 / (100 * 2 * 2) * 1e12 / 1e6 * 1000), write_s=0.0),
        point("big", "lz4", 1, rate=200, size=int(20 / (100 * 2 * 2) * 1e12 / 1e6 * 1000), write_s=0.0),
    )
    cfg = config(cpu_per_core_hour=cpu)
    parts = cost_candidates(candidates(summary, files, cfg), cfg)
    choice = cheapest(parts, [1, 10, 100])
    assert list(choice["setting"]) == ["LZMA-5", "LZMA-5", "LZ4-1"]
    assert list(choice["total_cost"]) == pytest.approx([11.0, 20.0, 70.0])
    assert choice.iloc[0]["runner_up"] == "LZ4-1" and choice.iloc[0]["runner_up_extra"] == pytest.approx(
        20.5 / 11 - 1
    )
    envelope = crossovers(parts)
    assert list(envelope["setting"]) == ["LZMA-5", "LZ4-1"]
    assert envelope.iloc[0]["to_reads"] == pytest.approx(20.0) and math.isinf(envelope.iloc[1]["to_reads"])
    text = decision_markdown(choice, envelope, pareto(candidates(summary, files, cfg)), cfg)
    assert "**LZMA-5**" in text and "1-20 reads: LZMA-5; 20-∞ reads: LZ4-1" in text


def test_cost_leaves_out_lossy_other_profiles_and_invalid_points():
    summary, files = tables(
        point("full", "zlib", 5, rate=100, size=1_000_000, write_s=1.0),
        point("lossy", "zlib", 5, rate=100, size=500_000, write_s=1.0, float_precision="mantissa10"),
        point("native", "lz4", 1, rate=900, size=1_000_000, write_s=1.0, storage_profile="native"),
        point("invalid", "lz4", 1, rate=900, size=100, write_s=1.0, valid=False),
        point("all", "lz4", 1, rate=900, size=100, write_s=1.0, branches="all"),
    )
    rows = candidates(summary, files, config())
    assert list(cost_candidates(rows, config())["file_id"]) == ["full"]
    assert sorted(cost_candidates(rows, config(lossy=True))["file_id"]) == ["full", "lossy"]
    assert list(cost_candidates(rows, config(storage_profile="native"))["file_id"]) == ["native"]


def test_setting_labels_name_what_differs_from_the_defaults():
    row = {**FILE_DEFAULTS, **READ_DEFAULTS}
    assert setting_label(row, FILE_DEFAULTS, READ_DEFAULTS) == "ZLIB-5"
    assert (
        setting_label(
            {**row, "algorithm": "lz4", "level": 1, "autoflush": -20000000, "cache_size": 0, "threads": 2},
            FILE_DEFAULTS,
            READ_DEFAULTS,
        )
        == "LZ4-1, AF 20 MB, cache off, mt2"
    )
    assert setting_label({**row, "container": "rntuple", "split_level": -1, "algorithm": "zstd"}, FILE_DEFAULTS,
                         READ_DEFAULTS) == "RNTuple ZSTD-5"  # fmt: skip
    assert setting_label({**row, "branch_compression": "largest4:lz4-1", "float_precision": "mantissa10"},
                         FILE_DEFAULTS, READ_DEFAULTS) == "ZLIB-5, hot largest4:lz4-1, floats mantissa10"  # fmt: skip


def test_cost_config_errors_name_the_key_and_the_valid_values():
    raw = {"formats": {"truth3": {"written": 100, "read": 100}}, "cost": {"storage_profile": "ssd"}}
    with pytest.raises(
        ConfigError, match=r"cost.storage_profile = 'ssd': no point of this study reads on it.*'hdd'"
    ):
        load_study_config(raw)
    with pytest.raises(ConfigError, match="cost"):
        load_study_config({**raw, "cost": {"disk_per_tb_year": -1}})
    assert load_study_config({**raw, "cost": {}})["cost"]["reads_per_file"] == [1, 10, 100]


def test_write_cost_is_cpu_time_where_recorded():
    # 2 s of wall with 2 threads, 3 s of CPU: the CPU time counts; a catalogue without it falls back to wall x threads.
    summary, files = tables(point("f", "zlib", 5, rate=100, size=1000, write_s=2.0, events=1000))
    files["write_threads"] = 2
    assert candidates(summary, files, config())["write_core_us_per_event"].iloc[0] == pytest.approx(4000)
    files["root_write_cpu_seconds"] = 3.0
    assert candidates(summary, files, config())["write_core_us_per_event"].iloc[0] == pytest.approx(3000)


def test_a_run_without_a_valid_point_still_writes_readable_tables(tmp_path):
    # The tests' tiny runs have no valid timed loop: every table must still have its columns, so that the
    # figures and recommendations.md after it read them and say there is nothing to choose.
    from rootparams.decision import cost_table
    from rootparams.figures import draw_cost, draw_pareto

    summary, files = tables(point("f", "zlib", 5, rate=100, size=1_000_000, write_s=1.0, valid=False))
    cfg = config()
    rows = pareto(candidates(summary, files, cfg))
    parts = cost_candidates(rows, cfg)
    written = {}
    for name, table in {"choice": cheapest(parts, [1, 10]), "envelope": crossovers(parts),
                        "costs": cost_table(rows, cfg), "front": rows}.items():  # fmt: skip
        table.to_csv(tmp_path / f"{name}.csv", index=False)
        written[name] = pd.read_csv(tmp_path / f"{name}.csv")
    assert written["choice"].empty and "setting" in written["choice"].columns
    text = decision_markdown(written["choice"], written["envelope"], written["front"], cfg)
    assert "no choice" in text
    draw_cost(written["costs"], written["choice"], cfg["cost"] | {"storage_profile": "hdd"})
    draw_pareto(written["front"], "xaod")
