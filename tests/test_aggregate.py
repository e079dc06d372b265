"""Statistics and the non-overlap check, on known inputs."""

import numpy as np
import pandas as pd
import pytest

from rootparams.results.aggregate import OverlapError, check_no_overlap, summarize


def repetitions(rates, flagged=None, **point):
    base = {
        "format": "xaod",
        "algorithm": "zlib",
        "level": 5,
        "autoflush": 100,
        "split_level": 0,
        "basket_size": 32000,
        "cache_size": -1,
        "learn_entries": "default",
        "threads": 1,
        "branches": "particle",
        "cache_state": "cold",
        "storage_profile": "native",
    }
    base.update(point)
    flagged = flagged or [False] * len(rates)
    return pd.DataFrame(
        [
            {
                **base,
                "event_rate_hz": r,
                "read_calls": 10 * i,
                "flagged": f,
                "flag_reasons": "busy" if f else "",
            }
            for i, (r, f) in enumerate(zip(rates, flagged, strict=True))
        ]
    )


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


def test_the_mean_has_a_standard_error_and_a_95_percent_interval():
    row = summarize(repetitions([10.0, 12.0, 14.0])).iloc[0]
    assert row["event_rate_hz_sem"] == pytest.approx(2.0 / np.sqrt(3))
    half = 4.302653 * 2.0 / np.sqrt(3)  # Student's t, 2 degrees of freedom
    assert (row["event_rate_hz_ci95_low"], row["event_rate_hz_ci95_high"]) == pytest.approx(
        (12 - half, 12 + half)
    )
    assert row["event_rate_rel_ci95"] == pytest.approx(half / 12)


def test_a_point_short_of_its_unflagged_repetitions_is_not_valid():
    rates = [10.0] * 10
    seven = summarize(repetitions(rates, flagged=[False] * 7 + [True] * 3), planned=10).iloc[0]
    assert seven["n"] == 7 and seven["n_required"] == 8  # 80 % of 10, rounded up
    assert not seven["valid"] and seven["invalid_reasons"] == "only 7 unflagged repetitions (< 8)"
    eight = summarize(repetitions(rates, flagged=[False] * 8 + [True] * 2), planned=10).iloc[0]
    assert eight["valid"] and eight["invalid_reasons"] == ""
    strict = summarize(repetitions(rates, flagged=[False] * 9 + [True]), {"min_repetitions": 10}, planned=10)
    assert not strict.iloc[0]["valid"]


def windowed(loop_seconds, io_share=0.95, **point):
    frame = repetitions([10.0] * len(loop_seconds), **point)
    return frame.assign(loop_seconds=loop_seconds, loop_io_share=io_share, loop_storage_share=io_share)


def test_a_lenient_window_rule_judges_its_own_scans_artifacts_only():
    from rootparams.results.aggregate import apply_validity

    measurement = {
        "min_window_seconds": 1.0,
        "min_window_io_share": 0.9,
        "window_by_scan": {"access": {"min_window_seconds": 0.05, "min_window_io_share": 0.8}},
    }
    summary = summarize(windowed([0.3, 0.4], 0.85), measurement)
    row = summary.iloc[0]
    assert not row["valid"]  # the study's rule: Table 1, the fronts, the cost model, other scans' figures
    assert "lasts as little as 0.3 s (< 1 s)" in row["invalid_reasons"]
    assert "holds as little as 85% of the read's I/O (< 90%)" in row["invalid_reasons"]
    assert apply_validity(summary, measurement, ("access",)).iloc[0]["valid"]  # the access scan's own
    assert not apply_validity(summary, measurement, ("access", "split")).iloc[0]["valid"]  # shared: strict


