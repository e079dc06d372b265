"""The study's words (rootparams.vocabulary): each defined once, and every copy that has to live elsewhere (the
schema's patterns and enums, per-algorithm tables, the C++ reader's container test) agreeing with it."""

from __future__ import annotations

import re

import pytest
from conftest import SHARED_DATA, require

from rootparams.host import storage
from rootparams.ownfile.sources import describe
from rootparams.study import footprint, labels
from rootparams.study.config import load_study_config
from rootparams.study.grid import FilePoint, ReadPoint
from rootparams.tools.processes import run_tool
from rootparams.vocabulary import (
    ALGORITHMS,
    BRANCH_COMPRESSION_PATTERN,
    COMPRESSING_ALGORITHMS,
    CONTAINER_ONLY,
    CONTAINERS,
    FILE_KEYS,
    FLOAT_PRECISION_PATTERN,
    LATER_FILE_KEY_DEFAULTS,
    PAPER_FILE_DEFAULTS,
    READ_KEYS,
    RNTUPLE,
    TTREE,
    WINDOW_RULE_DEFAULTS,
    CompressionSettingError,
    branch_compression_problem,
    container_of_class,
    decode,
    encode,
    fixed_settings,
    mantissa_bits,
    schema,
)

# Schema ------------------------------------------------------------------------------------------------------


def test_the_schema_holds_the_grammars_patterns():
    defs = schema()["$defs"]
    assert defs["branch_compression"]["pattern"] == BRANCH_COMPRESSION_PATTERN
    assert defs["float_precision"]["pattern"] == FLOAT_PRECISION_PATTERN


@pytest.mark.parametrize(
    "value",
    [
        "uniform",
        "largest1:lz4-1",
        "largest12:zstd-9",
        "match:^Electrons:zlib-5",
        "match:a:b:lzma-2",
        "largest0:lz4-1",
        "largest4:lz4-0",
        "largest4:none-1",
        "largest4:lz5-1",
        "largest4",
        "biggest4:lz4-1",
        "match::lz4-1",
        "Uniform",
    ],
)
def test_the_python_grammar_and_the_schema_pattern_accept_the_same_values(value):
    assert (re.search(BRANCH_COMPRESSION_PATTERN, value) is not None) == (
        branch_compression_problem(value) is None
    )


@pytest.mark.parametrize(
    ("value", "bits"),
    [
        ("full", None),
        ("mantissa1", 1),
        ("mantissa22", 22),
        ("mantissa23", None),
        ("mantissa0", None),
        ("mantissa07", None),
        ("fp16", None),
    ],
)
def test_float_precision_grammar(value, bits):
    assert mantissa_bits(value) == bits
    accepted = re.search(FLOAT_PRECISION_PATTERN, value) is not None
    assert accepted == (value == "full" or bits is not None)


def test_the_setting_keys_are_the_schemas():
    defs = schema()["$defs"]
    assert tuple(defs["file_settings"]["properties"]) == FILE_KEYS
    assert tuple(defs["read_settings"]["properties"]) == READ_KEYS
    assert set(defs["scan"]["properties"]) == {"formats", *FILE_KEYS, *READ_KEYS}
    assert set(defs["container"]["enum"]) == set(CONTAINERS)
    assert set(defs["algorithm"]["enum"]) == set(ALGORITHMS)


def test_every_per_algorithm_table_covers_every_algorithm():
    assert set(footprint._SIZE_FACTOR) == set(ALGORITHMS)
    assert set(footprint._LEVEL_SLOPE) == set(COMPRESSING_ALGORITHMS)
    assert set(labels.ALGORITHM_LABELS) == set(ALGORITHMS)
    assert list(storage.PROFILES) == labels.STORAGE_ORDER


# Defaults ----------------------------------------------------------------------------------------------------


