"""A model of the timed loop: every predicted rate is a sum of named parts, each from a primitive measured apart
from the reads it predicts.

A cold read of a point is the warm read of the same file and read settings (the CPU: ROOT's decompression and
everything else, measured with the file resident in the page cache: ``rootparams.measure.cpu_primitives``) plus what the storage
adds (``rootparams.measure.storage_primitives``: fio's bandwidth and per-request latency under the same storage profile; on a
remote profile ``rootparams.measure.remote_primitives``: the round trip and bandwidth ROOT meets through the profile's endpoint,
every request a round trip), less what is fetched while the CPU works (the kernel's read-ahead, RNTuple's cluster
pool):

    loop = decompression + deserialisation            (the warm read's spans)
         + page-cache fill                            bytes the block layer served x the host's system CPU per
                                                      MB of a cold read beyond a warm one (local storage)
         + storage transfer                           bytes the block layer served / the medium's bandwidth
         + storage requests                           the requests that reach the device x its per-request latency
                                                      (remote: the requests ROOT sends x the round trip)
         + throttled requests                         block requests / the IOPS limit, beyond the transfer (hdd_seek)
         - overlap                                    what was fetched behind the CPU (the kernel's read-ahead,
                                                      RNTuple's cluster pool)

The counts (bytes, read calls, block requests, clusters) are the file's layout as the reader met it: they are the
same in every repetition and do not depend on the machine's speed, so the model may take them from the reader's
counters and the file's catalogue; none of its times come from the read it predicts. The overlap is physics, not a
fitted constant: ROOT reads a cluster (a TTreeCache fill) and then works on it; meanwhile the kernel's read-ahead
fetches at least one window (the device's ``read_ahead_kb``) of what comes next, and RNTuple's cluster pool the
whole next cluster. Nothing is fetched behind the first fill (no work precedes it) or after the last (nothing is
left), so each fill after the first hides at most that much storage time, never more than the CPU time spent on a
fill and never more than the fill's own transfer (``predict``).

What the model is for: to tell *why* a rate is what it is (the stacked parts beside the measured rate), to carry
the rates to media the host does not have (``MEDIA``: drawn as predictions, never mixed with measurements), and to
say where it is off (the part whose prediction misses its measured span): that is a finding, not a constant to
tune. Its error is judged beside baselines that need no rule (the warm read alone, the transfer alone, the larger
of the two, their sum: ``baselines_table``), and its rules carry a version (``MODEL_VERSION``) in every table.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import pandas as pd

# The model's rules are frozen under a version: the parts and how they add up, the bandwidth a transfer is charged at,
# which requests pay a latency, how much each fill hides behind the CPU, the page-cache fill. Every table of
# predictions carries it, so that an error is quoted for the rules that made it. Change it (date and a serial)
# whenever any rule changes, however small: a rule changed after its errors were seen has been shaped on them.
MODEL_VERSION = "2026-11-28.1"
# The points the rules were chosen on: an error on them measures how well the rules were fitted, not how well they
# predict. A study with none of these points is a test of the rules.
_MODEL_SHAPED_ON = (
    "the default study's own points (config/config.yaml: compression at levels 1, 5 and 9 and its AutoFlush, "
    "TTreeCache, split, thread and container scans, every point on the hdd profile at 150 MB/s)"
)

_PARTS = (
    "decompression",
    "deserialisation",
    "page_cache_fill",
    "storage_transfer",
    "storage_requests",
    "throttled_requests",
)


@dataclass(frozen=True)
class Medium:
    """What the model needs of a storage: its bandwidth, the latency of one read request beyond its transfer,
    and a limit of block requests per second (a throttle, or a disk's seeks), with where the figures come from."""

    name: str
    bandwidth_bps: float
    request_seconds: float
    block_iops: float | None = None
    measured: bool = True  # False: a medium the host does not have, its figures stated, its rates predictions
    source: str = ""
    # What one request is on this medium: "read_call" (each of ROOT's read calls pays the latency), "device_request"
    # (each request the block layer sent to the device pays it: a read call the read-ahead already brought into
    # the page cache never reaches the device, and costs what it costs in the warm read; a large call's requests go
    # out together, so never more than the read calls), or "cache_fill" (a cache fill is one round trip: XRootD
    # sends a fill's baskets as one vector read; or, on a seeking disk, the lower bound when each fill's baskets
    # lie together and only the jump to a cluster seeks), or "round_trip" (a remote medium: every request ROOT
    # sends over the network waits for its answer. A TTree's read calls are exactly those requests: a TTreeCache
    # fill is one call, TNetXNGFile::ReadBuffers, one vector read however many baskets it holds, and the learning
    # phase's and a cache-less read's baskets one call each. RNTuple counts the byte ranges inside its vector
    # reads as read calls, so there it is one request per cluster its cache loads, or per read call without it).
    requests_per: str = "read_call"
    # The kernel's read-ahead fetches ahead of the reader on a local block device, not over the network.
    read_ahead: bool = True
    # The CPU a cold read spends per byte the block layer brings into the page cache, beyond a warm read
    # (storage_primitives.measure_page_cache_fill): this host's, for a local medium read on this host; 0 where the bytes
    # do not pass through this host's page cache (a remote read) or the host is another machine.
    fill_seconds_per_byte: float = 0.0

    def storage_parts(
        self, storage_bytes: float, read_calls: float, block_requests: float
    ) -> dict[str, float]:
        transfer = storage_bytes / self.bandwidth_bps if self.bandwidth_bps else 0.0
        requests = read_calls * self.request_seconds
        # A throttle with both limits holds each request until both allow it: the storage takes the longer of
        # the two, so the requests' limit adds only what it takes beyond the transfer.
        throttled = max(block_requests / self.block_iops - transfer, 0.0) if self.block_iops else 0.0
        return {"storage_transfer": transfer, "storage_requests": requests, "throttled_requests": throttled}


# Media the host may not have, with the figures they are predicted at (a prediction, drawn as such). A seeking
# disk is charged one seek per cache fill: a fill's baskets were written together at one flush and are read in
# order, so the head jumps once per cluster (the note testbed below also shows the bound of a seek per read call).
MEDIA = {
    "nvme": Medium(
        "NVMe SSD, 3 GB/s", 3.0e9, 80e-6, None, False, "3 GB/s sequential, 80 µs per read request"
    ),
    "hdd-seeking": Medium(
        "5400 rpm HDD, 150 MB/s",
        150e6,
        1 / 30,
        None,
        False,
        "150 MB/s, one 33 ms seek per cache fill (30 IOPS)",
        requests_per="cache_fill",
    ),
    "wan-50ms": Medium(
        "WAN, 50 ms round trip",
        100e6,
        50e-3,
        None,
        False,
        "100 MB/s, one 50 ms round trip per cache fill (a vector read), no read-ahead",
        requests_per="cache_fill",
        read_ahead=False,
    ),
}


def _testbed_disk(iops: float, requests_per: str) -> Medium:
    per = "read call" if requests_per == "read_call" else "cache fill"
    return Medium(
        f"note testbed disk, {iops:g} IOPS, a seek per {per}",
        150e6,
        1 / iops,
        None,
        False,
        f"150 MB/s, {1e3 / iops:.0f} ms per {per}",
        requests_per=requests_per,
    )


# The ATLAS note's testbed (its section 2): a WDC WD5000AZRZ, 5400 rpm, ~150 MB/s host to disk, ~10-50 IOPS. Which
# of ROOT's requests seek is not known from counts, so the prediction is a range: from a seek per cache fill at 50
# IOPS (the fastest) to a seek per read call at 10 IOPS (the slowest); the central one is a seek per fill at 30. No
# page-cache fill: this host's is mostly what a virtual machine pays to have freed memory backed again, and the
# testbed was a workstation.
_NOTE_TESTBED_MEDIA = {
    "fastest": _testbed_disk(50, "cache_fill"),
    "central": _testbed_disk(30, "cache_fill"),
    "slowest": _testbed_disk(10, "read_call"),
}


def _cache_fills(point: Mapping[str, Any]) -> float:
    """How many times the reader went back to the storage after working on what it had: one fill of the
    TTreeCache (or RNTuple's cluster cache) per cluster read, or, without a cache, every read call."""
    cache_on = str(point.get("container")) == "rntuple" or number_or_zero(point.get("cache_size")) != 0
    if not cache_on:
        return max(1.0, number_or_zero(point.get("loop_read_calls")))
    per_cluster = number_or_zero(point.get("events_per_cluster")) or number_or_zero(point.get("events_read"))
    return max(1.0, math.ceil(number_or_zero(point.get("events_read")) / max(per_cluster, 1.0)))


def predict(
    point: Mapping[str, Any],
    cpu: Mapping[str, float],
    medium: Medium,
    read_ahead_bytes: float = 0.0,
    cpu_factor: float = 1.0,
) -> dict[str, float]:
    """The predicted timed loop of one point, by part (seconds), its total and its rate.

    ``point``: the layout counts of the point (events_read, loop_storage_read_bytes or loop_bytes_read,
    loop_read_calls, storage_requests, events_per_cluster, container, cache_size); ``cpu``: the CPU parts of the
    same file and read, ``unzip_seconds`` and ``loop_seconds`` of its warm read (wall time in the loop, so that
    decompression on several threads counts once); ``read_ahead_bytes``: the device's read-ahead window (the
    kernel fetches ahead of the reader asynchronously: while the CPU works on a fill, at least one window of what
    comes next arrives; RNTuple's cluster pool loads the whole next cluster in its I/O thread: that is the
    overlap); ``cpu_factor`` scales the CPU parts (another CPU: its time over this host's)."""
    decompression = float(cpu["unzip_seconds"]) * cpu_factor
    deserialisation = max(float(cpu["loop_seconds"]) - float(cpu["unzip_seconds"]), 0.0) * cpu_factor
    # A local read fetches what the block layer served (the read-ahead's overshoot included); a remote one what
    # ROOT asked for.
    storage_bytes = number_or_zero(point.get("loop_bytes_read"))
    if medium.read_ahead:
        storage_bytes = number_or_zero(point.get("loop_storage_read_bytes")) or storage_bytes
    # System CPU of the reader's own thread: the kernel allocates a read-ahead window's pages and sends its requests
    # (on a virtual machine, the host backs reported memory again) in the reader's read calls.
    page_cache = storage_bytes * medium.fill_seconds_per_byte
    parts = {
        "decompression": decompression,
        "deserialisation": deserialisation,
        "page_cache_fill": page_cache,
    }
    fills = _cache_fills(point)
    block_requests = number_or_zero(point.get("storage_requests"))
    requests = number_or_zero(point.get("loop_read_calls"))
    if medium.requests_per == "cache_fill" or (
        medium.requests_per == "round_trip" and str(point.get("container")) == "rntuple"
    ):
        requests = fills
    elif medium.requests_per == "device_request" and block_requests:
        # ROOT's read calls mostly find their pages already read ahead; at most the block requests reach the disk.
        requests = min(requests, block_requests)
    parts.update(medium.storage_parts(storage_bytes, requests, block_requests))
    # While the reader fills the pages of one window, the device transfers the window before it: the transfer hides
    # behind the fill first, up to the smaller of the two (a fast disk leaves the fill's CPU as the read's pace, a
    # slow one hides the fill), and what is left of it behind the reader's other work, as far as it reaches.
    behind_fill = min(page_cache, parts["storage_transfer"])
    parts["overlap"] = -behind_fill - _hidden_storage(
        point,
        medium,
        storage_bytes,
        fills,
        read_ahead_bytes,
        decompression + deserialisation,
        parts["storage_transfer"] - behind_fill,
    )
    total = sum(parts.values())
    events = number_or_zero(point.get("events_read"))
    return {
        **parts,
        "predicted_loop_seconds": total,
        "predicted_rate_hz": events / total if total > 0 else math.nan,
    }


def _hidden_storage(
    point: Mapping[str, Any],
    medium: Medium,
    storage_bytes: float,
    fills: float,
    read_ahead_bytes: float,
    cpu_seconds: float,
    transfer: float,
) -> float:
    """The storage time fetched while the CPU worked (seconds): the overlap behind decompression and
    deserialisation (``cpu_seconds``) of the ``transfer`` (seconds) not already hidden behind the page-cache fill.

    While the reader works on a fill, what comes next is fetched up to a reach: the kernel's read-ahead window
    (it keeps the current window and the next one in flight, so one window is the least it has ahead when the reader
    stops), or, for RNTuple, the whole next cluster, which its cluster pool loads in a background I/O thread
    whatever the medium. The first fill has nothing before it to hide behind, and after the last nothing is left
    to fetch: of the ``fills``, all but the first are hidden, each by at most the reach, the CPU time of a fill and
    its own transfer. So the overlap never exceeds the CPU time or the storage transfer."""
    if fills <= 1 or not medium.bandwidth_bps:
        return 0.0
    reach = read_ahead_bytes if medium.read_ahead else 0.0
    if str(point.get("container")) == "rntuple":
        reach = max(reach, storage_bytes / fills)
    return (fills - 1) / fills * min(fills * reach / medium.bandwidth_bps, transfer, cpu_seconds)


def number_or_zero(value) -> float:
    """``value`` as a float; 0 where it is missing, not a number or not finite (a count the reader did not give)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return 0.0
    return number if math.isfinite(number) else 0.0


# --- The model against a study ------------------------------------------------------------------------------

_KEYS = ["format", "file_id", "read_id"]
_MEANS = [
    "events_read",
    "loop_seconds",
    "loop_cpu_seconds",
    "loop_system_cpu_seconds",
    "loop_unzip_seconds",
    "loop_unzip_output_bytes",
    "loop_disk_seconds",
    "loop_storage_read_bytes",
    "loop_bytes_read",
    "loop_read_calls",
    "storage_requests",
]
_FIRSTS = ["container", "cache_size", "threads", "storage_profile", "storage_read_bps", "storage_read_iops"]
# The targets a prediction is judged on, over the valid points of a scan and storage profile.
_MEDIAN_ERROR_TARGET = 0.10
P90_ERROR_TARGET = 0.25
# Predictions without the model's rules, from the same two figures the model starts from on the same points: the
# warm read of the same file and read (its loop's wall time), and the bytes the storage served over the medium's
# bandwidth (the model's own transfer part: the same bytes, the same bandwidth). The model's error means something
# only beside theirs: where the warm read is most of the loop, or the transfer is, one of them alone is already close.
_BASELINES = {
    "warm_cpu": "warm CPU alone",
    "transfer": "B / bandwidth alone",
    "max": "max of the two",
    "sum": "sum of the two",
}
# Every predictor of the baselines table, the model first.
_PREDICTORS = {"model": "model", **_BASELINES}


def study_points(
    repetitions: pd.DataFrame,
    files: pd.DataFrame,
    summary: pd.DataFrame,
    points: pd.DataFrame,
    valid_only: bool = True,
) -> pd.DataFrame:
    """The study's valid points (every point with an unflagged repetition, if not ``valid_only``: the adaptive
    plan's surveyed points, whose one read gives their layout counts): the means of their unflagged repetitions'
    counts and spans, their clusters, the measured rate with its 95 % interval, and the scans they belong to."""
    reps = repetitions[repetitions["flagged"] != True]  # noqa: E712 (booleans and NaN)
    firsts = [c for c in _FIRSTS if c in reps.columns]
    means = [c for c in _MEANS if c in reps.columns]
    out = (
        reps.groupby(_KEYS).agg({**{c: "mean" for c in means}, **{c: "first" for c in firsts}}).reset_index()
    )
    rate = ["event_rate_hz_mean", "event_rate_hz_ci95_low", "event_rate_hz_ci95_high", "n", "valid"]
    out = out.merge(files[["format", "file_id", "events_per_cluster"]], on=["format", "file_id"], how="left")
    out = out.merge(summary[[*_KEYS, *rate]], on=_KEYS, how="left").merge(points, on=_KEYS, how="left")
    if not valid_only:
        return out
    return out[out["valid"] == True].reset_index(drop=True)  # noqa: E712


def scans_of(column: pd.Series) -> pd.Series:
    """Each point's scans as a list (points.csv joins them with ";")."""
    return column.fillna("").astype(str).str.split(";")


def read_study_points(repetitions: str, files: str, summary: str, points: str) -> pd.DataFrame:
    """study_points of the study's tables on disk (repetitions.csv, files.csv, summary.csv, points.csv)."""
    return study_points(
        pd.read_csv(repetitions, low_memory=False),
        pd.read_csv(files),
        pd.read_csv(summary, low_memory=False),
        pd.read_csv(points),
    )


def media_from_storage(table: pd.DataFrame) -> tuple[dict[str, Medium], float]:
    """Per storage profile, the medium fio measured (results/primitives/storage.csv): the bandwidth of buffered
    sequential reads (what ROOT meets, read-ahead included) in the block layer's bytes, the disk's own latency of a
    4 kB random read beyond its transfer, paid by each request that reaches the device (a throttled profile adds
    its limits, charged as throttled requests, not as latency), the profile's IOPS limit; and the device's
    read-ahead in bytes.

    The bandwidth is the device's bytes per second of the buffered run (``device_bandwidth_bps``), not fio's own:
    ``predict`` charges the bytes the block layer served (the read-ahead's included), and fio's own rate is lower
    by the read-ahead it never used when its run stopped (up to two windows; 15 MiB of a 1 s run on ``hdd``), an
    end effect of a 1 s run, not a rate. Without the device's count, fio's own rate.

    Every medium read through this host's page cache pays the host's page-cache fill per byte
    (``page_cache_fill_seconds_per_byte``)."""
    media = {}
    page_cache = _page_cache_fill_seconds_per_byte(table)
    native = table[(table["storage_profile"] == "native") & (table["io_mode"] == "buffered")]
    rnd = native[(native["pattern"] == "random") & (native["block_bytes"] == 4096)]
    for profile, g in table.groupby("storage_profile"):
        seq = g[(g["pattern"] == "sequential") & (g["io_mode"] == "buffered")]
        bandwidth = float(seq["bandwidth_bps"].iloc[0])
        if "device_bandwidth_bps" in seq:
            bandwidth = number_or_zero(seq["device_bandwidth_bps"].iloc[0]) or bandwidth
        latency = float(rnd["latency_s_mean"].iloc[0]) - 4096 / bandwidth if len(rnd) else 0.0
        iops = g["nominal_read_iops"].dropna()
        media[str(profile)] = Medium(
            str(profile),
            bandwidth,
            max(latency, 0.0),
            float(iops.iloc[0]) if len(iops) else None,
            requests_per="device_request",
            fill_seconds_per_byte=page_cache,
        )
    return media, float(table["read_ahead_kb"].iloc[0]) * 1024


def _page_cache_fill_seconds_per_byte(table: pd.DataFrame) -> float:
    """The host's system CPU per byte a cold read brings into the page cache, beyond a warm read (the storage
    primitives' page-cache fill row); 0 where the table has none (measured before it was)."""
    if "fill_cpu_s_per_mb" not in table:
        return 0.0
    return number_or_zero(table["fill_cpu_s_per_mb"].dropna().mean()) / 1e6


def _media_from_remote(table: pd.DataFrame | None) -> dict[str, Medium]:
    """Per remote storage profile, the medium measured through its endpoint with ROOT (results/primitives/remote.csv,
    rootparams.measure.remote_primitives): the bandwidth of one large transfer (its round trip taken off), the mean round trip of
    a small read less its own bytes' transfer, paid by every request ROOT sends (``requests_per="round_trip"``),
    and no kernel read-ahead (the reader's kernel reads nothing ahead over the network; the server's disk is in the
    measured figures: the file was cold, as in the timed reads). A profile that was not measured has no medium, and
    its points stay unpredicted."""
    if table is None or table.empty:
        return {}
    media = {}
    for _, row in table.iterrows():
        bandwidth, latency = number_or_zero(row.get("bandwidth_bps")), row.get("request_seconds")
        if bandwidth <= 0 or not (latency == latency and latency is not None):
            continue
        name = str(row["storage_profile"])
        media[name] = Medium(
            name,
            bandwidth,
            float(latency),
            None,
            source=(
                f"measured through its endpoint: {bandwidth / 1e6:.1f} MB/s, {float(latency) * 1e3:.3f} ms per "
                "round trip"
            ),
            requests_per="round_trip",
            read_ahead=False,
        )
    return media


def _cpu_of_points(points: pd.DataFrame, warm: pd.DataFrame) -> dict[tuple, dict[str, float]]:
    """Per point, the CPU parts of its warm set (results/primitives/cpu_summary.csv): the warm loop's wall time
    for the point's events, split into decompression (CPU per uncompressed MB x the point's uncompressed MB) and
    the rest. Where the warm read recorded no unzip time (decompression in ROOT's own unzip thread), the whole warm
    loop is the rest."""
    sets = {}
    for _, s in warm.iterrows():
        for read_id in str(s["stands_for_read_ids"]).split(";"):
            sets[(s["format"], s["file_id"], read_id)] = s
    cpu = {}
    for _, p in points.iterrows():
        s = sets.get((p["format"], p["file_id"], p["read_id"]))
        if s is None or not s["warm_rate_hz_mean"] > 0:
            continue
        loop = p["events_read"] / s["warm_rate_hz_mean"]
        unzip = s["unzip_cpu_s_per_mb_uncompressed_mean"] * p["loop_unzip_output_bytes"] / 1e6
        unzip = min(unzip, loop) if unzip == unzip else 0.0
        system = s.get("system_cpu_us_per_event_mean", math.nan) * p["events_read"] / 1e6
        cpu[(p["format"], p["file_id"], p["read_id"])] = {
            "unzip_seconds": unzip,
            "loop_seconds": loop,
            "system_seconds": system,
        }
    return cpu


def predicted_points(
    points: pd.DataFrame, storage: pd.DataFrame, warm: pd.DataFrame, remote: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Every valid point with its predicted parts (seconds), predicted rate, the measured rate and its interval,
    and the error of the rate (predicted / measured - 1). The media are the local profiles' (``storage``: fio) and
    the remote profiles' (``remote``: round trips and bandwidth through their endpoints, where the study has any).
    Points without a warm set or a measured medium (a remote profile whose primitives are missing) are left out."""
    media, read_ahead = media_from_storage(storage)
    media.update(_media_from_remote(remote))
    cpu = _cpu_of_points(points, warm)
    rows = []
    for p, pred in _predictions(points, cpu, lambda p: media.get(str(p["storage_profile"])), read_ahead):
        # The cold loop's system CPU beyond the warm read's: the page-cache fill as it happened (NaN where the
        # reader did not count system CPU apart, or where its bytes came over the network, not through its page
        # cache).
        measured_fill = math.nan
        if media[str(p["storage_profile"])].read_ahead:
            warm_system = cpu[(p["format"], p["file_id"], p["read_id"])].get("system_seconds", math.nan)
            measured_fill = p.get("loop_system_cpu_seconds", math.nan) - warm_system
        rows.append(
            {
                "model_version": MODEL_VERSION,
                **{k: p[k] for k in (*_KEYS, "scans", "storage_profile", "events_read")},
                **pred,
                "warm_cpu_seconds": cpu[(p["format"], p["file_id"], p["read_id"])]["loop_seconds"],
                "measured_rate_hz": p["event_rate_hz_mean"],
                "measured_rate_hz_ci95_low": p["event_rate_hz_ci95_low"],
                "measured_rate_hz_ci95_high": p["event_rate_hz_ci95_high"],
                "n": p["n"],
                "rate_error": pred["predicted_rate_hz"] / p["event_rate_hz_mean"] - 1,
                "measured_loop_seconds": p["loop_seconds"],
                "measured_disk_seconds": p["loop_disk_seconds"],
                "measured_unzip_seconds": p["loop_unzip_seconds"],
                "measured_page_cache_fill": measured_fill,
            }
        )
    return _with_baselines(pd.DataFrame(rows))


def _with_baselines(predicted: pd.DataFrame) -> pd.DataFrame:
    """``predicted`` (predicted_points' rows) with, per point, the share of its predicted loop that is the warm
    read of the same file (``warm_share``: warm_cpu_seconds / predicted_loop_seconds) and each baseline's predicted
    loop, rate and rate error (``baseline_<name>_loop_seconds``, ``_rate_hz``, ``_rate_error``): the warm CPU
    alone, the transfer alone (the model's ``storage_transfer``: the bytes the block layer served, or ROOT's bytes on
    a remote profile, over the medium's bandwidth), the larger of the two (the storage wholly hidden behind the CPU
    or the CPU behind it) and their sum (nothing hidden). A baseline that predicts no time (no bytes read) has no
    rate."""
    if predicted.empty:
        return predicted
    out = predicted.copy()
    warm, transfer = out["warm_cpu_seconds"].astype(float), out["storage_transfer"].astype(float)
    out["warm_share"] = warm / out["predicted_loop_seconds"].where(out["predicted_loop_seconds"] > 0)
    loops = {
        "warm_cpu": warm,
        "transfer": transfer,
        "max": pd.concat([warm, transfer], axis=1).max(axis=1),
        "sum": warm + transfer,
    }
    for name, loop in loops.items():
        rate = out["events_read"].astype(float) / loop.where(loop > 0)
        out[f"baseline_{name}_loop_seconds"] = loop
        out[f"baseline_{name}_rate_hz"] = rate
        out[f"baseline_{name}_rate_error"] = rate / out["measured_rate_hz"] - 1
    return out


def _predictions(
    points: pd.DataFrame, cpu: Mapping[tuple, Mapping], medium_of, read_ahead: float, factor=1.0
):
    """(point, prediction) for every point with CPU parts and a medium (``medium_of(point)``, None: none)."""
    for _, p in points.iterrows():
        key = (p["format"], p["file_id"], p["read_id"])
        medium = medium_of(p)
        if key in cpu and medium is not None:
            yield p, predict(p.to_dict(), cpu[key], medium, read_ahead, factor)


def media_points(
    points: pd.DataFrame, storage: pd.DataFrame, warm: pd.DataFrame, media: Mapping[str, Medium] = MEDIA
) -> pd.DataFrame:
    """Every valid point predicted on each medium of ``media`` that the host does not have: the same CPU parts
    (this host's warm reads) and layout counts, the medium's stated storage figures, the host's read-ahead where
    the medium has one, and the host's page-cache fill where the medium is a local disk read through it. One row per
    point and medium, ``measured`` False: predictions, never measurements."""
    _, read_ahead = media_from_storage(storage)
    page_cache = _page_cache_fill_seconds_per_byte(storage)
    media = {
        key: replace(medium, fill_seconds_per_byte=page_cache) if medium.read_ahead else medium
        for key, medium in media.items()
    }
    cpu = _cpu_of_points(points, warm)
    rows = []
    for key, medium in media.items():
        for p, pred in _predictions(points, cpu, lambda p, m=medium: m, read_ahead):
            rows.append(
                {
                    "model_version": MODEL_VERSION,
                    **{k: p[k] for k in (*_KEYS, "scans", "events_read")},
                    "medium": key,
                    "medium_name": medium.name,
                    "medium_figures": medium.source,
                    "measured": False,
                    **pred,
                }
            )
    return pd.DataFrame(rows)


def errors_table(predicted: pd.DataFrame) -> pd.DataFrame:
    """Per scan and per storage profile (and all points): the points, the median and 90th percentile of
    |predicted / measured - 1| of the rate against the targets, the signed median, and the part whose prediction
    misses its measured span most (storage: the predicted wait against the loop's disk time; decompression
    against the unzip time; deserialisation against the rest)."""
    if predicted.empty:
        return pd.DataFrame(
            columns=["model_version", "group", "value", "points", "median_abs_error", "p90_abs_error"]
        )
    rows = []
    for group, value, g in _error_groups(predicted):
        err = g["rate_error"].abs()
        median, p90 = float(err.median()), float(err.quantile(0.9))
        rows.append(
            {
                "model_version": MODEL_VERSION,
                "group": group,
                "value": value,
                "points": len(g),
                "median_abs_error": median,
                "p90_abs_error": p90,
                "meets_targets": median <= _MEDIAN_ERROR_TARGET and p90 <= P90_ERROR_TARGET,
                "signed_median_error": float(g["rate_error"].median()),
                "part_most_off": _part_most_off(g),
            }
        )
    return pd.DataFrame(rows)


def _error_groups(predicted: pd.DataFrame) -> list[tuple[str, str, pd.DataFrame]]:
    """The groups a prediction's errors are judged over: all points, each scan (a point belongs to every scan it
    is in: the default point to most of them) and each storage profile, as (group, value, points)."""
    groups = [("all", "all", predicted)]
    by_scan = predicted.assign(scan=scans_of(predicted["scans"])).explode("scan")
    groups += [("scan", k, g) for k, g in by_scan.groupby("scan")]
    groups += [("storage_profile", k, g) for k, g in predicted.groupby("storage_profile")]
    return groups


def baselines_table(predicted: pd.DataFrame) -> pd.DataFrame:
    """Per group of errors_table (all, scan, storage profile): the median and 90th percentile of |predicted /
    measured - 1| of the rate for the model and for each baseline (BASELINES) on the same points, the median share
    of the model's prediction that is the warm read of the same file, and the baseline with the lowest median
    error: what the model adds over it is the difference. ``predicted``: predicted_points' rows (with_baselines)."""
    columns = ["model_version", "group", "value", "points", "median_warm_share"]
    columns += [f"{name}_{stat}_abs_error" for name in _PREDICTORS for stat in ("median", "p90")]
    columns += ["best_baseline"]
    if predicted.empty:
        return pd.DataFrame(columns=columns)
    rows = []
    for group, value, g in _error_groups(predicted):
        row = {
            "model_version": MODEL_VERSION,
            "group": group,
            "value": value,
            "points": len(g),
            "median_warm_share": float(g["warm_share"].median()),
        }
        for name in _PREDICTORS:
            column = "rate_error" if name == "model" else f"baseline_{name}_rate_error"
            err = g[column].abs()
            row[f"{name}_median_abs_error"] = float(err.median())
            row[f"{name}_p90_abs_error"] = float(err.quantile(0.9))
        medians = {name: row[f"{name}_median_abs_error"] for name in _BASELINES}
        known = {name: m for name, m in medians.items() if m == m}
        row["best_baseline"] = min(known, key=known.get) if known else ""
        rows.append(row)
    return pd.DataFrame(rows, columns=columns)


def _percent(value: float) -> str:
    return f"{100 * value:.1f} %" if value == value else "–"


def baselines_markdown(table: pd.DataFrame) -> str:
    """The baselines table for a reader: per group, the model's error beside each baseline's (median, 90th
    percentile in brackets), the best baseline's marked, the warm read's share of the prediction, the rules'
    version, and where a baseline does as well as the model."""
    lines = [
        "# The model against baselines",
        "",
        f"Model rules: version {MODEL_VERSION} (`rootparams.model.model.MODEL_VERSION`). The rules were chosen on "
        f"{_MODEL_SHAPED_ON}; on those points this table shows how well they were fitted, on any other how well "
        "they predict.",
        "",
        "Error of the predicted event rate, |predicted / measured - 1|: median (90th percentile) over the valid "
        "points of each group. Every predictor on the same points from the same figures: the warm read of the "
        "same file and read (its loop's wall time), and the bytes the storage served over the medium's bandwidth "
        "(B / bandwidth; the model's transfer part). *max* assumes the shorter of the two wholly hidden behind the "
        "longer, *sum* nothing hidden. The best baseline of each group is in bold. The warm read's share is the "
        "median of warm read / the model's predicted loop: how much of each prediction is the warm read of the "
        "same file.",
        "",
    ]
    if table.empty:
        return "\n".join([*lines, "No point with warm reads and storage primitives: nothing predicted.", ""])
    header = ["group", "points", "warm read's share", *_PREDICTORS.values()]
    lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    no_gain = []
    for _, r in table.iterrows():
        name = "all" if r["group"] == "all" else f"{r['group'].replace('_', ' ')}: {r['value']}"
        cells = [name, str(int(r["points"])), _percent(r["median_warm_share"])]
        for predictor in _PREDICTORS:
            cell = f"{_percent(r[f'{predictor}_median_abs_error'])} ({_percent(r[f'{predictor}_p90_abs_error'])})"
            cells.append(f"**{cell}**" if predictor == r["best_baseline"] else cell)
        lines.append("| " + " | ".join(cells) + " |")
        best = r["best_baseline"]
        if best and r[f"{best}_median_abs_error"] <= r["model_median_abs_error"]:
            no_gain.append(f"{name} ({_BASELINES[best]})")
    lines.append("")
    if no_gain:
        lines.append(
            "Groups where a baseline's median error is at or below the model's: " + "; ".join(no_gain) + "."
        )
    else:
        lines.append("In every group the model's median error is below the best baseline's.")
    return "\n".join(lines) + "\n"


def _part_most_off(g: pd.DataFrame) -> str:
    storage = g[["storage_transfer", "storage_requests", "throttled_requests", "overlap"]].sum(axis=1)
    # The page-cache fill is system CPU, mostly inside the reader's read calls, which the measured disk time counts
    # (completions that arrive while the reader works land in the rest).
    if "page_cache_fill" in g:
        storage = storage + g["page_cache_fill"]
    rest = g["measured_loop_seconds"] - g["measured_disk_seconds"] - g["measured_unzip_seconds"]
    misses = {
        "storage": float((storage - g["measured_disk_seconds"]).median()),
        "decompression": float((g["decompression"] - g["measured_unzip_seconds"]).median()),
        "deserialisation": float((g["deserialisation"] - rest).median()),
    }
    if "measured_page_cache_fill" in g and g["measured_page_cache_fill"].notna().any():
        misses["page-cache fill"] = float((g["page_cache_fill"] - g["measured_page_cache_fill"]).median())
    part, miss = max(misses.items(), key=lambda kv: abs(kv[1]) if kv[1] == kv[1] else -1)
    return f"{part} {miss * 1e3:+.0f} ms (median)"


def draw(predicted: pd.DataFrame):
    """Predicted against measured rate, one marker per valid point (the measured 95 % interval as a bar), with
    the ±10 % band of the median target."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 6))
    if predicted.empty:
        ax.text(
            0.5, 0.5, "no point with warm reads and storage primitives", ha="center", transform=ax.transAxes
        )
        return fig
    for profile, g in predicted.groupby("storage_profile"):
        yerr = [
            g["measured_rate_hz"] - g["measured_rate_hz_ci95_low"],
            g["measured_rate_hz_ci95_high"] - g["measured_rate_hz"],
        ]
        ax.errorbar(
            g["predicted_rate_hz"], g["measured_rate_hz"], yerr=yerr, fmt="o", ms=4, label=str(profile)
        )
    lo = float(min(predicted["predicted_rate_hz"].min(), predicted["measured_rate_hz"].min())) * 0.8
    hi = float(max(predicted["predicted_rate_hz"].max(), predicted["measured_rate_hz"].max())) * 1.25
    xs = [lo, hi]
    ax.plot(xs, xs, color="black", lw=1, label="measured = predicted")
    ax.fill_between(xs, [x / 1.1 for x in xs], [x * 1.1 for x in xs], color="grey", alpha=0.2, label="±10 %")
    ax.set(
        xscale="log", yscale="log", xlabel="predicted events/s (model)", ylabel="measured events/s (95 % CI)"
    )
    ax.set_title("The model of the timed loop against the measured rates")
    ax.legend(fontsize=8)
    return fig


# --- The note's testbed --------------------------------------------------------------------------------------

# The note's Table 1: the primary xAOD, all IParticleContainer branches of its first 2000 events, 10 repetitions:
# (algorithm, level) -> (file size in bytes, event rate in Hz, its 1σ).
_NOTE_TABLE1 = {
    ("lz4", 1): (8.756e9, 63.0, 1.1),
    ("lz4", 3): (8.756e9, 62.3, 0.8),
    ("lz4", 5): (7.674e9, 67.3, 1.1),
    ("lz4", 7): (7.597e9, 67.5, 0.8),
    ("lz4", 9): (7.556e9, 68.1, 1.2),
    ("zlib", 1): (7.381e9, 58.7, 0.6),
    ("zlib", 3): (7.268e9, 59.6, 0.7),
    ("zlib", 5): (7.030e9, 59.4, 0.7),
    ("zlib", 7): (6.896e9, 60.5, 0.8),
    ("zlib", 9): (6.782e9, 61.1, 0.8),
    ("lzma", 1): (6.203e9, 15.4, 0.0),
    ("lzma", 3): (6.149e9, 15.6, 0.0),
    ("lzma", 5): (5.978e9, 15.5, 0.1),
    ("lzma", 7): (5.901e9, 15.6, 0.0),
    ("lzma", 9): (5.901e9, 15.5, 0.0),
}
# Sizes are compared relative to the note's own ZLIB-5 file (the note does not give its number of events).
_NOTE_SIZE_REFERENCE = ("zlib", 5)


@dataclass(frozen=True)
class ReferenceCpu:
    """A CPU by its published one-thread 7-Zip decompression rating (rootparams.measure.cpureference)."""

    name: str
    decompression_mips: float
    source: str


# No one-thread 7-Zip rating of the i7-6700 itself is at hand. Its core is Skylake's, which the Kaby Lake Pentium
# G4600 shares (same core design, same instructions per clock); that CPU's published one-thread p7zip 16.02 run
# (sbc-bench, ThomasKaiser/sbc-bench results/2jVw.txt, 2020-04-28) rated 3682 MIPS in decompression at 3.59 GHz,
# which scales by clock to 4100 MIPS at the i7-6700's one-core turbo of 4.0 GHz. An estimate, stated as one.
NOTE_TESTBED_CPU = ReferenceCpu(
    "Intel Core i7-6700 (Skylake, 4.0 GHz one-core turbo)",
    3682 * 4.0 / 3.59,
    "estimated: a Pentium G4600's published p7zip 16.02 one-thread rating, 3682 MIPS at 3.59 GHz, "
    "the same core, scaled by clock to 4.0 GHz",
)


def cpu_factor(host_mips: float, reference: ReferenceCpu) -> float:
    """How much longer the reference CPU takes for this host's CPU work: the host's rating over the reference's
    (a rating is a speed). NaN where either is unknown."""
    if not (
        host_mips and host_mips == host_mips and reference.decompression_mips == reference.decompression_mips
    ):
        return math.nan
    return float(host_mips) / reference.decompression_mips


def note_testbed_table(
    points: pd.DataFrame,
    storage: pd.DataFrame,
    warm: pd.DataFrame,
    files: pd.DataFrame,
    host_mips: float,
    reference: ReferenceCpu = NOTE_TESTBED_CPU,
) -> pd.DataFrame:
    """The note's Table 1 predicted for its testbed: every valid primary-xAOD point of the compression scan read
    as the note read it (TTree, cluster cache on, one thread, the particle containers), its CPU parts from this
    host's warm reads scaled by ``cpu_factor`` (host against the testbed's CPU), its storage on the testbed's
    disk (NOTE_TESTBED_MEDIA: central, and the range from the fastest to the slowest seek assumption), beside the
    note's published rate and relative size and this host's measured rate. Per event (ms) the central prediction's
    parts, so that a difference can be read off the part that makes it."""
    factor = cpu_factor(host_mips, reference)
    use = factor if factor == factor else 1.0
    chosen = points[
        (points["format"] == "xaod")
        & scans_of(points["scans"]).map(lambda s: "compression" in s)
        & (points["container"].astype(str) == "ttree")
        & (points["threads"].astype(float) == 1)
        & (points["cache_size"].astype(float) != 0)
    ]
    _, read_ahead = media_from_storage(storage)
    cpu = _cpu_of_points(chosen, warm)
    xaod_files = files[files["format"] == "xaod"].set_index("file_id")  # file ids repeat across formats
    size = xaod_files.get("bytes_per_event")
    algorithm, level = xaod_files["algorithm"], xaod_files["level"]
    reference_file = [
        f for f in chosen["file_id"] if (str(algorithm.get(f)), int(level.get(f, -1))) == _NOTE_SIZE_REFERENCE
    ]
    reference_size = float(size[reference_file[0]]) if size is not None and reference_file else math.nan
    rows = []
    for _, p in chosen.iterrows():
        key = (p["format"], p["file_id"], p["read_id"])
        if key not in cpu:
            continue
        setting = (str(algorithm[p["file_id"]]), int(level[p["file_id"]]))
        predicted = {
            name: predict(p.to_dict(), cpu[key], medium, read_ahead, use)
            for name, medium in _NOTE_TESTBED_MEDIA.items()
        }
        central = predicted["central"]
        events = float(p["events_read"])
        note = _NOTE_TABLE1.get(setting, (math.nan, math.nan, math.nan))
        # The two bounds of the overlap, and the CPU factor each would need to give the note's rate: the storage
        # added to the CPU (the sum; no read-ahead), or hidden behind it (the larger of the two: a drive that
        # prefetches a whole cluster into its cache while the CPU works). One factor for all settings under the
        # right bound; a spread of factors under the wrong one.
        host = predict(p.to_dict(), cpu[key], _NOTE_TESTBED_MEDIA["central"], 0.0, 1.0)
        cpu_ms = 1e3 * (host["decompression"] + host["deserialisation"]) / events
        storage_ms = (
            1e3
            * sum(host[k] for k in ("storage_transfer", "storage_requests", "throttled_requests"))
            / events
        )
        note_ms = 1e3 / note[1] if note[1] == note[1] else math.nan
        full_overlap_ms = max(cpu_ms * use, storage_ms)
        note_reference = _NOTE_TABLE1[_NOTE_SIZE_REFERENCE][0]
        rows.append(
            {
                "model_version": MODEL_VERSION,
                "algorithm": setting[0],
                "level": setting[1],
                "note_rate_hz": note[1],
                "note_rate_sigma_hz": note[2],
                "predicted_rate_hz": central["predicted_rate_hz"],
                "predicted_rate_hz_low": predicted["slowest"]["predicted_rate_hz"],
                "predicted_rate_hz_high": predicted["fastest"]["predicted_rate_hz"],
                "predicted_over_note": central["predicted_rate_hz"] / note[1],
                "predicted_rate_hz_full_overlap": 1e3 / full_overlap_ms,
                "host_cpu_ms_per_event": cpu_ms,
                "testbed_storage_ms_per_event": storage_ms,
                "cpu_factor_fit_sum": (note_ms - storage_ms) / cpu_ms,
                "cpu_factor_fit_overlap": note_ms / cpu_ms if note_ms > storage_ms else math.nan,
                "host_measured_rate_hz": p["event_rate_hz_mean"],
                "host_measured_rate_hz_ci95_low": p["event_rate_hz_ci95_low"],
                "host_measured_rate_hz_ci95_high": p["event_rate_hz_ci95_high"],
                "host_n": p["n"],
                "note_size_relative": note[0] / note_reference,
                "size_relative": float(size[p["file_id"]]) / reference_size if size is not None else math.nan,
                **{f"{part}_ms_per_event": 1e3 * central[part] / events for part in (*_PARTS, "overlap")},
                "cpu_factor": factor,
                "events_read": events,
                "file_id": p["file_id"],
            }
        )
    table = pd.DataFrame(rows)
    if not table.empty:
        order = {"lz4": 0, "zlib": 1, "lzma": 2, "zstd": 3, "none": 4}
        table = table.sort_values(
            ["algorithm", "level"], key=lambda c: c.map(order) if c.name == "algorithm" else c
        )
    return table.reset_index(drop=True)


def note_testbed_markdown(
    table: pd.DataFrame, host_mips: float, reference: ReferenceCpu = NOTE_TESTBED_CPU
) -> str:
    """The predicted Table 1 beside the published one, with what it assumed, and the ZLIB-5 / LZMA-5 ratio."""
    factor = cpu_factor(host_mips, reference)
    lines = [
        "# The note's Table 1 predicted for its testbed",
        "",
        f"Model rules: version {MODEL_VERSION}.",
        "",
    ]
    if table.empty:
        # A study without the primary xAOD's compression scan (read as the note read it), or without its warm reads.
        return "\n".join(
            [
                *lines,
                "Nothing to predict: this study has no valid point of the primary xAOD's compression scan read as "
                "the note read it (TTree, cache on, one thread) with its warm reads. The default study has them.",
                "",
            ]
        )
    if factor == factor:
        lines.append(
            f"CPU: this host's CPU parts (its warm reads) x {factor:.2f}, the ratio of this host's one-thread "
            f"7-Zip decompression rating ({host_mips:.0f} MIPS, measured) to the testbed's {reference.name} "
            f"({reference.decompression_mips:.0f} MIPS, {reference.source}). One factor for decompression and "
            "deserialisation alike: an assumption."
        )
    else:
        lines.append(
            "CPU: **no factor** (7-Zip's rating of this host or of the testbed's CPU is missing): the CPU parts "
            "are this host's, unscaled, so the rates below are not the testbed's."
        )
    lines += [
        "",
        "Storage: the testbed's disk, 150 MB/s; the central prediction with one 33 ms seek (30 IOPS) per cache "
        "fill, the range from a 20 ms seek per fill (50 IOPS) to a 100 ms seek per read call (10 IOPS). Events: "
        "this study's primary xAOD, the note's read (TTree, cache on, one thread, the particle containers).",
        "",
        "| setting | note (Hz) | predicted (Hz) | range | storage hidden (Hz) | host measured (Hz, 95 % CI, n) "
        "| size rel. ZLIB-5: note / ours | decompression | deserialisation | storage | overlap (ms/event) |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for _, r in table.iterrows():
        storage = (
            r["storage_transfer_ms_per_event"]
            + r["storage_requests_ms_per_event"]
            + r["throttled_requests_ms_per_event"]
        )
        lines.append(
            f"| {r['algorithm'].upper()}-{r['level']} | {r['note_rate_hz']:.1f} ± {r['note_rate_sigma_hz']:.1f} "
            f"| {r['predicted_rate_hz']:.1f} | {r['predicted_rate_hz_low']:.1f}-{r['predicted_rate_hz_high']:.1f} "
            f"| {r['predicted_rate_hz_full_overlap']:.1f} "
            f"| {r['host_measured_rate_hz']:.1f} ({r['host_measured_rate_hz_ci95_low']:.1f}-"
            f"{r['host_measured_rate_hz_ci95_high']:.1f}, {int(r['host_n'])}) "
            f"| {r['note_size_relative']:.3f} / {r['size_relative']:.3f} "
            f"| {r['decompression_ms_per_event']:.1f} | {r['deserialisation_ms_per_event']:.1f} | {storage:.1f} "
            f"| {r['overlap_ms_per_event']:.1f} |".replace("nan ± nan", "–").replace("nan", "–")
        )
    ratio = (
        _note_ratio(table, "predicted_rate_hz"),
        _note_ratio(table, "note_rate_hz"),
        _note_ratio(table, "host_measured_rate_hz"),
    )
    if ratio[0] == ratio[0]:
        lines += [
            "",
            f"ZLIB-5 / LZMA-5 event rate: note {ratio[1]:.2f}, predicted for the testbed {ratio[0]:.2f}, "
            f"with the storage hidden {_note_ratio(table, 'predicted_rate_hz_full_overlap'):.2f}, "
            f"measured on this host {ratio[2]:.2f}.",
        ]
    published = table[table["note_rate_hz"].notna()]
    if len(published):
        lines += [
            "",
            "The CPU factor each published rate needs (this host's CPU per event x factor = the testbed's):",
            "",
        ]
        for column, bound in (
            ("cpu_factor_fit_sum", "storage added to the CPU"),
            (
                "cpu_factor_fit_overlap",
                "storage hidden behind the CPU (settings that would be storage-bound left out)",
            ),
        ):
            fits = published[column].dropna()
            each = ", ".join(
                f"{a.upper()}-{lv} {v:.2f}"
                for a, lv, v in zip(
                    published.loc[fits.index, "algorithm"],
                    published.loc[fits.index, "level"],
                    fits,
                    strict=True,
                )
            )
            spread = f"; spread {fits.min():.2f}-{fits.max():.2f}" if len(fits) else ""
            lines.append(f"- {bound}: {each or 'none'}{spread}")
        lines += [
            "",
            "Under the bound that describes the testbed, one factor fits every setting; the other bound needs a "
            "different factor per algorithm.",
        ]
    return "\n".join(lines) + "\n"


def _note_ratio(table: pd.DataFrame, column: str, a=("zlib", 5), b=("lzma", 5)) -> float:
    """``column`` of setting ``a`` over that of setting ``b`` (NaN where either is missing)."""

    def value(setting):
        row = table[(table["algorithm"] == setting[0]) & (table["level"] == setting[1])]
        return float(row[column].iloc[0]) if len(row) else math.nan

    return value(a) / value(b)


# --- Figures: the parts beside the measured rate, and media the host lacks ----------------------------------

_PART_COLOURS = {
    "decompression": "#1f77b4",
    "deserialisation": "#2ca02c",
    "page_cache_fill": "#8c564b",
    "storage_transfer": "#ff7f0e",
    "storage_requests": "#d62728",
    "throttled_requests": "#9467bd",
}


def _point_labels(table: pd.DataFrame) -> pd.Series:
    """Short names of points: the tokens of their file and read ids that most points do not share (what sets a
    point apart within the study); "default" where none is left."""
    tokens = [f"{f}_{r}".split("_") for f, r in zip(table["file_id"], table["read_id"], strict=True)]
    counts: dict[str, int] = {}
    for ts in tokens:
        for t in set(ts):
            counts[t] = counts.get(t, 0) + 1
    common = {t for t, n in counts.items() if n > 0.6 * len(tokens)}
    return pd.Series(
        [" ".join(t for t in ts if t not in common) or "default" for ts in tokens], index=table.index
    )


def draw_parts(predicted: pd.DataFrame, fmt: str):
    """One format's valid points: the predicted parts of an event's time (ms) as a stacked bar, the read-ahead's
    overlap hatched off its end, the predicted total as a tick and the measured time per event (1 / rate, its 95 %
    interval) as a black marker beside it."""
    import matplotlib.pyplot as plt

    g = predicted[predicted["format"] == fmt].copy()
    fig, ax = plt.subplots(figsize=(9, 1.2 + 0.28 * max(len(g), 1)))
    if g.empty:
        ax.text(0.5, 0.5, f"no {fmt} point with warm reads and storage primitives", ha="center")
        return fig
    g["label"] = _point_labels(g)
    g = g.sort_values(["scans", "label"]).reset_index(drop=True)
    per_event = 1e3 / g["events_read"]
    left = pd.Series(0.0, index=g.index)
    ys = range(len(g))
    for part, colour in _PART_COLOURS.items():
        if part not in g:  # a table written before the part existed
            continue
        width = g[part] * per_event
        ax.barh(ys, width, left=left, color=colour, height=0.7, label=part.replace("_", " "))
        left = left + width
    overlap = -g["overlap"] * per_event
    ax.barh(ys, overlap, left=left - overlap, height=0.7, fill=False, hatch="////", edgecolor="grey", lw=0)
    ax.scatter(
        g["predicted_loop_seconds"] * per_event, ys, marker="|", s=200, color="grey", label="predicted"
    )
    measured = 1e3 / g["measured_rate_hz"]
    fastest = 1e3 / g["measured_rate_hz_ci95_high"]
    slowest = 1e3 / g["measured_rate_hz_ci95_low"].where(g["measured_rate_hz_ci95_low"] > 0)
    err = [(measured - fastest).fillna(0), (slowest - measured).fillna(0)]
    ax.errorbar(measured, ys, xerr=err, fmt="o", color="black", ms=3, label="measured (95 % CI)")
    ax.set_yticks(
        list(ys), [f"{lab}  [{s}]" for lab, s in zip(g["label"], g["scans"], strict=True)], fontsize=7
    )
    ax.invert_yaxis()
    ax.set_xlabel("time per event (ms): predicted parts, overlap hatched off, and measured")
    ax.set_title(f"{fmt}: what each point's read time is made of (model) against the measured time")
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return fig


def draw_media(predicted: pd.DataFrame, media: pd.DataFrame):
    """Per scan, every valid point's measured rate on this host (black, 95 % interval) beside its predicted rate
    on each medium the host lacks (hollow markers, dashed: predictions, not measurements)."""
    import matplotlib.pyplot as plt

    scans = sorted(
        {s for scans in (scans_of(predicted["scans"]) if "scans" in predicted else []) for s in scans}
    )
    columns = 3
    rows = max(1, math.ceil(len(scans) / columns))
    fig, axes = plt.subplots(rows, columns, figsize=(5 * columns, 3.6 * rows), squeeze=False)
    if predicted.empty:
        axes[0][0].text(0.5, 0.5, "no point with warm reads and storage primitives", ha="center")
        return fig
    labelled = predicted.assign(label=_point_labels(predicted))
    markers = ["s", "^", "D", "v", "P"]
    for ax, scan in zip(axes.flat, scans, strict=False):
        g = labelled[scans_of(labelled["scans"]).map(lambda s, scan=scan: scan in s)]
        g = g.sort_values(["format", "label"]).reset_index(drop=True)
        xs = range(len(g))
        ax.errorbar(
            xs,
            g["measured_rate_hz"],
            yerr=[
                g["measured_rate_hz"] - g["measured_rate_hz_ci95_low"],
                g["measured_rate_hz_ci95_high"] - g["measured_rate_hz"],
            ],
            fmt="o",
            color="black",
            ms=4,
            label="this host, measured",
        )
        for marker, (_, m) in zip(markers, media.groupby("medium", sort=False), strict=False):
            rate = g.merge(m, on=_KEYS, how="left", suffixes=("", "_medium"))["predicted_rate_hz_medium"]
            ax.plot(
                xs,
                rate,
                marker=marker,
                ls="--",
                lw=0.7,
                mfc="none",
                label=f"{m['medium_name'].iloc[0]} (predicted)",
            )
        ax.set_yscale("log")
        ax.set_xticks(
            list(xs),
            [f"{f} {lab}" for f, lab in zip(g["format"], g["label"], strict=True)],
            rotation=70,
            fontsize=6,
            ha="right",
        )
        ax.set_title(f"scan: {scan}", fontsize=9)
        ax.set_ylabel("events/s")
    for ax in list(axes.flat)[len(scans) :]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=6)
    fig.suptitle(
        "Measured on this host, and predicted for media it does not have (predictions, not measurements)"
    )
    fig.tight_layout()
    return fig
