"""The ``rootparams`` command (src/rootparams/cli.py): the console script is installed, each subcommand has its
own --help, and a study started through it runs the workflow without the HTCondor bindings' warning."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import REPO

from rootparams import cli

TINY = str(REPO / "tests" / "configs" / "tiny.yaml")


def rootparams(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    script = Path(sys.executable).parent / "rootparams"  # the console script of pyproject.toml
    assert script.exists(), f"{script} is missing: the package is installed without its console script"
    return subprocess.run([str(script), *args], capture_output=True, text=True, cwd=cwd)


def test_help_lists_the_commands_and_each_has_its_own():
    top = rootparams("--help")
    assert top.returncode == 0
    for command in ("study", "calibrate", "inspect", "hosts"):
        assert command in top.stdout
    study = rootparams("study", "--help")
    assert (
        study.returncode == 0 and "usage: rootparams study" in study.stdout and "--configfile" in study.stdout
    )
    calibrate = rootparams("calibrate", "--help")
    assert calibrate.returncode == 0 and "usage: rootparams calibrate" in calibrate.stdout
    hosts = rootparams("hosts", "--help")
    assert hosts.returncode == 0 and "usage: rootparams hosts" in hosts.stdout
    inspect = rootparams("inspect", "--help")
    assert (
        inspect.returncode == 0
        and "usage: rootparams inspect" in inspect.stdout
        and "--csv" in inspect.stdout
    )


def test_an_unknown_command_names_the_ones_there_are():
    proc = rootparams("advice")
    assert (
        proc.returncode == 2
        and "unknown command 'advice' (did you mean 'advise'?): choose from study, advise, inspect"
        in proc.stderr
    )
    assert rootparams().returncode == 2  # no command: the help, and a failure


def test_a_study_dry_run_has_no_htcondor_warning(tmp_path):
    args = ["-n", "-d", str(tmp_path), "--configfile", TINY, "--config", f"data_dir={tmp_path / 'data'}"]
    proc = rootparams("study", *args)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "measure_block" in out and "CONDOR_CONFIG" not in out
    assert not (tmp_path / "results" / "report.html").exists()  # a dry run writes no report


def test_the_htcondor_warning_is_kept_where_htcondor_is_asked_for(monkeypatch):
    monkeypatch.delenv("PYTHONWARNINGS", raising=False)
    assert "PYTHONWARNINGS" not in cli._snakemake_env(["--profile", "profiles/htcondor"])
    assert cli._snakemake_env(["--cores", "2"])["PYTHONWARNINGS"] == cli._CONDOR_WARNING
    # A user's own filters are kept.
    monkeypatch.setenv("PYTHONWARNINGS", "error::DeprecationWarning")
    assert cli._snakemake_env([])["PYTHONWARNINGS"] == f"error::DeprecationWarning,{cli._CONDOR_WARNING}"
