"""Recommendation rules on hand-made summaries with known answers."""

import math

import pandas as pd
import pytest

from rootparams import labels, recommend
from rootparams.config import load_study_config


def row(fmt="xaod", alg="zlib", level=5, af=100, split=0, cache=-1, learn="default", threads=1, rate=100.0,
        std=1.0, size=1e8, rss=5e8, events=100, clusters=1, scans="compression"):  # fmt: skip
    file_id = f"{alg}-{level}_af{af}_split{split}_basket32000"
    read_id = f"cache{cache}_learn{learn}_mt{threads}_particle_hdd"
    return {"format": fmt, "file_id": file_id, "read_id": read_id, "algorithm": alg, "level": level, "autoflush": af,
            "split_level": split, "cache_size": cache, "learn_entries": learn, "threads": threads,
            "storage_profile": "hdd", "n": 5, "n_flagged": 0, "event_rate_hz_mean": rate, "event_rate_hz_std": std,
            "loop_read_calls_mean": 10.0, "rss_increase_bytes_mean": rss, "window_valid": True, "size_bytes": size, "events": events,
            "clusters": clusters, "scans": scans}  # fmt: skip


def tables(rows):
    frame = pd.DataFrame(rows)
    summary = frame.drop(columns=["size_bytes", "events", "clusters", "scans"])
    points = frame[["format", "file_id", "read_id", "scans"]]
    files = frame[["format", "file_id", "size_bytes", "events", "clusters"]].drop_duplicates("file_id")
    return summary, points, files


def test_same_rate_uses_tolerance_or_combined_sigma():
    a = {"event_rate_hz_mean": 100.0, "event_rate_hz_std": 0.1}
    assert recommend.same_rate(a, {"event_rate_hz_mean": 96.0, "event_rate_hz_std": 0.1})  # within 5 %
    assert not recommend.same_rate(a, {"event_rate_hz_mean": 90.0, "event_rate_hz_std": 0.1})
    assert recommend.same_rate(a, {"event_rate_hz_mean": 90.0, "event_rate_hz_std": 12.0})  # within 1 sigma
    assert recommend.same_rate(a, {"event_rate_hz_mean": 96.0, "event_rate_hz_std": math.nan})


def test_compression_fastest_smallest_and_agreement():
    rows = pd.DataFrame([row(alg="lz4", level=1, rate=120, size=1.3e8), row(alg="zlib", level=5, rate=100, size=1e8),
                         row(alg="lzma", level=9, rate=40, size=0.8e8), row(alg="none", level=0, rate=130, size=3e8)])  # fmt: skip
    found = recommend.compression(rows, "xaod")
    assert "fastest: none-0" in found.measured and "fastest compressed: lz4-1" in found.measured
    assert "smallest: lzma-9" in found.measured and found.agrees == "yes"
    rows.loc[rows["algorithm"] == "zlib", "event_rate_hz_mean"] = 200  # ZLIB now clearly the fastest
    assert recommend.compression(rows, "xaod").agrees == "partly"


def test_autoflush_plateau_is_the_smallest_cluster_within_tolerance():
    rows = pd.DataFrame([
        row(af=10, rate=60, rss=3e8, clusters=10), row(af=50, rate=97, rss=4e8, clusters=2),
        row(af=100, rate=100, rss=5e8, clusters=1), row(af=0, rate=99, rss=5e8, clusters=1),
    ])  # fmt: skip
    found = recommend.autoflush(rows, "xaod", "zlib", 100)
    assert "plateau (within 5%) from 50 ev" in found.measured
    assert "+100 MB against 10 ev" in found.measured
    assert found.agrees == "yes"  # the default 100 is on the plateau, as the paper says for the xAOD


def test_autoflush_for_a_derivation_agrees_when_10mb_is_below_the_plateau():
    rows = pd.DataFrame([row(fmt="topq1", af=-10_000_000, rate=80, events=500, clusters=10),
                         row(fmt="topq1", af=-20_000_000, rate=100, events=500, clusters=5)])  # fmt: skip
    found = recommend.autoflush(rows, "topq1", "zlib", -10_000_000)
    assert found.agrees == "yes" and "below the plateau" in found.measured


