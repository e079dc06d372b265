"""Recommendation rules on hand-made summaries (and repetitions by round) with known answers.

Each statistic-based verdict is shown to hold ("yes"), to fail ("no") and to be undecided ("cannot tell") on data
built for it: rates a few per cent apart at a large spread cannot be told apart, rates well apart at a small
spread can, and a host's slow spell shared by two points' rounds cancels when they are paired."""

import math

import pandas as pd
import pytest

from rootparams.present import recommend
from rootparams.present.recommend import CANNOT_TELL, NO, PARTLY, YES
from rootparams.stats.compare import Repetitions
from rootparams.stats.intervals import Ratio
from rootparams.study import labels
from rootparams.study.config import load_study_config

FILE_KEYS = ("container",)


def row(
    fmt="xaod",
    alg="zlib",
    level=5,
    af=100,
    split=0,
    cache=-1,
    learn="default",
    threads=1,
    rate=100.0,
    std=1.0,
    n=10,
    size=1e8,
    rss=5e8,
    events=100,
    clusters=1,
    scans="compression",
    **extra,
):
    """A summary row: the rate's mean and spread (1σ of the repetitions) over n repetitions; ``extra`` columns
    (reading style, selection, storage profile, container ...) also name the point, so that every row is its own
    point."""
    file_extra = "".join(f"_{extra[k]}" for k in FILE_KEYS if k in extra)
    read_extra = "".join(f"_{k}{v}" for k, v in sorted(extra.items()) if k not in FILE_KEYS)
    return {
        "format": fmt,
        "file_id": f"{alg}-{level}_af{af}_split{split}_basket32000{file_extra}",
        "read_id": f"cache{cache}_learn{learn}_mt{threads}{read_extra}",
        "algorithm": alg,
        "level": level,
        "autoflush": af,
        "split_level": split,
        "cache_size": cache,
        "learn_entries": learn,
        "threads": threads,
        "storage_profile": "hdd",
        "n": n,
        "n_flagged": 0,
        "event_rate_hz_mean": rate,
        "event_rate_hz_std": std,
        "loop_read_calls_mean": 10.0,
        "rss_increase_bytes_mean": rss,
        "rss_increase_bytes_std": 2e6,
        "window_valid": True,
        "size_bytes": size,
        "events": events,
        "clusters": clusters,
        "scans": scans,
        **extra,
    }


def tables(rows):
    frame = pd.DataFrame(rows)
    file_columns = ["size_bytes", "events", "clusters"]
    summary = frame.drop(columns=[*file_columns, "scans"])
    points = frame[["format", "file_id", "read_id", "scans"]]
    files = frame[["format", "file_id", *file_columns]].drop_duplicates("file_id")
    return summary, points, files


def measured(point, values, metric="event_rate_hz"):
    """``point`` with the summary of ``values``: mean, spread (ddof 1) and n."""
    values = pd.Series(values, dtype=float)
    return {**point, f"{metric}_mean": values.mean(), f"{metric}_std": values.std(), "n": len(values)}


def by_round(*measured_points, metric="event_rate_hz"):
    """repetitions.csv of points measured in the same interleaved rounds: (point, values), value k in round k."""
    return pd.DataFrame(
        [
            {
                "format": p["format"],
                "file_id": p["file_id"],
                "read_id": p["read_id"],
                "round_key": f"block0/job0/{k}",
                "flagged": False,
                "rep": k,
                metric: v,
            }
            for p, values in measured_points
            for k, v in enumerate(values)
        ]
    )


UNPAIRED = Repetitions()


def ratio(a, b):
    return UNPAIRED.ratio(a, b)


# ---- The claims' rules on two points -----------------------------------------------------------------------------


def test_equal_rates_holds_fails_or_cannot_tell_on_the_intervals():
    # 1 % apart at a spread of 1 %, n = 10: the interval of the ratio lies within ±5 %.
    assert recommend._equal_rates(ratio(row(rate=101), row(rate=100))) == YES
    # 15 % apart at 2 %: different.
    assert recommend._equal_rates(ratio(row(rate=115, std=2.3), row(rate=100, std=2))) == NO
    # 3 % apart at 8 %: the noise does not decide, whichever way.
    noisy = ratio(row(rate=103, std=8.24), row(rate=100, std=8))
    assert recommend._equal_rates(noisy) == CANNOT_TELL
    assert noisy.low < 1 < noisy.high and noisy.resolvable_margin > recommend.EQUAL_MARGIN
    # One repetition: no interval, nothing decided.
    assert recommend._equal_rates(ratio(row(rate=100, std=math.nan, n=1), row(rate=100))) == CANNOT_TELL


def test_faster_needs_the_interval_to_exclude_one():
    assert recommend.faster(ratio(row(rate=115, std=2.3), row(rate=100, std=2))) == YES
    assert recommend.faster(ratio(row(rate=100, std=2), row(rate=115, std=2.3))) == NO
    assert recommend.faster(ratio(row(rate=100.5), row(rate=100))) == NO  # equal within ±5 %: no gain
    assert recommend.faster(ratio(row(rate=103, std=8.24), row(rate=100, std=8))) == CANNOT_TELL
    # at least as fast: equal or faster holds, slower beyond the margin fails.
    assert recommend._not_slower(ratio(row(rate=99), row(rate=100))) == YES
    assert recommend._not_slower(ratio(row(rate=80), row(rate=100))) == NO
    assert recommend._not_slower(ratio(row(rate=97, std=8), row(rate=100, std=8))) == CANNOT_TELL


def test_a_gain_of_at_least_a_factor_is_judged_on_the_whole_interval():
    def r(low, high):
        return Ratio(math.sqrt(low * high), low, high, 10, True)

    assert recommend._at_least(r(2.1, 2.6), 2) == YES and recommend.below(r(2.1, 2.6), 2) == NO
    assert recommend._at_least(r(1.2, 1.9), 2) == NO and recommend.below(r(1.2, 1.9), 2) == YES
    assert recommend._at_least(r(1.8, 2.3), 2) == CANNOT_TELL == recommend.below(r(1.8, 2.3), 2)
    assert recommend._at_least(Ratio(2.5, math.nan, math.nan, 1, False), 2) == CANNOT_TELL


