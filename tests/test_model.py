"""The timed-loop model: its parts add up, each cache fill after the first hides one read-ahead window (RNTuple:
its next cluster) and the overlap is never more than the CPU time or the transfer, only requests that reach the
device pay its latency, and the physics checks are special cases of it."""

import pandas as pd
import pytest

from rootparams.model import model

HDD = model.Medium("hdd", 150e6, 0.0)
POINT = {"events_read": 1000, "loop_storage_read_bytes": 150e6, "loop_read_calls": 10, "storage_requests": 600,
         "events_per_cluster": 100, "container": "ttree", "cache_size": -1}  # fmt: skip
CPU = {"unzip_seconds": 0.4, "loop_seconds": 1.0}


def test_the_parts_add_up_to_the_loop():
    p = model.predict(POINT, CPU, HDD, read_ahead_bytes=0)
    assert p["decompression"] == pytest.approx(0.4) and p["deserialisation"] == pytest.approx(0.6)
    assert p["storage_transfer"] == pytest.approx(1.0)  # B / bandwidth: the bandwidth check is this part
    assert p["overlap"] == 0
    assert p["predicted_loop_seconds"] == pytest.approx(sum(p[k] for k in (*model._PARTS, "overlap")))
    assert p["predicted_rate_hz"] == pytest.approx(1000 / 2.0)


def test_each_fill_after_the_first_hides_one_read_ahead_window_and_no_more_than_the_cpu():
    window = 8 << 20
    p = model.predict(POINT, CPU, HDD, read_ahead_bytes=window)
    assert model._cache_fills(POINT) == 10
    # 9 of the 10 fills come after work on the one before: nothing precedes the first
    assert -p["overlap"] == pytest.approx(9 * window / 150e6)
    busy = model.predict(
        {**POINT, "events_per_cluster": 1}, {"unzip_seconds": 0.0, "loop_seconds": 0.1}, HDD, window
    )
    assert -busy["overlap"] == pytest.approx(0.1 * 999 / 1000)  # at most the CPU time there is
    no_cache = {**POINT, "cache_size": 0, "loop_read_calls": 7000}
    assert model._cache_fills(no_cache) == 7000
    one_fill = model.predict({**POINT, "events_per_cluster": 1000}, CPU, HDD, window)
    assert one_fill["overlap"] == 0  # one cluster: read before any work, nothing left after it


def test_the_overlap_never_exceeds_the_cpu_or_the_transfer():
    window = 8 << 20
    for container in ("ttree", "rntuple"):
        for per_cluster in (1, 10, 100, 1000):
            for cpu_seconds in (0.01, 0.5, 5.0):
                for nbytes in (1e6, 150e6, 1.5e9):
                    point = {**POINT, "container": container, "events_per_cluster": per_cluster}
                    point["loop_storage_read_bytes"] = nbytes
                    cpu = {"unzip_seconds": 0.3 * cpu_seconds, "loop_seconds": cpu_seconds}
                    p = model.predict(point, cpu, HDD, window)
                    assert 0 <= -p["overlap"] <= min(cpu_seconds, p["storage_transfer"]) + 1e-12
                    # what is left is at least the larger of the CPU and the storage
                    assert p["predicted_loop_seconds"] >= max(cpu_seconds, p["storage_transfer"]) - 1e-12


def test_rntuple_hides_its_next_cluster_behind_the_cpu_even_without_read_ahead():
    rntuple = {**POINT, "container": "rntuple"}  # 10 clusters of 15 MB, 0.1 s of transfer each
    p = model.predict(rntuple, CPU, HDD, read_ahead_bytes=0)
    # every cluster but the first: loaded while the one before is worked on
    assert -p["overlap"] == pytest.approx(0.9)
    ttree = model.predict(POINT, CPU, HDD, read_ahead_bytes=0)
    assert ttree["overlap"] == 0  # the TTreeCache reads when asked: without read-ahead nothing is hidden
    wan = model.predict({**rntuple, "loop_bytes_read": 150e6}, CPU, model.MEDIA["wan-50ms"], 8 << 20)
    assert -wan["overlap"] == pytest.approx(0.9 * 1.0)  # the cluster pool's I/O thread, not the kernel's