def test_defaults_come_from_the_schema_once():
    assert LATER_FILE_KEY_DEFAULTS == {
        "branch_compression": "uniform",
        "float_precision": "full",
        "offsets": "stored",
    }
    assert WINDOW_RULE_DEFAULTS == {"min_window_io_share": 0.9, "min_window_seconds": 1.0}
    assert all(
        PAPER_FILE_DEFAULTS[fmt].items() >= LATER_FILE_KEY_DEFAULTS.items() for fmt in PAPER_FILE_DEFAULTS
    )
    point = FilePoint("xaod", "zlib", 5, 100, 0, 32000)
    assert (point.branch_compression, point.float_precision) == ("uniform", "full")
    config = load_study_config({"formats": {"xaod": {"written": 10, "read": 10}}})
    assert all(
        settings.items() >= LATER_FILE_KEY_DEFAULTS.items() for settings in config["file_defaults"].values()
    )


# Containers --------------------------------------------------------------------------------------------------


def test_each_container_only_setting_has_the_fixed_value_the_points_keep():
    assert fixed_settings(RNTUPLE, FILE_KEYS) == {
        "split_level": -1,
        "basket_size": 0,
        "branch_compression": "uniform",
        "offsets": "stored",  # an RNTuple has no entry offsets to generate: its fields' offsets are columns
    }
    assert fixed_settings(TTREE, FILE_KEYS) == {"page_size": 0}
    read = ReadPoint(2_000_000, 100, 1, "all", "native", cluster_bunch=4, async_prefetch=True, unzip=True)
    assert read.for_container(TTREE).cluster_bunch == 1
    rntuple = read.for_container(RNTUPLE)
    assert (rntuple.learn_entries, rntuple.async_prefetch, rntuple.unzip) == ("default", False, False)
    assert rntuple.cluster_bunch == 4
    assert all(set(fixed) <= {*FILE_KEYS, *READ_KEYS} for fixed in CONTAINER_ONLY.values())


def test_container_of_class():
    assert container_of_class("TTree") == TTREE and container_of_class("ROOT::RNTuple") == RNTUPLE
    assert container_of_class("TH1F") is None and container_of_class("ROOT::Experimental::RNTuple") is None


@pytest.mark.parametrize(
    "name",
    [
        "cms_nanoaod_2015_ttbar_200ev.root",
        "atlas_physlite_run2_ttbar_100ev.root",
        "atlas_physlite_rntuple_100ev.root",
    ],
)
def test_the_cxx_reader_finds_the_same_container_on_real_files(build, name):
    """The C++ reader's has_ntuple (--resolve-selection says the container it found) and
    vocabulary.container_of_class (through sources.describe, with uproot) agree on the shared real files."""
    path = SHARED_DATA / name
    require(path.exists(), f"the real test file {path}")
    found = describe(str(path))
    cmd = [str(build["reader"]), "--file", str(path), "--tree", found.tree, "--resolve-selection", "all"]
    assert run_tool(cmd, "resolve")["container"] == found.container


# Compression setting -----------------------------------------------------------------------------------------


def test_encode_and_decode_are_inverse():
    for algorithm in COMPRESSING_ALGORITHMS:
        for level in range(1, 10):
            assert decode(encode(algorithm, level)) == (algorithm, level)
    assert encode("none", 0) == 0 and decode(0) == ("none", 0)
    assert (encode("zlib", 5), encode("lz4", 1), encode("lzma", 9), encode("zstd", 5)) == (105, 401, 209, 505)
    assert FilePoint("xaod", "zstd", 5, 100, 0, 32000).compression_setting == 505


def test_an_unknown_algorithm_is_one_clear_error_both_ways():
    known = r"known algorithms are none \(0\), zlib \(1\), lzma \(2\), lz4 \(4\), zstd \(5\)"
    with pytest.raises(
        CompressionSettingError, match=r"setting 303 \(algorithm 3\) is not one this study knows; " + known
    ):
        decode(303)
    with pytest.raises(
        CompressionSettingError, match="compression algorithm 'lz5' is not one this study knows"
    ):
        encode("lz5", 1)
