"""The reader's RDataFrame style (--reading-style rdataframe --columns ...; read_rdataframe.cxx): typed actions over the
first N entries, the same values with 1 and 2 implicit-MT threads and as uproot reads them, the bytes PerfStats
sees against what RDataFrame's cache fetches, and errors that name the column, its type and what is valid."""

import pytest
from conftest import SHARED_DATA, require

from rootparams.measure.generate import generate_file
from rootparams.measure.measure import _reader_args
from rootparams.study.grid import FilePoint
from rootparams.tools.processes import ReaderServer, ToolError, run_tool

NANOAOD = SHARED_DATA / "cms_nanoaod_2015_ttbar_200ev.root"

# One column of each type the synthetic SUSY5 file offers (RDataFrame's spelling in the comment).
SUSY5_COLUMNS = {
    "ElectronsAux.pt": "ElectronsAux.pt",  # RVec<float>, a member of a split aux store
    "ElectronsAux.author": "ElectronsAux.author",  # RVec<unsigned short>
    "ElectronsAux.OQ": "ElectronsAux.OQ",  # RVec<unsigned int>
    "ElectronsAux.quality": "ElectronsAux.quality",  # RVec<unsigned char>
    "AntiKt4EMPFlowJetsAux.ConeTruthLabelID": "AntiKt4EMPFlowJetsAux.ConeTruthLabelID",  # RVec<int>
    "GSFTrackParticlesAux.patternRecoInfo": "GSFTrackParticlesAux.patternRecoInfo",  # RVec<unsigned long>
    # RVec<UInt_t>: a member of a split std::vector<ElementLink_v1> (its counter is the vector's branch)
    "ElectronsAux.trackParticleLink.m_persKey": "ElectronsAux.trackParticleLink.m_persKey",
    "ElectronsAuxDyn.DFCommonElectronsVar000": "ElectronsAuxDyn.DFCommonElectronsVar000",  # a dynamic variable
    # UInt_t, a scalar: the interface container's size (uproot names it by its base classes)
    "Electrons.m_size": "Electrons/xAODlike::IParticleContainer/xAODlike::AuxVectorBase/m_size",
}
# NanoAOD: leaf arrays with a counter (Electron_pt[nElectron]) and scalars of every type the file has.
NANOAOD_COLUMNS = [
    "Electron_pt",
    "nElectron",
    "Electron_charge",
    "Electron_lostHits",
    "Electron_convVeto",
    "Jet_pt",
    "run",
    "luminosityBlock",
    "event",
    "Flag_CSCTightHaloFilter",
    "HTXS_njets25",
    "Generator_id1",
    "CaloMET_pt",
]


@pytest.fixture(scope="module")
def susy5(build, tmp_path_factory):
    """300 SUSY5 events at split level 99, 3 clusters of 100."""
    out = tmp_path_factory.mktemp("rdf") / "susy5.root"
    return generate_file(
        FilePoint("susy5", "zstd", 5, 100, 99, 32000),
        events=300,
        seed=5,
        writer=str(build["writer"]),
        reader=str(build["reader"]),
        output=str(out),
        catalogue=None,
    )


def rdf_args(path, events, columns, threads, **extra) -> dict:
    return {
        "file": str(path),
        "events": events,
        "reading-style": "rdataframe",
        "columns": ",".join(columns),
        "threads": threads,
        "cache-size": -1,
        "learn-entries": -1,
        **extra,
    }


def rdf_read(build, path, events, columns, threads=1, **extra) -> dict:
    args = rdf_args(path, events, columns, threads, **extra)
    return run_tool(
        [str(build["reader"]), *(x for k, v in args.items() for x in (f"--{k}", str(v)))], "rdf read"
    )


def uproot_sums(path, tree, events, branches: dict[str, str]) -> tuple[dict, dict]:
    """Per column: the sum of its values over the first ``events`` entries, and their number, read by uproot."""
    import awkward as ak
    import numpy as np
    import uproot

    t = uproot.open(path)[tree]
    sums, counts = {}, {}
    for column, branch in branches.items():
        values = t[branch].array(entry_stop=events, library="ak")
        sums[column] = float(ak.sum(ak.values_astype(values, np.float64), axis=None))
        counts[column] = int(ak.count(values, axis=None))
    return sums, counts


