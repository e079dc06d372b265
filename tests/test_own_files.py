"""Your own files through the whole workflow: the real samples of shared/data as they are, recompressed on their own
bytes (no dictionary needed), rewritten by ROOT, and cloned, beside a synthetic format; a rewrite ROOT refuses fails
that point only (docs/formats.md, "Your own files")."""

from __future__ import annotations

import shutil

import pandas as pd
import pytest
import yaml
from conftest import SHARED_DATA, require, set_threads, snakemake

from rootparams.tools import paths

NANOAOD = SHARED_DATA / "cms_nanoaod_2015_ttbar_200ev.root"
PHYSLITE = SHARED_DATA / "atlas_physlite_run2_ttbar_100ev.root"
PHYSLITE_RNTUPLE = SHARED_DATA / "atlas_physlite_rntuple_100ev.root"


def _config(**extra) -> dict:
    return {
        # What is tested is which points are made, refused, measured and recorded: one read each (at two, the
        # five blocks took 28 repetitions, about 0.5 s each in CI).
        "repetitions": 1,
        "require_sigma": False,
        "formats": {
            "truth3": {"written": 200, "read": 200},
            "cms_nanoaod": {"source": str(NANOAOD), "read": 200, "branches": "all"},
            "physlite": {"source": str(PHYSLITE), "read": 100},
            "physlite_rntuple": {"source": str(PHYSLITE_RNTUPLE), "read": 100},
            "nanoaod_clone": {"calibrate": str(NANOAOD), "written": 400, "read": 400, "branches": "all"},
        },
        "scans": {
            # every source's baskets (pages) recompressed at LZ4-4: no dictionary needed, the PHYSLITE's too
            "compression": {"algorithm": ["lz4"], "level": [4]},
            # AutoFlush 1000 is ROOT's rewrite, which refuses the PHYSLITE (its classes have no dictionary here)
            "autoflush": {"formats": ["physlite"], "algorithm": ["zlib"], "level": [5], "autoflush": [1000]},
            "cache": {"formats": ["cms_nanoaod", "physlite_rntuple"], "cache_size": [0, -1]},
            "branches": {"formats": ["physlite", "physlite_rntuple"], "branches": ["particle", "all"]},
        },
        "read_defaults": {"storage_profile": "native"},
        # No memory probe (0.24 s a read) and no drift sentinel (a cold read of truth3's default file at the
        # start and at the end of every block: 5 blocks here): which points are made, refused and measured is
        # tested.
        "measurement": {"attempts": 1, "memory_probe_loads": 0, "sentinel": {"every_seconds": 0}},
        **extra,
    }


def _sources_present():
    require(
        all(p.exists() for p in (NANOAOD, PHYSLITE, PHYSLITE_RNTUPLE)), f"the real samples in {SHARED_DATA}"
    )


@pytest.fixture(scope="module")
def own_run(tmp_path_factory, build):
    _sources_present()
    workdir = tmp_path_factory.mktemp("own-files")
    shutil.copytree(build["info"].parent, workdir / paths.BUILD)  # the session's build, not compiled again
    config = workdir / "own.yaml"
    config.write_text(yaml.safe_dump(_config()))
    before = {p: (p.stat().st_size, p.stat().st_mtime_ns) for p in (NANOAOD, PHYSLITE, PHYSLITE_RNTUPLE)}
    # What the tests read (the decision and the other figures follow from the same tables).
    targets = (
        paths.FILES_TABLE,
        paths.SUMMARY_TABLE,
        paths.REPETITIONS_TABLE,
        paths.RUN_SUMMARY,
        paths.figure("fig02_size_vs_compression", "png"),
    )
    proc = snakemake(workdir, *targets, "--configfile", str(config), "--cores", "2", *set_threads())
    return workdir, proc, before


def test_the_sources_are_never_written_to(own_run):
    _, _, before = own_run
    assert {p: (p.stat().st_size, p.stat().st_mtime_ns) for p in before} == before


def test_the_catalogue_records_each_source_as_it_is_with_its_identity(own_run):
    workdir, _, _ = own_run
    files = pd.read_csv(workdir / paths.FILES_TABLE)
    asis = files[files["origin"] == "asis"].set_index("format")
    assert set(asis.index) == {"cms_nanoaod", "physlite", "physlite_rntuple"}
    assert asis.loc["cms_nanoaod", "path"] == str(NANOAOD)
    assert (
        asis.loc["cms_nanoaod", "events"] == 200
        and asis.loc["cms_nanoaod", "compression_setting_in_file"] == 101
    )
    assert asis.loc["cms_nanoaod", "source_size_bytes"] == NANOAOD.stat().st_size
    assert len(asis.loc["physlite", "source_sha256_head"]) == 64