def test_a_topic_that_cannot_tell_never_counts_as_agreeing():
    assert recommend.overall([YES, YES]) == YES
    assert recommend.overall([YES, CANNOT_TELL]) == CANNOT_TELL
    assert recommend.overall([CANNOT_TELL, CANNOT_TELL]) == CANNOT_TELL
    assert recommend.overall([YES, NO, CANNOT_TELL]) == PARTLY
    assert recommend.overall([NO, CANNOT_TELL]) == NO  # some fail, none holds
    assert recommend.overall([YES, PARTLY]) == PARTLY
    assert recommend.overall([]) == "n/a"


def test_pairing_by_round_resolves_what_a_shared_slow_spell_hides_unpaired():
    # Both points measured in the same 10 rounds; the host drifts by ±15 % from round to round, alike for both
    # (a common mode), and the branch-wise read is 10 % faster in every round up to ±0.4 %.
    drift = [1 + 0.15 * math.sin(1.3 * k) for k in range(10)]
    wiggle = [0.004 * (-1) ** k for k in range(10)]
    fast = [110 * d * (1 + w) for d, w in zip(drift, wiggle, strict=True)]
    slow = [100 * d * (1 - w) for d, w in zip(drift, wiggle, strict=True)]
    branchwise = measured(row(fmt="susy5", split=99, scans="access", branches="sparse"), fast)
    classwise = measured(row(fmt="susy5", split=0, scans="access", branches="sparse"), slow)
    assert branchwise["event_rate_hz_std"] / branchwise["event_rate_hz_mean"] > 0.08
    rows = pd.DataFrame([branchwise, classwise])
    unpaired = recommend.access(rows, "susy5")
    assert unpaired.agrees == CANNOT_TELL and "unpaired, n ≥ 10" in unpaired.measured
    paired = recommend.access(rows, "susy5", Repetitions(by_round((branchwise, fast), (classwise, slow))))
    assert paired.agrees == YES and "1.10x (95 % CI 1.09-1.11, 10 paired rounds)" in paired.measured
    # Rounds the points do not share are not pairs: unpaired again.
    apart = by_round((branchwise, fast), (classwise, slow))
    apart.loc[apart["file_id"] == classwise["file_id"], "round_key"] += "/other block"
    assert recommend.access(rows, "susy5", Repetitions(apart)).agrees == CANNOT_TELL


# ---- The paper's topics ------------------------------------------------------------------------------------------


def test_compression_fastest_smallest_and_agreement():
    rows = pd.DataFrame(
        [
            row(alg="lz4", level=1, rate=120, size=1.3e8),
            row(alg="zlib", level=5, rate=100, size=1e8),
            row(alg="lzma", level=9, rate=40, size=0.8e8),
            row(alg="none", level=0, rate=130, size=3e8),
        ]
    )
    rows["event_rate_hz_mean"] = rows["event_rate_hz_mean"].astype(float)
    found = recommend.compression(rows, "xaod")
    assert "fastest by mean: none-0 (130.00 Hz (95 % CI 129.28-130.72, n = 10))" in found.measured
    assert "fastest compressed: lz4-1" in found.measured and "smallest: lzma-9 (80.0 MB)" in found.measured
    assert (
        "LZ4 fastest (none faster by more than ±5 %): yes (lz4-1 against zlib-5: 1.20x (95 % CI"
        in found.measured
    )
    assert "LZMA smallest: yes" in found.measured and found.agrees == YES
    rows.loc[rows["algorithm"] == "zlib", "event_rate_hz_mean"] = 200  # ZLIB now clearly the fastest
    found = recommend.compression(rows, "xaod")
    assert found.agrees == PARTLY and "LZ4 fastest (none faster by more than ±5 %): no" in found.measured
    # ZLIB 2 % ahead of LZ4 at a spread of 8 %: LZMA is still the smallest, but whether ZLIB reads faster than LZ4
    # by more than the margin the run cannot tell, so the topic cannot tell either.
    rows.loc[rows["algorithm"] == "zlib", "event_rate_hz_mean"] = 122.5
    rows["event_rate_hz_std"] = 0.08 * rows["event_rate_hz_mean"]
    found = recommend.compression(rows, "xaod")
    assert (
        found.agrees == CANNOT_TELL
        and "LZ4 fastest (none faster by more than ±5 %): cannot tell" in found.measured
    )
    assert "not resolved from it: lz4-1" not in found.measured  # uncompressed, 6 % ahead of ZLIB: resolved
    rows.loc[rows["algorithm"] == "none", "event_rate_hz_mean"] = 125.0
    found = recommend.compression(rows, "xaod")
    assert (
        "fastest by mean: none-0 (125.0 Hz (95 % CI 117.6-132.4, n = 10)); not resolved from it: lz4-1, zlib-5;"
        in (found.measured)
    )


def test_truth3_compression_verdict_checks_each_claim_of_the_paper():
    # ZLIB sized like LZMA and reading like LZ4: the paper's "interesting choice for very small formats".
    rows = pd.DataFrame(
        [
            row(alg="lz4", level=1, rate=5000, std=20, size=2.0e7),
            row(alg="zlib", level=5, rate=4950, std=20, size=1.3e7),
            row(alg="lzma", level=5, rate=2000, std=20, size=1.2e7),
        ]
    )
    found = recommend.compression(rows, "truth3")
    assert found.agrees == YES and "ZLIB sized like LZMA: yes" in found.measured
    assert "ZLIB reads like LZ4 (within ±5 %): yes (zlib-5 against lz4-1: 0.99x (95 % CI" in found.measured
    assert "resolvable margin ±" in found.measured
    rows.loc[rows["algorithm"] == "zlib", "event_rate_hz_mean"] = 2100  # now ZLIB reads like LZMA
    found = recommend.compression(rows, "truth3")
    assert found.agrees == PARTLY and "ZLIB reads like LZ4 (within ±5 %): no" in found.measured
    # 3 % below LZ4 at a spread of 8 %: equal or not, the run cannot tell.
    rows.loc[rows["algorithm"] == "zlib", "event_rate_hz_mean"] = 4850
    rows["event_rate_hz_std"] = 0.08 * rows["event_rate_hz_mean"]
    found = recommend.compression(rows, "truth3")
    assert "ZLIB reads like LZ4 (within ±5 %): cannot tell" in found.measured
    assert found.agrees == CANNOT_TELL


