"""Which test modules may run beside other tests, and the lock and the pytest-xdist scheduler that keep every
other module's tests alone on the machine.

`./run tests` runs the suite on several pytest-xdist workers (up to 4, one per core). Two thirds of its time go to
tests whose result depends on having the machine to themselves: studies with timed reads under dool (a test
beside them would get their reads flagged busy, and the assertions on a study's records with it), page-cache
eviction verified with mincore, cgroup throttles, Slurm, the remote endpoints, CPU references, process kills
with deadlines. The other third checks values, not times: computations, ROOT files written and read back and
compared, recompressions, inspections. Those can run beside one another.

- BESIDE_OTHERS names the modules of the second kind. While one of their tests runs (setup, call and
  teardown: a module fixture is made in its first test's setup), it holds the turn lock shared.
- A test of any other module holds the turn lock exclusively: no other test of the suite runs while it does.
  A module not named runs alone: a new module is safe by default, and is named here once it is known to check
  no time and to share nothing with the machine's other tests.
- The scheduler (``pytest_xdist_make_scheduler``) hands out the BESIDE_OTHERS modules one module at a time to
  the workers, in the order of the collection (tests/conftest.py puts them first), then every other module as
  one unit to one worker: their session fixtures (the tiny and the full study, the Slurm cluster) are made
  once, as without workers, and they wait for no lock but the one the last modules beside them hold.

Without workers (``-n 0``, a single test) the lock is never contended and the order is the same.
"""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

# RUN_FIRST: modules of computations alone (tables, grids, plans, decisions, models, figures drawn in this
# process, the import layers; test_applying's hadd and ROOT scripts are not timed either): no C++ tool of
# the build, no study, no timed read, nothing that waits on the clock. They run first, beside the session's
# C++ build (tests/conftest.py), in their alphabetical order; each module stays whole, so that its module
# fixtures are made once.
RUN_FIRST = frozenset(
    {
        "test_adaptive.py",
        "test_aggregate.py",
        "test_applying.py",
        "test_blockplan.py",
        "test_blocks.py",
        "test_config.py",
        "test_decision.py",
        "test_figures.py",
        "test_grid.py",
        "test_hostmemory.py",
        "test_import_layers.py",
        "test_instrument_checks.py",
        "test_intervals.py",
        "test_model.py",
        "test_outputs.py",
        "test_recommend.py",
        "test_run_summary.py",
        "test_scans.py",
        "test_studyfiles.py",
        "test_tables.py",
    }
)

# Modules that check values, not times, and share nothing with the machine's other tests (no timed read, no
# eviction of a file another test reads, no drop_caches, no cgroup, no Slurm, no fixed port, no process kill):
# the computations, then ROOT files written, read, rewritten and inspected and their values compared, dry runs
# of the workflow and the linters.
BESIDE_OTHERS = RUN_FIRST | frozenset(
    {
        "test_branch_compression.py",
        "test_bulk.py",
        "test_calibrate.py",
        "test_cli.py",
        "test_footprint.py",
        "test_formats.py",
        "test_inspect.py",  # its XRootD server listens on a free port
        "test_lossy_floats.py",
        "test_monitor.py",
        "test_public_samples.py",
        "test_quality.py",
        "test_reader_rdataframe.py",
        "test_reader_selection.py",
        "test_real_files_read.py",
        "test_recompress.py",
        "test_rewrite.py",
        "test_sources.py",
        "test_unzipkinds.py",  # its timed comparisons are in benchmarks/timed_checks.py
        "test_uproot_read.py",  # evicts its own file only (fadvise), which no other test reads
        "test_vocabulary.py",
    }
)

ALONE = "the modules that run alone"  # their scheduling unit


def beside_others(item: pytest.Item) -> bool:
    return item.path.name in BESIDE_OTHERS


def shared_dir(config: pytest.Config) -> Path:
    """A directory every worker of this session sees: the session's base temporary directory (a worker's is
    a directory in it)."""
    base = config._tmp_path_factory.getbasetemp()  # pytest's own tmp_path_factory (its tmpdir plugin)
    return base.parent if hasattr(config, "workerinput") else base


@contextmanager
def locked(path: Path, shared: bool = False) -> Iterator[None]:
    """``path`` locked (flock) for the block, shared or exclusively; the lock goes with the process."""
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    with locked(shared_dir(item.config) / "turn.lock", shared=beside_others(item)):
        return (yield)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    from xdist.scheduler import LoadScopeScheduling

    class TurnScheduling(LoadScopeScheduling):
        """Each BESIDE_OTHERS module a unit, handed out in the collection's order; the other modules one unit
        after them (see the module's docstring)."""

        def __init__(self, config: pytest.Config, log=None) -> None:
            super().__init__(config, log)
            # xdist orders the units by their number of tests: the unit of every module that runs alone, the
            # largest, would go first and hold back every worker but one from the start.
            config.option.loadscopereorder = False

        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return module if Path(module).name in BESIDE_OTHERS else ALONE

    return TurnScheduling(config, log)
