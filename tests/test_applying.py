"""The "Apply it" block (rootparams.present.applying): its text for typical decisions and files, every framework key it
prints traced to a source, hadd's flags as the wheel's own hadd states them, and the ROOT calls it prints run by
ROOT itself on a 10-entry file, whose setting is then read back."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap

import pytest
from conftest import REPO, SHARED_DATA, require

from rootparams.present import applying
from rootparams.present.applying import (
    _CMS_EDM,
    _CMS_NANOAOD,
    ATLAS,
    SOURCES,
    UNKNOWN,
    Decision,
    FileContext,
    apply_it,
    framework_of,
    is_plain_type,
)
from rootparams.tools import rootenv
from rootparams.vocabulary import RNTUPLE, TTREE

ZSTD5_30MB = Decision(TTREE, "zstd", 5, -30_000_000)
LZ4_1_50MB = Decision(RNTUPLE, "lz4", 1, -50_000_000)
ATLAS_TREE = FileContext("CollectionTree", TTREE, 105, 100, ATLAS, holds_classes=True)
ATLAS_NTUPLE = FileContext("EventData", RNTUPLE, 505, None, ATLAS, holds_classes=True)
NANOAOD = FileContext("Events", TTREE, 101, 0, _CMS_NANOAOD, holds_classes=False)
EDM = FileContext("Events", TTREE, 505, -20971520, _CMS_EDM, holds_classes=True)
FLAT_NTUPLE = FileContext("Events", RNTUPLE, 505, None, UNKNOWN, holds_classes=False)
UNKNOWN_TREE = FileContext("events", TTREE, 404, -30_000_000, UNKNOWN, holds_classes=False)
CUSTOM_CLASSES = FileContext("Events", TTREE, 1, 6844, UNKNOWN, holds_classes=True)

# One screen: what a terminal shows without scrolling, for a typical decision.
ONE_SCREEN = 50


def test_ttree_zstd5_with_an_autoflush_of_30_mb_on_an_atlas_file():
    block = apply_it(ZSTD5_30MB, ATLAS_TREE)
    text = block.markdown()
    assert text.startswith("## Apply it\n")
    assert "hadd -f505 out.root in1.root in2.root ..." in text
    assert "`-O`" in text
    assert "ZLIB level 5 (105)" in text  # the file's own setting, in words
    # hadd cannot change the clusters; it re-streams classes, which needs their dictionaries
    assert "hadd keeps each tree's AutoFlush" in text
    assert "needs their dictionaries" in text and applying._OWN_RECOMPRESSOR_TEXT in text
    assert (
        "file->SetCompressionSettings(ROOT::CompressionSettings(ROOT::RCompressionSetting::EAlgorithm::kZSTD, 5));"
        in text
    )
    assert "tree->SetAutoFlush(-30000000);" in text
    assert 'TFile::Open("out.root", "RECREATE", "", 505)' in text
    assert "tree.SetAutoFlush(-30000000)" in text  # PyROOT
    assert 'flags.Output.TreeAutoFlush = {"DAOD_PHYS": -30000000}' in text
    assert "pah.setFileCompAlg(out, 5), pah.setFileCompLvl(out, 5)" in text
    assert "NumberEventsPerWrite" in text  # Athena's shared writer replaces a negative AutoFlush
    assert len(text.splitlines()) <= ONE_SCREEN


def test_rntuple_lz4_1_with_50_mb_clusters():
    block = apply_it(LZ4_1_50MB, FLAT_NTUPLE)
    text = block.markdown()
    assert "hadd -f401 out.root in1.root in2.root ..." in text
    assert "experimental" in text and "`-O` is for TTrees" in text
    assert "hadd keeps the clusters and pages" in text
    assert "needs no dictionary" in text
    assert "options.SetCompression(ROOT::RCompressionSetting::EAlgorithm::kLZ4, 1);" in text
    assert "options.SetApproxZippedClusterSize(50000000);" in text
    assert 'ROOT::RNTupleWriter::Recreate(std::move(model), "Events", "out.root", options)' in text
    assert 'ROOT::RNTupleWriter::Append(std::move(model), "Events", *file, options)' in text
    assert "options.SetApproxZippedClusterSize(50000000)\n" in text  # PyROOT
    assert "not one rootparams recognises" in text
    assert len(text.splitlines()) <= ONE_SCREEN


def test_an_atlas_rntuple_says_no_key_sets_its_cluster_size():
    block = apply_it(LZ4_1_50MB, ATLAS_NTUPLE)
    text = block.markdown()
    assert "No key found for an RNTuple's cluster size" in text
    assert "An RNTuple takes its file's compression" in text
    assert "pah.setFileCompAlg(out, 4), pah.setFileCompLvl(out, 1)" in text
    assert "DefaultContainerType" not in text  # it already is an RNTuple
    # the other way round, the container flag of both generations of releases
    text = apply_it(LZ4_1_50MB, ATLAS_TREE).markdown()
    assert 'flags.PoolSvc.DefaultContainerType = "ROOTRNTUPLE"' in text
    assert 'flags.Output.StorageTechnology.EventData = "ROOTRNTUPLE"' in text
    assert "RNTupleImporter::Create" in text and "TClonesArray" in text


def test_a_cms_nanoaod_file():
    text = apply_it(ZSTD5_30MB, NANOAOD).markdown()
    assert "CMS (CMSSW), NanoAODOutputModule" in text
    assert 'process.OUT.compressionAlgorithm = cms.untracked.string("ZSTD")' in text
    assert "process.OUT.compressionLevel = cms.untracked.int32(5)" in text
    assert "process.OUT.autoFlush = cms.untracked.int32(-30000000)" in text
    assert "accepts ZLIB and LZMA only" in text  # older releases
    assert "edmPluginHelp -p NanoAODOutputModule" in text
    assert "needs no dictionary" in text  # flat: hadd can recompress it anywhere
    text = apply_it(LZ4_1_50MB, NANOAOD).markdown()
    assert "NanoAODRNTupleOutputModule in place of NanoAODOutputModule" in text
    assert (
        "rntupleWriteOptions = cms.untracked.PSet(approxZippedClusterSize = cms.untracked.uint64(50000000))"
        in text
    )
    assert "TClonesArray" not in text  # a flat tree converts without dictionaries


def test_a_cms_edm_file_has_no_key_for_an_autoflush_in_entries():
    text = apply_it(Decision(TTREE, "lzma", 7, 1000), EDM).markdown()
    assert "CMS (CMSSW), PoolOutputModule" in text
    assert 'compressionAlgorithm = cms.untracked.string("LZMA")' in text
    assert "No key found for an AutoFlush in entries" in text
    text = apply_it(ZSTD5_30MB, EDM).markdown()
    assert "process.OUT.eventAutoFlushCompressedSize = cms.untracked.int32(30000000)" in text
    assert "ZLIB and LZMA only" not in text  # that is the NanoAOD modules'
    text = apply_it(LZ4_1_50MB, EDM).markdown()
    assert "RNTupleOutputModule in place of PoolOutputModule" in text
    assert "process.OUT.approxZippedClusterSize = cms.untracked.uint64(50000000)" in text


def test_an_unknown_file_gets_root_and_hadd_only():
    block = apply_it(Decision(TTREE, "zlib", 1), CUSTOM_CLASSES)
    text = block.markdown()
    assert "hadd -f101" in text
    assert "level 1 of ROOT's default algorithm (1)" in text
    assert "not one rootparams recognises" in text
    assert "SetAutoFlush" not in text  # the decision leaves the clusters as they are
    assert block.framework is None and block.as_dict()["framework"] is None
    # at the file's own setting there is nothing to recompress
    text = apply_it(Decision(TTREE, "lz4", 4), UNKNOWN_TREE).markdown()
    assert "already are at 404" in text


def test_the_block_as_data_terminal_text_and_html():
    block = apply_it(ZSTD5_30MB, ATLAS_TREE)
    data = json.loads(json.dumps(block.as_dict()))
    assert data["decision"] == {
        "container": TTREE,
        "algorithm": "zstd",
        "level": 5,
        "compression_setting": 505,
        "cluster": -30_000_000,
    }
    assert data["existing_files"]["hadd"].startswith("hadd -f505 ")
    assert data["writer"]["cpp"] == block.cpp
    keys = {k["key"]: k for k in data["framework"]["keys"]}
    assert keys["Output.TreeAutoFlush"]["value"] == "-30000000"
    assert keys["Output.TreeAutoFlush"]["source"].startswith(
        "ATLAS-experiment/athena Control/AthenaConfiguration"
    )
    assert (
        "ATLAS-experiment/athena Tools/PyJobTransforms/python/TransformUtils.py"
        in data["framework"]["sources"]
    )
    terminal = block.terminal()
    assert "```" not in terminal and "**" not in terminal
    assert "    hadd -f505 out.root in1.root in2.root ..." in terminal
    page = block.html()
    assert page.startswith("<h2>Apply it</h2>")
    assert "<pre><code>hadd -f505" in page and "<ul><li>" in page and "&quot;" in page


def test_decisions_are_checked():
    with pytest.raises(ValueError, match="container"):
        Decision("tree", "zstd", 5)
    with pytest.raises(ValueError, match="level 0"):
        Decision(TTREE, "none", 5)
    with pytest.raises(ValueError, match="1 to 9"):
        Decision(TTREE, "zstd", 0)
    with pytest.raises(ValueError, match="known algorithms"):
        Decision(TTREE, "brotli", 5)
    with pytest.raises(ValueError, match="RNTuple always has clusters"):
        Decision(RNTUPLE, "zstd", 5, 0)
    assert Decision.from_point(("rntuple", "zstd", 5, None)) == Decision(RNTUPLE, "zstd", 5)
    assert Decision(TTREE, "none", 0).setting == 0


def test_the_framework_is_told_from_the_tree_and_its_types():
    assert framework_of("CollectionTree", {"Electrons": "DataVector<xAOD::Electron_v1>"}) == ATLAS
    assert framework_of("EventData", {"AnalysisJets": "DataVector<xAOD::Jet_v1>"}) == ATLAS
    assert framework_of("CollectionTree", {"x": "float"}) == UNKNOWN
    assert framework_of("Events", {"nMuon": "uint32_t", "Muon_pt": "float[]"}) == _CMS_NANOAOD
    assert framework_of("Events", {"nMuon": "uint32_t", "Electron_pt": "float[]"}) == UNKNOWN
    assert framework_of("Events", {"EventAuxiliary": "edm::EventAuxiliary"}) == _CMS_EDM
    assert framework_of("Events", {"recoMuons_muons__RECO.": "edm::Wrapper<vector<reco::Muon> >"}) == _CMS_EDM
    assert framework_of("events", {"nMuon": "int32_t", "Muon_pt": "float[]"}) == UNKNOWN


def test_plain_types_need_no_dictionary():
    plain = ["float", "float[]", "int32_t[3]", "std::uint64_t", "vector<float>", "std::vector<std::vector<float>>",
             "vector<vector<unsigned int> >", "ROOT::VecOps::RVec<int>", "char*", "std::string", "Double32_t",
             "untyped collection (nMuon), 5 fields"]  # fmt: skip
    classes = ["xAOD::AuxContainerBase", "TClonesArray", "DataVector<xAOD::Jet_v1>",
               "vector<ElementLink<DataVector<xAOD::TruthVertex_v1> > >", "baconhep::TEventInfo"]  # fmt: skip
    assert all(is_plain_type(t) for t in plain), [t for t in plain if not is_plain_type(t)]
    assert not any(is_plain_type(t) for t in classes), [t for t in classes if is_plain_type(t)]


SHARED_SAMPLES = {
    "atlas_physlite_run2_ttbar_100ev.root": (ATLAS, True),
    "atlas_physlite_rntuple_100ev.root": (ATLAS, True),
    "cms_nanoaod_2015_ttbar_200ev.root": (_CMS_NANOAOD, False),
    "cms_bacon_ntuple_10ev.root": (UNKNOWN, True),
    "cms_zmumu_flat_2304ev.root": (UNKNOWN, False),
    "cms_nanoaod_rntuple_10ev.root": (UNKNOWN, False),  # made by ROOT's RNTupleImporter, not by CMSSW
}


@pytest.mark.parametrize("name", SHARED_SAMPLES)
def test_the_context_of_the_shared_samples(name):
    from rootparams.ownfile import inspection, sources

    path = SHARED_DATA / name
    require(path.exists(), f"the shared sample {path}")
    context = applying.context_of(sources.describe(str(path)), inspection.inspect_file(str(path)))
    assert (context.framework, context.holds_classes) == SHARED_SAMPLES[name]
    if name == "cms_nanoaod_rntuple_10ev.root":
        assert context.compression_setting == 505  # its pages', not its TFile's 101


# --- Every framework key is traced to a source ---------------------------------------------------------------

DECISIONS = [
    ZSTD5_30MB,
    LZ4_1_50MB,
    Decision(TTREE, "lzma", 7, 1000),
    Decision(TTREE, "zlib", 1, 0),
    Decision(TTREE, "none", 0),
    Decision(RNTUPLE, "zstd", 5, 500),
    Decision(RNTUPLE, "none", 0),
]
CONTEXTS = [ATLAS_TREE, ATLAS_NTUPLE, NANOAOD, EDM, FLAT_NTUPLE, UNKNOWN_TREE, CUSTOM_CLASSES]
# The framework names a configuration line uses: flags, pah helpers, a service's property, a module's parameters.
NAMES_IN_CODE = [
    r"flags\.(\w+(?:\.\w+)*)",
    r"pah\.(\w+)",
    r'getService\("(\w+)"\)\.(\w+)',
    r"process\.OUT\.(\w+)",
    r"\b(\w+) = cms\.untracked",
]


@pytest.mark.parametrize("decision", DECISIONS, ids=str)
def test_every_framework_name_printed_has_a_source(decision):
    for context in CONTEXTS:
        framework = apply_it(decision, context).framework
        if framework is None:
            continue
        keys = {k.key for k in framework.keys}
        for line in framework.code:
            for pattern in NAMES_IN_CODE:
                for match in re.finditer(pattern, line):
                    name = ".".join(match.groups())
                    assert name in keys or name.split(".")[-1] in keys, (context, line, name)
        assert all(k.source in SOURCES for k in framework.keys)
        assert all(s in SOURCES for s in framework.sources())


def test_the_docs_cite_every_source():
    docs = (REPO / "docs" / "applying.md").read_text()
    for name, source in SOURCES.items():
        assert source.path in docs and source.repository in docs, name


# --- ROOT itself: hadd and the writer calls --------------------------------------------------------------------


def _hadd() -> str:
    path = rootenv.bin_path("hadd")
    require(path.exists(), f"the ROOT wheel's hadd ({path})")
    return str(path)


def test_the_hadd_flags_are_the_wheels():
    usage = subprocess.run([_hadd(), "--help"], capture_output=True, text=True, timeout=60)
    text = " ".join((usage.stdout + usage.stderr).split())  # its sentences wrap
    assert "-f[0-9]" in text and "i*100 + j" in text and "0 = uncompressed" in text
    assert re.search(r"-O\s+Re-optimize basket size when merging TTree", text)
    assert "If TARGET and SOURCES have different compression settings a slower method is used" in text


# Writes the inputs (a TTree of small baskets, AutoFlush 20, ZLIB-1; an RNTuple at 101) or reads a file back, in a
# process of its own so that this test process never loads ROOT.
HADD_FILES_SCRIPT = r"""
import array, json, sys
import ROOT