def test_autoflush_plateau_is_the_smallest_cluster_as_fast_as_the_best():
    rows = pd.DataFrame(
        [
            row(af=10, rate=60, rss=3e8, clusters=10),
            row(af=50, rate=98, rss=4e8, clusters=2),
            row(af=100, rate=100, rss=5e8, clusters=1),
            row(af=0, rate=99, rss=5e8, clusters=1),
        ]
    )
    found = recommend.autoflush(rows, "xaod", "zlib", 100)
    assert (
        "plateau (at least as fast as the best within ±5 %) from 50 ev (~50 events/cluster" in found.measured
    )
    assert "reader memory increase 400.0 MB (95 % CI 398.6-401.4, n = 10), against 300.0 MB" in found.measured
    assert "at 10 ev" in found.measured
    assert found.agrees == YES and "the default 100 ev: on the plateau" in found.measured
    # The default 4 % below the best at a spread of 8 %: on the plateau or below it, the run cannot tell.
    noisy = rows.assign(event_rate_hz_std=8.0)
    noisy.loc[noisy["autoflush"] == 100, "event_rate_hz_mean"] = 96
    found = recommend.autoflush(noisy, "xaod", "zlib", 100)
    assert (
        found.agrees == CANNOT_TELL
        and "the default 100 ev: cannot tell whether on the plateau" in found.measured
    )
    assert "resolvable margin" in found.measured


def test_autoflush_for_a_derivation_agrees_when_10mb_is_below_the_plateau():
    rows = pd.DataFrame(
        [
            row(fmt="topq1", af=-10_000_000, rate=80, events=500, clusters=10),
            row(fmt="topq1", af=-20_000_000, rate=100, events=500, clusters=5),
        ]
    )
    found = recommend.autoflush(rows, "topq1", "zlib", -10_000_000)
    assert found.agrees == YES and "10 MB: below the plateau" in found.measured
    on = rows.assign(event_rate_hz_mean=[99.5, 100])  # 10 MB as fast as 20 MB: the paper's advice fails here
    assert recommend.autoflush(on, "topq1", "zlib", -10_000_000).agrees == NO


def test_cache_smallest_explicit_size_on_the_plateau_and_minus_one():
    rows = pd.DataFrame(
        [
            row(cache=0, rate=50),
            row(cache=2_000_000, rate=80),
            row(cache=10_000_000, rate=98),
            row(cache=100_000_000, rate=100),
            row(cache=-1, rate=100),
        ]
    )
    found = recommend.cache(rows, "xaod")
    assert "smallest size on the plateau (at least as fast as the best within ±5 %): 10 MB" in found.measured
    assert "off: 50.00 Hz (95 % CI 49.28-50.72, n = 10)" in found.measured
    assert found.agrees == YES and "-1 as good as the best: yes (against 100 MB: 1.00x" in found.measured
    slow = rows.assign(event_rate_hz_mean=[50, 80, 98, 100, 80])
    assert recommend.cache(slow, "xaod").agrees == NO
    noisy = rows.assign(event_rate_hz_mean=[50, 80, 98, 100, 96], event_rate_hz_std=8.0)
    assert recommend.cache(noisy, "xaod").agrees == CANNOT_TELL
    # The learning phase's share of the reads with a cache, where the reader recorded it (none with the cache off).
    learnt = rows.assign(cache_learning_share_mean=[math.nan, 0.1, 0.1, 0.1, 0.1])
    assert "learning phase 10 % of each read with a cache" in recommend.cache(learnt, "xaod_long").measured
    assert "learning phase" not in found.measured


def test_a_format_whose_scan_is_measured_on_a_longer_read_says_where():
    config = load_study_config(
        {
            "formats": {
                "xaod": {"written": 10, "read": 10},
                "xaod_long": {"written": 20, "read": 20, "scans": ["cache"]},
            },
            "scans": {"cache": {"formats": ["xaod_long"], "cache_size": [0, -1]}},
        }
    )
    summary, points, files = tables(
        [
            row(scans="default"),
            row(fmt="xaod_long", cache=0, rate=50, scans="cache"),
            row(fmt="xaod_long", rate=100, scans="cache"),
        ]
    )
    found = {(f.format, f.topic): f for f in recommend.findings(summary, points, files, config, cores=2)}
    assert "not measured (no 'cache' or 'cache_learn' scan for xaod; measured as xaod_long)" in (
        found[("xaod", "cache")].measured
    )
    assert found[("xaod_long", "cache")].agrees == YES
    assert ("xaod_long", "compression") not in found  # it keeps to its own scans


def test_split_zero_smaller_and_at_least_as_fast():
    rows = pd.DataFrame([row(split=0, rate=100, size=1e8), row(split=1, rate=99, size=1.2e8)])
    found = recommend.split(rows, "topq1")
    assert found.agrees == YES and "split 0 at least as fast: yes (against split 1: 1.01x" in found.measured
    slower = pd.DataFrame([row(split=0, rate=80, size=1e8), row(split=1, rate=100, size=1.2e8)])
    assert recommend.split(slower, "topq1").agrees == PARTLY
    larger_slower = pd.DataFrame([row(split=0, rate=80, size=1.3e8), row(split=1, rate=100, size=1.2e8)])
    assert recommend.split(larger_slower, "topq1").agrees == NO
    noisy = pd.DataFrame([row(split=0, rate=97, std=8, size=1e8), row(split=1, rate=100, std=8, size=1.2e8)])
    assert recommend.split(noisy, "topq1").agrees == CANNOT_TELL  # smaller: yes; as fast: cannot tell
    assert recommend.split(rows[rows["split_level"] == 0], "topq1").agrees == "n/a"


