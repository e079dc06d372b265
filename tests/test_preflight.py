"""The programs a study needs, checked before its first job (rootparams.measure.preflight): on a PATH of our own making,
every missing one is named at once with what to install on Debian/Ubuntu and on RHEL-family systems, only the
programs of the rules about to run are asked for, and the workflow stops before any job when one is missing."""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest
import yaml
from conftest import REPO, snakemake

from rootparams.measure import preflight
from rootparams.study.config import load_study_config

TINY = {"repetitions": 1, "require_sigma": False, "formats": {"xaod": {"written": 4, "read": 4}}, "scans": {}}


def fake_bin(tmp_path: Path, *names: str, folder: str = "bin") -> Path:
    """A directory of executables called ``names`` (empty shell scripts)."""
    where = tmp_path / folder
    where.mkdir(exist_ok=True)
    for name in names:
        (where / name).write_text("#!/bin/sh\n")
        (where / name).chmod(0o755)
    return where


def missing(study, tmp_path, *on_path, rules=None, env=None):
    """The names of the programs missing on a PATH that holds only ``on_path``."""
    where = fake_bin(tmp_path, *on_path, folder="bin-" + "-".join(on_path))
    empty = tmp_path / "python-bin"
    empty.mkdir(exist_ok=True)
    tools = preflight._missing_tools(study, rules, path=str(where), python_bin=empty, env=env or {})
    return [t.name for t in tools]


@pytest.fixture(scope="module")
def default_study():
    return load_study_config(yaml.safe_load((REPO / "config" / "config.yaml").read_text()))


def test_the_default_study_names_every_missing_program(default_study, tmp_path):
    names = missing(default_study, tmp_path)
    assert names == [
        "g++",
        "measurement.monitor = 'auto', but dool and dstat are not on PATH",
        "fio",
        "7-Zip (7z, 7za or 7zz)",
    ]
    with pytest.raises(preflight.MissingToolsError) as info:
        preflight.check_tools(default_study, path=str(fake_bin(tmp_path)), python_bin=tmp_path / "python-bin")
    text = str(info.value)
    for expected in (
        "apt-get install g++",
        "dnf install gcc-c++",
        "apt-get install fio",
        "dnf install fio",
        "apt-get install p7zip-full",
        "dnf install p7zip",
        "pip install dool==1.3.8",
        "measurement.monitor: none",
        "measurement.primitives: false",
        "Nothing was run.",
    ):
        assert expected in text, (expected, text)
    # One line per program, each with both families of systems.
    items = [line for line in text.splitlines() if line.startswith("  - ")]
    assert len(items) == 4 and all("Debian/Ubuntu:" in line and "(dnf):" in line for line in items)


def test_nothing_is_missing_when_every_program_is_there(default_study, tmp_path):
    assert missing(default_study, tmp_path, "g++", "dool", "fio", "7za") == []
    # dstat stands in for dool, and 7-Zip's own 7zz for p7zip's 7z.
    assert missing(default_study, tmp_path, "g++", "dstat", "fio", "7zz") == []
    where = fake_bin(tmp_path, "g++", "dool", "fio", "7z")
    preflight.check_tools(default_study, path=str(where), python_bin=tmp_path)  # no error


def test_the_monitor_and_toxiproxy_are_found_beside_the_running_python(default_study, tmp_path):
    # dool comes with the project's environment, which need not be activated (on PATH).
    venv_bin = tmp_path / "venv-bin"
    venv_bin.mkdir()
    (venv_bin / "dool").write_text("#!/bin/sh\n")
    (venv_bin / "dool").chmod(0o755)
    where = fake_bin(tmp_path, "g++", "fio", "7z")
    assert preflight._missing_tools(default_study, path=str(where), python_bin=venv_bin, env={}) == []


def test_only_the_rules_about_to_run_need_their_programs(default_study, tmp_path):
    # A rerun that only tabulates and decides needs none of them; one that builds needs only the compiler.
    assert missing(default_study, tmp_path, rules={"tabulate_repetitions", "decision_tables"}) == []
    assert missing(default_study, tmp_path, rules={"build_cxx"}) == ["g++"]
    assert missing(default_study, tmp_path, "g++", rules={"measure_block", "cpu_reference"}) == [
        "measurement.monitor = 'auto', but dool and dstat are not on PATH",
        "7-Zip (7z, 7za or 7zz)",
    ]


