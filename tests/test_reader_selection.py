"""The reader's variable selections (analysis, sparse, vars:; seed 001's access patterns), --resolve-selection
(the one definition of a selection, for the columnar readers) and --unzip (TTreeCacheUnzip), on small files of
the same content at split levels 0 and 99 and as an RNTuple, and on the real NanoAOD and PHYSLITE samples."""

import functools
from pathlib import Path

import pytest
from conftest import side_by_side

from rootparams.measure.generate import generate_file
from rootparams.measure.measure import _reader_args, reader_command, run_tool
from rootparams.study.grid import FilePoint
from rootparams.tools.processes import ReaderServer, ToolError

DATA = Path(__file__).parents[1] / ".." / "shared" / "data"
NANOAOD = DATA / "cms_nanoaod_2015_ttbar_200ev.root"
PHYSLITE = DATA / "atlas_physlite_run2_ttbar_100ev.root"
PHYSLITE_RNTUPLE = DATA / "atlas_physlite_rntuple_100ev.root"
EVENTS = 300
KINEMATICS = ["pt", "eta", "phi", "m"]
# SUSY5's collections with pt, eta, phi and m, in the reader's order: electrons, muons, photons, taus, then
# particle-flow before EM-topo jets (the file holds them the other way round). TruthParticles (px, py, pz, e, m)
# does not qualify.
SUSY5 = ["Electrons", "Muons", "Photons", "TauJets", "AntiKt4EMPFlowJets", "AntiKt4EMTopoJets"]


@pytest.fixture(scope="module")
def files(build, tmp_path_factory):
    """The same 300 SUSY5 events at split 0 and 99 and as an RNTuple, and a file whose only collection has no pt."""
    out = tmp_path_factory.mktemp("selection")
    tools = {"writer": str(build["writer"]), "reader": str(build["reader"]), "catalogue": None}
    made, writes = {}, []
    for name, point in (
        (0, FilePoint("susy5", "zlib", 1, -1_000_000, 0, 32000)),
        (99, FilePoint("susy5", "zlib", 1, -1_000_000, 99, 32000)),
        ("rntuple", FilePoint("susy5", "zlib", 1, -1_000_000, -1, 0, container="rntuple", page_size=65536)),
    ):
        made[name] = out / f"susy5_{name}.root"
        writes.append(
            functools.partial(generate_file, point, events=EVENTS, seed=5, output=str(made[name]), **tools)
        )
    recipe = out / "truth_only.recipe"
    recipe.write_text(
        "container TruthElectrons xAODlike::TruthParticleContainer_v1 xAODlike::TruthParticleAuxContainer_v1 poisson 3\n"
        "attr TruthElectrons px gaus 0.0 30000.0\nattr TruthElectrons m const 0.511\n"
    )
    made["truth"] = out / "truth_only.root"
    truth = functools.partial(
        generate_file,
        FilePoint("truth3", "zlib", 1, -1_000_000, 99, 32000),
        events=20,
        seed=3,
        output=str(made["truth"]),
        recipe=recipe,
        **tools,
    )
    side_by_side(*writes, truth)  # two writes at a time
    return made


def read(build, path, selection, events=EVENTS, **extra):
    settings = {"branches": selection, "cache_size": -1, "learn_entries": "default", "threads": 1, **extra}
    return run_tool(reader_command(str(build["reader"]), str(path), events, settings), f"read {selection}")


def resolve(build, path, selection, tree=None):
    cmd = [str(build["reader"]), "--file", str(path), "--resolve-selection", selection]
    return run_tool(cmd + (["--tree", tree] if tree else []), f"resolve {selection}")


def real(path):
    if not path.exists():
        pytest.fail(f"{path} is part of the reference material (../shared/data)")
    return path


