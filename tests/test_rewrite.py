"""Rewriting a user's own file (rootparams-rewrite, rewrite.rewrite_file) on the real files of shared/data: new
compression, AutoFlush and basket sizes really in the file, the same content, the source untouched, and ROOT's
crash on ATLAS PHYSLITE turned into an error that names the file, the branch, its class and the signal. On a
tree laid out as a Run-3 PHYSLITE's (conftest.run3_like_physlite): the rewrite carries the source's streamer info
records, so that the reader still finds its particle containers, and a rewrite that does not (ROOT's own copy)
is refused before any timed read, naming what it lacks."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import RUN3_LIKE_EVENTS, SHARED_DATA, require, side_by_side

from rootparams.measure.generate import generate_file
from rootparams.study.grid import FilePoint
from rootparams.tools.processes import run_tool
from rootparams.tools.rewrite import RewriteError, RewriteRequest, file_identity, rewrite_file

NANOAOD = SHARED_DATA / "cms_nanoaod_2015_ttbar_200ev.root"
PHYSLITE = SHARED_DATA / "atlas_physlite_run2_ttbar_100ev.root"
PHYSLITE_RNTUPLE = SHARED_DATA / "atlas_physlite_rntuple_100ev.root"


def need(path: Path) -> Path:
    require(path.exists(), f"the real file {path} (shared/data)")
    return path


def tools(build) -> dict:
    return {"rewriter": str(build["rewriter"]), "reader": str(build["reader"])}


def no_partial(out: Path) -> bool:
    return not out.with_name(f".{out.name}.partial").exists()


def basket_sizes(path: Path, tree: str) -> dict[str, int]:
    uproot = pytest.importorskip("uproot")
    with uproot.open(path) as f:
        return {name: b.member("fBasketSize") for name, b in f[tree].iteritems()}


@pytest.mark.parametrize(("compression", "autoflush"), [(404, 100), (505, 50)])
def test_nanoaod_rewritten_at_new_settings_with_the_same_content(build, tmp_path, compression, autoflush):
    uproot = pytest.importorskip("uproot")
    ak = pytest.importorskip("awkward")
    src = need(NANOAOD)
    before = file_identity(src)
    out = tmp_path / "nano.root"
    r = rewrite_file(
        RewriteRequest(
            src,
            tree="Events",
            output=out,
            compression=compression,
            autoflush=autoflush,
            basket_size=0,
            **tools(build),
        )
    )
    ins = r["inspected"]
    assert out.exists() and no_partial(out)
    assert ins["entries"] == r["written"]["entries"] == 200
    assert ins["file_compression_setting"] == compression
    assert {b["compression_setting"] for b in ins["branch_list"]} == {
        compression
    }  # every branch recompressed
    assert len(ins["branch_list"]) == 947
    assert ins["autoflush"] == autoflush and ins["clusters"] == 200 // autoflush
    assert r["written"]["rewrite_wall_seconds"] > 0 and r["written"]["peak_rss_bytes"] > 0
    after = file_identity(src)
    assert (after["size_bytes"], after["mtime_ns"], after["sha256_head"]) == (
        before["size_bytes"],
        before["mtime_ns"],
        before["sha256_head"],
    )
    # The reader's --checksum takes object branches only (NanoAOD's are flat): compare every branch with uproot.
    with uproot.open(src) as a, uproot.open(out) as b:
        old, new = a["Events"], b["Events"]
        assert old.keys() == new.keys()
        for name in old.keys():  # noqa: SIM118 - a TTree, not a dict
            assert ak.array_equal(old[name].array(), new[name].array(), equal_nan=True), name


def test_basket_size_zero_keeps_the_sources_and_a_size_is_applied(build, tmp_path):
    src = need(NANOAOD)
    source_sizes = basket_sizes(src, "Events")
    kept, sized = tmp_path / "kept.root", tmp_path / "sized.root"
    # AutoFlush 50: ROOT resizes every basket at the first flush (OptimizeBaskets); the tool undoes that. The
    # two rewrites are made side by side (each its own process and output).
    side_by_side(
        lambda: rewrite_file(
            RewriteRequest(
                src, tree="Events", output=kept, compression=101, autoflush=50, basket_size=0, **tools(build)
            )
        ),
        lambda: rewrite_file(
            RewriteRequest(
                src,
                tree="Events",
                output=sized,
                compression=101,
                autoflush=-100000,
                basket_size=16000,
                **tools(build),
            )
        ),
    )
    assert basket_sizes(kept, "Events") == source_sizes
    assert set(basket_sizes(sized, "Events").values()) == {16000}


def test_physlite_crash_names_file_branch_class_and_signal(build, tmp_path):
    src = need(PHYSLITE)
    out = tmp_path / "physlite.root"
    try:
        r = rewrite_file(
            RewriteRequest(
                src,
                tree="CollectionTree",
                output=out,
                compression=404,
                autoflush=50,
                basket_size=0,
                **tools(build),
            )
        )
    except RewriteError as e:
        msg = str(e)
        first = msg.splitlines()[0]
        assert str(src) in first and "CollectionTree" in first and "404" in first and "AutoFlush 50" in first
        assert e.signal_name and e.signal_name.startswith("SIG") and e.signal_name in first
        assert e.culprits, "the diagnosis names the branches at fault"
        c = e.culprits[0]
        assert c["branch"] in msg and c["class"] in msg and c["signal_name"] in msg
        assert not c["has_dictionary"] and "no dictionary" in msg
        assert "rootparams calibrate" in msg and "read-side" in msg
        assert e.log_path and Path(e.log_path).exists() and str(e.log_path) in msg
        assert not out.exists() and no_partial(out)
        return
    # ROOT no longer crashes on these classes: then the rewrite must be right.
    assert r["inspected"]["entries"] == 100
    assert {b["compression_setting"] for b in r["inspected"]["branch_list"]} == {404}


def test_diagnose_on_a_clean_file_finds_nothing(build):
    src = need(NANOAOD)
    d = run_tool([str(build["rewriter"]), "--input", str(src), "--tree", "Events", "--diagnose"], "diagnose")
    assert d["branches_tested"] == d["top_level_branches"] == 947
    assert d["crashed_count"] == 0 and d["error_count"] == 0


def test_rntuple_compression_rewrite(build, tmp_path):
    ntuple = tmp_path / "syn_rnt.root"
    generate_file(
        FilePoint("xaod", "zlib", 1, 25, -1, 0, "rntuple", 65536),
        events=50,
        seed=11,
        writer=str(build["writer"]),
        reader=str(build["reader"]),
        output=str(ntuple),
        catalogue=None,
    )
    out = tmp_path / "rnt505.root"
    r = rewrite_file(
        RewriteRequest(
            ntuple,
            tree="CollectionTree",
            output=out,
            compression=505,
            autoflush=None,
            basket_size=None,
            container="rntuple",
            **tools(build),
        )
    )
    assert r["inspected"]["entries"] == 50 and r["inspected"]["clusters"] == 2  # clusters kept
    assert {b["compression_setting"] for b in r["inspected"]["branch_list"]} == {505}

    def checksum(path):
        return run_tool(
            [str(build["reader"]), "--file", str(path), "--tree", "CollectionTree", "--checksum"], "checksum"
        )

    assert checksum(out)["content_checksum"] == checksum(ntuple)["content_checksum"]
    with pytest.raises(RewriteError, match="only the compression"):
        rewrite_file(
            RewriteRequest(
                ntuple,
                tree="CollectionTree",
                output=out,
                compression=505,
                autoflush=10,
                basket_size=None,
                container="rntuple",
                **tools(build),
            )
        )


def test_physlite_rntuple_refused_with_the_reason(build, tmp_path):
    src = need(PHYSLITE_RNTUPLE)
    out = tmp_path / "r.root"
    with pytest.raises(RewriteError) as info:
        rewrite_file(
            RewriteRequest(
                src,
                tree="EventData",
                output=out,
                compression=404,
                autoflush=None,
                basket_size=None,
                container="rntuple",
                **tools(build),
            )
        )
    msg = str(info.value)
    assert str(src) in msg and "without a dictionary" in msg and "RNTupleMerger" in msg
    assert not out.exists() and no_partial(out)


def test_bad_input_is_a_clear_error(build, tmp_path):
    out = tmp_path / "x.root"
    with pytest.raises(RewriteError, match="no such file"):
        rewrite_file(
            RewriteRequest(
                tmp_path / "missing.root",
                tree="Events",
                output=out,
                compression=404,
                autoflush=50,
                basket_size=0,
                **tools(build),
            )
        )
    src = need(NANOAOD)
    with pytest.raises(RewriteError) as info:
        rewrite_file(
            RewriteRequest(
                src,
                tree="CollectionTree",
                output=out,
                compression=404,
                autoflush=50,
                basket_size=0,
                **tools(build),
            )
        )
    assert str(src) in str(info.value) and "Events (TTree)" in str(info.value)  # lists the file's trees
    for bad in (303, 410, 1000, -1):
        with pytest.raises(RewriteError, match=f"--compression {bad}") as info:
            rewrite_file(
                RewriteRequest(
                    src,
                    tree="Events",
                    output=out,
                    compression=bad,
                    autoflush=50,
                    basket_size=0,
                    **tools(build),
                )
            )
        assert str(src) in str(info.value)
    with pytest.raises(RewriteError, match="is an RNTuple"):
        rewrite_file(
            RewriteRequest(
                need(PHYSLITE_RNTUPLE),
                tree="EventData",
                output=out,
                compression=404,
                autoflush=50,
                basket_size=0,
                **tools(build),
            )
        )
    assert not out.exists() and no_partial(out)
    assert all(name.endswith(".rewrite.log") for name in os.listdir(tmp_path))  # nothing but the failure logs


def resolve(build, path: Path, selection: str) -> list[str]:
    return run_tool(
        [
            str(build["reader"]),
            "--file",
            str(path),
            "--tree",
            "CollectionTree",
            "--resolve-selection",
            selection,
        ],
        f"resolving {selection} in {path}",
    )["branches"]


def streamer_records(path: Path) -> set[str]:
    uproot = pytest.importorskip("uproot")
    with uproot.open(path) as f:
        return set(f.file.streamers)


def test_a_rewrite_carries_the_sources_streamer_infos_and_the_reader_finds_its_particle_containers(
    build, run3_like_physlite, tmp_path
):
    src = run3_like_physlite
    containers = resolve(build, src, "particle")
    assert {"AnalysisElectrons", "AnalysisJets"} <= set(containers) and "PrimaryVertices" not in containers
    out = tmp_path / "rewrite.root"
    r = rewrite_file(
        RewriteRequest(
            src,
            tree="CollectionTree",
            output=out,
            compression=404,
            autoflush=10,
            basket_size=0,
            selections=["particle", "all"],
            **tools(build),
        )
    )
    assert r["inspected"]["entries"] == RUN3_LIKE_EVENTS and r["inspected"]["file_compression_setting"] == 404
    written = r["written"]
    assert written["streamer_infos_copied"] == "source" and written["streamer_infos_missing"] == []
    assert streamer_records(src) <= streamer_records(out)  # DataVector<xAOD::Electron_v1> among them
    assert "DataVector<xAOD::Electron_v1>" in streamer_records(out)
    assert r["check"] == {"problems": [], "culprits": [], "selections": {"particle": "same"}}
    assert resolve(build, out, "particle") == containers
    particle = {b["name"] for b in r["inspected"]["branch_list"] if b["particle"]}
    assert {"AnalysisElectrons", "AnalysisElectronsAuxDyn.pt", "AnalysisJets"} <= particle


def test_a_rewrite_without_the_sources_streamer_infos_is_refused_naming_what_it_lacks(
    build, run3_like_physlite, tmp_path
):
    # ROOT's own copy (CloneTree) writes no record for a class with a collection proxy, which an emulated
    # DataVector<xAOD::...> is: a reader without ATLAS's dictionaries then cannot tell that it holds particles.
    src = run3_like_physlite
    out = tmp_path / "roots_copy.root"
    with pytest.raises(RewriteError) as info:
        rewrite_file(
            RewriteRequest(
                src,
                tree="CollectionTree",
                output=out,
                compression=404,
                autoflush=10,
                basket_size=0,
                selections=["particle"],
                streamer_infos="tree",
                **tools(build),
            )
        )
    msg = str(info.value)
    assert str(src) in msg and str(out) in msg and "refused before any timed read" in msg
    assert "lacks 3 of the source's" in msg and "DataVector<xAOD::Electron_v1>" in msg
    assert "no longer finds 2 of the source's particle containers" in msg
    assert "branch selection 'particle'" in msg and "needs particle containers" in msg
    assert {c["branch"] for c in info.value.culprits} == {"AnalysisElectrons", "AnalysisJets"}
    assert not out.exists() and no_partial(out)
    assert info.value.log_path and Path(info.value.log_path).exists()