if sys.argv[1] == "write":
    f = ROOT.TFile("in.root", "RECREATE", "", 101)
    t = ROOT.TTree("T", "T")
    x = array.array("f", [0.0] * 1000)
    t.Branch("x", x, "x[1000]/F", 4000)
    t.SetAutoFlush(20)
    for i in range(40):
        for j in range(1000):
            x[j] = (i * j) % 13
        t.Fill()
    t.Write()
    f.Close()
    model = ROOT.RNTupleModel.Create()
    model.MakeField["std::vector<float>"]("x")
    options = ROOT.RNTupleWriteOptions()
    options.SetCompression(101)
    writer = ROOT.RNTupleWriter.Recreate(model, "N", "in_ntuple.root", options)
    entry = writer.CreateEntry()
    for i in range(10):
        entry["x"] = ROOT.std.vector["float"]([float(j % 7) for j in range(1000)])
        writer.Fill(entry)
    del writer
    sys.exit(0)
found = {}
for path in sys.argv[2:]:
    if "ntuple" in path:
        d = ROOT.RNTupleReader.Open("N", path).GetDescriptor()
        found[path] = {"pages": d.GetClusterDescriptor(d.FindClusterId(0, 0)).GetColumnRange(0).GetCompressionSettings().value()}
    else:
        f = ROOT.TFile.Open(path)
        t = f.Get("T")
        b = t.GetBranch("x")
        found[path] = {"branch": b.GetCompressionSettings(), "autoflush": t.GetAutoFlush(), "baskets": b.GetWriteBasket()}
        f.Close()
