"""Generated files checked by an independent reader (uproot) and by a layout-independent content checksum."""

import functools
import struct

import awkward as ak
import numpy as np
import pytest
import uproot
from conftest import side_by_side

from rootparams.measure.generate import generate_file
from rootparams.measure.measure import run_tool
from rootparams.study.formats import (
    FLAT_FORMATS,
    KNOWN_FORMATS,
    SAME_RECIPE,
    base_format,
    is_longer_read,
    recipe_text,
)
from rootparams.study.grid import FilePoint

# The first two bytes of a compressed ROOT basket payload name its algorithm.
MAGIC = {b"ZL": "zlib", b"XZ": "lzma", b"L4": "lz4", b"ZS": "zstd"}


@pytest.fixture(scope="module")
def make(build, tmp_path_factory):
    out = tmp_path_factory.mktemp("formats")

    def make(fmt, algorithm, level, autoflush, split, events=40, seed=11, basket=32000):
        point = FilePoint(fmt, algorithm, level, autoflush, split, basket)
        path = out / f"{fmt}_{point.id}_s{seed}.root"
        if not path.exists():
            generate_file(
                point,
                events=events,
                seed=seed,
                writer=str(build["writer"]),
                reader=str(build["reader"]),
                output=str(path),
                catalogue=None,
            )
        return path

    return make


def checksum(build, path):
    return run_tool([str(build["reader"]), "--file", str(path), "--checksum"], "checksum")["content_checksum"]


def basket_algorithms(path, tree, limit=40):
    """Algorithm of the first basket of some branches, read from the raw bytes (not from branch metadata)."""
    found = set()
    with open(path, "rb") as raw:
        for branch in list(tree.itervalues(recursive=True))[:limit]:
            seeks = branch.member("fBasketSeek")
            if not len(seeks) or seeks[0] == 0:
                continue
            raw.seek(int(seeks[0]))
            header = raw.read(64)
            nbytes, _version, objlen = struct.unpack(">ihi", header[:10])
            keylen = struct.unpack(">h", header[14:16])[0]
            if nbytes - keylen == objlen:
                found.add("none")  # stored uncompressed (ROOT does so when compression does not pay)
                continue
            raw.seek(int(seeks[0]) + keylen)
            found.add(MAGIC.get(raw.read(2), "unknown"))
    return found


@pytest.mark.parametrize("fmt", [f for f in KNOWN_FORMATS if f not in FLAT_FORMATS])
def test_every_format_has_a_recipe_with_particle_containers(fmt):
    text = recipe_text(fmt)
    assert "container EventInfo" in text
    assert any(cls in text for cls in ("JetContainer_v1", "TruthParticleContainer_v1"))


def test_the_recipes_data_holds_every_xaod_like_format_and_nothing_else():
    # recipes/formats.yaml: the nanoaod recipe is calibrated (nanoaod.recipe), the skim made of susy5's, a longer
    # read (xaod_long) is its base format's recipe.
    from rootparams.study.formats import _builtin_recipes, recipe

    data = _builtin_recipes()
    assert set(data) == set(KNOWN_FORMATS) - {"nanoaod", "susy5_skim", *SAME_RECIPE}
    for fmt in data:
        collections = recipe(fmt)
        assert len({c.name for c in collections}) == len(collections), fmt  # every collection once
        assert collections[0].name == "EventInfo", fmt
    with pytest.raises(ValueError, match="unknown format 'nanoaod'"):
        recipe("nanoaod")


def test_a_longer_read_writes_its_base_formats_recipe():
    # xaod_long: the primary xAOD's events under a name of their own (more of them, for the cache scans).
    for fmt, base in SAME_RECIPE.items():
        assert base_format(fmt) == base and base_format(base) == base
        body = recipe_text(fmt).split("\n", 1)[1]  # the first line names the format
        assert body == recipe_text(base).split("\n", 1)[1]
        # measured in its scans only: no Table 1, Pareto front or decision of its own (its base format's are)
        assert is_longer_read(fmt) and not is_longer_read(base)


