"""The workflow on a real Slurm: a single-node cluster (tests/cluster/start-slurm) runs the tiny study
through profiles/slurm (snakemake-executor-plugin-slurm). Every job must really go through Slurm, and the
results must have the same structure as a local run of the same config. The HTCondor profile can only be
dry-run here (Debian has no HTCondor)."""

import os
import re
import shutil
import subprocess

import pandas as pd
import pytest
import yaml
from conftest import REPO, TINY, require, set_threads, snakemake, tiny_targets

from rootparams.tools import paths

SLURM_PROFILE = REPO / "profiles" / "slurm"

# What the tests compare: the measuring chain and one of each kind of output after it (a table, the run summary,
# the recommendations and a figure), not every figure (test_full_dag draws them all). Each Slurm job is a
# Snakemake process of its own, so every job left out saves its start-up and a status check.
TARGETS = [
    paths.FILES_TABLE,
    paths.REPETITIONS_TABLE,
    paths.SUMMARY_TABLE,
    paths.table1("xaod", "csv"),
    paths.RUN_SUMMARY,
    paths.RECOMMENDATIONS,
    paths.figure("fig01_rate_vs_compression", "png"),
]


def _copy_build(build, workdir):
    shutil.copytree(
        build["info"].parent, workdir / paths.BUILD
    )  # the session's C++ build, not compiled again


@pytest.fixture(scope="module")
def slurm_run(tmp_path_factory, build):
    require(os.geteuid() == 0, "root, to start a single-node Slurm (tests/cluster/start-slurm)")
    start = subprocess.run([str(REPO / "tests" / "cluster" / "start-slurm")], capture_output=True, text=True)
    require(start.returncode == 0, f"a running single-node Slurm; start-slurm said:\n{start.stderr[-2000:]}")
    workdir = tmp_path_factory.mktemp("slurm")
    _copy_build(build, workdir)
    # --slurm-no-account: the test cluster has no accounting; everything else comes from the profile.
    # The plugin checks the jobs' status after --slurm-init-seconds-before-status-checks, then at intervals
    # that grow by 10 s while no job has finished, back to the initial seconds once one has. At 5 s, each job
    # of 6-9 s (a Snakemake of its own) was seen finished 20 s after it was submitted (six stages: 120 s in
    # CI); at 2 s, after 14 s.
    snakemake(
        workdir,
        *TARGETS,
        "--profile",
        str(SLURM_PROFILE),
        "--slurm-no-account",
        "--configfile",
        TINY,
        "--config",
        f"data_dir={workdir / 'data'}",
        "--slurm-keep-successful-logs",
        "--slurm-init-seconds-before-status-checks",
        "2",
        # The writes on one thread, as in the local run this one is compared with (conftest.set_threads): the
        # generation of the sentinel's file and the write noise then share the node's 2 CPUs instead of taking
        # turns (about 14 s). A --set-threads given here replaces the profile's own, which it so repeats.
        *set_threads(**yaml.safe_load((SLURM_PROFILE / "config.yaml").read_text())["set-threads"]),
    )
    return workdir


@pytest.fixture(scope="module")
def local_run(tiny_run):
    # The session's local run of the same config (tests/conftest.py), which makes everything TARGETS name.
    assert set(TARGETS) <= set(tiny_targets())
    return tiny_run


def test_the_jobs_ran_under_slurm(slurm_run):
    reps = pd.read_csv(slurm_run / paths.REPETITIONS_TABLE)
    assert len(reps) == 1
    assert (
        reps["slurm_job_id"].notna().all() and (reps["slurm_job_id"].astype(str).str.fullmatch(r"\d+")).all()
    )
    assert (reps["slurm_node"] == reps["host"]).all()  # the node that ran the read is recorded
    # The plugin's per-job logs: one per submitted job, named by rule (kept with --slurm-keep-successful-logs).
    logs = " ".join(str(p) for p in (slurm_run / ".snakemake" / "slurm_logs").rglob("*.log"))
    # The study's one file is also the drift sentinel's, written by generate_sentinel_file (kept for later runs).
    assert "measure_block" in logs and re.search(r"generate_(sentinel_)?file", logs), logs
    # Tables, figures and summaries are local rules (Snakefile): they run beside Snakemake, not as Slurm jobs.
    assert not re.search(r"tabulate_repetitions|run_summary|recommendations|figure", logs), logs


def test_slurm_results_have_the_structure_of_a_local_run(slurm_run, local_run):
    for table in TARGETS[:4]:
        cluster, local = pd.read_csv(slurm_run / table), pd.read_csv(local_run / table)
        assert set(cluster.columns) == set(local.columns), table
        assert len(cluster) == len(local), table
    for path in TARGETS[4:]:
        assert (slurm_run / path).stat().st_size > 0


def test_htcondor_profile_dry_runs(tmp_path):
    proc = snakemake(tmp_path, "--profile", str(REPO / "profiles" / "htcondor"), "--configfile", TINY, "-n")
    assert "measure_block" in proc.stdout and re.search(r"generate_(sentinel_)?file", proc.stdout)
