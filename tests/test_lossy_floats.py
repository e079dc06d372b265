"""Reduced float precision as a file setting (float_precision: mantissa<N>): the configuration, the file ids, and
real TRUTH3 files written at 10 mantissa bits as a TTree and an RNTuple: smaller than at full precision, every
float variable's precision lost recorded and within the rounding bound, the RNTuple's truncated float fields
holding the writer's rounded values bit for bit."""

from __future__ import annotations

import functools
import json
import math

import numpy as np
import pytest
from conftest import config_problems as problems
from conftest import side_by_side

from rootparams.measure.generate import FLOAT_PRECISION_LOSS, generate_file
from rootparams.results.aggregate import _FLOAT_PRECISION_COLUMNS, float_precision_table, load_catalogue
from rootparams.study.config import load_study_config
from rootparams.study.grid import FILE_ID_PATTERN, FilePoint, expand_points, file_points
from rootparams.vocabulary import mantissa_bits

N = 10  # mantissa bits kept in the written files
EVENTS = 300


# Configuration and ids ------------------------------------------------------------------------------------------


def test_float_precision_defaults_to_full_and_scans_make_their_own_files():
    config = load_study_config(
        {
            "formats": {"xaod": {"written": 10, "read": 10}},
            "scans": {"lossy": {"formats": ["xaod"], "float_precision": ["full", "mantissa7"]}},
        }
    )
    assert all(s["float_precision"] == "full" for s in config["file_defaults"].values())
    ids = sorted(f.id for f in file_points(expand_points(config)))
    assert ids == ["zlib-5_af100_split0_basket32000", "zlib-5_af100_split0_basket32000_fpm7"]


@pytest.mark.parametrize("bad", ["mantissa0", "mantissa23", "mantissa", "half", "mantissa10x", "Mantissa5"])
def test_invalid_float_precision_names_the_key_the_value_and_what_is_valid(bad):
    found = problems({"scans": {"lossy": {"float_precision": [bad]}}})
    assert len(found) == 1
    assert f"scans.lossy.float_precision[0] = {bad!r}" in found[0]
    assert "'full'" in found[0] and "'mantissa<N>'" in found[0] and "1 to 22" in found[0]
    found = problems({"file_defaults": {"xaod": {"float_precision": bad}}})
    assert f"file_defaults.xaod.float_precision = {bad!r}" in found[0]


@pytest.mark.parametrize(
    "point",
    [
        FilePoint("xaod", "zlib", 5, 100, 0, 32000, float_precision="mantissa10"),
        FilePoint("truth3", "zstd", 5, -10000000, 99, 64000, float_precision="mantissa1"),
        FilePoint("susy5", "lz4", 1, 200, 0, 0, "rntuple", 65536, float_precision="mantissa22"),
        FilePoint("topq1", "none", 0, 100, 1, 32000),
    ],
)
def test_file_ids_round_trip(point):
    import re

    assert re.fullmatch(FILE_ID_PATTERN, point.id)
    assert FilePoint.from_id(point.format, point.id) == point
    bits = mantissa_bits(point.float_precision)
    assert point.id.endswith(f"_fpm{bits}") if bits else "_fpm" not in point.id


def test_full_precision_ids_do_not_change_and_bad_values_are_refused():
    assert FilePoint("xaod", "zlib", 5, 100, 0, 32000).id == "zlib-5_af100_split0_basket32000"
    for bad in ("mantissa0", "mantissa23", "fp16"):
        with pytest.raises(ValueError, match="float_precision"):
            FilePoint("xaod", "zlib", 5, 100, 0, 32000, float_precision=bad)
    with pytest.raises(ValueError):
        FilePoint.from_id("xaod", "zlib-5_af100_split0_basket32000_fpm23")


def test_a_rewrite_keeps_full_precision():
    # A copy by ROOT does not round: the setting is normalized, and a source scan of it is refused by the config.
    point = FilePoint("mine", "lz4", 4, 100, -1, 0, origin="rewrite", float_precision="mantissa10")
    assert point.float_precision == "full" and "_fpm" not in point.id
    from rootparams.vocabulary import unrewritable, why_not

    assert unrewritable("ttree", ["float_precision"]) == ["float_precision"]
    assert "our writer" in why_not("ttree", "float_precision")


# Real files -------------------------------------------------------------------------------------------------------


def rne(values: np.ndarray, bits: int) -> np.ndarray:
    """float32 values rounded to ``bits`` explicit mantissa bits, ties to even (independent of the writer)."""
    b = values.astype(np.float32).view(np.uint32).astype(np.uint64)
    drop = 23 - bits
    mask = (1 << drop) - 1
    return ((b + (mask >> 1) + ((b >> drop) & 1)) & ~np.uint64(mask)).astype(np.uint32).view(np.float32)