print("ROOTPARAMS_FOUND " + json.dumps(found))
"""


def test_hadd_does_what_the_block_says(tmp_path):
    """-f<N> recompresses (TTree baskets and RNTuple pages); the AutoFlush is kept; at an unchanged setting the
    baskets are copied as they are, and -O makes them again."""
    hadd = _hadd()
    script = tmp_path / "files.py"
    script.write_text(HADD_FILES_SCRIPT)
    subprocess.run(
        [sys.executable, str(script), "write"], cwd=tmp_path, check=True, capture_output=True, timeout=300
    )
    for out, flags, source in [
        ("zstd.root", ["-f505"], "in.root"),
        ("same.root", ["-f101"], "in.root"),
        ("same_O.root", ["-O", "-f101"], "in.root"),
        ("lz4_ntuple.root", ["-f404"], "in_ntuple.root"),
    ]:
        subprocess.run(
            [hadd, "-v", "0", *flags, out, source], cwd=tmp_path, check=True, capture_output=True, timeout=300
        )
    paths = ["in.root", "zstd.root", "same.root", "same_O.root", "lz4_ntuple.root"]
    run = subprocess.run(
        [sys.executable, str(script), "read", *paths],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    line = next(x for x in run.stdout.splitlines() if x.startswith("ROOTPARAMS_FOUND "))
    found = json.loads(line.removeprefix("ROOTPARAMS_FOUND "))
    source = found["in.root"]
    assert (
        found["zstd.root"]["branch"] == 505 and found["zstd.root"]["autoflush"] == source["autoflush"] == 20
    )
    assert found["same.root"]["baskets"] == source["baskets"]  # copied as they are
    assert found["same_O.root"]["baskets"] < source["baskets"]  # made again, at optimized sizes
    assert found["same_O.root"]["autoflush"] == 20
    assert found["lz4_ntuple.root"]["pages"] == 404


# Runs in a process of its own (ROOT's interpreter keeps what it declared): writes 10 entries with each generated
# sequence of calls, reads the file back and prints what it found as one JSON line per check.
CHECK_SCRIPT = r'''
import json, os, sys
import ROOT

checks = json.loads(sys.argv[1])
ROOT.gROOT.SetBatch(True)
ROOT.gInterpreter.Declare("std::map<int, std::size_t> options_seen;")  # what the C++ options held, by check
found = {}
home = os.getcwd()


def tree_back(path, name):
    f = ROOT.TFile.Open(path)
    t = f.Get(name)
    out = {"file": f.GetCompressionSettings(), "branch": t.GetBranch("x").GetCompressionSettings(),
           "autoflush": t.GetAutoFlush(), "entries": t.GetEntries()}
    f.Close()
    return out


def ntuple_back(path, name):
    reader = ROOT.RNTupleReader.Open(name, path)
    d = reader.GetDescriptor()
    cluster = d.GetClusterDescriptor(d.FindClusterId(0, 0))
    return {"pages": cluster.GetColumnRange(0).GetCompressionSettings().value(), "clusters": d.GetNClusters(),
            "entries": reader.GetNEntries()}


for i, c in enumerate(checks):
    name, n = c["name"], c["cluster_entries"]
    os.chdir(home)  # each check in a directory of its own: the calls write "out.root" as printed
    os.makedirs(f"check{i}")
    os.chdir(f"check{i}")
    if c["kind"] == "cpp-tree":
        body = "\n".join(c["lines"]) + """
           float x = 0; tree->Branch("x", &x, "x/F");
           for (int i = 0; i < 10; ++i) { x = i; tree->Fill(); }
           file->Write(); file->Close();"""
    elif c["kind"] == "cpp-ntuple":
        lines = list(c["lines"])
        lines.insert(1, 'auto x = model->MakeField<float>("x");')
        writer_at = next(j for j, line in enumerate(lines) if "RNTupleWriter::" in line)
        lines.insert(writer_at, f'options_seen[{i}] = options.GetApproxZippedClusterSize();')
        body = "\n".join(lines) + f"""
           for (int i = 0; i < 10; ++i) {{ *x = i; writer->Fill(); if ({n} > 0 && (i + 1) % ({n} > 0 ? {n} : 1) == 0) writer->CommitCluster(); }}
           writer.reset();"""
    elif c["kind"] == "cpp-open":
        body = f"""auto file = std::unique_ptr<TFile>({c['lines'][0]});
           auto tree = new TTree("{name}", "{name}");
           float x = 0; tree->Branch("x", &x, "x/F");
           for (int i = 0; i < 10; ++i) {{ x = i; tree->Fill(); }}
           file->Write(); file->Close();"""
    elif c["kind"] == "cpp-append":
        lines = list(c["options"])
        lines.insert(1, 'auto x = model->MakeField<float>("x");')
        lines = [line for line in lines if "RNTupleWriter::Recreate" not in line]
        body = "\n".join(lines) + f"""
           auto file = std::unique_ptr<TFile>(TFile::Open("out.root", "RECREATE"));
           auto writer = {c['lines'][0]};
           for (int i = 0; i < 10; ++i) {{ *x = i; writer->Fill(); }}
           writer.reset(); file->Close();"""
    elif c["kind"] == "cpp-import":
        lines = [line for line in c["options"] if "RNTupleWriter::Recreate" not in line]
        body = f"""{{ auto in = std::unique_ptr<TFile>(TFile::Open("in.root", "RECREATE"));
             auto t = new TTree("{name}", "{name}"); float x = 0; t->Branch("x", &x, "x/F");
             for (int i = 0; i < 10; ++i) {{ x = i; t->Fill(); }} in->Write(); in->Close(); }}
           gSystem->Unlink("out.root");
           """ + "\n".join(lines) + "\n" + "\n".join(c["lines"])
    elif c["kind"] == "python-tree":
        scope = {"ROOT": ROOT}
        exec("\n".join(c["lines"]), scope)
        exec('import array\nx = array.array("f", [0])\ntree.Branch("x", x, "x/F")\n'
             'for i in range(10):\n    x[0] = i\n    tree.Fill()\nfile.Write()\nfile.Close()', scope)
        found[i] = tree_back("out.root", name)
        continue
    elif c["kind"] == "python-ntuple":
        scope = {"ROOT": ROOT}
        lines = list(c["lines"])
        lines.insert(1, 'model.MakeField["float"]("x")')
        exec("\n".join(lines), scope)
        found_options = scope["options"].GetApproxZippedClusterSize()
        exec('e = writer.CreateEntry()\nfor i in range(10):\n    e["x"] = float(i)\n    writer.Fill(e)\n'
             f'    if {n} > 0 and (i + 1) % max({n}, 1) == 0:\n        writer.CommitCluster()\ndel writer', scope)
        found[i] = ntuple_back("out.root", name) | {"approx_zipped": found_options}
        continue
    ROOT.gInterpreter.Declare(f"void check_{i}() {{\n{body}\n}}")
    getattr(ROOT, f"check_{i}")()
    if c["kind"] in ("cpp-tree", "cpp-open"):
        found[i] = tree_back("out.root", name)
    else:
        found[i] = ntuple_back("out.root", name)
        if ROOT.options_seen.count(i):
            found[i]["approx_zipped"] = ROOT.options_seen[i]
print("ROOTPARAMS_CHECKS " + json.dumps(found))
'''


def _checks() -> tuple[list[dict], list[dict]]:
    """(each check's input for CHECK_SCRIPT, what each must read back)."""
    checks, expected = [], []

    def add(kind, decision, name, lines, want, options=None):
        n = decision.cluster if decision.cluster is not None and decision.cluster > 0 else 0
        checks.append({"kind": kind, "name": name, "lines": lines, "options": options, "cluster_entries": n})
        expected.append(want)

    trees = [
        ZSTD5_30MB,
        Decision(TTREE, "lzma", 7, 5),
        Decision(TTREE, "zlib", 1, 0),
        Decision(TTREE, "none", 0),
    ]
    for decision in trees:
        want = {"file": decision.setting, "branch": decision.setting, "entries": 10}
        if decision.cluster is not None:
            want["autoflush"] = decision.cluster
        add("cpp-tree", decision, "CollectionTree", applying._cpp_writer(decision, "CollectionTree"), want)
        add(
            "python-tree",
            decision,
            "CollectionTree",
            applying._python_writer(decision, "CollectionTree"),
            want,
        )
    add(
        "cpp-open",
        ZSTD5_30MB,
        "T",
        [applying._cpp_open_with_setting(ZSTD5_30MB)],
        {"file": 505, "branch": 505},
    )
    big = Decision(RNTUPLE, "zstd", 5, -2_000_000_000)  # above ROOT's default limit of unzipped cluster bytes
    ntuples = [
        (LZ4_1_50MB, 1),
        (Decision(RNTUPLE, "zstd", 5, 5), 2),
        (Decision(RNTUPLE, "none", 0), 1),
        (big, 1),
    ]
    for decision, clusters in ntuples:
        want = {"pages": decision.setting, "clusters": clusters, "entries": 10}
        if decision.cluster is not None and decision.cluster < 0:
            want["approx_zipped"] = -decision.cluster
        add("cpp-ntuple", decision, "Events", applying._cpp_writer(decision, "Events"), want)
        add("python-ntuple", decision, "Events", applying._python_writer(decision, "Events"), want)
    options = applying._cpp_writer(LZ4_1_50MB, "Events")
    add("cpp-append", LZ4_1_50MB, "Events", [applying._cpp_append("Events")], {"pages": 401}, options)
    add(
        "cpp-import",
        LZ4_1_50MB,
        "Events",
        applying._cpp_import("Events"),
        {"pages": 401, "entries": 10},
        options,
    )
    return checks, expected


def test_the_root_calls_printed_write_the_setting(tmp_path):
    """Each sequence of ROOT calls the block prints, run as printed (C++ through ROOT's interpreter, PyROOT as
    Python), writes a 10-entry file whose compression (and AutoFlush, clusters) read back as decided."""
    checks, expected = _checks()
    script = tmp_path / "check_calls.py"
    script.write_text(textwrap.dedent(CHECK_SCRIPT))
    run = subprocess.run(
        [sys.executable, str(script), json.dumps(checks)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    line = next((x for x in run.stdout.splitlines() if x.startswith("ROOTPARAMS_CHECKS ")), None)
    assert line is not None, f"the check did not finish:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    found = json.loads(line.removeprefix("ROOTPARAMS_CHECKS "))
    for i, (check, want) in enumerate(zip(checks, expected, strict=True)):
        got = found[str(i)]
        assert {k: got.get(k) for k in want} == want, (check["kind"], check["lines"], got)
