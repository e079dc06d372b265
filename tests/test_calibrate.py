"""Cloning a real file's profile (rootparams.ownfile.calibrate) and writing the clone at the real file's own settings.

The clones of five real files of shared/data (a PHYSLITE TTree, the PHYSLITE RNTuple, a CMS NanoAOD TTree, a CMS
flat dimuon ntuple with a string and the CMS Bacon ntuple of TClonesArrays and split objects) are compared with them
as benchmarks/calibrate_own_file.py does it (docs/formats.md, "Cloning a real file's profile"): size per event
within 15 %, whole-file compression ratio within 25 %, and every kind of data holding 5 % of the bytes or more within
25 % in compression ratio. A file made here checks what the recipe of any other layout measures (packed
Double32_t, runs of a missing value, strings, counted arrays, vectors); clone_fidelity is checked on its own.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import REPO, SHARED_DATA, require

from rootparams.ownfile.calibrate import CalibrationError, clone_fidelity, recipe_from_file
from rootparams.ownfile.contentkinds import XAOD
from rootparams.tools import streamed
from rootparams.tools.processes import run_tool

sys.path.insert(0, str(REPO / "benchmarks"))

ATLAS = SHARED_DATA / "atlas_physlite_run2_ttbar_100ev.root"
ATLAS_RNTUPLE = SHARED_DATA / "atlas_physlite_rntuple_100ev.root"
CMS = SHARED_DATA / "cms_nanoaod_2015_ttbar_200ev.root"
ZMUMU = SHARED_DATA / "cms_zmumu_flat_2304ev.root"
BACON = SHARED_DATA / "cms_bacon_ntuple_10ev.root"
REAL = {"physlite": ATLAS, "physlite_rntuple": ATLAS_RNTUPLE, "nanoaod": CMS, "zmumu": ZMUMU, "bacon": BACON}
# Kinds (>= 5 % of the real bytes) whose compression ratio the clone does not reach within 25 % yet.
KNOWN_OFF: dict[str, set[str]] = {label: set() for label in REAL}


@pytest.fixture(scope="module")
def library(build):
    import ROOT

    ROOT.gErrorIgnoreLevel = ROOT.kError  # the real files' xAOD classes have no dictionary: expected warnings
    ROOT.gSystem.Load(str(Path(build["writer"]).parent.parent / "lib" / "libRootparamsXaodClasses.so"))
    return SimpleNamespace(writer=str(build["writer"]))


@pytest.fixture(scope="module", params=sorted(REAL))
def clone(request, library, tmp_path_factory):
    """One real file, its recipe, its clone at its own settings and the per-kind comparison (the benchmark's
    own code)."""
    from calibrate_own_file import (
        agreement,
        kept_in_tree_object,
        kinds_of,
        measure,
        rewritten,
        source,
        write_clone,
    )

    label = request.param
    path = REAL[label]
    require(path.exists(), f"{path} (shared/data) is needed")
    src = source(path)
    out = tmp_path_factory.mktemp(f"calibrate-{label}")
    clone_path, text = write_clone(src, library, out, factor=1, seed=20200326)
    real_path, measured_clone = path, clone_path
    if not src.ntuple and max(kept_in_tree_object(path, src), kept_in_tree_object(clone_path, src)) > 0.01:
        # baskets inside the TTree object: both compared through ROOT's own rewrite, as the benchmark does
        real_path, measured_clone = (
            rewritten(path, src, library, out),
            rewritten(clone_path, src, library, out),
        )
    real, synthetic = measure(real_path, src, src.ntuple), measure(measured_clone, src, src.ntuple)
    _, rows = agreement(real, synthetic, kinds_of(src, real))
    return SimpleNamespace(label=label, src=src, path=path, clone=clone_path, text=text, rows=rows)


def test_the_clone_has_the_real_files_size_and_compression_ratio(clone):
    size, ratio, _ = clone.rows["**whole file**"]
    assert abs(size) <= 0.15, f"{clone.label}: clone's size per event off by {size:+.0%}"
    assert abs(ratio) <= 0.25, f"{clone.label}: clone's whole-file compression ratio off by {ratio:+.0%}"


def test_every_kind_is_mapped_and_compresses_as_the_real_one(clone):
    """Each kind of the real file (>= 5 % of its bytes) is a kind of the clone too, with the ratio within 25 %."""
    kinds = {k: v for k, v in clone.rows.items() if "whole" not in k and v[2] >= 0.05}
    assert kinds, clone.rows
    off = {k: f"{ratio:+.0%}" for k, (size, ratio, _) in kinds.items() if abs(ratio) > 0.25}
    missing = {k for k, (size, _, _) in kinds.items() if size <= -0.99}
    assert not missing, f"{clone.label}: kinds without clone bytes: {missing}"
    assert set(off) <= KNOWN_OFF[clone.label], f"{clone.label}: kinds off the 25 % target: {off}"
    if KNOWN_OFF[clone.label] - set(off):
        pytest.fail(
            f"{clone.label}: {sorted(KNOWN_OFF[clone.label] - set(off))} now meet the target: update KNOWN_OFF"
        )
    if clone.src.grouping == XAOD:  # the kinds that need the object, link and trigger models
        for kind in ("element links", "trigger-like data", "interface / static-aux objects"):
            assert kind in clone.rows, (clone.label, kind)


def test_an_rntuple_is_calibrated_and_cloned_as_an_rntuple():
    require(ATLAS_RNTUPLE.exists(), f"{ATLAS_RNTUPLE} (shared/data) is needed")
    text = recipe_from_file(ATLAS_RNTUPLE)
    assert "container AnalysisJets xAODlike::JetContainer_v1 xAODlike::AuxContainerBase" in text
    assert "dyn AnalysisJets pt float" in text and "\nrecord " not in text  # no TTree framing in an RNTuple
    # The static store's members (a JetAuxContainer_v1 record of the RNTuple) are attributes of its container.
    assert "dyn AntiKt4TruthDressedWZJets constituentLinks vlink" in text


@pytest.mark.parametrize("clone", ["physlite_rntuple"], indirect=True)
def test_the_rntuple_clone_holds_the_real_fields(clone):
    import uproot

    real = uproot.open(clone.path)["EventData"]
    synthetic = uproot.open(clone.clone)["EventData"]
    assert type(synthetic).__name__ == type(real).__name__  # an RNTuple too

    def dynamic(ntuple) -> set[str]:
        return {
            r.field_name
            for k, r in enumerate(ntuple.field_records)
            if r.parent_field_id == k and "AuxDyn:" in r.field_name
        }

    assert dynamic(real) <= dynamic(synthetic)


@pytest.mark.parametrize("clone", ["physlite"], indirect=True)
def test_object_branches_keep_the_real_framing(clone):
    """Interface objects and aux stores are records: their entries have the real objects' lengths and headers."""
    import uproot

    real = uproot.open(clone.path)["CollectionTree"]
    synthetic = uproot.open(clone.clone)["CollectionTree"]
    for name, real_name in (
        (
            "AnalysisElectronsAux.",
            "AnalysisElectronsAux.",
        ),  # an empty xAOD::AuxContainerBase: 50 constant bytes
        ("EventInfoAux.", "EventInfoAux.xAOD::AuxInfoBase"),  # a split store's base-class part
    ):
        r = streamed.raw_entries(real[real_name])
        c = streamed.raw_entries(synthetic[name])
        assert [len(e) for e in c] == [len(e) for e in r], name
        assert {e[6:] for e in c} == {e[6:] for e in r}, (
            name
        )  # the same bytes after the byte count and version
    # Nested element links framed object by object (the class's and its base's headers before each key and index,
    # 28 bytes a link), as in the real file.
    name = "AnalysisElectronsAuxDyn.trackParticleLinks"
    typename = real[name].typename

    def framing(entries):
        member = None
        for e in entries:
            member, _ = streamed.decode_member(e, 0, len(e), "links", typename, member)
        return member.element

    assert framing(streamed.raw_entries(synthetic[name])) == framing(streamed.raw_entries(real[name]))
    assert len(bytes.fromhex(framing(streamed.raw_entries(real[name])))) + 8 == 28


def test_recipes_are_deterministic_and_hold_both_layouts():
    require(ATLAS.exists() and CMS.exists(), "shared/data is needed")
    nano = recipe_from_file(CMS)
    assert recipe_from_file(CMS) == nano
    lines = nano.splitlines()
    assert "collection Muon nMuon" in nano and any(ln.startswith("column Muon Muon_pt float") for ln in lines)
    atlas = recipe_from_file(ATLAS)
    assert "container AnalysisJets xAODlike::JetContainer_v1 xAODlike::AuxContainerBase" in atlas
    assert "dyn AnalysisJets pt float" in atlas and "scalar EventInfoAuxDyn.GenFiltHT float" in atlas
    # What the models measured: link keys with null links, repetition, real basket sizes, framing records.
    assert "\nkeys AnalysisJets GhostTrack 0 " in atlas
    assert "\nreuse " in atlas and "\nbasket AnalysisJetsAuxDyn.pt " in atlas
    assert "\nrecord AnalysisElectrons aux h:" in atlas


def test_a_flat_recipe_is_written_as_an_rntuple_through_the_importer(library, tmp_path):
    import uproot

    require(CMS.exists(), f"{CMS} (shared/data) is needed")
    recipe = tmp_path / "flat.recipe"
    recipe.write_text(recipe_from_file(CMS))
    out = tmp_path / "n.root"
    run_tool(
        [
            library.writer,
            "--container",
            "rntuple",
            "--recipe",
            str(recipe),
            "--output",
            str(out),
            "--events",
            "20",
            "--compression",
            "505",
            "--autoflush",
            "0",
            "--page-size",
            "65536",
            "--seed",
            "1",
            "--tree",
            "Events",
        ],
        "writing a flat recipe as an RNTuple",
    )
    ntuple = uproot.open(out)["Events"]
    assert "RNTuple" in type(ntuple).__name__ and ntuple.num_entries == 20
    names = {r.field_name for r in ntuple.field_records}
    assert any(n.startswith("_collection") for n in names) and {"nMuon", "Muon_pt", "run"} <= names
    assert not list(tmp_path.glob("*.flat-tree.root"))  # the intermediate TTree is removed


def test_bad_input_names_the_file_and_what_is_valid(tmp_path):
    missing = tmp_path / "nope.root"
    with pytest.raises(CalibrationError, match=f"{missing}: no such file"):
        recipe_from_file(missing)
    junk = tmp_path / "junk.root"
    junk.write_text("not a ROOT file\n")
    with pytest.raises(CalibrationError, match=f"{junk}: not a ROOT file"):
        recipe_from_file(junk)
    require(ATLAS.exists(), f"{ATLAS} (shared/data) is needed")
    with pytest.raises(
        CalibrationError, match=r"no TTree or RNTuple named 'Nope' \(TTrees: .*CollectionTree.*MetaData"
    ):
        recipe_from_file(ATLAS, "Nope")
    proc = subprocess.run(
        [sys.executable, "-m", "rootparams.ownfile.calibrate", str(junk)],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO / "src")},
    )
    assert proc.returncode == 2 and str(junk) in proc.stderr


# ----------------------------------------------------------------------------------------------------------
# Any other layout: a tree made here


def write_analysis_tree(path: Path, events: int = 3000) -> None:
    """An analysis ntuple as many experiments write them: a counted leaf array, a ranged Double32_t whose missing
    value comes in runs (a candidate absent for ~30 entries, then present for ~8), a std::string, a
    std::vector<float>."""
    from array import array

    import numpy as np
    import ROOT

    rng = np.random.default_rng(5)
    f = ROOT.TFile(str(path), "RECREATE", "", 101)
    t = ROOT.TTree("ntuple", "an analysis ntuple")
    n, pt, x = array("i", [0]), array("f", [0.0] * 16), array("d", [0.0])
    label, tracks = ROOT.std.string(), ROOT.std.vector("float")()
    t.Branch("n", n, "n/I")
    t.Branch("pt", pt, "pt[n]/F")
    t.Branch("x", x, "x/d[0,8,8]")
    t.Branch("label", label)
    t.Branch("tracks", tracks)
    present = False
    for _ in range(events):
        if rng.random() < (1 / 8 if present else 1 / 30):
            present = not present
        n[0] = int(rng.integers(0, 6))
        for k in range(n[0]):
            pt[k] = float(rng.exponential(20.0))
        x[0] = float(rng.uniform(0.5, 7.5)) if present else 0.0
        label.replace(0, label.size(), str(rng.choice(["GT", "TT", "GG"])))
        tracks.clear()
        for _ in range(int(rng.integers(0, 4))):
            tracks.push_back(float(rng.normal(0.0, 1.0)))
        t.Fill()
    t.Write()
    f.Close()


def test_any_other_layout_is_cloned_as_it_is_stored(library, tmp_path):
    """The recipe of a tree that is neither ATLAS xAOD nor NanoAOD-like: each branch as ROOT stores it, and a clone
    within the targets, written as a TTree and as an RNTuple."""
    import uproot
    from calibrate_own_file import agreement, kinds_of, measure, source, write_clone

    path = tmp_path / "analysis.root"
    write_analysis_tree(path)
    text = recipe_from_file(path)
    lines = text.splitlines()
    assert "collection n n " in text and any(ln.startswith("column n pt float") for ln in lines)
    x = next(ln for ln in lines if ln.startswith("scalar x "))
    assert (
        x.startswith("scalar x uint32 ") and " runs " in x
    )  # the 8-bit integers ROOT stores, absent in runs
    assert "collection label_chars label_chars " in text and "column label_chars label int8" in text
    assert "container tracks - - " in text and "dyn tracks tracks float" in text

    src = source(path)
    assert (src.layout, src.grouping) == ("flat", "by leaf type")
    clone, _ = write_clone(src, library, tmp_path, factor=1, seed=7)
    _, rows = agreement(
        measure(path, src, False), measure(clone, src, False), kinds_of(src, measure(path, src, False))
    )
    size, ratio, _ = rows["**whole file**"]
    assert abs(size) <= 0.15 and abs(ratio) <= 0.25, rows
    as_ntuple, _ = write_clone(src, library, tmp_path, factor=1, seed=7, container="rntuple")
    ntuple = uproot.open(as_ntuple)["ntuple"]
    fields = {r.field_name for r in ntuple.field_records}
    assert (
        ntuple.num_entries == 3000
        and {"n", "pt", "x", "label", "label_chars", "tracksAuxDyn:tracks"} <= fields
    )


def test_collections_stand_beside_containers_and_every_name_is_unique(library, tmp_path):
    """A recipe of scalars, a collection (a TClonesArray's members) and a container is written as a TTree and as
    an RNTuple; one whose names clash (two top-level branches of one name, as in a Delphes file) is refused with
    both named."""
    import uproot

    recipe = tmp_path / "mixed.recipe"
    recipe.write_text(
        "scalar run uint32 const 7\n"
        "collection Tracks nTracks fixed 2\n"
        "column Tracks Tracks_pt float exp 5\n"
        "container Jets - - fixed 3\n"
        "dyn Jets pt float gaus 10 1\n"
    )

    def write(container: str, recipe_path: Path, out: Path) -> None:
        cmd = [library.writer, "--recipe", str(recipe_path), "--output", str(out), "--events", "20"]
        cmd += ["--compression", "505", "--autoflush", "0", "--seed", "1", "--tree", "t"]
        cmd += ["--container", "rntuple", "--page-size", "65536"] if container == "rntuple" else []
        cmd += ["--split", "99", "--basket", "32000"] if container == "ttree" else []
        run_tool(cmd, f"writing a mixed recipe as a {container}")

    write("ttree", recipe, tmp_path / "t.root")
    write("rntuple", recipe, tmp_path / "n.root")
    assert {"run", "nTracks", "Tracks_pt", "JetsAuxDyn.pt"} <= set(
        uproot.open(tmp_path / "t.root")["t"].keys()
    )
    ntuple = uproot.open(tmp_path / "n.root")["t"]
    assert {"run", "nTracks", "Tracks_pt", "JetsAuxDyn:pt"} <= {r.field_name for r in ntuple.field_records}
    assert list(uproot.open(tmp_path / "t.root")["t"]["Tracks_pt"].array()[0]) != []

    clash = tmp_path / "clash.recipe"
    clash.write_text(
        "container Particle - - fixed 2\ndyn Particle PT float exp 5\ndyn Particle PT float exp 6\n"
    )
    for container in ("ttree", "rntuple"):
        with pytest.raises(
            Exception, match=r"attribute Particle PT and attribute Particle PT make the same branch"
        ):
            write(container, clash, tmp_path / f"clash-{container}.root")


def test_clone_fidelity_says_how_far_the_clone_is_from_the_file():
    # The analysis tree of the issue: 35 B/event at ratio 4.60, its old clone 0.07 kB/event at ratio 5.70.
    far = clone_fidelity(35.0, 4.60, 70.0, 5.70)
    assert (round(far.size_delta, 2), round(far.ratio_delta, 2), far.size_ok, far.ratio_ok, far.ok) == (
        1.0,
        0.24,
        False,
        True,
        False,
    )
    assert far.text() == (
        "Against your file at its own setting, the clone is 100 % larger and compresses 24 % better: outside the "
        "±15 % size target; its absolute rates are not yours."
    )
    close = clone_fidelity(4371.0, 2.26, 4704.0, 2.10)
    assert close.ok and close.text().endswith("within the ±15 % size and ±25 % ratio targets.")
    both = clone_fidelity(
        100.0,
        2.0,
        79.0,
        2.6,
        real_kinds={"float arrays": (80.0, 160.0), "integer scalars": (20.0, 40.0)},
        clone_kinds={"float arrays": (60.0, 160.0), "integer scalars": (19.0, 40.0)},
    )
    assert "outside the ±15 % size and ±25 % ratio targets (most in float arrays" in both.text()
    assert both.kind_deltas()["float arrays"][0] == pytest.approx(-0.25)
    with pytest.raises(ValueError, match="the clone's compression ratio must be a positive number"):
        clone_fidelity(35.0, 4.6, 70.0, float("nan"))
