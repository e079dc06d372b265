"""Grid expansion: scans over per-format defaults, de-duplicated, with ids that round-trip."""

import pytest

from rootparams.study.config import load_study_config
from rootparams.study.grid import FilePoint, expand_points, file_points


def study(**scans):
    return load_study_config(
        {
            "formats": {"xaod": {"written": 10, "read": 10}, "truth3": {"written": 10, "read": 10}},
            "scans": scans,
        }
    )


def test_shared_points_are_made_once_and_remember_their_scans():
    points = expand_points(
        study(compression={"algorithm": ["zlib", "lz4"], "level": [5]}, split={"split_level": [0, 1]})
    )
    xaod_default = [
        p
        for p in points
        if p.file.format == "xaod" and p.file.algorithm == "zlib" and p.file.split_level == 0
    ]
    assert len(xaod_default) == 1
    assert set(xaod_default[0].scans) == {"default", "compression", "split"}
    # 2 formats x (default + lz4 + the other split level) = 6 distinct points
    assert len(points) == 6


def test_scan_limited_to_some_formats():
    points = expand_points(study(threads={"formats": ["xaod"], "threads": [1, 2]}))
    assert {(p.file.format, p.read.threads) for p in points} == {("xaod", 1), ("xaod", 2), ("truth3", 1)}


def test_uncompressed_has_one_canonical_level():
    points = expand_points(study(compression={"algorithm": ["none"], "level": [1, 5, 9]}))
    assert {p.file.level for p in points if p.file.algorithm == "none"} == {0}
    assert len(file_points(points)) == 4


def test_ids_round_trip():
    point = FilePoint("topq1", "lzma", 9, -20_000_000, 99, 64000)
    assert point.id == "lzma-9_af-20000000_split99_basket64000"
    assert FilePoint.from_id("topq1", point.id) == point
    assert point.compression_setting == 209


def test_rntuple_points_fix_the_settings_they_do_not_have_and_keep_their_own_ids():
    from rootparams.study.config import load_study_config
    from rootparams.study.grid import ReadPoint, expand_points

    rntuple = FilePoint("xaod", "zstd", 5, 100, 0, 32000, "rntuple", 65536)
    assert (rntuple.split_level, rntuple.basket_size) == (-1, 0)
    assert rntuple.id == "rntuple_zstd-5_af100_page65536"
    assert FilePoint.from_id("xaod", rntuple.id) == rntuple
    assert FilePoint("xaod", "zstd", 5, 100, 0, 32000, "ttree", 65536).page_size == 0
    read = ReadPoint(-1, 5, 1, "particle", "hdd", cluster_bunch=3)
    assert read.for_container("rntuple").learn_entries == "default"
    assert read.for_container("ttree").cluster_bunch == 1
    assert ReadPoint(-1, "default", 1, "particle", "hdd").id == "cache-1_learnD_mt1_particle_hdd"  # unchanged
    config = load_study_config(
        {
            "formats": {"xaod": {"written": 10, "read": 10}},
            "read_defaults": {"learn_entries": 10},
            "scans": {
                "c": {"container": ["ttree", "rntuple"]},
                "b": {"container": ["rntuple"], "cluster_bunch": [1, 2]},
            },
        }
    )
    points = expand_points(config)
    by_container = {c: [p for p in points if p.file.container == c] for c in ("ttree", "rntuple")}
    assert len(by_container["ttree"]) == 1 and by_container["ttree"][0].read.learn_entries == 10
    assert {p.read.cluster_bunch for p in by_container["rntuple"]} == {1, 2}
    assert {p.read.learn_entries for p in by_container["rntuple"]} == {
        "default"
    }  # the cluster cache does not learn


def test_ids_match_the_patterns_the_workflow_constrains_its_wildcards_with():
    import re

    from rootparams.study.config import load_study_config
    from rootparams.study.grid import FILE_ID_PATTERN, READ_ID_PATTERN, expand_points, points_by_id

    config = load_study_config(
        {
            "formats": {"xaod": {"written": 10, "read": 10}},
            "scans": {
                "s": {
                    "autoflush": [-1000000, 10],
                    "cache_size": [-1, 0],
                    "learn_entries": ["default", 5],
                    "branches": ["all", "regex:^Jets"],
                    "storage_profile": ["hdd_seek"],
                },
                "r": {"container": ["rntuple"], "page_size": [65536], "cluster_bunch": [2]},
            },
        }
    )
    points = expand_points(config)
    files, reads = points_by_id(points)
    assert all(re.fullmatch(FILE_ID_PATTERN, file_id) for _, file_id in files)
    assert all(re.fullmatch(READ_ID_PATTERN, read_id) for read_id in reads)
    assert all(FilePoint.from_id(fmt, file_id) == point for (fmt, file_id), point in files.items())


def test_a_benchmark_point_is_the_papers_file_settings_with_overrides():
    from rootparams.measure.generate import paper_file_point
    from rootparams.vocabulary import PAPER_FILE_DEFAULTS

    d = PAPER_FILE_DEFAULTS["topq1"]
    point = paper_file_point("topq1", algorithm="lz4", level=9)
    assert point == FilePoint("topq1", "lz4", 9, d["autoflush"], d["split_level"], d["basket_size"])
    with pytest.raises(TypeError, match=r"unknown file settings \['levle'\]; valid: \['algorithm', 'level'"):
        paper_file_point("topq1", levle=9)


