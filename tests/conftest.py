"""Shared fixtures: one C++ build per test session, placed where the workflow tests also find it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from turns import (  # the two hooks: every test takes its turn on the machine (tests/turns.py)
    BESIDE_OTHERS,
    RUN_FIRST,
    locked,
    pytest_runtest_protocol,  # noqa: F401
    pytest_xdist_make_scheduler,  # noqa: F401
    shared_dir,
)

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def require(condition: bool, why: str) -> None:
    """Skip locally when an optional piece is missing, but fail in CI: CI must never skip silently."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"required in CI: {why}")
    pytest.skip(why)


def config_problems(raw) -> list[str]:
    """The problems a configuration's validation names (it must fail)."""
    from rootparams.study.config import ConfigError, load_study_config

    with pytest.raises(ConfigError) as info:
        load_study_config(raw)
    return info.value.problems


# The session's C++ build (~50 s on 2 cores) starts in a thread of its own as soon as the tests are
# collected, when one of them needs it, so that the tests run before the first of those (RUN_FIRST) share
# its time instead of adding theirs to it. Only the tests of BESIDE_THE_BUILD run while it compiles:
# computations in this process (plans, tables, decisions), which it only slows. Before any other test the
# session waits for the build to end (pytest_runtest_setup): a timed read beside a compiler would be flagged
# as a busy machine, and a test may use the C++ tools without asking for `build` (a study copies the
# session's build). The `build` fixture waits for it too, and raises its error.
#
# With pytest-xdist workers (tests/turns.py) the first worker's thread builds, in a directory they share,
# and the others' threads wait for it: one compilation per session, copied into each worker's `workdir`.
BESIDE_THE_BUILD = RUN_FIRST | {"test_advise.py"}


def _build_once(shared: Path, workdir: Path) -> None:
    """The session's build, made once in ``shared`` (by the first of the workers to get there; the others wait
    for it), copied into ``workdir`` where the workflow expects it. A copy works where the build does not
    move: ROOT reads the dictionary's header from the path it was built with, which stays (a study's copy of
    the session's build is made the same way)."""
    from rootparams.tools import paths
    from rootparams.tools.build import build_all

    once = shared / "build-once"
    with locked(shared / "build.lock"):
        if not (once / paths.BUILD_INFO).exists():  # written last: a complete build
            build_all(once / paths.BUILD)
    shutil.copytree(once / paths.BUILD, workdir / paths.BUILD, symlinks=True)


class _BackgroundBuild:
    """_build_once into ``workdir`` in a thread: ``wait`` for its end; ``error``: what it raised, or None."""

    def __init__(self, shared: Path, workdir: Path):
        self.workdir = workdir
        self.error: Exception | None = None

        def run() -> None:
            try:
                _build_once(shared, workdir)
            except Exception as error:  # raised by the `build` fixture, in the first test needing it
                self.error = error

        self._thread = threading.Thread(target=run, name="session C++ build", daemon=True)
        self._thread.start()

    def wait(self) -> None:
        self._thread.join()


_BACKGROUND_BUILD = pytest.StashKey[_BackgroundBuild]()


def _needs_build(item: pytest.Item) -> bool:
    return "build" in getattr(item, "fixturenames", ())


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """RUN_FIRST, then the other modules that may run beside others, then those that run alone (tests/turns.py:
    the scheduler hands the modules out in this order); each module whole."""
    items[:] = [
        *(item for item in items if item.path.name in RUN_FIRST),
        *(item for item in items if item.path.name in BESIDE_OTHERS - RUN_FIRST),
        *(item for item in items if item.path.name not in BESIDE_OTHERS),
    ]


def pytest_collection_finish(session: pytest.Session) -> None:
    config = session.config
    factory = getattr(config, "_tmp_path_factory", None)  # pytest's own tmp_path_factory (its tmpdir plugin)
    if (
        config.option.collectonly
        or session.testsfailed  # collection errors: the session stops before any test
        or factory is None
        or shutil.which("g++") is None  # the `build` fixture says so (require)
        or not any(_needs_build(item) for item in session.items)
    ):
        return
    config.stash[_BACKGROUND_BUILD] = _BackgroundBuild(shared_dir(config), factory.mktemp("workflow"))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    started = item.config.stash.get(_BACKGROUND_BUILD, None)
    if started is not None and (item.path.name not in BESIDE_THE_BUILD or _needs_build(item)):
        started.wait()


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    started = session.config.stash.get(_BACKGROUND_BUILD, None)
    if started is not None:  # a session stopped early (-x, an interrupt) leaves no compiler running
        started.wait()


