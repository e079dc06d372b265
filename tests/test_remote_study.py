"""A tiny remote study end to end (issue #15; tests/configs/tiny_remote.yaml): one small TRUTH3 file
read locally, through our XRootD server alone, and through the proxy at 20 ms RTT, TTreeCache off and -1.

Without toxiproxy at all (ROOTPARAMS_TOXIPROXY names a file that does not exist), the preflight refuses the run
before any job and says how to install it. Then a first run with a toxiproxy that cannot start (a script that
exits with an error, as a broken install would) and --keep-going: the xrootd-wan points fail with the proxy's own
message, every other point is measured. The rerun with the real toxiproxy measures only the failed points. Then the
records are checked against what a remote read must show."""

from __future__ import annotations

import json
import shutil
import subprocess

import pandas as pd
import pytest
from conftest import REPO, require, set_threads, snakemake

from rootparams.host import remote, storage
from rootparams.tools import paths

TINY_REMOTE = str(REPO / "tests" / "configs" / "tiny_remote.yaml")
FORMAT = "truth3"  # the study's one format
BROKEN_PROXY_SAYS = "listen tcp 127.0.0.1: bind: address already in use"


def tools_available() -> bool:
    try:
        remote._find_xrootd(), remote.find_toxiproxy()
    except remote.RemoteToolError:
        return False
    return True


@pytest.fixture(scope="module")
def remote_run(tmp_path_factory, build):
    require(tools_available(), "xrootd and toxiproxy (tools/install-remote; CI installs them)")
    require(shutil.which("dool") is not None, "dool must be on PATH (it is installed with the project)")
    workdir = tmp_path_factory.mktemp("remote")
    for d in (workdir, *workdir.parents):  # pytest's 0700 directories: the server runs as user xrootd
        if d == d.parent or str(d) == "/tmp":
            break
        d.chmod(d.stat().st_mode | 0o055)
    (workdir / paths.BUILD).parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(build["info"].parent, workdir / paths.BUILD)  # the session's C++ build, not a second one
    # Up to the tables the tests read (the figures they check are drawn here from those tables).
    targets = (paths.SUMMARY_TABLE, paths.POINTS_TABLE, paths.FILES_TABLE)
    args = (
        *targets,
        "--configfile",
        TINY_REMOTE,
        "--config",
        f"data_dir={workdir / 'data'}",
        "--cores",
        "2",
        *set_threads(),
    )
    missing = {"ROOTPARAMS_TOXIPROXY": str(workdir / "no-toxiproxy-here")}
    refused = snakemake(workdir, *args, check=False, env=missing)
    broken = workdir / "broken-toxiproxy"
    broken.write_text(f"#!/bin/sh\necho '{BROKEN_PROXY_SAYS}' >&2\nexit 3\n")
    broken.chmod(0o755)
    first = snakemake(workdir, *args, "--keep-going", check=False, env={"ROOTPARAMS_TOXIPROXY": str(broken)})
    second = snakemake(workdir, *args)
    return workdir, refused, first, second


def summary(workdir) -> pd.DataFrame:
    return pd.read_csv(workdir / paths.SUMMARY_TABLE)


def records(workdir, profile: str) -> list[dict]:
    found = sorted((workdir / "results" / "repetitions").glob(f"{FORMAT}/*/*_{profile}/rep*.json"))
    return [json.loads(p.read_text()) for p in found]


def test_a_missing_proxy_stops_the_run_before_any_job(remote_run):
    _, refused, *_ = remote_run
    assert refused.returncode != 0
    said = refused.stderr
    assert "toxiproxy-server" in said and "tools/install-remote" in said and "ROOTPARAMS_TOXIPROXY" in said, (
        said[-3000:]
    )
    assert "Nothing was run" in said


