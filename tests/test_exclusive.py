"""The host's timed-read lock, and a job that stops when the workflow that started it is gone."""

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

from rootparams.host.exclusive import HostLock, Lifeline, ancestors, process_start_epoch


def test_a_second_holder_waits_says_so_and_gets_the_lock_when_the_first_is_gone(tmp_path):
    lock = tmp_path / "timed-reads.lock"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(f"""
        import time
        from rootparams.host.exclusive import HostLock
        with HostLock({str(lock)!r}):
            print("held", flush=True)
            time.sleep(30)
    """),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout.readline().strip() == "held"
    said, got = [], threading.Event()

    def second():
        with HostLock(lock, say=said.append):
            got.set()

    threading.Thread(target=second, daemon=True).start()
    time.sleep(0.5)
    assert not got.is_set() and said and f"pid {holder.pid}" in said[0]
    holder.kill()  # even a kill -9 releases it: the kernel drops the flock with its holder
    holder.wait()
    assert got.wait(5)
    assert "got the timed-read lock" in said[-1]


def test_the_lifeline_ends_the_job_when_an_ancestor_dies(tmp_path):
    """A parent (standing in for Snakemake) starts a job that holds a Lifeline; kill -9 of the parent ends
    the job within a second, after its cleanups ran."""
    marker = tmp_path / "cleaned"
    job = textwrap.dedent(f"""
        import time
        from pathlib import Path
        from rootparams.host.exclusive import Lifeline
        with Lifeline(say=lambda t: Path({str(tmp_path / "said")!r}).write_text(t)) as line:
            line.on_loss(lambda: Path({str(marker)!r}).write_text("yes"))
            print("watching", flush=True)
            time.sleep(60)
    """)
    parent = subprocess.Popen(
        [sys.executable, "-c", f"import subprocess, sys; subprocess.run([sys.executable, '-c', {job!r}])"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert parent.stdout.readline().strip() == "watching"
    children = [int(p) for p in Path(f"/proc/{parent.pid}/task/{parent.pid}/children").read_text().split()]
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    deadline = time.time() + 5
    while time.time() < deadline and any(os.path.exists(f"/proc/{c}") for c in children):
        time.sleep(0.05)
    assert not any(os.path.exists(f"/proc/{c}") for c in children)
    assert marker.read_text() == "yes"
    assert "the workflow that started this job is gone" in (tmp_path / "said").read_text()


def test_ancestors_and_start_times():
    chain = ancestors()
    assert chain and chain[0][0] == os.getppid()
    assert abs(process_start_epoch() - time.time()) < 24 * 3600
    assert Lifeline(say=print).lost() is None


def test_the_lifeline_watches_up_to_snakemake_not_the_shell_that_started_it():
    # `nohup snakemake ... &` from a shell that then exits: the job must go on (a remote study's far read was
    # stopped that way); Snakemake itself is still watched (the kill -9 test in test_faults.py).
    from rootparams.host.exclusive import up_to_the_workflow

    fake = subprocess.Popen(["bash", "-c", "exec -a snakemake sleep 30"])
    shell = subprocess.Popen(["bash", "-c", "sleep 30 # .snakemake/scripts/tmp.measure_block.py"])
    try:
        time.sleep(0.2)
        chain = [(shell.pid, 1), (fake.pid, 2), (os.getpid(), 3)]
        assert (
            up_to_the_workflow(chain) == chain[:2]
        )  # the job's shell is not Snakemake; the launcher is left out
        assert up_to_the_workflow(chain[2:]) == chain[2:]  # no Snakemake above: everything is watched
    finally:
        fake.kill(), shell.kill()


def test_a_user_other_than_the_lock_files_creator_still_takes_the_lock(tmp_path):
    """The host's lock file is created by whoever measured first (often root); another user's timed reads must
    take the same lock, not fail on it: it is created writable by all, and a file one cannot write is locked
    read-only (flock needs no write access)."""
    import tempfile

    from conftest import require

    require(os.geteuid() == 0, "switching to another user needs root (CI runs as root)")
    shared = Path(tempfile.mkdtemp(prefix="rootparams-lock-", dir="/tmp"))
    shared.chmod(0o777)
    lock = shared / "timed-reads.lock"
    with HostLock(lock, say=lambda _: None):
        pass
    assert lock.stat().st_mode & 0o777 == 0o666  # not the creator's umask
    lock.chmod(0o644)  # as an older version, or another tool, left it
    code = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(Path(__file__).resolve().parents[1] / "src")!r})
        from rootparams.host.exclusive import HostLock
        with HostLock({str(lock)!r}, say=print) as held:
            print("held", held.writable)
        """
    )
    # The system's Python: the test environment's may sit in root's home, where the other user cannot go (the
    # module needs the standard library only).
    python = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable
    proc = subprocess.run(
        [python, "-c", code], capture_output=True, text=True, preexec_fn=lambda: os.setuid(65534), cwd=shared
    )
    assert proc.returncode == 0 and "held False" in proc.stdout, proc.stderr