def test_an_rntuple_point_takes_the_rntuple_defaults_not_the_ttree_points_fixed_values():
    from rootparams.study.config import load_study_config
    from rootparams.study.grid import expand_points

    config = load_study_config(
        {
            "formats": {"xaod": {"written": 10, "read": 10}},
            "read_defaults": {"cluster_bunch": 3},
            "scans": {"c": {"container": ["ttree", "rntuple"]}},
        }
    )
    (rntuple,) = [p for p in expand_points(config) if p.file.container == "rntuple"]
    assert rntuple.file.page_size == 1048576 and rntuple.read.cluster_bunch == 3
    (ttree,) = [p for p in expand_points(config) if p.file.container == "ttree"]
    assert ttree.file.page_size == 0 and ttree.read.cluster_bunch == 1 and ttree.file.basket_size == 32000


def test_reading_style_and_unzip_name_the_read_only_where_they_are_not_roots_default():
    import re

    from rootparams.study.grid import READ_ID_PATTERN, ReadPoint

    base = ReadPoint(-1, "default", 1, "analysis", "hdd")
    assert base.id == "cache-1_learnD_mt1_analysis_hdd"
    assert (
        ReadPoint(-1, "default", 2, "sparse", "hdd", reading_style="rdataframe").id
        == "cache-1_learnD_mt2_rdf_sparse_hdd"
    )
    assert (
        ReadPoint(-1, "default", 1, "all", "native", unzip=True).id == "cache-1_learnD_mt1_unzip_all_native"
    )
    for read in (
        base,
        ReadPoint(0, 10, 2, "analysis", "hdd", reading_style="uproot"),
        ReadPoint(
            -1, "default", 2, "all", "hdd", async_prefetch=True, unzip=True, reading_style="rdataframe"
        ),
    ):
        assert re.fullmatch(READ_ID_PATTERN, read.id), read.id


def test_uproot_reads_keep_the_fixed_values_of_root_only_settings():
    from rootparams.study.grid import ReadPoint

    read = ReadPoint(0, 10, 2, "analysis", "hdd", async_prefetch=True, unzip=True, reading_style="uproot")
    fixed = read.for_container("ttree")
    assert (fixed.cache_size, fixed.learn_entries, fixed.threads, fixed.async_prefetch, fixed.unzip) == (
        -1,
        "default",
        1,
        False,
        False,
    )
    assert fixed.id == "cache-1_learnD_mt1_uproot_analysis_hdd"


def test_the_cache_learning_phase_ends_at_the_first_cluster_start_at_or_after_the_learn_entries():
    from rootparams.study.grid import _ROOT_LEARN_ENTRIES, _regular_cluster_starts, cache_learning_entries

    af100 = _regular_cluster_starts(100, 1000)
    assert af100 == list(range(0, 1000, 100))
    # ROOT's 100 learn entries at AutoFlush 100: the first cluster, 10 % of 1000 entries.
    assert cache_learning_entries(af100, _ROOT_LEARN_ENTRIES, 1000) == 100
    # Fewer learn entries: still the first cluster (its baskets are prefilled while the cache learns).
    assert cache_learning_entries(af100, 10, 1000) == cache_learning_entries(af100, 0, 1000) == 100
    # More: up to the first cluster start at or after them.
    assert cache_learning_entries(af100, 150, 1000) == 200
    # The default study's old xAOD read: 220 entries in clusters of 100 + 100 + 20, 45 % of it learning.
    old_xaod = cache_learning_entries(_regular_cluster_starts(100, 220), 100, 220)
    assert old_xaod == 100 and old_xaod / 220 == pytest.approx(0.4545, abs=1e-3)
    # Irregular (byte-based) clusters, and a learning phase that outlasts the read.
    assert cache_learning_entries([0, 83, 167, 250], 100, 1250) == 167
    assert cache_learning_entries([0, 500], 100, 300) == 300
    assert cache_learning_entries([0], 100, 50) == 50
    with pytest.raises(ValueError, match="byte-based or disabled"):
        _regular_cluster_starts(-10000000, 1000)


def test_the_steady_state_cache_study_reads_past_the_learning_phase():
    # config/examples/bulk-offsets-cache.yaml: the xAOD's cache and learn-entries points read it as xaod_long, long
    # enough that the learning phase is at most 10 % of the read. The default study keeps its 220-event xAOD, whose
    # learning phase is 45 % of the read (its first AutoFlush-100 cluster, 100 of 220 entries).
    import yaml
    from conftest import REPO

    from rootparams.study.grid import cache_learning_share

    config = load_study_config(
        yaml.safe_load((REPO / "config" / "examples" / "bulk-offsets-cache.yaml").read_text())
    )
    xaod = [p for p in expand_points(config) if {"cache", "cache_learn"} & set(p.scans)]
    assert {p.file.format for p in xaod} == {"xaod_long"}
    assert {str(p.read.learn_entries) for p in xaod} == {"default", "0", "10"}
    for p in xaod:
        share = cache_learning_share(p.read, p.file, config["formats"]["xaod_long"]["read"])
        assert share <= 0.10 + 1e-12, (p.read.id, share)
    assert any(p.read.cache_size == 0 for p in xaod)  # the cache off: no learning phase at all
    off = next(p for p in xaod if p.read.cache_size == 0)
    assert cache_learning_share(off.read, off.file, 1000) == 0.0
    default = load_study_config(yaml.safe_load((REPO / "config" / "config.yaml").read_text()))
    short = next(
        p
        for p in expand_points(default)
        if p.file.format == "xaod" and "cache" in p.scans and p.read.cache_size
    )
    assert cache_learning_share(short.read, short.file, 220) == pytest.approx(100 / 220)


def test_the_learning_share_is_derived_per_repetition_where_a_cache_learnt():
    import pandas as pd

    from rootparams.results.aggregate import derive_metrics

    reps = pd.DataFrame({"cache_learning_entries": [100, -1, None], "events_read": [1000, 1000, 1000]})
    share = derive_metrics(reps)["cache_learning_share"]
    assert share.iloc[0] == pytest.approx(0.1) and share.iloc[1:].isna().all()
