"""ROOT's decompression per content kind (rootparams.measure.unzipkinds): the aggregation and the mix on made-up figures, then
the real tool on a file our writer made (its compression in memory gives the file's own bytes at the file's
setting) and on a real ATLAS PHYSLITE sample."""

import math

import pandas as pd
import pytest
from conftest import SHARED_DATA, require

from rootparams.measure import unzipkinds
from rootparams.measure.generate import generate_file
from rootparams.ownfile.inspection import Inspection, Row, inspect_file
from rootparams.study.grid import FilePoint
from rootparams.tools.processes import ToolError
from rootparams.vocabulary import TTREE

DENSE, LINKS = "dense vector<float/double>", "element links"


def inspection(rows: list[Row]) -> Inspection:
    return Inspection(
        source="made-up.root",
        reader="uproot",
        file_size=0,
        file_compression=505,
        container=TTREE,
        name="CollectionTree",
        entries=10,
        clusters=1,
        clusters_how="",
        layout="xAOD",
        compressed=sum(r.compressed for r in rows),
        uncompressed=sum(r.uncompressed for r in rows),
        top_level=len(rows),
        everything=len(rows),
        rows=rows,
        kinds=[],
        other_compression={},
        data_compression=505,
        all_branches=True,
    )


MADE_UP = inspection(
    [
        Row("JetsAuxDyn.pt", "JetsAuxDyn.pt", "vector<float>", DENSE, 400, 1000, 505),
        Row("JetsAuxDyn.eta", "JetsAuxDyn.eta", "vector<float>", DENSE, 1200, 3000, 505),
        Row("JetsAux.", "JetsAux.", "xAOD::JetAuxContainer", "interface / static-aux objects", 0, 0, 505),
        Row("JetsAuxDyn.links", "JetsAuxDyn.links", "vector<ElementLink<X>>", LINKS, 100, 1000, 505),
    ]
)


def result(timings: list[dict]) -> dict:
    branches = [
        {"index": 0, "name": "JetsAuxDyn.pt", "group": DENSE, "file_bytes": 40},
        {"index": 1, "name": "JetsAuxDyn.eta", "group": DENSE, "file_bytes": 120},
        {"index": 3, "name": "JetsAuxDyn.links", "group": LINKS, "file_bytes": 10},
    ]
    return {"file": "made-up.root", "branches": branches, "timings": timings}


def timing(setting, group, out_bytes, in_bytes, seconds, raw=0):
    return {
        "setting": setting,
        "group": group,
        "baskets": 2,
        "unzip_output_bytes": out_bytes,
        "unzip_input_bytes": in_bytes,
        "stored_raw_bytes": raw,
        "stored_raw_baskets": 1 if raw else 0,
        "passes": 3,
        "cpu_seconds": seconds,
        "wall_seconds": seconds,
    }


def test_the_plan_samples_every_branch_of_a_kind_at_the_same_share():
    plan = unzipkinds.sample_plan(MADE_UP, bytes_per_kind=2000)
    assert [(e.index, e.name) for e in plan] == [
        (0, "JetsAuxDyn.pt"),
        (1, "JetsAuxDyn.eta"),
        (3, "JetsAuxDyn.links"),
    ]
    shares = {e.name: e.share for e in plan}
    assert (
        shares["JetsAuxDyn.pt"] == shares["JetsAuxDyn.eta"] == pytest.approx(0.5)
    )  # 2000 of the kind's 4000
    assert shares["JetsAuxDyn.links"] == 1.0  # a kind smaller than the budget is taken whole
    assert unzipkinds._plan_text(plan).splitlines()[0] == f"0\tJetsAuxDyn.pt\t{DENSE}\t0.5"


