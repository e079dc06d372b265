"""Remote storage primitives: what a remote storage profile's endpoint delivers to ROOT, measured through the same
endpoint the timed reads use, with ROOT itself, so that the model of the timed loop can predict the remote reads.

For every remote profile the study reads on (``xrootd-*`` and a user's own endpoint), a scratch file is served the
way the reads are served (rootparams.host.remote.remote_endpoint: our own xrootd on this host, behind the toxiproxy that
adds the profile's round-trip time and bandwidth limit; or the user's server, the file copied there when the
profile says ``copy: true``), and a child process opens it with ``TFile::Open`` (TNetXNGFile, XrdCl underneath)
and times, in compiled code:

- **round trips**: ROUND_TRIP_READS reads of ROUND_TRIP_BYTES at offsets spread over the file, one at a time
  (``TFile::ReadBuffer``: one request and its response each, as a basket read without the TTreeCache): the median,
  the mean and the central 95 % of the per-request time;
- **the transfer**: TRANSFER_BYTES in one ``ReadBuffer`` call, TRANSFER_REPETITIONS times: one request whose
  response streams the bytes. The bandwidth is the bytes over the time less one round trip (the model charges the
  round trip apart); the share of the round trip in the time is a column, so the subtraction is seen. At 64 MiB it
  is ~3 % at 20 ms and 100 MB/s; on a profile without a bandwidth limit and with a long round trip (``xrootd-far``)
  it is about half, and the bandwidth there rests on the subtraction;
- **vector reads**: VECTOR_PIECES pieces of VECTOR_PIECE_BYTES spread over the file in one ``TFile::ReadBuffers``
  call (what a TTreeCache fill is: TNetXNGFile sends its chunk lists asynchronously and waits for all, one round
  trip), VECTOR_REPETITIONS times, beside what the model predicts for it (one round trip plus its bytes over the
  bandwidth).

On our own server the file is evicted from this host's page cache before the round trips and before every transfer
and vector read, and the bytes each of them fetches are verified out of it (rootparams.host.pagecache), as the timed
reads evict theirs: a request's time includes the server's cold read of the disk, as theirs does. Pages that stay
resident despite the eviction are counted (``resident_share``: ``cold`` is true only where there were none). A
user's server caches what it likes; the table says ``cold`` false there.

ROOT reads in a child process: XrdCl's fork handler can hang the next fork() of a process that has read root://
(rootparams.host.remote), and this job starts the servers. Each profile is checked against its nominal figures: the
round trip within ROUND_TRIP_ALLOWANCE_S of the nominal RTT and never shorter than the delay applied, the bandwidth
within storage_primitives.NOMINAL_TOLERANCE of a nominal limit.
"""

from __future__ import annotations

import json
import math
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from rootparams.errors import UserError
from rootparams.host import hostmemory, pagecache, remote, storage
from rootparams.host.exclusive import DEFAULT_LOCK, HostLock, Lifeline
from rootparams.host.storage import StorageProfile
from rootparams.measure.storage_primitives import NOMINAL_TOLERANCE, write_scratch_file
from rootparams.stats.intervals import Interval
from rootparams.study.config import used_storage_profiles
from rootparams.study.labels import STORAGE_ORDER
from rootparams.tools import paths
from rootparams.tools.processes import die_with_parent

KIB, MIB = 1 << 10, 1 << 20

# The defaults of a measurement: under half a minute for xrootd-far (200 round trips of 100 ms), ~10 s for
# xrootd-wan, a few seconds for the others (each with ~1.5 s to start ROOT in the child).
_ROUND_TRIP_READS = 200
_ROUND_TRIP_BYTES = 1 * KIB
# A few requests after the open are not timed, so that no one-off set-up of the client falls into the first timed one.
_WARMUP_READS = 5
_TRANSFER_BYTES = 64 * MIB
_TRANSFER_REPETITIONS = 3
# 1 MiB in 64 pieces: a small TTreeCache fill.
_VECTOR_PIECES = 64
_VECTOR_PIECE_BYTES = 16 * KIB
_VECTOR_REPETITIONS = 10
# The scratch file: the transfer and the spread reads fit in it with room (offsets differ from one kind to the next).
SCRATCH_BYTES = 128 * MIB
# How far the measured round trip may lie from the nominal one: the proxy's own hop and the server's cold read of a
# small block, and Go's timers in the two latency toxics. Measured on a 2-core virtual machine (docs/model.md):
# medians 1.1-1.5 ms above the applied 20 and 100 ms, and up to 1.7 ms above 50 ms (tests/test_remote_endpoint.py);
# 0.1-0.2 ms without a latency toxic. The allowance is about twice the largest excess seen, for a busier host.
_ROUND_TRIP_ALLOWANCE_S = 3e-3
_PROBE_TIMEOUT_SECONDS = 600
_EVICTION_ATTEMPTS = 20
_EVICTION_PAUSE_SECONDS = 0.05


