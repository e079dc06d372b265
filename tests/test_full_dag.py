"""The full DAG on a tiny grid (tests/configs/tiny_full.yaml, the session's ``full_run``: tests/conftest.py):
every scan, 2 repetitions, few events, two formats; every artifact of the study exists and is well formed:
tables, Table 1, Figures 1-12 (PNG and PDF), recommendations, and the HTML report. Its storage primitives are
checked by tests/test_storage_primitives.py."""

import shutil

import pandas as pd
import pytest
from conftest import TINY_FULL, snakemake

from rootparams.host.storage import throttling_unavailable_reason
from rootparams.present.figures import _REMOTE_FIGURES, _SEED_FIGURES, FIGURE_NAMES
from rootparams.tools import paths

# Where the machine cannot throttle (no root or no cgroup v1 blkio), ssd falls back to native, labelled.
PROFILES = {"native", "ssd"} if throttling_unavailable_reason() is None else {"native"}


def test_every_point_of_every_scan_was_measured(full_run):
    summary = pd.read_csv(full_run / paths.SUMMARY_TABLE)
    scans = pd.read_csv(full_run / paths.POINTS_TABLE)
    assert len(summary) == len(scans) == 58  # the de-duplicated grid of tiny_full.yaml
    assert set(summary["format"]) == {"xaod", "truth3"}
    assert (summary["n"] + summary["n_flagged"] == 2).all()
    named = {s for joined in scans["scans"] for s in joined.split(";")}
    assert named == {
        "default",
        "compression",
        "autoflush",
        "split",
        "cache",
        "cache_learn",
        "threads",
        "storage_compression",
        "storage_cache",
        "container",
        "rntuple_cache",
        "rntuple_cluster",
        "rntuple_page",
        "float_precision",
        "branch_compression",
        "branch_compression_uniform",
    }
    rntuple = summary[summary["container"] == "rntuple"]
    # Per format: lz4-1 and zstd-1, zlib-5 with 4 cluster-cache reads, clusters of 3 events, pages of 64 kB,
    # floats of 7 mantissa bits.
    assert len(rntuple) == 2 * (2 + 4 + 1 + 1 + 1)
    assert (rntuple["split_level"] == -1).all() and set(rntuple["page_size"]) == {65536, 1048576}
    assert set(rntuple["cluster_bunch"]) == {1, 2} and set(rntuple["cache_size"]) == {0, -1}
    assert (rntuple["loop_bytes_read_mean"] > 0).all() and (rntuple["event_rate_hz_mean"] > 0).all()
    assert set(summary["storage_profile"]) == PROFILES
    for metric in (
        "event_rate_hz",
        "note_window_event_rate_hz",
        "loop_read_calls",
        "rss_increase_bytes",
        "loop_unzip_seconds",
        "loop_io_share",
        "storage_requests",
    ):
        assert f"{metric}_mean" in summary and f"{metric}_std" in summary


def test_table1_for_each_format(full_run):
    for fmt in ("xaod", "truth3"):
        table = pd.read_csv(full_run / paths.table1(fmt, "csv"))
        assert {"algorithm", "level", "size_bytes", "rate_hz_mean", "rate_hz_std"} <= set(table.columns)
        # The scans' settings, plus the format's default point (ZLIB-5), which is a compression setting too.
        ttree = table[table["container"] == "ttree"]
        settings = set(zip(ttree["algorithm"], ttree["level"], strict=True))
        assert settings == {("lz4", 1), ("zlib", 1), ("zlib", 5), ("zstd", 1), ("none", 0)}
        rntuple = table[table["container"] == "rntuple"]
        assert set(zip(rntuple["algorithm"], rntuple["level"], strict=True)) == {
            ("lz4", 1),
            ("zstd", 1),
            ("zlib", 5),
        }
        assert (table["size_bytes"] > 0).all()
        assert (full_run / paths.table1(fmt, "tex")).read_text().count("\\\\") >= 3


def test_every_figure_is_a_real_png_and_pdf(full_run):
    # The remote figures need a server: tiny_full has no remote scan, and tests/test_remote_study.py draws them;
    # the seeds' figures are drawn by tests/test_seed_studies.py.
    for name in (n for n in FIGURE_NAMES if n not in _REMOTE_FIGURES + _SEED_FIGURES):
        png = (full_run / paths.figure(name, "png")).read_bytes()
        pdf = (full_run / paths.figure(name, "pdf")).read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20_000, name
        assert pdf[:5] == b"%PDF-" and len(pdf) > 5_000, name


def test_recommendations_cover_every_topic_per_format(full_run):
    text = (full_run / paths.RECOMMENDATIONS).read_text()
    for title in ("## primary xAOD", "## TRUTH3"):
        assert title in text
    for topic in ("compression", "autoflush", "split", "cache", "threads"):
        assert text.count(f"| {topic} |") == 2, topic
    assert (
        "section 3.1" in text
        and f"storage profile(s) of the timed reads: {', '.join(sorted(PROFILES))}" in text
    )


