"""``rootparams inspect`` (rootparams.ownfile.inspection) on the real PHYSLITE (TTree and RNTuple) and NanoAOD samples:
its bytes against ROOT's own bookkeeping (TBranch::GetZipBytes, TTree::GetClusterIterator, RNTupleInspector), its
kinds against the study's benchmark, its three outputs, a URL through a real XRootD server, and the errors."""

from __future__ import annotations

import csv
import io
import json
import shutil
import sys
import tempfile
import warnings
from pathlib import Path

import pytest
from conftest import REPO, SHARED_DATA, require

from rootparams import cli
from rootparams.ownfile import inspection
from rootparams.ownfile.contentkinds import _LEAF_KINDS, BY_LEAF, XAOD_KINDS
from rootparams.ownfile.inspection import InspectError, inspect_file
from rootparams.vocabulary import RNTUPLE, TTREE

PHYSLITE = SHARED_DATA / "atlas_physlite_run2_ttbar_100ev.root"
PHYSLITE_RNTUPLE = SHARED_DATA / "atlas_physlite_rntuple_100ev.root"
NANOAOD = SHARED_DATA / "cms_nanoaod_2015_ttbar_200ev.root"
NANOAOD_RNTUPLE = SHARED_DATA / "cms_nanoaod_rntuple_10ev.root"
ZMUMU = SHARED_DATA / "cms_zmumu_flat_2304ev.root"
BACON = SHARED_DATA / "cms_bacon_ntuple_10ev.root"


@pytest.fixture(scope="module")
def ROOT():
    warnings.filterwarnings("ignore", message=r"(?s).*This distribution of ROOT is in alpha stage")
    import ROOT

    ROOT.gErrorIgnoreLevel = ROOT.kError  # the ATLAS classes have no dictionary here: expected warnings
    return ROOT


@pytest.fixture(scope="module")
def physlite():
    require(PHYSLITE.exists(), f"{PHYSLITE} (shared/data) is needed")
    return inspect_file(str(PHYSLITE))


@pytest.fixture(scope="module")
def physlite_every(physlite):
    """The PHYSLITE inspected with every branch (--all), for the tests of the rows below the top level."""
    return inspect_file(str(PHYSLITE), all_branches=True)


@pytest.fixture(scope="module")
def physlite_rntuple():
    require(PHYSLITE_RNTUPLE.exists(), f"{PHYSLITE_RNTUPLE} (shared/data) is needed")
    return inspect_file(str(PHYSLITE_RNTUPLE))


