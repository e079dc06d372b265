"""The Pareto front, the cost model's arithmetic and how sure the decision is (rootparams.decide.decision), on hand-made
summaries, files and repetitions with their rounds."""

import math

import numpy as np
import pandas as pd
import pytest

from rootparams.decide.decision import (
    BOOTSTRAP_REPLICATES,
    _front,
    _holds_cheapest,
    _small_sample_widening,
    candidates,
    cheapest,
    cost_model,
    cost_ranking,
    cost_table,
    crossovers,
    decision_markdown,
    eligible_setting,
    judge,
    pareto,
    setting_label,
    surely_beats,
)
from rootparams.measure.writenoise import files_to_write, relative_spread
from rootparams.results.aggregate import derive_metrics
from rootparams.stats.compare import Repetitions
from rootparams.stats.intervals import Interval, Ratio, t_quantile
from rootparams.study.config import ConfigError, load_study_config

FILE_DEFAULTS = {
    "container": "ttree",
    "algorithm": "zlib",
    "level": 5,
    "autoflush": 100,
    "split_level": 0,
    "basket_size": 32000,
    "page_size": 1048576,
}
READ_DEFAULTS = {
    "cache_size": -1,
    "learn_entries": "default",
    "cluster_bunch": 1,
    "async_prefetch": False,
    "threads": 1,
    "reading_style": "getentry",
    "unzip": False,
    "branches": "particle",
    "storage_profile": "hdd",
}
EVENTS = 1000
ROUNDS = 10
# 0.36 CHF per core-hour: 1e4 core-seconds (0.01 s per event x 1e6 events) cost 1 CHF.
CPU = 0.36


def config(**cost):
    prices = {
        "currency": "CHF",
        "disk_per_tb_year": 100.0,
        "cpu_per_core_hour": CPU,
        "lifetime_years": 2.0,
        "copies": 2,
        "reads_per_file": [1, 10, 100],
        "storage_profile": None,
        "lossy": False,
    }
    return {
        "formats": {"xaod": {}},
        "file_defaults": {"xaod": FILE_DEFAULTS},
        "read_defaults": READ_DEFAULTS,
        "cost": prices | cost,
    }


def point(
    file_id,
    algorithm,
    level,
    *,
    rate=100.0,
    size=1_000_000,
    write_s=0.0,
    events=EVENTS,
    valid=True,
    threads=1,
    **settings,
):
    """A summary row and its files row: ``size`` bytes for ``events`` events, ROOT's write time ``write_s``,
    a timed loop of ``rate`` (1 % spread)."""
    summary = {
        "format": "xaod",
        "file_id": file_id,
        "read_id": f"r_{file_id}_{threads}",
        **FILE_DEFAULTS,
        **READ_DEFAULTS,
        "algorithm": algorithm,
        "level": level,
        "threads": threads,
        "event_rate_hz_mean": rate,
        "event_rate_hz_std": 0.01 * rate,
        "n": ROUNDS,
        "window_valid": valid,
        **settings,
    }
    files = {
        "format": "xaod",
        "file_id": file_id,
        "size_bytes": size,
        "events": events,
        "root_write_seconds": write_s,
        "write_threads": 1,
    }
    return summary, files


def tables(*points):
    summary = pd.DataFrame([s for s, _ in points])
    files = pd.DataFrame([f for _, f in points]).drop_duplicates(["format", "file_id"])
    return summary, files


def timed_reads(point_rows, seconds_per_event, *, loop_rates=None, rounds=True, block="xaod@1"):
    """One repetitions.csv row per timed read of ``point_rows`` (a point()): its whole read (open + loop) takes
    ``seconds_per_event`` (one value per round), its loop runs at ``loop_rates`` (default: the summary's rate).
    ``rounds``: with round keys (interleaved rounds), or without (records from before the rounds)."""
    summary, _ = point_rows
    if loop_rates is None:
        loop_rates = [summary["event_rate_hz_mean"]] * len(seconds_per_event)
    return [
        {
            "format": summary["format"],
            "file_id": summary["file_id"],
            "read_id": summary["read_id"],
            "rep": k,
            "round_key": f"{block}/r{k}" if rounds else None,
            "flagged": False,
            "events_read": EVENTS,
            "process_seconds": s * EVENTS,
            "event_rate_hz": rate,
        }
        for k, (s, rate) in enumerate(zip(seconds_per_event, loop_rates, strict=True))
    ]


def repetitions(*reads):
    """Repetitions as the workflow reads them: repetitions.csv with its derived metrics (the whole read's rate)."""
    return Repetitions(derive_metrics(pd.DataFrame([r for rows in reads for r in rows])))


def steady(seconds, spread=0.0, seed=0, n=ROUNDS):
    """``n`` whole reads of ``seconds`` per event with a relative normal ``spread``."""
    return list(seconds * (1 + spread * np.random.default_rng(seed).standard_normal(n)))