def test_threads_gain_for_the_xaod():
    rows = pd.DataFrame(
        [
            row(alg="lzma", threads=1, rate=40),
            row(alg="lzma", threads=2, rate=70),
            row(alg="lzma", threads=4, rate=72),
        ]
    )
    found = recommend.threads(rows, "xaod", cores=2)
    assert "lzma: 4 threads (oversubscribed) give 1.80x (95 % CI" in found.measured
    assert "(gains more than ±5 %: yes)" in found.measured and found.agrees == YES
    flat = pd.DataFrame([row(alg="lzma", threads=1, rate=40), row(alg="lzma", threads=2, rate=40.4)])
    assert recommend.threads(flat, "xaod", cores=2).agrees == NO  # 1 % at most: no gain worth the name
    noisy = pd.DataFrame(
        [row(alg="lzma", threads=1, rate=40, std=3.2), row(alg="lzma", threads=2, rate=41.2, std=3.3)]
    )
    assert recommend.threads(noisy, "xaod", cores=2).agrees == CANNOT_TELL


def test_threads_verdict_for_a_derivation_expects_only_lzma_to_gain():
    gains_lzma = [
        row(fmt="susy5", alg=a, threads=t, rate=r)
        for a, t, r in (("lzma", 1, 40), ("lzma", 2, 70), ("zlib", 1, 100), ("zlib", 2, 99))
    ]
    found = recommend.threads(pd.DataFrame(gains_lzma), "susy5", cores=2)
    assert found.agrees == YES and "(no gain beyond ±5 %: yes)" in found.measured
    gains_all = [
        row(fmt="susy5", alg=a, threads=t, rate=r)
        for a, t, r in (("lzma", 1, 40), ("lzma", 2, 70), ("zlib", 1, 100), ("zlib", 2, 150))
    ]
    assert recommend.threads(pd.DataFrame(gains_all), "susy5", cores=2).agrees == PARTLY


# ---- The study: validity, window rules, the markdown -------------------------------------------------------------

SEEDS_CONFIG = {
    "formats": {"xaod": {"written": 10, "read": 10}},
    "scans": {
        "compression": {"algorithm": ["lz4", "zlib"], "level": [1, 5]},
        "access": {"branches": ["all", "sparse"], "split_level": [0, 99]},
    },
    "measurement": {"window_by_scan": {"access": {"min_window_seconds": 0.05, "min_window_io_share": 0.8}}},
}


def windowed(point, seconds):
    """``point`` with the shortest timed loop of its repetitions (what a window rule judges)."""
    return {
        **point,
        "loop_seconds_min": seconds,
        "loop_io_share_min": 0.95,
        "loop_storage_share_min": math.nan,
    }


def test_invalid_points_are_left_out_and_counted():
    config = load_study_config({"formats": {"xaod": {"written": 10, "read": 10}}})
    invalid = {**row(alg="lzma", level=9, rate=500, size=0.5e8, scans="compression"), "window_valid": False}
    summary, points, files = tables([row(scans="compression"), row(alg="lz4", level=1, rate=150), invalid])
    (compression, *_) = recommend.findings(summary, points, files, config, cores=2)
    assert "lzma" not in compression.measured.split("(")[0]
    assert "1 invalid point(s) left out" in compression.measured
    (compression, *_) = recommend.findings(*tables([invalid]), config, cores=2)
    assert compression.agrees == "n/a" and "no valid point" in compression.measured
    # Too few unflagged repetitions make a point invalid too.
    few = {**row(alg="lz4", level=1, rate=150), "n": 3, "n_required": 8}
    summary, points, files = tables([{**row(scans="compression"), "n_required": 8}, few])
    (compression, *_) = recommend.findings(summary, points, files, config, cores=2)
    assert "1 invalid point(s) left out" in compression.measured


def test_a_lenient_window_rule_reaches_only_its_own_topic():
    config = load_study_config(SEEDS_CONFIG)
    short = {"fmt": "xaod", "scans": "access", "branches": "sparse"}
    rows = [
        windowed(row(alg="lz4", level=1, rate=150, size=1.3e8), 2.0),
        windowed(row(rate=100), 2.0),
        # 0.1 s loops: valid for the access topic's own rule (0.05 s), not for the study's (1 s).
        windowed(row(split=0, rate=100, **short), 0.1),
        windowed({**row(split=99, rate=300, **short), "scans": "access;compression"}, 0.1),
    ]
    found = {f.topic: f for f in recommend.findings(*tables(rows), config, cores=2)}
    assert "1 invalid point(s) left out" in found["compression"].measured
    assert "invalid" not in found["access"].measured and found["access"].agrees == YES
    # The uniform points of the whole study (the per-branch topic's "others") keep to the study's rule.
    others = recommend._uniform_lossless(*tables(rows), config, "xaod")
    assert len(others) == 2 and set(others["algorithm"]) == {"lz4", "zlib"}


def test_findings_pair_by_round_when_given_the_repetitions():
    config = load_study_config({"formats": {"xaod": {"written": 10, "read": 10}}})
    lz4, zlib = row(alg="lz4", level=1), row(alg="zlib", level=5)
    drift = [1 + 0.15 * math.sin(1.3 * k) for k in range(10)]
    fast = [104 * d * (1 + 0.004 * (-1) ** k) for k, d in enumerate(drift)]
    slow = [100 * d for d in drift]
    lz4, zlib = measured(lz4, fast), measured(zlib, slow)
    summary, points, files = tables([lz4, zlib])
    found = recommend.findings(summary, points, files, config, cores=2)[0]
    assert "LZ4 fastest (none faster by more than ±5 %): cannot tell" in found.measured
    assert "unpaired" in found.measured
    repetitions = Repetitions(by_round((lz4, fast), (zlib, slow)))
    found = recommend.findings(summary, points, files, config, cores=2, repetitions=repetitions)[0]
    assert (
        "LZ4 fastest (none faster by more than ±5 %): yes (lz4-1 against zlib-5: 1.04x (95 % CI"
        in found.measured
    )
    assert "10 paired rounds" in found.measured and found.agrees == YES


