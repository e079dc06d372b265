"""Per-branch compression as a file setting (branch_compression: largest<N>:<alg>-<level> or match:<regex>:...):
the configuration, the file ids, and real TTree files where the largest branches (or those a regex finds) carry
their own compression setting down to every sub-branch, the rest the file's, with the same events."""

from __future__ import annotations

import functools
import re

import pytest
from conftest import config_problems as problems
from conftest import side_by_side

from rootparams.errors import UserError
from rootparams.measure.generate import BranchCompressionError, _choose_branches, generate_file
from rootparams.study.config import load_study_config
from rootparams.study.grid import (
    FILE_ID_PATTERN,
    FilePoint,
    _branch_compression_token,
    expand_points,
    file_points,
)
from rootparams.vocabulary import hot_compression_setting, parse_branch_compression

EVENTS = 300


# Configuration and ids ------------------------------------------------------------------------------------------


def test_parsing_and_root_settings():
    assert parse_branch_compression("uniform") is None
    assert parse_branch_compression("largest4:lz4-1") == (4, None, "lz4", 1)
    assert parse_branch_compression("match:^(Electrons|Muons):zstd-3") == (
        None,
        "^(Electrons|Muons)",
        "zstd",
        3,
    )
    assert hot_compression_setting("largest2:lz4-1") == 401 and hot_compression_setting("uniform") is None
    assert _branch_compression_token("uniform") == ""
    assert _branch_compression_token("largest4:lz4-1") == "_bclargest4-lz4-1"
    assert re.fullmatch(r"_bcre[0-9a-f]{8}-lz4-1", _branch_compression_token("match:Aux\\.$:lz4-1"))


def test_uniform_ids_do_not_change_and_per_branch_ids_round_trip():
    assert FilePoint("xaod", "zlib", 5, 100, 0, 32000).id == "zlib-5_af100_split0_basket32000"
    point = FilePoint(
        "xaod", "lzma", 5, 100, 0, 32000, branch_compression="largest4:lz4-1", float_precision="mantissa7"
    )
    assert point.id == "lzma-5_af100_split0_basket32000_bclargest4-lz4-1_fpm7"
    assert re.fullmatch(FILE_ID_PATTERN, point.id) and FilePoint.from_id("xaod", point.id) == point
    by_regex = FilePoint("xaod", "lzma", 5, 100, 0, 32000, branch_compression="match:^Electrons:lz4-1")
    assert re.fullmatch(FILE_ID_PATTERN, by_regex.id)
    with pytest.raises(ValueError, match="look the point up"):
        FilePoint.from_id("xaod", by_regex.id)


@pytest.mark.parametrize(
    "bad",
    [
        "largest0:lz4-1",
        "largest4",
        "largest4:lz5-1",
        "largest4:lz4-0",
        "biggest4:lz4-1",
        "largest4:none-0",
        "match:(:lz4-1",
    ],
)
def test_invalid_values_name_the_key_the_value_and_what_is_valid(bad):
    found = problems({"scans": {"hot": {"branch_compression": [bad]}}})
    assert len(found) == 1 and "scans.hot.branch_compression" in found[0] and repr(bad) in found[0], found
    assert "largest<N>" in found[0] or "does not compile" in found[0]
    with pytest.raises(ValueError, match="branch_compression"):
        FilePoint("xaod", "lzma", 5, 100, 0, 32000, branch_compression=bad)


def test_rntuple_has_no_per_branch_setting():
    found = problems(
        {"scans": {"hot": {"container": ["ttree", "rntuple"], "branch_compression": ["largest4:lz4-1"]}}}
    )
    assert (
        "scans.hot.branch_compression is a ttree setting" in found[0]
        and "one compression per file" in found[0]
    )
    with pytest.raises(ValueError, match="only a TTree"):
        FilePoint("xaod", "lzma", 5, 100, 0, 0, "rntuple", 65536, branch_compression="largest4:lz4-1")


def test_a_scan_makes_its_own_files_and_a_rewrite_keeps_one_setting():
    config = load_study_config(
        {
            "formats": {"xaod": {"written": 10, "read": 10}},
            "scans": {
                "hot": {
                    "algorithm": ["lzma"],
                    "level": [5],
                    "branch_compression": ["uniform", "largest4:lz4-1"],
                }
            },
        }
    )
    assert all(s["branch_compression"] == "uniform" for s in config["file_defaults"].values())
    ids = sorted(f.id for f in file_points(expand_points(config)))
    assert ids == [
        "lzma-5_af100_split0_basket32000",
        "lzma-5_af100_split0_basket32000_bclargest4-lz4-1",
        "zlib-5_af100_split0_basket32000",
    ]
    rewrite = FilePoint("mine", "lz4", 4, 100, -1, 0, origin="rewrite", branch_compression="largest4:lz4-1")
    assert rewrite.branch_compression == "uniform" and "_bc" not in rewrite.id


