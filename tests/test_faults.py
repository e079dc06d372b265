"""Bad input and faults end in a clear message, lose nothing and resume (issue #7): damaged ROOT files,
kill -9 during generation and during a timed read, a full disk, no monitor, impossible eviction, a busy
machine, and fuzzed configs and monitor CSVs."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from conftest import REPO, require, set_threads, snakemake
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rootparams.host import pagecache
from rootparams.host.monitor import MonitorCSVError, MonitorError, find_monitor, parse_monitor_csv
from rootparams.measure.generate import generate_file
from rootparams.measure.measure import measure_point
from rootparams.results.aggregate import summarize
from rootparams.study.config import ConfigError, load_study_config
from rootparams.study.grid import FilePoint
from rootparams.tools import paths
from rootparams.tools.processes import DamagedFileError, ToolError, run_tool

# Two points (the xAOD default and LZ4-1), 2 repetitions each, native storage, kept files. No memory probe
# around the reads (2 x 0.12 s of each read's ~0.6 s), and no drift sentinel (2 more cold reads in every
# block, at its start and its end; the files are kept anyway): what is tested is which reads are taken, kept,
# lost and resumed.
TWO_POINTS = """
repetitions: 2
keep_files: true
formats:
  xaod: {written: 12, read: 12}
read_defaults: {storage_profile: native}
measurement: {attempts: 1, max_cpu_steal: 1.0, busy_cpu_threshold: 1.0, memory_probe_loads: 0,
              sentinel: {every_seconds: 0}}
scans:
  compression: {algorithm: [lz4], level: [1]}