def test_a_longer_read_is_labelled_as_what_it_is():
    from rootparams.study.labels import _FORMAT_ORDER, format_title

    assert format_title("xaod_long") == "xAOD-like, 1000 events (cache scans)"
    for fmt, base in SAME_RECIPE.items():  # drawn beside its base format
        assert _FORMAT_ORDER.index(fmt) == _FORMAT_ORDER.index(base) + 1


@pytest.mark.parametrize(("algorithm", "level"), [("zlib", 1), ("lzma", 9), ("lz4", 4), ("zstd", 5)])
def test_basket_headers_carry_the_requested_algorithm(make, algorithm, level):
    path = make("susy5", algorithm, level, 10, 1)
    tree = uproot.open(path)["CollectionTree"]
    algorithms = basket_algorithms(path, tree) - {"none"}
    assert algorithms == {algorithm}
    assert {b.compression.__class__.__name__.lower() for b in tree.itervalues()} == {algorithm}


def test_uncompressed_files_have_uncompressed_baskets(make):
    path = make("susy5", "none", 0, 10, 1)
    assert basket_algorithms(path, uproot.open(path)["CollectionTree"]) == {"none"}


@pytest.mark.parametrize("autoflush", [10, 7])
def test_cluster_boundaries_follow_autoflush(make, autoflush):
    tree = uproot.open(make("truth3", "zlib", 1, autoflush, 1))["CollectionTree"]
    expected = [*range(0, 40, autoflush), 40]
    assert tree.member("fAutoFlush") == autoflush
    with_data = [b for b in tree.itervalues(recursive=True) if b.num_baskets > 0]
    assert len(with_data) > 10
    for branch in with_data:
        # Every cluster boundary is a basket boundary of every branch; a basket that fills up early may add
        # boundaries inside a cluster, but no basket spans two clusters.
        assert set(expected) <= set(branch.entry_offsets), branch.name


def test_split_level_shows_in_the_branch_structure(make):
    unsplit = uproot.open(make("truth3", "zlib", 1, 10, 0))["CollectionTree"]
    split = uproot.open(make("truth3", "zlib", 1, 10, 1))["CollectionTree"]
    assert len(unsplit["TruthElectronsAux."].branches) == 0
    members = {b.name.split(".")[-1] for b in split["TruthElectronsAux."].branches}
    assert {"px", "py", "pz", "e", "m", "pdgId", "status", "barcode"} <= members
    assert len(split.keys(recursive=True)) > len(unsplit.keys(recursive=True))


def test_uproot_values_equal_roots(make):
    path = make("truth3", "zlib", 5, 10, 1)
    columns = ["TruthElectronsAux.px", "TruthElectronsAux.pdgId", "TruthElectronsAuxDyn.pt_dressed"]
    tree = uproot.open(path)["CollectionTree"]
    import ROOT  # independent of uproot: ROOT's own reading of the same branches

    by_root = ROOT.RDataFrame("CollectionTree", str(path)).AsNumpy(columns)
    for column in columns:
        top = column.split(".")[0] + "."
        name = f"{top}/{column}" if f"{top}/{column}" in tree else column
        by_uproot = tree[name].array(library="np")
        assert len(by_uproot) == len(by_root[column]) == 40
        for event_uproot, event_root in zip(by_uproot, by_root[column], strict=True):
            np.testing.assert_array_equal(np.asarray(event_uproot), np.asarray(list(event_root)))