def test_the_run_summary_counts_a_point_valid_under_its_own_scans_rule_apart_from_the_studys():
    from rootparams.present.report import run_summary_markdown
    from rootparams.results.aggregate import valid_under_own_scans

    measurement = {
        "min_window_seconds": 1.0,
        "min_window_io_share": 0.9,
        "window_by_scan": {"access": {"min_window_seconds": 0.05, "min_window_io_share": 0.8}},
    }
    fast = summarize(
        pd.concat([windowed([0.3, 0.4], 0.85, level=1), windowed([0.3, 0.4], 0.85, level=9)]), measurement
    ).assign(file_id=["a", "b"], read_id="r", status="measured")
    points = pd.DataFrame(
        {"format": "xaod", "file_id": ["a", "b"], "read_id": "r", "scans": ["access", "access;split"]}
    )
    assert not fast["valid"].any()  # the study's rule, which Table 1, the decision and the checks use
    assert valid_under_own_scans(fast, points, measurement).tolist() == [
        True,
        False,
    ]  # a shared point: strict
    # A point that failed stays not valid under any rule.
    assert not valid_under_own_scans(fast.assign(status="failed"), points, measurement).any()
    provenance = {
        "host": "h", "cpu_model": "c", "usable_cores": 2, "memory_bytes": 2**30, "kernel": "k",
        "storage": {"data_dir": "d", "device": "v", "filesystem": "ext4", "rotational": False},
        "root_version": "6", "snakemake": "9", "dool": "1", "config_hash": "x",
    }  # fmt: skip
    text = run_summary_markdown(fast, pd.DataFrame(), provenance, points=points, measurement=measurement)
    assert "- Valid points: 0 of 2" in text
    assert "Valid under their scans' own window rule: 1 more point," in text and "rule of access" in text
    assert "own window rule" not in run_summary_markdown(fast, pd.DataFrame(), provenance)


def test_container_ratios_are_paired_by_round_and_valid_only_where_both_points_are():
    from rootparams.results.aggregate import container_ratios
    from rootparams.stats.compare import Repetitions

    keys = ["format", "algorithm", "level", "storage_profile"]
    base = dict(zip(keys, ["xaod", "zlib", 5, "hdd"], strict=True))
    d = pd.DataFrame(
        [
            {
                **base,
                "container": "ttree",
                "file_id": "t",
                "read_id": "r",
                "event_rate_hz_mean": 100.0,
                "event_rate_hz_std": 20.0,
                "n": 5,
                "size_bytes": 100.0,
                "valid": True,
            },
            {
                **base,
                "container": "rntuple",
                "file_id": "n",
                "read_id": "r",
                "event_rate_hz_mean": 150.0,
                "event_rate_hz_std": 30.0,
                "n": 5,
                "size_bytes": 80.0,
                "valid": False,
            },
        ]
    )
    drift = np.array([1.0, 0.6, 1.0, 0.7, 0.9])
    reps = pd.DataFrame(
        [
            {
                "format": "xaod",
                "file_id": f,
                "read_id": "r",
                "round_key": f"r{k}",
                "flagged": False,
                "event_rate_hz": rate * drift[k],
            }
            for f, rate in (("t", 100.0), ("n", 150.0))
            for k in range(5)
        ]
    )
    (ratio,) = container_ratios(d, Repetitions(reps)).to_dict("records")
    assert (
        ratio["rate_ratio"] == pytest.approx(1.5)
        and ratio["rate_ratio_paired"]
        and ratio["rate_ratio_n"] == 5
    )
    assert ratio["rate_ratio_high"] - ratio["rate_ratio_low"] < 1e-9  # the drift cancels in each round
    assert ratio["size_ratio"] == pytest.approx(0.8) and not ratio["valid"]


