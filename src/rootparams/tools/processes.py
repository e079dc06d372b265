"""Running the project's C++ executables (rootparams-write, rootparams-read): one shot, or the reader's fork
server that makes every timed read of a grid point.

Every executable prints one line ``ROOTPARAMS_JSON {...}`` on success. On failure it names the file and the
problem on stderr and exits with 2, or with 3 when the file under test is damaged (not ROOT, truncated, no such
tree, a corrupt basket): the harness removes a damaged generated file so that a rerun writes it again, and it
tells that case apart by the exit code, never by matching the message text.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rootparams.errors import UserError

JSON_MARKER = "ROOTPARAMS_JSON "
_READY_MARKER = "ROOTPARAMS_READY "
_CHILD_MARKER = "ROOTPARAMS_CHILD "
_PROBE_MARKER = "ROOTPARAMS_PROBE "
_EXIT_DAMAGED_FILE = 3
# A timed read that has not finished after this long is hung (the longest reads of config/paper.yaml on an
# emulated HDD take minutes).
_READ_TIMEOUT_SECONDS = 3600


class ToolError(UserError):
    """One of our executables failed; the message holds its own explanation (naming the file)."""


class DamagedFileError(ToolError):
    """The file under test is not a sound ROOT file with the expected tree (exit code 3)."""


def _error(what: str, code: int, stderr: str, stdout: str = "") -> ToolError:
    err = "\n".join(line for line in stderr.splitlines() if line.strip())[-3000:]
    cls = DamagedFileError if code == _EXIT_DAMAGED_FILE else ToolError
    return cls(f"{what} failed (exit code {code}):\n{err or stdout[-2000:]}")


def _root_messages(stderr: str) -> str:
    warnings = [line for line in stderr.splitlines() if line.startswith(("Error in", "Warning in"))]
    return " | ".join(warnings)[:2000]


def json_result(lines) -> dict[str, Any] | None:
    """The last ``ROOTPARAMS_JSON {...}`` line among ``lines`` (an executable's stdout), parsed; None if none."""
    found = [line for line in lines if line.startswith(JSON_MARKER)]
    return json.loads(found[-1][len(JSON_MARKER) :]) if found else None


def die_with_parent(sig: int = signal.SIGTERM) -> None:
    """In a child before exec: Linux sends ``sig`` when the thread that started it (the job) dies."""
    import ctypes

    pr_set_pdeathsig = 1
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(pr_set_pdeathsig, sig)


def run_tool(cmd: list[str], what: str, preexec: Callable[[], None] | None = None) -> dict[str, Any]:
    """Run one of our executables (argument list, never a shell string) and return its JSON line."""

    def before_exec() -> None:
        die_with_parent(signal.SIGKILL)
        if preexec:
            preexec()

    proc = subprocess.run(cmd, capture_output=True, text=True, preexec_fn=before_exec)
    result = json_result(proc.stdout.splitlines())
    if proc.returncode != 0 or result is None:
        raise _error(what, proc.returncode, proc.stderr, proc.stdout)
    if messages := _root_messages(proc.stderr):
        result["root_messages"] = messages
    return result


class ReaderServer:
    """``rootparams-read --serve``: ROOT's start-up paid once per grid point; each timed read is made by a
    child forked from the initialized, file-less server (native code only, no Python in it).

    The server dies with this process (PR_SET_PDEATHSIG on both sides), and its children die with it.
    """

    def __init__(self, reader: str, log_path: str | Path):
        self.log_path = Path(log_path)
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log = open(self.log_path, "a")  # noqa: SIM115 - the server's own messages, for the job's life
        self.proc = subprocess.Popen(
            [reader, "--serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            text=True,
            bufsize=1,
            preexec_fn=lambda: die_with_parent(signal.SIGKILL),
        )
        self._lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        self.ready = self._expect(_READY_MARKER, timeout=120, what="starting the reader server")

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line.rstrip("\n"))
        self._lines.put(None)  # the server exited

    def _expect(self, marker: str, timeout: float, what: str, seen: list[str] | None = None) -> dict:
        while True:
            try:
                line = self._lines.get(timeout=timeout)
            except queue.Empty:
                raise ToolError(f"{what}: no answer from the reader server within {timeout:.0f} s") from None
            if line is None:
                code = self.proc.wait()
                raise ToolError(f"{what}: the reader server exited (code {code}); see {self.log_path}")
            if line.startswith(marker):
                return json.loads(line[len(marker) :])
            if seen is not None:
                seen.append(line)

    def read(self, args: dict[str, Any], what: str, stderr_path: str | Path) -> tuple[dict, dict]:
        """One timed read by a fresh child: (its JSON result, the server's account of the child: exit code,
        CPU seconds, peak RSS). ``args`` are the reader's options without dashes (file, events, ...)."""
        for key, value in args.items():
            # The request is one line of tab-separated key=value pairs.
            if "=" in key or any(c in f"{key}{value}" for c in "\t\n"):
                raise ToolError(f"{what}: option {key}={value!r} cannot be sent to the reader server")
        Path(stderr_path).parent.mkdir(parents=True, exist_ok=True)
        request = "\t".join(f"{k}={v}" for k, v in {**args, "stderr": stderr_path}.items())
        assert self.proc.stdin is not None
        self.proc.stdin.write(request + "\n")
        self.proc.stdin.flush()
        lines: list[str] = []
        child = self._expect(_CHILD_MARKER, timeout=_READ_TIMEOUT_SECONDS, what=what, seen=lines)
        stderr = Path(stderr_path).read_text(errors="replace") if Path(stderr_path).exists() else ""
        result = json_result(lines)
        if child.get("exit_code") != 0 or result is None:
            code = child.get("exit_code", -1)
            if child.get("signal"):
                stderr += f"\n(the reader was killed by signal {child['signal']})"
            raise _error(what, code, stderr + child.get("error", ""), "\n".join(lines))
        if messages := _root_messages(stderr):
            result["root_messages"] = messages
        return result, child

    def memory_probe(self, loads: int) -> float:
        """Seconds the server takes for ``loads`` dependent loads through its 64 MB buffer: the host's memory
        latency now (read_collection_tree.cxx, MemoryProbe). No child, no file."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(f"probe={int(loads)}\n")
        self.proc.stdin.flush()
        return float(self._expect(_PROBE_MARKER, timeout=60, what="the memory probe")["seconds"])

    def close(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(OSError):
                assert self.proc.stdin is not None
                self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()

    def __enter__(self) -> ReaderServer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def exec_read(cmd: list[str], what: str, preexec: Callable[[], None] | None = None) -> tuple[dict, dict]:
    """The same timed read as ReaderServer.read, in a process of its own (exec): the reader mode of the
    instrument before the fork server, kept for comparison (benchmarks/harness_efficiency.py)."""
    usage_before = os.times()
    result = run_tool(cmd, what, preexec)
    usage_after = os.times()
    child = {
        "exit_code": 0,
        "cpu_user_seconds": usage_after.children_user - usage_before.children_user,
        "cpu_system_seconds": usage_after.children_system - usage_before.children_system,
    }
    return result, child
