"""Flag rules, window validity, retries and resumable records of a point's repetitions (the parts around the
real measurement, with a fake attempt), and the CPU accounting that tells other processes from steal."""

import contextlib
import json
import os
import resource
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from test_monitor import DOOL_BYTES

from rootparams.measure import measure
from rootparams.study.config import load_study_config

MEASUREMENT = load_study_config({})["measurement"]
# The fake points make no reads, so no reader server either; and their host lock is their own, so that a
# study running on the same host does not make them wait.
FAKE = {
    **MEASUREMENT,
    "reader_process": "exec",
    "host_lock": os.path.join(tempfile.mkdtemp(), "lock"),
    "makeup_rounds": 0,
}


def record(**overrides):
    base = {
        "cpu_busy_during": 0.01,
        "cpu_steal_during": 0.0,
        "process_storage_read_bytes": 11e6,
        "process_bytes_read": 10e6,
        "disk_read_bytes_others": 0,
        "loop_io_share": 0.98,
        "loop_storage_share": 0.97,
        "loop_seconds": 2.0,
        "note_window_io_share": 0.6,
        "note_window_storage_share": 0.6,
        "note_window_seconds": 1.5,
    }
    return {**base, **overrides}


def test_a_quiet_repetition_is_not_flagged():
    assert measure.flag_reasons(record(), MEASUREMENT, cold=True) == []


@pytest.mark.parametrize(
    ("overrides", "reason"),
    [
        ({"cpu_busy_during": 0.5}, "busy machine: other processes used 50% of the CPUs during the read"),
        ({"cpu_steal_during": 0.2}, "CPU stolen by the hypervisor: 20% during the read"),
        ({"process_storage_read_bytes": 1e6}, "the kernel fetched 0.10x the bytes ROOT read from storage"),
        ({"disk_read_bytes_others": 40e6}, "other processes read 40 MB from the disk during the read"),
    ],
)
def test_each_broken_condition_is_named(overrides, reason):
    assert measure.flag_reasons(record(**overrides), MEASUREMENT, cold=True) == [reason]


def test_read_ahead_beyond_what_the_reader_asked_for_is_kept_not_flagged():
    """A cold read the kernel served with more bytes than the reader asked for (its read-ahead around scattered
    small requests: uproot's analysis reads fetch 1.6x) is what that read costs on this disk, the same in every
    repetition: not a failed condition, so not flagged and retried. Fewer bytes than the reader read means part of
    the file was in memory: flagged."""
    tolerance = MEASUREMENT["disk_crosscheck_tolerance"]
    for storage_bytes in (1.6e7, 3e7, 1e8):
        assert (
            measure.flag_reasons(record(process_storage_read_bytes=storage_bytes), MEASUREMENT, cold=True)
            == []
        )
    just_under = (1 - tolerance) * 10e6 * 0.99
    assert measure.flag_reasons(record(process_storage_read_bytes=just_under), MEASUREMENT, cold=True) == [
        f"the kernel fetched {just_under / 10e6:.2f}x the bytes ROOT read from storage"
    ]


def test_a_read_in_a_slow_memory_spell_is_flagged_only_when_asked_for():
    probes = {"memory_probe_before_seconds": 0.100, "memory_probe_after_seconds": 0.125}
    slow = record(**probes, memory_probe_fastest_seconds=0.100)
    assert measure._memory_slowdown(slow) == pytest.approx(0.25)
    assert MEASUREMENT["max_memory_slowdown"] is None  # the default records the probes, flags nothing
    assert measure.flag_reasons(slow, MEASUREMENT, cold=True) == []
    strict = {**MEASUREMENT, "max_memory_slowdown": 0.15}
    assert measure.flag_reasons(slow, strict, cold=True) == [
        "host memory slow: the probe around the read took +25% over the point's fastest"
    ]
    assert measure.flag_reasons(record(**probes, memory_probe_fastest_seconds=0.115), strict, cold=True) == []
    # No probe (reader "exec", or memory_probe_loads 0): nothing to judge.
    assert measure._memory_slowdown(record()) is None
    assert measure.flag_reasons(record(), strict, cold=True) == []