def test_cache_smallest_explicit_size_on_the_plateau():
    rows = pd.DataFrame([row(cache=0, rate=50), row(cache=2_000_000, rate=80), row(cache=10_000_000, rate=98),
                         row(cache=100_000_000, rate=100), row(cache=-1, rate=100)])  # fmt: skip
    found = recommend.cache(rows, "xaod")
    assert "smallest size on the plateau: 10 MB" in found.measured and "off: 50.0" in found.measured
    assert found.agrees == "yes"


def test_split_and_threads():
    rows = pd.DataFrame([row(split=0, rate=100, size=1e8), row(split=1, rate=99, size=1.2e8)])
    assert recommend.split(rows, "topq1").agrees == "yes"
    rows = pd.DataFrame([row(alg="lzma", threads=1, rate=40), row(alg="lzma", threads=2, rate=70),
                         row(alg="lzma", threads=4, rate=72)])  # fmt: skip
    found = recommend.threads(rows, "xaod", cores=2)
    assert "4 threads (oversubscribed) give 1.80x" in found.measured and found.agrees == "yes"


def test_truth3_compression_verdict_checks_each_claim_of_the_paper():
    # ZLIB sized like LZMA and reading like LZ4: the paper's "interesting choice for very small formats".
    rows = pd.DataFrame([row(alg="lz4", level=1, rate=5000, size=2.0e7), row(alg="zlib", level=5, rate=4700, size=1.3e7),
                         row(alg="lzma", level=5, rate=2000, size=1.2e7)])  # fmt: skip
    found = recommend.compression(rows, "truth3")
    assert found.agrees == "yes" and "ZLIB sized like LZMA: yes" in found.measured
    rows.loc[rows["algorithm"] == "zlib", "event_rate_hz_mean"] = 2100  # now ZLIB reads like LZMA
    found = recommend.compression(rows, "truth3")
    assert found.agrees == "partly" and "ZLIB reads like LZ4: no" in found.measured


def test_threads_verdict_for_a_derivation_expects_only_lzma_to_gain():
    gains_lzma = [row(fmt="susy5", alg=a, threads=t, rate=r) for a, t, r in
                  (("lzma", 1, 40), ("lzma", 2, 70), ("zlib", 1, 100), ("zlib", 2, 99))]  # fmt: skip
    assert recommend.threads(pd.DataFrame(gains_lzma), "susy5", cores=2).agrees == "yes"
    gains_all = [row(fmt="susy5", alg=a, threads=t, rate=r) for a, t, r in
                 (("lzma", 1, 40), ("lzma", 2, 70), ("zlib", 1, 100), ("zlib", 2, 150))]  # fmt: skip
    assert recommend.threads(pd.DataFrame(gains_all), "susy5", cores=2).agrees == "partly"


def test_invalid_points_are_left_out_and_counted():
    config = load_study_config({"formats": {"xaod": {"written": 10, "read": 10}}})
    invalid = {**row(alg="lzma", level=9, rate=500, size=0.5e8, scans="compression"), "window_valid": False}
    summary, points, files = tables([row(scans="compression"), row(alg="lz4", level=1, rate=150), invalid])
    (compression, *_) = recommend.findings(summary, points, files, config, cores=2)
    assert (
        "lzma" not in compression.measured.split("(")[0]
        and "1 invalid point(s) left out" in compression.measured
    )
    only_invalid = tables([invalid])
    (compression, *_) = recommend.findings(*only_invalid, config, cores=2)
    assert compression.agrees == "n/a" and "no valid point" in compression.measured