def decide(points, reads, cfg=None, reads_list=(1, 10, 100)):
    """The cost model's tables of ``points`` with their timed ``reads``: (model, ranking, choice)."""
    cfg = cfg or config()
    summary, files = tables(*points)
    model = cost_model(candidates(summary, files, cfg), cfg, repetitions(*reads))
    ranking = cost_ranking(model, list(reads_list))
    return model, ranking, cheapest(ranking)


def test_the_read_cost_is_the_whole_read_open_and_loop():
    # "split99" loops fast (300 Hz) but opens slowly: its whole read takes 20 ms per event on average (times
    # averaged: reads of 10 and 30 ms, not the mean of their rates); "split0" loops at 100 Hz, 11 ms per event in
    # all. Priced on the loop, split99 would win by 3x; on the whole read, split0 does.
    fast_loop = point("split99", "zlib", 5, rate=300.0, split_level=99)
    slow_loop = point("split0", "zlib", 5, rate=100.0)
    model, _, choice = decide(
        [fast_loop, slow_loop],
        [timed_reads(fast_loop, [0.01, 0.03] * 5), timed_reads(slow_loop, steady(0.011, 0.01))],
        reads_list=[100],
    )
    parts = model.parts.set_index("file_id")
    assert parts.at["split99", "read_seconds_per_event"] == pytest.approx(0.02)
    # 0.02 s x 1e6 events = 2e4 core-seconds x 0.36 CHF per core-hour = 2 CHF per read.
    assert parts.at["split99", "read_cost"] == pytest.approx(2.0)
    assert choice.iloc[0]["setting"] == "ZLIB-5" and choice.iloc[0]["file_id"] == "split0"


def test_cost_arithmetic():
    # 1 MB/event, 10 ms per event, 10 ms of ROOT write time per event; 1e6 events:
    # disk: 1 TB x 100 CHF x 2 years x 2 copies = 400; write: 1e4 core-s = 2.78 core-h x 0.36 = 1.0;
    # a read: 1e4 s = 1.0 CHF per core, 2.0 with 2 threads. Disk and write are exact: the interval is the reads'.
    one = point("f", "zlib", 5, size=1_000_000_000, write_s=10.0)
    two = point("f", "zlib", 5, size=1_000_000_000, write_s=10.0, threads=2)
    model, ranking, choice = decide(
        [one, two], [timed_reads(one, steady(0.01, 0.02, 1)), timed_reads(two, steady(0.01, 0.02, 2))]
    )
    parts = model.parts
    assert list(parts["storage_cost"]) == pytest.approx([400.0, 400.0])
    assert list(parts["write_cost"]) == pytest.approx([1.0, 1.0])
    assert list(parts["read_cost"]) == pytest.approx([1.0, 2.0], rel=0.02)
    assert list(parts["write_n"]) == [1, 1] and list(parts["n"]) == [ROUNDS, ROUNDS]
    at_100 = ranking[ranking["reads_per_file"] == 100].set_index("read_id")
    for read_id, row in at_100.iterrows():
        part = parts.set_index("read_id").loc[read_id]
        assert row["total_cost_ci95_low"] == pytest.approx(401.0 + 100 * part["read_cost_ci95_low"])
        assert row["total_cost_ci95_low"] < row["total_cost"] < row["total_cost_ci95_high"]
    # With no read to price the totals are exact, and the two (the same file) are equally cheap: a tie.
    _, ranking0, choice0 = decide(
        [one, two],
        [timed_reads(one, steady(0.01, 0.02, 1)), timed_reads(two, steady(0.01, 0.02, 2))],
        reads_list=[0],
    )
    assert (ranking0["total_cost_ci95_low"] == ranking0["total_cost_ci95_high"]).all()
    assert bool(choice0.iloc[0]["tie"]) and list(ranking0["p_cheapest"]) == pytest.approx([0.5, 0.5])
    assert "ci95" not in choice.columns[0] and set(choice["interval_covers"].str.contains("n = 1")) == {True}


def test_a_single_candidates_interval_is_about_students_t():
    # The widened bootstrap's interval of one candidate's read ~ the t interval of the mean of its reads.
    assert _small_sample_widening(10) == pytest.approx(t_quantile(9) / 1.959964 * math.sqrt(10 / 9))
    assert _small_sample_widening(1000) == pytest.approx(1.0, abs=0.01)
    only = point("f", "zlib", 5, size=1000)
    seconds = steady(0.01, 0.05, 3)
    model, _, _ = decide([only], [timed_reads(only, seconds)])
    expected = Interval.of(np.asarray(seconds) * 1e6 * CPU / 3600)
    part = model.parts.iloc[0]
    assert part["read_cost_ci95_low"] == pytest.approx(expected.low, rel=0.01)
    assert part["read_cost_ci95_high"] == pytest.approx(expected.high, rel=0.01)