def test_same_seed_same_content_under_every_setting(make, build):
    settings = [
        ("zlib", 1, 100, 0),
        ("lzma", 9, 7, 99),
        ("lz4", 1, -1_000_000, 1),
        ("none", 0, 0, 2),
        ("zstd", 5, 10, 1),
    ]
    # Written, then read, two at a time (each file is a writer's process, each checksum a reader's).
    files = side_by_side(
        *(functools.partial(make, "topq1", *s) for s in settings),
        functools.partial(make, "topq1", "zlib", 1, 100, 0, basket=4096),
        functools.partial(make, "topq1", "zlib", 1, 100, 0, seed=12),
    )
    *same_seed, other_seed = side_by_side(*(functools.partial(checksum, build, f) for f in files))
    sums = set(same_seed)
    assert len(sums) == 1
    assert other_seed not in sums


def test_events_read_back_from_the_content_file_are_the_generated_ones(make, build, tmp_path):
    from rootparams.study.grid import content_file_point

    content = tmp_path / "content.root"
    common = {
        "events": 40,
        "seed": 11,
        "writer": str(build["writer"]),
        "reader": str(build["reader"]),
        "catalogue": None,
    }
    generate_file(content_file_point("topq1"), output=str(content), **common)
    point = FilePoint("topq1", "zlib", 1, 100, 0, 32000)
    entry = generate_file(point, output=str(tmp_path / "via_content.root"), content=str(content), **common)
    assert entry["content_source"] == str(content)
    assert checksum(build, tmp_path / "via_content.root") == checksum(build, make("topq1", "zlib", 1, 100, 0))


def test_structured_distributions(build, tmp_path):
    """The wrappers that give values the structure of real records (walk, repeat, copy, cycle, pick, a link
    index drawn from a distribution), written by the writer and read back with uproot."""
    recipe = tmp_path / "structured.recipe"
    recipe.write_text(
        "container TruthParticles xAODlike::TruthParticleContainer_v1 xAODlike::TruthParticleAuxContainer_v1 fixed 40\n"
        "attr TruthParticles barcode walk 100 int 1 4\n"
        "attr TruthParticles status repeat 0.9 choice 1 2 23 62\n"
        "attr TruthParticles px copy 0.5 7 gaus 0 100\n"
        "attr TruthParticles py copy 0.5 7 gaus 0 100\n"
        "attr TruthParticles pz copy 0.5 8 gaus 0 100\n"
        "attr TruthParticles prodVtxLink link TruthVertices int 5000 5009\n"
        "dyn TruthParticles record vuint32 cycle 3 pick 2 111 222 walk 0 int 1 3 int 0 5\n"
        "inner TruthParticles record fixed 12\n"
    )
    output = tmp_path / "structured.root"
    run_tool(
        [
            str(build["writer"]),
            "--recipe",
            str(recipe),
            "--output",
            str(output),
            "--events",
            "5",
            "--compression",
            "101",
            "--autoflush",
            "10",
            "--split",
            "1",
            "--basket",
            "32000",
            "--seed",
            "3",
        ],
        "writing the structured recipe",
    )
    tree = uproot.open(output)["CollectionTree"]
    members = ("barcode", "status", "px", "py", "pz")
    arrays = {k: tree[f"TruthParticlesAux./TruthParticlesAux.{k}"].array(library="np") for k in members}
    for event in range(5):
        barcode = np.asarray(arrays["barcode"][event])
        steps = np.diff(barcode)
        assert 101 <= barcode[0] <= 104 and steps.min() >= 1 and steps.max() <= 4  # walk: 100 + 1..4 each
        status = np.asarray(arrays["status"][event])
        assert np.count_nonzero(np.diff(status)) < 20  # runs: with q=0.9 the value mostly repeats
        px, py, pz = (np.asarray(arrays[k][event]) for k in ("px", "py", "pz"))
        copied = np.diff(px) == 0
        # one key: py copies the same elements as px; another key: pz copies other elements
        assert 5 < copied.sum() < 35 and np.array_equal(copied, np.diff(py) == 0)
        assert not np.array_equal(copied, np.diff(pz) == 0)
    import ROOT  # uproot cannot read a split vector of links without the dictionary

    ROOT.gSystem.Load(str(build["writer"].parent.parent / "lib" / "libRootparamsXaodClasses.so"))
    file = ROOT.TFile.Open(str(output))
    n = file.Get("CollectionTree").Draw("TruthParticlesAux.prodVtxLink.m_persIndex", "", "goff")
    indices = {file.Get("CollectionTree").GetV1()[i] for i in range(n)}
    file.Close()
    assert n == 200 and indices <= set(range(5000, 5010)) and len(indices) > 5  # link index drawn from D
    record = tree["TruthParticlesAuxDyn.record"].array(library="np")[0]
    for words in record[:5]:
        words = np.asarray(words)
        assert set(words[0::3]) <= {111, 222}  # cycle position 0: pick
        assert np.all(np.diff(words[1::3]) >= 1)  # position 1: an increasing walk within each inner vector
        assert words[2::3].max() <= 5