def test_findings_say_not_measured_for_a_missing_scan():
    config = load_study_config({"formats": {"xaod": {"written": 10, "read": 10}}})
    summary, points, files = tables(
        [row(scans="compression"), row(alg="lz4", level=1, rate=150, scans="compression")]
    )
    found = recommend.findings(summary, points, files, config, cores=2)
    assert [f.topic for f in found] == ["compression", "autoflush", "split", "cache", "threads"]
    assert found[1].agrees == "n/a" and "not measured" in found[1].measured
    text = recommend.markdown(found, "hdd", "test")
    assert text.count("| n/a |") == 4 and "## primary xAOD" in text


@pytest.mark.parametrize(("value", "label"), [(100, "100 ev"), (-10_000_000, "10 MB"), (0, "0 (off)")])
def test_autoflush_labels(value, label):
    assert labels.autoflush_label(value) == label


def test_the_recommendations_do_not_need_a_plotting_library():
    import subprocess
    import sys

    code = "import sys, rootparams.recommend; sys.exit('matplotlib' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_rntuple_ratios_and_the_verdict_next_to_roots_claim():
    def both(alg, t_rate, r_rate, t_size, r_size, profile="hdd"):
        out = []
        for container, rate, size in (("ttree", t_rate, t_size), ("rntuple", r_rate, r_size)):
            r = row(alg=alg, rate=rate, size=size, scans="container")
            out.append(
                {
                    **r,
                    "container": container,
                    "storage_profile": profile,
                    "file_id": f"{container}-{r['file_id']}",
                }
            )
        return out

    rows = pd.DataFrame([*both("zlib", 100, 250, 1e8, 0.7e8), *both("zstd", 100, 300, 1e8, 0.6e8)])
    found = recommend.rntuple(rows, "xaod")
    assert (
        "zlib-5 (hdd): size 0.70x, rate 2.50x ± 0.03" in found.measured
    )  # 2.5 x hypot(1 %, 0.4 %) and found.agrees == "yes"
    slower = pd.DataFrame([*both("zlib", 100, 99, 1e8, 0.95e8)])
    assert recommend.rntuple(slower, "xaod").agrees == "no"
    partly = pd.DataFrame([*both("zlib", 100, 140, 1e8, 0.85e8)])  # smaller, faster, not several times
    assert recommend.rntuple(partly, "xaod").agrees == "partly"
    # The cluster cache: on at least as fast as off on every profile.
    cache = [{**row(cache=c, rate=r, scans="rntuple_cache"), "storage_profile": p, "container": "rntuple"}
             for p, c, r in (("hdd", 0, 50), ("hdd", -1, 100), ("native", 0, 200), ("native", -1, 198))]  # fmt: skip
    found = recommend.cluster_cache(pd.DataFrame(cache), "xaod")
    assert found.agrees == "yes" and "hdd: on 100.0 ± 1.0 Hz, off 50.0 ± 1.0 Hz (2.00x)" in found.measured


def test_remote_cache_next_to_seed_001():
    def point(profile, rtt, cache, rate):
        r = row(cache=cache, rate=rate, scans="remote_cache")
        return {**r, "storage_profile": profile, "remote_rtt_ms_mean": rtt, "container": "ttree",
                "async_prefetch": False, "loop_cpu_seconds_mean": 0.5, "loop_seconds_mean": 1.0}  # fmt: skip

    nan = math.nan
    local = [point("native", nan, 0, 90), point("native", nan, -1, 100)]  # a slight improvement locally
    crucial = [point("xrootd-wan", 20, 0, 5), point("xrootd-wan", 20, -1, 80)]
    found = recommend.remote_cache(pd.DataFrame(local + crucial), "susy5")
    assert found.agrees == "yes" and "xrootd-wan: -1" in found.measured and "16.00x" in found.measured
    helps_little = [point("xrootd-wan", 20, 0, 60), point("xrootd-wan", 20, -1, 80)]  # 1.33x: not crucial
    assert recommend.remote_cache(pd.DataFrame(local + helps_little), "susy5").agrees == "partly"
    # The server alone (no added RTT) is neither local nor a latency profile: nothing to compare remotely.
    server_only = [point("xrootd-local", 0, 0, 50), point("xrootd-local", 0, -1, 100)]
    assert recommend.remote_cache(pd.DataFrame(local + server_only), "susy5").agrees == "n/a"


