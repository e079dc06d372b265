"""The seeds' related studies (issue #16) through the whole DAG on a tiny grid (tests/configs/tiny_seeds.yaml):
access patterns, reading styles (GetEntry, RDataFrame with and without implicit MT, uproot, ROOT's bulk read in
both containers), entry offsets stored or generated, the flat NanoAOD-like format, the event-size study, parallel
unzip and the skimmed format. Every point is measured, the records say what each style read, and Figures 22-29
and 36-37 and the recommendation topics exist."""

import pandas as pd
import pytest
from conftest import REPO, run_study

from rootparams.present.figures import _SEED_FIGURES
from rootparams.tools import paths

TINY_SEEDS = str(REPO / "tests" / "configs" / "tiny_seeds.yaml")


@pytest.fixture(scope="module")
def seeds_run(tmp_path_factory, build):
    # The seeds' outputs and what they follow from (test_full_dag draws the note's figures).
    targets = (
        paths.SUMMARY_TABLE,
        paths.REPETITIONS_TABLE,
        paths.POINTS_TABLE,
        paths.RECOMMENDATIONS,
        *(paths.figure(name, ext) for name in _SEED_FIGURES for ext in ("png", "pdf")),
    )
    return run_study(tmp_path_factory, build, TINY_SEEDS, "seeds", targets)


def test_every_study_is_measured(seeds_run):
    summary = pd.read_csv(seeds_run / paths.SUMMARY_TABLE)
    points = pd.read_csv(seeds_run / paths.POINTS_TABLE)
    named = {s for joined in points["scans"] for s in joined.split(";")}
    assert {"access", "reading_style", "event_size", "unzip", "skim", "bulk_container", "offsets"} <= named
    assert (summary["n"] + summary["n_flagged"] == 2).all()
    assert (summary["event_rate_hz_mean"] > 0).all()
    styles = summary[summary["branches"] == "analysis"]
    assert set(styles["reading_style"]) == {"getentry", "rdataframe", "uproot", "bulk"}
    assert set(summary.loc[summary["reading_style"] == "bulk", "format"]) == {"nanoaod"}
    assert set(summary["offsets"]) == {"stored", "generated"}
    assert set(summary.loc[summary["reading_style"] == "uproot", "threads"]) == {
        1
    }  # uproot has no implicit MT
    assert {"nanoaod", "susy5_skim", "eventsize_40", "eventsize_4000", "eventsize_400000"} <= set(
        summary["format"]
    )
    assert (summary["loop_cpu_us_per_event_mean"] > 0).all()


def test_the_columnar_styles_read_the_same_values_as_getentry(seeds_run):
    reps = pd.read_csv(seeds_run / paths.REPETITIONS_TABLE, low_memory=False)
    reps = reps[(reps["branches"] == "analysis") & (reps["format"] == "nanoaod")]
    sums = reps.groupby(["file_id", "reading_style"])["values_sum"].first().unstack()
    assert {"rdataframe", "uproot", "bulk"} <= set(sums.columns)
    # Files with stored offsets: RDataFrame and uproot refuse generated ones.
    both = sums.dropna(subset=["rdataframe", "uproot"])
    assert len(both) and (abs(both["rdataframe"] / both["uproot"] - 1) < 1e-6).all()
    bulk = sums.dropna(subset=["bulk", "uproot"])
    assert len(bulk) and (abs(bulk["bulk"] / bulk["uproot"] - 1) < 1e-6).all()


def test_access_patterns_use_fewer_bytes_branch_wise(seeds_run):
    summary = pd.read_csv(seeds_run / paths.SUMMARY_TABLE)
    access = summary[
        (summary["format"] == "susy5")
        & (summary["reading_style"] == "getentry")
        & (summary["threads"] == 1)
        & summary["unzip"].eq(False)
        & (summary["algorithm"] == "zlib")
    ]
    by = access.set_index(["branches", "split_level"])["file_bytes_read_useful_mean"]  # what ROOT used
    assert by[("sparse", 99)] < by[("analysis", 99)] < by[("all", 99)]
    # Class-wise: the whole stores. (Not for sparse on 60 events: the split-99 tree's larger header, read at the
    # open, outweighs three small stores.)
    assert by[("analysis", 0)] > by[("analysis", 99)]


def test_every_seed_figure_is_a_real_png_and_pdf(seeds_run):
    for name in _SEED_FIGURES:
        png = (seeds_run / paths.figure(name, "png")).read_bytes()
        pdf = (seeds_run / paths.figure(name, "pdf")).read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20_000, name
        assert pdf[:5] == b"%PDF-" and len(pdf) > 5_000, name


def test_recommendations_have_every_seed_topic(seeds_run):
    text = (seeds_run / paths.RECOMMENDATIONS).read_text()
    seed_topics = ("access", "reading_style", "unzip", "skim", "event_size")
    for topic in (*seed_topics, "bulk_io", "offsets_size", "offsets_counts"):
        assert f"| {topic} |" in text, topic
    # The related studies by their public titles, ROOT's change by its public pull request.
    assert "ATLAS CHEP 2019" in text and '"Optimizing ROOT IO For Analysis"' in text
    assert "PR root-project/root#21753" in text and "Seed 0" not in text