# ---- The seeds' formats (issue #16) -----------------------------------------------------------------------------


def test_the_nanoaod_recipe_is_what_calibrate_makes_of_the_real_file():
    """The committed recipe (src/rootparams/recipes/nanoaod.recipe) is calibrate's output on the real CMS sample:
    a change of calibrate must regenerate it (the command is in the recipe's header)."""
    import os
    from pathlib import Path

    from rootparams.ownfile.calibrate import recipe_from_file

    real = Path(__file__).parents[1] / ".." / "shared" / "data" / "cms_nanoaod_2015_ttbar_200ev.root"
    if not real.exists():
        assert os.environ.get("CI") != "true", (
            f"{real} is part of the reference material and must exist in CI"
        )
        pytest.skip(f"{real} is not here")
    committed = [line for line in recipe_text("nanoaod").splitlines() if not line.startswith("# ")]
    made = [line for line in recipe_from_file(real).splitlines() if not line.startswith("# ")]
    assert committed == made


def test_skimmed_events_have_mostly_empty_containers(make):
    path = make("susy5_skim", "zlib", 1, -10_000_000, 1, events=400)
    tree = uproot.open(path)["CollectionTree"]
    for branch in (
        "ElectronsAux.pt",
        "AntiKt4EMTopoJetsAux.pt",
        "InDetTrackParticlesAux.d0",
        "TruthParticlesAux.px",
    ):
        empty = float(np.mean(ak.to_numpy(ak.num(tree[branch].array())) == 0))
        assert 0.85 < empty < 0.97, (branch, empty)  # 90 % skimmed, plus events the full recipe leaves empty
    assert (
        ak.to_numpy(ak.num(tree["EventInfoAux.runNumber"].array())) == 1
    ).all()  # the event record is kept


def test_event_size_formats_hold_the_requested_bytes_per_event(make):
    from rootparams.study.formats import (
        event_size_bytes,
        eventsize_elements,
        eventsize_events,
        is_builtin,
        is_flat_format,
    )

    assert (
        event_size_bytes("eventsize_4000") == 4000
        and is_builtin("eventsize_4000")
        and is_flat_format("eventsize_40")
    )
    assert not is_builtin("eventsize_10") and not is_builtin("eventsize_x")
    with pytest.raises(ValueError, match="32 to 16000000 bytes per event"):
        event_size_bytes("eventsize_20000000")
    assert eventsize_elements(40) == 2 and eventsize_elements(4_000_000) == 250_000
    assert eventsize_events(40, 3600) == 100
    tree = uproot.open(make("eventsize_4000", "zlib", 1, -1_000_000, 99, events=50))["CollectionTree"]
    assert set(tree.keys()) == {"nHit", "Hit_pt", "Hit_eta", "Hit_phi", "Hit_m"}
    assert (tree["nHit"].array(library="np") == eventsize_elements(4000)).all()
    uncompressed = sum(b.uncompressed_bytes for b in tree.values()) / tree.num_entries
    assert 4000 <= uncompressed < 4000 * 1.1  # the arrays and counter, plus ROOT's per-entry framing
