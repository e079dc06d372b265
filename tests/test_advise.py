"""rootparams advise: the plan fitted to a budget, the configuration it runs, the classification of reads, and
one whole answer for a real file (a small clone, 2 repetitions: the chain, not the numbers)."""

import json
import math
import os
import shutil
import subprocess
import sys

import pytest
import yaml
from conftest import REPO, require

from rootparams.commands import advise
from rootparams.model import bottleneck
from rootparams.study.config import load_study_config, source_of

DATA = REPO.parent / "shared" / "data"
PHYSLITE = DATA / "atlas_physlite_run2_ttbar_100ev.root"
PHYSLITE_RNTUPLE = DATA / "atlas_physlite_rntuple_100ev.root"
NANOAOD = DATA / "cms_nanoaod_2015_ttbar_200ev.root"


def test_durations_sizes_and_names():
    assert advise._parse_duration("20m") == 1200 and advise._parse_duration("1h30m") == 5400
    assert advise._parse_duration("90s") == 90 and advise._parse_duration("900") == 900
    assert advise._parse_size("150MB") == 150e6 and advise._parse_size("2GB") == 2e9
    for bad in ("soon", "", "20x"):
        with pytest.raises(advise.AdviseError, match=r"is not a duration; give e\.g\. 20m"):
            advise._parse_duration(bad)
    with pytest.raises(advise.AdviseError, match="is not a size"):
        advise._parse_size("big")
    assert advise.format_name("atlas_physlite_run2_ttbar_100ev.root") == "atlas_physlite_run2"
    assert advise.format_name("DAOD_PHYSLITE.37621409._000001.pool.root.1") == "daod_physlite_37621409"
    assert advise.format_name("9.root") == "f_9"


@pytest.mark.parametrize(
    "path", [PHYSLITE, PHYSLITE_RNTUPLE, NANOAOD], ids=["physlite", "rntuple", "nanoaod"]
)
def test_the_plan_fits_the_budget_and_its_config_is_valid(path, tmp_path):
    plan = advise._make_plan(str(path), storage=None, budget_seconds=1200, out=tmp_path)
    if not plan.estimate_seconds <= 1200:  # said before it starts, never hidden
        assert any("beyond the budget" in n for n in plan.notes)
    # A 100-200 event sample is too short to time: it is tiled, its own baskets copied, to ~150 MB (from its bytes,
    # without a pace probe), and every compression setting is measured on it; the layout on a clone of as many events.
    assert plan.copies > 1
    assert plan.copies * plan.facts.zip_bytes >= 0.9 * advise.TILE_TARGET_BYTES or (
        plan.copies * plan.facts.tot_bytes >= 0.9 * advise.TILE_TARGET_UNCOMPRESSED_BYTES
    )
    assert advise.MIN_REPETITIONS <= plan.repetitions <= 10
    config = load_study_config(plan.config(), source=str(path))  # validated as any study's config
    fmt = config["formats"][plan.name]
    assert fmt["source"] == str(path.resolve()) and fmt["tile"] == plan.copies
    assert fmt["read"] == plan.copies * plan.facts.source.entries  # "all": every copy is read
    assert {"compression", "cache"} <= set(config["scans"])
    if plan.clone:
        assert set(config["formats"]) == {plan.name, plan.clone_name}
        assert config["formats"][plan.clone_name]["written"] == plan.clone_events
        # TTree against RNTuple, except for a flat ntuple (its RNTuple is built neither by our writer nor a copy).
        assert ("container" in config["scans"]) == (not plan.facts.flat)
    # Every compression setting on the file's own bytes, its own setting among them (its recompressed twin).
    own = plan.facts.own_setting
    assert (own[0], own[1], own[2], None) in plan.own_points()
    assert config["read_defaults"]["storage_profile"] == "native"
    assert config["write_failures"] == config["rewrite_failures"] == "record"
    assert "estimate" in plan.text() and "budget 20 min" in plan.text()


def test_a_measured_pace_sets_the_copies(tmp_path):
    """The probe's pace (a warm read at LZ4-1) decides the tiling: copies for a loop of about TARGET_LOOP_SECONDS."""
    slow = advise.Pace(copies=10, loop_seconds=0.5, bytes_per_copy=3e6)  # 50 ms per copy
    plan = advise._make_plan(str(PHYSLITE), storage=None, budget_seconds=1200, out=tmp_path, pace=slow)
    assert plan.copies == math.ceil(advise._TARGET_LOOP_SECONDS / 0.05)
    quick = advise._make_plan(
        str(PHYSLITE), storage=None, budget_seconds=180, out=tmp_path, pace=slow, quick=True
    )
    assert quick.copies == math.ceil(advise._QUICK_TARGET_LOOP_SECONDS / 0.05)
    assert not quick.clone and quick.repetitions == advise._QUICK_REPETITIONS
    assert "lzma" not in {p[1] for p in quick.own_points()}
    # Never beyond the size limit of a tiled file.
    fast = advise.Pace(copies=10, loop_seconds=1e-6, bytes_per_copy=3e6)
    huge = advise._make_plan(str(PHYSLITE), storage=None, budget_seconds=1200, out=tmp_path, pace=fast)
    assert huge.copies * plan.facts.size_bytes <= advise._MAX_TILED_BYTES


