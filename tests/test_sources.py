"""A user's own file as a format: what the study reads from it, the config rules, and its grid points
(rootparams.ownfile.sources, rootparams.study.config, rootparams.study.grid). The files are the real samples of shared/data."""

from __future__ import annotations

import pytest
from conftest import SHARED_DATA, require

from rootparams.ownfile import sources
from rootparams.ownfile.sources import SourceError, SourceFile, describe
from rootparams.study.config import ConfigError, left_out_notes, load_study_config
from rootparams.study.grid import FilePoint, expand_points
from rootparams.tools import root_metadata

NANOAOD = SHARED_DATA / "cms_nanoaod_2015_ttbar_200ev.root"
PHYSLITE = SHARED_DATA / "atlas_physlite_run2_ttbar_100ev.root"
PHYSLITE_RNTUPLE = SHARED_DATA / "atlas_physlite_rntuple_100ev.root"


@pytest.fixture(autouse=True)
def _real_files():
    require(
        all(p.exists() for p in (NANOAOD, PHYSLITE, PHYSLITE_RNTUPLE)), f"the real samples in {SHARED_DATA}"
    )


def test_describe_finds_the_event_data_of_each_real_file():
    nano = describe(str(NANOAOD))
    assert (nano.tree, nano.container, nano.entries, nano.compression_setting) == (
        "Events",
        "ttree",
        200,
        101,
    )
    assert nano.atlas_containers == 0 and nano.algorithm_level == ("zlib", 1)
    # The PHYSLITE has 17 trees (metadata, POOL); the event data is CollectionTree.
    lite = describe(str(PHYSLITE))
    assert (lite.tree, lite.container, lite.entries, lite.autoflush) == ("CollectionTree", "ttree", 100, 100)
    assert lite.atlas_containers > 100  # DataVector<xAOD::...> interface branches
    ntuple = describe(str(PHYSLITE_RNTUPLE))
    assert (ntuple.tree, ntuple.container, ntuple.entries) == ("EventData", "rntuple", 100)
    assert ntuple.algorithm_level == ("zstd", 5) and ntuple.atlas_containers > 0


def test_bad_sources_name_the_file_and_what_it_holds(tmp_path):
    with pytest.raises(SourceError, match="does not exist"):
        describe(str(tmp_path / "nope.root"))
    text = tmp_path / "notes.root"
    text.write_text("not a ROOT file\n")
    with pytest.raises(SourceError, match=r"notes\.root is not a ROOT file"):
        describe(str(text))
    with pytest.raises(
        SourceError, match=r"no TTree or RNTuple named 'Event'.*holds 1 TTree: Events \(200 entries\)"
    ):
        describe(str(NANOAOD), "Event")


def _trees(path, trees: dict[str, int]) -> str:
    """A file of TTrees (written by uproot) with the given entries, each a branch x of doubles."""
    import numpy as np
    import uproot

    with uproot.recreate(path) as f:
        for name, entries in trees.items():
            f.mktree(name, {"x": "f8"}).extend({"x": np.arange(float(entries))})
    return str(path)


def test_a_file_with_several_trees_lists_them_with_their_entries_and_says_how_to_name_one(tmp_path):
    path = _trees(tmp_path / "analysis.root", {"sig": 502, "fullmassplane": 1572, "control": 316})
    listing = f"{path} holds 3 TTrees: sig (502 entries), fullmassplane (1,572), control (316)"
    with pytest.raises(SourceError) as info:
        describe(path)
    assert str(info.value) == f"{listing}; name the one to use with the format's 'tree' key"
    with pytest.raises(SourceError) as info:
        describe(path, option="--tree NAME")  # as rootparams advise and inspect say it
    assert str(info.value) == f"{listing}; name the one to use with --tree NAME"
    named = describe(path, "fullmassplane")
    assert (named.tree, named.container, named.entries) == ("fullmassplane", "ttree", 1572)


def test_a_tree_in_a_directory_is_found_when_it_is_the_only_one(tmp_path):
    path = _trees(tmp_path / "nested.root", {"ntupler/tree": 10})
    assert describe(path).tree == "ntupler/tree"
    several = _trees(tmp_path / "two.root", {"one/tree": 4, "three/tree": 100})
    with pytest.raises(SourceError, match=r"holds 2 TTrees: one/tree \(4 entries\), three/tree \(100\)"):
        describe(several)
    assert describe(several, "three/tree").entries == 100


