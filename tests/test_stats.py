"""The statistics behind every number a user reads (rootparams.stats, rootparams.compare): intervals that cover
what they claim, verdicts that fail where they must, pairing by round that removes a shared drift."""

import math

import numpy as np
import pandas as pd
import pytest

from rootparams import stats
from rootparams.compare import Repetitions


def test_the_mean_interval_is_students_t_and_covers_95_percent():
    interval = stats.Interval.of([10.0, 12.0, 14.0])
    assert (
        interval.mean == 12.0 and interval.spread == 2.0 and interval.sem == pytest.approx(2 / math.sqrt(3))
    )
    assert interval.half_width == pytest.approx(4.302653 * 2 / math.sqrt(3), rel=1e-6)  # t(0.975, 2)
    rng = np.random.default_rng(3)
    intervals = [stats.Interval.of(100 + 8 * rng.standard_normal(10)) for _ in range(4000)]
    assert 0.93 < np.mean([i.low <= 100 <= i.high for i in intervals]) < 0.97


def test_one_value_has_no_interval_and_says_so():
    interval = stats.Interval.of([5.0])
    assert interval.n == 1 and math.isnan(interval.spread) and math.isnan(interval.low)
    assert "n = 1, no interval" in interval.text("Hz")
    assert stats.Interval.of([]).text() == "n/a (n = 0)"


def test_equivalence_says_equal_different_or_cannot_tell():
    inside = stats.Ratio(1.01, 0.99, 1.03, 10, True)
    assert inside.equivalence(0.05) == stats.EQUAL and inside.resolvable_margin == pytest.approx(0.03)
    outside = stats.Ratio(1.15, 1.10, 1.20, 10, True)
    assert outside.equivalence(0.05) == stats.DIFFERENT and outside.direction == stats.HIGHER
    wide = stats.Ratio(1.02, 0.90, 1.15, 10, False)
    assert wide.equivalence(0.05) == stats.CANNOT_TELL and wide.direction == stats.UNRESOLVED
    # Log-symmetric: a/b and b/a get the same verdict.
    assert stats.Ratio(1 / 1.04, 1 / 1.049, 1 / 1.03, 10, True).equivalence(0.05) == stats.EQUAL
    assert stats.Ratio(1.0, math.nan, math.nan, 1, False).equivalence(0.05) == stats.CANNOT_TELL


def test_a_claim_of_equality_does_not_pass_on_noise():
    # The rule this replaced called two rates equal within max(5 %, the hypot of their spreads): the noisier the
    # run, the more "equal". An equivalence test does the opposite: noise makes it "cannot tell".
    rng = np.random.default_rng(1)
    a, b = 100 * (1 + 0.20 * rng.standard_normal(10)), 115 * (1 + 0.20 * rng.standard_normal(10))
    ratio = stats.ratio_unpaired(stats.Interval.of(b), stats.Interval.of(a))
    assert ratio.equivalence(0.05) == stats.CANNOT_TELL


def test_unpaired_ratio_uses_the_delta_method_and_welch():
    a, b = stats.Interval(110.0, 11.0, 10), stats.Interval(100.0, 5.0, 10)
    ratio = stats.ratio_unpaired(a, b)
    se = math.sqrt(0.1**2 / 10 + 0.05**2 / 10)
    df = (0.001 + 0.00025) ** 2 / (0.001**2 / 9 + 0.00025**2 / 9)
    assert ratio.estimate == pytest.approx(1.1)
    assert math.log(ratio.high / 1.1) == pytest.approx(stats.t_quantile(df) * se)
    assert not ratio.paired and ratio.n == 10


def test_pairing_by_round_removes_a_drift_both_points_shared():
    rng = np.random.default_rng(2)
    drift = rng.choice([1.0, 0.7], size=10)  # slow spells of the host, the same for both points in a round
    a = 105 * drift * (1 + 0.01 * rng.standard_normal(10))
    b = 100 * drift * (1 + 0.01 * rng.standard_normal(10))
    paired = stats.ratio_paired(a, b)
    unpaired = stats.ratio_unpaired(stats.Interval.of(a), stats.Interval.of(b))
    assert paired.direction == stats.HIGHER and paired.estimate == pytest.approx(1.05, abs=0.01)
    assert unpaired.direction == stats.UNRESOLVED  # the same data, unpaired, cannot see it


def test_repetitions_pair_points_by_round_key_and_fall_back_to_the_summary():
    rounds = [f"xaod@1/r{k}" for k in range(5)]
    table = pd.DataFrame(
        [
            {
                "format": "xaod",
                "file_id": f,
                "read_id": "r",
                "round_key": k,
                "flagged": False,
                "event_rate_hz": v,
            }
            for f, scale in (("a", 1.1), ("b", 1.0))
            for k, v in zip(rounds, scale * np.array([100, 70, 100, 72, 99]), strict=True)
        ]
        + [
            {
                "format": "xaod",
                "file_id": "a",
                "read_id": "r",
                "round_key": "x",
                "flagged": True,
                "event_rate_hz": 1,
            }
        ]
    )
    reps = Repetitions(table)
    a, b = (
        {"format": "xaod", "file_id": "a", "read_id": "r"},
        {"format": "xaod", "file_id": "b", "read_id": "r"},
    )
    ratio = reps.ratio(a, b)
    assert ratio.paired and ratio.n == 5 and ratio.estimate == pytest.approx(1.1)
    assert len(reps.values(a, "event_rate_hz")) == 5  # the flagged repetition is left out
    summary_only = {
        "format": "topq1",
        "file_id": "c",
        "read_id": "r",
        "event_rate_hz_mean": 100.0,
        "event_rate_hz_std": 10.0,
        "n": 10,
    }
    fallback = reps.ratio(summary_only, {**summary_only, "file_id": "d"})
    assert not fallback.paired and fallback.estimate == 1.0 and fallback.low < 1 < fallback.high


def test_a_trend_and_a_bootstrap_over_rounds():
    hours = np.arange(12) / 4
    trend = stats.Trend.of(hours, 1000 * (1 - 0.05 * hours))
    assert trend.slope == pytest.approx(-0.05 / (1 - 0.05 * hours.mean()), rel=1e-6) and trend.high < 0
    values = np.array([[1.0, 2.0, 3.0, np.nan], [2.0, 4.0, 6.0, 8.0]])
    means = stats.bootstrap_means(values, replicates=500, seed=1)
    assert means.shape == (500, 2) and np.isfinite(means).all()
    low, high = stats.quantiles(means)
    assert low[0] < 2.0 < high[0] and low[1] < 5.0 < high[1]
    points, rounds, matrix = stats.round_matrix({"a": {"r1": 1.0}, "b": {"r0": 2.0, "r1": 3.0}})
    assert points == ["a", "b"] and rounds == ["r0", "r1"] and np.isnan(matrix[0, 0]) and matrix[1, 1] == 3.0
