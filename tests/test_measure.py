"""Flag rules and retries of a repetition (the parts around the real measurement, with a fake attempt)."""

import pytest

from rootparams import measure
from rootparams.config import load_study_config

MEASUREMENT = load_study_config({})["measurement"]


def record(**overrides):
    base = {
        "cpu_busy_before": 0.01,
        "mon_cpu_steal_pct_mean": 0.0,
        "mon_process_disk_read_bytes": 10e6,
        "bytes_read": 10e6,
    }
    return {**base, **overrides}


def test_a_quiet_repetition_is_not_flagged():
    assert measure.flag_reasons(record(), MEASUREMENT, cold=True) == []


@pytest.mark.parametrize(
    ("overrides", "reason"),
    [
        ({"cpu_busy_before": 0.5}, "busy machine: 50% CPU used before the read"),
        ({"mon_cpu_steal_pct_mean": 20.0}, "CPU stolen by the hypervisor: 20% during the read"),
        ({"cpu_steal_before": 0.2}, "CPU stolen by the hypervisor: 20% just before the read"),
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
def fake_attempts(monkeypatch, tmp_path):
    """Replace the real attempt with a scripted sequence of flagged/clean outcomes."""

    def install(outcomes):
        calls = iter(outcomes)

        def attempt(*args, **kwargs):
            reason = next(calls)
            return {"flagged": bool(reason), "flag_reasons": reason, "event_rate_hz": 1.0}

        monkeypatch.setattr(measure, "_attempt", attempt)
        monkeypatch.setattr(measure.storage, "check_throttling_possible", lambda *a: None)
        monkeypatch.setattr(measure, "find_monitor", lambda choice: None)
        path = tmp_path / "f.root"
        path.write_bytes(b"x")
        return dict(root_file=str(path), warmup_file="w", reader="r", events=2, read={}, monitor_csv="m",
                    record_path=str(tmp_path / "rep.json"), labels={"rep": 3})  # fmt: skip

    return install


def test_a_flagged_attempt_is_retried_and_the_record_says_so(fake_attempts):
    kwargs = fake_attempts(["busy machine: 50% CPU used before the read", ""])
    rec = measure.measure_repetition(measurement=MEASUREMENT, **kwargs)
    assert rec["flagged"] is False and rec["attempt"] == 2 and rec["rep"] == 3
    assert rec["discarded_attempts"] == "attempt 1: busy machine: 50% CPU used before the read"


def test_when_every_attempt_is_flagged_the_last_is_kept_flagged(fake_attempts):
    kwargs = fake_attempts(["a", "b", "c"])
    rec = measure.measure_repetition(measurement=MEASUREMENT, **kwargs)
    assert rec["flagged"] is True and rec["attempt"] == 3 and rec["flag_reasons"] == "c"
    assert rec["discarded_attempts"] == "attempt 1: a | attempt 2: b"


def test_cpu_use_tells_other_processes_from_steal():
    busy, steal = measure.cpu_use(0.2)
    assert 0.0 <= busy <= 1.0 and 0.0 <= steal <= 1.0 and busy + steal <= 1.0
