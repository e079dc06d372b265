"""Statistics and the non-overlap check, on known inputs."""

import numpy as np
import pandas as pd
import pytest

from rootparams.aggregate import OverlapError, check_no_overlap, summarize


def repetitions(rates, flagged=None, **point):
    base = {"format": "xaod", "algorithm": "zlib", "level": 5, "autoflush": 100, "split_level": 0, "basket_size": 32000,
            "cache_size": -1, "learn_entries": "default", "threads": 1, "branches": "particle",
            "cache_state": "cold", "storage_profile": "native"}  # fmt: skip
    base.update(point)
    flagged = flagged or [False] * len(rates)
    return pd.DataFrame(
        [{**base, "event_rate_hz": r, "read_calls": 10 * i, "flagged": f, "flag_reasons": "busy" if f else ""}
         for i, (r, f) in enumerate(zip(rates, flagged, strict=True))]
    )  # fmt: skip


def test_mean_and_sample_standard_deviation():
    summary = summarize(repetitions([10.0, 12.0, 14.0]))
    row = summary.iloc[0]
    assert row["n"] == 3 and row["n_flagged"] == 0
    assert row["event_rate_hz_mean"] == pytest.approx(12.0)
    assert row["event_rate_hz_std"] == pytest.approx(2.0)  # ddof=1
    assert row["event_rate_rel_std"] == pytest.approx(2.0 / 12.0)


def test_flagged_repetitions_are_excluded_and_counted():
    summary = summarize(repetitions([10.0, 1000.0, 14.0], flagged=[False, True, False]))
    row = summary.iloc[0]
    assert row["n"] == 2 and row["n_flagged"] == 1 and row["flag_reasons"] == "busy"
    assert row["event_rate_hz_mean"] == pytest.approx(12.0)


def test_single_repetition_has_no_spread():
    assert np.isnan(summarize(repetitions([10.0])).iloc[0]["event_rate_hz_std"])


def test_points_are_kept_apart():
    both = pd.concat([repetitions([1.0, 2.0]), repetitions([5.0, 7.0], level=9)])
    assert sorted(summarize(both)["event_rate_hz_mean"]) == [1.5, 6.0]


def windows(*spans):
    return pd.DataFrame(
        [{"process_start_time": s, "end_time": e, "record_path": f"rep{i}"} for i, (s, e) in enumerate(spans)]
    )


def test_disjoint_windows_pass():
    check_no_overlap(
        windows((0, 1), (2, 3)), pd.DataFrame([{"write_start_time": 1.5, "write_end_time": 1.9, "path": "f"}])
    )


def test_overlapping_reads_are_an_error():
    with pytest.raises(OverlapError, match="rep1"):
        check_no_overlap(windows((0, 2), (1, 3)), pd.DataFrame())


def test_read_overlapping_a_write_is_an_error():
    with pytest.raises(OverlapError, match="writing f"):
        check_no_overlap(
            windows((0, 2)), pd.DataFrame([{"write_start_time": 1.0, "write_end_time": 5.0, "path": "f"}])
        )