def test_storage_crosscheck_needs_a_cold_read_of_enough_bytes():
    assert measure.flag_reasons(record(process_storage_read_bytes=0), MEASUREMENT, cold=False) == []
    small = record(process_storage_read_bytes=0, process_bytes_read=1e6)
    assert measure.flag_reasons(small, MEASUREMENT, cold=True) == []


def test_a_loop_that_holds_its_io_and_lasts_is_valid():
    assert measure._window_problems(record(), MEASUREMENT) == []
    # The note's window of the same read misses the first cluster: it is judged on its own.
    assert measure._window_problems(record(), MEASUREMENT, "note_window") == [
        "the timed note_window holds 60% of the read's I/O (ROOT's bytes; < 90%)",
        "the timed note_window holds 60% of the read's I/O (storage bytes; < 90%)",
    ]


@pytest.mark.parametrize(
    ("overrides", "problem"),
    [
        ({"loop_io_share": 0.5}, "the timed loop holds 50% of the read's I/O (ROOT's bytes; < 90%)"),
        ({"loop_storage_share": 0.8}, "the timed loop holds 80% of the read's I/O (storage bytes; < 90%)"),
        ({"loop_seconds": 0.4}, "the timed loop lasts 0.4 s (< 1 s)"),
    ],
)
def test_a_loop_that_misses_io_or_is_too_short_is_invalid(overrides, problem):
    assert measure._window_problems(record(**overrides), MEASUREMENT) == [problem]


def test_a_warm_read_has_no_storage_share_and_is_judged_on_roots_bytes():
    assert measure._window_problems(record(loop_storage_share=None), MEASUREMENT) == []


@pytest.fixture
def fake_point(monkeypatch, tmp_path):
    """measure_point with the real attempt replaced by a scripted sequence of flagged/clean outcomes."""

    def install(outcomes, reps=(0,)):
        calls = iter(outcomes)

        def attempt(*args, **kwargs):
            reason = next(calls)
            return {"flagged": bool(reason), "flag_reasons": reason, "event_rate_hz": 1.0}

        monkeypatch.setattr(measure, "_attempt", attempt)
        monkeypatch.setattr(measure.storage, "check_throttling_possible", lambda *a: None)
        monkeypatch.setattr(measure.storage, "point_group", lambda *a, **k: contextlib.nullcontext())
        monkeypatch.setattr(measure, "find_monitor", lambda choice: None)
        path = tmp_path / "f.root"
        path.write_bytes(b"x")
        records = {rep: str(tmp_path / f"rep{rep}.json") for rep in reps}
        return dict(
            root_file=str(path),
            warmup_file="w",
            reader="r",
            events=2,
            read={"storage_profile": "native"},
            monitor_csv=str(tmp_path / "m.csv"),
            records=records,
            labels={"format": "xaod"},
        )

    return install


def test_a_flagged_attempt_is_retried_and_the_record_says_so(fake_point):
    kwargs = fake_point(["busy machine: 50%", ""], reps=(3,))
    (rec,) = measure.measure_point(measurement=FAKE, **kwargs)
    assert rec["flagged"] is False and rec["attempt"] == 2 and rec["rep"] == 3 and rec["format"] == "xaod"
    assert rec["discarded_attempts"] == "attempt 1: busy machine: 50%"
    assert json.loads(Path(kwargs["records"][3]).read_text()) == {
        k: v for k, v in rec.items() if k != "reused"
    }


def test_when_every_attempt_is_flagged_the_last_is_kept_flagged(fake_point):
    kwargs = fake_point(["a", "b", "c"])
    (rec,) = measure.measure_point(measurement=FAKE, **kwargs)
    assert rec["flagged"] is True and rec["attempt"] == 3 and rec["flag_reasons"] == "c"
    assert rec["discarded_attempts"] == "attempt 1: a | attempt 2: b"


def test_every_repetition_of_a_point_gets_its_own_record(fake_point):
    kwargs = fake_point(["", "", ""], reps=(0, 1, 2))
    recs = measure.measure_point(measurement=FAKE, **kwargs)
    assert [r["rep"] for r in recs] == [0, 1, 2]
    assert all(json.loads(Path(kwargs["records"][r]).read_text())["rep"] == r for r in (0, 1, 2))


