"""Flag rules, retries and resumable records of a point's repetitions (the parts around the real
measurement, with a fake attempt), and the CPU accounting that tells other processes from steal."""

import json
import subprocess
import time
from pathlib import Path

import pytest

from rootparams import measure
from rootparams.config import load_study_config

MEASUREMENT = load_study_config({})["measurement"]


def record(**overrides):
    base = {
        "cpu_busy_during": 0.01,
        "cpu_steal_during": 0.0,
        "mon_process_disk_read_bytes": 10e6,
        "bytes_read": 10e6,
    }
    return {**base, **overrides}


def test_a_quiet_repetition_is_not_flagged():
    assert measure.flag_reasons(record(), MEASUREMENT, cold=True) == []


@pytest.mark.parametrize(
    ("overrides", "reason"),
    [
        ({"cpu_busy_during": 0.5}, "busy machine: other processes used 50% of the CPUs during the read"),
        ({"cpu_steal_during": 0.2}, "CPU stolen by the hypervisor: 20% during the read"),
        ({"mon_process_disk_read_bytes": 1e6}, "disk read 0.10x the bytes ROOT read"),
        ({"mon_process_disk_read_bytes": 30e6}, "disk read 3.00x the bytes ROOT read"),
    ],
)
def test_each_broken_condition_is_named(overrides, reason):
    assert measure.flag_reasons(record(**overrides), MEASUREMENT, cold=True) == [reason]


def test_disk_crosscheck_needs_a_cold_read_of_enough_bytes():
    assert measure.flag_reasons(record(mon_process_disk_read_bytes=0), MEASUREMENT, cold=False) == []
    small = record(mon_process_disk_read_bytes=0, bytes_read=1e6)
    assert measure.flag_reasons(small, MEASUREMENT, cold=True) == []


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
        monkeypatch.setattr(measure, "find_monitor", lambda choice: None)
        path = tmp_path / "f.root"
        path.write_bytes(b"x")
        records = {rep: str(tmp_path / f"rep{rep}.json") for rep in reps}
        return dict(root_file=str(path), warmup_file="w", reader="r", events=2, read={"storage_profile": "native"},
                    monitor_csv=str(tmp_path / "m.csv"), records=records, labels={"format": "xaod"})  # fmt: skip

    return install


def test_a_flagged_attempt_is_retried_and_the_record_says_so(fake_point):
    kwargs = fake_point(["busy machine: 50%", ""], reps=(3,))
    (rec,) = measure.measure_point(measurement=MEASUREMENT, **kwargs)
    assert rec["flagged"] is False and rec["attempt"] == 2 and rec["rep"] == 3 and rec["format"] == "xaod"
    assert rec["discarded_attempts"] == "attempt 1: busy machine: 50%"
    assert json.loads(Path(kwargs["records"][3]).read_text()) == {
        k: v for k, v in rec.items() if k != "reused"
    }


def test_when_every_attempt_is_flagged_the_last_is_kept_flagged(fake_point):
    kwargs = fake_point(["a", "b", "c"])
    (rec,) = measure.measure_point(measurement=MEASUREMENT, **kwargs)
    assert rec["flagged"] is True and rec["attempt"] == 3 and rec["flag_reasons"] == "c"
    assert rec["discarded_attempts"] == "attempt 1: a | attempt 2: b"


def test_every_repetition_of_a_point_gets_its_own_record(fake_point):
    kwargs = fake_point(["", "", ""], reps=(0, 1, 2))
    recs = measure.measure_point(measurement=MEASUREMENT, **kwargs)
    assert [r["rep"] for r in recs] == [0, 1, 2]
    assert all(json.loads(Path(kwargs["records"][r]).read_text())["rep"] == r for r in (0, 1, 2))


def test_a_rerun_keeps_the_repetitions_already_taken_and_measures_only_the_missing(fake_point):
    kwargs = fake_point(
        ["", "", ""], reps=(0, 1)
    )  # three attempts in all: 2 in the first run, 1 in the rerun
    first = measure.measure_point(measurement=MEASUREMENT, **kwargs)
    kwargs["records"][2] = kwargs["records"][1].replace("rep1", "rep2")  # the rerun asks for one more
    again = measure.measure_point(measurement=MEASUREMENT, **kwargs)
    assert [r["reused"] for r in again] == [True, True, False] and [r["rep"] for r in again] == [0, 1, 2]
    assert {k: v for k, v in again[0].items() if k != "reused"} == {
        k: v for k, v in first[0].items() if k != "reused"
    }


def test_a_record_taken_under_other_settings_is_measured_again(fake_point, tmp_path):
    kwargs = fake_point(["", ""], reps=(0,))
    kwargs["labels"]["measurement_key"] = "aaa"
    measure.measure_point(measurement=MEASUREMENT, **kwargs)
    kwargs["labels"]["measurement_key"] = "bbb"
    (rec,) = measure.measure_point(measurement=MEASUREMENT, **kwargs)
    assert rec["reused"] is False and rec["measurement_key"] == "bbb"


def test_cpu_accounting_tells_other_processes_from_the_reader_and_from_steal():
    # A child burning ~0.4 s of CPU is the "reader": its time must not count as the machine being busy.
    before = measure.CpuTimes.now()
    subprocess.run(
        ["sh", "-c", "end=$(($(date +%s%N) + 400000000)); while [ $(date +%s%N) -lt $end ]; do :; done"]
    )
    after = measure.CpuTimes.now()
    busy, steal = measure.cpu_use_between(before, after)
    assert after.children_cpu_seconds - before.children_cpu_seconds > 0.2
    assert 0.0 <= busy < 0.5 and 0.0 <= steal <= 1.0


def test_cpu_use_of_an_idle_wait_is_small_and_bounded():
    before = measure.CpuTimes.now()
    time.sleep(0.2)
    busy, steal = measure.cpu_use_between(before, measure.CpuTimes.now())
    assert 0.0 <= busy <= 1.0 and 0.0 <= steal <= 1.0 and busy + steal <= 1.0