def test_a_failed_or_refused_point_is_a_row_with_its_status_and_reason_never_left_out():
    from rootparams.results.aggregate import point_status, point_table, with_status
    from rootparams.results.tables import compression_table, to_markdown
    from rootparams.study.grid import FilePoint, Point, ReadPoint

    read = ReadPoint(-1, "default", 1, "particle", "native")
    points = [
        Point(FilePoint("mine", "zstd", 5, 1000, -1, 0, origin="asis"), read, ("compression",)),
        Point(FilePoint("mine", "lz4", 5, 1000, -1, 0, origin="rewrite"), read, ("compression",)),
        Point(FilePoint("mine", "zlib", 5, 1000, -1, 0, origin="rewrite"), read, ("compression",)),
    ]
    ids = [(p.file.format, p.file.id, read.id) for p in points]
    settings = dict(autoflush=1000, split_level=-1, basket_size=0, container="ttree", page_size=0)
    measured = repetitions([10.0, 12.0], algorithm="zstd", level=5, **settings)
    measured = measured.assign(format="mine", file_id=ids[0][1], read_id=read.id, origin="asis")
    # The LZ4 point's reader failed after one repetition; ROOT refused the ZLIB rewrite.
    partial = repetitions([9.0], algorithm="lz4", level=5, **settings)
    partial = partial.assign(format="mine", file_id=ids[1][1], read_id=read.id, origin="rewrite")
    blocks = [
        {
            "block": "mine",
            "points": [
                {"format": "mine", "file_id": ids[0][1], "read_id": read.id, "records": ["a", "b"]},
                {
                    "format": "mine",
                    "file_id": ids[1][1],
                    "read_id": read.id,
                    "records": ["c"],
                    "failed": "timed read of x.root failed: branch selection 'particle' needs particle containers",
                },
                {
                    "format": "mine",
                    "file_id": ids[2][1],
                    "read_id": read.id,
                    "records": [],
                    "refused": "ROOT crashed (SIGSEGV) rewriting tree CollectionTree of my.root",
                },
            ],
        }
    ]
    status = point_status(blocks)
    # measurement.adaptive: a candidate read once and left predicted is a row too, not valid, with the reason.
    surveyed = point_status([{"points": [{**blocks[0]["points"][0], "surveyed": "read once"}]}])
    assert list(surveyed["status"]) == ["surveyed"] and list(surveyed["failure"]) == ["read once"]
    summary = with_status(
        summarize(pd.concat([measured, partial])), status, points, {"cache_state": "cold"}, 2
    )
    rows = summary.set_index("file_id")
    assert list(rows["status"]) == [
        "measured",
        "failed",
        "refused",
    ]  # sorted by file id: asis, rewrite_lz4..., zlib
    assert rows.loc[ids[1][1], "n"] == 1 and not rows.loc[ids[1][1], "valid"]
    assert rows.loc[ids[1][1], "invalid_reasons"].startswith("failed: timed read of x.root")
    refused = rows.loc[ids[2][1]]
    assert refused["n"] == 0 and not refused["valid"] and refused["algorithm"] == "zlib"
    assert "SIGSEGV" in refused["failure"] and refused["invalid_reasons"].startswith("refused: ")
    assert rows.loc[ids[0][1], "valid"] in (True, False) and rows.loc[ids[0][1], "failure"] == ""
    table = point_table(points, status)
    assert list(table["status"]) == ["measured", "failed", "refused"]
    # Table 1 keeps the failed and refused settings as rows, marked with the reason.
    config = {
        "file_defaults": {
            "mine": {
                "autoflush": 1000,
                "split_level": -1,
                "basket_size": 0,
                "page_size": 0,
                "branch_compression": "uniform",
                "float_precision": "full",
            }
        },
        "read_defaults": {
            "cache_size": -1,
            "learn_entries": "default",
            "threads": 1,
            "branches": "particle",
            "storage_profile": "native",
            "cluster_bunch": 1,
            "async_prefetch": False,
            "reading_style": "getentry",
            "unzip": False,
        },
        "formats": {"mine": {}},
    }
    files = pd.DataFrame(
        {"format": ["mine"] * 3, "file_id": [i[1] for i in ids], "size_bytes": [1e6, 9e5, None]}
    )
    text = to_markdown(compression_table(summary, files, config, "mine"), "mine")
    assert "refused: ROOT crashed (SIGSEGV)" in text and "failed: timed read of x.root" in text


def test_a_point_measured_in_passes_has_the_hosts_drift_in_its_interval():
    # Two formats, four points each, three passes (measuring jobs) whose host moved every point of a format alike.
    rows = []
    rng = np.random.default_rng(4)
    for fmt, shifts in (("xaod", (1.0, 0.93, 1.04)), ("truth3", (1.0, 1.06, 0.97))):
        for point in range(4):
            for p, shift in enumerate(shifts):
                for k in range(3):
                    frame = repetitions([100 * shift * (1 + 0.01 * rng.standard_normal())], format=fmt)
                    rows.append(
                        frame.assign(
                            file_id=f"f{point}",
                            read_id="r",
                            round_key=f"{fmt}.pass{p + 1}@{p}/r{k}",
                            rep=3 * p + k,
                        )
                    )
    summary = summarize(pd.concat(rows, ignore_index=True))
    row = summary.iloc[0]
    assert row["passes"] == 3 and row["host_df"] == 4 and row["event_rate_hz_host_variance"] > 0
    own = row["event_rate_hz_run_ci95_high"] - row["event_rate_hz_run_ci95_low"]
    reported = row["event_rate_hz_ci95_high"] - row["event_rate_hz_ci95_low"]
    assert reported > 2 * own  # the passes disagree by far more than one job's repetitions