def test_two_candidates_within_the_noise_are_a_tie():
    # The same size; reads of 10.0 and 10.1 ms per event with 5 % noise: nobody can tell them apart.
    a, b = point("a", "lzma", 9, size=1000), point("b", "lzma", 5, size=1000, unzip=True)
    _, ranking, choice = decide(
        [a, b], [timed_reads(a, steady(0.0100, 0.05, 4)), timed_reads(b, steady(0.0101, 0.05, 5))]
    )
    at_100 = choice[choice["reads_per_file"] == 100].iloc[0]
    assert bool(at_100["tie"]) and at_100["tied_settings"] == "LZMA-9; LZMA-5, parallel unzip"
    assert at_100["choice"] == "LZMA-9 or LZMA-5, parallel unzip: equal within the uncertainty"
    shares = ranking[ranking["reads_per_file"] == 100]["p_cheapest"]
    assert ((shares > 0.05) & (shares < 0.95)).all() and shares.sum() == pytest.approx(1.0)
    assert [float(p) for p in at_100["tied_p_cheapest"].split("; ")] == pytest.approx(list(shares), abs=1e-4)
    text = decision_markdown(choice, pd.DataFrame(columns=["format"]), pd.DataFrame(columns=_FRONT), config())
    assert "equal within the uncertainty: LZMA-9 (P 0." in text and "**LZMA" not in text


def test_a_clear_winner_is_named_alone():
    # 10 ms against 12 ms per event, 2 % noise: LZ4-1 is the cheapest in (nearly) every resample.
    a, b = point("a", "lz4", 1, size=1000), point("b", "zlib", 1, size=1000)
    _, _, choice = decide(
        [a, b], [timed_reads(a, steady(0.010, 0.02, 6)), timed_reads(b, steady(0.012, 0.02, 7))]
    )
    at_100 = choice[choice["reads_per_file"] == 100].iloc[0]
    assert not at_100["tie"] and at_100["choice"] == "LZ4-1" and at_100["p_cheapest"] >= 0.95
    assert at_100["tied_settings"] == "LZ4-1" and at_100["runner_up_p_best_cheaper"] >= 0.95
    assert at_100["total_cost_ci95_low"] < at_100["total_cost"] < at_100["total_cost_ci95_high"]
    assert at_100["n"] == ROUNDS and at_100["rounds"] == ROUNDS
    text = decision_markdown(choice, pd.DataFrame(columns=["format"]), pd.DataFrame(columns=_FRONT), config())
    assert "**LZ4-1** (P(cheapest) " in text and "(95 % CI " in text and f"{ROUNDS} ({ROUNDS} rounds)" in text


def test_a_drift_common_to_a_round_is_resolved_by_pairing():
    # The host's state moves every round's reads by up to ±40 %, alike for both settings; within a round, B is
    # always 2 % slower. Paired by round, A is surely the cheaper; the same reads without rounds cannot tell.
    drift = np.array([1.0, 1.3, 0.8, 1.2, 0.9, 1.4, 0.7, 1.1, 1.25, 0.85])
    a, b = point("a", "zstd", 5, size=1000), point("b", "zstd", 1, size=1000)
    seconds_a = 0.0100 * drift * np.array(steady(1.0, 0.002, 8))
    seconds_b = 0.0102 * drift * np.array(steady(1.0, 0.002, 9))
    _, _, paired = decide([a, b], [timed_reads(a, seconds_a), timed_reads(b, seconds_b)], reads_list=[100])
    assert not paired.iloc[0]["tie"] and paired.iloc[0]["setting"] == "ZSTD-5"
    assert paired.iloc[0]["p_cheapest"] >= 0.95
    _, ranking, unpaired = decide(
        [a, b],
        [timed_reads(a, seconds_a, rounds=False), timed_reads(b, seconds_b, rounds=False)],
        reads_list=[100],
    )
    assert unpaired.iloc[0]["tie"] and (ranking["rounds"] == 0).all()
    assert 0.05 < unpaired.iloc[0]["p_cheapest"] < 0.95


def test_the_decision_is_the_same_for_the_same_tables():
    a, b = point("a", "lz4", 1, size=1000), point("b", "zlib", 1, size=1000)
    reads = [timed_reads(a, steady(0.0100, 0.05, 4)), timed_reads(b, steady(0.0101, 0.05, 5))]
    first, second = decide([a, b], reads)[1], decide([a, b], reads)[1]
    pd.testing.assert_frame_equal(first, second)
    assert len(decide([a, b], reads)[0].read_draws) == BOOTSTRAP_REPLICATES