@pytest.fixture(scope="session")
def workdir(request, tmp_path_factory) -> Path:
    """A Snakemake working directory shared by the session (results/ and data/ live here)."""
    started = request.config.stash.get(_BACKGROUND_BUILD, None)
    return started.workdir if started is not None else tmp_path_factory.mktemp("workflow")


@pytest.fixture(scope="session")
def build(request, workdir) -> dict[str, Path]:
    """The xAOD-like classes, writer, reader, rewriter and recompressor, built once, in the place the workflow expects them."""
    from rootparams.tools import paths

    require(shutil.which("g++") is not None, "g++ is needed to build the C++ parts")
    started = request.config.stash.get(_BACKGROUND_BUILD, None)
    if started is not None and started.workdir == workdir:
        started.wait()
        if started.error is not None:
            raise started.error
    else:
        _build_once(shared_dir(request.config), workdir)
    return {
        "writer": workdir / paths.WRITER_EXE,
        "reader": workdir / paths.READER_EXE,
        "rewriter": workdir / paths.REWRITER_EXE,
        "recompressor": workdir / paths.RECOMPRESSOR_EXE,
        "unzip_kinds": workdir / paths.UNZIP_KINDS_EXE,
        "info": workdir / paths.BUILD_INFO,
    }


def side_by_side(*calls: Callable[[], Any]) -> list[Any]:
    """The results of ``calls``, in their order, made side by side on the cores this process may use; the first
    failure is raised. For a fixture or a test that writes or reads several ROOT files with the C++ tools: each
    call is a process of its own on one core, so that the files are made at once instead of one after another
    (the files and what is checked of them are the same)."""
    with ThreadPoolExecutor(max_workers=len(os.sched_getaffinity(0))) as pool:
        return list(pool.map(lambda call: call(), calls))


RUN3_LIKE_MACRO = REPO / "tests" / "data" / "Run3LikePhysLite.C"
RUN3_LIKE_EVENTS = 50


@pytest.fixture(scope="session")
def run3_like_physlite(tmp_path_factory) -> Path:
    """A tree laid out as a Run-3 PHYSLITE's (tests/data/Run3LikePhysLite.C: DataVector<xAOD::...> interface
    branches at split 0, their collections' streamer info records in the file), 50 events, written by ROOT with
    dictionaries that the reader and the rewriter do not have. About 10 s (ACLiC)."""
    from rootparams.tools import rootenv

    require(shutil.which("g++") is not None, "g++ is needed to compile the Run-3-like file's classes (ACLiC)")
    where = tmp_path_factory.mktemp("run3-like")
    shutil.copy(RUN3_LIKE_MACRO, where / RUN3_LIKE_MACRO.name)
    out = where / "run3_like_physlite.root"
    call = f'{RUN3_LIKE_MACRO.name}+("{out}", {RUN3_LIKE_EVENTS})'
    proc = subprocess.run(
        [str(rootenv.bin_path("root.exe")), "-l", "-b", "-q", call], cwd=where, capture_output=True, text=True
    )
    assert out.exists(), f"{call} wrote nothing:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return out


def snakemake(
    workdir: Path, *args: str, check: bool = True, env: dict | None = None
) -> subprocess.CompletedProcess:
    """Run the workflow in ``workdir`` with this repository's Snakefile."""
    cmd = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d", str(workdir), *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, **(env or {})}, cwd=workdir)
    if check and proc.returncode != 0:
        raise AssertionError(
            f"snakemake failed ({proc.returncode}):\n{proc.stdout[-5000:]}\n{proc.stderr[-8000:]}"
        )
    return proc