@pytest.fixture(scope="module")
def truth3_files(build, tmp_path_factory):
    """TRUTH3 at full precision and at 10 mantissa bits, as a TTree and as an RNTuple, the same events; the four
    files written two at a time (conftest.side_by_side: each a writer process of its own, to its own paths)."""
    tmp = tmp_path_factory.mktemp("lossy")
    tools = {"writer": str(build["writer"]), "reader": str(build["reader"])}
    keys = [(c, p) for c in ("ttree", "rntuple") for p in ("full", f"mantissa{N}")]
    pages = {"ttree": 0, "rntuple": 65536}
    writes = []
    for container, precision in keys:
        point = FilePoint(
            "truth3", "zstd", 5, 100, 1, 32000, container, pages[container], float_precision=precision
        )
        writes.append(
            functools.partial(
                generate_file,
                point,
                events=EVENTS,
                seed=3,
                output=str(tmp / f"{point.id}.root"),
                catalogue=str(tmp / f"{container}_{precision}.json"),
                **tools,
            )
        )
    out = dict(zip(keys, side_by_side(*writes), strict=True))
    for container, precision in keys:
        out[container, precision]["catalogue"] = tmp / f"{container}_{precision}.json"
    return out


@pytest.mark.parametrize("container", ["ttree", "rntuple"])
def test_rounded_floats_make_a_smaller_file(truth3_files, container):
    full, lossy = truth3_files[container, "full"], truth3_files[container, f"mantissa{N}"]
    assert full["events"] == lossy["events"] == EVENTS
    assert full["float_precision"] == "full" and full["float_values_truncated"] == 0
    assert lossy["float_precision"] == f"mantissa{N}" and lossy["float_values_truncated"] > 100_000
    saved = 1 - lossy["size_bytes"] / full["size_bytes"]
    # 300 TRUTH3 events at ZSTD-5 (ROOT 6.40): the TTree about 16% smaller (the floats keep 4 bytes, their zeroed
    # low bits compress better), the RNTuple about 22% (its float pages are also bit-packed to 19 bits).
    assert saved > {"ttree": 0.10, "rntuple": 0.15}[container], saved
    if container == "ttree":
        assert lossy["tot_bytes"] == full["tot_bytes"]  # same bytes before compression
    else:
        assert (
            lossy["tot_bytes"] < 0.95 * full["tot_bytes"]
        )  # truncated columns: fewer bytes before compression


@pytest.mark.parametrize("container", ["ttree", "rntuple"])
def test_the_precision_lost_is_recorded_per_variable_within_the_bound(truth3_files, container):
    lossy = truth3_files[container, f"mantissa{N}"]
    records = lossy[FLOAT_PRECISION_LOSS]
    assert records and sum(r["values"] for r in records) == lossy["float_values_truncated"]
    assert {(r["collection"], r["variable"]) for r in records} >= {
        ("TruthElectrons", "px"),
        ("EventInfo", "mcEventWeights"),
    }
    bound = 2.0 ** -(N + 1)
    for r in records:
        assert r["mantissa_bits"] == N
        assert r["max_rel_error"] <= bound, r
        assert 0 <= r["rms_rel_error"] <= r["max_rel_error"] * (1 + 1e-12), r  # equal for a constant variable
    # Smooth distributions of many values: the rounding error is about uniform within half a unit in the last
    # place, so the RMS relative error is bound/sqrt(3) at the bottom of a binade and smaller above (loosely).
    for r in records:
        if r["variable"] in ("px", "py", "pz", "e") and r["values"] > 500:
            assert 0.4 * bound / math.sqrt(3) < r["rms_rel_error"] < 1.1 * bound / math.sqrt(3), r
            assert r["max_rel_error"] > 0.9 * bound  # some value lies near the worst case
    assert truth3_files[container, "full"][FLOAT_PRECISION_LOSS] == []


def test_the_values_read_back_are_the_rounded_ones_bit_for_bit(truth3_files):
    """The TTree holds the writer's rounded values as floats; the RNTuple's truncated fields (ROOT truncates
    towards zero) give back exactly the same values, because the writer rounded them to N bits first. Both equal
    the full-precision file's values rounded here, independently of the writer."""
    import awkward as ak
    import uproot

    def values(entry, name):
        with uproot.open(entry["path"]) as f:
            array = f["CollectionTree"][name].array()
        return ak.to_numpy(ak.flatten(array, axis=None)).astype(np.float32)

    full, tree, ntuple = (
        truth3_files["ttree", "full"],
        truth3_files["ttree", f"mantissa{N}"],
        truth3_files["rntuple", f"mantissa{N}"],
    )
    for container, variable in (
        ("TruthElectrons", "px"),
        ("TruthBottom", "e"),
        ("EventInfo", "mcEventWeights"),
    ):
        branch = f"{container}Aux./{container}Aux.{variable}"
        original = values(full, branch)
        expected = rne(original, N)
        assert len(expected) > 100 and not np.array_equal(expected, original)
        assert np.array_equal(values(tree, branch).view(np.uint32), expected.view(np.uint32)), branch
        field = f"{container}AuxDyn:{variable}"
        assert np.array_equal(values(ntuple, field).view(np.uint32), expected.view(np.uint32)), field
        # The writer's record of the variable agrees with the values.
        record = next(
            r
            for r in ntuple[FLOAT_PRECISION_LOSS]
            if (r["collection"], r["variable"]) == (container, variable)
        )
        assert record["values"] == len(expected)
        err = np.abs(original.astype(np.float64) - expected.astype(np.float64))
        assert record["max_abs_error"] == pytest.approx(err.max(), rel=1e-12)
        nonzero = original != 0
        assert record["max_rel_error"] == pytest.approx(
            (err[nonzero] / np.abs(original[nonzero])).max(), rel=1e-9
        )


