"""This host's 7-Zip rating (rootparams.measure.cpureference): read from 7-Zip's own output, measured under the host lock,
a row that says why where 7-Zip is missing, and one real run where it is installed (CI installs p7zip-full)."""

import subprocess

import pytest
from conftest import require

from rootparams.measure import cpureference

# The shape of `7z b -mmt1` (p7zip 16.02), the figures made up.
OUTPUT = """
7-Zip [64] 16.02 : Copyright (c) 1999-2016 Igor Pavlov : 2016-05-21
p7zip Version 16.02 (locale=C,Utf16=off,HugeFiles=on,64 bits,2 CPUs x64)

RAM size:   24000 MB,  # CPU hardware threads:   2
RAM usage:    435 MB,  # Benchmark threads:      1

                       Compressing  |                  Decompressing
Dict     Speed Usage    R/U Rating  |      Speed Usage    R/U Rating
         KiB/s     %   MIPS   MIPS  |      KiB/s     %   MIPS   MIPS

22:       4486   100   4365   4365  |      55062   100   4701   4701
25:       3904   100   4458   4458  |      51452   100   4580   4579
----------------------------------  | ------------------------------
Avr:             100   4393   4393  |              100   4649   4649
Tot:             100   4521   4521
"""


def test_the_ratings_are_read_from_the_average_line():
    parsed = cpureference._parse_benchmark(OUTPUT)
    assert parsed["compression_mips"] == 4393 and parsed["decompression_mips"] == 4649
    assert parsed["version"].startswith("7-Zip [64] 16.02")
    with pytest.raises(cpureference.CpuReferenceError, match=r"no 'Avr:' line.*7z b -mmt1"):
        cpureference._parse_benchmark("Segmentation fault\n")


def test_several_runs_give_their_median_and_spread_under_the_host_lock(tmp_path):
    ratings = iter([4600, 4649, 4700])

    def fake_run(command, **_):  # the code around 7-Zip; the real run is the test below
        assert command[1:] == ["b", "-mmt1"]
        return subprocess.CompletedProcess(
            command, 0, OUTPUT.replace("4649   4649", f"4649   {next(ratings)}"), ""
        )

    row = cpureference.measure(3, "/usr/bin/7z", tmp_path / "lock", say=lambda _: None, run=fake_run)
    assert (
        row["runs"] == 3 and row["decompression_mips_min"] == 4600 and row["decompression_mips_max"] == 4700
    )
    assert row["reason"] == ""


def test_without_7zip_the_row_says_why(monkeypatch, tmp_path):
    monkeypatch.setattr(cpureference.shutil, "which", lambda _: None)
    row = cpureference.measure(say=lambda _: None, host_lock=tmp_path / "lock")
    assert row["runs"] == 0 and "apt-get install p7zip-full" in row["reason"]
    table = cpureference.write_table(row, tmp_path / "ref.csv")
    assert list(table.columns) == cpureference.COLUMNS


def test_a_real_run_of_7zip(tmp_path):
    # One pass at a 4 MB dictionary (-md22), not the study's four from 4 to 32 MB: the mechanics, in less time (a
    # whole `7z b -mmt1` took ~30 s in CI).
    require(cpureference._find_seven_zip() is not None, "7-Zip (apt-get install p7zip-full)")
    row = cpureference.measure(1, host_lock=tmp_path / "lock", say=lambda _: None, dictionary_log=22)
    assert row["command"].endswith(" b -mmt1 -md22") and row["runs"] == 1
    # a one-thread rating of any x86 machine of the last 15 years: hundreds to several thousand MIPS
    assert 300 < row["decompression_mips"] < 20000 and row["seconds"] > 0


def test_the_number_of_runs_is_no_setting_of_a_points_read():
    """measurement.cpu_reference_runs sizes the rule cpu_reference only: records kept before it existed, or under
    another value, are reused, and the blocks, tables and figures are not given it (no job of theirs runs again)."""
    from rootparams.measure.measure import measurement_key, reads_measurement
    from rootparams.study.config import load_study_config

    measurement = load_study_config({})["measurement"]
    assert measurement["cpu_reference_runs"] == 3
    before = {k: v for k, v in measurement.items() if k != "cpu_reference_runs"}
    one = {**measurement, "cpu_reference_runs": 1}
    assert (
        measurement_key(one, "hdd") == measurement_key(measurement, "hdd") == measurement_key(before, "hdd")
    )
    assert reads_measurement(one) == reads_measurement(measurement) == reads_measurement(before)