def test_where_the_choice_changes_and_where_it_is_sure():
    # small: disk 10 + write 0, 1 per read; big: disk 20, 0.5 per read: equal (on the means) at 20 reads.
    small = point("small", "lzma", 5, size=int(10 / (100 * 2 * 2) * 1e12 / 1e6 * EVENTS))
    big = point("big", "lz4", 1, size=int(20 / (100 * 2 * 2) * 1e12 / 1e6 * EVENTS))
    model, _, choice = decide(
        [small, big], [timed_reads(small, steady(0.01, 0.01, 10)), timed_reads(big, steady(0.005, 0.01, 11))]
    )
    assert list(choice["setting"]) == ["LZMA-5", "LZMA-5", "LZ4-1"]
    assert list(choice["total_cost"]) == pytest.approx([11.0, 20.0, 70.0], rel=0.01)
    assert choice.iloc[0]["runner_up"] == "LZ4-1"
    assert choice.iloc[0]["runner_up_extra"] == pytest.approx(20.5 / 11 - 1, rel=0.01)
    assert not choice["tie"].any()
    envelope = crossovers(model.parts, read_draws=model.read_draws)
    assert list(envelope["setting"]) == ["LZMA-5", "LZ4-1"]
    # Sure away from the change, not at it: the two lines meet there.
    first, last = envelope.iloc[0], envelope.iloc[1]
    assert first["to_reads"] == pytest.approx(20.0, rel=0.02) and math.isinf(last["to_reads"])
    assert first["surely_cheapest_from"] == 1.0 and 10 < first["surely_cheapest_to"] < 20
    assert 20 < last["surely_cheapest_from"] < 40 and math.isinf(last["surely_cheapest_to"])
    # Without replicates (the figure, from cost_model.csv) the envelope is the same, on the means only.
    assert list(crossovers(cost_table(model, config()))["setting"]) == ["LZMA-5", "LZ4-1"]
    text = decision_markdown(choice, envelope, pd.DataFrame(columns=_FRONT), config())
    assert "**LZMA-5**" in text and "on the means" in text
    assert "1-20 reads: LZMA-5 (surely the cheapest from 1 to 1" in text and "to ∞)" in text


def test_cost_leaves_out_lossy_other_profiles_invalid_and_untimed_points():
    points = [
        point("full", "zlib", 5),
        point("lossy", "zlib", 5, size=500_000, float_precision="mantissa10"),
        point("native", "lz4", 1, storage_profile="native"),
        point("invalid", "lz4", 1, size=100, valid=False),
        point("all", "lz4", 1, size=100, branches="all"),
        point("once", "lz4", 1, size=100),  # one timed read: no interval, no candidate
    ]
    reads = [timed_reads(p, steady(0.01, 0.01)) for p in points[:-1]] + [timed_reads(points[-1], [0.01])]
    summary, files = tables(*points)
    rows, reps = candidates(summary, files, config()), repetitions(*reads)

    def chosen(cfg):
        return sorted(cost_model(rows, cfg, reps).parts["file_id"])

    assert chosen(config()) == ["full"]
    assert chosen(config(lossy=True)) == ["full", "lossy"]
    assert chosen(config(storage_profile="native")) == ["native"]


_FRONT = [
    "format",
    "container",
    "storage_profile",
    "branches",
    "on_front",
    "valid",
    "setting",
    "bytes_per_event",
]


def test_surely_beats_needs_exact_objectives_and_a_rate_not_lower():
    q = {"bytes_per_event": 1.0, "write_core_us_per_event": 5.0}

    def ratio(low, high):
        return Ratio(math.sqrt(low * high), low, high, 10, True)

    equal, faster, slower, wide = ratio(0.98, 1.02), ratio(1.01, 1.03), ratio(0.97, 0.99), ratio(0.9, 1.1)
    assert surely_beats(q, {**q, "bytes_per_event": 2.0}, equal)  # smaller, the rate equal within 5 %
    assert not surely_beats(q, q, equal)  # equal everywhere: neither beats the other
    assert surely_beats(q, q, faster)  # the same file, surely faster
    assert not surely_beats(q, {**q, "bytes_per_event": 2.0}, slower)  # the other is surely faster
    assert not surely_beats(q, {**q, "bytes_per_event": 2.0}, wide)  # the other may be 10 % faster
    assert not surely_beats(q, {**q, "bytes_per_event": 0.5}, faster)  # the other is smaller
    no_interval = Ratio(1.0, math.nan, math.nan, 1, False)
    assert not surely_beats(q, {**q, "bytes_per_event": 2.0}, no_interval)
    # An unknown write cost (a user's file as it is) compares on size and rate only.
    assert surely_beats(q, {**q, "bytes_per_event": 2.0, "write_core_us_per_event": math.nan}, equal)


def test_a_point_leaves_the_front_only_for_a_point_on_it():
    # 2 beats 1, 1 beats 0, 2 does not beat 0: 1 is off the front, so 0 stays on it.
    r = Ratio(1.0, 0.99, 1.01, 10, True)
    assert _front([{1: r}, {2: r}, {}]) == [True, False, True]
    assert _front([{1: r}, {0: r}]) == [True, True]  # a cycle (cannot happen): both stay