def test_float_precision_table(truth3_files, tmp_path):
    catalogues = [e["catalogue"] for e in truth3_files.values()]
    table = float_precision_table(catalogues)
    assert list(table.columns) == _FLOAT_PRECISION_COLUMNS
    assert set(table["file_id"]) == {truth3_files[c, f"mantissa{N}"]["file_id"] for c in ("ttree", "rntuple")}
    assert (table["mantissa_bits"] == N).all() and (table["max_rel_error"] <= 2.0 ** -(N + 1)).all()
    files = load_catalogue(catalogues)
    assert FLOAT_PRECISION_LOSS not in files.columns
    assert {"float_precision", "float_values_truncated"} <= set(files.columns)
    # Full-precision files only: the header and no rows.
    empty = float_precision_table([truth3_files["ttree", "full"]["catalogue"]])
    empty.to_csv(tmp_path / "fp.csv", index=False)
    assert (tmp_path / "fp.csv").read_text().strip() == ",".join(_FLOAT_PRECISION_COLUMNS)
    assert json.loads(truth3_files["ttree", "full"]["catalogue"].read_text())["float_precision"] == "full"


def test_float_precision_of_a_named_source_is_an_error_and_an_unnamed_one_leaves_it_out():
    from conftest import SHARED_DATA, require
    from conftest import config_problems as problems

    from rootparams.study.config import left_out_notes

    physlite = SHARED_DATA / "atlas_physlite_run2_ttbar_100ev.root"
    require(physlite.exists(), f"the real samples in {SHARED_DATA}")
    formats = {"lite": {"source": str(physlite), "read": 100}, "susy5": {"written": 100, "read": 100}}
    found = problems(
        {"formats": formats, "scans": {"fp": {"formats": ["lite"], "float_precision": ["mantissa10"]}}}
    )
    assert any(
        "scans.fp.float_precision: format 'lite' is a source file" in p and "our writer" in p for p in found
    )
    config = load_study_config({"formats": formats, "scans": {"fp": {"float_precision": ["mantissa10"]}}})
    assert {p.file.format for p in expand_points(config) if "fp" in p.scans} == {"susy5"}
    assert any("scan fp leaves source format lite out" in note for note in left_out_notes(config))


def test_events_read_from_the_content_file_are_rounded_alike(build, truth3_files, tmp_path):
    # The workflow writes each point from the format's content file (full precision): the same rounded events.
    from rootparams.tools.processes import run_tool

    generated = truth3_files["rntuple", f"mantissa{N}"]
    point = FilePoint("truth3", "zstd", 5, 100, 1, 32000, "rntuple", 65536, float_precision=f"mantissa{N}")
    copied = generate_file(
        point,
        events=EVENTS,
        seed=3,
        writer=str(build["writer"]),
        reader=str(build["reader"]),
        output=str(tmp_path / "c.root"),
        catalogue=None,
        content=truth3_files["ttree", "full"]["path"],
    )
    sums = [
        run_tool([str(build["reader"]), "--file", e["path"], "--checksum"], "checksum")["content_checksum"]
        for e in (generated, copied, truth3_files["ttree", f"mantissa{N}"], truth3_files["ttree", "full"])
    ]
    assert sums[0] == sums[1] == sums[2] != sums[3]
    assert copied[FLOAT_PRECISION_LOSS] == generated[FLOAT_PRECISION_LOSS]


def test_a_coarser_recipe_truncation_stays_and_flat_leaves_are_rounded_too(build, tmp_path):
    # NanoAOD-like recipe: scalar leaves and leaf-list arrays; some floats are truncated to 10 or 12 bits already.
    tools = {"writer": str(build["writer"]), "reader": str(build["reader"]), "catalogue": None}
    point = FilePoint("nanoaod", "zlib", 1, 0, 99, 32000, float_precision="mantissa12")
    entry = generate_file(point, events=50, seed=5, output=str(tmp_path / "n.root"), **tools)
    loss = {r["variable"]: r for r in entry[FLOAT_PRECISION_LOSS]}
    for kept in (
        "CaloMET_pt",
        "CaloMET_phi",
        "DeepMETResolutionTune_phi",
    ):  # trunc 10 and trunc 12 in the recipe
        assert loss[kept]["values"] == 50 and loss[kept]["max_abs_error"] == 0, loss[kept]
    assert any(r["max_abs_error"] > 0 for r in loss.values())  # the other floats do lose precision
    assert all(r["max_rel_error"] <= 2.0**-13 for r in loss.values())
