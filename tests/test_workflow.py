"""The whole chain through Snakemake on the tiny config (the session's ``tiny_run``, tests/conftest.py):
build, generate, evict + verify, timed read under PerfStats and dool, tables, summary, report (the unzip-kinds
primitive is checked on the full study, tests/test_full_dag.py). Plus: a rerun with more repetitions (on a
copy of the study, which the other tests only read), and a bad config stops before any job."""

import json
import shutil

import pandas as pd
from conftest import REPO, TINY, snakemake, tiny_targets

from rootparams.tools import paths

REQUIRED_REPETITION_COLUMNS = [
    "format",
    "algorithm",
    "level",
    "autoflush",
    "split_level",
    "cache_size",
    "learn_entries",
    "threads",
    "rep",
    "process_start_time",
    "loop_start_time",
    "end_time",
    "resident_fraction_before",
    "event_rate_hz",
    "note_window_event_rate_hz",
    "loop_read_calls",
    "loop_bytes_read",
    "loop_io_share",
    "loop_valid",
    "peak_rss_bytes",
    "flagged",
    "eviction_method",
    "monitor",
    "cache_state",
    "storage_profile",
    "host",
    "reader_process",
    "storage_to_root_bytes_ratio",
]


def test_every_stage_produced_its_output(tiny_run):
    for path in tiny_targets():  # what the session's tiny study was run to
        assert (tiny_run / path).stat().st_size > 0, path
    root_files = list((tiny_run / "data" / "files" / "xaod").glob("*.root"))
    assert len(root_files) == 1


def test_the_run_summary_says_where_a_newcomer_looks_first(tiny_run):
    text = (tiny_run / paths.RUN_SUMMARY).read_text()
    assert "**Paper-grade: no**" in text  # one repetition of a 20-event file
    assert "**Look first** at report.html" in text and "./run study" in text


def test_the_file_has_a_real_collection_tree(tiny_run):
    files = pd.read_csv(tiny_run / paths.FILES_TABLE)
    assert len(files) == 1
    row = files.iloc[0]
    assert (row["format"], row["algorithm"], row["level"], row["autoflush"], row["split_level"]) == (
        "xaod",
        "zlib",
        5,
        100,
        0,
    )
    assert (row["algorithm_in_file"], row["level_in_file"], row["autoflush_in_file"]) == ("zlib", 5, 100)
    assert row["events"] == 20 and row["top_level_branch_count"] > 100 and row["size_bytes"] > 0


def test_repetition_record_is_complete_and_plausible(tiny_run):
    reps = pd.read_csv(tiny_run / paths.REPETITIONS_TABLE)
    files = pd.read_csv(tiny_run / paths.FILES_TABLE)
    assert len(reps) == 1
    missing = [c for c in REQUIRED_REPETITION_COLUMNS if c not in reps.columns]
    assert not missing, missing
    rep = reps.iloc[0]
    assert rep["resident_fraction_before"] == 0.0  # verified cold
    assert rep["cache_state"] == "cold" and rep["eviction_method"] in ("drop_caches", "fadvise")
    assert 0 < rep["loop_bytes_read"] <= files.iloc[0]["size_bytes"]
    assert rep["loop_read_calls"] > 0 and rep["event_rate_hz"] > 0 and rep["events_read"] == 20
    assert rep["loop_start_time"] < rep["end_time"] and rep["monitor"] == "dool"
    assert rep["mon_monitor_samples"] >= 1 and rep["complete"]  # dool sampled the loop
    assert rep["reader_process"] == "fork" and rep["loop_io_share"] > 0.9
    assert rep["rss_baseline_bytes"] > 0 and rep["peak_rss_bytes"] >= rep["rss_baseline_bytes"]


def test_monitor_samples_are_kept_raw_and_labelled(tiny_run):
    samples = pd.read_csv(tiny_run / paths.MONITOR_TABLE)
    assert {
        "epoch",
        "cpu_usr_pct",
        "disk_read_bytes_per_s",
        "mem_used_bytes",
        "page_in_per_s",
        "block",
    } <= set(samples.columns)
    assert len(samples) >= 3