def test_variables_are_read_branch_wise_where_split_and_class_wise_where_not(build, files):
    split, whole = read(build, files[99], "analysis"), read(build, files[0], "analysis")
    variables = [f"{c}.{a}" for c in SUSY5 for a in KINEMATICS]
    for r in (split, whole):
        assert r["selection"] == "analysis" and r["selected_collections"] == 6
        assert r["selected_variables"] == 24 and r["variables"].split(",") == variables
    assert split["variables_classwise"] == 0 and whole["variables_classwise"] == 24
    assert split["selected_branches_read"].split(",") == [f"{c}Aux.{a}" for c in SUSY5 for a in KINEMATICS]
    assert whole["selected_branches_read"].split(",") == [f"{c}Aux." for c in SUSY5]
    # The values really were read: the same sum, bit for bit, from the sub-branches and from the whole stores.
    assert split["variables_summed"] == whole["variables_summed"] == 24 and split["variables_not_summed"] == 0
    assert split["variables_values_summed"] == whole["variables_values_summed"] > 10 * EVENTS
    assert split["variables_value_sum"] == whole["variables_value_sum"] > 0
    # What ROOT fetched (PerfStats, loop span): sparse < analysis < all, and the whole stores cost more than
    # their members. The selected bytes are those of the branches read.
    sparse, everything = read(build, files[99], "sparse"), read(build, files[99], "all")
    assert sparse["selected_variables"] == 6 and sparse["variables"].split(",")[:2] == [
        "Electrons.pt",
        "Electrons.eta",
    ]
    assert sparse["loop_bytes_read"] < split["loop_bytes_read"] < everything["loop_bytes_read"]
    assert 10 * sparse["loop_bytes_read"] < everything["loop_bytes_read"]
    assert whole["loop_bytes_read"] > 1.5 * split["loop_bytes_read"]
    assert split["selected_zip_bytes"] < whole["selected_zip_bytes"] < everything["selected_zip_bytes"]
    # What ROOT used of it (TFile's count, process span): the same order, split 0 between analysis and all.
    used = [r["file_bytes_read_useful"] for r in (sparse, split, whole, everything)]
    assert used[0] < used[1] < used[2] < used[3]
    # Without the TTreeCache every basket is its own read: exactly the selected branches' bytes. With it, each
    # read spans the gaps between the selected baskets of a cluster (PerfStats counts them, TFile does not).
    uncached = read(build, files[99], "sparse", cache_size=0)
    assert uncached["loop_bytes_read"] == uncached["selected_zip_bytes"] == sparse["selected_zip_bytes"]
    assert uncached["variables_value_sum"] == sparse["variables_value_sum"]
    assert sparse["loop_bytes_read"] > sparse["file_bytes_read_useful"]


def test_an_rntuple_reads_each_variable_by_its_own_field(build, files):
    ntuple = read(build, files["rntuple"], "analysis", container="rntuple")
    tree = read(build, files[99], "analysis")
    assert ntuple["selected_variables"] == 24 and ntuple["variables_classwise"] == 0
    assert ntuple["variables"] == tree["variables"]
    assert ntuple["selected_branches_read"].split(",")[:2] == ["ElectronsAuxDyn:pt", "ElectronsAuxDyn:eta"]
    assert ntuple["variables_value_sum"] == tree["variables_value_sum"]  # same events, another container
    assert ntuple["variables_values_summed"] == tree["variables_values_summed"]
    everything = read(build, files["rntuple"], "all", container="rntuple")
    assert 10 * ntuple["loop_bytes_read"] < everything["loop_bytes_read"]
    assert ntuple["selected_zip_bytes"] < everything["selected_zip_bytes"]