def test_findings_say_not_measured_for_a_missing_scan_and_the_markdown_states_its_rules():
    config = load_study_config({"formats": {"xaod": {"written": 10, "read": 10}}})
    summary, points, files = tables(
        [row(scans="compression"), row(alg="lz4", level=1, rate=99, std=8, scans="compression")]
    )
    found = recommend.findings(summary, points, files, config, cores=2)
    assert [f.topic for f in found] == ["compression", "autoflush", "split", "cache", "threads"]
    assert found[0].agrees == CANNOT_TELL
    assert found[1].agrees == "n/a" and "not measured (no 'autoflush' scan for xaod)" in found[1].measured
    text = recommend.markdown(found, "hdd", "test")
    assert text.count("| n/a |") == 4 and "| cannot tell |" in text and "## primary xAOD" in text
    assert "Verdicts in this run: 0 yes, 0 partly, 0 no, 1 cannot tell, 4 n/a." in text
    for rule in (
        "95 % confidence interval of that mean (Student's t",
        "paired by measuring round",
        "within ±5 %",
        "needs the interval above 1",
        "**cannot tell**",
    ):
        assert rule in text, rule
    assert "1σ" not in text and "#1" not in text


@pytest.mark.parametrize(("value", "label"), [(100, "100 ev"), (-10_000_000, "10 MB"), (0, "0 (off)")])
def test_autoflush_labels(value, label):
    assert labels.autoflush_label(value) == label


def test_the_recommendations_do_not_need_a_plotting_library():
    import subprocess
    import sys

    code = "import sys, rootparams.present.recommend; sys.exit('matplotlib' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


# ---- Beyond the paper ----------------------------------------------------------------------------------------------


def test_rntuple_ratios_and_the_verdict_next_to_roots_claim():
    def both(alg, t_rate, r_rate, t_size, r_size, std=1.0):
        return [
            row(alg=alg, rate=rate, std=std, size=size, scans="container", container=container)
            for container, rate, size in (("ttree", t_rate, t_size), ("rntuple", r_rate, r_size))
        ]

    rows = pd.DataFrame([*both("zlib", 100, 250, 1e8, 0.7e8), *both("zstd", 100, 300, 1e8, 0.6e8)])
    found = recommend.rntuple(rows, "xaod")
    assert "zlib-5 (hdd): size 0.70x (10-50 % smaller: yes), rate 2.50x (95 % CI 2.48-2.52" in found.measured
    assert "(several times faster: yes)" in found.measured and found.agrees == YES
    slower = pd.DataFrame([*both("zlib", 100, 99, 1e8, 0.95e8)])
    assert recommend.rntuple(slower, "xaod").agrees == NO
    partly = pd.DataFrame([*both("zlib", 100, 140, 1e8, 0.85e8)])  # smaller, faster, not several times
    assert recommend.rntuple(partly, "xaod").agrees == PARTLY
    # 2.1x, but the interval reaches below 2.
    noisy = pd.DataFrame([*both("zlib", 100, 210, 1e8, 0.7e8, std=15)])
    found = recommend.rntuple(noisy, "xaod")
    assert found.agrees == CANNOT_TELL and "several times faster: cannot tell" in found.measured


def test_cluster_cache_on_at_least_as_fast_as_off():
    def point(profile, cache, rate, std=1.0):
        return row(
            cache=cache,
            rate=rate,
            std=std,
            scans="rntuple_cache",
            storage_profile=profile,
            container="rntuple",
        )

    rows = [point("hdd", 0, 50), point("hdd", -1, 100), point("native", 0, 200), point("native", -1, 198)]
    found = recommend.cluster_cache(pd.DataFrame(rows), "xaod")
    assert found.agrees == YES
    assert (
        "hdd: on 100.00 Hz (95 % CI 99.28-100.72, n = 10), off 50.00 Hz (95 % CI 49.28-50.72, n = 10); on / off 2.00x"
        in (found.measured)
    )
    rows[3] = point("native", -1, 150)
    assert recommend.cluster_cache(pd.DataFrame(rows), "xaod").agrees == PARTLY
    rows[3] = point("native", -1, 190, std=16)
    assert recommend.cluster_cache(pd.DataFrame(rows), "xaod").agrees == CANNOT_TELL


def test_remote_cache_next_to_seed_001():
    def point(profile, rtt, cache, rate):
        return row(
            cache=cache,
            rate=rate,
            scans="remote_cache",
            storage_profile=profile,
            remote_rtt_ms_mean=rtt,
            container="ttree",
            async_prefetch=False,
            loop_cpu_seconds_mean=0.5,
            loop_seconds_mean=1.0,
        )

    nan = math.nan
    local = [point("native", nan, 0, 90), point("native", nan, -1, 100)]  # a slight improvement locally
    crucial = [point("xrootd-wan", 20, 0, 5), point("xrootd-wan", 20, -1, 80)]
    found = recommend.remote_cache(pd.DataFrame(local + crucial), "susy5")
    assert (
        found.agrees == YES
        and "xrootd-wan: -1" in found.measured
        and "-1 / off 16.00x (95 % CI" in found.measured
    )
    assert "CPU efficiency 50% (ratio of the means, no interval)" in found.measured
    helps_little = [point("xrootd-wan", 20, 0, 60), point("xrootd-wan", 20, -1, 80)]  # 1.33x: not crucial
    assert recommend.remote_cache(pd.DataFrame(local + helps_little), "susy5").agrees == PARTLY
    # The server alone (no added RTT) is neither local nor a latency profile: nothing to compare remotely.
    server_only = [point("xrootd-local", 0, 0, 50), point("xrootd-local", 0, -1, 100)]
    assert recommend.remote_cache(pd.DataFrame(local + server_only), "susy5").agrees == "n/a"


def test_remote_cache_cpu_efficiency_per_repetition():
    on = measured(row(cache=-1, scans="remote_cache"), [0.5, 0.6, 0.55, 0.5], metric="loop_cpu_seconds")
    table = by_round((on, [0.5, 0.6, 0.55, 0.5]), metric="loop_cpu_seconds")
    table["loop_seconds"] = 1.0
    assert recommend._cpu_efficiency(on, Repetitions(table)).startswith("54 % (95 % CI 46-61 %, n = 4)")


# ---- The seeds' studies, on hand-made rows ---------------------------------------------------------------------------