class RemoteBenchError(UserError):
    """A remote profile's primitives could not be measured: the probe failed or said something unreadable."""


def profiles_to_measure(config: Mapping[str, Any]) -> list[StorageProfile]:
    """Every remote profile the study reads on (read_defaults and the scans), in the config's order: our own
    XRootD server's (``xrootd-*`` and custom ones with rtt_ms) and a user's endpoint. None for a study that reads
    only local storage: it pays nothing for this."""
    custom = config["measurement"]["storage_profiles"]
    names = dict.fromkeys(name for _, name in used_storage_profiles(config))
    profiles = [storage.resolve_profile(name, custom) for name in names]
    return [p for p in profiles if p.access != "local"]


# The timed loops, compiled by ROOT's interpreter in the child: a Python call per request would add its own
# microseconds to a ~0.1 ms round trip.
_PROBE_CODE = r"""
#include <TFile.h>
#include <chrono>
#include <vector>

namespace rootparams_remotebench {

inline double now()
{
   return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// One request and its response per read (no read cache on the file: TNetXNGFile::ReadBuffer sends each).
// Empty on failure.
std::vector<double> single_reads(TFile *file, const std::vector<long long> &offsets, int bytes)
{
   std::vector<char> buffer(bytes);
   std::vector<double> seconds;
   seconds.reserve(offsets.size());
   for (long long offset : offsets) {
      const double start = now();
      if (file->ReadBuffer(buffer.data(), offset, bytes))
         return {};
      seconds.push_back(now() - start);
   }
   return seconds;
}

// One ReadBuffers call (a vector read, as a TTreeCache fill); the buffer is allocated and touched before the clock
// starts. -1 on failure.
double vector_read(TFile *file, std::vector<long long> positions, std::vector<int> lengths)
{
   long long total = 0;
   for (int length : lengths)
      total += length;
   std::vector<char> buffer(total);
   const double start = now();
   if (file->ReadBuffers(buffer.data(), positions.data(), lengths.data(), int(positions.size())))
      return -1;
   return now() - start;
}

}  // namespace rootparams_remotebench
"""


def _spread_offsets(size: int, count: int, nbytes: int, shift: int = 0) -> list[int]:
    """``count`` offsets of reads of ``nbytes``, evenly spread over a file of ``size`` bytes (``shift`` moves them
    all, within one stride), so that no two reads share a page or a read-ahead window of the other."""
    if size < count * nbytes:
        raise RemoteBenchError(
            f"the scratch file ({size} bytes) is too small for {count} reads of {nbytes} bytes; make it larger"
        )
    stride = (size - nbytes) // max(count, 1)
    return [i * stride + shift % max(stride - nbytes, 1) for i in range(count)]