# The writes of a test study on one thread each. In a study, generate_file (and its sentinel and unzip-sample
# variants) and write_noise claim 2 threads: ROOT's implicit MT compresses a cluster's baskets in parallel,
# which pays for LZMA and level 9 on files of hundreds of MB. The test studies write files of a few to a few
# hundred events: a write is ROOT's start-up, the event loop and a read back, on one core, and at --cores 2
# a 2-thread write left the other core idle (the full study wrote its 36 files and its write noise one at a
# time, about 70 s). On one thread two of them run side by side. What the tests check does not depend on it:
# the same events are written (implicit MT changes who compresses a basket, not what it holds), no test
# reads a catalogue's write_threads, and the writer's implicit MT is exercised on its own
# (tests/test_branch_compression.py writes LZMA-5 with 2 threads). The timed reads, the storage primitives and
# the unzip kinds still claim every core and run alone.
ONE_THREAD_WRITES = {
    "generate_file": 1,
    "generate_sentinel_file": 1,
    "generate_unzip_sample": 1,
    "write_noise": 1,
}


def set_threads(**more: int) -> tuple[str, ...]:
    """Snakemake's --set-threads for a test study: its writes on one thread each (ONE_THREAD_WRITES), and
    ``more`` (a profile's own set-threads, which a --set-threads on the command line replaces)."""
    threads = {**more, **ONE_THREAD_WRITES}
    return ("--set-threads", *(f"{rule}={n}" for rule, n in threads.items()))


def run_study(
    tmp_path_factory, build: dict[str, Path], config: str, name: str, targets: tuple[str, ...] = ()
) -> Path:
    """The workflow of ``config`` in a fresh directory, with the session's C++ build (not compiled again): the
    whole of it, or what ``targets`` (paths under the working directory) need."""
    from rootparams.tools import paths

    require(shutil.which("dool") is not None, "dool must be on PATH (it is installed with the project)")
    workdir = tmp_path_factory.mktemp(name)
    shutil.copytree(build["info"].parent, workdir / paths.BUILD)
    snakemake(
        workdir,
        *targets,
        "--configfile",
        config,
        "--config",
        f"data_dir={workdir / 'data'}",
        "--cores",
        "2",
        *set_threads(),
    )
    return workdir


# The studies that more than one module reads, each run once per session; the tests only read them. ---------

TINY = str(REPO / "tests" / "configs" / "tiny.yaml")
TINY_FULL = str(REPO / "tests" / "configs" / "tiny_full.yaml")


def tiny_targets() -> tuple[str, ...]:
    """What the tests read of the tiny study (tests/test_workflow.py; tests/test_slurm.py compares its Slurm
    run with it): the measuring chain, every table, the run summary, the recommendations and one figure. Not
    the storage primitives, the unzip-kinds primitive, the other figures and the decision's figures:
    tests/test_full_dag.py runs every output of a study (``full_run``) and checks them. In CI, the storage
    primitives alone took 93 s of the 152 s that every output of the tiny study took; the unzip kinds (its
    sample file written again, then a job that claims every core) a few seconds more."""
    from rootparams.tools import paths

    return (
        paths.PROVENANCE,
        paths.FILES_TABLE,
        paths.REPETITIONS_TABLE,
        paths.MONITOR_TABLE,
        paths.SUMMARY_TABLE,
        paths.RUN_SUMMARY,
        *(paths.table1("xaod", ext) for ext in ("csv", "md", "tex")),
        paths.RECOMMENDATIONS,
        paths.figure("fig01_rate_vs_compression", "png"),
    )


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory, build) -> Path:
    """tests/configs/tiny.yaml (one xAOD point, one repetition, 20 events) up to ``tiny_targets()``, run once
    for the session. Read only: a test that changes the study changes a copy of it."""
    return run_study(tmp_path_factory, build, TINY, "tiny", tiny_targets())


@pytest.fixture(scope="session")
def full_run(tmp_path_factory, build) -> Path:
    """tests/configs/tiny_full.yaml, every output of the study (the default target: tables, figures, decision,
    recommendations and the primitives), run once for the session: tests/test_full_dag.py checks the study,
    tests/test_storage_primitives.py its storage primitives."""
    return run_study(tmp_path_factory, build, TINY_FULL, "full")
