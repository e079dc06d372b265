"""Remote storage profiles: the file under test read over root:// from a real XRootD server on this machine,
through a TCP proxy that adds a network's round-trip time and bandwidth limit.

A grid point measured on a "remote" profile reads the same file as a local one, but every byte crosses the
XRootD protocol (TNetXNGFile in ROOT, XrdCl underneath), so the cost of a request is a round trip. The
kernels it was developed on have no ``tc netem``, so the network is emulated in user space by
toxiproxy (Shopify), one process per endpoint, in front of a standalone ``xrootd`` (which does not redirect
clients, so a proxy in front of it sees all traffic). Everything listens on 127.0.0.1 only.

What toxiproxy does (read in its source, v2.12.0; tools/install-remote builds that release):

- A toxic acts on one direction of a connection: ``upstream`` is client -> server, ``downstream`` server ->
  client. We put rtt/2 on each, so a request and its response together gain the RTT.
- ``latency`` (toxics/latency.go) delays every chunk to ``arrival + latency``, where arrival is when the proxy
  read the chunk off the socket: a constant transit time (a pipe delay), not a cumulative one; a chunk that
  waited behind another is not delayed again. The queue holds 1024 chunks of at most 32 KB (io.Copy's
  buffer), so at most 32 MB are in flight per direction: throughput is capped at 32 MB per one-way delay
  (~650 MB/s at 50 ms; read, not measured), above the profiles' limits.
- Its ``latency`` attribute is an integer number of milliseconds (Go int64; the API answers 400 "cannot
  unmarshal number 0.1 into ... int64" to a fraction). So each direction gets ``round(rtt_ms)`` split into
  whole milliseconds, and a sub-millisecond RTT gets no latency toxic at all: "xrootd-lan" (0.2 ms) adds
  only the proxy's own hop, ~0.07 ms per round trip on a 2-core VM (medians of 0.07-0.13 ms direct,
  0.14-0.21 ms through the proxy; tests/test_remote_endpoint.py). Endpoint.describe() records the RTT as
  applied next to the nominal one.
- ``bandwidth`` (toxics/bandwidth.go) takes ``rate`` in KB/s with KB = 1000 bytes (it sleeps
  len(bytes) / rate milliseconds per chunk, carrying the timer's error to the next chunk). It is added after
  the latency toxic: toxics run in the order they were added, and the latency toxic measures from the
  chunk's arrival, so a bandwidth toxic before it would have its sleep counted as part of the latency.
- The proxy terminates TCP on both sides: only application data is delayed, TCP's own acknowledgements are
  not. So a window-limited transfer (a real 100 ms link with a 4 MB TCP window carries at most 40 MB/s) and
  slow start are not modelled; request/response round trips, which dominate ROOT's scattered reads, are.

xrootd refuses to run as root. Its ``-R user`` option switches user inside xrootd, and a change of
credentials clears PR_SET_PDEATHSIG (prctl(2); checked: a server started that way survived its killed
parent). So as root the server is started as user ``xrootd`` directly (subprocess's user/group), and the
death signal is set after that switch: the server dies with the job that started it, as the proxy does.

Do not read root:// through ROOT in the process that starts these servers: XrdCl (5.9.2 in ROOT's wheel)
registers a fork handler, on by default, and after a root:// read the next fork() of that process can hang
(3 of 8 runs that started a proxy after a read; none of 8 with XRD_RUNFORKHANDLER=0). The project's reader
reads in children forked from a file-less server; Python that reads through ROOT itself, as the tests do,
belongs in a subprocess.
"""

from __future__ import annotations

import ctypes  # noqa: F401 - loaded before fork: die_with_parent runs in a child that is no longer root
import functools
import json
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from rootparams.errors import UserError
from rootparams.host.exclusive import stat_fields
from rootparams.host.storage import StorageProfile
from rootparams.tools.processes import die_with_parent

# The toxiproxy release tools/install-remote builds (keep the two in step).
_TOXIPROXY_VERSION = "v2.12.0"
_TOXIPROXY_MODULE = "github.com/Shopify/toxiproxy/v2"
_XROOTD_USER = "xrootd"  # created by Debian's xrootd-server package
_START_TIMEOUT_SECONDS = 30
_STOP_TIMEOUT_SECONDS = 5


class RemoteEndpointError(UserError):
    """The local XRootD server or the proxy in front of it cannot serve the reads."""


class RemoteToolError(RemoteEndpointError):
    """A tool of the remote profiles is missing; the message says how to install it."""


_INSTALL_XROOTD = "apt-get install -y xrootd-server xrootd-client"


