"""A scan's figures and findings follow from what it varies: a scan of another name that varies what a known scan
varies is drawn and judged as that one; one that matches none is said to be in no figure, with the name it may
have meant."""

from rootparams.study.config import load_study_config
from rootparams.study.grid import expand_points
from rootparams.study.scans import kind_of, notes, varied


def test_what_a_scan_varies():
    assert varied({"algorithm": ["lz4", "zlib"], "level": [5], "formats": ["xaod", "truth3"]}) == {
        "algorithm"
    }
    assert varied({"level": [1, 1]}) == set()


def test_a_misspelled_or_renamed_scan_stands_for_the_known_one():
    assert kind_of("compresion", {"algorithm": ["lz4", "zlib"], "level": [1, 9]}) == "compression"
    assert kind_of("levels", {"algorithm": ["zstd"], "level": [1, 5, 9]}) == "compression"
    assert kind_of("my_af", {"algorithm": ["lz4"], "level": [5], "autoflush": [10, 100]}) == "autoflush"
    assert kind_of("cachesizes", {"cache_size": [0, -1]}) == "cache"
    # Known names keep their meaning, whatever they vary.
    assert kind_of("threads", {"algorithm": ["lz4", "lzma"], "threads": [1, 2]}) == "threads"
    # Threads and the algorithm: a threads scan, not a compression scan.
    assert kind_of("mt", {"algorithm": ["lz4", "lzma"], "threads": [1, 2]}) == "threads"
    # Nothing known varies the basket size alone.
    assert kind_of("baskets", {"basket_size": [8000, 64000]}) is None


def test_the_study_says_what_it_made_of_an_unknown_scan():
    said = notes(
        {
            "compresion": {"algorithm": ["lz4", "zlib"], "level": [1, 9]},
            "baskets": {"basket_size": [8000, 64000]},
            "compression": {"level": [1, 9]},
        }
    )
    assert len(said) == 2
    assert "scans.compresion varies algorithm, level: drawn and judged as the 'compression' scan" in said[0]
    assert "did you mean 'compression'?" in said[0]
    assert "scans.baskets varies basket_size" in said[1] and "in no figure" in said[1]


def test_the_points_of_a_renamed_scan_feed_the_known_scans_artifacts():
    config = load_study_config(
        {
            "formats": {"xaod": {"written": 10, "read": 10}},
            "scans": {"compresion": {"algorithm": ["lz4", "zlib"]}},
        }
    )
    scanned = [p for p in expand_points(config) if "compresion" in p.scans]
    assert scanned and all("compression" in p.scans for p in scanned)