def test_a_rerun_keeps_the_repetitions_already_taken_and_measures_only_the_missing(fake_point):
    kwargs = fake_point(
        ["", "", ""], reps=(0, 1)
    )  # three attempts in all: 2 in the first run, 1 in the rerun
    first = measure.measure_point(measurement=FAKE, **kwargs)
    kwargs["records"][2] = kwargs["records"][1].replace("rep1", "rep2")  # the rerun asks for one more
    again = measure.measure_point(measurement=FAKE, **kwargs)
    assert [r["reused"] for r in again] == [True, True, False] and [r["rep"] for r in again] == [0, 1, 2]
    assert {k: v for k, v in again[0].items() if k != "reused"} == {
        k: v for k, v in first[0].items() if k != "reused"
    }


def test_a_record_taken_under_other_settings_is_measured_again(fake_point, tmp_path):
    kwargs = fake_point(["", ""], reps=(0,))
    kwargs["labels"]["measurement_key"] = "aaa"
    measure.measure_point(measurement=FAKE, **kwargs)
    kwargs["labels"]["measurement_key"] = "bbb"
    (rec,) = measure.measure_point(measurement=FAKE, **kwargs)
    assert rec["reused"] is False and rec["measurement_key"] == "bbb"


def test_cpu_accounting_tells_other_processes_from_the_reader_and_from_steal():
    # A child burning ~0.4 s of CPU is the "reader": its time must not count as the machine being busy.
    before, usage_before = measure.CpuTimes.now(), resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        ["sh", "-c", "end=$(($(date +%s%N) + 400000000)); while [ $(date +%s%N) -lt $end ]; do :; done"]
    )
    after, usage_after = measure.CpuTimes.now(), resource.getrusage(resource.RUSAGE_CHILDREN)
    reader = sum(getattr(usage_after, f) - getattr(usage_before, f) for f in ("ru_utime", "ru_stime"))
    busy, steal = measure._cpu_use_between(before, after, reader)
    assert reader > 0.2
    assert 0.0 <= busy < 0.5 and 0.0 <= steal <= 1.0
    # Without subtracting the reader, the same interval looks busy.
    assert measure._cpu_use_between(before, after, 0.0)[0] > busy


def test_cpu_use_of_an_idle_wait_is_small_and_bounded():
    before = measure.CpuTimes.now()
    time.sleep(0.2)
    busy, steal = measure._cpu_use_between(before, measure.CpuTimes.now(), 0.0)
    assert 0.0 <= busy <= 1.0 and 0.0 <= steal <= 1.0 and busy + steal <= 1.0


def test_a_kept_record_of_a_stopped_run_gets_its_monitor_samples(fake_point, tmp_path):
    kwargs = fake_point([""], reps=(0,))
    csv = tmp_path / "monitor.csv"
    csv.write_text(DOOL_BYTES)
    path = Path(kwargs["records"][0])
    path.write_text(
        json.dumps(
            {
                "loop_start_time": 100.2,
                "end_time": 101.5,
                "process_start_time": 100.0,
                "monitor_csv": str(csv),
                "complete": False,
                "flagged": False,
            }
        )
    )
    (rec,) = measure.measure_point(measurement=FAKE, **kwargs)
    assert rec["reused"] is True and rec["complete"] is True and rec["mon_monitor_samples"] == 2
    assert json.loads(path.read_text())["complete"] is True


def test_an_async_prefetch_read_has_no_perfstats_read_figures_and_is_judged_by_the_files_bytes():
    # PerfStats does not see TFilePrefetch's thread: 0 loop read calls were recorded for a read of 15.3 MB.
    record = {
        "loop_read_calls": 0,
        "loop_bytes_read": 0,
        "loop_io_share": 0.0,
        "process_bytes_read": 80026,
        "file_bytes_read_useful": 15_252_531,
        "loop_seconds": 2.0,
        "loop_cpu_seconds": 0.3,
    }
    measure._blind_to_prefetch(record)
    assert all(record[k] != record[k] for k in ("loop_read_calls", "loop_bytes_read", "loop_io_share"))
    assert "prefetch thread" in record["io_counters_note"] and record["loop_seconds"] == 2.0
    assert measure._root_bytes_read(record) == 15_252_531
    window = measure._window_problems(record, {"min_window_io_share": 0.9, "min_window_seconds": 1.0})
    assert window == []  # no share to judge: its length only