def test_the_plan_tiers_grow_with_the_budget(tmp_path):
    big = advise._make_plan(str(PHYSLITE), storage=None, budget_seconds=7200, out=tmp_path)
    assert big.tier == advise._TIERS[-1][0] and big.repetitions == advise.MAX_REPETITIONS and big.clone
    budget = 0.6 * big.estimate_seconds
    small = advise._make_plan(str(PHYSLITE), storage=None, budget_seconds=budget, out=tmp_path)
    smaller = len(small.own_points()) + len(small.clone_points()) < len(big.own_points()) + len(
        big.clone_points()
    )
    assert smaller or small.repetitions < big.repetitions
    assert small.estimate_seconds <= budget
    none = advise._make_plan(str(PHYSLITE), storage=None, budget_seconds=30, out=tmp_path)
    assert none.repetitions == advise.MIN_REPETITIONS and any("beyond the budget" in n for n in none.notes)
    # --clone no: never a clone; --clone-compression: the compression settings on the clone too.
    assert not advise._make_plan(
        str(PHYSLITE), storage=None, budget_seconds=7200, out=tmp_path, clone="no"
    ).clone
    both = advise._make_plan(
        str(PHYSLITE), storage=None, budget_seconds=7200, out=tmp_path, clone_compression=True
    )
    assert {(a, lv) for _, a, lv, af in both.own_points()} <= {
        (a, lv) for _, a, lv, af in both.clone_points()
    }


def test_storage_directory_and_remote_endpoint(tmp_path):
    local = advise._make_plan(str(NANOAOD), storage=str(tmp_path / "disk"), budget_seconds=1200, out=tmp_path)
    assert local.config()["data_dir"].startswith(str(tmp_path / "disk"))
    remote = advise._make_plan(
        str(NANOAOD), storage="root://eos.example.org//eos/me/", budget_seconds=1200, out=tmp_path
    )
    config = load_study_config(remote.config())
    assert config["read_defaults"]["storage_profile"] == "yours"
    assert config["measurement"]["storage_profiles"]["yours"] == {
        "remote_url": "root://eos.example.org//eos/me/",
        "copy": True,
    }
    assert config["formats"][remote.name]["branches"] == "all"  # CMS: no ATLAS particle containers