def test_pareto_keeps_the_ambiguous_and_removes_the_surely_beaten():
    loop = {  # the timed loop's rate per round, as the Pareto fronts compare it
        "small": steady(100.0, 0.005, 20),  # the smallest file
        "equal": steady(100.0, 0.01, 21),  # larger, the same rate within the noise: surely beaten
        "noisy": [98.0 * (1 + 0.15 * (-1) ** k) for k in range(ROUNDS)],  # larger, slower on the mean, but
        # with ±15 % from round to round it may be 10 % faster: ambiguous, it stays
        "faster": steady(102.0, 0.002, 23),  # larger, surely 2 % faster: stays
        "slow": steady(80.0, 0.005, 24),  # larger and surely slower: surely beaten
        "fast": steady(150.0, 0.005, 25),  # the fastest, and the cheapest to write
        "invalid": steady(500.0, 0.005, 26),  # would beat every point, but is not valid
    }
    sizes = {
        "small": 500_000,
        "equal": 700_000,
        "noisy": 800_000,
        "faster": 900_000,
        "slow": 950_000,
        "fast": 1_000_000,
        "invalid": 100_000,
    }
    points = {
        name: point(
            name,
            "zlib",
            5,
            rate=float(np.mean(r)),
            size=sizes[name],
            write_s=0.0 if name == "fast" else 1.0,
            valid=name != "invalid",
        )
        for name, r in loop.items()
    }
    reads = [timed_reads(points[name], steady(0.01), loop_rates=r) for name, r in loop.items()]
    summary, files = tables(*points.values())
    rows = pareto(candidates(summary, files, config()), repetitions(*reads))
    on = dict(zip(rows["file_id"], rows["on_front"], strict=True))
    assert on == {
        "small": True,
        "equal": False,
        "noisy": True,
        "faster": True,
        "slow": False,
        "fast": True,
        "invalid": False,
    }
    by = rows.set_index("file_id")
    assert by.at["equal", "dominated_by"] == "ZLIB-5"
    assert by.at["invalid", "dominated_by"].startswith("(not valid")
    assert by.at["equal", "dominated_by_rate_ratio_low"] >= 1 / 1.05
    # Of the points on the front that beat it, the fastest ("faster": "fast" is larger).
    assert by.at["slow", "dominated_by_rate_ratio"] == pytest.approx(102 / 80, rel=0.01)
    # Bare means would drop "noisy" (larger and slower than "small"); its interval keeps it.
    assert by.at["noisy", "event_rate_hz_ci95_low"] < 100 / 1.05 < by.at["noisy", "event_rate_hz_ci95_high"]
    small = by.loc["small"]
    assert small["event_rate_hz_ci95_low"] < small["event_rate_hz"] < small["event_rate_hz_ci95_high"]


def test_groups_are_separate_fronts():
    # The same file read on two storage profiles: each profile has its own front.
    a = point("a", "lz4", 1, rate=200, size=1_000_000, write_s=2.0)
    b = point("b", "lzma", 5, rate=50, size=500_000, write_s=1.0)
    summary, files = tables(a, b)
    native = summary.assign(storage_profile="native", event_rate_hz_mean=[100, 400])  # b faster on native
    rows = pareto(candidates(pd.concat([summary, native]), files, config()))  # unpaired, from the summary
    hdd = rows[rows["storage_profile"] == "hdd"]
    nat = rows[rows["storage_profile"] == "native"]
    assert hdd["on_front"].all()
    assert list(nat.sort_values("file_id")["on_front"]) == [False, True]


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
    assert (
        setting_label(
            {**row, "container": "rntuple", "split_level": -1, "algorithm": "zstd"},
            FILE_DEFAULTS,
            READ_DEFAULTS,
        )
        == "RNTuple ZSTD-5"
    )
    assert (
        setting_label(
            {**row, "branch_compression": "largest4:lz4-1", "float_precision": "mantissa10"},
            FILE_DEFAULTS,
            READ_DEFAULTS,
        )
        == "ZLIB-5, hot largest4:lz4-1, floats mantissa10"
    )


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
    from rootparams.decide.decision import pareto_table
    from rootparams.present.figures import draw_cost, draw_pareto

    invalid = point("f", "zlib", 5, valid=False)
    summary, files = tables(invalid)
    cfg = config()
    reps = repetitions(timed_reads(invalid, steady(0.01, 0.01)))
    rows = pareto(candidates(summary, files, cfg), reps)
    model = cost_model(rows, cfg, reps)
    ranking = cost_ranking(model, [1, 10])
    written = {}
    for name, table in {
        "choice": cheapest(ranking),
        "ranking": ranking,
        "costs": cost_table(model, cfg),
        "envelope": crossovers(model.parts, read_draws=model.read_draws),
        "front": pareto_table(rows),
    }.items():
        table.to_csv(tmp_path / f"{name}.csv", index=False)
        written[name] = pd.read_csv(tmp_path / f"{name}.csv")
    assert written["choice"].empty
    assert {"setting", "tie", "total_cost_ci95_low"} <= set(written["choice"].columns)
    assert written["ranking"].empty and "p_cheapest" in written["ranking"].columns
    text = decision_markdown(written["choice"], written["envelope"], written["front"], cfg)
    assert "no choice" in text
    draw_cost(written["costs"], written["choice"], cfg["cost"] | {"storage_profile": "hdd"})
    draw_pareto(written["front"], "xaod")