# Blocks: interleaved, shuffled rounds -----------------------------------------------------------------------------


@pytest.fixture
def fake_block(monkeypatch, tmp_path):
    """measure_block over ``n`` fake points whose attempts return ``outcome(point, rep, attempt)`` (a flag reason
    or ""); every attempt is logged in ``calls`` in the order it was made."""

    def install(n=3, reps=4, outcome=lambda point, rep, attempt: ""):
        calls = []

        def attempt(instrument, where, root_file, events, read, measurement, tag):
            name = Path(root_file).stem
            rep = int(tag.split("-rep")[1].split("-")[0]) if "-rep" in tag else -1
            number = int(tag.rsplit("-", 1)[1])
            calls.append((name, rep))
            if name == "damaged":
                raise measure.DamagedFileError(f"{root_file}: not a ROOT file")
            if name == "unreadable" and rep > 0:
                raise measure.ReadError(f"{root_file}: branch selection 'particle' needs particle containers")
            reason = outcome(name, rep, number)
            return {
                "flagged": bool(reason),
                "flag_reasons": reason,
                "event_rate_hz": 1.0,
                "loop_seconds": 1.0,
            }

        monkeypatch.setattr(measure, "_attempt", attempt)
        monkeypatch.setattr(measure.storage, "check_throttling_possible", lambda *a: None)
        monkeypatch.setattr(measure.storage, "point_group", lambda *a, **k: contextlib.nullcontext())
        monkeypatch.setattr(measure, "find_monitor", lambda choice: None)
        points = []
        for i in range(n):
            name = "damaged" if i == 1 and n < 0 else f"p{i}"
            path = tmp_path / f"{name}.root"
            path.write_bytes(b"x")
            records = {rep: str(tmp_path / name / f"rep{rep}.json") for rep in range(reps)}
            points.append(
                measure.PlannedPoint(
                    str(path),
                    2,
                    {"storage_profile": "native"},
                    {"format": "xaod", "file_id": name, "read_id": "r"},
                    records,
                )
            )
        kwargs = dict(block="xaod", points=points, reader="r", monitor_csv=str(tmp_path / "m.csv"), seed=7)
        return kwargs, calls

    return install


def test_repetition_k_of_every_point_comes_before_repetition_k_plus_1_of_any_in_a_shuffled_order(fake_block):
    kwargs, calls = fake_block(n=5, reps=4)
    result = measure.measure_block(measurement=FAKE, **kwargs)
    assert [rep for _, rep in calls] == sorted(rep for _, rep in calls)  # rounds in order
    orders = [[name for name, rep in calls if rep == k] for k in range(4)]
    assert all(sorted(o) == [f"p{i}" for i in range(5)] for o in orders)
    assert len({tuple(o) for o in orders}) > 1  # shuffled anew in each round
    # The order is recorded, reproducible from the seed, and every record knows its round and its pair key.
    assert [s["order"] for s in result.schedule] == [
        [f"xaod {n} r rep{k}" for n in o] for k, o in enumerate(orders)
    ]
    assert measure.schedule(kwargs["points"], "xaod", 7) == measure.schedule(kwargs["points"], "xaod", 7)
    rec = result.records[0][2]
    assert (
        rec["round"] == 2
        and rec["round_key"].endswith("/r2")
        and rec["order_in_round"] == orders[2].index("p0")
    )
    assert len({r["round_key"] for recs in result.records for r in recs}) == 4  # one key per round, shared


def test_sequential_order_measures_every_repetition_of_a_point_before_the_next_and_pairs_nothing(fake_block):
    kwargs, calls = fake_block(n=3, reps=2)
    result = measure.measure_block(measurement={**FAKE, "order": "sequential"}, **kwargs)
    assert calls == [("p0", 0), ("p0", 1), ("p1", 0), ("p1", 1), ("p2", 0), ("p2", 1)]
    assert all(r["round_key"] is None for recs in result.records for r in recs)


def test_a_resumed_block_measures_only_the_missing_repetitions_in_their_rounds(fake_block):
    kwargs, calls = fake_block(n=3, reps=3)
    measure.measure_block(measurement=FAKE, **kwargs)
    Path(kwargs["points"][1].records[2]).unlink()  # a crash lost one record
    Path(kwargs["points"][0].records[1]).unlink()
    calls.clear()
    result = measure.measure_block(measurement=FAKE, **kwargs)
    assert sorted(calls) == [("p0", 1), ("p1", 2)] and [r for _, r in calls] == [1, 2]
    assert sum(not r["reused"] for recs in result.records for r in recs) == 2