def test_decision_fronts_costs_and_lead(full_run):
    from rootparams.decide.decision import _GROUP_KEYS
    from rootparams.present.figures import DECISION_FIGURES, pareto_figure_name

    files = pd.read_csv(full_run / paths.FILES_TABLE)
    assert (files["root_write_cpu_seconds"] > 0).all()  # the write cost: ROOT's CPU time, every file
    front = pd.read_csv(full_run / paths.PARETO_TABLE)
    assert len(front) == 58 and set(front["format"]) == {"xaod", "truth3"}
    valid = front[front["valid"]]
    assert valid.groupby(_GROUP_KEYS)["on_front"].any().all()  # every group with a valid point has a front
    # A point off the front names one on the front that surely beats it: not larger, and a rate not lower with
    # 95 % confidence (within the fronts' margin; rootparams.decide.decision).
    from rootparams.decide.decision import PARETO_RATE_MARGIN

    for _, row in valid[~valid["on_front"]].iterrows():
        group = valid[(valid[_GROUP_KEYS] == row[_GROUP_KEYS]).all(axis=1)]
        beater = group[group["setting"] == row["dominated_by"]].iloc[0]
        assert beater["on_front"] and beater["bytes_per_event"] <= row["bytes_per_event"]
        assert row["dominated_by_rate_ratio_low"] >= 1 / (1 + PARETO_RATE_MARGIN) - 1e-9
        assert row["dominated_by_rate_ratio_high"] >= 1
    choice = pd.read_csv(full_run / paths.COST_CHOICE_TABLE)
    assert set(choice["format"]) == {"xaod", "truth3"} and list(choice["reads_per_file"][:3]) == [1, 10, 100]
    costs = pd.read_csv(full_run / paths.COST_TABLE)
    assert (costs["storage_profile"] == "native").all() and (costs["branches"] == "particle").all()
    assert not costs["file_id"].str.contains("_fpm").any()  # lossy settings stay out unless cost.lossy
    for _, r in choice.iterrows():  # the choice is the minimum of the candidates' totals
        c = costs[costs["format"] == r["format"]]
        total = c["storage_cost"] + c["write_cost"] + r["reads_per_file"] * c["read_cost"]
        assert r["total_cost"] == pytest.approx(total.min())
    for name in (*(pareto_figure_name(f) for f in ("xaod", "truth3")), DECISION_FIGURES[1]):
        assert (full_run / paths.figure(name, "png")).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
    text = (full_run / paths.RECOMMENDATIONS).read_text()
    assert text.index("## The decision") < text.index("## The scans in detail")
    # Lossy floats: every float variable of the mantissa-7 files with its precision lost, and the finding.
    precision = pd.read_csv(full_run / paths.FLOAT_PRECISION_TABLE)
    lossy = precision.merge(files[["format", "file_id", "container"]], on=["format", "file_id"])
    assert set(lossy["container"]) == {"ttree", "rntuple"} and len(lossy) == len(precision)
    assert set(precision["mantissa_bits"]) == {7} and (precision["max_rel_error"] <= 2.0**-8).all()
    assert precision.groupby("file_id")["variable"].nunique().min() > 5
    assert "mantissa7" in text
    # Per-branch compression: the 2 largest branches of each format's file at LZ4-1, ranked on the content file.
    hot = files[files["branch_compression"] == "largest2:lz4-1"]
    assert len(hot) == 2 and (hot["hot_branches"].str.split(";").str.len() == 2).all()
    assert (hot["branch_compression_settings_in_file"] == "101;401").all()
    assert hot["hot_branches_ranked_on"].str.startswith("content file").all()
    assert "largest2:lz4-1" in text


def test_html_report_has_every_figure_and_table(full_run):
    snakemake(
        full_run,
        "--configfile",
        TINY_FULL,
        "--config",
        f"data_dir={full_run / 'data'}",
        "--report",
        "report.html",
    )
    html = (full_run / "report.html").read_text(errors="replace")
    assert len(html) > 500_000
    for name in (*FIGURE_NAMES, "recommendations.md", "table1_compression_xaod.csv", "summary.csv"):
        assert name in html, name


def test_generated_files_are_removed_once_measured(full_run):
    # keep_files is false here: every file went away after its last read, except the drift sentinel's, which a
    # later run reads too; the catalogue keeps what each file was.
    sentinel = pd.read_csv(full_run / paths.SENTINEL_TABLE)
    sentinel_files = {f"{f}/{i}.root" for f, i in zip(sentinel["format"], sentinel["file_id"], strict=True)}
    left = {
        str(p.relative_to(full_run / "data" / "files")) for p in (full_run / "data" / "files").rglob("*.root")
    }
    assert len(sentinel_files) == 1 and left == sentinel_files
    assert len(pd.read_csv(full_run / paths.FILES_TABLE)) == 34  # 22 TTree files and 12 RNTuple files


def test_several_hosts_side_by_side(full_run, tmp_path):
    import json

    from rootparams.present import hosts

    dirs = []
    for i, host in enumerate(("node-a", "node-b")):
        d = tmp_path / f"results-{i}"
        shutil.copytree(full_run / "results", d, ignore=shutil.ignore_patterns("build", "logs", "monitor"))
        provenance = json.loads((d / "provenance.json").read_text())
        (d / "provenance.json").write_text(json.dumps({**provenance, "host": host}))
        dirs.append(str(d))
    hosts.main([*dirs, "--out", str(tmp_path / "out")])
    table = pd.read_csv(tmp_path / "out" / "hosts_summary.csv")
    assert set(table["host"]) == {"node-a", "node-b"}
    assert table["rate_ratio_to_first_host"].dropna().eq(1.0).all()  # the same data under two names
    assert (tmp_path / "out" / "hosts_rate_vs_compression.png").stat().st_size > 20_000


def test_the_unzip_kinds_primitive_is_made(full_run):
    # Checked on the full study: the tiny study stops before it (conftest.tiny_targets), as before its storage
    # primitives and most figures.
    table = full_run / paths.UNZIP_KINDS_TABLE
    assert table.stat().st_size > 0
    assert set(pd.read_csv(table)["format"]) <= {"xaod", "truth3"}