def test_resolve_selection_names_what_a_columnar_reader_reads(build, files):
    found = resolve(build, files[99], "sparse")
    assert found["container"] == "ttree" and found["collections"] == ["Electrons", "Muons", "Photons"]
    assert found["variables"] == [
        f"{c}.{a}" for c in ("Electrons", "Muons", "Photons") for a in ("pt", "eta")
    ]
    assert found["branches"] == [
        f"{c}Aux.{a}" for c in ("Electrons", "Muons", "Photons") for a in ("pt", "eta")
    ]
    assert found["classwise"] == []
    whole = resolve(build, files[0], "sparse")
    assert whole["branches"] == whole["classwise"] == ["ElectronsAux.", "MuonsAux.", "PhotonsAux."]
    assert resolve(build, files[99], "vars:AntiKt4EMTopoJets.pt,Electrons.charge")["branches"] == [
        "AntiKt4EMTopoJetsAux.pt",
        "ElectronsAux.charge",
    ]
    ntuple = resolve(build, files["rntuple"], "analysis")
    assert ntuple["container"] == "rntuple" and ntuple["collections"] == SUSY5
    assert ntuple["branches"] == [f"{c}AuxDyn:{a}" for c in SUSY5 for a in KINEMATICS]
    # Other selections resolve to top-level names, as the timed read selects them.
    assert resolve(build, files[99], "list:Electrons,ElectronsAux.")["branches"] == [
        "Electrons",
        "ElectronsAux.",
    ]
    assert resolve(build, files[99], "list:Electrons")["variables"] == []


def test_flat_arrays_are_read_with_their_counters(build):
    found = resolve(build, real(NANOAOD), "analysis", tree="Events")
    assert found["collections"] == [
        "Electron",
        "Muon",
        "Photon",
        "Tau",
        "Jet",
        "FatJet",
        "GenJetAK8",
        "GenJet",
    ]
    assert found["branches"][:5] == [
        "nElectron",
        "Electron_pt",
        "Electron_eta",
        "Electron_phi",
        "Electron_mass",
    ]
    assert len(found["variables"]) == 32 and len(found["branches"]) == 40 and found["classwise"] == []
    r = read(build, NANOAOD, "analysis", events=200, tree="Events")
    assert r["selected_variables"] == 32 and r["variables_summed"] == 32
    assert r["selected_branches_read"].split(",") == found["branches"]
    # Independently: uproot's sum of the same arrays (another order of additions).
    uproot = pytest.importorskip("uproot")
    events = uproot.open(NANOAOD)["Events"]
    names = [b for b in found["branches"] if not b.startswith("n")]
    arrays = events.arrays(names, entry_stop=200, library="np")
    assert r["variables_values_summed"] == sum(len(x) for name in names for x in arrays[name])
    expected = sum(float(x.astype("float64").sum()) for name in names for x in arrays[name])
    assert r["variables_value_sum"] == pytest.approx(expected, rel=1e-12)


def test_physlite_kinematics_in_both_containers(build):
    tree = resolve(build, real(PHYSLITE), "analysis")
    # Muons have no stored m in PHYSLITE; the three truth-jet containers follow in file order.
    assert tree["collections"][:4] == [
        "AnalysisElectrons",
        "AnalysisPhotons",
        "AnalysisTauJets",
        "AnalysisJets",
    ]
    assert len(tree["collections"]) == 7 and len(tree["variables"]) == 28
    assert tree["branches"][:2] == ["AnalysisElectronsAuxDyn.pt", "AnalysisElectronsAuxDyn.eta"]
    r = read(build, PHYSLITE, "analysis", events=100)
    # The truth jets' stores have no dictionary: their members are read basket by basket, not summed.
    assert (
        r["read_mode"] == "objects+baskets"
        and r["variables_summed"] == 16
        and r["variables_not_summed"] == 12
    )
    ntuple = resolve(build, real(PHYSLITE_RNTUPLE), "analysis", tree="EventData")
    assert ntuple["container"] == "rntuple" and len(ntuple["variables"]) == 32
    assert ntuple["collections"][:5] == [
        "AnalysisElectrons",
        "AnalysisPhotons",
        "AnalysisTauJets",
        "AnalysisJets",
        "AnalysisLargeRJets",
    ]
    # A static aux member is a subfield of the store's record field.
    assert "AntiKt4TruthDressedWZJetsAux:.pt" in ntuple["branches"]
    r = read(build, PHYSLITE_RNTUPLE, "analysis", events=100, tree="EventData", container="rntuple")
    assert r["variables_summed"] == 32 and r["variables_value_sum"] > 0


