"""A timed read has its host to itself, and never outlives the workflow that started it.

- ``HostLock``: every measuring job holds an exclusive ``flock`` on one file of the host for as long as it
  makes timed reads. Snakemake already runs one measuring job at a time (it claims every core), but a job
  orphaned by a killed Snakemake, or a second study on the same host, would not be seen by it. The kernel
  releases the lock when its holder dies, so a crash never leaves it taken.
- ``Lifeline``: a ``kill -9`` of Snakemake does not reach the jobs it started; they would finish their point
  unattended and overlap the reads of a restarted workflow. The job watches the processes it descends from
  (Snakemake and its job runner) and, when one of them disappears, stops at once: its reader server, the
  reader's child and dool die with it (PR_SET_PDEATHSIG).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

DEFAULT_LOCK = "/tmp/rootparams-timed-reads.lock"


class HostLock:
    """Exclusive flock on ``path``; waits (and says so through ``say``) while another process holds it."""

    def __init__(self, path: str | Path = DEFAULT_LOCK, say: Callable[[str], None] = print):
        self.path = Path(path)
        self.say = say
        self.fd: int | None = None
        self.writable = False
        self.waited_seconds = 0.0

    def __enter__(self) -> HostLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.fd, self.writable = _open_lock(self.path)
        start = time.time()
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(self.fd, 200, 0).decode(errors="replace").strip() or "unknown"
            self.say(
                f"waiting for the host's timed-read lock {self.path}: another timed read holds it ({holder}); "
                "two timed reads on one host would disturb each other"
            )
            fcntl.flock(self.fd, fcntl.LOCK_EX)
            self.waited_seconds = time.time() - start
            self.say(f"got the timed-read lock after {self.waited_seconds:.1f} s")
        if self.writable:  # who holds it, for the message of a process that waits
            os.ftruncate(self.fd, 0)
            os.pwrite(
                self.fd, f"pid {os.getpid()} on {os.uname().nodename}, since {time.ctime()}\n".encode(), 0
            )
        return self

    def __exit__(self, *exc) -> None:
        if self.fd is not None:
            with contextlib.suppress(OSError):
                if self.writable:
                    os.ftruncate(self.fd, 0)
            os.close(self.fd)  # releases the flock
            self.fd = None


def _open_lock(path: Path) -> tuple[int, bool]:
    """The lock file, shared by every user of the host: created readable and writable by all (the umask would make
    it the creator's alone), opened for writing where allowed, else read-only (flock needs no write access; a file
    another user created in /tmp can be opened so even where fs.protected_regular forbids O_CREAT on it)."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o666)
        with contextlib.suppress(OSError):
            os.fchmod(fd, 0o666)
        return fd, True
    except FileExistsError:
        pass
    try:
        return os.open(path, os.O_RDWR), True
    except PermissionError:
        return os.open(path, os.O_RDONLY), False


def stat_fields(pid: int) -> list[str]:
    """/proc/<pid>/stat from its 3rd field (the state) on: the command name before it, in parentheses, may
    hold spaces and parentheses itself. Raises OSError when the process is gone."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def _start_ticks(pid: int) -> int | None:
    """The process's start time (clock ticks after boot): with the pid, it names one process for good."""
    try:
        return int(stat_fields(pid)[19])
    except OSError:
        return None


def process_start_epoch(pid: int | None = None) -> float | None:
    """When process ``pid`` (default: this one) started, in seconds since the epoch (10 ms resolution)."""
    ticks = _start_ticks(os.getpid() if pid is None else pid)
    if ticks is None:
        return None
    boot = next(
        int(line.split()[1])
        for line in Path("/proc/stat").read_text().splitlines()
        if line.startswith("btime")
    )
    return boot + ticks / os.sysconf("SC_CLK_TCK")


def ancestors(pid: int | None = None) -> list[tuple[int, int]]:
    """(pid, start ticks) of every ancestor of ``pid`` (default: this process), init excluded."""
    out = []
    pid = os.getppid() if pid is None else pid
    while pid > 1:
        ticks = _start_ticks(pid)
        if ticks is None:
            break
        out.append((pid, ticks))
        try:
            pid = int(stat_fields(pid)[1])
        except (OSError, ValueError, IndexError):
            break
    return out


def up_to_the_workflow(chain: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The ancestors up to the nearest Snakemake process, which started the job: the shell that started
    Snakemake may end (``nohup snakemake ... &`` and log out) without the workflow being gone. All of them
    where no ancestor is Snakemake (a job run by hand)."""
    for i, (pid, _) in enumerate(chain):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:
            continue
        # `snakemake ...` or `python -m snakemake ...`; not the job's shell, whose script path says .snakemake.
        if any(Path(a).name == "snakemake" for a in argv[:2]) or "-m\0snakemake" in "\0".join(argv):
            return chain[: i + 1]
    return chain


class Lifeline:
    """Watches this process's ancestors from a daemon thread; when one is gone, runs the cleanups (each
    given a moment) and ends this process with exit code 1."""

    def __init__(self, say: Callable[[str], None] = print, interval: float = 0.2):
        self.watched = up_to_the_workflow(ancestors())
        self.say = say
        self.interval = interval
        self.cleanups: list[Callable[[], None]] = []
        self._stop = threading.Event()

    def on_loss(self, cleanup: Callable[[], None]) -> None:
        self.cleanups.append(cleanup)

    def lost(self) -> tuple[int, int] | None:
        for pid, ticks in self.watched:
            if _start_ticks(pid) != ticks:
                return pid, ticks
        return None

    def _watch(self) -> None:
        while not self._stop.wait(self.interval):
            gone = self.lost()
            if gone:
                with contextlib.suppress(Exception):
                    self.say(
                        f"the workflow that started this job is gone (process {gone[0]} ended); stopping the "
                        "timed reads now so that none outlives it (records already taken are kept)"
                    )
                for cleanup in self.cleanups:
                    with contextlib.suppress(Exception):
                        cleanup()
                sys.stderr.flush()
                os._exit(1)

    def __enter__(self) -> Lifeline:
        threading.Thread(target=self._watch, name="rootparams-lifeline", daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