def test_a_rewrite_is_really_at_its_settings_and_the_refused_one_says_why(own_run):
    workdir, _, _ = own_run
    files = pd.read_csv(workdir / paths.FILES_TABLE).set_index(["format", "file_id"])
    rewrite = files.loc[("cms_nanoaod", "rewrite_lz4-4_af0_basket0")]
    assert rewrite["branch_compression_settings_in_file"] == "404" and rewrite["events"] == 200
    # A compression setting is the source's own baskets recompressed, checked: the PHYSLITE too.
    for fmt, file_id in (("cms_nanoaod", "rewrite_lz4-4_af0_basket0"), ("physlite", "rewrite_lz4-4_af100_basket0"),
                         ("physlite_rntuple", "rewrite_lz4-4_af0_basket0")):  # fmt: skip
        made = files.loc[(fmt, file_id)]
        assert made["rewrite_method"] == "recompress" and pd.isna(made["refused"])
        assert made["recompress_units_compared"] > 0 and made["compression_setting_in_file"] == 404
    refused = files.loc[("physlite", "rewrite_zlib-5_af1000_basket0")]
    assert refused["rewrite_method"] == "root"
    assert str(PHYSLITE) in refused["refused"] and "SIG" in refused["refused_message"]
    summary = (workdir / paths.RUN_SUMMARY).read_text()
    assert "refused** physlite rewrite_zlib-5_af1000_basket0" in summary


def test_every_other_point_was_measured_beside_the_synthetic_format(own_run):
    workdir, _, _ = own_run
    every = pd.read_csv(workdir / paths.SUMMARY_TABLE)
    summary = every[every["status"] == "measured"]
    measured = set(
        zip(summary["format"], summary["file_id"], summary["cache_size"], summary["branches"], strict=True)
    )
    assert ("cms_nanoaod", "asis", 0, "all") in measured and ("cms_nanoaod", "asis", -1, "all") in measured
    assert ("cms_nanoaod", "rewrite_lz4-4_af0_basket0", -1, "all") in measured
    assert ("physlite", "asis", -1, "particle") in measured and ("physlite", "asis", -1, "all") in measured
    assert ("physlite_rntuple", "asis", 0, "particle") in measured
    assert {"truth3", "nanoaod_clone"} <= set(summary["format"])
    assert ("physlite", "rewrite_lz4-4_af100_basket0", -1, "particle") in measured
    assert ("physlite_rntuple", "rewrite_lz4-4_af0_basket0", -1, "particle") in measured
    # The refused rewrite is a row all the same, with its status and reason (never left out).
    refused = every[(every["format"] == "physlite") & (every["file_id"] == "rewrite_zlib-5_af1000_basket0")]
    assert list(refused["status"]) == ["refused"] and str(PHYSLITE) in refused["failure"].iloc[0]
    # A cold read of a source verified its eviction like any other file's.
    reps = pd.read_csv(workdir / paths.REPETITIONS_TABLE)
    lite = reps[(reps["format"] == "physlite") & (reps["file_id"] == "asis")]
    assert (lite["resident_fraction_before"] == 0).all()
    # Figures draw the real files' panels beside the synthetic one.
    assert (workdir / paths.figure("fig02_size_vs_compression", "png")).stat().st_size > 10_000


def test_with_rewrite_failures_fail_the_refused_rewrite_fails_and_every_other_format_finishes(
    tmp_path, build
):
    # A format's points are measured together, in interleaved rounds (one block), so a rewrite that fails stops its
    # own format's timed reads until it is fixed; every other format is measured.
    _sources_present()
    shutil.copytree(build["info"].parent, tmp_path / paths.BUILD)
    raw = _config(rewrite_failures="fail")
    raw["formats"] = {k: v for k, v in raw["formats"].items() if k in ("cms_nanoaod", "physlite")}
    raw["scans"] = {"compression": raw["scans"]["compression"], "autoflush": raw["scans"]["autoflush"]}
    config = tmp_path / "own.yaml"
    config.write_text(yaml.safe_dump(raw))
    proc = snakemake(
        tmp_path,
        paths.SUMMARY_TABLE,
        "--configfile",
        str(config),
        "--cores",
        "2",
        *set_threads(),
        "--keep-going",
        check=False,
    )
    assert proc.returncode != 0
    log = (tmp_path / paths.log("generate", "physlite", "rewrite_zlib-5_af1000_basket0")).read_text()
    assert str(PHYSLITE) in log and "SIG" in log and "branch" in log
    assert not (tmp_path / paths.root_file("data", "physlite", "rewrite_zlib-5_af1000_basket0")).exists()
    for fmt, file_id in (("cms_nanoaod", "asis"), ("cms_nanoaod", "rewrite_lz4-4_af0_basket0")):
        records = list((tmp_path / "results" / "repetitions" / fmt / file_id).rglob("rep*.json"))
        assert records, f"{fmt} {file_id} was not measured"
    assert (tmp_path / paths.block_record("cms_nanoaod")).exists()
    assert not (tmp_path / paths.block_record("physlite")).exists()