def test_only_the_requests_that_reach_the_device_pay_its_latency():
    disk = model.Medium("disk", 150e6, 1e-4, requests_per="device_request")
    many_calls = {**POINT, "loop_read_calls": 7000, "storage_requests": 600}
    # 7000 read calls, most served from pages the read-ahead brought in: 600 requests reached the device
    assert model.predict(many_calls, CPU, disk)["storage_requests"] == pytest.approx(600 * 1e-4)
    # 10 large read calls split into 600 requests, sent together: one latency per call
    few_calls = model.predict(POINT, CPU, disk)
    assert few_calls["storage_requests"] == pytest.approx(10 * 1e-4)
    unknown = {**many_calls, "storage_requests": float("nan")}
    assert model.predict(unknown, CPU, disk)["storage_requests"] == pytest.approx(7000 * 1e-4)
    per_call = model.Medium("disk", 150e6, 1e-4)
    assert model.predict(many_calls, CPU, per_call)["storage_requests"] == pytest.approx(7000 * 1e-4)


def test_the_measured_medium_charges_the_block_layers_bytes_at_the_block_layers_rate():
    _, storage, _, _ = _study()
    media, _ = model.media_from_storage(storage)
    assert media["hdd"].bandwidth_bps == 150e6  # no device count: fio's own rate
    assert media["hdd"].requests_per == "device_request"
    # fio read 140 MB/s; the device served 156 MB/s, the read-ahead beyond fio's last read included
    device = storage.assign(device_bandwidth_bps=storage["bandwidth_bps"] * 156 / 150)
    assert model.media_from_storage(device)[0]["hdd"].bandwidth_bps == pytest.approx(156e6)


def test_another_medium_and_another_cpu():
    slow = model.Medium("seeking disk", 150e6, 1 / 30)
    p = model.predict(POINT, CPU, slow, read_ahead_bytes=0, cpu_factor=2.0)
    assert p["storage_requests"] == pytest.approx(10 / 30)
    assert p["decompression"] == pytest.approx(0.8)
    throttled = model.Medium("hdd_seek", 150e6, 0.0, block_iops=50)
    # both limits: the longer of transfer (1 s) and requests (12 s) counts
    assert model.predict(POINT, CPU, throttled)["throttled_requests"] == pytest.approx(600 / 50 - 1.0)
    assert all(not m.measured and m.source for m in model.MEDIA.values())


def test_a_point_without_events_has_no_rate():
    assert model.predict({**POINT, "events_read": 0}, CPU, HDD)["predicted_rate_hz"] == 0


