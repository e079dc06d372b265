"""What a block measures (rootparams.decide.blockplan, rootparams.study.blocks): the blocks of the shipped studies, the
measurement settings a block's job is given, its plan, and the points it still has to read, pinned on
config/config.yaml, config/quick.yaml and config/examples/adaptive.yaml."""

import json

import pytest
import yaml
from conftest import REPO

from rootparams.decide import blockplan
from rootparams.study import blocks
from rootparams.study.config import load_study_config
from rootparams.study.grid import expand_points, sentinel_point
from rootparams.tools import paths


def study_blocks(name):
    study = load_study_config(yaml.safe_load((REPO / name).read_text()))
    return blockplan.StudyBlocks(study, expand_points(study), sentinel_point(study))


@pytest.fixture(scope="module")
def default():
    return study_blocks("config/config.yaml")


@pytest.fixture(scope="module")
def quick():
    return study_blocks("config/quick.yaml")


@pytest.fixture(scope="module")
def adaptive():
    return study_blocks("config/examples/adaptive.yaml")


def test_the_blocks_of_the_shipped_studies(default, quick, adaptive):
    formats = ["xaod", "topq1", "susy5", "truth3"]
    assert default.passes == 3
    assert list(default.blocks) == blocks._block_names(formats, 3)
    assert blocks.measured_formats(default.study, default.points) == formats
    assert quick.passes == 1 and list(quick.blocks)[:4] == formats and len(quick.blocks) == 8
    assert list(adaptive.blocks) == ["truth3"]
    # Every point is in every pass of its format; the records are in the order the blocks run.
    assert sum(len(p) for p in default.blocks.values()) == 3 * len(default.points)
    assert default.records()[0] == paths.block_record("xaod.pass1")
    assert default.earlier("xaod.pass2") == [paths.block_record(f"{f}.pass1") for f in formats]
    assert default.earlier("truth3.pass1") == []


def test_each_pass_takes_its_share_of_the_repetitions(default):
    reps = default.study["repetitions"]
    taken = [default.repetitions(f"xaod.pass{k}") for k in (1, 2, 3)]
    assert sorted(r for part in taken for r in part) == list(range(reps))


def test_a_block_is_given_only_its_own_storage_profiles_and_the_last_pass_the_warm_reads(default):
    first, last = default.measurement("xaod.pass1"), default.measurement("xaod.pass3")
    used = {p.read.storage_profile for p in [*default.blocks["xaod.pass1"], default.sentinel]}
    assert set(first["storage_profiles"]) <= used
    assert first["warm_reads"] == 0 and first["target_half_width"] is None
    assert last["warm_reads"] == default.study["measurement"]["warm_reads"]
    assert last["target_half_width"] == default.study["measurement"]["target_half_width"]
    # A study that is not adaptive passes no "adaptive" key: its blocks' settings are the ones they always had.
    assert "adaptive" not in first and "adaptive" not in last
    assert default.chosen("xaod.pass1") == set()


def test_an_adaptive_block_carries_only_what_its_decision_reads(adaptive, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    measurement = adaptive.measurement("truth3")
    assert measurement["target_half_width"] is None
    plan = measurement["adaptive"]
    assert list(plan["study"]["formats"]) == ["truth3"] and list(plan["study"]["file_defaults"]) == ["truth3"]
    assert "adaptive" not in plan["study"]["measurement"] and plan["chosen"] == []
    assert all("scans" in entry for entry in adaptive.plan("truth3"))
    assert adaptive.storage_primitives("truth3") == [paths.STORAGE_PRIMITIVES_TABLE]


def test_the_plan_names_each_points_files(quick):
    entry = quick.plan("xaod")[0]
    point = quick.blocks["xaod"][0]
    assert entry["root"] == paths.root_file(quick.study["data_dir"], "xaod", point.file.id)
    assert entry["catalogue"] == paths.catalogue_entry("xaod", point.file.id)
    assert entry["warmup"] == paths.warmup_file(quick.study["data_dir"], "xaod")
    assert entry["tree"] is None and entry["events"] == quick.study["formats"]["xaod"]["read"]
    assert "scans" not in entry
    assert quick.sentinel_plan("truth3")["file"] == quick.sentinel.file
    assert quick.storage_primitives("xaod") == []
    assert quick.warmup_files("xaod") == (
        [paths.warmup_file(quick.study["data_dir"], "xaod")]
        if quick.study["measurement"]["eviction"] == "system"
        else []
    )


def test_a_block_reads_what_is_still_to_measure(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    sb = study_blocks("config/quick.yaml")
    points = sb.blocks["truth3"]
    # Nothing catalogued yet: every point, and the sentinel.
    todo = sb.to_measure("truth3")
    assert todo == [*points, sb.sentinel]
    assert sb.root_files("truth3") == sorted(
        {paths.root_file(sb.study["data_dir"], p.file.format, p.file.id) for p in todo}
    )
    assert len(sb.catalogues("truth3")) == len({(p.file.format, p.file.id) for p in [*points, sb.sentinel]})
    # A rewrite ROOT refused has nothing to read; a block with nothing to read needs no sentinel either.
    for p in points:
        catalogue = tmp_path / paths.catalogue_entry(p.file.format, p.file.id)
        catalogue.parent.mkdir(parents=True, exist_ok=True)
        catalogue.write_text(json.dumps({"refused": "test"}))
    measurement = sb.measurement("truth3")
    reps = sb.repetitions("truth3")
    assert blockplan.points_to_measure(sb.study, points, sb.sentinel, measurement, reps) == []


def test_the_repetitions_a_plan_names():
    sb = study_blocks("config/quick.yaml")
    assert blockplan.planned_repetitions(sb.study, sb.points[0], set()) == sb.study["repetitions"]


def test_a_longer_read_of_a_recipe_is_measured_as_without_the_plan(tmp_path, monkeypatch):
    # xaod_long (the cache scans' xAOD, formats.is_longer_read) has no decision of its own:
    # measurement.adaptive does not plan its blocks, which measure every point at the study's repetitions with
    # the study's settings.
    monkeypatch.chdir(tmp_path)
    raw = yaml.safe_load((REPO / "config/examples/adaptive.yaml").read_text())
    raw["formats"]["xaod_long"] = {"written": 1000, "read": 1000, "scans": ["cache"]}
    study = load_study_config(raw)
    sb = blockplan.StudyBlocks(study, expand_points(study), sentinel_point(study))
    assert list(sb.blocks) == ["truth3", "xaod_long"]
    assert blockplan._is_planned(study, "truth3") and not blockplan._is_planned(study, "xaod_long")
    planned, unplanned = sb.measurement("truth3"), sb.measurement("xaod_long")
    assert planned["target_half_width"] is None and "adaptive" in planned
    assert "adaptive" not in unplanned
    assert unplanned["target_half_width"] == study["measurement"]["target_half_width"]
    longer = sb.blocks["xaod_long"]
    assert longer
    assert {blockplan.planned_repetitions(study, p, set()) for p in longer} == {study["repetitions"]}
    assert sb.to_measure("xaod_long")[: len(longer)] == longer
    # A study that is not adaptive plans no block.
    quick = study_blocks("config/quick.yaml")
    assert not any(blockplan._is_planned(quick.study, b) for b in quick.blocks)