def test_the_summary_per_kind_and_setting():
    res = result(
        [
            timing(505, DENSE, 2_000_000, 500_000, [0.004, 0.006, 0.005]),
            timing(505, LINKS, 1_000_000, 100_000, [0.001, 0.001]),
            timing(401, DENSE, 1_500_000, 1_000_000, [0.0005], raw=500_000),
        ]
    )
    table = unzipkinds.kind_summary("xaod", res, MADE_UP)
    dense = table[(table["kind"] == DENSE) & (table["algorithm"] == "zstd")].iloc[0]
    assert (dense["level"], dense["compression_setting"], dense["branches"]) == (5, 505, 2)
    assert dense["kind_uncompressed_bytes_in_file"] == 4000
    assert dense["sample_file_bytes"] == 160
    assert dense["compression_ratio"] == pytest.approx(4.0)
    assert dense["unzip_cpu_s_per_mb_uncompressed_mean"] == pytest.approx(0.0025)  # 5 ms per 2 MB
    assert dense["unzip_cpu_s_per_mb_uncompressed_n"] == 3
    assert (
        dense["unzip_cpu_s_per_mb_uncompressed_ci95_low"]
        < 0.0025
        < dense["unzip_cpu_s_per_mb_uncompressed_ci95_high"]
    )
    lz4 = table[(table["kind"] == DENSE) & (table["algorithm"] == "lz4")].iloc[0]
    # A basket stored as it is counts in the sample's bytes (both ways) but not in the unzip output.
    assert lz4["sample_uncompressed_bytes"] == 2_000_000 and lz4["sample_compressed_bytes"] == 1_500_000
    assert lz4["stored_raw_fraction"] == pytest.approx(0.25)
    assert lz4["unzip_cpu_s_per_mb_uncompressed_mean"] == pytest.approx(0.0005 / 1.5)
    assert math.isnan(lz4["unzip_cpu_s_per_mb_uncompressed_ci95_low"])  # one repetition: no interval


def test_the_mix_of_kinds_weighs_what_is_unzipped():
    table = pd.DataFrame(
        [
            {
                "format": "f",
                "kind": "a",
                "algorithm": "lz4",
                "level": 1,
                "stored_raw_fraction": 0.0,
                "unzip_cpu_s_per_mb_uncompressed_mean": 1.0,
            },
            {
                "format": "f",
                "kind": "b",
                "algorithm": "lz4",
                "level": 1,
                "stored_raw_fraction": 0.5,
                "unzip_cpu_s_per_mb_uncompressed_mean": 4.0,
            },
            {
                "format": "f",
                "kind": "c",
                "algorithm": "lz4",
                "level": 1,
                "stored_raw_fraction": 1.0,
                "unzip_cpu_s_per_mb_uncompressed_mean": math.nan,
            },
        ]
    )
    assert unzipkinds.mixed_rate(table, "f", "lz4", 1, {"a": 0.5, "b": 0.5}) == pytest.approx(
        (0.5 + 1.0) / 0.75
    )
    # A kind whose every basket is stored as it is costs nothing and is not unzipped.
    assert unzipkinds.mixed_rate(table, "f", "lz4", 1, {"a": 0.5, "c": 0.5}) == pytest.approx(1.0)
    assert math.isnan(unzipkinds.mixed_rate(table, "f", "lz4", 1, {"a": 0.5, "d": 0.5}))  # no figure for d
    assert math.isnan(unzipkinds.mixed_rate(table, "f", "zlib", 1, {"a": 1.0}))  # no figure at that setting


def test_the_fractions_of_a_selection():
    assert unzipkinds.kind_fractions(MADE_UP) == {DENSE: 0.8, LINKS: 0.2}
    assert unzipkinds.kind_fractions(MADE_UP, ["JetsAuxDyn.pt"]) == {DENSE: 1.0}


def test_the_settings_of_a_study_are_its_compressing_ttree_ones():
    from rootparams.study.grid import Point, ReadPoint

    read = ReadPoint(-1, "default", 1, "particle", "native")
    points = [
        Point(FilePoint("xaod", "zlib", 5, 100, 0, 32000), read),
        Point(FilePoint("xaod", "lz4", 1, 100, 0, 32000), read),
        Point(FilePoint("xaod", "none", 0, 100, 0, 32000), read),
        Point(FilePoint("xaod", "zstd", 5, 100, 0, 32000, container="rntuple"), read),
    ]
    assert unzipkinds.study_settings(points) == {"xaod": [105, 401]}