def test_a_point_short_of_unflagged_repetitions_is_measured_again_in_a_makeup_round(fake_block):
    # p0's repetitions 0-2 stay flagged through their attempts in the rounds; measured again, they are clean.
    flagged = {("p0", 0), ("p0", 1), ("p0", 2)}
    seen: set = set()

    def outcome(name, rep, attempt):
        if (name, rep) in flagged and (name, rep) not in seen:
            if attempt == FAKE["attempts"]:
                seen.add((name, rep))
            return "busy machine: 50%"
        return ""

    kwargs, _ = fake_block(n=2, reps=10, outcome=outcome)
    result = measure.measure_block(measurement={**FAKE, "makeup_rounds": 1, "min_repetitions": 8}, **kwargs)
    p0 = result.records[0]
    assert sum(not r["flagged"] for r in p0) == 10
    makeup = [r for r in p0 if r["makeup_round"]]
    assert {r["rep"] for r in makeup} == {0, 1, 2} and all(r["round"] == 10 for r in makeup)
    assert not any(r["makeup_round"] for r in result.records[1])  # p1 had all its repetitions


def test_a_damaged_file_leaves_the_other_points_measured_and_fails_the_block_at_the_end(fake_block, tmp_path):
    kwargs, calls = fake_block(n=3, reps=3)
    damaged = tmp_path / "damaged.root"
    damaged.write_bytes(b"x")
    kwargs["points"][1] = measure.PlannedPoint(
        str(damaged),
        2,
        {"storage_profile": "native"},
        {"format": "xaod", "file_id": "damaged", "read_id": "r"},
        {rep: str(tmp_path / "damaged" / f"rep{rep}.json") for rep in range(3)},
    )
    with pytest.raises(measure.PointFailed) as info:
        measure.measure_block(measurement=FAKE, **kwargs)
    assert info.value.damaged == [str(damaged)] and "damaged r" in str(info.value)
    assert [n for n, _ in calls].count("damaged") == 1  # tried once, then left out of the block
    assert all(Path(kwargs["points"][i].records[rep]).exists() for i in (0, 2) for rep in range(3))


def test_a_point_the_reader_cannot_read_is_a_result_of_the_block_not_a_failure_of_it(fake_block, tmp_path):
    # The reader refuses the point's file at its selection from its second repetition on: the point is recorded as
    # failed with the reader's reason and the repetition it had; every other point is measured; nothing is raised.
    kwargs, calls = fake_block(n=3, reps=3)
    unreadable = tmp_path / "unreadable.root"
    unreadable.write_bytes(b"x")
    kwargs["points"][1] = measure.PlannedPoint(
        str(unreadable),
        2,
        {"storage_profile": "native"},
        {"format": "xaod", "file_id": "unreadable", "read_id": "r", "origin": "rewrite"},
        {rep: str(tmp_path / "unreadable" / f"rep{rep}.json") for rep in range(3)},
    )
    said = []
    result = measure.measure_block(measurement=FAKE, say=said.append, **kwargs)
    assert list(result.failed) == [1] and "needs particle containers" in result.failed[1]
    assert [n for n, _ in calls].count("unreadable") == 2  # rep 0 taken, rep 1 refused, then left out
    assert [r["rep"] for r in result.records[1]] == [0]
    assert all(len(result.records[i]) == 3 for i in (0, 2))
    assert unreadable.exists()  # not damaged: nothing to write again
    assert any("recorded as failed" in line and "unreadable" in line for line in said)
    with pytest.raises(measure.ReadError, match="needs particle containers"):  # a point measured on its own
        measure.measure_point(
            root_file=str(unreadable),
            warmup_file=str(unreadable),
            reader="r",
            events=2,
            read={"storage_profile": "native"},
            measurement=FAKE,
            monitor_csv=str(tmp_path / "m2.csv"),
            records={rep: str(tmp_path / "alone" / f"rep{rep}.json") for rep in range(2)},
            labels={"format": "xaod", "file_id": "unreadable", "read_id": "r"},
        )


