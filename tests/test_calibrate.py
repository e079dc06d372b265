"""Cloning a real file's profile (rootparams.calibrate) and writing the clone at the real file's settings."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, SHARED_DATA, require

from rootparams.calibrate import CalibrationError, recipe_from_file
from rootparams.native import run_tool

sys.path.insert(0, str(REPO / "benchmarks"))

ATLAS = SHARED_DATA / "atlas_physlite_run2_ttbar_100ev.root"
CMS = SHARED_DATA / "cms_nanoaod_2015_ttbar_200ev.root"
REAL = {"physlite": (ATLAS, "CollectionTree"), "nanoaod": (CMS, "Events")}
# Kinds whose compression ratio the clone does not reach yet (docs/formats.md, "Cloning a real file's profile"):
# the writer's ElementLink costs ~19 uncompressed bytes per link in a nested vector against the real ~28, and
# trigger words are drawn per event where real ones repeat from event to event.
KNOWN_OFF = {"physlite": {"element links", "trigger-like data"}, "nanoaod": set()}


@pytest.fixture(scope="module")
def clones(build, tmp_path_factory):
    """Recipe, clone and per-kind table of each real file (the benchmark's own code)."""
    import ROOT
    from calibrate_own_file import measure, settings, table

    out = {}
    ROOT.gErrorIgnoreLevel = ROOT.kError
    ROOT.gSystem.Load(str(Path(build["writer"]).parent.parent / "lib" / "libRootparamsEventModel.so"))
    tmp = tmp_path_factory.mktemp("calibrate")
    for label, (path, tree) in REAL.items():
        require(path.exists(), f"{path} (shared/data) is needed")
        text = recipe_from_file(path)
        recipe = tmp / f"{label}.recipe"
        recipe.write_text(text)
        s = settings(path, tree)
        clone = tmp / f"{label}_clone.root"
        run_tool(
            [
                str(build["writer"]),
                "--recipe",
                str(recipe),
                "--output",
                str(clone),
                "--events",
                str(s["entries"]),
                "--compression",
                str(s["compression"]),
                "--autoflush",
                str(s["autoflush"]),
                "--split",
                "99",
                "--basket",
                str(s["basket"]),
                "--seed",
                "20200326",
                "--tree",
                tree,
            ],
            "writing the clone",
        )
        flat = text.splitlines()[1] == "layout flat"
        real_file = path
        if (
            flat
        ):  # its baskets live inside the TTree object: ROOT's own rewrite at the same settings has the bytes
            real_file = tmp / f"{label}_rewrite.root"
            run_tool(
                [
                    str(build["writer"]),
                    "--clone-from",
                    str(path),
                    "--tree",
                    tree,
                    "--output",
                    str(real_file),
                    "--compression",
                    str(s["compression"]),
                ],
                "rewriting",
            )
        real, synthetic = measure(real_file, tree, flat), measure(clone, tree, flat)
        kinds = (
            ("float arrays", "integer arrays", "bool/flags", "scalars")
            if flat
            else tuple(sorted({u.kind for u in real[1] if u.zip_bytes}))
        )
        out[label] = {"text": text, "table": table(real, synthetic, kinds)[1], "settings": s}
    return out


@pytest.mark.parametrize("label", sorted(REAL))
def test_the_clone_has_the_real_files_size_per_event(clones, label):
    size, _, _ = clones[label]["table"]["**total (size per event)**"]
    assert abs(size) <= 0.15, f"{label}: clone's size per event off by {size:+.0%}"


@pytest.mark.parametrize("label", sorted(REAL))
def test_compression_ratio_per_kind_within_25_percent(clones, label):
    off = {
        kind: f"{ratio:+.0%}"
        for kind, (_, ratio, share) in clones[label]["table"].items()
        if "total" not in kind and share >= 0.05 and abs(ratio) > 0.25
    }
    assert set(off) <= KNOWN_OFF[label], f"{label}: kinds off the 25 % target: {off}"
    if KNOWN_OFF[label] - set(off):
        pytest.fail(
            f"{label}: {sorted(KNOWN_OFF[label] - set(off))} now meet the target: update KNOWN_OFF and the docs"
        )


def test_recipes_are_deterministic_and_hold_both_layouts(clones):
    assert recipe_from_file(CMS) == clones["nanoaod"]["text"]
    lines = clones["nanoaod"]["text"].splitlines()
    assert "collection Muon nMuon" in "\n".join(lines) and any(
        ln.startswith("column Muon Muon_pt float") for ln in lines
    )
    atlas = clones["physlite"]["text"]
    assert "container AnalysisJets xAODlike::JetContainer_v1 xAODlike::AuxContainerBase" in atlas
    assert "dyn AnalysisJets pt float" in atlas and "scalar EventInfoAuxDyn.GenFiltHT float" in atlas


def test_a_flat_recipe_refuses_the_rntuple_container(build, clones, tmp_path):
    recipe = tmp_path / "flat.recipe"
    recipe.write_text(clones["nanoaod"]["text"])
    proc = subprocess.run(
        [
            str(build["writer"]),
            "--container",
            "rntuple",
            "--recipe",
            str(recipe),
            "--output",
            str(tmp_path / "n.root"),
            "--events",
            "2",
            "--compression",
            "505",
            "--autoflush",
            "0",
            "--page-size",
            "65536",
            "--seed",
            "1",
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode != 0 and "flat-layout recipe" in proc.stderr and "--container ttree" in proc.stderr


def test_bad_input_names_the_file_and_what_is_valid(tmp_path):
    missing = tmp_path / "nope.root"
    with pytest.raises(CalibrationError, match=f"{missing}: no such file"):
        recipe_from_file(missing)
    junk = tmp_path / "junk.root"
    junk.write_text("not a ROOT file\n")
    with pytest.raises(CalibrationError, match=f"{junk}: not a ROOT file"):
        recipe_from_file(junk)
    require(ATLAS.exists(), f"{ATLAS} (shared/data) is needed")
    with pytest.raises(CalibrationError, match=r"no TTree named 'Nope' \(TTrees: .*CollectionTree.*MetaData"):
        recipe_from_file(ATLAS, "Nope")
    proc = subprocess.run(
        [sys.executable, "-m", "rootparams.calibrate", str(junk)],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO / "src")},
    )
    assert proc.returncode == 2 and str(junk) in proc.stderr