def test_the_figures_draw_intervals(tmp_path):
    from rootparams.decide.decision import pareto_table
    from rootparams.present.figures import draw_cost, draw_pareto

    a, b = point("a", "lz4", 1, size=2_000_000), point("b", "lzma", 5, size=1_000_000)
    summary, files = tables(a, b)
    cfg = config()
    reps = repetitions(timed_reads(a, steady(0.005, 0.02, 1)), timed_reads(b, steady(0.01, 0.02, 2)))
    rows = pareto(candidates(summary, files, cfg), reps)
    model = cost_model(rows, cfg, reps)
    figure = draw_cost(
        cost_table(model, cfg),
        cheapest(cost_ranking(model, [1, 10, 100])),
        cfg["cost"] | {"storage_profile": "hdd"},
    )
    assert any("95 % interval" in t.get_text() for t in figure.texts)
    figure = draw_pareto(pareto_table(rows), "xaod")
    assert any("95 % interval of the mean rate" in t.get_text() for t in figure.texts)


def test_a_long_tie_names_the_first_by_mean_and_counts_the_rest():
    names = [f"ZSTD-{level}" for level in range(1, 10)]
    choice = pd.DataFrame(
        [
            {
                "format": "xaod",
                "reads_per_file": 1,
                "tie": True,
                "setting": names[0],
                "tied_settings": "; ".join(names),
                "tied_p_cheapest": "; ".join(["0.1111"] * 9),
                "total_cost": 1.0,
                "total_cost_ci95_low": 0.99,
                "total_cost_ci95_high": 1.01,
                "storage_cost": 0.9,
                "write_cost": 0.0,
                "read_cost_total": 0.1,
                "bytes_per_event": 1e3,
                "read_seconds_per_event": 0.01,
                "n": 10,
                "rounds": 10,
                "runner_up": names[1],
                "runner_up_extra": 0.001,
            }
        ]
    )
    text = decision_markdown(choice, pd.DataFrame(columns=["format"]), pd.DataFrame(columns=_FRONT), config())
    assert "ZSTD-6 (P 0.11) or 3 more by mean" in text and "ZSTD-7" not in text.split("or 3 more")[0]
    assert "**" not in text.split("| primary xAOD |")[1]


def test_a_difference_smaller_than_the_writes_noise_is_a_tie():
    # Equal reads; "small" is 0.2 % smaller on disk (400 against 400.8 CHF) and 10 % dearer to write (2.2 against
    # 2.0 CHF), so it is the lowest mean by 0.6 CHF. Taken as exact, the writes would make that a sure choice; at
    # the host's 10 % noise of a CPU-time measurement (the loops' CPU time of this run) the writes' own noise is
    # ~0.2 CHF each, not enough to hide 0.6 CHF; at 30 % (~0.7 CHF each) it is a tie.
    small = point("small", "lzma", 9, size=1_000_000_000, write_s=22.0)
    large = point("large", "lzma", 5, size=1_002_000_000, write_s=20.0)
    reads = [timed_reads(small, steady(0.01, 0.01, 1)), timed_reads(large, steady(0.01, 0.01, 2))]
    for row, cpu in zip(reads[0] + reads[1], steady(1.0, 0.3, 3, n=2 * ROUNDS), strict=True):
        row["loop_cpu_seconds"] = cpu
    summary, files = tables(small, large)
    rows = candidates(summary, files, config())
    for noise, tie in ((0.0, False), (0.1, False), (0.3, True)):
        model = cost_model(rows, config(), repetitions(*reads), noise=noise)
        choice = cheapest(cost_ranking(model, [1]))
        assert choice.iloc[0]["setting"] == "LZMA-9" and bool(choice.iloc[0]["tie"]) is tie, (noise, choice)
        assert choice.iloc[0]["write_noise"] == noise
    # By default the noise is the run's own: the median σ/mean of each point's loop CPU time (here ~30 %).
    model = cost_model(rows, config(), repetitions(*reads))
    assert 0.15 < model.parts["write_noise"].iloc[0] < 0.45
    low, high = model.parts["write_cost_ci95_low"].iloc[0], model.parts["write_cost_ci95_high"].iloc[0]
    assert low < model.parts["write_cost"].iloc[0] < high


