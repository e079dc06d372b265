"""The adaptive plan replayed on a measured study (rootparams.adaptive): anchors measured, the rest predicted, the
candidates close to the decision measured, the far ones not; its decision against the full one; the measuring
time it needs. Hand-made tables of the shapes the workflow writes (the decision's helpers of test_decision)."""

import pandas as pd
import pytest
from test_decision import config, point, steady, tables, timed_reads

from rootparams import adaptive
from rootparams.aggregate import derive_metrics

# (file id, algorithm, level, bytes per event, seconds per event of the whole read, the model's predicted loop)
SETTINGS = [
    ("zlib5", "zlib", 5, 1_000_000, 0.010, 9.0),  # the default point: the anchor
    ("lz4", "lz4", 5, 1_020_000, 0.008, 7.0),  # a bit larger, a bit faster: the cheapest at 100 reads
    ("lzma5", "lzma", 5, 900_000, 0.030, 29.0),  # smaller, much slower: the cheapest at one read
    ("none", "none", 0, 5_000_000, 0.009, 8.0),  # five times larger: never close
]


def study():
    points = [point(f, a, lvl, size=b * 1000) for f, a, lvl, b, _, _ in SETTINGS]
    summary, files = tables(*points)
    reps = []
    for p, (_, _, _, _, seconds, _) in zip(points, SETTINGS, strict=True):
        for row in timed_reads(p, steady(seconds, 0.01)):
            row["loop_seconds"] = row["process_seconds"] - 1.0  # a one-second open
            reps.append(row)
    repetitions = derive_metrics(pd.DataFrame(reps))
    scans = {"zlib5": "compression;default"}
    points_table = summary[["format", "file_id", "read_id"]].assign(
        scans=[scans.get(f, "compression") for f in summary["file_id"]]
    )
    model_points = summary[["format", "file_id", "read_id"]].assign(
        predicted_loop_seconds=[s[5] for s in SETTINGS],
        events_read=1000,
        measured_loop_seconds=[1000 * s[4] - 1.0 for s in SETTINGS],
    )
    jobs = pd.DataFrame(
        [
            {
                "block": "xaod",
                "job_wall_seconds": 500.0,
                "measured_repetitions": 40,
                "measured_loop_seconds": 200.0,
            }
        ]
    )
    return summary, files, repetitions, points_table, model_points, jobs


def test_the_plan_measures_the_anchor_and_what_comes_close_and_agrees_with_the_full_decision():
    summary, files, repetitions, points, model_points, jobs = study()
    table, facts = adaptive.replay(summary, files, repetitions, points, model_points, jobs, config())
    assert facts["candidates"] == 4 and facts["anchors"] == 1
    assert facts["measured_candidates"] == 3  # the uncompressed file is never close
    assert facts["decisions"] == 3 and facts["decisions_agreeing"] == 3 and table["agrees"].all()
    # the anchor's whole read 10 s against 9 s predicted + its 1 s open: no correction; u the 25 % prior
    assert facts["scales"]["xaod"] == pytest.approx(1.0, rel=0.02) and facts["uncertainty"] == 0.25
    # 40 repetitions in 500 s of which 200 s of loops: 7.5 s of overhead each; each point: 10 loops + 75 s
    spent = adaptive.measuring_seconds(repetitions, jobs)
    zlib = ("xaod", "zlib5", "r_zlib5_1")
    assert spent[zlib] == pytest.approx(
        repetitions[repetitions["file_id"] == "zlib5"]["loop_seconds"].sum() + 75
    )
    assert facts["measuring_seconds_decision_only"] < facts["measuring_seconds_full"]
    text = adaptive.markdown(table, facts)
    assert "3 of 3" in text and "replay" in text


def test_a_candidate_without_a_prediction_is_measured():
    summary, files, repetitions, points, model_points, jobs = study()
    _, facts = adaptive.replay(
        summary, files, repetitions, points, model_points[model_points["file_id"] != "none"], jobs, config()
    )
    assert facts["measured_candidates"] == 4


def test_the_decision_on_a_medium_the_host_lacks_is_made_from_predictions_and_says_so():
    from rootparams.model import MEDIA

    summary, files, repetitions, _, model_points, _ = study()
    summary = summary.assign(open_seconds_mean=1.0, open_disk_seconds_mean=0.5, open_read_calls_mean=10,
                             open_bytes_read_mean=1e6)  # fmt: skip
    media = model_points.assign(medium="wan-50ms")
    table = adaptive.predicted_choices(summary, files, repetitions, media, config(), ["wan-50ms"], 0.25)
    assert len(table) == 3 and table["predicted"].all() and (table["choice"].str.contains("predicted")).all()
    # the open on the WAN: 0.5 s of CPU, 10 round trips of 50 ms, 1 MB at 100 MB/s
    assert adaptive.open_seconds_on(summary.iloc[0].to_dict(), MEDIA["wan-50ms"]) == pytest.approx(1.01)
    at_one = table[table["reads_per_file"] == 1].iloc[0]
    assert at_one["setting"] == "LZMA-5"  # the smallest file, at one read
