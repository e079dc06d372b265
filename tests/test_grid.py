"""Grid expansion: scans over per-format defaults, de-duplicated, with ids that round-trip."""

from rootparams.config import load_study_config
from rootparams.grid import FilePoint, expand_points, file_points


def study(**scans):
    return load_study_config(
        {
            "formats": {"xaod": {"written": 10, "read": 10}, "truth3": {"written": 10, "read": 10}},
            "scans": scans,
        }
    )


def test_shared_points_are_made_once_and_remember_their_scans():
    points = expand_points(
        study(compression={"algorithm": ["zlib", "lz4"], "level": [5]}, split={"split_level": [0, 1]})
    )
    xaod_default = [
        p
        for p in points
        if p.file.format == "xaod" and p.file.algorithm == "zlib" and p.file.split_level == 0
    ]
    assert len(xaod_default) == 1
    assert set(xaod_default[0].scans) == {"default", "compression", "split"}
    # 2 formats x (default + lz4 + the other split level) = 6 distinct points
    assert len(points) == 6


def test_scan_limited_to_some_formats():
    points = expand_points(study(threads={"formats": ["xaod"], "threads": [1, 2]}))
    assert {(p.file.format, p.read.threads) for p in points} == {("xaod", 1), ("xaod", 2), ("truth3", 1)}


def test_uncompressed_has_one_canonical_level():
    points = expand_points(study(compression={"algorithm": ["none"], "level": [1, 5, 9]}))
    assert {p.file.level for p in points if p.file.algorithm == "none"} == {0}
    assert len(file_points(points)) == 4


def test_ids_round_trip():
    point = FilePoint("topq1", "lzma", 9, -20_000_000, 99, 64000)
    assert point.id == "lzma-9_af-20000000_split99_basket64000"
    assert FilePoint.from_id("topq1", point.id) == point
    assert point.compression_setting == 209