class _TreeOfRoot525:
    """uproot's model of a TTree written by ROOT 5.25 (class version 17): it has no fAutoFlush."""

    num_entries = 30
    branches = ()

    def member(self, name, none_if_missing=False):
        if none_if_missing:
            return None
        raise KeyError(name)


def test_a_tree_written_before_root_had_autoflush_has_none():
    assert sources._read_with_uproot(_TreeOfRoot525(), "ttree") == (30, 0, 0)


def test_a_tree_uproot_cannot_model_is_described_by_root(monkeypatch):
    by_uproot = describe(str(PHYSLITE))

    def unmodelled(obj, container):
        raise KeyError(("V", 16))  # as uproot names a 2-D leaf-list array's type

    monkeypatch.setattr(sources, "_read_with_uproot", unmodelled)
    sources._describe.cache_clear()
    assert describe(str(PHYSLITE)) == by_uproot  # entries, AutoFlush, ATLAS containers: ROOT's agree

    def unreadable(target, tree=None, timeout=0):
        raise root_metadata.RootMetadataError(
            f"{target}: ROOT cannot read its TTree {tree} (Error in <TFile>)"
        )

    monkeypatch.setattr(root_metadata, "read", unreadable)
    sources._describe.cache_clear()
    with pytest.raises(SourceError) as info:
        describe(str(PHYSLITE))
    assert (
        "its TTree CollectionTree cannot be read, neither by uproot (KeyError: ('V', 16)) nor by ROOT"
        in str(info.value)
    )
    sources._describe.cache_clear()


def test_a_compression_setting_of_an_unknown_algorithm_names_the_file_and_the_known_ones():
    odd = SourceFile("/data/odd.root", "Events", "ttree", 10, 303, 100, 0)
    with pytest.raises(
        SourceError, match=r"/data/odd\.root: compression setting 303 \(algorithm 3\).*zlib \(1\)"
    ):
        _ = odd.algorithm_level


def _study(formats: dict, scans: dict | None = None, **extra) -> dict:
    return load_study_config({"formats": formats, "scans": scans or {}, **extra})


def test_a_source_takes_its_own_settings_and_entries():
    config = _study({"nano": {"source": str(NANOAOD), "read": 150, "branches": "all"}})
    assert config["formats"]["nano"]["written"] == 200
    assert config["file_defaults"]["nano"] == {
        "container": "ttree",
        "algorithm": "zlib",
        "level": 1,
        "autoflush": 0,
        "split_level": -1,
        "basket_size": 0,
        "page_size": 0,
        "branch_compression": "uniform",
        "float_precision": "full",
        "offsets": "stored",
    }
    (point,) = expand_points(config)
    assert point.file.id == "asis" and point.file.origin == "asis" and point.read.branches == "all"


def test_file_side_scans_of_a_source_are_rewrites_and_read_side_scans_read_it_as_it_is():
    config = _study(
        {"lite": {"source": str(PHYSLITE), "read": 100}},
        {"compression": {"algorithm": ["lz4"], "level": [1, 4]}, "cache": {"cache_size": [0, -1]}},
    )
    ids = sorted({(p.file.id, p.read.cache_size) for p in expand_points(config)})
    assert ids == [
        ("asis", -1),
        ("asis", 0),
        ("rewrite_lz4-1_af100_basket0", -1),
        ("rewrite_lz4-4_af100_basket0", -1),
    ]
    rewrite = FilePoint.from_id("lite", "rewrite_lz4-4_af100_basket0")
    assert (rewrite.origin, rewrite.compression_setting, rewrite.split_level, rewrite.id) == (
        "rewrite",
        404,
        -1,
        "rewrite_lz4-4_af100_basket0",
    )


