"""The timed reader on users' real files, as they are: CMS NanoAOD (flat TTree), ATLAS PHYSLITE as a TTree and as
an RNTuple, read without the ATLAS dictionaries (/work/shared/data/README.md)."""

import pytest
from conftest import SHARED_DATA, require

from rootparams.measure.measure import _reader_args, reader_command
from rootparams.tools.processes import ReaderServer, ToolError, run_tool

NANO = ("cms_nanoaod_2015_ttbar_200ev.root", "Events", "ttree")
PHYSLITE = ("atlas_physlite_run2_ttbar_100ev.root", "CollectionTree", "ttree")
PHYSLITE_RNTUPLE = ("atlas_physlite_rntuple_100ev.root", "EventData", "rntuple")
READ = {"cache_size": -1, "learn_entries": "default", "threads": 1}


def real(name):
    path = SHARED_DATA / name
    require(path.exists(), f"the real test file {path}")
    return path


def read(build, which, branches, events=100, **overrides):
    name, tree, container = which
    cmd = reader_command(
        str(build["reader"]),
        str(real(name)),
        events,
        {**READ, "branches": branches, "container": container, **overrides},
    )
    return run_tool([*cmd, "--tree", tree], f"read {name}")


def inspect(build, which):
    name, tree, _ = which
    return run_tool([str(build["reader"]), "--file", str(real(name)), "--tree", tree, "--inspect"], "inspect")


@pytest.mark.parametrize(
    "branches", ["all", "regex:^AnalysisJets", "list:McEventInfo,EventInfoAuxDyn.streamTagRobs", "particle"]
)
def test_physlite_ttree_reads_the_selected_bytes_without_crashing(build, branches):
    """Emulated xAOD classes (PileUpEventInfo_p5, vector<set<unsigned int> >) corrupted the heap when streamed
    into objects: such branches are read basket by basket, through the TTreeCache, and every byte of the
    selection is read exactly once."""
    r = read(build, PHYSLITE, branches)
    assert r["read_mode"] in ("objects+baskets", "baskets") and r["basket_mode_top_branches"] > 0
    # ROOT's count of the bytes it asked for: the open's, then exactly the selected branches' baskets.
    assert r["file_bytes_read_useful"] - r["open_bytes_read"] == r["selected_zip_bytes"]
    assert r["loop_bytes_read"] >= r["selected_zip_bytes"]  # the cache's reads include the gaps between
    assert r["loop_unzip_output_bytes"] > r["loop_unzip_input_bytes"] > 0
    if branches == "all":
        assert r["selected_zip_bytes"] == inspect(build, PHYSLITE)["zip_bytes"]
        assert r["basket_mode_classes"]["PileUpEventInfo_p5"] == 1


@pytest.mark.parametrize(
    ("which", "sep", "other", "share"),
    [
        # formats.md: 66-71 % of real files; the trigger containers (AnalysisHLT_*) are not particles.
        (
            PHYSLITE,
            ".",
            ("EventInfo", "EventInfoAuxDyn.mcEventWeights", "AnalysisHLT_e26_lhtight_ivarloose_L1EM22VHI"),
            (0.4, 0.9),
        ),
        (PHYSLITE_RNTUPLE, ":", ("EventInfoAuxDyn:mcEventWeights",), (0.3, 0.95)),
    ],
)
def test_particle_selection_and_inspect_on_real_atlas_files(build, which, sep, other, share):
    info = inspect(build, which)
    particle = {b["name"] for b in info["branch_list"] if b["particle"]}
    expected = {
        "AnalysisJets",
        f"AnalysisJetsAux{sep}",
        f"AnalysisJetsAuxDyn{sep}pt",
        f"AnalysisElectronsAuxDyn{sep}pt",
    }
    assert expected <= particle and not set(other) & particle
    assert share[0] < info["particle_zip_bytes"] / info["zip_bytes"] < share[1]
    # A page stored once for several RNTuple columns counts for the first field listing it: the whole file's
    # order in --inspect, the selection's in a read (28 B apart on the RNTuple sample).
    selected = read(build, which, "particle")["selected_zip_bytes"]
    assert selected == pytest.approx(info["particle_zip_bytes"], rel=1e-3 if sep == ":" else 0)


def test_nanoaod_reads_and_particle_names_the_selections_that_work(build):
    r = read(build, NANO, "all")
    assert r["read_mode"] == "objects" and r["basket_mode_top_branches"] == 0
    assert r["file_bytes_read_useful"] - r["open_bytes_read"] == r["selected_zip_bytes"]
    with pytest.raises(ToolError, match=r"'all', 'regex:<re>' or 'list:<a>,<b>'.*'regex:\^\(Muon\|Electron"):
        read(build, NANO, "particle")
    assert read(build, NANO, "regex:^(Muon|Electron|Jet)_")["selected_top_branches"] > 20


@pytest.mark.parametrize("branches", ["all", "particle", "regex:^AnalysisJets", "list:xTrigDecisionAux:"])
def test_physlite_rntuple_reads_every_column_of_the_selection(build, branches):
    r = read(build, PHYSLITE_RNTUPLE, branches)
    assert r["read_mode"] == "objects+subfields" and r["fields_read_by_subfields"] > 0
    assert r["unread_subfields"] == 0 and r["unread_zip_bytes"] == 0 and r["unread_subfield_list"] == []
    # Every page of the selection read (a page shared by several columns may be read more than once) and
    # unzipped: the unzipped bytes are the selection's, without the zero pages of deferred columns (and with
    # bools a byte each in memory where the descriptor counts a bit).
    assert r["loop_rntuple_szReadPayload"] >= r["selected_zip_bytes"]
    assert r["loop_rntuple_szReadPayload"] <= 1.3 * r["selected_zip_bytes"]
    assert r["loop_unzip_output_bytes"] == pytest.approx(r["selected_tot_bytes"], rel=0.01)


def test_checksum_of_real_files(build):
    nano = run_tool(
        [str(build["reader"]), "--file", str(real(NANO[0])), "--tree", "Events", "--checksum"], "c"
    )
    assert nano["entries"] == 200 and len(nano["content_checksum"]) == 16
    with pytest.raises(ToolError, match=r"cannot checksum branch \S+: its class \S+ has no dictionary"):
        run_tool([str(build["reader"]), "--file", str(real(PHYSLITE[0])), "--checksum"], "checksum")


def test_the_fork_server_reads_real_files(build, tmp_path):
    with ReaderServer(str(build["reader"]), tmp_path / "server.log") as server:
        for which in (NANO, PHYSLITE):
            name, tree, container = which
            args = {
                **_reader_args(str(real(name)), 100, {**READ, "branches": "all", "container": container}),
                "tree": tree,
            }
            forked, child = server.read(args, name, tmp_path / f"{name}.log")
            alone = read(build, which, "all")
            assert child["exit_code"] == 0 and forked["reader_process"] == "fork"
            for key in ("selected_zip_bytes", "loop_unzip_output_bytes", "read_mode"):
                assert forked[key] == alone[key], key