def test_access_judges_branch_wise_against_class_wise_per_partial_selection():
    def point(selection, split, rate):
        return row(fmt="susy5", split=split, rate=rate, scans="access", branches=selection)

    rows = [
        point("all", 0, 50),
        point("all", 99, 45),
        point("sparse", 0, 60),
        point("sparse", 99, 400),
        point("analysis", 0, 55),
        point("analysis", 99, 150),
    ]
    found = recommend.access(pd.DataFrame(rows), "susy5")
    assert found.agrees == YES and "sparse, AutoFlush 100 ev: split 99" in found.measured
    assert "6.67x (95 % CI" in found.measured
    assert "(branch-wise faster by more than ±5 %: yes)" in found.measured
    assert "all, AutoFlush 100 ev: split 99" in found.measured and "(reported, not judged)" in found.measured
    assert found.paper.startswith("ATLAS CHEP 2019: branch-wise reading")
    rows[5] = point("analysis", 99, 55.5)  # the same rate within 5 %: not faster
    assert recommend.access(pd.DataFrame(rows), "susy5").agrees == PARTLY
    assert recommend.access(pd.DataFrame(rows[:2]), "susy5").agrees == "n/a"


def test_reading_style_judges_uproot_by_compression_and_reports_rdataframe():
    def point(style, alg, rate, threads=1, cpu=10.0, std=1.0):
        return row(
            fmt="nanoaod",
            alg=alg,
            rate=rate,
            std=std,
            threads=threads,
            scans="reading_style",
            reading_style=style,
            branches="analysis",
            loop_cpu_us_per_event_mean=cpu,
            loop_cpu_us_per_event_std=0.1 * cpu,
        )

    rows = [
        point("getentry", "lz4", 100),
        point("uproot", "lz4", 500, cpu=2.0),
        point("rdataframe", "lz4", 90),
        point("rdataframe", "lz4", 160, threads=2),
        point("getentry", "zlib", 80),
        point("uproot", "zlib", 100),
    ]
    found = recommend.reading_style(pd.DataFrame(rows), "nanoaod")
    assert found.agrees == YES  # 5x on LZ4, 1.25x on ZLIB ("washed out")
    assert (
        "analysis, lz4-5: uproot 500.00 Hz (95 % CI 499.28-500.72, n = 10), 5.00x (95 % CI 4.96-5.04, unpaired, "
        "n ≥ 10) GetEntry's 100.00 Hz"
    ) in found.measured
    assert "CPU per event 2.00 µs (95 % CI 1.86-2.14, n = 10) against 10.00 µs" in found.measured
    assert "(at least 2x: yes)" in found.measured and "(less than 2x: yes)" in found.measured
    assert "RDataFrame, 2 threads" in found.measured
    rows[1] = point("uproot", "lz4", 110)
    assert recommend.reading_style(pd.DataFrame(rows), "nanoaod").agrees == PARTLY
    rows[1] = point("uproot", "lz4", 210, std=40)  # about 2x, but the interval reaches below 2
    assert recommend.reading_style(pd.DataFrame(rows), "nanoaod").agrees == CANNOT_TELL


def style_point(style, alg, rate, std=1.0, scans="reading_style", **extra):
    """A point of a reading-style scan of the flat format, analysis variables."""
    return row(
        fmt="nanoaod",
        alg=alg,
        rate=rate,
        std=std,
        scans=scans,
        reading_style=style,
        branches="analysis",
        **extra,
    )


def test_bulk_io_judges_ttree_bulk_against_getentry_at_ten_and_below_two():
    rows = [
        style_point("getentry", "lz4", 100),
        style_point("bulk", "lz4", 1200),
        style_point("getentry", "none", 120),
        style_point("bulk", "none", 1500),
        style_point("getentry", "zlib", 80),
        style_point("bulk", "zlib", 120),
        style_point("getentry", "zstd", 90),
        style_point("bulk", "zstd", 400),
        style_point("uproot", "lz4", 500),
    ]
    found = recommend.bulk_io(pd.DataFrame(rows), "nanoaod")
    assert found.agrees == YES  # 12x and 12.5x; 1.5x on ZLIB
    assert "TTree lz4-5, analysis: bulk 1200" in found.measured
    assert "bulk / GetEntry 12.00x (95 % CI" in found.measured and "n ≥ 10" in found.measured
    assert "(at least 10x: yes)" in found.measured and "(washed out, below 2x: yes)" in found.measured
    assert "TTree zstd-5, analysis" in found.measured and "(reported, not judged)" in found.measured
    rows[1] = style_point("bulk", "lz4", 300)  # 3x: no order of magnitude
    assert recommend.bulk_io(pd.DataFrame(rows), "nanoaod").agrees == PARTLY
    rows[1] = style_point("bulk", "lz4", 1000, std=300)  # about 10x, the interval reaching below it
    assert recommend.bulk_io(pd.DataFrame(rows), "nanoaod").agrees == CANNOT_TELL
    # Without a bulk read of the same file and read there is nothing to judge, and the finding says so.
    alone = recommend.bulk_io(pd.DataFrame([r for r in rows if r["reading_style"] != "bulk"]), "nanoaod")
    assert alone.agrees == "n/a" and "not both measured" in alone.measured
    # Files with generated offsets are reported beside, not judged.
    generated = [
        style_point("getentry", "lz4", 100, offsets="generated"),
        style_point("bulk", "lz4", 200, offsets="generated"),
    ]
    beside = recommend.bulk_io(pd.DataFrame(generated), "nanoaod")
    assert beside.agrees == "n/a" and "offsets generated" in beside.measured


def offsets_point(alg, offsets, size, style="getentry", rate=100.0, **extra):
    """A point of the offsets scan: a file with stored or generated offsets and one read of it."""
    suffix = "_offgen" if offsets == "generated" else ""
    return row(
        fmt="nanoaod",
        alg=alg,
        rate=rate,
        size=size,
        scans="offsets",
        reading_style=style,
        branches="analysis",
        offsets=offsets,
        file_id=f"{alg}-5_af100_split0_basket32000{suffix}",
        **extra,
    )