# ---- The seeds' studies (issue #16), on hand-made rows ---------------------------------------------------------


def test_access_judges_branch_wise_against_class_wise_per_partial_selection():
    def point(selection, split, rate):
        return {**row(fmt="susy5", split=split, rate=rate, scans="access"), "branches": selection}

    rows = [point("all", 0, 50), point("all", 99, 45), point("sparse", 0, 60), point("sparse", 99, 400),
            point("analysis", 0, 55), point("analysis", 99, 150)]  # fmt: skip
    found = recommend.access(pd.DataFrame(rows), "susy5")
    assert (
        found.agrees == "yes"
        and "sparse, AutoFlush 100 ev: split 99" in found.measured
        and "6.67x" in found.measured
    )
    assert "all branches: fastest at split 0" in found.measured and "Seed 001" in found.paper
    rows[5] = point("analysis", 99, 55.5)  # the same rate within 5 %: not faster
    assert recommend.access(pd.DataFrame(rows), "susy5").agrees == "partly"
    assert recommend.access(pd.DataFrame(rows[:2]), "susy5").agrees == "n/a"


def test_reading_style_judges_uproot_by_compression_and_reports_rdataframe():
    def point(style, alg, rate, threads=1, cpu=10.0):
        return {**row(fmt="nanoaod", alg=alg, rate=rate, threads=threads, scans="reading_style"),
                "reading_style": style, "branches": "analysis", "loop_cpu_us_per_event_mean": cpu}  # fmt: skip

    rows = [point("getentry", "lz4", 100), point("uproot", "lz4", 500, cpu=2.0), point("rdataframe", "lz4", 90),
            point("rdataframe", "lz4", 160, threads=2), point("getentry", "zlib", 80), point("uproot", "zlib", 100)]  # fmt: skip
    found = recommend.reading_style(pd.DataFrame(rows), "nanoaod")
    assert found.agrees == "yes"  # 5x on LZ4, 1.25x on ZLIB ("washed out")
    assert (
        "analysis, lz4-5: uproot 500.0 ± 1.0 Hz (5.00x GetEntry's 100.0 ± 1.0 Hz), 2.0 µs CPU/event"
        in found.measured
    )
    assert "RDataFrame, 2 threads" in found.measured
    rows[1] = point("uproot", "lz4", 110)
    assert recommend.reading_style(pd.DataFrame(rows), "nanoaod").agrees == "partly"


def test_unzip_compares_parallel_unzip_with_the_serial_read():
    def point(threads, on, rate, cpu):
        return {**row(fmt="xaod", alg="lzma", threads=threads, rate=rate, scans="unzip"), "unzip": on,
                "loop_cpu_seconds_mean": cpu}  # fmt: skip

    rows = [
        point(1, False, 10, 1.0),
        point(2, False, 13, 1.1),
        point(2, True, 18, 1.1),
        point(1, True, 10, 1.0),
    ]
    found = recommend.unzip(pd.DataFrame(rows), "xaod")
    assert (
        found.agrees == "yes"
        and "2 threads + parallel unzip 18.0 ± 1.0 Hz (1.80x, CPU +10%)" in found.measured
    )
    assert "2 threads alone 13.0 ± 1.0 Hz (1.30x)" in found.measured
    rows[2] = point(2, True, 13, 1.2)
    assert recommend.unzip(pd.DataFrame(rows), "xaod").agrees == "no"