def test_what_the_configuration_leaves_out_is_not_asked_for(tmp_path):
    study = load_study_config({**TINY, "measurement": {"monitor": "none", "primitives": False}})
    assert missing(study, tmp_path) == ["g++"]
    study = load_study_config({**TINY, "measurement": {"monitor": "dstat", "warm_reads": 0}})
    assert missing(study, tmp_path, "g++", "dool") == [
        "measurement.monitor = 'dstat', but dstat is not on PATH",
        "fio",
    ]


def test_remote_profiles_need_the_server_the_proxy_or_the_client(tmp_path):
    base = {**TINY, "measurement": {"monitor": "none", "primitives": False}}
    here = ("g++",)

    def with_profiles(*profiles, custom=None):
        config = {**base, "scans": {"remote": {"storage_profile": ["native", *profiles]}}}
        if custom:
            config["measurement"] = {**base["measurement"], "storage_profiles": custom}
        return load_study_config(config)

    assert missing(with_profiles("xrootd-local"), tmp_path, *here) == ["xrootd"]
    assert missing(with_profiles("xrootd-local", "xrootd-wan"), tmp_path, *here) == [
        "xrootd",
        "toxiproxy-server",
    ]
    assert missing(with_profiles("xrootd-wan"), tmp_path, *here, "xrootd", "toxiproxy-server") == []
    # toxiproxy-server named by the variable tools/install-remote's users may set
    proxy = fake_bin(tmp_path, "my-proxy") / "my-proxy"
    wan = with_profiles("xrootd-wan")
    assert missing(wan, tmp_path, *here, "xrootd", env={"ROOTPARAMS_TOXIPROXY": str(proxy)}) == []
    assert missing(wan, tmp_path, *here, "xrootd", env={"ROOTPARAMS_TOXIPROXY": "/nowhere"}) == [
        "toxiproxy-server"
    ]
    # A user's own endpoint: no server of ours, but xrdcp where the files are copied there.
    mine = {"site": {"remote_url": "root://eos.example.org//data/", "copy": True}}
    assert missing(with_profiles("site", custom=mine), tmp_path, *here) == ["xrdcp"]
    mine = {"site": {"remote_url": "root://eos.example.org//data/", "copy": False}}
    assert missing(with_profiles("site", custom=mine), tmp_path, *here) == []


def test_on_a_cluster_the_list_is_a_warning(default_study, tmp_path):
    said = []
    preflight.check_tools(
        default_study, local=False, say=said.append, path=str(fake_bin(tmp_path)), python_bin=tmp_path
    )
    assert len(said) == 1 and "cluster's nodes" in said[0] and "fio" in said[0]


def test_the_rules_named_exist_in_the_workflow():
    rules = set(
        re.findall(
            r"^(?:rule|checkpoint) (\w+):",
            "\n".join(p.read_text() for p in (REPO / "workflow" / "rules").glob("*.smk")),
            re.MULTILINE,
        )
    )
    named = {
        preflight._BUILD_RULE,
        preflight._MEASURE_RULE,
        preflight._STORAGE_PRIMITIVES_RULE,
        preflight._REMOTE_PRIMITIVES_RULE,
        preflight._CPU_REFERENCE_RULE,
    }
    assert named <= rules, named - rules


def test_a_missing_program_stops_the_workflow_before_any_job(tmp_path):
    # The shell tools Snakemake needs and the project's environment (dool, snakemake) on PATH; no compiler and no fio
    # (/usr/bin, where they may be installed, is not on it). No warm reads: no 7-Zip asked for.
    tools = tmp_path / "shell"
    tools.mkdir()
    for tool in ("bash", "sh", "which"):
        (tools / tool).symlink_to(shutil.which(tool))
    (tmp_path / "study.yaml").write_text(yaml.safe_dump(TINY))
    proc = snakemake(
        tmp_path,
        "--configfile",
        str(tmp_path / "study.yaml"),
        "--cores",
        "1",
        check=False,
        env={"PATH": f"{tools}:{Path(sys.executable).parent}"},
    )
    assert proc.returncode != 0, proc.stdout + proc.stderr
    for expected in ("g++: compiles", "fio: measures", "dnf install gcc-c++", "apt-get install fio"):
        assert expected in proc.stderr, (expected, proc.stderr[-3000:])
    assert "but dool and dstat are not on PATH" not in proc.stderr  # dool is beside the running Python
    assert not (tmp_path / "results").exists()
