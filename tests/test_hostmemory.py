"""Free page reporting is held off during a measuring job and restored after it (hostmemory.py)."""

import pytest

from rootparams.host import hostmemory


@pytest.fixture
def sysfs(tmp_path):
    params = tmp_path / "parameters"
    params.mkdir()
    (params / "page_reporting_order").write_text("9\n")
    return params, tmp_path / "orig"


def test_the_order_is_raised_while_held_and_restored_after(sysfs):
    params, note = sysfs
    touched = []
    with hostmemory.free_page_reporting_held(True, params, note, touch=lambda: touched.append(1)) as state:
        assert state == "held (order 9 -> 11)"
        assert (params / "page_reporting_order").read_text().strip() == "11"
        assert note.read_text().strip() == "9"  # for the next job, should this one be killed
        assert touched == [1]
    assert (params / "page_reporting_order").read_text().strip() == "9"
    assert not note.exists()


def test_a_job_killed_while_holding_it_is_repaired_by_the_next(sysfs):
    params, note = sysfs
    (params / "page_reporting_order").write_text("11\n")  # left held by a job that was killed
    note.write_text("9\n")
    with hostmemory.free_page_reporting_held(True, params, note, touch=lambda: None) as state:
        assert state == "held (order 9 -> 11)"
    assert (params / "page_reporting_order").read_text().strip() == "9"


def test_a_job_that_does_not_hold_it_repairs_it_too(sysfs):
    params, note = sysfs
    (params / "page_reporting_order").write_text("11\n")
    note.write_text("9\n")
    with hostmemory.free_page_reporting_held(False, params, note) as state:
        assert state.startswith("not held")
    assert (params / "page_reporting_order").read_text().strip() == "9"
    assert not note.exists()


def test_it_is_restored_when_the_job_fails(sysfs):
    params, note = sysfs
    with (
        pytest.raises(RuntimeError),
        hostmemory.free_page_reporting_held(True, params, note, touch=lambda: None),
    ):
        raise RuntimeError("a read failed")
    assert (params / "page_reporting_order").read_text().strip() == "9"


def test_absent_or_disabled_changes_nothing(tmp_path, sysfs):
    with hostmemory.free_page_reporting_held(True, tmp_path / "none", tmp_path / "orig") as state:
        assert state == "absent"
    params, note = sysfs
    with hostmemory.free_page_reporting_held(False, params, note) as state:
        assert state.startswith("not held")
        assert (params / "page_reporting_order").read_text().strip() == "9"


def test_on_this_machine(tmp_path):
    """The real sysfs: held and restored where the kernel has free page reporting, else left alone."""
    order_file = hostmemory.PARAMETERS / "page_reporting_order"
    before = order_file.read_text().strip() if order_file.exists() else None
    with hostmemory.free_page_reporting_held(True, note=tmp_path / "orig") as state:
        if before is None:
            assert state == "absent"
        elif state.startswith("held"):
            assert order_file.read_text().strip() == str(hostmemory._HELD_ORDER)
        else:
            assert "needs root" in state
    if before is not None:
        assert order_file.read_text().strip() == before
