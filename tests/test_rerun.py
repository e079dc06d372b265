"""A rerun redoes only what changed: adding a scan to a finished study writes only its new files and measures only
its new points; redefining a storage profile re-measures only the points that read on it; an unchanged study runs
nothing. Jobs are counted from Snakemake's own log, reads from the repetition records' modification times."""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

import pytest
import yaml
from conftest import set_threads, snakemake


def _study(workdir: Path, scans: dict, storage_profiles: dict) -> Path:
    config = {
        "repetitions": 2,
        "require_sigma": True,
        "formats": {"xaod": {"written": 6, "read": 6}},
        "read_defaults": {"storage_profile": "native"},
        "measurement": {
            "attempts": 1,
            "max_cpu_steal": 1.0,
            "busy_cpu_threshold": 1.0,
            "min_window_seconds": 0.0,
            "min_window_io_share": 0.0,
            "memory_probe_loads": 0,  # no probe around the reads (0.24 s each): which reads run is tested
            "storage_profiles": storage_profiles,
        },
        "scans": scans,
    }
    path = workdir / "study.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def _run(workdir: Path, config: Path) -> dict[str, int]:
    """Runs the study up to its summary (the figures and the decision only follow it); returns how many jobs of
    each rule ran (Snakemake's "rule X:" / "localrule X:" lines)."""
    from rootparams.tools import paths

    proc = snakemake(
        workdir,
        paths.SUMMARY_TABLE,
        "--configfile",
        str(config),
        "--config",
        f"data_dir={workdir / 'data'}",
        "--cores",
        "2",
        *set_threads(),
    )
    jobs: dict[str, int] = {}
    for rule in re.findall(r"^(?:local)?rule (\w+):$", proc.stderr + proc.stdout, flags=re.M):
        jobs[rule] = jobs.get(rule, 0) + 1
    return jobs


def _records(workdir: Path) -> dict[str, float]:
    return {
        str(p.relative_to(workdir)): p.stat().st_mtime
        for p in (workdir / "results").glob("repetitions/**/*.json")
    }


@pytest.fixture(scope="module")
def finished(tmp_path_factory, build) -> Path:
    """A finished tiny study: the default xAOD point and two compression points (three files), two of its points
    on a throttled profile of the study's own."""
    from rootparams.tools import paths

    workdir = tmp_path_factory.mktemp("rerun")
    shutil.copytree(build["info"].parent, workdir / paths.BUILD)
    scans = {
        "compression": {"algorithm": ["lz4"], "level": [1, 5]},
        "slow": {"storage_profile": ["slowdisk"]},
    }
    _run(workdir, _study(workdir, scans, {"slowdisk": {"read_bps": 400_000_000, "read_iops": 100_000}}))
    return workdir


def test_an_unchanged_study_runs_nothing(finished):
    config = finished / "study.yaml"
    before = _records(finished)
    assert _run(finished, config) == {}
    assert _records(finished) == before


def test_adding_a_scan_writes_and_measures_only_its_new_points(finished):
    raw = yaml.safe_load((finished / "study.yaml").read_text())
    # One new file (ZLIB-1) and its point.
    raw["scans"]["levels"] = {"algorithm": ["zlib"], "level": [1]}
    config = _study(finished, raw["scans"], raw["measurement"]["storage_profiles"])
    before = _records(finished)
    time.sleep(0.05)
    jobs = _run(finished, config)
    after = _records(finished)
    new = {p for p in after if p not in before}
    rewritten = {p for p in before if after.get(p) != before[p]}
    assert jobs.get("generate_file") == 1, jobs  # only ZLIB-1's file
    assert jobs.get("generate_content", 0) == 0, jobs  # the format's events are kept
    assert jobs.get("measure_block") == 1, jobs
    assert len(new) == 2 and all("/zlib-1_" in p for p in new), new  # its 2 repetitions
    assert not rewritten, rewritten


def test_redefining_a_profile_remeasures_only_the_points_on_it(finished):
    raw = yaml.safe_load((finished / "study.yaml").read_text())
    config = _study(finished, raw["scans"], {"slowdisk": {"read_bps": 300_000_000, "read_iops": 100_000}})
    before = _records(finished)
    time.sleep(0.05)
    jobs = _run(finished, config)
    after = _records(finished)
    remeasured = {p for p in before if after.get(p) != before[p]}
    on_profile = {p for p in before if "slowdisk" in p}
    assert on_profile, sorted(before)
    assert jobs.get("generate_file", 0) == 0, jobs
    assert remeasured == on_profile, (sorted(remeasured), sorted(on_profile))