def test_offsets_size_judges_the_stored_offsets_share_of_the_file_with_the_rates_beside():
    rows = [
        offsets_point("lz4", "stored", 10e6),
        offsets_point("lz4", "generated", 9e6, rate=95),
        offsets_point("lz4", "stored", 10e6, style="bulk", rate=1000),
        offsets_point("lz4", "generated", 9e6, style="bulk", rate=990),
        offsets_point("zlib", "stored", 8e6),
        offsets_point("zlib", "generated", 7.8e6, rate=96),
    ]
    found = recommend.offsets_size(pd.DataFrame(rows), "nanoaod")
    assert found.agrees == PARTLY  # 10 % at LZ4, 2.5 % at ZLIB
    assert "of the file (10.00 MB, 9.00 MB with generated offsets; within 5.0 %-20 %: yes)" in found.measured
    assert "stored offsets 2.5 % of the file (8.00 MB, 7.80 MB" in found.measured
    assert "within 5.0 %-20 %: no)" in found.measured
    assert (
        "rate, generated / stored: TTree" in found.measured
    )  # each read of both files, styles in name order
    assert "TTree::GetEntry (analysis) 0.95x (95 % CI 0.94-0.96" in found.measured
    assert "TTree bulk API (analysis) 0.99x" in found.measured
    only_stored = recommend.offsets_size(pd.DataFrame(rows[::2]), "nanoaod")
    assert only_stored.agrees == "n/a" and "both stored and generated" in only_stored.measured


def test_offsets_counts_compares_the_counters_compression_with_the_offsets():
    def pair(alg, counter_ratio, offsets_ratio):
        # 1 MB of counts; 4 MB of raw offsets removed by generating them.
        counts = {"counter_tot_bytes": 1e6, "counter_zip_bytes": 1e6 / counter_ratio, "counted_branches": 8}
        stored = {"counted_tot_bytes": 20e6, "counted_zip_bytes": 10e6, **counts}
        raw, packed = 4e6, 4e6 / offsets_ratio
        generated = {"counted_tot_bytes": 20e6 - raw, "counted_zip_bytes": 10e6 - packed, **counts}
        return [
            offsets_point(alg, "stored", 12e6, **stored),
            offsets_point(alg, "generated", 11e6, **generated),
        ]

    rows = [*pair("lz4", 8.0, 2.0), *pair("zlib", 10.0, 5.0), *pair("none", 1.0, 1.0)]
    found = recommend.offsets_counts(pd.DataFrame(rows), "nanoaod")
    assert found.agrees == YES  # 4x at LZ4, 2x at ZLIB
    expected = "TTree lz4-5: counters' compression ratio 8.00 (0.125 MB), offsets' 2.00 (2.000 MB of 4.000 MB"
    assert expected in found.measured
    assert "counts compress better (beyond ±10 %): yes" in found.measured
    assert "especially for LZ4: yes (against zlib)" in found.measured and "none-5" not in found.measured
    rows = [*pair("lz4", 8.0, 2.0), *pair("zlib", 12.0, 2.0)]  # the larger advantage at ZLIB
    assert "especially for LZ4: no" in recommend.offsets_counts(pd.DataFrame(rows), "nanoaod").measured
    rows = [*pair("lz4", 2.1, 2.0), *pair("zlib", 2.0, 2.0)]  # within the attribution's ±10 %
    assert recommend.offsets_counts(pd.DataFrame(rows), "nanoaod").agrees == CANNOT_TELL
    older = pd.DataFrame([offsets_point("lz4", "stored", 1e6), offsets_point("lz4", "generated", 9e5)])
    assert "does not name the counters" in recommend.offsets_counts(older, "nanoaod").measured


def test_the_claim_topics_are_left_out_of_a_study_that_does_not_measure_what_they_compare():
    base = {"formats": {"nanoaod": {"written": 10, "read": 10}}}
    seeds_like = {"reading_style": {"reading_style": ["getentry", "uproot"]}}
    assert recommend._claim_topic_scans(seeds_like) == {}
    scans = {
        "styles": {"reading_style": ["getentry", "bulk"], "algorithm": ["lz4"], "branches": ["analysis"]},
        "off": {"offsets": ["stored", "generated"], "reading_style": ["getentry"]},
    }
    assert recommend._claim_topic_scans(scans) == {
        "bulk_io": ("styles",),
        "offsets_size": ("off",),
        "offsets_counts": ("off",),
    }
    config = load_study_config({**base, "scans": {"styles": scans["styles"]}})
    rows = [
        style_point("getentry", "lz4", 100, scans="styles"),
        style_point("bulk", "lz4", 1200, scans="styles"),
    ]
    found = {f.topic: f for f in recommend.findings(*tables(rows), config, cores=2)}
    assert found["bulk_io"].agrees == YES
    assert "offsets_size" not in found and "offsets_counts" not in found


def test_unzip_compares_parallel_unzip_with_the_serial_read():
    def point(threads, on, rate, cpu, std=0.1):
        return row(
            fmt="xaod",
            alg="lzma",
            threads=threads,
            rate=rate,
            std=std,
            scans="unzip",
            unzip=on,
            loop_cpu_seconds_mean=cpu,
            loop_cpu_seconds_std=0.01,
        )

    rows = [
        point(1, False, 10, 1.0),
        point(2, False, 13, 1.1),
        point(2, True, 18, 1.1),
        point(1, True, 10, 1.0),
    ]
    found = recommend.unzip(pd.DataFrame(rows), "xaod")
    assert found.agrees == YES
    assert (
        "2 threads + parallel unzip 18.000 Hz (95 % CI 17.928-18.072, n = 10): 1.80x (95 % CI"
        in found.measured
    )
    assert "(at least 1.5x: yes), CPU 1.10x (95 % CI 1.09-1.11" in found.measured
    assert "2 threads alone 13.000 Hz (95 % CI 12.928-13.072, n = 10): 1.30x" in found.measured
    rows[2] = point(2, True, 13, 1.2)
    assert recommend.unzip(pd.DataFrame(rows), "xaod").agrees == NO
    rows[2] = point(2, True, 15, 1.2, std=2.0)  # 1.5x, give or take 0.15
    assert recommend.unzip(pd.DataFrame(rows), "xaod").agrees == CANNOT_TELL