def same_file(file_id, read_id, **settings):
    """A point reading file ``file_id`` with other read settings (``read_id``): another setting of one file."""
    summary, files = point(file_id, "lzma", 9, size=1_000_000_000, write_s=30.0, **settings)
    return {**summary, "read_id": read_id}, files


def test_settings_of_one_file_share_its_write_draw():
    # Two read settings of one file: one write, so one write cost in every resample. Drawn per candidate, the
    # write's noise (here 30 % of ~3 CHF) would make the same write cost differ between them.
    a, b = same_file("f", "r_f_a"), same_file("f", "r_f_b", cache_size=0)
    seconds = steady(0.01, 0.02, 1)
    reads = [timed_reads(a, seconds), timed_reads(b, seconds)]
    summary, files = tables(a, b)
    model = cost_model(candidates(summary, files, config()), config(), repetitions(*reads), noise=0.3)
    assert model.parts["write_cost"].iloc[0] > 2.5
    np.testing.assert_array_equal(model.write_draws[:, 0], model.write_draws[:, 1])
    assert model.write_draws[:, 0].std() > 0.5  # the write does vary from resample to resample
    # Identical reads: the two are the same cost in every resample, whatever the write's noise.
    np.testing.assert_array_equal(
        model.write_draws[:, 0] + model.read_draws[:, 0], model.write_draws[:, 1] + model.read_draws[:, 1]
    )


def test_the_write_does_not_blur_a_read_difference_within_one_file():
    # "b" reads the same file 3 % faster in every round (the host's noise common to both): at 10 reads the write
    # (3.0 CHF, 30 % noise) is common to both and b is surely the cheaper. Independent write draws would make it a
    # tie that is not real.
    a, b = same_file("f", "r_f_a"), same_file("f", "r_f_b", cache_size=0)
    seconds = np.array(steady(0.01, 0.05, 2))
    reads = [timed_reads(a, seconds), timed_reads(b, 0.97 * seconds)]
    summary, files = tables(a, b)
    model = cost_model(candidates(summary, files, config()), config(), repetitions(*reads), noise=0.3)
    choice = cheapest(cost_ranking(model, [10]))
    assert not choice.iloc[0]["tie"] and choice.iloc[0]["read_id"] == "r_f_b", choice.iloc[0]["choice"]


def test_a_tie_always_holds_the_cheapest_in_95_percent():
    # A and B are equal within the noise; ten others are each beaten by A in 99.3 % of the replicates but,
    # together, are the cheapest in 7 %: a tie of A and B alone would hold the cheapest in 93 % only.
    replicates = 1000
    draws = np.full((replicates, 12), 2.0)
    draws[:, 0] = 1.0
    draws[:450, 1], draws[450:, 1] = 0.9, 1.1
    for k in range(10):
        draws[930 + 7 * k : 937 + 7 * k, 2 + k] = 0.5
    read = draws.mean(axis=0)
    verdict = judge(np.zeros(12), read, draws, 1.0)
    assert verdict.best == 0 and verdict.tied[1] and not verdict.sure
    assert _holds_cheapest(draws, verdict.tied) >= 0.95
    assert int(verdict.tied.sum()) == 5  # A, B and the three of the ten needed (0.7 % each)
    # Where the best is beaten in none and cheapest in 95 % alone, it is named alone.
    alone = draws[:, [0, 2, 3]]
    assert judge(np.zeros(3), alone.mean(axis=0), alone, 1.0).sure


def test_a_candidates_interval_counts_its_own_rounds_not_its_groups():
    # An adaptive plan reads "a" in rounds 0-9 and "b" in round 0 and two later rounds: one resampling group of 12
    # rounds. b's interval must be about Student's t of its own 3 reads, not widened as if it had 12.
    a, b = point("a", "zlib", 5, size=1000), point("b", "lz4", 5, size=1000)
    reads_a = timed_reads(a, steady(0.01, 0.02, 3))
    seconds_b = [0.010, 0.011, 0.009]
    reads_b = timed_reads(b, seconds_b)
    for row, k in zip(reads_b, (0, 10, 11), strict=True):
        row["round_key"] = f"xaod@1/r{k}"
    summary, files = tables(a, b)
    model = cost_model(candidates(summary, files, config()), config(), repetitions(reads_a, reads_b))
    part = model.parts.set_index("file_id").loc["b"]
    assert part["n"] == 3 and part["rounds"] == 3
    expected = Interval.of(np.asarray(seconds_b) * 1e6 * CPU / 3600)
    width = part["read_cost_ci95_high"] - part["read_cost_ci95_low"]
    assert width >= 0.75 * (expected.high - expected.low), (width, expected)