def _study(settings=(("zlib", 5),), fmt="xaod"):
    """The study's tables (the shapes the workflow writes; the numbers made up): one point per setting, 3 valid
    repetitions and a flagged one, native and hdd storage primitives, one warm set per file."""
    reps, files, summary, points, warm = [], [], [], [], []
    for i, (algorithm, level) in enumerate(settings):
        key = {"format": fmt, "file_id": f"{algorithm}-{level}", "read_id": "r1"}
        reps += [
            {
                **key,
                "flagged": False,
                "events_read": 1000,
                "loop_seconds": 2.0 + 0.02 * r,
                "loop_cpu_seconds": 1.0,
                "loop_unzip_seconds": 0.4,
                "loop_unzip_output_bytes": 4e8,
                "loop_disk_seconds": 0.9,
                "loop_storage_read_bytes": 150e6,
                "loop_bytes_read": 140e6,
                "loop_read_calls": 10,
                "storage_requests": 600,
                "container": "ttree",
                "cache_size": -1,
                "threads": 1,
                "storage_profile": "hdd",
            }
            for r in range(3)
        ]
        reps += [{**key, "flagged": True, "loop_seconds": 99.0}]
        files.append(
            {
                "format": fmt,
                "file_id": key["file_id"],
                "events_per_cluster": 100,
                "algorithm": algorithm,
                "level": level,
                "bytes_per_event": 1000.0 * (1 + i),
            }
        )
        summary.append(
            {
                **key,
                "event_rate_hz_mean": 495.0,
                "event_rate_hz_ci95_low": 490.0,
                "event_rate_hz_ci95_high": 500.0,
                "n": 3,
                "valid": True,
            }
        )
        points.append({**key, "scans": "compression"})
        warm.append(
            {
                "format": fmt,
                "file_id": key["file_id"],
                "stands_for_read_ids": "r1;r2",
                "warm_rate_hz_mean": 1000.0 / (1 + i),
                "unzip_cpu_s_per_mb_uncompressed_mean": 0.001 * (1 + i),
            }
        )
    storage = pd.DataFrame(
        [{"storage_profile": p, "pattern": pat, "io_mode": "buffered", "block_bytes": b, "bandwidth_bps": bw,
          "latency_s_mean": lat, "nominal_read_iops": None, "read_ahead_kb": 0}
         for p, bw in (("native", 1e9), ("hdd", 150e6))
         for pat, b, lat in (("sequential", 1 << 20, 1e-3), ("random", 4096, 1e-4))]
    )  # fmt: skip
    frames = [pd.DataFrame(x) for x in (reps, files, summary, points)]
    return model.study_points(*frames), storage, pd.DataFrame(warm), frames[1]


def test_a_study_is_predicted_from_its_primitives_and_judged_per_scan_and_profile():
    study, storage, warm, _ = _study()
    assert len(study) == 1 and study["loop_seconds"].iloc[0] == pytest.approx(
        2.02
    )  # the flagged one left out
    predicted = model.predicted_points(study, storage, warm)
    row = predicted.iloc[0]
    assert row["decompression"] == pytest.approx(0.4) and row["deserialisation"] == pytest.approx(0.6)
    assert row["storage_transfer"] == pytest.approx(1.0)
    assert row["storage_requests"] == pytest.approx(10 * (1e-4 - 4096 / 150e6))  # the disk's own latency
    assert row["rate_error"] == pytest.approx(row["predicted_rate_hz"] / 495.0 - 1)
    errors = model.errors_table(predicted)
    assert list(errors["group"]) == ["all", "scan", "storage_profile"]
    # deserialisation 0.6 s predicted, 2.02 - 0.9 - 0.4 = 0.72 s measured: the part most off
    assert (
        errors["meets_targets"].all()
        and (errors["part_most_off"] == "deserialisation -120 ms (median)").all()
    )
    assert model.errors_table(predicted.iloc[0:0]).empty