def test_bad_selections_name_the_file_and_what_would_work(build, files):
    with pytest.raises(
        ToolError,
        match=r"variable Electrons\.phii of selection 'vars:Electrons\.phii' is in no "
        r"branch .* Electrons has \(nearest first\): phi, ",
    ):
        resolve(build, files[99], "vars:Electrons.phii")
    with pytest.raises(
        ToolError, match=r"is in no field .* no collection Electron; .*nearest first\): Electrons"
    ):
        resolve(build, files["rntuple"], "vars:Electron.pt")
    with pytest.raises(ToolError, match=r"is not <Collection>\.<attribute>"):
        resolve(build, files[99], "vars:pt")
    with pytest.raises(ToolError, match=r"names Electrons\.pt twice"):
        resolve(build, files[99], "vars:Electrons.pt,Electrons.pt")
    truth = str(files["truth"])
    for selection in ("analysis", "sparse"):
        with pytest.raises(
            ToolError,
            match=rf"{truth}: selection '{selection}' takes collections that have pt, eta, "
            r"phi and m, and this file has none; its collections: TruthElectrons "
            r"\(no pt/eta/phi\)\. Use another selection: all, ",
        ):
            read(build, truth, selection, events=20)
    assert resolve(build, truth, "vars:TruthElectrons.px")["branches"] == ["TruthElectronsAux.px"]


def test_parallel_unzip_makes_the_cache_a_ttreecacheunzip(build, files, tmp_path):
    off = read(build, files[0], "analysis", threads=2)
    on = read(build, files[0], "analysis", threads=2, unzip=True)
    assert (
        off["cache_class"] == "TTreeCache" and off["unzip_requested"] == 0 and off["unzip_blocks_found"] == -1
    )
    assert (
        on["cache_class"] == "TTreeCacheUnzip" and on["unzip_requested"] == 1 and on["unzip_parallel_tasks"]
    )
    # The same entries and values. Not the same fetches: TTreeCacheUnzip fills the cache with its own FillBuffer
    # (ROOT's older one), which fetched ~9 % more here for this sparse selection, the same for 'all'.
    for key in ("events_read", "bytes_unpacked", "variables_value_sum", "selected_zip_bytes"):
        assert on[key] == off[key], key
    # Every basket after the learning entries passes the cache's counters: unzipped ahead and found, or missed.
    assert on["unzip_blocks_found"] + on["unzip_blocks_stalled"] + on["unzip_blocks_missed"] > 0
    # PerfStats never sees TTreeCacheUnzip's decompression: no number rather than a false 0.
    assert off["loop_unzip_seconds"] > 0 and off["loop_unzip_output_bytes"] > 0
    for key in ("loop_unzip_seconds", "loop_unzip_output_bytes", "loop_mb_per_s_uncompressed"):
        assert on[key] is None, key
    # Without implicit MT no task runs: the loop's thread unzips every basket itself.
    serial = read(build, files[0], "analysis", unzip=True)
    assert serial["cache_class"] == "TTreeCacheUnzip" and not serial["unzip_parallel_tasks"]
    assert (
        serial["unzip_blocks_unzipped"] == serial["unzip_blocks_found"] == 0 < serial["unzip_blocks_missed"]
    )
    assert serial["variables_value_sum"] == off["variables_value_sum"]
    # The fork server passes unzip=1 as the harness sends it.
    with ReaderServer(str(build["reader"]), tmp_path / "server.log") as server:
        read_point = {
            "branches": "sparse",
            "cache_size": -1,
            "learn_entries": "default",
            "threads": 2,
            "unzip": True,
        }
        served, _ = server.read(
            _reader_args(str(files[99]), EVENTS, read_point), "unzip", tmp_path / "child.log"
        )
    assert served["cache_class"] == "TTreeCacheUnzip" and served["reader_process"] == "fork"
    with pytest.raises(ToolError, match="--unzip 1 needs the TTreeCache"):
        read(build, files[99], "all", unzip=True, cache_size=0)
    with pytest.raises(ToolError, match=r"--unzip 1 is a TTree setting \(TTreeCacheUnzip\)"):
        read(build, files["rntuple"], "all", unzip=True, container="rntuple")