def test_skim_compares_zlib_with_zstd_at_the_defaults_and_per_level():
    def point(alg, level, ratio):
        return {**row(fmt="susy5_skim", alg=alg, level=level, scans="skim"), "compression_ratio": ratio}

    rows = [point("zlib", 1, 6.0), point("zstd", 5, 5.5), point("zlib", 5, 6.4), point("zstd", 1, 5.0)]
    found = recommend.skim(pd.DataFrame(rows), "susy5_skim")
    assert found.agrees == "yes"
    assert "ZLIB-1 against ZSTD-5: 6.000 against 5.500; level 1: 6.000 against 5.000" in found.measured
    rows[1] = point("zstd", 5, 6.6)  # now ZSTD-5 is the smaller: ZLIB wins at level 1 only
    found = recommend.skim(pd.DataFrame(rows), "susy5_skim")
    assert found.agrees == "partly" and "level 5: 6.400 against 6.600" in found.measured


def test_branch_compression_against_the_uniform_settings_per_read():
    def point(alg, level, hot, branches, rate, size):
        return {**row(alg=alg, level=level, rate=rate, size=size, scans="branch_compression"),
                "branch_compression": hot, "branches": branches}  # fmt: skip

    rows = pd.DataFrame([
        point("lzma", 5, "uniform", "particle", 40, 0.80e8), point("lz4", 1, "uniform", "particle", 120, 1.3e8),
        point("lzma", 5, "largest4:lz4-1", "particle", 100, 0.95e8),  # between the two: on the front
        point("lzma", 5, "uniform", "all", 30, 0.80e8), point("lz4", 1, "uniform", "all", 110, 1.3e8),
        point("lzma", 5, "largest4:lz4-1", "all", 35, 1.4e8),  # larger and slower than LZ4-1: beaten
    ])  # fmt: skip
    found = recommend.branch_compression(rows, "xaod")
    assert found.agrees == "partly"
    assert "particle: lzma-5 + hot largest4:lz4-1" in found.measured
    assert "1.19x its size, 2.50x its rate" in found.measured  # against uniform LZMA-5 on the particle read
    assert "(beaten by uniform lz4-1)" in found.measured
    # A uniform point of another scan (ZSTD-5) that is smaller and faster than the particle read's hot point: the
    # hot point is not on the study's front after all.
    zstd = {**row(alg="zstd", level=5, rate=105, size=0.9e8, scans="compression"), "branches": "particle",
            "setting": "ZSTD-5"}  # fmt: skip
    found = recommend.branch_compression(rows, "xaod", pd.DataFrame([zstd]))
    assert found.agrees == "no" and "(but beaten by ZSTD-5 of another scan: " in found.measured


def test_float_precision_states_bytes_rate_and_precision_lost():
    def point(container, precision, rate, size):
        r = row(rate=rate, size=size, scans="float_precision")
        return {**r, "container": container, "float_precision": precision,
                "file_id": f"{container}_{precision}"}  # fmt: skip

    rows = pd.DataFrame([point("ttree", "full", 100, 1e8), point("ttree", "mantissa7", 104, 0.7e8),
                         point("rntuple", "full", 150, 0.9e8), point("rntuple", "mantissa7", 160, 0.5e8)])  # fmt: skip
    precision = pd.DataFrame([
        {"format": "xaod", "file_id": "ttree_mantissa7", "variable": "Muons.pt", "max_rel_error": 0.0038,
         "rms_rel_error": 0.0011},
        {"format": "xaod", "file_id": "ttree_mantissa7", "variable": "Muons.eta", "max_rel_error": 0.0039,
         "rms_rel_error": 0.0012},
        {"format": "xaod", "file_id": "rntuple_mantissa7", "variable": "Muons.pt", "max_rel_error": 0.0050,
         "rms_rel_error": 0.0011},  # beyond 2^-8 = 0.0039: more lost than 7 bits allow
    ])  # fmt: skip
    found = recommend.float_precision(rows, "xaod", precision)
    assert (
        "TTree zlib-5, mantissa7: 0.70x the full file's size (30 % saved), 1.04x its rate" in found.measured
    )
    assert "worst relative error 0.0039 (Muons.eta; bound 0.0039)" in found.measured
    assert found.agrees == "partly"  # the RNTuple file exceeds its bound