def test_bad_input_is_one_clear_line(tmp_path, capsys):
    assert advise.main([str(tmp_path / "nope.root"), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "nope.root does not exist" in err and "Traceback" not in err
    assert advise.main([str(NANOAOD), "--budget", "soon", "--out", str(tmp_path / "o")]) == 2
    assert "--budget 'soon' is not a duration" in capsys.readouterr().err
    assert advise.main(["root://host//f.root"]) == 2
    assert "local path" in capsys.readouterr().err


def _read(loop, disk, unzip):
    return {"loop_seconds": loop, "loop_disk_seconds": disk, "loop_unzip_seconds": unzip}


def test_a_read_is_classified_by_its_spans_with_intervals():
    io = bottleneck.classify([_read(1.0, 0.70 + 0.01 * i, 0.1) for i in range(5)])
    assert io.verdict == "I/O-bound" and io.dominant == "storage" and "compression" in io.lever
    unzip = bottleneck.classify([_read(2.0, 0.2, 1.5 - 0.02 * i) for i in range(5)])
    assert unzip.verdict == "decompression-bound" and "LZ4" in unzip.lever
    deser = bottleneck.classify([_read(1.0, 0.05, 0.1) for _ in range(4)])
    assert deser.verdict == "deserialisation-bound"
    # Shares too close to tell apart at this spread: mixed, naming both.
    close = bottleneck.classify([_read(1.0, 0.45 + 0.1 * (i % 2), 0.45 - 0.1 * (i % 2)) for i in range(4)])
    assert close.verdict.startswith("mixed (") and "I/O-bound" in close.verdict
    assert bottleneck.classify([{"loop_seconds": float("nan")}]) is None
    one = bottleneck.classify([_read(1.0, 0.8, 0.1)])
    assert "n = 1" in one.verdict
    # Decompression on several threads can exceed the wall time: shares stay within [0, 1].
    s = bottleneck._span_shares(_read(1.0, 0.3, 1.4))
    assert math.isclose(sum(s.values()), 1.0) and min(s.values()) >= 0


def test_advise_answers_for_a_real_file(tmp_path, build):
    """The whole chain on the CMS NanoAOD sample, --quick: plan, pace probe, tiling, recompressions, study, decision,
    what to type, the page and the JSON. Two repetitions and short loops (--loop-seconds 0.1, the file tiled some
    15 times): not an answer to act on; the chain is what is tested."""
    require(shutil.which("dool") is not None, "dool must be on PATH (it is installed with the project)")
    out = tmp_path / "answer"
    shutil.copytree(build["info"].parent, out / "results" / "build")
    # One setting fails (injected: the recompressor refuses ZSTD-5); the answer is made from the others.
    tool = out / "results" / "build" / "bin" / "rootparams-recompress"
    tool.rename(tool.with_name("rootparams-recompress.real"))
    tool.write_text(
        "#!/bin/sh\n"
        'case " $* " in *" --compression 505 "*) echo "rootparams-recompress: error: injected failure" >&2; exit 2;; esac\n'
        f'exec "{tool}.real" "$@"\n'
    )
    tool.chmod(0o755)
    command = [sys.executable, "-m", "rootparams.cli", "advise", str(NANOAOD), "--out", str(out), "--quick",
               "--repetitions", "2", "--loop-seconds", "0.1"]  # fmt: skip
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    run = subprocess.run(command, capture_output=True, text=True, env=env, timeout=1500)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    text = run.stdout
    assert "estimate:" in text and "about" in text and "left" in text  # the plan, then progress with an ETA
    assert "pace:" in text and "its clusters repeated" in text  # measured, then tiled
    # A decision, a tie, or (on a busy machine, every repetition flagged) no decision, said as such.
    assert "## The compression, on your file's own bytes" in text
    assert (
        "cheapest in" in text or "cannot tell" in text or "No decision: no setting had enough valid" in text
    )
    assert "What limits its reads:" in text
    assert "## Apply it" in text
    # A quick answer says so at its head, in the page too, and what the full answer adds.
    assert "**A quick answer**: 2 repetitions" in (out / "advise.md").read_text() and "adds LZMA" in text
    page = (out / "advise.html").read_text()
    assert "<h2>The compression" in page and "data:image/png;base64," in page
    answer = json.loads((out / "advise.json").read_text())
    assert answer["plan"]["copies"] > 1 and {r["where"] for r in answer["settings"]} == {advise.OWN}
    measured = {r["setting"] for r in answer["settings"]}
    assert {"as it is", "LZ4-5", "ZLIB-5", "ZLIB-1"} <= measured and "ZSTD-5" not in measured
    assert [(f["setting"], "injected failure" in f["why"]) for f in answer["failures"]] == [("ZSTD-5", True)]
    assert "## Settings that could not be measured" in text and "made from the other settings" in text
    # A rerun resumes: nothing left to do, the same answer; a lock a killed run left behind (a machine restarted
    # under it) is released, not a stop.
    (out / ".snakemake" / "locks").mkdir(parents=True, exist_ok=True)
    (out / ".snakemake" / "locks" / "0.input.lock").write_text(
        str(out / "results" / "tables" / "summary.csv")
    )
    again = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
    assert "was interrupted" in again.stdout and "already there" in again.stdout


def test_a_rerun_resumes_the_plan_it_made(tmp_path):
    first = advise._make_plan(str(PHYSLITE), storage=None, budget_seconds=1200, out=tmp_path)
    (tmp_path / "plan.json").write_text(
        json.dumps({"asked": first.asked, "tier": advise._TIERS[-1][0], "repetitions": 4, "made": "earlier"})
    )
    again = advise._make_plan(str(PHYSLITE), storage=None, budget_seconds=1200, out=tmp_path)
    assert (again.tier, again.repetitions) == (advise._TIERS[-1][0], 4)  # the plan of then, not a new one
    assert any("resuming the plan made on earlier" in n for n in again.notes)
    other = advise._make_plan(str(PHYSLITE), storage=None, budget_seconds=600, out=tmp_path)  # another budget
    assert not any("resuming" in n for n in other.notes)


def test_the_time_left_weighs_each_measuring_block_by_what_it_reads(tmp_path):
    """The file as it is is small: its block finishing early must not make the time left collapse (it did, from
    13 to 3 minutes, when every block counted alike)."""
    plan = advise._make_plan(str(PHYSLITE), storage=None, budget_seconds=7200, out=tmp_path)
    assert plan.copies > 1 and plan.clone
    now = [0.0]
    progress = advise.Progress(
        plan,
        {"rewrite_file": 13, "generate_file": 12, "measure_block": 2, "tabulate": 1},
        clock=lambda: now[0],
    )
    before = progress.total - progress.done_weight
    now[0] = 30.0
    for line in (
        "    jobid: 7",
        f"    wildcards: block={plan.name}",
        "Finished jobid: 7 (Rule: measure_block)",
    ):
        text = progress.feed(line)
    assert text is not None and text.startswith("advise: [1/28] measure_block done; 30 s elapsed")
    left = progress.total - progress.done_weight
    assert left > 0.3 * before  # one block of two: not the whole reading
    assert progress.feed("[Wed Nov 25 23:08:38 2026]") is None


def test_a_clone_of_an_rntuple_writes_its_ttrees_with_clusters(tmp_path):
    """An RNTuple has no AutoFlush: its clone's TTrees take ROOT's TTree default (30 MB) rather than AutoFlush 0
    (no clusters at all), for both containers, and the cluster-size scan is around that default."""
    from rootparams.study.config import _RNTUPLE_CLONE_AUTOFLUSH, format_file_defaults

    plan = advise._make_plan(str(PHYSLITE_RNTUPLE), storage=None, budget_seconds=7200, out=tmp_path)
    config = load_study_config(plan.config())
    assert (
        format_file_defaults(config, plan.clone_name)["autoflush"] == _RNTUPLE_CLONE_AUTOFLUSH == -30_000_000
    )
    assert _RNTUPLE_CLONE_AUTOFLUSH not in plan.autoflush and plan.autoflush
    labels = {advise._label({"container": c, "algorithm": "zstd", "level": 5, "autoflush": af})
              for c, af in (("ttree", -30_000_000), ("rntuple", 100), ("rntuple", 0))}  # fmt: skip
    assert labels == {"ZSTD-5, AutoFlush 30 MB", "RNTuple ZSTD-5, clusters 100 ev", "RNTuple ZSTD-5"}


def _analysis_file(path) -> str:
    """Three TTrees of an analysis (uproot writes them), none of them named as event data usually is."""
    import numpy as np
    import uproot

    with uproot.recreate(path) as f:
        for name, entries in (("sig", 502), ("fullmassplane", 1572), ("control", 316)):
            f.mktree(name, {"mass": "f4", "njets": "i4"}).extend(
                {"mass": np.linspace(100, 150, entries, dtype=np.float32), "njets": np.arange(entries) % 7}
            )
    return str(path)


def test_a_file_with_several_trees_is_planned_with_tree(tmp_path, capsys):
    path = _analysis_file(tmp_path / "analysis.root")
    out = tmp_path / "o"
    assert advise.main([path, "-n", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        f"rootparams advise: error: {path} holds 3 TTrees: sig (502 entries), fullmassplane (1,572), control "
        "(316); name the one to use with --tree NAME"
    )
    assert advise.main([path, "--tree", "fullmassplane", "-n", "--out", str(out)]) == 0
    assert "the file:  TTree fullmassplane, 1572 entries" in capsys.readouterr().out
    raw = yaml.safe_load((out / "advise.yaml").read_text())
    assert {f["tree"] for f in raw["formats"].values()} == {"fullmassplane"}  # the source's and its clone's
    assert json.loads((out / "plan.json").read_text())["asked"]["tree"] == "fullmassplane"
    config = load_study_config(raw)  # the workflow describes the same tree
    assert {fmt: source_of(config, fmt).entries for fmt in config["formats"]} == dict.fromkeys(
        raw["formats"], 1572
    )
    assert advise.main([path, "--tree", "signal", "-n", "--out", str(out)]) == 2
    assert "no TTree or RNTuple named 'signal'" in capsys.readouterr().err


def test_ntuple_names_an_rntuple(tmp_path, capsys):
    import numpy as np
    import uproot

    path = tmp_path / "two.root"
    with uproot.recreate(path) as f:  # uproot writes a dict of arrays as an RNTuple
        f["A"] = {"x": np.arange(100.0)}
        f["B"] = {"y": np.arange(300.0)}
    assert advise.main([str(path), "--ntuple", "B", "-n", "--out", str(tmp_path / "o")]) == 0
    assert "the file:  RNTuple B, 300 entries" in capsys.readouterr().out
    with pytest.raises(SystemExit) as stop:  # one name: --tree and --ntuple are the same option
        advise.main([str(path), "--tree", "A", "--ntuple", "B", "-n"])
    assert stop.value.code == 2 and "not allowed with argument --tree" in capsys.readouterr().err


def test_a_tree_without_bytes_on_disk_is_one_line(tmp_path, capsys):
    import warnings

    warnings.filterwarnings("ignore", message=r"(?s).*This distribution of ROOT is in alpha stage")
    import ROOT

    path = tmp_path / "hollow.root"
    f = ROOT.TFile(str(path), "RECREATE")
    tree = ROOT.TTree("events", "")
    tree.SetEntries(100)  # entries, and no branch holding a byte of them
    tree.Write()
    f.Close()
    assert advise.main([str(path), "-n", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "events holds no event data on disk" in err and "Traceback" not in err