def _find_xrootd() -> str:
    """The xrootd executable (Debian's xrootd-server)."""
    path = shutil.which("xrootd")
    if path is None:
        raise RemoteToolError(
            "the XRootD server (xrootd) is not installed or not on PATH; install it as root with: "
            f"{_INSTALL_XROOTD}"
            " (or run tools/install-remote from the rootparams repository)"
        )
    return path


def find_toxiproxy() -> str:
    """The toxiproxy server: $ROOTPARAMS_TOXIPROXY, else <sys.prefix>/bin/toxiproxy-server (where
    tools/install-remote puts it), else ``toxiproxy-server`` on PATH."""
    env = os.environ.get("ROOTPARAMS_TOXIPROXY")
    if env:
        if os.access(env, os.X_OK) and Path(env).is_file():
            return env
        raise RemoteToolError(
            f"ROOTPARAMS_TOXIPROXY={env!r} is not an executable file; point it at a toxiproxy server binary "
            f"or unset it (to install one: tools/install-remote {Path(sys.prefix) / 'bin'}, in the rootparams "
            "repository)"
        )
    in_prefix = Path(sys.prefix) / "bin" / "toxiproxy-server"
    if os.access(in_prefix, os.X_OK):
        return str(in_prefix)
    on_path = shutil.which("toxiproxy-server")
    if on_path:
        return on_path
    bindir = Path(sys.prefix) / "bin"
    raise RemoteToolError(
        f"the toxiproxy server is not installed (looked at $ROOTPARAMS_TOXIPROXY, {in_prefix} and PATH for "
        f"toxiproxy-server). Install it with: tools/install-remote {bindir}  (in the rootparams repository; "
        f"it runs: GOBIN=<dir> go install {_TOXIPROXY_MODULE}/cmd/server@{_TOXIPROXY_VERSION} and moves "
        f"<dir>/server to {in_prefix}; needs Go >= 1.23)"
    )


@functools.cache
def xrootd_version(xrootd: str) -> str:
    proc = subprocess.run([xrootd, "-v"], capture_output=True, text=True, timeout=30)
    return (proc.stderr.strip() or proc.stdout.strip()).splitlines()[-1]


@functools.cache
def _toxiproxy_build_version(binary: str) -> str | None:
    """The toxiproxy module version in the binary's Go build information (``go version -m`` shows it)."""
    found = re.search(
        rb"mod\t" + re.escape(_TOXIPROXY_MODULE.encode()) + rb"\t(\S+)", Path(binary).read_bytes()
    )
    return found.group(1).decode() if found else None


