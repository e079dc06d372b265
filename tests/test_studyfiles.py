"""Where a study's points' files are (rootparams.study.studyfiles), by the kind of format: a built-in format's, a
clone's and a user's file, as it is or tiled; and what the workflow says when it schedules a study."""

from types import SimpleNamespace

import pytest
import yaml
from conftest import REPO

from rootparams.study import footprint, studyfiles
from rootparams.study.config import load_study_config
from rootparams.study.grid import ASIS_ID, expand_points
from rootparams.tools import paths

DATA = "data"
STUDY = {
    "data_dir": DATA,
    "formats": {
        "xaod": {"written": 1000, "read": 1000},
        "eventsize_400": {"written": 10, "read": 10},
        "mine": {"source": "my.root", "tree": "Events", "tile": 4, "written": 1, "read": 1},
        "plain": {"source": "plain.root", "written": 1, "read": 1},
        "copy": {"calibrate": "my.root", "written": 50, "read": 50},
    },
}


@pytest.fixture(autouse=True)
def no_source_files(monkeypatch):
    # The users' files are described without being opened.
    files = {"mine": ("my.root", "Events"), "plain": ("plain.root", None), "copy": ("my.root", None)}
    monkeypatch.setattr(
        studyfiles, "source_of", lambda study, fmt: SimpleNamespace(path=files[fmt][0], tree=files[fmt][1])
    )


def test_a_built_in_format_is_written_from_its_content_file():
    assert studyfiles.content_file(STUDY, "xaod") == paths.content_file(DATA, "xaod")
    assert studyfiles.recipe_file(STUDY, "xaod") is None
    assert studyfiles.point_root_file(STUDY, "xaod", "zlib-5") == paths.root_file(DATA, "xaod", "zlib-5")
    assert studyfiles.warmup_file(STUDY, "xaod") == paths.warmup_file(DATA, "xaod")
    assert studyfiles.unzip_sample(STUDY, "xaod") == paths.unzip_sample_file(DATA, "xaod")
    assert studyfiles.tree_name(STUDY, "xaod") is None and studyfiles.tile_record(STUDY, "xaod") is None
    assert studyfiles.events_written(STUDY, "xaod") == 1000
    # A flat format is generated from the seed, as a clone is.
    assert studyfiles.content_file(STUDY, "eventsize_400") is None


def test_a_clone_is_written_from_its_recipe_calibrated_on_the_file_itself():
    assert studyfiles.recipe_file(STUDY, "copy") == paths.recipe_file("copy")
    assert studyfiles.content_file(STUDY, "copy") is None
    assert studyfiles.source_file(STUDY, "copy") == "my.root"
    assert studyfiles.warmup_file(STUDY, "copy") == paths.warmup_file(DATA, "copy")


def test_a_users_file_is_read_as_it_is_or_from_its_tiled_copy():
    tiled = paths.tiled_source_file(DATA, "mine", 4)
    assert studyfiles.tile_copies(STUDY, "mine") == 4
    assert studyfiles.source_file(STUDY, "mine") == tiled
    assert studyfiles.point_root_file(STUDY, "mine", ASIS_ID) == tiled
    assert studyfiles.original_source_file(STUDY, "mine") == "my.root"
    assert studyfiles.tile_record(STUDY, "mine") == paths.tile_record("mine", 4)
    assert studyfiles.tree_name(STUDY, "mine") == "Events"
    # Its warm-up read and its decompression sample are the file itself, never copied.
    assert studyfiles.warmup_file(STUDY, "mine") == "my.root"
    assert studyfiles.unzip_sample(STUDY, "mine") == "my.root"
    assert studyfiles.point_root_file(STUDY, "plain", ASIS_ID) == "plain.root"
    assert studyfiles.tile_record(STUDY, "plain") is None
    assert studyfiles.point_root_file(STUDY, "plain", "lz4-1") == paths.root_file(DATA, "plain", "lz4-1")


def test_a_longer_read_of_a_recipe_has_files_of_its_own():
    # xaod_long writes the xaod recipe with more events (formats.<name>.written is per format): its content
    # file, warm-up file and points' files are its own, not xaod's. The decompression measures no sample of it
    # (outputs.unzip_kind_settings leaves it out: its content kinds are xaod's).
    study = {**STUDY, "formats": {**STUDY["formats"], "xaod_long": {"written": 1000, "read": 1000}}}
    content = studyfiles.content_file(study, "xaod_long")
    assert content == paths.content_file(DATA, "xaod_long") != studyfiles.content_file(study, "xaod")
    assert studyfiles.recipe_file(study, "xaod_long") is None
    assert studyfiles.warmup_file(study, "xaod_long") == paths.warmup_file(DATA, "xaod_long")
    root = paths.root_file(DATA, "xaod_long", "zlib-5")
    assert studyfiles.point_root_file(study, "xaod_long", "zlib-5") == root
    assert studyfiles.events_written(study, "xaod_long") == 1000


def test_the_selections_a_file_is_read_with():
    def point(fmt, file_id, branches):
        return SimpleNamespace(
            file=SimpleNamespace(format=fmt, id=file_id), read=SimpleNamespace(branches=branches)
        )

    points = [point("mine", "a", "all"), point("mine", "a", "particle"), point("mine", "b", "sparse")]
    points.append(point("xaod", "a", "analysis"))
    assert studyfiles.file_selections(points, "mine", "a") == ["all", "particle"]
    assert studyfiles.file_selections(points, "mine") == ["all", "particle", "sparse"]


def test_the_scheduling_notes_end_with_the_points_and_their_disk_use():
    study = load_study_config(yaml.safe_load((REPO / "config" / "quick.yaml").read_text()))
    points = expand_points(study)
    notes = footprint.scheduling_notes(study, points)
    assert notes[-1].startswith(f"{len(points)} points; the study's ROOT files need about ")
    assert notes[-1].endswith(f"GB at peak in {study['data_dir']}")