def _probe_plan(
    url: str,
    local_path: str | None,
    size: int,
    *,
    round_trip_reads: int = _ROUND_TRIP_READS,
    round_trip_bytes: int = _ROUND_TRIP_BYTES,
    transfer_bytes: int = _TRANSFER_BYTES,
    transfer_repetitions: int = _TRANSFER_REPETITIONS,
    vector_pieces: int = _VECTOR_PIECES,
    vector_piece_bytes: int = _VECTOR_PIECE_BYTES,
    vector_repetitions: int = _VECTOR_REPETITIONS,
) -> dict[str, Any]:
    """What the child reads, and where: the URL, the local file to evict before each kind of read (None: a user's
    server), and the offsets of each read."""
    if transfer_bytes > size:
        raise RemoteBenchError(
            f"the transfer ({transfer_bytes} bytes) is larger than the scratch file ({size})"
        )
    return {
        "url": url,
        "local_path": local_path,
        "warmup": _spread_offsets(size, _WARMUP_READS, round_trip_bytes, shift=4 * KIB),
        "round_trip": {
            "bytes": round_trip_bytes,
            "offsets": _spread_offsets(size, round_trip_reads, round_trip_bytes),
        },
        # Each transfer from its own offset: pages an earlier one left resident are not in the next one's way.
        "transfer": {
            "bytes": transfer_bytes,
            "offsets": [
                rep * ((size - transfer_bytes) // max(transfer_repetitions - 1, 1)) // KIB * KIB
                for rep in range(transfer_repetitions)
            ],
        },
        "vector": {
            "piece_bytes": vector_piece_bytes,
            "positions": [
                _spread_offsets(size, vector_pieces, vector_piece_bytes, shift=rep * 64 * KIB)
                for rep in range(vector_repetitions)
            ],
        },
    }


def probe(plan: Mapping[str, Any]) -> dict[str, Any]:
    """In the child: open the URL with ROOT and time every read of ``plan``; each request's seconds."""
    import warnings

    warnings.filterwarnings("ignore", message=".*alpha stage.*")
    import ROOT  # here only: ~0.8 s and ~420 MB, and never in the process that runs the servers

    ROOT.gInterpreter.Declare(_PROBE_CODE)
    code = ROOT.rootparams_remotebench
    local = plan["local_path"]

    resident = {"pages": 0, "of": 0}

    def cold(ranges: Sequence[tuple[int, int]]) -> None:
        # The bytes the next reads fetch, evicted from the server's page cache and verified, never assumed. Some
        # pages the server served shortly before can stay resident for seconds after an eviction (1-2 MiB at a time
        # on a 2-core virtual machine, more often through the proxy: not explained yet). Where they overlap the next
        # reads after EVICTION_ATTEMPTS tries, the reads go ahead and the pages are counted: the table gives the
        # share of the requested pages that were resident (``resident_share``), so a warm part is seen, not hidden.
        if not local:
            return
        left = 0
        for _ in range(_EVICTION_ATTEMPTS):
            pagecache.evict(local, system_wide=False)
            left = pagecache.resident_pages_in(local, ranges)
            if left == 0:
                break
            time.sleep(_EVICTION_PAUSE_SECONDS)
        resident["pages"] += left
        resident["of"] += len(pagecache.pages_of(ranges))

    started = time.perf_counter()
    file = ROOT.TFile.Open(plan["url"])
    open_seconds = time.perf_counter() - started
    if not file or file.IsZombie():
        raise RemoteBenchError(f"ROOT cannot open {plan['url']}")
    out: dict[str, Any] = {
        "file_class": file.ClassName(),
        "open_seconds": open_seconds,
        "root_version": str(ROOT.gROOT.GetVersion()),
        "size": int(file.GetSize()),
        "cold": bool(local),
        "round_trip_bytes": plan["round_trip"]["bytes"],
        "transfer_bytes": plan["transfer"]["bytes"],
        "vector_pieces": len(plan["vector"]["positions"][0]) if plan["vector"]["positions"] else 0,
        "vector_piece_bytes": plan["vector"]["piece_bytes"],
    }
    vector_ll, vector_int = ROOT.std.vector["long long"], ROOT.std.vector["int"]

    def reads(offsets: Sequence[int], nbytes: int, what: str) -> list[float]:
        seconds = list(code.single_reads(file, vector_ll(offsets), nbytes))
        if len(seconds) != len(offsets):
            raise RemoteBenchError(
                f"a {what} read of {nbytes} bytes from {plan['url']} failed (ROOT said why above)"
            )
        return seconds

    reads(plan["warmup"], plan["round_trip"]["bytes"], "warm-up")
    rt = plan["round_trip"]
    cold([(offset, rt["bytes"]) for offset in rt["offsets"]])
    out["round_trip"] = reads(rt["offsets"], rt["bytes"], "small")
    out["transfer"] = []
    for offset in plan["transfer"]["offsets"]:
        cold([(offset, plan["transfer"]["bytes"])])
        out["transfer"] += reads([offset], plan["transfer"]["bytes"], "large")
    out["vector"] = []
    piece = plan["vector"]["piece_bytes"]
    for positions in plan["vector"]["positions"]:
        cold([(position, piece) for position in positions])
        seconds = code.vector_read(file, vector_ll(positions), vector_int([piece] * len(positions)))
        if seconds < 0:
            raise RemoteBenchError(f"a vector read of {len(positions)} pieces from {plan['url']} failed")
        out["vector"].append(seconds)
    file.Close()
    out["resident_pages"], out["requested_pages"] = resident["pages"], resident["of"]
    return out


def _run_probe(plan: Mapping[str, Any], say: Callable[[str], None] = print) -> dict[str, Any]:
    """``probe(plan)`` in a child process (this process may run the servers: it must not read root:// itself)."""
    cmd = [sys.executable, "-m", "rootparams.measure.remote_primitives", json.dumps(plan)]
    proc = subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        timeout=_PROBE_TIMEOUT_SECONDS,
        preexec_fn=lambda: die_with_parent(signal.SIGKILL),
    )
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        raise RemoteBenchError(
            f"the probe of {plan['url']} failed (exit code {proc.returncode}): "
            f"{(proc.stderr or proc.stdout).strip()[-1500:] or 'no message'}"
        )
    try:
        return json.loads(lines[-1])
    except json.JSONDecodeError as error:
        raise RemoteBenchError(
            f"the probe of {plan['url']} printed no JSON ({error}): {lines[-1][:300]!r}"
        ) from error