def _free_port() -> int:
    """A TCP port on 127.0.0.1 that nobody listens on now (the kernel's choice)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _accepts(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def _log_tail(log: Path, lines: int = 15) -> str:
    try:
        text = log.read_text(errors="replace").splitlines()
    except OSError:
        return "(no log)"
    return "\n".join(text[-lines:]) or "(the log is empty)"


def _stop_process(proc: subprocess.Popen | None) -> None:
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=_STOP_TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _server_user() -> pwd.struct_passwd | None:
    """The account the server runs as: ``xrootd`` when we are root (xrootd refuses root), else ourselves."""
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam(_XROOTD_USER)
    except KeyError:
        raise RemoteToolError(
            f"there is no user {_XROOTD_USER!r} to run the XRootD server as (xrootd refuses to run as root); "
            f"the Debian package creates it: {_INSTALL_XROOTD}"
        ) from None


def _as_user(user: pwd.struct_passwd | None) -> dict:
    return {} if user is None else {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}


def _check_export_readable(export_dir: Path, user: pwd.struct_passwd | None) -> None:
    """Raise unless the server's account can list ``export_dir`` and read everything in it. Asked of the
    kernel as that account (ACLs and every directory above count), not worked out from mode bits."""
    if not export_dir.is_dir():
        raise RemoteEndpointError(f"the XRootD export dir {export_dir} does not exist or is not a directory")
    who = f"user {user.pw_name}" if user else "this user"
    unreadable = [
        "(",
        "!",
        "-readable",
        "-o",
        "-type",
        "d",
        "!",
        "-executable",
        ")",
    ]  # a file, or a closed dir
    proc = subprocess.run(
        ["find", str(export_dir), *unreadable, "-print", "-quit"],
        capture_output=True,
        text=True,
        **_as_user(user),
    )
    first = proc.stdout.splitlines()[0] if proc.stdout.strip() else None
    if first is None and proc.returncode == 0:
        return
    where = f"{first}" if first else f"{export_dir} ({proc.stderr.strip()[:300]})"
    raise RemoteEndpointError(
        f"the XRootD server runs as {who} and cannot read {where}: it needs read access to every file in the "
        f"export dir {export_dir}, and read and execute (search) access to it, its subdirectories and every "
        f"directory above it. Make them readable (e.g. chmod o+x on the parents, chmod -R o+rX "
        f"{export_dir}), or export a directory elsewhere."
    )


_RUN_DIR_PREFIX = "rootparams-xrootd-"  # + the pid of the job that started the server


def _remove_stale_run_dirs() -> None:
    """Remove the private directories of servers whose job is gone (killed before it could clean up)."""
    for run_dir in Path(tempfile.gettempdir()).glob(f"{_RUN_DIR_PREFIX}*"):
        pid = run_dir.name.removeprefix(_RUN_DIR_PREFIX).split("-")[0]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            shutil.rmtree(run_dir, ignore_errors=True)


class XRootDServer:
    """A standalone xrootd on 127.0.0.1 exporting ``export_dir`` read-only, with no authentication, accepting
    connections from this host only (``xrd.allow host localhost``). Its admin and pid directories live in a
    private temporary directory; its messages go to ``<log_dir>/xrootd.log``."""

    def __init__(self, export_dir: str | Path, log_dir: str | Path, port: int | None = None):
        self.export_dir = Path(export_dir).resolve()
        self.log = Path(log_dir) / "xrootd.log"
        self.port = port or _free_port()
        self.proc: subprocess.Popen | None = None
        self._run_dir: Path | None = None
        if not self.export_dir.is_dir():
            raise RemoteEndpointError(
                f"the XRootD export dir {self.export_dir} does not exist or is not a directory"
            )
        if any(c.isspace() for c in str(self.export_dir)):
            raise RemoteEndpointError(
                f"the XRootD export dir {self.export_dir} contains white space, which xrootd's configuration "
                "cannot express; use a path without spaces"
            )
        xrootd = _find_xrootd()
        self.xrootd_version = xrootd_version(xrootd)
        user = _server_user()
        _check_export_readable(self.export_dir, user)
        self.log.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._start(xrootd, user)
        except BaseException:
            self.stop()
            raise

    def _start(self, xrootd: str, user: pwd.struct_passwd | None) -> None:
        if _accepts(self.port):  # else the wait below would take another server's port for ours
            raise RemoteEndpointError(
                f"port {self.port} on 127.0.0.1 is in use; give XRootDServer another port (or None: a free one)"
            )
        _remove_stale_run_dirs()
        self._run_dir = Path(tempfile.mkdtemp(prefix=f"{_RUN_DIR_PREFIX}{os.getpid()}-"))
        (self._run_dir / "admin").mkdir()
        (self._run_dir / "pid").mkdir()
        config = self._run_dir / "xrootd.cfg"
        config.write_text(
            "# Written by rootparams.host.remote: one read-only export, local clients only.\n"
            f"all.export {self.export_dir} r/o\n"
            f"all.adminpath {self._run_dir / 'admin'}\n"
            f"all.pidpath {self._run_dir / 'pid'}\n"
            "xrd.allow host localhost\n"
        )
        if user is not None:
            for path in [self._run_dir, *self._run_dir.rglob("*")]:
                os.chown(path, user.pw_uid, user.pw_gid)
        with open(self.log, "a") as log:  # the child keeps its own descriptor
            self.proc = subprocess.Popen(
                [xrootd, "-p", str(self.port), "-c", str(config)],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=self._run_dir,
                preexec_fn=lambda: die_with_parent(signal.SIGKILL),
                **_as_user(user),
            )
        deadline = time.monotonic() + _START_TIMEOUT_SECONDS
        while not _accepts(self.port):
            if self.proc.poll() is not None:
                raise RemoteEndpointError(
                    f"xrootd exited with code {self.proc.returncode} while starting on port {self.port}; "
                    f"the end of {self.log}:\n{_log_tail(self.log)}"
                )
            if time.monotonic() > deadline:
                raise RemoteEndpointError(
                    f"xrootd did not accept connections on port {self.port} within "
                    f"{_START_TIMEOUT_SECONDS} s; "
                    f"the end of {self.log}:\n{_log_tail(self.log)}"
                )
            time.sleep(0.05)

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def url(self, path: str | Path, port: int | None = None) -> str:
        """The root:// URL of ``path`` (a file under the export dir) on this server, or on ``port`` (a proxy
        in front of it). ``?remote=1``: ROOT opens a root:// URL on this host as a local file without it."""
        absolute = Path(path).resolve()
        if not absolute.is_relative_to(self.export_dir):
            raise RemoteEndpointError(
                f"{path} is not under the XRootD export dir {self.export_dir}; only files there can be served"
            )
        return f"root://127.0.0.1:{port or self.port}/{absolute}?remote=1"

    def stop(self) -> None:
        """Terminate the server (kill it after STOP_TIMEOUT_SECONDS) and remove its private directory."""
        _stop_process(self.proc)
        if self._run_dir is not None:
            shutil.rmtree(self._run_dir, ignore_errors=True)
            self._run_dir = None

    def __enter__(self) -> XRootDServer:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