def test_the_page_cache_fill_runs_beside_the_transfer_the_slower_of_the_two_sets_the_pace():
    filled = model.Medium("hdd", 150e6, 0.0, fill_seconds_per_byte=1.5e-9)  # 1.5 ms per MB
    p = model.predict(POINT, CPU, filled, read_ahead_bytes=0)
    assert p["page_cache_fill"] == pytest.approx(150e6 * 1.5e-9)  # the block layer's bytes
    # 150 MB at 150 MB/s: 1 s of transfer, behind which the 0.225 s fill hides whole
    assert p["overlap"] == pytest.approx(-0.225)
    assert p["predicted_loop_seconds"] == pytest.approx(0.4 + 0.6 + 1.0)
    # a fast disk: the fill is the read's pace, and the 0.1 s transfer hides behind it
    fast = model.Medium("nvme", 1.5e9, 0.0, fill_seconds_per_byte=1.5e-9)
    p = model.predict(POINT, CPU, fast, read_ahead_bytes=0)
    assert p["predicted_loop_seconds"] == pytest.approx(0.4 + 0.6 + 0.225)
    # what is left of the transfer still hides behind the other CPU, no more than the read-ahead reaches
    window = 8 << 20
    p = model.predict(POINT, CPU, filled, read_ahead_bytes=window)
    assert -p["overlap"] == pytest.approx(0.225 + 9 * window / 150e6)
    for per_mb in (0.0, 0.5e-3, 2e-3, 20e-3):
        for medium in (model.Medium("a", 150e6, 0.0), model.Medium("b", 1.5e9, 0.0)):
            m = model.Medium(medium.name, medium.bandwidth_bps, 0.0, fill_seconds_per_byte=per_mb / 1e6)
            p = model.predict(POINT, CPU, m, read_ahead_bytes=window)
            busy = CPU["loop_seconds"] + p["page_cache_fill"]
            assert 0 <= -p["overlap"] <= min(busy, p["storage_transfer"]) + 1e-12
            assert p["predicted_loop_seconds"] >= max(busy, p["storage_transfer"]) - 1e-12
    study, storage, warm, _ = _study()
    assert model._page_cache_fill_seconds_per_byte(storage) == 0  # a table measured before the fill was
    fill_row = {"storage_profile": "native", "pattern": "page-cache fill", "io_mode": "buffered",
                "block_bytes": 1 << 20, "bandwidth_bps": 1.3e9, "fill_cpu_s_per_mb": 2e-3}  # fmt: skip
    storage = pd.concat([storage, pd.DataFrame([fill_row])], ignore_index=True)
    assert model._page_cache_fill_seconds_per_byte(storage) == pytest.approx(2e-9)
    media, _ = model.media_from_storage(storage)
    assert media["hdd"].fill_seconds_per_byte == pytest.approx(2e-9)
    assert media["hdd"].bandwidth_bps == 150e6  # the fill's row is not the sequential one
    # a local disk the host lacks pays this host's fill; a WAN's bytes never pass through the page cache
    # the cold loop's system CPU beyond the warm read's is the fill as it happened, beside the predicted one
    measured = model.predicted_points(
        study.assign(loop_system_cpu_seconds=1.0), storage, warm.assign(system_cpu_us_per_event_mean=100.0)
    )
    assert measured["measured_page_cache_fill"].iloc[0] == pytest.approx(1.0 - 100e-6 * 1000)
    assert model.errors_table(measured)["part_most_off"].str.startswith("page-cache fill").all()
    other = model.media_points(study, storage, warm)
    by_medium = other.set_index("medium")["page_cache_fill"]
    assert by_medium["nvme"] > 0 and by_medium["wan-50ms"] == 0


def test_a_remote_medium_pays_a_round_trip_per_cache_fill_for_what_root_asked_and_has_no_read_ahead():
    wan = model.MEDIA["wan-50ms"]
    p = model.predict({**POINT, "loop_bytes_read": 100e6}, CPU, wan, read_ahead_bytes=8 << 20)
    assert p["storage_requests"] == pytest.approx(10 * 0.05)  # 10 clusters: 10 vector reads
    assert p["storage_transfer"] == pytest.approx(100e6 / 100e6)  # ROOT's bytes, not the block layer's
    assert p["overlap"] == 0
    no_cache = model.predict({**POINT, "cache_size": 0, "loop_read_calls": 700}, CPU, wan)
    assert no_cache["storage_requests"] == pytest.approx(700 * 0.05)  # every read call a round trip


def test_media_the_host_lacks_are_predictions_of_every_valid_point():
    study, storage, warm, _ = _study((("zlib", 5), ("lzma", 5)))
    media = model.media_points(study, storage, warm)
    assert len(media) == 2 * len(model.MEDIA) and not media["measured"].any()
    assert set(media["medium"]) == set(model.MEDIA) and media["medium_figures"].str.len().gt(0).all()
    nvme = media[media["medium"] == "nvme"].set_index("file_id")
    # the same CPU parts as on the host; storage at 3 GB/s
    assert nvme.loc["zlib-5", "decompression"] == pytest.approx(0.4)
    assert nvme.loc["zlib-5", "storage_transfer"] == pytest.approx(150e6 / 3e9)