def test_a_damaged_user_file_is_never_removed_and_is_the_points_result(fake_block, tmp_path):
    kwargs, _ = fake_block(n=2, reps=2)
    damaged = tmp_path / "damaged.root"  # the fake reader says every "damaged" file is damaged
    damaged.write_bytes(b"x")
    kwargs["points"][0] = measure.PlannedPoint(
        str(damaged),
        2,
        {"storage_profile": "native"},
        {"format": "mine", "file_id": "asis", "read_id": "r", "origin": "asis"},
        {rep: str(tmp_path / "asis" / f"rep{rep}.json") for rep in range(2)},
    )
    result = measure.measure_block(measurement=FAKE, **kwargs)
    assert list(result.failed) == [0] and "not a ROOT file" in result.failed[0]
    assert damaged.exists()


def test_the_drift_sentinel_is_read_at_the_start_and_the_end_of_a_block_and_at_its_interval(
    fake_block, tmp_path
):
    kwargs, calls = fake_block(n=2, reps=2)
    path = tmp_path / "sentinel.root"
    path.write_bytes(b"x")
    point = measure.PlannedPoint(
        str(path),
        2,
        {"storage_profile": "native"},
        {"format": "xaod", "file_id": "sentinel", "read_id": "r"},
        {},
    )
    rare = measure.Sentinel(point, str(tmp_path / "sentinel"), every_seconds=1e9)
    result = measure.measure_block(measurement=FAKE, sentinel=rare, **kwargs)
    assert [n for n, _ in calls] == ["sentinel", *[n for n, _ in calls[1:-1]], "sentinel"]
    assert len(result.sentinel_records) == 2
    record = json.loads(Path(result.sentinel_records[0]).read_text())
    assert record["sentinel"] is True and record["round_key"] is None and record["file_id"] == "sentinel"
    for p in kwargs["points"]:
        for rec in p.records.values():
            Path(rec).unlink()
    calls.clear()
    often = measure.Sentinel(point, str(tmp_path / "sentinel"), every_seconds=0)
    measure.measure_block(measurement=FAKE, sentinel=often, **kwargs)
    assert [n for n, _ in calls].count("sentinel") == 2 + 4  # before every read, and at both ends


def test_sequential_rounds_read_the_members_of_open_pairs_first_and_fit_the_budget():
    inf = float("inf")
    # Points 0-5; pairs (0, 1) and (2, 3) open, points 4 and 5 open on their own interval only.
    open_points = {0: 0.03, 4: 0.05, 5: 0.025}
    open_pairs = {(0, 1): 0.04, (2, 3): 0.021}
    counts = [10] * 6
    # Room for everything: the pairs' members only, never a point open on its own while a pair is.
    assert measure._sequential_wanted(open_points, open_pairs, counts, 20, 6) == [0, 1, 2, 3]
    # Room for two reads: the pair nearest its target.
    assert measure._sequential_wanted(open_points, open_pairs, counts, 20, 2) == [2, 3]
    # No room: nothing (the block stops on its budget).
    assert measure._sequential_wanted(open_points, open_pairs, counts, 20, 1) == []
    # A pair's member at its most repetitions is not read; the other member is.
    assert measure._sequential_wanted(open_points, {(0, 1): 0.04}, [20, 10, 10, 10, 10, 10], 20, 6) == [1]
    # Every open pair's members at their most: the points open on their own, nearest their target first.
    assert measure._sequential_wanted(open_points, {(0, 1): inf}, [20, 20, 10, 10, 10, 10], 20, 1) == [5]
    assert measure._sequential_wanted(open_points, {}, counts, 20, 6) == [0, 4, 5]


def test_sequential_status_gives_widths_and_never_looks_at_means():
    def records(rates):
        return {rep: {"event_rate_hz": r, "round_key": f"r{rep}"} for rep, r in enumerate(rates)}

    tight = [1000 + (k % 2) for k in range(10)]
    wide = [1000 * (1 + 0.2 * ((-1) ** k)) for k in range(10)]
    points, pairs = measure._sequential_status(
        [records(tight), records(wide), records(tight)], [(0, 2), (0, 1)], 0.02
    )
    assert set(points) == {1} and points[1] > 0.02
    assert set(pairs) == {(0, 1)}
    # Scaling a point's rates (its mean) changes no width.
    scaled = [records([2 * r for r in tight]), records(wide), records(tight)]
    assert measure._sequential_status(scaled, [(0, 2), (0, 1)], 0.02)[1].keys() == pairs.keys()