# The API is on 127.0.0.1: never through an http_proxy of the environment (common on cluster nodes).
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class _LatencyProxy:
    """One toxiproxy server (its API on a port of its own) with one proxy 127.0.0.1:<port> -> the upstream
    port, and the profile's toxics: latency rtt/2 on each direction, bandwidth on the downstream one."""

    NAME = "rootparams"

    def __init__(self, upstream_port: int, profile: StorageProfile, log_dir: str | Path):
        self.profile = profile
        self.upstream_port = upstream_port
        self.log = Path(log_dir) / "toxiproxy.log"
        self.log.parent.mkdir(parents=True, exist_ok=True)
        self.binary = find_toxiproxy()
        self.api_port = _free_port()
        self.proc: subprocess.Popen | None = None
        self.toxics: list[dict] = []
        try:
            self._start()
        except BaseException:
            self.stop()
            raise

    def _start(self) -> None:
        with open(self.log, "a") as log:
            self.proc = subprocess.Popen(
                [self.binary, "-host", "127.0.0.1", "-port", str(self.api_port)],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env={**os.environ, "LOG_LEVEL": "info"},  # the default, debug, logs every API request
                preexec_fn=lambda: die_with_parent(signal.SIGKILL),
            )
        deadline = time.monotonic() + _START_TIMEOUT_SECONDS
        while True:
            try:
                self.version = self._api("GET", "/version")["version"]
                break
            except (OSError, RemoteEndpointError):
                if self.proc.poll() is not None:
                    raise RemoteEndpointError(
                        f"{self.binary} exited with code {self.proc.returncode} while starting (API port "
                        f"{self.api_port}); the end of {self.log}:\n{_log_tail(self.log)}"
                    ) from None
                if time.monotonic() > deadline:
                    raise RemoteEndpointError(
                        f"{self.binary} did not answer on API port {self.api_port} within "
                        f"{_START_TIMEOUT_SECONDS} s; the end of {self.log}:\n{_log_tail(self.log)}"
                    ) from None
                time.sleep(0.05)
        if self.version == "git":  # built without the release's -ldflags
            self.version = _toxiproxy_build_version(self.binary) or "unknown"
        proxy = self._api(
            "POST",
            "/proxies",
            {
                "name": self.NAME,
                "listen": "127.0.0.1:0",
                "upstream": f"127.0.0.1:{self.upstream_port}",
                "enabled": True,
            },
        )
        self.port = int(proxy["listen"].rsplit(":", 1)[1])  # listen 127.0.0.1:0: the kernel picked the port
        for toxic in _toxics_for(self.profile):
            self.toxics.append(self._api("POST", f"/proxies/{self.NAME}/toxics", toxic))

    def _api(self, method: str, path: str, body: dict | None = None) -> dict:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f"http://127.0.0.1:{self.api_port}{path}", data=data, method=method)
        try:
            with _DIRECT.open(request, timeout=10) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as e:
            raise RemoteEndpointError(
                f"toxiproxy refused {method} {path} {body or ''}: "
                f"HTTP {e.code} {e.read().decode(errors='replace')}"
            ) from None

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    @property
    def rtt_ms_applied(self) -> int:
        return sum(t["attributes"]["latency"] for t in self.toxics if t["type"] == "latency")

    @property
    def bandwidth_bps_applied(self) -> int:
        return sum(t["attributes"]["rate"] * 1000 for t in self.toxics if t["type"] == "bandwidth")

    def stop(self) -> None:
        _stop_process(self.proc)

    def __enter__(self) -> _LatencyProxy:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def _toxics_for(profile: StorageProfile) -> list[dict]:
    """The toxics that emulate ``profile``, in the order they must be added (latency before bandwidth).
    Latency is whole milliseconds: round(rtt_ms) split over the two directions (none below 0.5 ms)."""
    toxics = []
    rtt = round(profile.rtt_ms or 0)
    up = rtt // 2
    for stream, ms in (("upstream", up), ("downstream", rtt - up)):
        if ms > 0:
            toxics.append(
                {
                    "name": f"latency_{stream}",
                    "type": "latency",
                    "stream": stream,
                    "attributes": {"latency": ms},
                }
            )
    if profile.bandwidth_bps:
        rate = max(1, round(profile.bandwidth_bps / 1000))  # KB/s, KB = 1000 bytes
        toxics.append(
            {
                "name": "bandwidth_downstream",
                "type": "bandwidth",
                "stream": "downstream",
                "attributes": {"rate": rate},
            }
        )
    return toxics


