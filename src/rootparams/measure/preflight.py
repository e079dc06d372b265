"""The programs a study needs besides Python, checked before its first job.

A study runs programs that do not come with the Python environment: g++ (the C++ build), fio (the storage
primitives), 7-Zip (this host's CPU rating, for the model), a system monitor (dool, installed with the project, or
dstat) and, for the remote storage profiles, an XRootD server, its client and a latency proxy. Without this check a
missing one is found when its job fails, which may be an hour into a study. ``missing_tools`` lists every one the
configured run will use and cannot find, and ``check_tools`` stops with all of them in one message: what each is
for, what to install on Debian/Ubuntu (apt-get) and on RHEL-family systems such as AlmaLinux, Rocky or CentOS Stream
(dnf), and, where the study can do without it, which setting does.

The workflow calls it when it starts (``onstart``: not on a dry run), with the rules it is about to run, so that a
rerun that has nothing left to build or measure needs no compiler or fio. The other half of the preflight, whether
the study's files fit on the disk, is ``rootparams.study.footprint``.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rootparams.errors import UserError
from rootparams.host.monitor import monitor_candidates
from rootparams.host.storage import resolve_profile
from rootparams.measure.cpureference import SEVEN_ZIP_NAMES
from rootparams.study.config import used_storage_profiles

# The workflow's rules that run each program (workflow/rules/*.smk; tests/test_preflight.py checks that they exist).
_BUILD_RULE = "build_cxx"
_MEASURE_RULE = "measure_block"
_STORAGE_PRIMITIVES_RULE = "storage_primitives"
_REMOTE_PRIMITIVES_RULE = "remote_primitives"
_CPU_REFERENCE_RULE = "cpu_reference"


@dataclass(frozen=True)
class Tool:
    """A program the study runs: any of ``commands`` will do."""

    name: str
    commands: tuple[str, ...]
    used_for: str
    rules: tuple[str, ...]  # the workflow's rules that run it
    debian: str  # how to install it on Debian/Ubuntu
    rhel: str  # ... and on RHEL-family systems (dnf)
    without: str = ""  # the setting that makes the study do without it, if there is one
    env: str = ""  # an environment variable that may name the executable instead of PATH

    def line(self) -> str:
        text = f"{self.name}: {self.used_for}. Debian/Ubuntu: {self.debian}; RHEL, AlmaLinux, Rocky (dnf): {self.rhel}"
        if self.env:
            text += f"; or set {self.env} to the path of one you have"
        return f"{text}. {self.without}" if self.without else text


class MissingToolsError(UserError):
    """Programs the study will run are not installed."""


def _monitor_tool(choice: str) -> Tool:
    names = tuple(monitor_candidates(choice))
    said = " and ".join(names)
    return Tool(
        name=f"measurement.monitor = {choice!r}, but {said} {'is' if len(names) == 1 else 'are'} not on PATH",
        commands=names,
        used_for="the system monitor samples CPU, disk and memory once a second during the timed reads",
        rules=(_MEASURE_RULE,),
        debian="dool comes with the project's environment (./run installs it; pip install dool==1.3.8), "
        "or apt-get install dstat",
        rhel="the same dool (pip install dool==1.3.8), or dnf install pcp-system-tools for dstat",
        without="Or set measurement.monitor: none to measure without system samples (recorded as such).",
    )


_GXX = Tool(
    name="g++",
    commands=("g++",),
    used_for="compiles the xAOD-like classes' dictionaries and the C++ writer and reader, once per checkout",
    rules=(_BUILD_RULE,),
    debian="apt-get install g++",
    rhel="dnf install gcc-c++",
)
_FIO = Tool(
    name="fio",
    commands=("fio",),
    used_for="measures this host's storage primitives (bandwidth, IOPS, latency), from which the model of the "
    "timed loop predicts each read",
    rules=(_STORAGE_PRIMITIVES_RULE,),
    debian="apt-get install fio",
    rhel="dnf install fio",
    without="Or set measurement.primitives: false (no storage primitives and no model of the timed loop).",
)
_SEVEN_ZIP = Tool(
    name="7-Zip (7z, 7za or 7zz)",
    commands=SEVEN_ZIP_NAMES,
    used_for="rates this host's CPU by its one-thread benchmark, which scales the model's CPU parts to the "
    "note's testbed and other machines",
    rules=(_CPU_REFERENCE_RULE,),
    debian="apt-get install p7zip-full",
    rhel="dnf install p7zip (from EPEL: dnf install epel-release first)",
    without="Or set measurement.warm_reads: 0 or measurement.primitives: false (no model of the timed loop).",
)
_XROOTD = Tool(
    name="xrootd",
    commands=("xrootd",),
    used_for="serves the files to the reader over root:// for the remote storage profiles (xrootd-*)",
    rules=(_MEASURE_RULE, _REMOTE_PRIMITIVES_RULE),
    debian="apt-get install xrootd-server xrootd-client (or tools/install-remote)",
    rhel="dnf install xrootd-server xrootd-client (from EPEL)",
    without="Or leave out the remote storage profiles.",
)
_TOXIPROXY = Tool(
    name="toxiproxy-server",
    commands=("toxiproxy-server",),
    used_for="adds the round-trip time and bandwidth limit of the remote profiles that have them",
    rules=(_MEASURE_RULE, _REMOTE_PRIMITIVES_RULE),
    debian="tools/install-remote (builds it with Go >= 1.23)",
    rhel="the same tools/install-remote (its Go build; install xrootd with dnf as above)",
    without="Or read on xrootd-local only, which has no proxy.",
    env="ROOTPARAMS_TOXIPROXY",
)
_XRDCP = Tool(
    name="xrdcp",
    commands=("xrdcp",),
    used_for="copies the files to your own XRootD endpoint (a storage profile with remote_url and copy: true)",
    rules=(_MEASURE_RULE, _REMOTE_PRIMITIVES_RULE),
    debian="apt-get install xrootd-client",
    rhel="dnf install xrootd-client (from EPEL)",
    without="Or copy the files there yourself and set copy: false.",
)


def _needed_tools(study: Mapping[str, Any]) -> list[Tool]:
    """Every program the study ``study`` (validated, as the workflow runs it) can run, in the order of its jobs."""
    measurement = study["measurement"]
    tools = [_GXX]
    if measurement["monitor"] != "none":
        tools.append(_monitor_tool(measurement["monitor"]))
    if measurement["primitives"]:
        tools.append(_FIO)
        if measurement["warm_reads"]:
            tools.append(_SEVEN_ZIP)
    custom = measurement["storage_profiles"]
    profiles = [
        resolve_profile(name, custom) for name in dict.fromkeys(p for _, p in used_storage_profiles(study))
    ]
    if any(p.access == "xrootd" for p in profiles):
        tools.append(_XROOTD)
    if any(p.access == "xrootd" and p.needs_proxy for p in profiles):
        tools.append(_TOXIPROXY)
    if any(p.access == "endpoint" and p.copy for p in profiles):
        tools.append(_XRDCP)
    return tools


def _found(tool: Tool, path: str, env: Mapping[str, str]) -> bool:
    if tool.env and (named := env.get(tool.env)):
        return os.access(named, os.X_OK) and Path(named).is_file()
    return any(shutil.which(command, path=path) for command in tool.commands)


def _search_path(path: str | None = None, python_bin: str | Path | None = None) -> str:
    """Where the programs are looked for: PATH, then the directory of the running Python (the project's
    environment, where dool and tools/install-remote's toxiproxy-server are, even when it is not activated)."""
    path = os.environ.get("PATH", "") if path is None else path
    python_bin = Path(sys.executable).parent if python_bin is None else Path(python_bin)
    return os.pathsep.join(filter(None, [path, str(python_bin)]))


def _missing_tools(
    study: Mapping[str, Any],
    rules: Collection[str] | None = None,
    path: str | None = None,
    python_bin: str | Path | None = None,
    env: Mapping[str, str] | None = None,
) -> list[Tool]:
    """The programs of ``needed_tools`` that are not installed, for the rules ``rules`` the run is about to run
    (None: all of them). ``path``, ``python_bin`` and ``env`` stand for PATH, the running Python's directory and
    the environment (the tests give their own)."""
    where = _search_path(path, python_bin)
    env = os.environ if env is None else env
    return [
        tool
        for tool in _needed_tools(study)
        if (rules is None or set(tool.rules) & set(rules)) and not _found(tool, where, env)
    ]


def message(missing: list[Tool], where: str) -> str:
    lines = [
        f"this study runs {len(missing)} program(s) that are not installed on this machine (looked for on PATH "
        f"and in {where}):",
        *(f"  - {tool.line()}" for tool in missing),
        "./run installs fio and 7-Zip itself when it runs as root (apt-get or dnf). Nothing was run.",
    ]
    return "\n".join(lines)


def rules_to_run(workflow: Any) -> set[str] | None:
    """The rules of the jobs a Snakemake run is about to start (its DAG's jobs that need to run), or None (all
    rules) where the workflow object does not say."""
    try:
        return {job.rule.name for job in workflow.dag.needrun_jobs()}
    except AttributeError:
        return None


def check_tools(
    study: Mapping[str, Any],
    rules: Collection[str] | None = None,
    local: bool = True,
    say: Callable[[str], None] = lambda text: print(text, file=sys.stderr),
    path: str | None = None,
    python_bin: str | Path | None = None,
) -> None:
    """Stop (MissingToolsError) if any program the run will use is missing, naming all of them. With ``local``
    false (the jobs run on a cluster's nodes, not here) the same list is only said, as a warning: the nodes may
    have what this host lacks."""
    missing = _missing_tools(study, rules, path=path, python_bin=python_bin)
    if not missing:
        return
    text = message(missing, str(_search_path("", python_bin)))
    if local:
        raise MissingToolsError(text)
    say(
        "rootparams: warning: checked on this host only; the jobs run on the cluster's nodes, which need these: "
        + text.replace(" Nothing was run.", "")
    )