def run(*args: str, capsys) -> tuple[int, str, str]:
    """``rootparams inspect ARGS`` in this process: (exit code, stdout, stderr)."""
    code = cli.main(["inspect", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


# ----------------------------------------------------------------------------------------------------------
# TTree


def test_the_physlite_tree_is_found_and_described(physlite):
    assert (physlite.container, physlite.name, physlite.entries) == (TTREE, "CollectionTree", 100)
    assert (physlite.clusters, physlite.clusters_how) == (1, "AutoFlush 100 entries")
    assert physlite.file_compression == 105 and inspection.compression_label(105) == "zlib-5"
    assert physlite.data_compression == 105 and not physlite.other_compression
    assert (physlite.top_level, physlite.everything) == (1395, 1657)
    assert physlite.file_size == PHYSLITE.stat().st_size and physlite.layout == inspection.XAOD


def test_branch_bytes_add_up_to_what_root_counts_for_the_tree(physlite, ROOT):
    f = ROOT.TFile.Open(str(PHYSLITE))
    tree = f.Get("CollectionTree")
    # ROOT counts baskets only (their keys included): the tree's total, not the file's size.
    assert (physlite.compressed, physlite.uncompressed) == (tree.GetZipBytes(), tree.GetTotBytes())
    assert physlite.compressed < physlite.file_size
    assert sum(r.compressed for r in physlite.rows) == physlite.compressed
    assert sum(r.uncompressed for r in physlite.rows) == physlite.uncompressed
    assert sum(k.compressed for k in physlite.kinds) == physlite.compressed
    # Each top-level row is its branch with every sub-branch (GetZipBytes("*")).
    root_rows = {b.GetName(): (b.GetZipBytes("*"), b.GetTotBytes("*")) for b in tree.GetListOfBranches()}
    f.Close()
    assert {r.name: (r.compressed, r.uncompressed) for r in physlite.rows} == root_rows


def test_all_branches_lists_every_branch_with_its_own_bytes(physlite, physlite_every):
    every = physlite_every
    assert len(every.rows) == physlite.everything
    assert sum(r.compressed for r in every.rows) == physlite.compressed
    members = [r for r in every.rows if r.top == "EventInfoAux."]
    assert len(members) > 5 and any(r.name == "EventInfoAux.runNumber" for r in members)


def test_the_kinds_are_the_study_benchmarks_for_every_branch(physlite, physlite_every, ROOT):
    """The study's benchmark classifies ROOT's own view of the branches (TBranchElement::GetTypeName, element
    counts read with uproot): inspect gives every unit the same kind, and the same totals per kind."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    from compare_physlite import classify, count_elements, units_of

    f = ROOT.TFile.Open(str(PHYSLITE))
    tree = f.Get("CollectionTree")
    tops = list(tree.GetListOfBranches())
    classes = {b.GetName(): b.GetClassName() for b in tops}
    units = [u for b in tops for u in units_of(b, b.GetName(), 100)]
    f.Close()
    count_elements(PHYSLITE, units)
    expected: dict[str, int] = {}
    for unit in units:
        unit.kind = classify(unit, classes[unit.top])
        expected[unit.kind] = expected.get(unit.kind, 0) + unit.zip_bytes
    every = physlite_every
    # (name, top) is not unique: a split member may carry its branch's name; both lists keep ROOT's order.
    ours = [(r.name, r.kind) for r in every.rows if (r.uncompressed or r.in_tree_object)]
    assert ours == [(u.name, u.kind) for u in units if u.tot_bytes]
    assert {k.kind: k.compressed for k in physlite.kinds} == {k: v for k, v in expected.items() if v}
    assert {k.kind for k in physlite.kinds} <= set(XAOD_KINDS)


def test_clusters_are_counted_as_root_walks_them(tmp_path, ROOT):
    """A tree whose AutoFlush changed while it was filled has cluster ranges: the count is ROOT's."""
    path = tmp_path / "ranges.root"
    f = ROOT.TFile(str(path), "RECREATE")
    tree = ROOT.TTree("Events", "")
    x = ROOT.std.vector["float"]()
    tree.Branch("x", x)
    for entries, autoflush in ((250, 100), (130, 30), (77, 50)):
        tree.SetAutoFlush(autoflush)
        for i in range(entries):
            x.clear()
            x.push_back(i)
            tree.Fill()
    tree.Write()
    f.Close()
    f = ROOT.TFile.Open(str(path))
    tree = f.Get("Events")
    clusters, it = 0, tree.GetClusterIterator(0)
    while it.Next() < tree.GetEntries():
        clusters += 1
    f.Close()
    found = inspect_file(str(path))
    assert found.clusters == clusters and "cluster ranges" in found.clusters_how
    assert inspection.tree_clusters(100, 0, [], []) is None  # AutoFlush 0: ROOT estimates them when reading
    assert inspection.tree_clusters(250, 100, [], []) == 3


def test_branches_at_another_compression_are_named(tmp_path, ROOT, capsys):
    import array

    path = tmp_path / "mixed.root"
    f = ROOT.TFile(str(path), "RECREATE", "", 404)
    tree = ROOT.TTree("Events", "")
    a, b = array.array("f", [0]), array.array("i", [0])
    tree.Branch("a", a, "a/F")
    tree.Branch("b", b, "b/I").SetCompressionSettings(207)
    for i in range(1000):
        a[0], b[0] = i * 0.5, i % 7
        tree.Fill()
    tree.Write()
    f.Close()
    found = inspect_file(str(path))
    assert (found.file_compression, found.other_compression, found.data_compression) == (
        404,
        {"b": 207},
        None,
    )
    assert {r.name: r.compression for r in found.rows} == {"a": 404, "b": 207}
    code, out, _ = run(str(path), capsys=capsys)
    assert code == 0 and "lz4-4 (the file's setting, 404); 1 branch at another setting:" in out
    assert "lzma-7: 1 (b)" in out


def test_a_flat_tree_with_baskets_inside_the_tree_object():
    """The NanoAOD sample keeps its baskets inside the TTree object: ROOT counts them in no branch, so they are
    reported on their own; its kinds are by leaf type, its counters integer scalars."""
    require(NANOAOD.exists(), f"{NANOAOD} (shared/data) is needed")
    found = inspect_file(str(NANOAOD))
    assert (found.name, found.entries, found.layout) == ("Events", 200, inspection.FLAT)
    assert found.layout_text == "TTree (flat)"
    assert found.clusters is None and "not recorded" in found.clusters_how
    assert {k.kind for k in found.kinds} <= set(_LEAF_KINDS)
    assert {"float arrays", "integer arrays", "bool arrays", "float scalars", "integer scalars"} <= {
        k.kind for k in found.kinds
    }
    every = inspect_file(str(NANOAOD), all_branches=True)
    kinds = {r.name: r.kind for r in every.rows}
    assert (kinds["nMuon"], kinds["Muon_pt"], kinds["Muon_charge"]) == (
        "integer scalars",
        "float arrays",
        "integer arrays",
    )
    assert found.in_tree_object > found.compressed and found.tree_key_bytes > 0
    assert any("inside the TTree object" in note for note in found.notes)
    assert sum(r.compressed for r in found.rows) == found.compressed


def _unmodelled(*args):
    raise KeyError(("V", 16))  # as uproot names the type of a 2-D leaf-list array


def _facts(ins) -> dict:
    return {k: v for k, v in vars(ins).items() if k not in ("rows", "kinds", "reader", "notes")}


def test_a_tree_uproot_cannot_model_is_read_by_root(monkeypatch):
    """ROOT's reading (rootparams.tools.root_metadata, in a process of its own) gives what uproot gives: the NanoAOD sample
    (leaf-list arrays, baskets inside the TTree object), every branch with its own bytes."""
    require(NANOAOD.exists(), f"{NANOAOD} (shared/data) is needed")
    by_uproot = inspect_file(str(NANOAOD), all_branches=True)
    monkeypatch.setattr(inspection, "inspect_tree", _unmodelled)
    by_root = inspect_file(str(NANOAOD), all_branches=True)
    assert by_root.reader == "ROOT" and by_uproot.reader == "uproot"
    assert "uproot cannot read this TTree's metadata (KeyError: ('V', 16)); ROOT 6." in by_root.notes[0]
    assert _facts(by_root) == _facts(by_uproot)
    assert by_root.rows == by_uproot.rows and by_root.kinds == by_uproot.kinds


def test_an_xaod_tree_read_by_root_has_the_same_bytes_and_types(physlite, monkeypatch):
    """Split xAOD objects (TBranchElement): the same bytes per branch and kinds; only the elements per event of
    vector<float/double> are not in ROOT's metadata, so all of them count as dense (and a note says so)."""
    monkeypatch.setattr(inspection, "inspect_tree", _unmodelled)
    by_root = inspect_file(str(PHYSLITE))
    # ROOT walks the clusters itself (its text says so); uproot counted the elements of the first entries.
    same = {"multiplicity_entries": None, "clusters_how": ""}
    assert _facts(by_root) | same == _facts(physlite) | same
    assert [(r.name, r.compressed, r.uncompressed, r.compression) for r in by_root.rows] == [
        (r.name, r.compressed, r.uncompressed, r.compression) for r in physlite.rows
    ]

    def merged(ins) -> dict[str, int]:
        kinds = {k.kind.replace("low-multiplicity", "dense"): 0 for k in ins.kinds}
        for k in ins.kinds:
            kinds[k.kind.replace("low-multiplicity", "dense")] += k.compressed
        return kinds

    assert merged(by_root) == merged(physlite)
    assert any("count as dense" in note for note in by_root.notes)


def test_a_tree_neither_uproot_nor_root_can_read_is_one_line(tmp_path, monkeypatch, capsys):
    import numpy as np
    import uproot

    path = tmp_path / "events.root"
    with uproot.recreate(path) as f:
        f.mktree("events", {"x": "f4"}).extend({"x": np.arange(10, dtype=np.float32)})
    with pytest.raises(inspection.root_metadata.RootMetadataError, match=r"has no TTree named 'nope'"):
        inspection.root_metadata.read(str(path), "nope")  # ROOT's own refusal, from its process
    monkeypatch.setattr(inspection, "inspect_tree", _unmodelled)

    def unreadable(target, tree=None, timeout=0):
        raise inspection.root_metadata.RootMetadataError(
            f"{target}: ROOT cannot read its TTree {tree} (Error)"
        )

    monkeypatch.setattr(inspection.root_metadata, "read", unreadable)
    line = _error(capsys, str(path))
    assert (
        f"{path}: its TTree events cannot be read, neither by uproot (KeyError: ('V', 16)) nor by ROOT"
        in line
    )


@pytest.fixture
def root525_models(monkeypatch):
    """uproot's models of TTrees as ROOT 5.25 wrote them (class version 17), as rootparams sees them: no
    fAutoFlush, no cluster ranges (uproot's own reading of this ROOT 6 file goes on as it is)."""
    import uproot

    missing = {"fAutoFlush", "fClusterRangeEnd", "fClusterSize", "fNClusterRange"}
    member = uproot.model.Model.member

    def old_member(self, name, all=True, none_if_missing=False):
        ours = sys._getframe(1).f_globals.get("__name__", "").startswith("rootparams")
        if ours and name in missing and self.classname == "TTree":
            if none_if_missing:
                return None
            raise uproot.KeyInFileError(name)
        return member(self, name, all, none_if_missing)

    monkeypatch.setattr(uproot.model.Model, "member", old_member)


def test_a_tree_written_before_autoflush_is_read_by_uproot_without_clusters(tmp_path, root525_models):
    import numpy as np
    import uproot

    path = tmp_path / "sample.root"
    with uproot.recreate(path) as f:
        f.mktree("sample", {"n": "i4"}).extend({"n": np.arange(30, dtype=np.int32)})
    found = inspect_file(str(path))
    assert (found.reader, found.entries, found.clusters) == ("uproot", 30, None)
    assert found.clusters_how.startswith("not recorded (AutoFlush 0)")


# ----------------------------------------------------------------------------------------------------------
# Kinds by leaf type: every file but an ATLAS xAOD one


def test_a_kind_is_what_a_leaf_holds():
    """The grouping by leaf type on type names as ROOT and uproot spell them, and the one rule that picks ATLAS's
    grouping."""
    from rootparams.ownfile.contentkinds import XAOD, Unit, grouping_of, leaf_kind

    def kind(type_name: str, array: bool = False) -> str:
        return leaf_kind(Unit("b", "b", type_name, 0, 0, 1, array=array))

    assert [kind(t) for t in ("Float_t", "Double32_t", "double", "UInt_t", "std::uint64_t", "Bool_t")] == [
        "float scalars",
        "float scalars",
        "double scalars",
        "integer scalars",
        "integer scalars",
        "bool scalars",
    ]
    assert kind("Float_t", array=True) == "float arrays"  # a TClonesArray's member
    assert kind("ROOT::VecOps::RVec<int>") == kind("std::vector<std::vector<int>>") == "integer arrays"
    assert kind("float[3]") == kind("int32_t[]").replace("integer", "float") == "float arrays"
    assert kind("char*") == kind("std::string") == kind("vector<string>") == "strings"
    assert kind("TLorentzVector") == kind("object") == "streamed objects"
    assert grouping_of("CollectionTree", [("ElectronsAuxDyn.pt", "vector<float>")]) == XAOD
    assert grouping_of("EventData", [("Jets", "DataVector<xAOD::Jet_v1>")]) == XAOD
    assert grouping_of("CollectionTree", [("Muon", "TClonesArray")]) == BY_LEAF  # the name alone is not ATLAS
    assert grouping_of("Delphes", [("JetsAuxDyn.pt", "vector<float>")]) == BY_LEAF


@pytest.mark.parametrize(
    "path, layout",
    [(NANOAOD, inspection.FLAT), (ZMUMU, inspection.FLAT), (BACON, inspection.OBJECTS)],
    ids=["nanoaod", "zmumu", "bacon"],
)
def test_leaf_kinds_are_roots_view_of_every_branch(path, layout, ROOT):
    """ROOT's own view of the branches (the benchmarks' leaf_units_of: TBranchElement::GetTypeName and GetType,
    a leaf's counter and length) gives every branch the kind inspect gives it."""
    require(path.exists(), f"{path} (shared/data) is needed")
    sys.path.insert(0, str(REPO / "benchmarks"))
    from compare_physlite import leaf_units_of

    found = inspect_file(str(path), all_branches=True)
    assert (found.layout, found.grouping) == (layout, BY_LEAF)
    f = ROOT.TFile.Open(str(path))
    tree = f.Get(found.name)
    units = [u for b in tree.GetListOfBranches() for u in leaf_units_of(b, b.GetName(), 1)]
    f.Close()
    assert [(r.name, r.kind) for r in found.rows] == [(u.name, u.kind) for u in units]
    assert {k.kind for k in found.kinds} <= set(_LEAF_KINDS)


def test_a_tclonesarray_s_members_are_arrays_and_its_size_an_integer():
    """The CMS Bacon ntuple: TClonesArrays of classes without a dictionary here, split."""
    require(BACON.exists(), f"{BACON} (shared/data) is needed")
    kinds = {r.name: r.kind for r in inspect_file(str(BACON), all_branches=True).rows}
    assert kinds["Muon"] == "integer scalars"  # the TClonesArray's own baskets: its size per event
    assert (kinds["Muon.pt"], kinds["Muon.q"]) == ("float arrays", "integer arrays")
    assert kinds["runNum"] == "integer scalars"  # a member of a split object (Info), one per event
    assert inspect_file(str(BACON)).layout_text == "TTree (objects)"


def test_strings_and_rvecs_have_kinds_of_their_own(tmp_path, ROOT):
    """A flat tree as RDataFrame writes it (ROOT::RVec<float>, ROOT::RVec<int>, scalars); the CMS dimuon ntuple's
    C string (a leaf /C)."""
    path = tmp_path / "rvec.root"
    df = ROOT.RDataFrame(50).Define("x", "float(rdfentry_)").Define("n", "int(rdfentry_ % 3)")
    df = df.Define("pt", "ROOT::RVec<float>(n, 1.5f)").Define("idx", "ROOT::RVec<int>(n, 7)")
    df.Define("ok", "n > 0").Snapshot("events", str(path), ["x", "n", "pt", "idx", "ok"])
    found = inspect_file(str(path))
    kinds = {r.name: r.kind for r in found.rows}
    assert kinds == {
        "x": "float scalars",
        "n": "integer scalars",
        "pt": "float arrays",
        "idx": "integer arrays",
        "ok": "bool scalars",
    }
    assert found.layout == inspection.FLAT
    zmumu = {r.name: r.kind for r in inspect_file(str(ZMUMU)).rows}
    assert (zmumu["Type"], zmumu["Run"], zmumu["E1"]) == ("strings", "integer scalars", "double scalars")


def test_an_imported_rntuple_groups_its_collections_by_leaf_type():
    """CMS NanoAOD as RNTupleImporter writes it: an untyped collection's index column is its counter (an integer
    per event), its items arrays; the kinds are the TTree's."""
    require(NANOAOD_RNTUPLE.exists(), f"{NANOAOD_RNTUPLE} (shared/data) is needed")
    found = inspect_file(str(NANOAOD_RNTUPLE), all_branches=True)
    assert (found.layout, found.grouping) == (inspection.FLAT, BY_LEAF)
    kinds = {r.name: r.kind for r in found.rows}
    muons = next(r.top for r in found.rows if r.name.endswith("._0.Muon_pt"))
    assert kinds[muons] == "integer scalars" and kinds[f"{muons}._0.Muon_pt"] == "float arrays"
    assert sum(k.compressed for k in found.kinds) == found.compressed


# ----------------------------------------------------------------------------------------------------------
# RNTuple


def test_rntuple_fields_match_rntupleinspector(physlite_rntuple, ROOT):
    found = physlite_rntuple
    assert (found.container, found.name, found.entries, found.top_level) == (RNTUPLE, "EventData", 100, 854)
    inspector = ROOT.Experimental.RNTupleInspector.Create("EventData", str(PHYSLITE_RNTUPLE))
    assert found.compressed == inspector.GetCompressedSize()
    assert found.uncompressed == inspector.GetUncompressedSize()
    assert sum(r.compressed for r in found.rows) == found.compressed
    assert found.clusters == inspector.GetDescriptor().GetNClusters()
    assert found.data_compression == inspector.GetCompressionSettings().value() == 505
    for row in found.rows:
        field = inspector.GetFieldTreeInspector(row.name)
        assert (row.compressed, row.uncompressed) == (
            field.GetCompressedSize(),
            field.GetUncompressedSize(),
        ), row.name
    # Same-page merging stores some pages once for several columns: fewer bytes than the per-column count.
    assert found.stored_once < found.compressed


def test_rntuple_kinds_group_fields_as_the_study_groups_branches(physlite_rntuple, physlite):
    kinds = {k.kind: k for k in physlite_rntuple.kinds}
    assert set(kinds) <= set(XAOD_KINDS) and set(kinds) == {k.kind for k in physlite.kinds}
    assert sum(k.compressed for k in kinds.values()) == physlite_rntuple.compressed
    # mcEventWeights alone: the TTree's scalar weight_* branches are not in the RNTuple
    assert kinds["MC event weights"].units == 1
    low = kinds["low-multiplicity vector<float/double>"]
    assert low.units > 100  # element counts from the page list: below 3 per event


# ----------------------------------------------------------------------------------------------------------
# Outputs


def test_the_text_output_reads_like_a_summary(capsys, physlite):
    code, out, err = run(str(PHYSLITE), "--top", "5", capsys=capsys)
    assert code == 0 and not err
    assert "TTree CollectionTree" in out and "zlib-5 (the file's setting, 105)" in out
    assert "file size    2.88 MB" in out and "ratio 4.56" in out
    assert "By kind of content" in out and "element links" in out
    table = out.split("Branches by compressed bytes")[1].splitlines()[2:]
    largest = sorted(physlite.rows, key=lambda r: -r.compressed)[:5]
    assert [ln.split()[0] for ln in table[:5]] == [r.name for r in largest]  # largest first
    assert table[5].startswith("  ... 1,390 more branches")


def test_csv_is_one_row_per_branch_with_its_kind(capsys, physlite):
    code, out, _ = run(str(PHYSLITE), "--csv", capsys=capsys)
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == physlite.top_level and list(rows[0]) == list(inspection._CSV_COLUMNS)
    assert sum(int(r["compressed_bytes"]) for r in rows) == physlite.compressed
    assert {r["kind"] for r in rows} <= set(XAOD_KINDS) and {r["compression"] for r in rows} == {"zlib-5"}
    code, out, _ = run(str(PHYSLITE_RNTUPLE), "--csv", "--all-branches", capsys=capsys)
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and {r["container"] for r in rows} == {"rntuple"} and len(rows) == 2401


def test_json_holds_everything(capsys, physlite_rntuple):
    code, out, _ = run(str(PHYSLITE_RNTUPLE), "--json", capsys=capsys)
    assert code == 0
    data = json.loads(out)
    assert (data["container"], data["name"], data["clusters"]) == ("rntuple", "EventData", 1)
    assert data["file_compression_label"] == "zstd-5"
    assert len(data["rows"]) == 854 and sum(r["compressed"] for r in data["rows"]) == data["compressed"]
    assert abs(sum(k["share"] for k in data["kinds"]) - 1) < 1e-9
    assert data["rows"][0]["compressed"] >= data["rows"][-1]["compressed"]


# ----------------------------------------------------------------------------------------------------------
# A URL


def test_a_root_url_is_read_through_roots_xrootd_client():
    require(shutil.which("xrootd") is not None, "xrootd (xrootd-server) is needed: run tools/install-remote")
    from rootparams.host.remote import XRootDServer

    export = Path(tempfile.mkdtemp(prefix="rootparams-export-"))
    try:
        export.chmod(0o755)
        for source in (PHYSLITE_RNTUPLE, NANOAOD):
            shutil.copy(source, export / source.name)
            (export / source.name).chmod(0o644)
        with XRootDServer(export, export / "log") as server:
            for source in (PHYSLITE_RNTUPLE, NANOAOD):
                remote = inspect_file(server.url(export / source.name))
                local = inspect_file(str(source))
                assert remote.reader.startswith("ROOT") and remote.file_size == local.file_size
                assert [(r.name, r.compressed, r.kind) for r in remote.rows] == [
                    (r.name, r.compressed, r.kind) for r in local.rows
                ]
            missing = server.url(export / "nothing.root")
            with pytest.raises(
                InspectError, match=r"nothing\.root\?remote=1: ROOT cannot open it \(.*no such file"
            ):
                inspect_file(missing)
    finally:
        shutil.rmtree(export, ignore_errors=True)


# ----------------------------------------------------------------------------------------------------------
# Errors


def _error(capsys, *args: str) -> str:
    code, out, err = run(*args, capsys=capsys)
    assert code == 2 and not out, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rootparams inspect: error: "), err
    assert "Traceback" not in err
    return lines[0]


def test_errors_name_the_file_and_what_it_holds(tmp_path, capsys):
    import numpy as np
    import uproot

    assert "no such file" in _error(capsys, str(tmp_path / "missing.root"))
    text = tmp_path / "notes.txt"
    text.write_text("events: 100\n")
    assert "is not a ROOT file: it is text" in _error(capsys, str(text))
    assert "is a directory" in _error(capsys, str(tmp_path))
    hists = tmp_path / "hists.root"
    with uproot.recreate(hists) as f:
        f["h"] = np.histogram(np.arange(10), bins=5)
    line = _error(capsys, str(hists))
    assert str(hists) in line and "holds no TTree or RNTuple (it holds 1 TH1D)" in line
    truncated = tmp_path / "truncated.root"
    truncated.write_bytes(PHYSLITE.read_bytes()[:300])
    assert "damaged or truncated ROOT file" in _error(capsys, str(truncated))
    line = _error(capsys, str(PHYSLITE), "--tree", "Events")
    assert "no TTree or RNTuple named 'Events'" in line and "CollectionTree (100)" in line
    two = tmp_path / "two.root"
    with uproot.recreate(two) as f:
        f["a"] = {"x": np.arange(5)}
        f["b"] = {"y": np.arange(5)}
    line = _error(capsys, str(two))  # uproot writes a dict as an RNTuple
    assert line.endswith(
        f"{two} holds 2 RNTuples: a (5 entries), b (5); name the one to use with --tree NAME"
    )
    code, out, _ = run(str(two), "--tree", "b", capsys=capsys)  # the choice made
    assert code == 0 and "b, read with uproot" in out