@dataclass
class Endpoint:
    """A running remote endpoint: where to read (``url``), which processes serve it, how it was set up."""

    profile: StorageProfile
    server: XRootDServer
    proxy: _LatencyProxy | None

    def url(self, path: str | Path) -> str:
        return self.server.url(path, port=self.proxy.port if self.proxy else None)

    @property
    def server_pids(self) -> list[int]:
        return [self.server.pid] + ([self.proxy.pid] if self.proxy else [])

    def describe(self) -> dict[str, object]:
        """For the records: the versions, the ports, and the emulated network as applied (which can differ
        from the profile's nominal numbers: toxiproxy's latency is whole milliseconds). These are the toxics'
        settings; what ROOT meets through them is measured by rootparams.measure.remote_primitives (results/primitives/remote.csv)."""
        proxy = self.proxy
        return {
            "xrootd_version": self.server.xrootd_version,
            "xrootd_port": self.server.port,
            "toxiproxy_version": proxy.version if proxy else None,
            "proxy_port": proxy.port if proxy else None,
            "toxics": json.dumps(proxy.toxics if proxy else []),  # one string: a record's columns are scalars
            "remote_rtt_ms_applied": proxy.rtt_ms_applied if proxy else 0,
            "remote_bandwidth_bps_applied": proxy.bandwidth_bps_applied if proxy else 0,
        }


@contextmanager
def remote_endpoint(
    profile: StorageProfile, export_dir: str | Path, log_dir: str | Path
) -> Iterator[Endpoint]:
    """An XRootD server exporting ``export_dir`` and, when the profile adds latency or limits bandwidth, the
    proxy in front of it; both stopped on exit, also by an exception, and killed with the job if it dies."""
    with XRootDServer(export_dir, log_dir) as server:
        if not profile.needs_proxy:
            yield Endpoint(profile, server, None)
            return
        with _LatencyProxy(server.port, profile, log_dir) as proxy:
            yield Endpoint(profile, server, proxy)


def process_read_bytes(pid: int) -> int:
    """Bytes process ``pid`` caused to be fetched from storage (/proc/<pid>/io read_bytes, read-ahead included):
    for the server, what a remote read cost the disk."""
    for line in Path(f"/proc/{pid}/io").read_text().splitlines():
        if line.startswith("read_bytes:"):
            return int(line.split()[1])
    raise RemoteEndpointError(f"/proc/{pid}/io has no read_bytes line")


def interface_bytes() -> dict[str, int]:
    """Bytes received so far per network interface (/proc/net/dev): a read through our server crosses "lo"."""
    out = {}
    for line in Path("/proc/net/dev").read_text().splitlines()[2:]:
        name, _, fields = line.partition(":")
        out[name.strip()] = int(fields.split()[0])
    return out


def copy_to(path: str | Path, url: str) -> None:
    """Copy ``path`` to a user's endpoint at ``url`` with xrdcp (directories created, an older copy replaced)."""
    xrdcp = shutil.which("xrdcp")
    if not xrdcp:
        raise RemoteToolError(
            "xrdcp is not installed (needed for remote_url with copy: true): tools/install-remote"
        )
    target = url.split("?", 1)[0]
    proc = subprocess.run(
        [xrdcp, "--nopbar", "--force", "--path", str(path), target],
        capture_output=True,
        text=True,
        timeout=3600,
    )
    if proc.returncode != 0:
        raise RemoteEndpointError(
            f"cannot copy {path} to {target}: xrdcp exited with {proc.returncode}: "
            f"{(proc.stderr or proc.stdout).strip()[-800:]} (check the remote_url of the storage profile, that "
            "the server runs and that it allows writing there, or copy the files yourself and set copy: false)"
        )


def process_cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of process ``pid`` so far (/proc/<pid>/stat): the server's and the proxy's
    share of a read, which the busy-machine check must not count as other work."""
    fields = stat_fields(pid)
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime
