"""Cloning a real file's profile (rootparams.calibrate) and writing the clone at the real file's own settings.

The clones of the three real files of shared/data (a PHYSLITE TTree, the PHYSLITE RNTuple and a CMS NanoAOD TTree)
are compared with them as benchmarks/calibrate_own_file.py does it (docs/formats.md, "Cloning a real file's
profile"): size per event within 15 %, whole-file compression ratio within 25 %, and every kind of data holding
5 % of the bytes or more within 25 % in compression ratio.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import REPO, SHARED_DATA, require

from rootparams import streamed
from rootparams.calibrate import CalibrationError, recipe_from_file
from rootparams.native import run_tool

sys.path.insert(0, str(REPO / "benchmarks"))

ATLAS = SHARED_DATA / "atlas_physlite_run2_ttbar_100ev.root"
ATLAS_RNTUPLE = SHARED_DATA / "atlas_physlite_rntuple_100ev.root"
CMS = SHARED_DATA / "cms_nanoaod_2015_ttbar_200ev.root"
REAL = {"physlite": ATLAS, "physlite_rntuple": ATLAS_RNTUPLE, "nanoaod": CMS}
# Kinds (>= 5 % of the real bytes) whose compression ratio the clone does not reach within 25 % yet.
KNOWN_OFF: dict[str, set[str]] = {"physlite": set(), "physlite_rntuple": set(), "nanoaod": set()}


@pytest.fixture(scope="module")
def library(build):
    import ROOT

    ROOT.gErrorIgnoreLevel = ROOT.kError  # the real files' xAOD classes have no dictionary: expected warnings
    ROOT.gSystem.Load(str(Path(build["writer"]).parent.parent / "lib" / "libRootparamsEventModel.so"))
    return SimpleNamespace(writer=str(build["writer"]))


@pytest.fixture(scope="module", params=sorted(REAL))
def clone(request, library, tmp_path_factory):
    """One real file, its recipe, its clone at its own settings and the per-kind comparison (the benchmark's
    own code)."""
    from calibrate_own_file import FLAT_KINDS, agreement, measure, rewritten, source, write_clone

    label = request.param
    path = REAL[label]
    require(path.exists(), f"{path} (shared/data) is needed")
    src = source(path)
    out = tmp_path_factory.mktemp(f"calibrate-{label}")
    clone_path, text = write_clone(src, library, out, factor=1, seed=20200326)
    real_path = (
        rewritten(src, library, out) if label == "nanoaod" else path
    )  # baskets inside the TTree object
    real, synthetic = measure(real_path, src, src.ntuple), measure(clone_path, src, src.ntuple)
    kinds = FLAT_KINDS if src.flat else tuple(sorted({u.kind for u in real[1] if u.zip_bytes}))
    _, rows = agreement(real, synthetic, kinds)
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
    if not clone.src.flat:  # the kinds that need the object, link and trigger models
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
        [sys.executable, "-m", "rootparams.calibrate", str(junk)],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO / "src")},
    )
    assert proc.returncode == 2 and str(junk) in proc.stderr
