"""The run summary's grade (rootparams.present.report.grade): what makes a run paper-grade, and how an adaptive study, which
by design measures only part of its grid in full, is judged."""

import pandas as pd

from rootparams.present.report import grade


def summary(statuses, valid):
    return pd.DataFrame(
        {
            "status": statuses,
            "valid": valid,
            "event_rate_rel_std": [0.01] * len(statuses),
        }
    )


def test_a_run_of_valid_points_with_ten_repetitions_is_paper_grade():
    assert grade(summary(["measured"] * 4, [True] * 4), 10) == []


def test_an_adaptive_study_says_so_and_judges_the_valid_share_on_the_points_measured_in_full():
    rows = summary(
        ["measured", "measured", "surveyed", "surveyed", "surveyed"], [True, True, False, False, False]
    )
    problems = grade(rows, 10)
    assert len(problems) == 1 and "adaptive study: 3 of 5 points read once" in problems[0]
    rows.loc[1, "valid"] = False  # one of the two measured in full is not valid: 50 % < 90 %
    assert any("50% of the points are valid" in p for p in grade(rows, 10))


def test_points_whose_kernel_read_far_more_than_the_reader_are_named_with_their_ratio():
    from rootparams.present.report import READ_AHEAD_NOTE_RATIO, _read_ahead_lines

    rows = pd.DataFrame(
        {
            "format": "nanoaod",
            "file_id": ["zlib", "lz4", "none"],
            "read_id": ["uproot_analysis", "getentry_all", "uproot_analysis"],
            "storage_to_root_bytes_ratio_mean": [1.58, 1.12, READ_AHEAD_NOTE_RATIO + 0.13],
        }
    )
    (line,) = _read_ahead_lines(rows)
    assert line.startswith("- Read-ahead: 2 points read from the disk at least 1.5x")
    assert "nanoaod none (uproot_analysis): 1.63x; nanoaod zlib (uproot_analysis): 1.58x." in line
    assert "lz4" not in line
    assert (
        _read_ahead_lines(rows.iloc[[1]]) == []
        and _read_ahead_lines(rows.drop(columns="storage_to_root_bytes_ratio_mean")) == []
    )
