"""The turns of tests/turns.py on real pytest-xdist workers: a test of a module not named BESIDE_OTHERS runs
while no other test does, the modules named there do run side by side, and the modules that run alone all run
on one worker."""

import json
import subprocess
import sys
import textwrap

from conftest import REPO

# Two modules of each kind, under names tests/turns.py knows: test_formats.py and test_rewrite.py run beside
# others, test_slurm.py and test_workflow.py alone. Each test writes when it started and ended, and where.
_TEST = textwrap.dedent(
    """
    import json, os, time

    import pytest


    @pytest.mark.parametrize("k", range({n}))
    def test_takes_its_time(k, tmp_path_factory):
        start = time.time()
        time.sleep(0.4)
        record = {{"module": __name__, "k": k, "start": start, "end": time.time(),
                   "worker": os.environ.get("PYTEST_XDIST_WORKER")}}
        with open({log!r}, "a") as log:
            log.write(json.dumps(record) + "\\n")
    """
)


def test_alone_means_alone_and_beside_means_side_by_side(tmp_path):
    suite = tmp_path / "suite"
    suite.mkdir()
    log = tmp_path / "times.jsonl"
    (suite / "conftest.py").write_text(
        f"import sys\nsys.path.insert(0, {str(REPO / 'tests')!r})\n"
        "from turns import pytest_runtest_protocol, pytest_xdist_make_scheduler  # noqa: F401\n"
    )
    # The first worker gets test_formats and then the alone modules (xdist gives each worker two units to start
    # with); without the lock they would start while the other worker still runs test_rewrite.
    for module, n in (("test_formats", 2), ("test_rewrite", 8), ("test_slurm", 2), ("test_workflow", 2)):
        (suite / f"{module}.py").write_text(_TEST.format(n=n, log=str(log)))
    modules = ["test_formats.py", "test_rewrite.py", "test_slurm.py", "test_workflow.py"]
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-n",
            "2",
            "-p",
            "no:cacheprovider",
            "-q",
            "--rootdir",
            str(suite),
            *modules,
        ],
        cwd=suite,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    tests = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(tests) == 14
    alone = [t for t in tests if t["module"] in ("test_slurm", "test_workflow")]
    beside = [t for t in tests if t["module"] not in ("test_slurm", "test_workflow")]

    def overlap(a, b):
        return a is not b and a["start"] < b["end"] and b["start"] < a["end"]

    assert not [(a, b) for a in alone for b in tests if overlap(a, b)]
    assert any(overlap(a, b) for a in beside for b in beside)  # two workers did share the beside modules
    assert len({t["worker"] for t in alone}) == 1  # one worker: their session fixtures are made once