def test_summary_and_provenance(tiny_run):
    summary = pd.read_csv(tiny_run / paths.SUMMARY_TABLE)
    assert len(summary) == 1 and summary.iloc[0]["n"] + summary.iloc[0]["n_flagged"] == 1
    provenance = json.loads((tiny_run / paths.PROVENANCE).read_text())
    for key in (
        "cpu_model",
        "logical_cores",
        "memory_bytes",
        "storage",
        "kernel",
        "root_version",
        "python",
        "snakemake",
        "dool",
        "config_hash",
    ):
        assert key in provenance, key
    assert provenance["root_version"] == "6.40.00"


def test_rerun_with_more_repetitions_adds_only_the_new_ones(tiny_run, tmp_path):
    # On a copy of the study (the session's ``tiny_run`` is read by other modules too), with the same data_dir
    # (a parameter of the jobs: only the repetitions change), whose file the rerun reads again.
    rerun = tmp_path / "tiny"
    shutil.copytree(tiny_run, rerun)
    first = json.loads((rerun / paths.repetition_record("xaod", *_ids(rerun), 0)).read_text())
    snakemake(
        rerun,
        paths.REPETITIONS_TABLE,  # what is checked here; the figures would follow from it
        "--configfile",
        TINY,
        "--config",
        f"data_dir={tiny_run / 'data'}",
        "repetitions=2",
        "--cores",
        "2",
    )
    again = json.loads((rerun / paths.repetition_record("xaod", *_ids(rerun), 0)).read_text())
    assert again["loop_start_time"] == first["loop_start_time"]  # repetition 0 was not redone
    reps = pd.read_csv(rerun / paths.REPETITIONS_TABLE)
    assert sorted(reps["rep"]) == [0, 1]
    windows = reps.sort_values("process_start_time")
    assert (
        windows["process_start_time"].iloc[1:].to_numpy() >= windows["end_time"].iloc[:-1].to_numpy()
    ).all()
    assert len(pd.read_csv(tiny_run / paths.REPETITIONS_TABLE)) == 1  # the session's study is as it was


def test_html_report(tiny_run):
    # The report of what the study made (tests/test_full_dag.py makes the report of every output of a study).
    snakemake(
        tiny_run,
        *tiny_targets(),
        "--configfile",
        TINY,
        "--config",
        f"data_dir={tiny_run / 'data'}",
        "--report",
        "report.html",
    )
    assert (tiny_run / "report.html").stat().st_size > 100_000


def _ids(workdir):
    record = next((workdir / "results" / "repetitions" / "xaod").glob("*/*/rep0.json"))
    return record.parent.parent.name, record.parent.name


def test_bad_config_stops_before_any_job(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("repetitons: 3\nformats:\n  xaod: {written: 10, read: 20}\nscans:\n  c: {level: [12]}\n")
    proc = snakemake(tmp_path, "--configfile", str(bad), "--cores", "1", check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "did you mean 'repetitions'" in out
    assert "scans.c.level[0] = 12: must be from 1 to 9" in out
    # The message alone: no Snakemake traceback into the workflow's own files after it.
    assert "common.smk" not in out and "Traceback" not in out
    assert not (tmp_path / "results").exists()  # nothing ran


def test_a_configfile_replaces_the_default_study_instead_of_extending_it(tmp_path):
    # Where config/config.yaml exists (a user's repository), --configfile must not inherit its scans.
    (tmp_path / "config").mkdir()
    shutil.copy(REPO / "config" / "config.yaml", tmp_path / "config" / "config.yaml")
    proc = snakemake(tmp_path, "--configfile", TINY, "-n", "--cores", "1")
    assert "rootparams: 1 points" in proc.stderr  # tiny.yaml: one format, no scans
    import yaml

    from rootparams.study.config import load_study_config
    from rootparams.study.grid import expand_points

    default = len(
        expand_points(load_study_config(yaml.safe_load((REPO / "config" / "config.yaml").read_text())))
    )
    proc = snakemake(tmp_path, "--config", "repetitions=2", "-n", "--cores", "1")
    assert f"rootparams: {default} points" in proc.stderr  # no --configfile: the default study, extended


def test_default_config_dry_runs(tmp_path):
    proc = snakemake(tmp_path, "--configfile", str(REPO / "config" / "config.yaml"), "-n", "--cores", "4")
    assert "measure_block" in proc.stdout