def test_the_write_noise_is_measured_where_files_were_written_again():
    # Two files written three times each; their CPU times per event scatter by ~5 % around their own means.
    writes = pd.DataFrame(
        {
            "format": ["xaod"] * 6,
            "file_id": ["x"] * 3 + ["y"] * 3,
            "events": [1000] * 6,
            "root_write_cpu_seconds": [10.0, 10.5, 9.5, 20.0, 21.0, 19.0],
        }
    )
    noise = relative_spread(writes)
    logs = np.log([10.0, 10.5, 9.5])
    assert noise.source == "measured" and noise.writes == 6 and noise.files == 2 and noise.df == 4
    assert noise.sigma == pytest.approx(logs.std(ddof=1))  # the same relative spread in both files
    assert noise.low < noise.sigma < noise.high
    # The decision takes it, and says so; without it the reads' CPU noise is borrowed, and said too.
    a, b = point("a", "lzma", 9, size=1000, write_s=20.0), point("b", "lzma", 5, size=1000, write_s=18.0)
    reads = [timed_reads(a, steady(0.01, 0.01, 1)), timed_reads(b, steady(0.01, 0.01, 2))]
    for row, cpu in zip(reads[0] + reads[1], steady(1.0, 0.2, 3, n=2 * ROUNDS), strict=True):
        row["loop_cpu_seconds"] = cpu
    summary, files = tables(a, b)
    rows = candidates(summary, files, config())
    measured = cost_model(rows, config(), repetitions(*reads), writes=writes)
    assert measured.parts["write_noise"].iloc[0] == pytest.approx(noise.sigma)
    assert set(measured.parts["write_noise_source"]) == {"measured"}
    borrowed = cost_model(rows, config(), repetitions(*reads))
    assert set(borrowed.parts["write_noise_source"]) == {"borrowed"}
    assert 0.1 < borrowed.parts["write_noise"].iloc[0] < 0.3
    choice = cheapest(cost_ranking(measured, [1]))
    text = decision_markdown(choice, pd.DataFrame(columns=["format"]), pd.DataFrame(columns=_FRONT), config())
    assert "measured on 6 writes of the study's own files" in text
    text = decision_markdown(
        cheapest(cost_ranking(borrowed, [1])),
        pd.DataFrame(columns=["format"]),
        pd.DataFrame(columns=_FRONT),
        config(),
    )
    assert "borrowed from the reads" in text


def test_the_files_written_again_are_the_studys_own_defaults_first():
    from rootparams.study.config import load_study_config
    from rootparams.study.grid import expand_points

    study = load_study_config(
        {
            "repetitions": 2,
            "formats": {"xaod": {"written": 20, "read": 20}, "topq1": {"written": 20, "read": 20}},
            "scans": {"c": {"algorithm": ["lz4", "zstd"], "level": [1]}},
        }
    )
    chosen = files_to_write(study, expand_points(study))
    assert len(chosen) == 3 and [f.format for f in chosen[:2]] == ["xaod", "topq1"]
    assert all(f.origin == "recipe" for f in chosen)


def test_a_longer_read_of_a_recipe_is_written_again_after_the_other_formats():
    # xaod_long's 1000-event file would replace a derivation's among the three written again, at 4x the cost.
    from rootparams.study.config import load_study_config
    from rootparams.study.grid import expand_points

    study = load_study_config(
        {
            "repetitions": 2,
            "formats": {
                "xaod": {"written": 20, "read": 20},
                "xaod_long": {"written": 40, "read": 40, "scans": ["cache"]},
                "topq1": {"written": 20, "read": 20},
                "susy5": {"written": 20, "read": 20},
            },
            "scans": {"cache": {"formats": ["xaod_long"], "cache_size": [0, -1]}},
        }
    )
    chosen = files_to_write(study, expand_points(study))
    assert [f.format for f in chosen] == ["xaod", "topq1", "susy5"]


def test_a_longer_read_of_a_recipe_has_no_decision_of_its_own():
    # xaod_long: the xAOD's cache points past the TTreeCache's learning phase, one file at a few cache sizes.
    # It is no candidate of the cost model and has no Pareto front: the xAOD's decision is xaod's.
    summary, files = tables(point("zlib-5", "zlib", 5), point("lz4-5", "lz4", 5))
    longer = summary.assign(format="xaod_long", cache_size=0), files.assign(format="xaod_long")
    cfg = config()
    cfg["formats"]["xaod_long"] = {"scans": ["cache"]}
    cfg["file_defaults"]["xaod_long"] = FILE_DEFAULTS
    rows = candidates(
        pd.concat([summary, longer[0]], ignore_index=True),
        pd.concat([files, longer[1]], ignore_index=True),
        cfg,
    )
    assert set(rows["format"]) == {"xaod"} and len(rows) == 2
    assert set(pareto(rows)["format"]) == {"xaod"}
    assert eligible_setting(cfg, "xaod", "hdd", "particle", "full")
    assert not eligible_setting(cfg, "xaod_long", "hdd", "particle", "full")