def test_a_proxy_that_cannot_start_fails_its_profile_only_with_its_own_message(remote_run):
    workdir, _, first, _ = remote_run
    assert first.returncode != 0
    # Snakemake shows the failed jobs' logs (the rerun rewrites the log files).
    assert BROKEN_PROXY_SAYS in first.stderr and "broken-toxiproxy exited with code 3" in first.stderr, (
        first.stderr[-3000:]
    )
    assert "xrootd-wan" in first.stderr
    # The rerun measured only what failed: the local and server-only records are the first run's.
    block = json.loads((workdir / paths.block_record(FORMAT)).read_text())
    assert (
        block["measured_repetitions"] == 2 and block["reused"] == 4
    )  # the 2 xrootd-wan points x 1 repetition
    for profile in ("native", "xrootd-local"):
        assert all(r.get("reused") is not True for r in records(workdir, profile))  # written once, kept
    # Every other point of the block was measured in the first run (the block's job failed at its end).
    local = {p.parent.name for p in (workdir / "results" / "repetitions" / FORMAT).rglob("rep*.json")}
    assert (
        len([r for r in local if not r.endswith("_xrootd-wan")]) == 4
    )  # native and xrootd-local, cache off and -1


def test_remote_reads_go_through_the_server_and_loopback_and_start_cold(remote_run):
    workdir, *_ = remote_run
    for profile, hops in (("xrootd-local", 1), ("xrootd-wan", 2)):  # the proxy: server to proxy to reader
        recs = records(workdir, profile)
        assert len(recs) == 2  # 2 cache settings x 1 repetition
        for r in recs:
            assert r["storage_access"] == "xrootd" and r["file_class"] == "TNetXNGFile"
            assert r["read_path"].startswith("root://127.0.0.1:") and r["read_path"].endswith("?remote=1")
            assert r["resident_fraction_before"] == 0  # evicted on the server's disk and verified
            # The server read the file from storage for this read (read-ahead included), and the bytes ROOT
            # read crossed loopback once per hop.
            assert r["server_storage_read_bytes"] >= 0.95 * r["process_bytes_read"]
            assert r["read_net_lo_bytes"] >= hops * r["process_bytes_read"]
            assert not r["flagged"], r["flag_reasons"]
            # The server's (and proxy's) CPU is the read's, not "other work"; 10 ms ticks: a short read can show 0.
            assert r["server_cpu_seconds"] >= 0
        assert (
            workdir / paths.remote_logs(FORMAT, recs[0]["file_id"], recs[0]["read_id"]) / "xrootd.log"
        ).exists()
    for r in records(workdir, "native"):
        assert r["storage_access"] == "local" and r["file_class"] == "TFile"


def test_each_round_trip_costs_at_least_the_added_rtt(remote_run):
    workdir, *_ = remote_run
    wan = [r for r in records(workdir, "xrootd-wan") if r["cache_size"] == 0]
    rtt = storage.PROFILES["xrootd-wan"].rtt_ms / 1e3
    for r in wan:
        assert r["remote_rtt_ms_applied"] == 20
        # With the cache off every basket is a read call, each a round trip: N calls take at least N x RTT.
        assert r["loop_read_calls"] > 100
        assert r["loop_seconds"] >= r["loop_read_calls"] * rtt
        assert r["loop_seconds"] <= r["loop_read_calls"] * rtt * 1.5 + 2  # and not much more (decompression)


def test_the_cache_turns_a_round_trip_per_basket_into_a_few_vector_reads(remote_run):
    # Why the cache matters more remotely: without it every basket is a read call (a round trip through the
    # proxy), with it a few vector reads fetch them all. The rates' gain (xrootd-wan's more than 10 times
    # native's) is a timed comparison, printed by benchmarks/timed_checks.py (remote-study).
    workdir, *_ = remote_run
    for profile in ("native", "xrootd-local", "xrootd-wan"):
        calls = {r["cache_size"]: r["loop_read_calls"] for r in records(workdir, profile)}
        assert set(calls) == {0, -1} and 10 * calls[-1] < calls[0], (profile, calls)
    s = summary(workdir).set_index(["storage_profile", "cache_size"])["event_rate_hz_mean"]
    assert len(s) == 6 and (s > 0).all()