def test_the_note_testbed_table_scales_the_cpu_by_the_reference_rating_and_puts_the_note_beside_it():
    import math

    study, storage, warm, files = _study((("zlib", 5), ("lzma", 5)))
    reference = model.ReferenceCpu("a testbed CPU", 2000.0, "stated")
    table = model.note_testbed_table(study, storage, warm, files, host_mips=4000.0, reference=reference)
    assert list(table["algorithm"]) == ["zlib", "lzma"] and (table["cpu_factor"] == 2.0).all()
    zlib = table.iloc[0]
    assert zlib["decompression_ms_per_event"] == pytest.approx(
        2 * 0.4
    )  # 0.4 s over 1000 events, twice as slow
    assert zlib["note_rate_hz"] == 59.4 and zlib["note_size_relative"] == 1.0 and zlib["size_relative"] == 1.0
    assert zlib["predicted_rate_hz_low"] <= zlib["predicted_rate_hz"] <= zlib["predicted_rate_hz_high"]
    assert model._note_ratio(table, "note_rate_hz") == pytest.approx(59.4 / 15.5)
    # the factor the note's ZLIB-5 rate needs: its 16.8 ms per event less the testbed's storage, over this host's
    # 1 ms of CPU per event (1.0 s of warm loop for 1000 events)
    storage_ms = zlib["testbed_storage_ms_per_event"]
    assert zlib["host_cpu_ms_per_event"] == pytest.approx(1.0)
    assert zlib["cpu_factor_fit_sum"] == pytest.approx(1e3 / 59.4 - storage_ms)
    assert zlib["predicted_rate_hz_full_overlap"] == pytest.approx(1e3 / max(2.0, storage_ms))
    text = model.note_testbed_markdown(table, 4000.0, reference)
    assert "x 2.00" in text and "ZLIB-5 / LZMA-5 event rate: note 3.83" in text
    assert math.isnan(model.cpu_factor(math.nan, reference))
    assert "no factor" in model.note_testbed_markdown(table, math.nan, reference)
    # a study without the primary xAOD (e.g. one format, measured adaptively): nothing to predict, said so
    others = study.assign(format="truth3")
    empty = model.note_testbed_table(others, storage, warm, files, host_mips=4000.0, reference=reference)
    assert empty.empty and "Nothing to predict" in model.note_testbed_markdown(empty, 4000.0, reference)


def test_the_figures_draw_parts_and_media():
    study, storage, warm, _ = _study((("zlib", 5), ("lzma", 5)))
    predicted = model.predicted_points(study, storage, warm)
    model.draw_parts(predicted, "xaod")
    model.draw_parts(predicted, "truth3")  # none of its points: says so
    model.draw_media(predicted, model.media_points(study, storage, warm))
    assert sorted(model._point_labels(predicted)) == ["lzma-5", "zlib-5"]


# --- The model against baselines, and its frozen rules ----------------------------------------------------------


def _hand_made(rows):
    """predicted_points' rows for points whose answers are known: (scan, profile, events, warm CPU s, transfer s,
    the model's predicted loop s, measured loop s)."""
    table = pd.DataFrame(
        [
            {"model_version": model.MODEL_VERSION, "format": "truth3", "file_id": f"f{i}", "read_id": "r",
             "scans": scan, "storage_profile": profile, "events_read": events, "warm_cpu_seconds": warm,
             "storage_transfer": transfer, "predicted_loop_seconds": loop, "predicted_rate_hz": events / loop,
             "measured_rate_hz": events / measured, "rate_error": measured / loop - 1}
            for i, (scan, profile, events, warm, transfer, loop, measured) in enumerate(rows)
        ]
    )  # fmt: skip
    return model._with_baselines(table)