def test_sequential_rounds_skip_intervals_the_most_repetitions_cannot_bring_to_the_target():
    # A ±2.5 % interval from 10 repetitions reaches ±2 % by 20 (t(19)/t(9) * sqrt(10/20) = 0.66); ±5 % does not.
    assert measure._within_reach(0.025, 10, 20, 0.02)
    assert not measure._within_reach(0.05, 10, 20, 0.02)
    assert not measure._within_reach(0.025, 20, 20, 0.02)
    assert measure._within_reach(float("inf"), 1, 20, 0.02)
    open_pairs = {(0, 1): 0.025, (2, 3): 0.08}
    assert measure._sequential_wanted({}, open_pairs, [10] * 4, 20, 4, 0.02) == [0, 1]
    # No open pair within reach: the points open on their own, if they are.
    assert measure._sequential_wanted({4: 0.021}, {(2, 3): 0.08}, [10] * 5, 20, 4, 0.02) == [4]
    assert measure._sequential_wanted({4: 0.09}, {(2, 3): 0.08}, [10] * 5, 20, 4, 0.02) == []


def test_a_file_read_with_two_selections_gets_each_selections_columns(tmp_path):
    """A columnar read (bulk, RDataFrame, uproot) of one file with the analysis and the whole selection: each read
    gets the branches of its own selection (the columns were once found by path only, and both reads read the
    selection resolved first)."""
    from rootparams.measure.measure import Instrument

    fake_reader = tmp_path / "reader"
    fake_reader.write_text(  # --resolve-selection S: prints the branches S means (here: S itself)
        '#!/bin/sh\nwhile [ $# -gt 0 ]; do [ "$1" = --resolve-selection ] && sel=$2; shift; done\n'
        'echo "ROOTPARAMS_JSON {\\"branches\\": [\\"$sel-a\\", \\"$sel-b\\"]}"\n'
    )
    fake_reader.chmod(0o755)
    instrument = Instrument(str(fake_reader), server=None, monitor=None, messages_dir=tmp_path)
    analysis = {"reading_style": "bulk", "branches": "analysis"}
    everything = {"reading_style": "bulk", "branches": "all"}
    for read in (everything, analysis):
        instrument.resolve_columns("/data/f.root", read, also="root://host//data/f.root")
    assert instrument.columns[("/data/f.root", "all", "")] == "all-a,all-b"
    assert instrument.columns[("/data/f.root", "analysis", "")] == "analysis-a,analysis-b"
    assert instrument.columns[("root://host//data/f.root", "analysis", "")] == "analysis-a,analysis-b"


def test_the_untimed_read_before_the_warm_rounds_reads_only_the_first_events(tmp_path):
    """The untimed read before a set's warm rounds opens the file and runs the loop once, on its first events: a
    whole read there would warm nothing more (every read is a fresh process) and cost the default study about 4
    minutes. A set whose untimed read fails is left out of the rounds, with the reader's message."""
    from rootparams.measure.cpu_primitives import WarmSet

    root_file = tmp_path / "f.root"
    root_file.write_bytes(b"\0" * 8192)
    calls, said = [], []

    class Storages:
        def for_read(self, profile, path):
            return "native-storage"

    class Instrument:
        def resolve_columns(self, path, read):
            pass

        def read(self, where, path, events, read, what, tag):
            calls.append((path, events, tag))
            raise measure.ReadError("the reader stopped")

    warm_set = WarmSet(
        str(root_file), 26000, {"reading_style": "getentry"}, {"file_id": "f", "warm_id": "w"}, {}
    )
    taken = measure._warm_rounds(
        [warm_set], [{}], [0], Instrument(), Storages(), {"attempts": 2}, {}, "b", 0.0, 1, said.append
    )
    assert taken == {}
    assert calls == [(str(root_file), measure._WARM_UP_EVENTS, "warm-untimed")]
    assert 0 < measure._WARM_UP_EVENTS <= 100
    assert said == [f"{warm_set.name}: no warm reads: the reader stopped"]