def test_points_that_fail_leave_the_study_its_tables_and_report_and_are_listed(
    tmp_path, build, run3_like_physlite
):
    # A source laid out as a Run-3 PHYSLITE: its recompression carries the source's streamer infos, passes its check
    # and is read with 'particle'. The PHYSLITE TTree: its rewrite at another AutoFlush is refused (ROOT cannot
    # rewrite its classes without a dictionary). The PHYSLITE RNTuple: one of its reads fails (a list naming a field
    # the file does not have: the reader refuses it). Both are results: the tables, Table 1, a figure and the run
    # summary are made, and list them with their reasons.
    _sources_present()
    shutil.copytree(build["info"].parent, tmp_path / paths.BUILD)
    raw = {
        "repetitions": 1,
        "require_sigma": False,
        "formats": {
            "run3": {"source": str(run3_like_physlite), "read": 50},
            "physlite": {"source": str(PHYSLITE_RNTUPLE), "read": 20},
            "physlite_tree": {"source": str(PHYSLITE), "read": 20},
        },
        "scans": {
            "compression": {"formats": ["run3"], "algorithm": ["lz4"], "level": [4]},
            "autoflush": {
                "formats": ["physlite_tree"],
                "algorithm": ["zlib"],
                "level": [5],
                "autoflush": [1000],
            },
            "branches": {"formats": ["physlite"], "branches": ["list:NoSuchBranch"]},
        },
        "read_defaults": {"storage_profile": "native"},
        # No memory probe and no drift sentinel (the Run-3-like file as it is, read again at the start and the
        # end of each of the 3 blocks): what is tested is which points fail or are refused, and what is made
        # beside them.
        "measurement": {"attempts": 1, "memory_probe_loads": 0, "sentinel": {"every_seconds": 0}},
    }
    config = tmp_path / "failing.yaml"
    config.write_text(yaml.safe_dump(raw))
    targets = (
        paths.SUMMARY_TABLE,
        paths.POINTS_TABLE,
        paths.RUN_SUMMARY,
        paths.table1("physlite_tree", "md"),
        paths.figure("fig02_size_vs_compression", "png"),
    )
    proc = snakemake(tmp_path, *targets, "--configfile", str(config), "--cores", "2", *set_threads())
    assert all((tmp_path / t).exists() for t in targets)
    summary = pd.read_csv(tmp_path / paths.SUMMARY_TABLE)
    status = {(r.format, r.file_id, r.branches): r for r in summary.itertuples()}
    rewrite = "rewrite_zlib-5_af1000_basket0"
    run3_rewrite_id = next(i for f, i, _ in status if f == "run3" and i.startswith("rewrite_lz4-4_"))
    assert status[("run3", run3_rewrite_id, "particle")].status == "measured"
    assert status[("run3", "asis", "particle")].status == "measured"
    assert status[("physlite", "asis", "particle")].status == "measured"
    assert status[("physlite_tree", "asis", "particle")].status == "measured"
    refused = status[("physlite_tree", rewrite, "particle")]
    assert refused.status == "refused" and refused.n == 0 and not refused.valid
    assert str(PHYSLITE) in refused.failure and "crashed" in refused.failure
    failed = status[("physlite", "asis", "list:NoSuchBranch")]
    assert failed.status == "failed" and not failed.valid
    assert failed.failure.startswith(f"timed read of {PHYSLITE_RNTUPLE} failed")
    assert "'NoSuchBranch' of selection 'list:NoSuchBranch' is not in the" in failed.failure
    assert "Warning in" not in failed.failure and len(failed.failure) < 800
    assert len(summary) == 6  # every point of the study is a row
    points = pd.read_csv(tmp_path / paths.POINTS_TABLE)
    assert sorted(points["status"]) == ["failed", "measured", "measured", "measured", "measured", "refused"]
    files = pd.read_csv(tmp_path / paths.FILES_TABLE).set_index(["format", "file_id"])
    run3_rewrite = files.loc[("run3", run3_rewrite_id)]
    assert run3_rewrite["streamer_infos_missing"] == 0 and run3_rewrite["particle_zip_bytes"] > 0
    assert "particle: same" in run3_rewrite["rewrite_checked_selections"]
    text = (tmp_path / paths.RUN_SUMMARY).read_text()
    assert "## Points that failed or were refused" in text
    assert "**Points not measured**" in text and "1 refused" in text and "1 failed" in text
    assert f"| physlite_tree | {rewrite}" in text and "NoSuchBranch" in text
    # Table 1 (the compression points: the file as it is) is made beside the refusal of another of its points.
    assert "physlite_tree" in (tmp_path / paths.table1("physlite_tree", "md")).read_text()
    assert "2 point(s) not measured" in proc.stderr