def test_each_baseline_predicts_from_the_warm_read_and_the_transfer_alone():
    # 1 s of warm CPU, 0.5 s of transfer; the loop measured 1.25 s, the model said 1.2 s
    p = _hand_made([("compression", "hdd", 1000, 1.0, 0.5, 1.2, 1.25)]).iloc[0]
    assert p["baseline_warm_cpu_loop_seconds"] == pytest.approx(1.0)
    assert p["baseline_transfer_loop_seconds"] == pytest.approx(0.5)
    assert p["baseline_max_loop_seconds"] == pytest.approx(1.0)
    assert p["baseline_sum_loop_seconds"] == pytest.approx(1.5)
    # the rate's error is the measured loop over the predicted one, less 1
    assert p["baseline_warm_cpu_rate_error"] == pytest.approx(1.25 / 1.0 - 1)
    assert p["baseline_transfer_rate_error"] == pytest.approx(1.25 / 0.5 - 1)
    assert p["baseline_max_rate_error"] == pytest.approx(0.25)
    assert p["baseline_sum_rate_error"] == pytest.approx(1.25 / 1.5 - 1)
    assert p["baseline_sum_rate_hz"] == pytest.approx(1000 / 1.5)
    assert p["warm_share"] == pytest.approx(1.0 / 1.2)  # of the prediction, the warm read of the same file
    nothing_read = _hand_made([("compression", "hdd", 1000, 1.0, 0.0, 1.0, 1.0)]).iloc[0]
    assert (
        nothing_read["baseline_transfer_rate_hz"] != nothing_read["baseline_transfer_rate_hz"]
    )  # no time: no rate
    assert nothing_read["baseline_max_rate_error"] == pytest.approx(0.0)
    assert model._with_baselines(pd.DataFrame()).empty


def test_the_baselines_table_judges_every_predictor_on_the_same_points_per_group():
    rows = [
        # a CPU-bound point: the warm read is the loop, the transfer hides behind it
        ("compression", "hdd", 1000, 1.0, 0.2, 1.0, 1.0),
        # a storage-bound one: the transfer is the loop
        ("compression;autoflush", "hdd", 1000, 0.2, 1.0, 1.0, 1.0),
        # neither hides the other (no read-ahead): the sum
        ("autoflush", "native", 1000, 0.5, 0.5, 1.0, 1.0),
    ]
    table = model.baselines_table(_hand_made(rows))
    assert list(zip(table["group"], table["value"], table["points"], strict=True)) == [
        ("all", "all", 3),
        ("scan", "autoflush", 2),
        ("scan", "compression", 2),
        ("storage_profile", "hdd", 2),
        ("storage_profile", "native", 1),
    ]
    everything = table.iloc[0]
    assert everything["model_median_abs_error"] == pytest.approx(0.0)
    # warm CPU alone: rate errors 0, 4 (0.2 s for 1 s) and 1 (0.5 s for 1 s)
    assert everything["warm_cpu_median_abs_error"] == pytest.approx(1.0)
    assert everything["warm_cpu_p90_abs_error"] == pytest.approx(1.0 + 0.8 * 3.0)
    assert everything["max_median_abs_error"] == pytest.approx(0.0)  # 0, 0, 1
    assert everything["sum_median_abs_error"] == pytest.approx(abs(1 / 1.2 - 1))  # |-1/6|, |-1/6|, 0
    assert everything["best_baseline"] == "max"
    assert everything["median_warm_share"] == pytest.approx(0.5)  # 1.0, 0.2, 0.5
    hdd = table[table["value"] == "hdd"].iloc[0]
    assert hdd["max_median_abs_error"] == 0 and hdd["best_baseline"] == "max"
    native = table[table["value"] == "native"].iloc[0]
    assert native["best_baseline"] == "sum" and native["sum_median_abs_error"] == pytest.approx(0.0)
    text = model.baselines_markdown(table)
    assert f"version {model.MODEL_VERSION}" in text
    assert "| all | 3 | 50.0 % | 0.0 % (0.0 %) | 100.0 % (340.0 %) |" in text
    assert "**0.0 % (0.0 %)**" in text  # the best baseline marked
    # here a baseline does as well as the model: the table says where
    assert "at or below the model's: all (max of the two)" in text
    assert "storage profile: native (sum of the two)" in text
    assert model.baselines_table(_hand_made(rows).iloc[0:0]).empty
    assert "nothing predicted" in model.baselines_markdown(model.baselines_table(pd.DataFrame()))


