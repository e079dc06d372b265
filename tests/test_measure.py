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

from rootparams import measure
from rootparams.config import load_study_config

MEASUREMENT = load_study_config({})["measurement"]
# The fake points make no reads, so no reader server either; and their host lock is their own, so that a
# study running on the same host does not make them wait.
FAKE = {**MEASUREMENT, "reader": "exec", "host_lock": os.path.join(tempfile.mkdtemp(), "lock")}


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
        ({"process_storage_read_bytes": 30e6}, "the kernel fetched 3.00x the bytes ROOT read from storage"),
        ({"disk_read_bytes_others": 40e6}, "other processes read 40 MB from the disk during the read"),
    ],
)
def test_each_broken_condition_is_named(overrides, reason):
    assert measure.flag_reasons(record(**overrides), MEASUREMENT, cold=True) == [reason]


def test_a_read_in_a_slow_memory_spell_is_flagged_only_when_asked_for():
    probes = {"memory_probe_before_seconds": 0.100, "memory_probe_after_seconds": 0.125}
    slow = record(**probes, memory_probe_fastest_seconds=0.100)
    assert measure.memory_slowdown(slow) == pytest.approx(0.25)
    assert MEASUREMENT["max_memory_slowdown"] is None  # the default records the probes, flags nothing
    assert measure.flag_reasons(slow, MEASUREMENT, cold=True) == []
    strict = {**MEASUREMENT, "max_memory_slowdown": 0.15}
    assert measure.flag_reasons(slow, strict, cold=True) == [
        "host memory slow: the probe around the read took +25% over the point's fastest"
    ]
    assert measure.flag_reasons(record(**probes, memory_probe_fastest_seconds=0.115), strict, cold=True) == []
    # No probe (reader "exec", or memory_probe_loads 0): nothing to judge.
    assert measure.memory_slowdown(record()) is None
    assert measure.flag_reasons(record(), strict, cold=True) == []


def test_storage_crosscheck_needs_a_cold_read_of_enough_bytes():
    assert measure.flag_reasons(record(process_storage_read_bytes=0), MEASUREMENT, cold=False) == []
    small = record(process_storage_read_bytes=0, process_bytes_read=1e6)
    assert measure.flag_reasons(small, MEASUREMENT, cold=True) == []


def test_a_loop_that_holds_its_io_and_lasts_is_valid():
    assert measure.window_problems(record(), MEASUREMENT) == []
    # The note's window of the same read misses the first cluster: it is judged on its own.
    assert measure.window_problems(record(), MEASUREMENT, "note_window") == [
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
    assert measure.window_problems(record(**overrides), MEASUREMENT) == [problem]


def test_a_warm_read_has_no_storage_share_and_is_judged_on_roots_bytes():
    assert measure.window_problems(record(loop_storage_share=None), MEASUREMENT) == []


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
        monkeypatch.setattr(measure.storage, "point_group", lambda *a: contextlib.nullcontext())
        monkeypatch.setattr(measure, "find_monitor", lambda choice: None)
        path = tmp_path / "f.root"
        path.write_bytes(b"x")
        records = {rep: str(tmp_path / f"rep{rep}.json") for rep in reps}
        return dict(root_file=str(path), warmup_file="w", reader="r", events=2, read={"storage_profile": "native"},
                    monitor_csv=str(tmp_path / "m.csv"), records=records, labels={"format": "xaod"})  # fmt: skip

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
    busy, steal = measure.cpu_use_between(before, after, reader)
    assert reader > 0.2
    assert 0.0 <= busy < 0.5 and 0.0 <= steal <= 1.0
    # Without subtracting the reader, the same interval looks busy.
    assert measure.cpu_use_between(before, after, 0.0)[0] > busy


def test_cpu_use_of_an_idle_wait_is_small_and_bounded():
    before = measure.CpuTimes.now()
    time.sleep(0.2)
    busy, steal = measure.cpu_use_between(before, measure.CpuTimes.now(), 0.0)
    assert 0.0 <= busy <= 1.0 and 0.0 <= steal <= 1.0 and busy + steal <= 1.0


def test_a_kept_record_of_a_stopped_run_gets_its_monitor_samples(fake_point, tmp_path):
    kwargs = fake_point([""], reps=(0,))
    csv = tmp_path / "monitor.csv"
    csv.write_text(DOOL_BYTES)
    path = Path(kwargs["records"][0])
    path.write_text(json.dumps({"loop_start_time": 100.2, "end_time": 101.5, "process_start_time": 100.0,
                                "monitor_csv": str(csv), "complete": False, "flagged": False}))  # fmt: skip
    (rec,) = measure.measure_point(measurement=FAKE, **kwargs)
    assert rec["reused"] is True and rec["complete"] is True and rec["mon_monitor_samples"] == 2
    assert json.loads(path.read_text())["complete"] is True


def test_an_async_prefetch_read_has_no_perfstats_read_figures_and_is_judged_by_the_files_bytes():
    # PerfStats does not see TFilePrefetch's thread: 0 loop read calls were recorded for a read of 15.3 MB.
    record = {"loop_read_calls": 0, "loop_bytes_read": 0, "loop_io_share": 0.0, "process_bytes_read": 80026,
              "file_bytes_read_useful": 15_252_531, "loop_seconds": 2.0, "loop_cpu_seconds": 0.3}  # fmt: skip
    measure.blind_to_prefetch(record)
    assert all(record[k] != record[k] for k in ("loop_read_calls", "loop_bytes_read", "loop_io_share"))
    assert "prefetch thread" in record["io_counters_note"] and record["loop_seconds"] == 2.0
    assert measure.root_bytes_read(record) == 15_252_531
    window = measure.window_problems(record, {"min_window_io_share": 0.9, "min_window_seconds": 1.0})
    assert window == []  # no share to judge: its length only
