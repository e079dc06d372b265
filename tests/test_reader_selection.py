"""The reader's variable selections (analysis, sparse, vars:; seed 001's access patterns), --resolve-selection
(the one definition of a selection, for the columnar readers) and --unzip (TTreeCacheUnzip), on small files of
the same content at split levels 0 and 99, and on the real CMS NanoAOD sample."""

from pathlib import Path

import pytest

from rootparams.generate import generate_file
from rootparams.grid import FilePoint
from rootparams.measure import reader_command, run_tool
from rootparams.native import ToolError

NANOAOD = Path(__file__).parents[1] / ".." / "shared" / "data" / "cms_nanoaod_2015_ttbar_200ev.root"


@pytest.fixture(scope="module")
def files(build, tmp_path_factory):
    out = tmp_path_factory.mktemp("selection")
    made = {}
    for split in (0, 99):
        path = out / f"susy5_split{split}.root"
        generate_file(FilePoint("susy5", "zlib", 1, -1_000_000, split, 32000), events=300, seed=5,
                      writer=str(build["writer"]), reader=str(build["reader"]), output=str(path), catalogue=None)  # fmt: skip
        made[split] = path
    return made


def read(build, path, selection, **extra):
    settings = {"branches": selection, "cache_size": -1, "learn_entries": "default", "threads": 1, **extra}
    return run_tool(reader_command(str(build["reader"]), str(path), 300, settings), f"read {selection}")


def resolve(build, path, selection, tree=None):
    cmd = [str(build["reader"]), "--file", str(path), "--resolve-selection", selection]
    return run_tool(cmd + (["--tree", tree] if tree else []), f"resolve {selection}")


def test_variables_are_read_branch_wise_where_split_and_class_wise_where_not(build, files):
    split, whole = read(build, files[99], "analysis"), read(build, files[0], "analysis")
    assert (
        split["selected_variables"] == whole["selected_variables"] == 24
    )  # SUSY5: e, mu, gamma, tau, 2 jet kinds
    assert split["variables"].split(",")[:4] == [
        "Electrons.pt",
        "Electrons.eta",
        "Electrons.phi",
        "Electrons.m",
    ]
    assert split["variables_classwise"] == 0 and whole["variables_classwise"] == 24
    assert "ElectronsAux.pt" in split["selected_branches_read"].split(",")
    assert whole["selected_branches_read"].split(",")[0] == "ElectronsAux."
    # Branch-wise uses a fraction of the whole stores' bytes; sparse less than analysis, analysis less than all.
    sparse, everything = read(build, files[99], "sparse"), read(build, files[99], "all")
    assert sparse["selected_variables"] == 6
    used = [r["file_bytes_read_useful"] for r in (sparse, split, whole, everything)]
    assert used == sorted(used) and used[0] < used[1] < used[2] < used[3]
    # Without the TTreeCache every basket is its own read: exactly the selected branches' bytes. With it, each
    # read spans the gaps between the selected baskets of a cluster (PerfStats counts them, TFile does not).
    uncached = read(build, files[99], "sparse", cache_size=0)
    assert uncached["loop_bytes_read"] == uncached["selected_zip_bytes"]
    assert sparse["loop_bytes_read"] > sparse["file_bytes_read_useful"]


def test_resolve_selection_names_what_a_columnar_reader_reads(build, files):
    found = resolve(build, files[99], "sparse")
    assert found["variables"] == [
        "Electrons.pt",
        "Electrons.eta",
        "Muons.pt",
        "Muons.eta",
        "Photons.pt",
        "Photons.eta",
    ]
    assert found["branches"] == ["ElectronsAux.pt", "ElectronsAux.eta", "MuonsAux.pt", "MuonsAux.eta", "PhotonsAux.pt",
                                 "PhotonsAux.eta"]  # fmt: skip
    assert found["classwise"] == []
    assert resolve(build, files[0], "sparse")["classwise"] == ["ElectronsAux.", "MuonsAux.", "PhotonsAux."]
    assert resolve(build, files[99], "vars:AntiKt4EMTopoJets.pt")["branches"] == ["AntiKt4EMTopoJetsAux.pt"]


def test_flat_files_resolve_to_their_arrays(build):
    if not NANOAOD.exists():
        pytest.fail(f"{NANOAOD} is part of the reference material")
    found = resolve(build, NANOAOD, "analysis", tree="Events")
    assert found["branches"][:4] == ["Electron_pt", "Electron_eta", "Electron_phi", "Electron_mass"]
    assert len(found["variables"]) == 32 and found["classwise"] == []


def test_bad_variables_name_the_file_and_what_was_looked_for(build, files):
    with pytest.raises(
        ToolError, match=r"variable Electrons\.nope of selection 'vars:Electrons\.nope' is in no branch"
    ):
        resolve(build, files[99], "vars:Electrons.nope")
    with pytest.raises(ToolError, match=r"is not <Collection>\.<attribute>"):
        resolve(build, files[99], "vars:pt")


def test_parallel_unzip_makes_the_cache_a_ttreecacheunzip(build, files):
    off = read(build, files[99], "all", threads=2)
    on = read(build, files[99], "all", threads=2, unzip=True)
    assert off["cache_class"] == "TTreeCache" and off["unzip_requested"] == 0
    assert on["cache_class"] == "TTreeCacheUnzip" and on["unzip_requested"] == 1
    assert on["bytes_unpacked"] == off["bytes_unpacked"] and on["events_read"] == off["events_read"]
    with pytest.raises(ToolError, match="--unzip 1 needs the TTreeCache"):
        read(build, files[99], "all", unzip=True, cache_size=0)