def test_a_study_writes_its_baselines_and_the_warm_reads_share_beside_the_model():
    study, storage, warm, _ = _study()
    row = model.predicted_points(study, storage, warm).iloc[0]
    # the warm set: 1000 events at 1000 Hz, 1 s; the transfer 150 MB at 150 MB/s, 1 s; measured 495 Hz
    assert row["warm_cpu_seconds"] == pytest.approx(1.0)
    assert row["baseline_warm_cpu_rate_error"] == pytest.approx(1000 / 495 - 1)
    assert row["baseline_transfer_rate_error"] == pytest.approx(1000 / 495 - 1)
    assert row["baseline_max_rate_error"] == pytest.approx(1000 / 495 - 1)
    assert row["baseline_sum_rate_error"] == pytest.approx(500 / 495 - 1)
    assert row["warm_share"] == pytest.approx(1.0 / row["predicted_loop_seconds"])
    table = model.baselines_table(model.predicted_points(study, storage, warm))
    assert table.iloc[0]["best_baseline"] == "sum"


def test_every_table_of_predictions_names_the_rules_that_made_it():
    import re

    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}\.\d+", model.MODEL_VERSION)
    study, storage, warm, files = _study((("zlib", 5), ("lzma", 5)))
    predicted = model.predicted_points(study, storage, warm)
    for table in (
        predicted,
        model.errors_table(predicted),
        model.baselines_table(predicted),
        model.media_points(study, storage, warm),
        model.note_testbed_table(study, storage, warm, files, 4000.0),
    ):
        assert (table["model_version"] == model.MODEL_VERSION).all() and len(table)
    assert "model_version" in model.errors_table(predicted.iloc[0:0]).columns
    assert f"version {model.MODEL_VERSION}" in model.note_testbed_markdown(
        model.note_testbed_table(study, storage, warm, files, 4000.0), 4000.0
    )


# The loops the rules predict for a few fixed points, per version of the rules. A rule changed (the test fails):
# give the model a new MODEL_VERSION and add its figures here, so that no table quotes an error for rules that
# did not make it.
FROZEN_LOOPS = {
    "2026-11-28.1": [
        1.49768352, 12.49768352, 1.2, 1.025634176,
        1.3035, 12.101, 1.2, 1.0058,
        1.2851107142857146, 12.060142857142857, 141.0, 1.560007142857143,
        1.23375, 12.011, 2.4, 1.0013,
    ],
}  # fmt: skip


def _frozen_predictions() -> list[float]:
    window = 8 << 20
    fill = model.Medium("hdd", 150e6, 1e-4, requests_per="device_request", fill_seconds_per_byte=1.5e-9)
    seek = model.Medium("hdd_seek", 150e6, 1e-4, block_iops=50, requests_per="device_request")
    remote = model.Medium("wan", 100e6, 20e-3, requests_per="round_trip", read_ahead=False)
    points = [
        POINT,
        {**POINT, "container": "rntuple"},
        {**POINT, "cache_size": 0, "loop_read_calls": 7000},
        {**POINT, "events_per_cluster": 10, "loop_bytes_read": 120e6},
    ]
    return [
        model.predict(p, CPU, medium, window)["predicted_loop_seconds"]
        for p in points
        for medium in (fill, seek, remote, model.MEDIA["nvme"])
    ]


def test_the_rules_are_frozen_under_their_version():
    assert model.MODEL_VERSION in FROZEN_LOOPS, "a new version of the rules: add its figures to FROZEN_LOOPS"
    assert _frozen_predictions() == pytest.approx(FROZEN_LOOPS[model.MODEL_VERSION], rel=1e-9), (
        f"the model's rules predict other loops than version {model.MODEL_VERSION} did: a rule changed; change "
        "model.MODEL_VERSION and add the new figures"
    )