def test_a_remote_read_returns_the_local_checksum_and_a_wrong_url_a_clear_error(remote_run, build):
    workdir, *_ = remote_run
    local = next((workdir / "data" / "files" / FORMAT).glob("*.root"))
    with remote.remote_endpoint(storage.PROFILES["xrootd-wan"], local.parent, workdir / "x") as ep:
        sums = [
            subprocess.run(
                [str(build["reader"]), "--checksum", "--file", path], capture_output=True, text=True
            )
            for path in (str(local), ep.url(local), ep.url(local.parent / "missing.root"))
        ]
    assert sums[0].returncode == sums[1].returncode == 0, sums[1].stderr
    checksum = [json.loads(p.stdout.split("ROOTPARAMS_JSON ", 1)[1])["content_checksum"] for p in sums[:2]]
    assert checksum[0] == checksum[1]
    assert (
        sums[2].returncode != 0 and "missing.root" in sums[2].stderr and "cannot be opened" in sums[2].stderr
    )


def test_figures_19_and_20_draw_the_remote_points(remote_run):
    workdir, *_ = remote_run
    from rootparams.present import figures

    tables = [pd.read_csv(workdir / t) for t in (paths.SUMMARY_TABLE, paths.POINTS_TABLE, paths.FILES_TABLE)]
    for name in ("fig19_rate_vs_cache_by_latency", "fig20_rate_vs_rtt"):
        figure = next(f for f in figures.FIGURES if f.name == name)
        fig = figures.draw(figure, *tables, {})
        lines = [line for ax in fig.axes for line in ax.get_lines()]
        assert lines, f"{name} drew no line"
        labels = {t.get_text() for ax in fig.axes for t in ax.get_xticklabels()}
        if name == "fig20_rate_vs_rtt":
            assert "xrootd-wan (20 ms)" in labels and "native" in labels, labels


def test_a_users_endpoint_is_read_there_and_every_record_says_eviction_is_its_business(
    remote_run, build, tmp_path
):
    from rootparams.measure.measure import measure_point
    from rootparams.study.config import load_study_config

    workdir, *_ = remote_run
    local = next((workdir / "data" / "files" / FORMAT).glob("*.root"))
    # Our own server stands in for a user's: the file is already there, in <dir>/<format>/<file>.
    export = workdir / "endpoint"
    (export / FORMAT).mkdir(parents=True)
    shutil.copy(local, export / FORMAT / local.name)
    for p in (export, export / FORMAT, export / FORMAT / local.name):
        p.chmod(p.stat().st_mode | 0o055)
    with remote.XRootDServer(export, tmp_path / "logs") as server:
        url = f"root://127.0.0.1:{server.port}/{export}/"
        config = {
            "measurement": {
                "monitor": "none",
                "storage_profiles": {"mine": {"remote_url": url}},
                "min_window_seconds": 0.01,
            }
        }
        measurement = load_study_config(config)["measurement"]
        read = {
            "cache_size": -1,
            "learn_entries": "default",
            "threads": 1,
            "branches": "all",
            "storage_profile": "mine",
        }
        recs = measure_point(
            root_file=str(local),
            warmup_file=str(local),
            reader=str(build["reader"]),
            events=150,
            read=read,
            measurement=measurement,
            monitor_csv=str(tmp_path / "m.csv"),
            records={0: str(tmp_path / "r0.json")},
            labels={},
        )
        (rec,) = recs
        assert rec["storage_access"] == "endpoint" and rec["remote_url"] == url
        assert rec["read_path"] == f"{url}{FORMAT}/{local.name}?remote=1"
        assert rec["file_class"] == "TNetXNGFile" and rec["events_read"] == 150
        assert rec["eviction_verified"] is False and "endpoint's server" in rec["eviction_method"]
        assert not rec["flagged"], rec["flag_reasons"]
        # copy: true against a server that does not allow writing: a clear error naming the target.
        copying = load_study_config(
            {
                "measurement": {
                    "monitor": "none",
                    "storage_profiles": {"mine": {"remote_url": url, "copy": True}},
                }
            }
        )["measurement"]
        with pytest.raises(
            remote.RemoteEndpointError, match=r"cannot copy .* to root://127\.0\.0\.1.*remote_url"
        ):
            measure_point(
                root_file=str(local),
                warmup_file=str(local),
                reader=str(build["reader"]),
                events=150,
                read=read,
                measurement=copying,
                monitor_csv=str(tmp_path / "m2.csv"),
                records={0: str(tmp_path / "r1.json")},
                labels={},
            )
