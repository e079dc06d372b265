"""How a study's timed reads are cut into measuring jobs (rootparams.study.blocks): blocks per format and pass, each
pass's share of the repetitions, the order the passes run in, and the level pairs the sequential rounds measure."""

import re

import pytest

from rootparams.study import blocks
from rootparams.study.grid import FilePoint, Point, ReadPoint


def test_one_pass_keeps_the_format_as_the_block_name():
    assert blocks._block_names(["xaod", "truth3"], 1) == ["xaod", "truth3"]
    assert blocks._split_block("xaod") == ("xaod", 1)


def test_passes_run_one_after_the_other_over_every_format():
    names = blocks._block_names(["xaod", "truth3"], 3)
    assert names == ["xaod.pass1", "truth3.pass1", "xaod.pass2", "truth3.pass2", "xaod.pass3", "truth3.pass3"]
    assert blocks._split_block("truth3.pass2") == ("truth3", 2)
    assert blocks.earlier_blocks("xaod.pass3", ["xaod", "truth3"], 3) == ["xaod.pass2", "truth3.pass2"]
    assert blocks.earlier_blocks("xaod.pass1", ["xaod", "truth3"], 3) == []
    assert blocks.is_last_pass("truth3.pass3", 3) and not blocks.is_last_pass("truth3.pass2", 3)
    pattern = re.compile(blocks.block_pattern(["xaod", "truth3"]))
    assert all(pattern.fullmatch(n) for n in names) and not pattern.fullmatch("susy5.pass1")


@pytest.mark.parametrize(("reps", "passes"), [(10, 3), (10, 2), (10, 1), (3, 3), (7, 4)])
def test_each_repetition_belongs_to_exactly_one_pass(reps, passes):
    split = [blocks._pass_repetitions(reps, passes, k) for k in range(1, passes + 1)]
    assert sorted(r for part in split for r in part) == list(range(reps))
    assert max(map(len, split)) - min(map(len, split)) <= 1
    assert blocks._pass_repetitions(10, 3, 1) == [0, 1, 2, 3]


def test_an_adaptive_plan_is_one_pass_and_a_pass_needs_a_repetition():
    assert blocks.passes({"passes": 3, "adaptive": {"x": 1}}, 10) == 1
    assert blocks.passes({"passes": 3}, 2) == 2
    assert blocks.passes({}, 10) == 1


def point(algorithm, level, scans=("compression",), read="r"):
    file = FilePoint("truth3", algorithm, level, 10000000, 1, 32000)
    read_point = ReadPoint(-1, "default", 1, "particle", "hdd")
    return Point(file, read_point, scans)


def test_level_pairs_are_the_physics_checks_pairs():
    points = [
        point("zlib", 1),
        point("zlib", 5),
        point("zlib", 9),
        point("lz4", 1),
        point("lz4", 5),
        point("lz4", 9),
        point("none", 0),
        point("zstd", 5, scans=("autoflush",)),
    ]
    pairs = blocks.level_pairs(points)
    # ZLIB: three pairs; LZ4: its fast mode (1) alone, 5/9 one pair; uncompressed and points outside the scan none.
    assert sorted(pairs) == [(0, 1), (0, 2), (1, 2), (4, 5)]