def test_split_level_of_a_named_source_is_an_error_and_an_unnamed_one_leaves_it_out():
    formats = {"lite": {"source": str(PHYSLITE), "read": 100}, "susy5": {"written": 100, "read": 100}}
    with pytest.raises(
        ConfigError,
        match=r"scans\.split\.split_level: format 'lite' is a source file, and split level "
        r"cannot change through a copy.*calibrate",
    ):
        _study(formats, {"split": {"formats": ["lite"], "split_level": [0, 99]}})
    config = _study(formats, {"split": {"split_level": [0, 99]}})
    assert {p.file.format for p in expand_points(config) if "split" in p.scans} == {"susy5"}
    assert left_out_notes(config) == [
        "scan split leaves source format lite out: split level cannot change "
        "through a copy (ROOT's clone keeps each branch's split level)"
    ]


def test_an_rntuple_source_is_rewritten_at_another_compression_only():
    formats = {"nt": {"source": str(PHYSLITE_RNTUPLE), "read": 100}}
    with pytest.raises(
        ConfigError, match=r"autoflush cannot change in an RNTuple source \(ROOT's RNTupleMerger"
    ):
        _study(formats, {"clusters": {"formats": ["nt"], "autoflush": [1000]}})
    config = _study(formats, {"cache": {"cache_size": [0, -1]}, "compression": {"level": [1]}})
    assert {(p.file.id, p.file.container, p.read.cache_size) for p in expand_points(config)} == {
        ("asis", "rntuple", 0),
        ("asis", "rntuple", -1),
        ("rewrite_zstd-1_af0_basket0", "rntuple", -1),
    }


@pytest.mark.parametrize(
    ("formats", "scans", "message"),
    [
        (
            {"nano": {"source": str(NANOAOD), "read": 100}},
            {},
            r"read_defaults\.branches = 'particle' for format 'nano'.*no ATLAS particle containers.*'all'",
        ),
        (
            {"nano": {"source": str(NANOAOD), "read": 100, "branches": "all"}},
            {"b": {"branches": ["particle"]}},
            r"scans\.b\.branches = 'particle' for format 'nano'",
        ),
        (
            {"nano": {"source": str(NANOAOD), "read": 500, "branches": "all"}},
            {},
            r"formats\.nano\.read = 500: .* has 200 entries in Events; read at most 200",
        ),
        (
            {"nano": {"source": str(NANOAOD), "written": 10, "read": 10, "branches": "all"}},
            {},
            r"formats\.nano\.written = 10: a source is read as it is",
        ),
        (
            {"xaod": {"source": str(NANOAOD), "written": 10, "read": 10}},
            {},
            r"'xaod' is a built-in synthetic format",
        ),
        (
            {"mine": {"written": 10, "read": 10}},
            {},
            r"formats\.mine: .mine. is not a built-in format.*a format of your own names one file",
        ),
        ({"mine": {"source": str(NANOAOD), "calibrate": str(NANOAOD), "read": 10}}, {}, r"'mine' gives both"),
        ({"mine": {"calibrate": str(NANOAOD), "read": 10}}, {}, r"formats\.mine: give written"),
        (
            {"mine": {"source": "/no/such/file.root", "read": 10}},
            {},
            r"formats\.mine\.source: /no/such/file\.root does not exist",
        ),
        ({"Mine": {"source": str(NANOAOD), "read": 10}}, {}, r"formats: unknown key 'Mine'|Mine"),
    ],
)
def test_invalid_own_file_configs_stop_before_any_work(formats, scans, message):
    with pytest.raises(ConfigError, match=message):
        _study(formats, scans)


def test_a_clone_takes_the_files_compression_as_a_split_ttree():
    config = _study(
        {"nano_clone": {"calibrate": str(NANOAOD), "written": 1000, "read": 1000, "branches": "all"}},
        {"split": {"split_level": [0, 99]}},
    )
    assert config["file_defaults"]["nano_clone"] == {
        "container": "ttree",
        "algorithm": "zlib",
        "level": 1,
        "autoflush": 0,
        "split_level": 99,
        "basket_size": 32000,
        "page_size": 1048576,
        "branch_compression": "uniform",
        "float_precision": "full",
        "offsets": "stored",
    }
    assert {p.file.split_level for p in expand_points(config)} == {0, 99}
    assert {p.file.origin for p in expand_points(config)} == {"recipe"}