def measure_remote(
    profiles: Sequence[StorageProfile],
    data_dir: str | Path,
    logs_dir: str | Path,
    *,
    host_lock: str | Path = DEFAULT_LOCK,
    hold_free_page_reporting: bool = False,
    seed: int = 0,
    scratch_bytes: int = SCRATCH_BYTES,
    plan_options: Mapping[str, int] | None = None,
    say: Callable[[str], None] = print,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every profile's primitives: one summary row each (``summarize_probe``; a profile whose endpoint cannot be
    set up or read gets a row that says why, and no figures), and every timed request behind them.

    The host's timed-read lock is held throughout, and its free page reporting held off where the study's reads
    hold it, as for the storage primitives (rootparams.measure.storage_primitives)."""
    scratch = Path(paths.remote_scratch_file(str(data_dir)))
    say(
        f"remote primitives: {len(profiles)} profiles ({', '.join(p.name for p in profiles)}) on a "
        f"{scratch_bytes / 1e6:.0f} MB scratch file in {scratch.parent}"
    )
    rows: list[dict[str, Any]] = []
    requests: list[dict[str, Any]] = []
    host = socket.gethostname()
    with ExitStack() as stack:
        lifeline = stack.enter_context(Lifeline(say))
        stack.enter_context(HostLock(host_lock, say))
        stack.enter_context(hostmemory.free_page_reporting_held(hold_free_page_reporting))
        lifeline.on_loss(lambda: scratch.unlink(missing_ok=True))
        stack.callback(scratch.unlink, missing_ok=True)
        scratch.parent.mkdir(parents=True, exist_ok=True)
        scratch.parent.chmod(0o755)  # the server's account (xrootd, when we are root) reads it
        write_scratch_file(scratch, scratch_bytes, seed)
        scratch.chmod(0o644)
        for profile in profiles:
            started = time.time()
            try:
                result, described, url = _measure_one(
                    profile, scratch, scratch_bytes, Path(logs_dir), plan_options, say
                )
            except (remote.RemoteEndpointError, RemoteBenchError, pagecache.EvictionError) as error:
                say(f"remote primitives: {profile.name} not measured: {error}")
                rows.append(not_measured(host, profile, str(error)))
                continue
            rows.append(_summarize_probe(host, profile, result, described) | {"url": url})
            requests += _request_records(host, profile, result)
            say(f"remote primitives: {profile.name} done in {time.time() - started:.1f} s")
    return rows, requests


def _measure_one(
    profile: StorageProfile,
    scratch: Path,
    size: int,
    logs_dir: Path,
    plan_options: Mapping[str, int] | None,
    say: Callable[[str], None],
) -> tuple[dict[str, Any], dict[str, Any], str]:
    options = dict(plan_options or {})
    if profile.access == "endpoint":
        if not profile.copy:
            raise RemoteBenchError(
                f"storage profile {profile.name!r} reads a user's endpoint ({profile.remote_url}) without copy: "
                "true, so there is no file of the primitives' own there to read; set copy: true to measure its "
                "round trips and bandwidth (the model then predicts its reads), or leave its points unpredicted"
            )
        url = profile.endpoint_url(scratch)
        say(f"copying {scratch} to {url}")
        remote.copy_to(scratch, url)
        plan = _probe_plan(f"{url}&filetype=raw", None, size, **options)
        described = {"remote_rtt_ms_applied": math.nan, "remote_bandwidth_bps_applied": math.nan}
        return _run_probe(plan, say), described, url
    logs = logs_dir / profile.name
    with remote.remote_endpoint(profile, scratch.parent, logs) as endpoint:
        url = endpoint.url(scratch)
        # filetype=raw: the scratch file is bytes, not a ROOT file; ROOT then reads no header and no keys.
        plan = _probe_plan(f"{url}&filetype=raw", str(scratch), size, **options)
        described = endpoint.describe()
        return _run_probe(plan, say), described, url


def _quantile(values: Sequence[float], q: float) -> float:
    return float(np.quantile(values, q)) if len(values) else math.nan


def _summarize_probe(
    host: str, profile: StorageProfile, result: Mapping[str, Any], described: Mapping[str, Any]
) -> dict[str, Any]:
    """One profile's row: the round trip (median, mean with its 95 % interval, the central 95 % of the requests),
    the transfer's bandwidth (bytes over the time less one round trip) and the round trip's share of that time, the
    latency per request the model charges (the mean round trip less its own bytes' transfer), the vector reads
    beside their prediction, and the check against the profile's nominal figures."""
    round_trips = [float(s) for s in result["round_trip"]]
    rt = Interval.of(round_trips)
    rt_bytes, transfer_bytes = int(result["round_trip_bytes"]), int(result["transfer_bytes"])
    transfer_seconds = [float(s) for s in result["transfer"]]
    # The bandwidth of each transfer, its round trip taken off: the model charges the two apart.
    bandwidths = [transfer_bytes / (s - rt.mean) for s in transfer_seconds if s > rt.mean]
    bandwidth = Interval.of(bandwidths)
    raw = Interval.of([transfer_bytes / s for s in transfer_seconds if s > 0])
    request_seconds = max(rt.mean - rt_bytes / bandwidth.mean, 0.0) if bandwidth.mean > 0 else rt.mean
    pieces, piece_bytes = int(result["vector_pieces"]), int(result["vector_piece_bytes"])
    vector = Interval.of(result["vector"])
    vector_predicted = (
        request_seconds + pieces * piece_bytes / bandwidth.mean if bandwidth.mean > 0 else math.nan
    )
    row = {
        "host": host,
        "storage_profile": profile.name,
        "storage_access": profile.access,
        "file_class": result.get("file_class", ""),
        "cold": bool(result.get("cold", False)) and result.get("resident_pages", 0) == 0,
        "resident_share": (
            result["resident_pages"] / result["requested_pages"]
            if result.get("requested_pages")
            else math.nan
        ),
        "round_trip_n": rt.n,
        "round_trip_bytes": rt_bytes,
        "round_trip_s_median": float(np.median(round_trips)) if round_trips else math.nan,
        "round_trip_s_mean": rt.mean,
        "round_trip_s_mean_ci95_low": rt.low,
        "round_trip_s_mean_ci95_high": rt.high,
        "round_trip_s_p2_5": _quantile(round_trips, 0.025),
        "round_trip_s_p97_5": _quantile(round_trips, 0.975),
        "transfer_n": len(transfer_seconds),
        "transfer_bytes": transfer_bytes,
        "transfer_s_mean": Interval.of(transfer_seconds).mean,
        "transfer_raw_bps": raw.mean,
        "bandwidth_bps": bandwidth.mean,
        "bandwidth_bps_ci95_low": bandwidth.low,
        "bandwidth_bps_ci95_high": bandwidth.high,
        "round_trip_share_of_transfer": rt.mean / Interval.of(transfer_seconds).mean
        if transfer_seconds
        else math.nan,
        "request_seconds": request_seconds,
        "vector_n": vector.n,
        "vector_pieces": pieces,
        "vector_piece_bytes": piece_bytes,
        "vector_s_mean": vector.mean,
        "vector_s_mean_ci95_low": vector.low,
        "vector_s_mean_ci95_high": vector.high,
        "vector_s_predicted": vector_predicted,
        "vector_vs_predicted": vector.mean / vector_predicted
        if vector_predicted == vector_predicted
        else math.nan,
        "nominal_rtt_s": (profile.rtt_ms or 0.0) / 1e3 if profile.access == "xrootd" else math.nan,
        "applied_rtt_s": float(described.get("remote_rtt_ms_applied", math.nan)) / 1e3,
        "nominal_bandwidth_bps": float(profile.bandwidth_bps) if profile.bandwidth_bps else math.nan,
        "applied_bandwidth_bps": float(described.get("remote_bandwidth_bps_applied") or math.nan),
        "xrootd_version": described.get("xrootd_version", ""),
        "toxiproxy_version": described.get("toxiproxy_version") or "",
        "root_version": result.get("root_version", ""),
        "open_seconds": float(result.get("open_seconds", math.nan)),
    }
    row["rtt_minus_nominal_s"] = row["round_trip_s_median"] - row["nominal_rtt_s"]
    row["bandwidth_vs_nominal"] = row["bandwidth_bps"] / row["nominal_bandwidth_bps"]
    row["nominal_check"], row["nominal_check_detail"] = nominal_check(row)
    return row


def not_measured(host: str, profile: StorageProfile, why: str) -> dict[str, Any]:
    """The row of a profile whose primitives could not be measured: no figures, the reason."""
    return {
        "host": host,
        "storage_profile": profile.name,
        "storage_access": profile.access,
        "nominal_rtt_s": (profile.rtt_ms or 0.0) / 1e3 if profile.access == "xrootd" else math.nan,
        "nominal_bandwidth_bps": float(profile.bandwidth_bps) if profile.bandwidth_bps else math.nan,
        "nominal_check": "not measured",
        "nominal_check_detail": why,
    }


def nominal_check(row: Mapping[str, Any]) -> tuple[str, str]:
    """(verdict, why): "pass" or "fail" against the profile's nominal figures, "" for a user's endpoint (it has
    none). The round trip's median must lie within ROUND_TRIP_ALLOWANCE_S of the nominal RTT, and never below the
    delay applied (toxiproxy's latency is whole milliseconds, so the applied delay can differ from the nominal
    one); the bandwidth within NOMINAL_TOLERANCE of a nominal limit."""
    nominal, applied, median = row["nominal_rtt_s"], row["applied_rtt_s"], row["round_trip_s_median"]
    if nominal != nominal:
        return "", ""
    problems, notes = [], []
    if median < applied:
        problems.append(
            f"round trip {median * 1e3:.2f} ms is shorter than the {applied * 1e3:.0f} ms delay applied: the proxy "
            "does not delay the requests"
        )
    elif abs(median - nominal) > _ROUND_TRIP_ALLOWANCE_S:
        problems.append(
            f"round trip {median * 1e3:.2f} ms (median) is {(median - nominal) * 1e3:+.2f} ms from the nominal "
            f"{nominal * 1e3:g} ms (allowed: {_ROUND_TRIP_ALLOWANCE_S * 1e3:g} ms for the proxy's hop, the "
            "server's read and the proxy's timers)"
        )
    else:
        notes.append(
            f"round trip {median * 1e3:.2f} ms, nominal {nominal * 1e3:g} ms, applied {applied * 1e3:g} ms"
        )
    limit, bandwidth = row["nominal_bandwidth_bps"], row["bandwidth_bps"]
    if limit == limit and limit > 0:
        ratio = bandwidth / limit
        if not abs(ratio - 1) <= NOMINAL_TOLERANCE:
            problems.append(
                f"bandwidth {bandwidth / 1e6:.1f} MB/s is {100 * (ratio - 1):+.0f} % from the limit "
                f"{limit / 1e6:.0f} MB/s (tolerance {100 * NOMINAL_TOLERANCE:.0f} %)"
            )
        else:
            notes.append(f"bandwidth {ratio:.3f} x the limit")
    else:
        notes.append(
            f"bandwidth {bandwidth / 1e6:.0f} MB/s (no limit: the server, the disk and the proxy's queue)"
        )
    return ("fail" if problems else "pass"), "; ".join(problems + notes)


def _request_records(host: str, profile: StorageProfile, result: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every timed request of one profile, one row each: kind (round_trip, transfer, vector_read), its index,
    its bytes and pieces, its seconds."""
    rt_bytes, transfer_bytes = int(result["round_trip_bytes"]), int(result["transfer_bytes"])
    pieces, piece_bytes = int(result["vector_pieces"]), int(result["vector_piece_bytes"])
    rows = []
    for kind, values, nbytes, n in (
        ("round_trip", result["round_trip"], rt_bytes, 1),
        ("transfer", result["transfer"], transfer_bytes, 1),
        ("vector_read", result["vector"], pieces * piece_bytes, pieces),
    ):
        rows += [
            {
                "host": host,
                "storage_profile": profile.name,
                "kind": kind,
                "index": i,
                "bytes": nbytes,
                "pieces": n,
                "seconds": float(s),
            }
            for i, s in enumerate(values)
        ]
    return rows


# The summary's columns, in order: where, the round trip, the transfer, the vector reads, the check, the software.
SUMMARY_COLUMNS = [
    "host",
    "storage_profile",
    "storage_access",
    "url",
    "file_class",
    "cold",
    "resident_share",
    "round_trip_n",
    "round_trip_bytes",
    "round_trip_s_median",
    "round_trip_s_mean",
    "round_trip_s_mean_ci95_low",
    "round_trip_s_mean_ci95_high",
    "round_trip_s_p2_5",
    "round_trip_s_p97_5",
    "transfer_n",
    "transfer_bytes",
    "transfer_s_mean",
    "transfer_raw_bps",
    "bandwidth_bps",
    "bandwidth_bps_ci95_low",
    "bandwidth_bps_ci95_high",
    "round_trip_share_of_transfer",
    "request_seconds",
    "vector_n",
    "vector_pieces",
    "vector_piece_bytes",
    "vector_s_mean",
    "vector_s_mean_ci95_low",
    "vector_s_mean_ci95_high",
    "vector_s_predicted",
    "vector_vs_predicted",
    "nominal_rtt_s",
    "applied_rtt_s",
    "nominal_bandwidth_bps",
    "applied_bandwidth_bps",
    "rtt_minus_nominal_s",
    "bandwidth_vs_nominal",
    "nominal_check",
    "nominal_check_detail",
    "xrootd_version",
    "toxiproxy_version",
    "root_version",
    "open_seconds",
]
_REQUEST_COLUMNS = ["host", "storage_profile", "kind", "index", "bytes", "pieces", "seconds"]


def summary_table(rows: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """The rows in the study's order of profiles (labels.STORAGE_ORDER, a custom one after them by name)."""
    table = pd.DataFrame(list(rows), columns=SUMMARY_COLUMNS)
    order = {name: i for i, name in enumerate(STORAGE_ORDER)}
    rank = table["storage_profile"].map(lambda p: (order.get(p, len(order)), str(p)))
    return table.iloc[sorted(range(len(table)), key=lambda i: rank.iloc[i])].reset_index(drop=True)


def write_tables(
    rows: Sequence[Mapping[str, Any]],
    requests: Sequence[Mapping[str, Any]],
    table_path: str | Path,
    requests_path: str | Path,
) -> pd.DataFrame:
    table = summary_table(rows)
    Path(table_path).parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(table_path, index=False)
    pd.DataFrame(list(requests), columns=_REQUEST_COLUMNS).to_csv(requests_path, index=False)
    return table


def describe(table: pd.DataFrame) -> list[str]:
    """One line per profile, for the job's log."""
    lines = []
    for _, r in table.iterrows():
        if r["nominal_check"] == "not measured":
            lines.append(f"{r['storage_profile']:>14}: not measured ({r['nominal_check_detail']})")
            continue
        lines.append(
            f"{r['storage_profile']:>14}: round trip {r['round_trip_s_median'] * 1e3:.3f} ms median "
            f"({r['round_trip_s_p2_5'] * 1e3:.3f}-{r['round_trip_s_p97_5'] * 1e3:.3f} ms for 95 % of "
            f"{int(r['round_trip_n'])}), bandwidth {r['bandwidth_bps'] / 1e6:.1f} MB/s (round trip "
            f"{100 * r['round_trip_share_of_transfer']:.1f} % of a {r['transfer_bytes'] / MIB:.0f} MiB transfer), "
            f"vector read of {int(r['vector_pieces'])} x {int(r['vector_piece_bytes']) // KIB} KiB {r['vector_s_mean'] * 1e3:.2f} ms "
            f"({r['vector_vs_predicted']:.2f} x predicted)"
            + (
                f", {100 * r['resident_share']:.1f} % of the requested pages resident despite the eviction"
                if r["resident_share"] > 0
                else ""
            )
            + f"; nominal {r['nominal_check'] or '-'}: "
            f"{r['nominal_check_detail']}"
        )
    return lines


if __name__ == "__main__":
    # The child of run_probe: the plan as JSON in argv[1], the measured times as JSON on the last line of stdout.
    print(json.dumps(probe(json.loads(sys.argv[1]))), flush=True)