@pytest.fixture(scope="module")
def written(build, tmp_path_factory):
    out = tmp_path_factory.mktemp("unzipkinds") / "truth3.root"
    generate_file(
        FilePoint("truth3", "zlib", 5, 100, 1, 32000),
        events=600,
        seed=11,
        writer=str(build["writer"]),
        reader=str(build["reader"]),
        output=str(out),
        catalogue=None,
    )
    return out


def test_compressed_in_memory_as_root_writes_it(build, written, tmp_path):
    res, ins = unzipkinds.measure(
        str(build["unzip_kinds"]),
        str(written),
        [105, 404],
        bytes_per_kind=1_000_000,
        repetitions=3,
        host_lock=tmp_path / "lock",
    )
    table = unzipkinds.kind_summary("truth3", res, ins)
    with_bytes = {r.kind for r in ins.rows if r.uncompressed}
    assert set(table["kind"]) == with_bytes
    # At the file's own setting, every sampled basket compresses to the bytes the file holds for it.
    zlib = table[table["compression_setting"] == 105]
    assert (zlib["sample_compressed_bytes"] == zlib["sample_file_bytes"]).all()
    assert (table["unzip_cpu_s_per_mb_uncompressed_n"] == 3).all()
    assert (table["unzip_cpu_s_per_mb_uncompressed_mean"] > 0).all()
    # With a budget larger than the file, the sample is all of its baskets (ROOT's totals add each key's bytes).
    whole = unzipkinds.kind_summary(
        "truth3",
        unzipkinds.measure(
            str(build["unzip_kinds"]),
            str(written),
            [404],
            bytes_per_kind=10**9,
            repetitions=1,
            host_lock=tmp_path / "lock",
        )[0],
        ins,
    )
    assert 0.97 * ins.uncompressed < whole["sample_uncompressed_bytes"].sum() <= ins.uncompressed
    # Whether LZ4 unzips the same bytes in less CPU than ZLIB is a timed comparison, printed by
    # benchmarks/timed_checks.py (unzip-kinds).


def test_a_plan_for_another_file_is_refused(build, written, tmp_path):
    plan = tmp_path / "plan.tsv"
    plan.write_text("0\tNoSuchBranch\tk\t1\n")
    with pytest.raises(ToolError, match="NoSuchBranch"):
        from rootparams.tools.processes import run_tool

        run_tool(
            [str(build["unzip_kinds"]), "--file", str(written), "--plan", str(plan), "--settings", "101"], "t"
        )


def test_a_real_physlite_sample(build, tmp_path):
    sample = SHARED_DATA / "atlas_physlite_run2_ttbar_100ev.root"
    require(sample.exists(), f"{sample} is not here")
    res, ins = unzipkinds.measure(
        str(build["unzip_kinds"]),
        str(sample),
        [101, 207, 404, 505],
        bytes_per_kind=300_000,
        repetitions=2,
        host_lock=tmp_path / "lock",
    )
    table = unzipkinds.kind_summary("physlite", res, ins)
    assert len(table) == 4 * len({r.kind for r in ins.rows if r.uncompressed})
    assert (table["compression_ratio"] > 1).all()
    links = table[(table["kind"] == LINKS)].set_index("algorithm")
    # Whether LZMA unzips every kind slower than LZ4 is a timed comparison, printed by
    # benchmarks/timed_checks.py (unzip-kinds).
    assert links.loc["lzma", "compression_ratio"] > links.loc["lz4", "compression_ratio"]
    fractions = unzipkinds.kind_fractions(inspect_file(str(sample), all_branches=True))
    mix = unzipkinds.mixed_rate(table, "physlite", "zlib", 1, fractions)
    rates = table[table["algorithm"] == "zlib"]["unzip_cpu_s_per_mb_uncompressed_mean"]
    assert rates.min() <= mix <= rates.max()