def test_a_choice_of_every_branch_or_of_none_names_the_format_and_what_is_valid():
    """Per-branch compression that a file cannot take, found when its branches are ranked: a user's error,
    with the value, the format and the valid range or the nearest branch names."""
    ranked = ["TauJets", "Muons", "Electrons"]
    largest = FilePoint("xaod", "lzma", 5, 100, 0, 32000, branch_compression="largest3:lz4-1")
    with pytest.raises(BranchCompressionError) as every:
        _choose_branches(largest, ranked)
    assert isinstance(every.value, UserError) and str(every.value).startswith(
        "branch_compression 'largest3:lz4-1' would cover every branch of format xaod: its file has 3 top-level"
    )
    assert "use largest1 to largest2" in str(every.value)
    regex = FilePoint("xaod", "lzma", 5, 100, 0, 32000, branch_compression="match:^Tau$:lz4-1")
    nearest = r"'match:\^Tau\$:lz4-1' finds no branch of format xaod.*the nearest are TauJets"
    with pytest.raises(BranchCompressionError, match=nearest):
        _choose_branches(regex, ranked)
    two = FilePoint("xaod", "lzma", 5, 100, 0, 32000, branch_compression="largest2:lz4-1")
    assert _choose_branches(two, ranked) == ["TauJets", "Muons"]


# Real files -------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def susy5_files(build, tmp_path_factory):
    """SUSY5 (split 1) at uniform LZ4-1 and LZMA-5, and at LZMA-5 with its 2 largest branches at LZ4-1 and with
    the Electrons branches (a regex) at LZ4-1: the same events, from one content file. The four files are written
    two at a time (conftest.side_by_side), each still with ROOT's implicit MT on 2 threads."""
    tmp = tmp_path_factory.mktemp("hot")
    tools = {"writer": str(build["writer"]), "reader": str(build["reader"])}
    content = FilePoint("susy5", "zlib", 1, -10_000_000, 1, 32000)
    generate_file(content, events=EVENTS, seed=5, output=str(tmp / "content.root"), catalogue=None, **tools)
    points = {
        name: FilePoint("susy5", alg, level, -10_000_000, 1, 32000, branch_compression=hot)
        for name, alg, level, hot in (
            ("lz4", "lz4", 1, "uniform"),
            ("lzma", "lzma", 5, "uniform"),
            ("largest2", "lzma", 5, "largest2:lz4-1"),
            ("electrons", "lzma", 5, "match:^Electrons:lz4-1"),
        )
    }
    writes = [
        functools.partial(
            generate_file,
            point,
            events=EVENTS,
            seed=5,
            output=str(tmp / f"{point.id}.root"),
            catalogue=None,
            content=str(tmp / "content.root"),
            threads=2,  # LZMA-5 is compression-bound: ROOT's implicit MT compresses a cluster's baskets in parallel
            **tools,
        )
        for point in points.values()
    ]
    out = dict(zip(points, side_by_side(*writes), strict=True))
    for name, point in points.items():
        out[name]["path"] = tmp / f"{point.id}.root"
    return out


def branch_settings(path) -> dict[str, set[int]]:
    """Per top-level branch, the compression settings of it and every branch below it, as stored in the file."""
    import ROOT

    f = ROOT.TFile.Open(str(path))
    tree = f.Get("CollectionTree")
    out = {}
    for top in tree.GetListOfBranches():
        settings, todo = set(), [top]
        while todo:
            b = todo.pop()
            settings.add(b.GetCompressionSettings())
            todo.extend(b.GetListOfBranches())
        out[top.GetName()] = settings
    f.Close()
    return out


def test_the_largest_branches_get_their_own_setting_down_to_every_sub_branch(susy5_files):
    entry = susy5_files["largest2"]
    hot = entry["hot_branches"].split(";")
    assert len(hot) == 2 and entry["hot_compression_setting"] == 401
    assert "content file" in entry["hot_branches_ranked_on"]
    settings = branch_settings(entry["path"])
    assert all(settings[b] == {401} for b in hot), {b: settings[b] for b in hot}
    assert all(s == {205} for name, s in settings.items() if name not in hot)
    # They are the largest: no other branch of the uniform file holds more uncompressed bytes.
    import ROOT

    f = ROOT.TFile.Open(str(susy5_files["lzma"]["path"]))
    sizes = {b.GetName(): b.GetTotBytes("*") for b in f.Get("CollectionTree").GetListOfBranches()}
    f.Close()
    assert min(sizes[b] for b in hot) >= max(v for k, v in sizes.items() if k not in hot)
    assert entry["branch_compression_settings_in_file"] == "205;401"


def test_a_regex_picks_its_branches(susy5_files):
    entry = susy5_files["electrons"]
    hot = entry["hot_branches"].split(";")
    assert hot and all(b.startswith("Electrons") for b in hot)
    settings = branch_settings(entry["path"])
    assert {n for n, s in settings.items() if s == {401}} == set(hot)


def test_sizes_lie_between_the_uniform_files_and_the_events_are_the_same(susy5_files):
    size = {k: v["size_bytes"] for k, v in susy5_files.items()}
    assert size["lzma"] < size["largest2"] < size["lz4"], size
    # The same bytes before compression, up to the basket headers (ROOT sizes the baskets after the first cluster,
    # which depends on the compressed sizes): within 0.1 %.
    tot = [v["tot_bytes"] for v in susy5_files.values()]
    assert max(tot) / min(tot) < 1.001, tot
    assert {v["events"] for v in susy5_files.values()} == {EVENTS}
    assert (
        susy5_files["lzma"]["hot_branches"] == "" and susy5_files["lzma"]["hot_compression_setting"] is None
    )
