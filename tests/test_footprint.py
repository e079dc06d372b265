"""Disk footprint: the preflight estimate, its error, and the workflow stopping before any job."""

from collections import namedtuple

import pytest
from conftest import REPO, snakemake

from rootparams.study import footprint
from rootparams.study.config import load_study_config
from rootparams.study.grid import expand_points

Usage = namedtuple("Usage", "total used free")


def study(**formats):
    return load_study_config(
        {"formats": formats, "scans": {"c": {"algorithm": ["lz4", "lzma"], "level": [1]}}}
    )


def test_estimate_adds_every_file_the_content_file_and_a_margin():
    config = study(xaod={"written": 100, "read": 100})
    points = expand_points(config)  # zlib-5 (default), lz4-1, lzma-1
    files = sum(
        footprint.file_bytes("xaod", a, lvl, 100) for a, lvl in (("zlib", 5), ("lz4", 1), ("lzma", 1))
    )
    extra = footprint.file_bytes("xaod", "lz4", 1, 100) + footprint.file_bytes("xaod", "zlib", 5, 10)
    assert footprint.estimate(config, points) == pytest.approx((files + extra) * footprint._MARGIN)
    assert 300e6 < footprint.estimate(config, points) < 800e6  # ~100 MB per file of 100 xAOD events


def test_a_study_that_does_not_fit_names_both_numbers(monkeypatch, tmp_path):
    config = study(xaod={"written": 100, "read": 100})
    config["data_dir"] = str(tmp_path / "data")
    monkeypatch.setattr(footprint.shutil, "disk_usage", lambda p: Usage(10**9, 10**9 - 10**8, 10**8))
    with pytest.raises(
        footprint.DiskSpaceError, match=r"3 ROOT file\(s\), estimated at 0\.\d GB .* only 0\.1 GB are free"
    ):
        footprint.check(config, expand_points(config))


def test_files_of_an_earlier_run_count_as_available(monkeypatch, tmp_path):
    config = study(xaod={"written": 10, "read": 10})
    config["data_dir"] = str(tmp_path)
    (tmp_path / "old.root").write_bytes(b"x" * 10**6)
    monkeypatch.setattr(footprint.shutil, "disk_usage", lambda p: Usage(10**10, 10**10 - 10**9, 10**9))
    fp = footprint.check(config, expand_points(config))
    assert fp.free_bytes == 10**9 + 10**6 and fp.fits


def test_workflow_stops_before_any_job_when_the_files_cannot_fit(tmp_path):
    huge = tmp_path / "huge.yaml"
    huge.write_text("formats:\n  xaod: {written: 100000000, read: 100}\n")
    proc = snakemake(tmp_path, "--configfile", str(huge), "--cores", "1", check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "only" in out and "GB are free there" in out
    assert not (tmp_path / "results").exists()


def test_paper_config_dry_runs_and_reports_its_footprint(tmp_path):
    proc = snakemake(tmp_path, "--configfile", str(REPO / "config" / "paper.yaml"), "-n", "--cores", "4")
    assert "measure_block" in proc.stdout
    assert "GB at peak" in proc.stderr