def check_against_uproot(r, sums, counts):
    assert set(r["column_sums"]) == set(sums)
    for column, value in sums.items():
        assert r["column_sums"][column] == pytest.approx(value, rel=1e-9), column
        assert r["column_values"][column] == counts[column], column
    assert r["values_sum"] == pytest.approx(sum(sums.values()), rel=1e-9)
    assert r["values_count"] == sum(counts.values())


@pytest.mark.parametrize("events", [300, 250])  # all entries; and a cut inside the last cluster
def test_susy5_columns_read_alike_with_1_and_2_threads_and_by_uproot(build, susy5, events):
    one, two = (rdf_read(build, susy5["path"], events, SUSY5_COLUMNS, threads=t) for t in (1, 2))
    sums, counts = uproot_sums(susy5["path"], "CollectionTree", events, SUSY5_COLUMNS)
    for r, threads in ((one, 1), (two, 2)):
        assert (
            r["reading_style"] == "rdataframe" and r["rdf_threads"] == threads and r["rdf_slots"] == threads
        )
        assert r["events_read"] == events and r["entries_in_tree"] == 300
        assert r["columns"] == len(SUSY5_COLUMNS)
        assert r["rdf_jitted"] is False  # every action typed: RDataFrame logged "Nothing to jit and execute."
        check_against_uproot(r, sums, counts)
    assert one["column_selection"] == ""
    assert one["column_types"]["ElectronsAux.author"] == "ROOT::VecOps::RVec<unsigned short>"
    assert one["column_types"]["Electrons.m_size"] == "UInt_t"
    # The sums of the electron containers' sizes is the number of electrons.
    assert one["column_sums"]["Electrons.m_size"] == one["column_values"]["ElectronsAux.pt"]
    assert one["imt_pool_size"] == 0 and two["imt_pool_size"] == 2 and two["perfstats_threads_covered"] == 2
    # One task over [0, N) single-threaded; with implicit MT one per cluster range (100 entries each).
    assert one["rdf_tasks"] == 1 and two["rdf_tasks"] == -(-events // 100)


def test_nanoaod_leaf_arrays_and_scalars_read_alike_with_1_and_2_threads_and_by_uproot(build):
    require(NANOAOD.exists(), f"{NANOAOD} (the shared NanoAOD test file)")
    one, two = (rdf_read(build, NANOAOD, 200, NANOAOD_COLUMNS, threads=t, tree="Events") for t in (1, 2))
    sums, counts = uproot_sums(NANOAOD, "Events", 200, {c: c for c in NANOAOD_COLUMNS})
    for r in (one, two):
        assert r["events_read"] == 200 and r["rdf_jitted"] is False
        check_against_uproot(r, sums, counts)
    assert one["column_types"]["Electron_pt"] == "ROOT::VecOps::RVec<Float_t>"
    assert one["column_types"]["Electron_convVeto"] == "ROOT::VecOps::RVec<Bool_t>"
    assert one["column_types"]["event"] == "ULong64_t"
    assert one["column_sums"]["nElectron"] == one["column_values"]["Electron_pt"]  # the counter counts them
    # This small file keeps every basket in the tree's header: opening the tree reads the data, no cache
    # fetches anything. Single-threaded that open is before the loop; with implicit MT it is inside it.
    assert one["cache_cached_zip_bytes"] == 0 and one["loop_bytes_read"] == 0
    assert two["loop_bytes_read"] == two["loop_uncached_bytes_read"] > 0


def test_perfstats_sees_the_bytes_rdataframe_reads(build, susy5):
    """Every numeric member of the electrons' aux store: adjacent baskets, so the cache reads no gaps. The
    baskets the cache fetched are the columns' compressed bytes, once, with 1 and with 2 threads (PerfStats in
    the workers); with implicit MT the loop also holds RDataFrame's own opens of the file, counted apart."""
    import uproot

    tree = uproot.open(susy5["path"])["CollectionTree"]
    members = [k for k in tree.keys(recursive=True) if k.startswith("ElectronsAux./")]
    columns = [k.split("/")[-1] for k in members if tree[k].typename.startswith("std::vector<")]
    assert len(columns) > 10
    one, two = (rdf_read(build, susy5["path"], 300, columns, threads=t) for t in (1, 2))
    for r in (one, two):
        baskets = r["loop_bytes_read"] - r["loop_uncached_bytes_read"]
        assert r["cache_cached_branches"] == r["column_branches"] == len(columns)
        assert r["cache_cached_zip_bytes"] == r["selected_zip_bytes"]
        assert 0 < baskets <= 1.2 * r["selected_zip_bytes"]
        # ROOT's own count of what was asked for (gaps excluded) agrees: every basket fetched once.
        assert r["loop_useful_bytes_read"] - r["loop_uncached_bytes_read"] == pytest.approx(
            r["selected_zip_bytes"], rel=0.02
        )
        # Every basket decompressed: its compressed payload, without the basket's key (header).
        assert 0.8 * r["selected_zip_bytes"] < r["loop_unzip_input_bytes"] < r["selected_zip_bytes"]
        assert r["loop_other_files_bytes_read"] == 0
        assert r["cache_size_requested"] == -1 and r["cache_size_used"] > 0
        # No second-entry moment: the note's window is the loop.
        assert r["note_window_is_loop"] is True
        for metric in ("seconds", "bytes_read", "read_calls", "unzip_output_bytes"):
            assert r[f"note_window_{metric}"] == r[f"loop_{metric}"], metric
        assert r["note_window_event_rate_hz"] == r["event_rate_hz"] == pytest.approx(300 / r["loop_seconds"])
        assert 0 < r["first_entry_seconds"] <= r["loop_seconds"]
    assert two["loop_bytes_read"] - two["loop_uncached_bytes_read"] == one["loop_bytes_read"]
    assert one["loop_unzip_output_bytes"] == two["loop_unzip_output_bytes"]
    # Single-threaded, RDataFrame opened its file when it was made (open span); with implicit MT, once to list
    # the clusters and once per worker thread inside the loop, each open reading what the reader's own did.
    assert one["loop_uncached_bytes_read"] == 0 and one["rdf_task_files"] == 1
    opens = two["loop_uncached_bytes_read"] / two["tree_open_bytes_read"]
    assert opens == 1 + two["rdf_task_files"] and two["rdf_task_files"] in (1, 2)


def test_a_member_of_a_split_vector_of_structs_brings_its_siblings_into_the_cache(build, susy5):
    """Reading m_persKey reads the vector's size branch, and RDataFrame's TTreeReader caches that branch with
    all its sub-branches: m_persIndex is fetched too, beyond the column and its counter."""
    r = rdf_read(build, susy5["path"], 300, ["ElectronsAux.trackParticleLink.m_persKey"])
    assert r["column_branches"] == 2 and r["cache_cached_branches"] == 3
    assert r["cache_cached_zip_bytes"] > r["selected_zip_bytes"]
    assert r["loop_useful_bytes_read"] == pytest.approx(r["cache_cached_zip_bytes"], rel=0.02)


def test_the_fork_server_reads_with_rdataframe_and_implicit_mt_in_its_children(build, susy5, tmp_path):
    columns = ["ElectronsAux.pt", "ElectronsAux.eta", "Electrons.m_size"]
    alone = rdf_read(build, susy5["path"], 300, columns, threads=2)
    with ReaderServer(str(build["reader"]), tmp_path / "server.log") as server:
        two, child = server.read(rdf_args(susy5["path"], 300, columns, 2), "rdf 2", tmp_path / "c2.log")
        # As the harness sends it: a read point's options (with the selection the columns were resolved from).
        point = {
            "branches": "vars:Electrons.pt,Electrons.eta",
            "cache_size": -1,
            "learn_entries": "default",
            "threads": 1,
        }
        harness = {
            **_reader_args(susy5["path"], 300, point),
            "reading-style": "rdataframe",
            "columns": ",".join(columns),
        }
        one, _ = server.read(harness, "rdf 1", tmp_path / "c1.log")
        particle = {
            "file": susy5["path"],
            "events": 300,
            "branches": "particle",
            "cache-size": -1,
            "learn-entries": -1,
            "threads": 2,
        }
        getentry, _ = server.read(particle, "getentry", tmp_path / "c3.log")
    assert child["exit_code"] == 0 and two["reader_process"] == "fork" and two["imt_pool_size"] == 2
    assert two["perfstats_threads_covered"] == 2 and two["rdf_tasks"] == 3
    for metric in ("values_sum", "events_read", "loop_bytes_read", "loop_uncached_bytes_read"):
        assert two[metric] == alone[metric], metric
    assert one["values_sum"] == pytest.approx(two["values_sum"], rel=1e-12)
    assert one["column_selection"] == "vars:Electrons.pt,Electrons.eta" and one["rdf_threads"] == 1
    assert getentry["reading_style"] == "getentry" and getentry["note_window_is_loop"] is False
    assert getentry["first_entry_seconds"] > 0


def test_unknown_columns_name_the_file_the_nearest_names_and_what_is_there(build, susy5):
    with pytest.raises(
        ToolError,
        match=r"susy5\.root: --columns 'ElectronsAux\.ptt' \(similar: ElectronsAux\.pt, .*\), "
        r"'Muons_pt' \(similar: .*MuonsAux\.pt.*\) are not a branch or leaf of tree "
        r"'CollectionTree'\. Available: ",
    ):
        rdf_read(build, susy5["path"], 10, ["ElectronsAux.pt", "ElectronsAux.ptt", "Muons_pt"])


def test_unreadable_columns_name_the_column_its_type_and_what_can_be_read(build, susy5):
    # Every problem in one message: RDataFrame types a split collection's branch Int_t (its size), but its
    # TTreeReader refuses to read it as a number, inside the loop; refused before, naming the members.
    collection, nested, cls = (
        "AntiKt4EMPFlowJetsAuxDyn.JetAttributeLink",
        "AntiKt4EMPFlowJetsAux.EnergyPerSampling",
        "Electrons",
    )
    with pytest.raises(ToolError) as error:
        rdf_read(build, susy5["path"], 10, ["ElectronsAux.pt", collection, nested, cls], threads=2)
    message = str(error.value)
    assert f"column '{collection}' is a split collection (RDataFrame calls it Int_t" in message
    assert f"read its members instead, {collection}.m_persKey, {collection}.m_persIndex" in message
    assert (
        f"does not read the type of column '{nested}' (ROOT::VecOps::RVec<vector<float>>), "
        f"'{cls}' (xAODlike::ElectronContainer_v1)" in message
    )
    assert "supported: the scalars float, double" in message and "ROOT::VecOps::RVec of each" in message


def test_settings_rdataframe_cannot_apply_are_refused(build, susy5):
    path = susy5["path"]
    with pytest.raises(
        ToolError,
        match=r"--cache-size 0 cannot be applied with --reading-style rdataframe.*use --cache-size -1",
    ):
        rdf_read(build, path, 10, ["ElectronsAux.pt"], **{"cache-size": 0})
    with pytest.raises(ToolError, match=r"--learn-entries 10 cannot be applied.*use --learn-entries -1"):
        rdf_read(build, path, 10, ["ElectronsAux.pt"], **{"learn-entries": 10})
    with pytest.raises(ToolError, match=r"reads TTrees only, not --container rntuple"):
        rdf_read(build, path, 10, ["ElectronsAux.pt"], container="rntuple")
    with pytest.raises(ToolError, match=r"--reading-style 'rdf': must be getentry .*, rdataframe or bulk"):
        rdf_read(build, path, 10, ["ElectronsAux.pt"], **{"reading-style": "rdf"})
    # An option of an older reader, or a misspelt one, stops the read instead of measuring the default.
    with pytest.raises(ToolError, match=r"unknown option --reader: it is now called --reading-style"):
        rdf_read(build, path, 10, ["ElectronsAux.pt"], reader="rdataframe")
    with pytest.raises(ToolError, match=r"unknown option --cache-sise; the options are .*--cache-size"):
        rdf_read(build, path, 10, ["ElectronsAux.pt"], **{"cache-sise": 0})
    with pytest.raises(ToolError, match=r"has 300 entries, but 301 were requested"):
        rdf_read(build, path, 301, ["ElectronsAux.pt"])