def test_skim_compares_zlib_with_zstd_at_the_defaults_and_per_level():
    def point(alg, level, ratio):
        return {**row(fmt="susy5_skim", alg=alg, level=level, scans="skim"), "compression_ratio": ratio}

    rows = [point("zlib", 1, 6.0), point("zstd", 5, 5.5), point("zlib", 5, 6.4), point("zstd", 1, 5.0)]
    found = recommend.skim(pd.DataFrame(rows), "susy5_skim")
    assert found.agrees == YES
    assert "ZLIB-1 against ZSTD-5: 6.000 against 5.500; level 1: 6.000 against 5.000" in found.measured
    rows[1] = point("zstd", 5, 6.6)  # now ZSTD-5 is the smaller: ZLIB wins at level 1 only
    found = recommend.skim(pd.DataFrame(rows), "susy5_skim")
    assert found.agrees == PARTLY and "level 5: 6.400 against 6.600" in found.measured


def test_branch_compression_against_the_uniform_settings_per_read():
    def point(alg, level, hot, branches, rate, size, std=1.0):
        return row(
            alg=alg,
            level=level,
            rate=rate,
            std=std,
            size=size,
            scans="branch_compression",
            branch_compression=hot,
            branches=branches,
        )

    rows = pd.DataFrame(
        [
            point("lzma", 5, "uniform", "particle", 40, 0.80e8),
            point("lz4", 1, "uniform", "particle", 120, 1.3e8),
            point("lzma", 5, "largest4:lz4-1", "particle", 100, 0.95e8),  # between the two: on the front
            point("lzma", 5, "uniform", "all", 30, 0.80e8),
            point("lz4", 1, "uniform", "all", 110, 1.3e8),
            point("lzma", 5, "largest4:lz4-1", "all", 35, 1.4e8),  # larger and slower than LZ4-1: beaten
        ]
    )
    found = recommend.branch_compression(rows, "xaod")
    assert found.agrees == PARTLY
    assert "particle: lzma-5 + hot largest4:lz4-1" in found.measured
    assert "1.19x its size, 2.50x (95 % CI" in found.measured  # against uniform LZMA-5 on the particle read
    assert "(beaten by uniform lz4-1: its rate 3.14x (95 % CI" in found.measured
    # A uniform point of another scan (ZSTD-5) that is smaller and faster than the particle read's hot point: the
    # hot point is not on the study's front after all.
    zstd = {**row(alg="zstd", level=5, rate=105, size=0.9e8, branches="particle"), "setting": "ZSTD-5"}
    found = recommend.branch_compression(rows, "xaod", pd.DataFrame([zstd]))
    assert found.agrees == NO and "(but beaten by ZSTD-5 of another scan: " in found.measured
    # As fast within the noise, and smaller: whether it beats the hot point, the run cannot tell.
    zstd = {**zstd, "event_rate_hz_mean": 97, "event_rate_hz_std": 8}
    found = recommend.branch_compression(rows[rows["branches"] == "particle"], "xaod", pd.DataFrame([zstd]))
    assert found.agrees == CANNOT_TELL and "cannot tell whether beaten by ZSTD-5" in found.measured


def test_float_precision_states_bytes_rate_and_precision_lost():
    def point(container, precision, rate, size):
        return row(
            rate=rate, size=size, scans="float_precision", container=container, float_precision=precision
        )

    rows = pd.DataFrame(
        [
            point("ttree", "full", 100, 1e8),
            point("ttree", "mantissa7", 104, 0.7e8),
            point("rntuple", "full", 150, 0.9e8),
            point("rntuple", "mantissa7", 160, 0.5e8),
        ]
    )
    lossy = {r["container"]: r["file_id"] for _, r in rows[rows["float_precision"] == "mantissa7"].iterrows()}
    precision = pd.DataFrame(
        [
            {
                "format": "xaod",
                "file_id": lossy["ttree"],
                "variable": "Muons.pt",
                "max_rel_error": 0.0038,
                "rms_rel_error": 0.0011,
            },
            {
                "format": "xaod",
                "file_id": lossy["ttree"],
                "variable": "Muons.eta",
                "max_rel_error": 0.0039,
                "rms_rel_error": 0.0012,
            },
            {
                "format": "xaod",
                "file_id": lossy["rntuple"],
                "variable": "Muons.pt",
                "max_rel_error": 0.0050,
                "rms_rel_error": 0.0011,
            },  # beyond 2^-8 = 0.0039: more lost than 7 bits allow
        ]
    )
    found = recommend.float_precision(rows, "xaod", precision)
    assert (
        "TTree zlib-5, mantissa7: 0.70x the full file's size (30 % saved), rate 104.00 Hz" in found.measured
    )
    assert "1.04x (95 % CI 1.03-1.05, unpaired, n ≥ 10) the full file's" in found.measured
    assert "worst relative error 0.0039 (Muons.eta; bound 0.0039)" in found.measured
    assert found.agrees == PARTLY  # the RNTuple file exceeds its bound


def test_event_size_crossover_with_its_interval():
    from rootparams.study.formats import eventsize_written_bytes

    small_bytes, large_bytes = (
        eventsize_written_bytes("eventsize_40"),
        eventsize_written_bytes("eventsize_400000"),
    )

    def study(crossover, spread=0.01):
        # CPU per event: 1000 µs for the large events, and for the small ones what puts the crossover there.
        cpu_small = 1000 * (crossover + small_bytes) / large_bytes
        return tables(
            [
                row(
                    fmt=f"eventsize_{b}",
                    rate=1e3,
                    scans="event_size",
                    container="ttree",
                    reading_style="getentry",
                    loop_cpu_us_per_event_mean=cpu,
                    loop_cpu_us_per_event_std=spread * cpu,
                )
                for b, cpu in ((40, cpu_small), (400000, 1000.0))
            ]
        )

    found = recommend.event_size(*study(1000))
    assert found.agrees == YES and "equal at 1000 B/event (95 % CI" in found.measured
    assert recommend.event_size(*study(50_000)).agrees == PARTLY  # overhead dominates, but far above 1 kB
    assert recommend.event_size(*study(10)).agrees == NO  # below the smallest events' size
    assert recommend.event_size(*study(9_000, spread=0.2)).agrees == CANNOT_TELL  # straddles 10 kB