"""


def workflow_dir(tmp_path, build, config=TWO_POINTS):
    shutil.copytree(build["info"].parent, tmp_path / paths.BUILD)  # the session's build
    (tmp_path / "study.yaml").write_text(config)
    return tmp_path


# The faults are in writing and measuring: the runs stop at the summary table (the figures and the decision
# only follow from it, and are run whole by test_full_dag).
TARGET = paths.SUMMARY_TABLE


def run(workdir, *args, check=True):
    return snakemake(
        workdir,
        TARGET,
        "--configfile",
        str(workdir / "study.yaml"),
        "--config",
        f"data_dir={workdir / 'data'}",
        "--cores",
        "2",
        *set_threads(),
        *args,
        check=check,
    )


def background(workdir):
    cmd = [
        sys.executable,
        "-m",
        "snakemake",
        "-s",
        str(REPO / "Snakefile"),
        "-d",
        str(workdir),
        TARGET,
        "--configfile",
        str(workdir / "study.yaml"),
        "--config",
        f"data_dir={workdir / 'data'}",
        "--cores",
        "2",
        *set_threads(),
    ]
    return subprocess.Popen(
        cmd, cwd=workdir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )


def kill_when(proc, condition, timeout=300):
    """kill -9 the whole workflow (Snakemake and its jobs) as soon as ``condition()`` holds."""
    deadline = time.time() + timeout
    while time.time() < deadline and not condition():
        assert proc.poll() is None, "the workflow ended before the moment to kill it"
        time.sleep(0.05)
    assert condition(), "the moment to kill never came"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


# 3. A damaged ROOT file -----------------------------------------------------------------------------------


@pytest.mark.parametrize("damage", ["truncated", "corrupt", "not_root"])
def test_the_reader_names_a_damaged_file_and_the_problem(build, tmp_path, damage):
    path = tmp_path / "f.root"
    generate_file(
        FilePoint("xaod", "zlib", 1, 100, 0, 32000),
        events=4,
        seed=1,
        writer=str(build["writer"]),
        reader=str(build["reader"]),
        output=str(path),
        catalogue=None,
    )
    data = bytearray(path.read_bytes())
    if damage == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "corrupt":
        for i in range(len(data) // 3, len(data) // 3 + 200_000, 7):
            data[i] ^= 0xFF
        path.write_bytes(bytes(data))
    else:
        path.write_text("this is not a ROOT file\n")
    cmd = [
        str(build["reader"]),
        "--file",
        str(path),
        "--events",
        "4",
        "--branches",
        "all",
        "--cache-size",
        "-1",
        "--learn-entries",
        "-1",
        "--threads",
        "1",
    ]
    with pytest.raises(DamagedFileError) as info:
        run_tool(cmd, f"timed read of {path}")
    message = str(info.value)
    assert str(path) in message
    assert any(k in message for k in ("cannot be opened", "recover", "corrupt basket", "failed")), message


def test_a_damaged_file_fails_its_point_only_and_a_rerun_writes_it_again(build, tmp_path):
    # Both points are in one block (a format's points are measured in interleaved rounds): the damaged one is left
    # out of the rest of the block, the other is measured, and the block's job fails at the end.
    workdir = workflow_dir(tmp_path, build)
    run(workdir, "--until", "generate_file")
    damaged = next((workdir / "data" / "files" / "xaod").glob("lz4-1_*.root"))
    damaged.write_bytes(damaged.read_bytes()[:100_000])  # truncated
    proc = run(workdir, "--keep-going", check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert f"{damaged} is damaged; it was removed" in out
    assert not damaged.exists()
    # The other point of the block was measured, and its records are kept for the rerun.
    measured = {
        p.parent.parent.name for p in (workdir / "results" / "repetitions" / "xaod").rglob("rep*.json")
    }
    assert measured == {"zlib-5_af100_split0_basket32000"}
    run(workdir)  # the rerun writes the file again and measures it
    summary = pd.read_csv(workdir / paths.SUMMARY_TABLE)
    assert len(summary) == 2 and (summary["n"] + summary["n_flagged"] == 2).all()


# 4. kill -9 during generation and during a timed read, then a rerun ------------------------------------------


def test_kill_9_during_generation_and_during_a_read_then_resume(build, tmp_path):
    workdir = workflow_dir(tmp_path, build)
    data = workdir / "data"
    proc = background(workdir)
    kill_when(proc, lambda: any(data.rglob(".*.partial")))  # a file is being written
    run(workdir, "--unlock")
    proc = background(workdir)
    reps = workdir / "results" / "repetitions"
    kill_when(proc, lambda: len(list(reps.rglob("rep0.json"))) >= 1 and not list(reps.rglob("rep1.json")))
    first = {p: json.loads(p.read_text())["loop_start_time"] for p in reps.rglob("rep*.json")}
    assert first, "a repetition was recorded before the kill"
    run(workdir, "--unlock")
    run(workdir)
    # Finished repetitions were not redone, nothing is duplicated or half-written, nothing partial is left.
    for path, start in first.items():
        assert json.loads(path.read_text())["loop_start_time"] == start
    records = sorted(reps.rglob("rep*.json"))
    assert len(records) == 4 and all(json.loads(p.read_text()) for p in records)
    assert not list(workdir.rglob("*.tmp")) and not list(data.rglob("*.partial"))
    repetitions = pd.read_csv(workdir / paths.REPETITIONS_TABLE)
    assert not repetitions.duplicated(["file_id", "read_id", "rep"]).any()
    assert len(pd.read_csv(workdir / paths.SUMMARY_TABLE)) == 2  # the points of a clean run


def test_a_kill_9_of_snakemake_takes_its_measuring_job_and_monitor_with_it(build, tmp_path):
    """kill -9 of the Snakemake process alone (not its process group: that is what a user's `kill -9 <pid>`
    does) during a timed read: the measuring job, its reader server, the reader and dool must not outlive it,
    or they would finish the point unattended and overlap the reads of a restarted workflow."""
    # 5 repetitions of the 2 points: the kill comes when the first rep1 is written (3 reads taken), with 7 reads
    # of the block still to come, seconds of them; the rerun takes what the kill left out. The files are
    # written by the same run, before its block starts (a block needs all its files), not by another run.
    workdir = workflow_dir(tmp_path, build, TWO_POINTS.replace("repetitions: 2", "repetitions: 5"))
    proc = background(workdir)
    reps = workdir / "results" / "repetitions"
    deadline = time.time() + 120
    while time.time() < deadline and not list(reps.rglob("rep1.json")):
        assert proc.poll() is None, "the workflow ended before the moment to kill it"
        time.sleep(0.05)
    running = our_processes(workdir)
    assert any("--serve" in cmd for cmd in running.values()), "a timed read is under way"
    job = next(pid for pid, cmd in running.items() if "measure_block" in cmd)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    deadline = time.time() + 10
    while time.time() < deadline and our_processes(workdir):
        time.sleep(0.1)
    assert not our_processes(workdir), our_processes(workdir)
    assert not list(Path("/sys/fs/cgroup/blkio").glob(f"rootparams-{job}*"))  # its storage groups are removed
    log = next((workdir / "results" / "logs" / "measure").rglob("*.log")).read_text()
    assert "the workflow that started this job is gone" in log
    # The restart finds nothing running, resumes, and keeps the repetitions taken before the kill.
    run(workdir, "--unlock")
    run(workdir)
    assert len(pd.read_csv(workdir / paths.REPETITIONS_TABLE)) == 10  # 2 points x 5 repetitions


def our_processes(workdir: Path) -> dict[int, str]:
    """pid -> command line of the live processes of the workflow in ``workdir``: Snakemake and everything it
    started (its jobs, the reader server and its children, dool) runs there or from there."""
    found = {}
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            text = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
            where = f"{os.readlink(proc / 'cwd')} {os.readlink(proc / 'exe')}"
        except OSError:
            continue
        if state != "Z" and (str(workdir) in text or str(workdir) in where):
            found[int(proc.name)] = text
    return found


# 5. A disk that fills during generation ---------------------------------------------------------------------


@pytest.fixture
def small_disk(tmp_path):
    require(os.geteuid() == 0, "root, to mount a small tmpfs")
    mount = tmp_path / "small"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(mount)], check=True)
    yield mount
    subprocess.run(["umount", str(mount)], check=False)


def test_a_full_disk_is_a_clear_error_and_leaves_no_partial_file(build, small_disk):
    out = small_disk / "files" / "xaod" / "big.root"
    with pytest.raises(ToolError) as info:  # the writer's failure, with ROOT's own words
        generate_file(
            FilePoint("xaod", "none", 0, 100, 0, 32000),
            events=12,
            seed=1,
            writer=str(build["writer"]),
            reader=str(build["reader"]),
            output=str(out),
            catalogue=None,
        )
    message = str(info.value)
    assert "write" in message.lower() and ("No space left" in message or "error" in message.lower())
    assert not out.exists() and not list(small_disk.rglob("*.partial"))


# 6. No monitor -----------------------------------------------------------------------------------------------


def test_no_monitor_is_a_clear_error_unless_none_is_chosen(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda *a, **k: None)
    with pytest.raises(MonitorError, match=r"dool and dstat are not on PATH.*measurement.monitor: none"):
        find_monitor("auto")
    assert find_monitor("none") is None


def test_no_monitor_stops_the_workflow_before_any_job(tmp_path):
    # dstat asked for, on a PATH that holds the project's environment (dool, not dstat) and the shell tools
    # Snakemake needs, but not /usr/bin, where a dstat may be installed.
    tools = tmp_path / "bin"
    tools.mkdir()
    for tool in ("bash", "sh", "which"):
        (tools / tool).symlink_to(shutil.which(tool))
    (tmp_path / "study.yaml").write_text(
        "formats: {xaod: {written: 4, read: 4}}\nmeasurement: {monitor: dstat}\n"
    )
    proc = snakemake(
        tmp_path,
        "--configfile",
        str(tmp_path / "study.yaml"),
        "--cores",
        "1",
        check=False,
        env={"PATH": f"{tools}:{Path(sys.executable).parent}"},
    )
    assert proc.returncode != 0 and "measurement.monitor = 'dstat', but dstat is not on PATH" in proc.stderr
    assert not (tmp_path / "results").exists()


# 7. Eviction impossible ---------------------------------------------------------------------------------------


def test_eviction_on_tmpfs_is_refused_but_a_warm_scenario_is_labelled(build, tmp_path):
    shm = Path("/dev/shm")
    require(shm.is_dir() and os.access(shm, os.W_OK), "a writable tmpfs at /dev/shm")
    path = shm / f"rootparams-test-{os.getpid()}.root"
    try:
        generate_file(
            FilePoint("xaod", "zlib", 1, 100, 0, 32000),
            events=4,
            seed=1,
            writer=str(build["writer"]),
            reader=str(build["reader"]),
            output=str(path),
            catalogue=None,
        )
        with pytest.raises(pagecache.EvictionError, match=r"still in the page cache.*cache_state: warm"):
            pagecache.make_cold(path, system_wide=False)
        warm = load_study_config({"measurement": {"cache_state": "warm", "monitor": "none"}})["measurement"]
        (rec,) = measure_point(
            root_file=str(path),
            warmup_file=str(path),
            reader=str(build["reader"]),
            events=4,
            read={
                "cache_size": -1,
                "learn_entries": "default",
                "threads": 1,
                "branches": "all",
                "storage_profile": "native",
            },
            measurement=warm,
            monitor_csv=str(tmp_path / "m.csv"),
            records={0: str(tmp_path / "r.json")},
            labels={},
        )
        assert rec["cache_state"] == "warm" and rec["eviction_method"] == "warm-read"
    finally:
        path.unlink(missing_ok=True)


# 8. A busy machine --------------------------------------------------------------------------------------------


def test_a_cpu_hog_during_the_reads_gets_them_flagged(build, tmp_path):
    path = tmp_path / "f.root"
    generate_file(
        FilePoint("xaod", "zlib", 5, 100, 0, 32000),
        events=12,
        seed=1,
        writer=str(build["writer"]),
        reader=str(build["reader"]),
        output=str(path),
        catalogue=None,
    )
    measurement = load_study_config({"measurement": {"attempts": 1, "monitor": "none"}})["measurement"]
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(os.cpu_count() or 2)]
    try:
        time.sleep(0.5)
        records = measure_point(
            root_file=str(path),
            warmup_file=str(path),
            reader=str(build["reader"]),
            events=12,
            read={
                "cache_size": -1,
                "learn_entries": "default",
                "threads": 1,
                "branches": "all",
                "storage_profile": "native",
            },
            measurement=measurement,
            monitor_csv=str(tmp_path / "m.csv"),
            records={i: str(tmp_path / f"rep{i}.json") for i in range(2)},
            labels={
                "format": "xaod",
                "file_id": "f",
                "read_id": "r",
                "algorithm": "zlib",
                "learn_entries": "default",
            },
        )
    finally:
        for hog in hogs:
            hog.kill()
    assert all(r["flagged"] and "busy machine" in r["flag_reasons"] for r in records)
    summary = summarize(pd.DataFrame(records))
    assert summary.iloc[0]["n_flagged"] == 2 and summary.iloc[0]["n"] == 0
    assert "busy machine" in summary.iloc[0]["flag_reasons"]


# 9. Fuzzing -------------------------------------------------------------------------------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False)
    | st.text(max_size=12),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=12,
)
config_keys = st.sampled_from(
    [
        "formats",
        "scans",
        "repetitions",
        "read_defaults",
        "file_defaults",
        "measurement",
        "data_dir",
        "seed",
        "require_sigma",
        "keep_files",
        "xaod",
        "level",
        "autoflush",
    ]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(config_keys, json_values, max_size=5))
def test_fuzzed_configs_load_or_fail_clearly(raw):
    try:
        load_study_config(raw)
    except ConfigError as error:
        assert "Invalid study configuration" in str(error) and error.problems


VALID_CSV_HEAD = (
    '"dool 1.3.8 CSV output"\n"Cmdline:","dool --epoch --cpu --bytes"\n'
    '"epoch","total cpu usage",,,,,"dsk/total",\n"epoch","usr","sys","idl","wai","stl","read","writ"\n'
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.lists(st.one_of(st.text(max_size=6), st.floats(allow_nan=True).map(str)), max_size=10), max_size=6
    ),
    st.booleans(),
    st.integers(0, 400),
)
def test_fuzzed_monitor_csv_parses_or_fails_clearly(rows, with_header, cut):
    body = "\n".join(",".join(row) for row in rows)
    text = (VALID_CSV_HEAD + body) if with_header else body
    text = text[: len(text) - cut] if cut < len(text) else text
    try:
        samples = parse_monitor_csv(text, "fuzz.csv")
    except MonitorCSVError as error:
        assert "fuzz.csv" in str(error)
    else:
        assert all(isinstance(r["epoch"], float) for r in samples.rows)
