"""A model of the timed loop: every predicted rate is a sum of named parts, each from a primitive measured apart
from the reads it predicts.

A cold read of a point is the warm read of the same file and read settings (the CPU: ROOT's decompression and
everything else, measured with the file resident in the page cache: ``rootparams.warmread``) plus what the storage
adds (``rootparams.storagebench``: fio's bandwidth and per-request latency under the same storage profile), less
what the kernel's read-ahead hides behind the CPU:

    loop = decompression + deserialisation            (the warm read's spans)
         + storage transfer                           bytes the block layer served / the medium's bandwidth
         + storage requests                           ROOT's read calls x the medium's per-request latency
         + throttled requests                         block requests / the IOPS limit, beyond the transfer (hdd_seek)
         - overlap                                    what the kernel's read-ahead fetched behind the CPU

The counts (bytes, read calls, block requests, clusters) are the file's layout as the reader met it: they are the
same in every repetition and do not depend on the machine's speed, so the model may take them from the reader's
counters and the file's catalogue; none of its times come from the read it predicts. The overlap is physics, not a
fitted constant: ROOT reads a cluster (a TTreeCache fill) and then works on it; meanwhile the kernel's read-ahead
fetches at most one window (the device's ``read_ahead_kb``) of what comes next. So per fill at most one window of
storage time is hidden, and never more than the CPU time there is (``predict``).

What the model is for: to tell *why* a rate is what it is (the stacked parts beside the measured rate), to carry
the rates to media the host does not have (``MEDIA``: drawn as predictions, never mixed with measurements), and to
say where it is off (the part whose prediction misses its measured span): that is a finding, not a constant to
tune.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

PARTS = ("decompression", "deserialisation", "storage_transfer", "storage_requests", "throttled_requests")


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

    def storage_parts(
        self, storage_bytes: float, read_calls: float, block_requests: float
    ) -> dict[str, float]:
        transfer = storage_bytes / self.bandwidth_bps if self.bandwidth_bps else 0.0
        requests = read_calls * self.request_seconds
        # A throttle with both limits holds each request until both allow it: the storage takes the longer of
        # the two, so the requests' limit adds only what it takes beyond the transfer.
        throttled = max(block_requests / self.block_iops - transfer, 0.0) if self.block_iops else 0.0
        return {"storage_transfer": transfer, "storage_requests": requests, "throttled_requests": throttled}


# Media the host may not have, with the figures they are predicted at (a prediction, drawn as such).
MEDIA = {
    "nvme": Medium("NVMe SSD", 3.0e9, 80e-6, None, False, "3 GB/s sequential, 80 us per read request"),
    "hdd-seeking": Medium(
        "5400 rpm HDD, seeking",
        150e6,
        1 / 30,
        None,
        False,
        "150 MB/s, one 33 ms seek per read request (30 IOPS)",
    ),
    "wan-50ms": Medium("WAN, 50 ms", 100e6, 50e-3, None, False, "100 MB/s, 50 ms round trip per request"),
}
# The ATLAS note's testbed (section 2): a WDC WD5000AZRZ, 5400 rpm, ~150 MB/s host to disk, 10-50 IOPS.
NOTE_TESTBED_MEDIA = {
    "note testbed, 50 IOPS": Medium(
        "note testbed disk, 50 IOPS", 150e6, 1 / 50, None, False, "150 MB/s, 20 ms"
    ),
    "note testbed, 10 IOPS": Medium(
        "note testbed disk, 10 IOPS", 150e6, 1 / 10, None, False, "150 MB/s, 100 ms"
    ),
}


def cache_fills(point: Mapping[str, Any]) -> float:
    """How many times the reader went back to the storage after working on what it had: one fill of the
    TTreeCache (or RNTuple's cluster cache) per cluster read, or, without a cache, every read call."""
    cache_on = str(point.get("container")) == "rntuple" or _number(point.get("cache_size")) != 0
    if not cache_on:
        return max(1.0, _number(point.get("loop_read_calls")))
    per_cluster = _number(point.get("events_per_cluster")) or _number(point.get("events_read"))
    return max(1.0, math.ceil(_number(point.get("events_read")) / max(per_cluster, 1.0)))


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
    decompression on several threads counts once); ``read_ahead_bytes``: the device's read-ahead (the kernel
    fetches up to that much ahead of the reader asynchronously: after each cache fill, while the CPU works on it,
    at most one read-ahead window of the next cluster arrives: that is the overlap); ``cpu_factor`` scales the
    CPU parts (another CPU: its time over this host's)."""
    decompression = float(cpu["unzip_seconds"]) * cpu_factor
    deserialisation = max(float(cpu["loop_seconds"]) - float(cpu["unzip_seconds"]), 0.0) * cpu_factor
    parts = {"decompression": decompression, "deserialisation": deserialisation}
    storage_bytes = _number(point.get("loop_storage_read_bytes")) or _number(point.get("loop_bytes_read"))
    parts.update(
        medium.storage_parts(
            storage_bytes, _number(point.get("loop_read_calls")), _number(point.get("storage_requests"))
        )
    )
    fills = cache_fills(point)
    hidden_bytes = min(fills * read_ahead_bytes, storage_bytes)
    hidden = hidden_bytes / medium.bandwidth_bps if medium.bandwidth_bps else 0.0
    parts["overlap"] = -min(hidden, parts["storage_transfer"], decompression + deserialisation)
    total = sum(parts.values())
    events = _number(point.get("events_read"))
    return {
        **parts,
        "predicted_loop_seconds": total,
        "predicted_rate_hz": events / total if total > 0 else math.nan,
    }


def _number(value) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return 0.0
    return number if math.isfinite(number) else 0.0


# --- The model against a study ------------------------------------------------------------------------------

KEYS = ["format", "file_id", "read_id"]
_MEANS = [
    "events_read",
    "loop_seconds",
    "loop_cpu_seconds",
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
MEDIAN_ERROR_TARGET = 0.10
P90_ERROR_TARGET = 0.25


def study_points(
    repetitions: pd.DataFrame, files: pd.DataFrame, summary: pd.DataFrame, points: pd.DataFrame
) -> pd.DataFrame:
    """The study's valid points: the means of their unflagged repetitions' counts and spans, their clusters, the
    measured rate with its 95 % interval, and the scans they belong to."""
    reps = repetitions[repetitions["flagged"] != True]  # noqa: E712 (booleans and NaN)
    firsts = [c for c in _FIRSTS if c in reps.columns]
    means = [c for c in _MEANS if c in reps.columns]
    out = reps.groupby(KEYS).agg({**{c: "mean" for c in means}, **{c: "first" for c in firsts}}).reset_index()
    rate = ["event_rate_hz_mean", "event_rate_hz_ci95_low", "event_rate_hz_ci95_high", "n", "valid"]
    out = out.merge(files[["format", "file_id", "events_per_cluster"]], on=["format", "file_id"], how="left")
    out = out.merge(summary[[*KEYS, *rate]], on=KEYS, how="left").merge(points, on=KEYS, how="left")
    return out[out["valid"] == True].reset_index(drop=True)  # noqa: E712


def media_from_storage(table: pd.DataFrame) -> tuple[dict[str, Medium], float]:
    """Per storage profile, the medium fio measured (results/primitives/storage.csv): the bandwidth of buffered
    sequential reads (what ROOT meets, read-ahead included), the disk's own latency of a 4 kB random read beyond
    its transfer (a throttled profile adds its limits, charged as throttled requests, not as latency), the
    profile's IOPS limit; and the device's read-ahead in bytes."""
    media = {}
    native = table[(table["storage_profile"] == "native") & (table["io_mode"] == "buffered")]
    rnd = native[(native["pattern"] == "random") & (native["block_bytes"] == 4096)]
    for profile, g in table.groupby("storage_profile"):
        seq = g[(g["pattern"] == "sequential") & (g["io_mode"] == "buffered")]
        bandwidth = float(seq["bandwidth_bps"].iloc[0])
        latency = float(rnd["latency_s_mean"].iloc[0]) - 4096 / bandwidth if len(rnd) else 0.0
        iops = g["nominal_read_iops"].dropna()
        media[str(profile)] = Medium(
            str(profile), bandwidth, max(latency, 0.0), float(iops.iloc[0]) if len(iops) else None
        )
    return media, float(table["read_ahead_kb"].iloc[0]) * 1024


def cpu_of_points(points: pd.DataFrame, warm: pd.DataFrame) -> dict[tuple, dict[str, float]]:
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
        cpu[(p["format"], p["file_id"], p["read_id"])] = {"unzip_seconds": unzip, "loop_seconds": loop}
    return cpu


def predicted_points(points: pd.DataFrame, storage: pd.DataFrame, warm: pd.DataFrame) -> pd.DataFrame:
    """Every valid point with its predicted parts (seconds), predicted rate, the measured rate and its interval,
    and the error of the rate (predicted / measured - 1). Points without a warm set or a measured medium (remote
    profiles) are left out."""
    media, read_ahead = media_from_storage(storage)
    cpu = cpu_of_points(points, warm)
    rows = []
    for _, p in points.iterrows():
        key = (p["format"], p["file_id"], p["read_id"])
        if key not in cpu or str(p["storage_profile"]) not in media:
            continue
        pred = predict(p.to_dict(), cpu[key], media[str(p["storage_profile"])], read_ahead)
        rows.append(
            {
                **{k: p[k] for k in (*KEYS, "scans", "storage_profile", "events_read")},
                **pred,
                "measured_rate_hz": p["event_rate_hz_mean"],
                "measured_rate_hz_ci95_low": p["event_rate_hz_ci95_low"],
                "measured_rate_hz_ci95_high": p["event_rate_hz_ci95_high"],
                "n": p["n"],
                "rate_error": pred["predicted_rate_hz"] / p["event_rate_hz_mean"] - 1,
                "measured_loop_seconds": p["loop_seconds"],
                "measured_disk_seconds": p["loop_disk_seconds"],
                "measured_unzip_seconds": p["loop_unzip_seconds"],
            }
        )
    return pd.DataFrame(rows)


def errors_table(predicted: pd.DataFrame) -> pd.DataFrame:
    """Per scan and per storage profile (and all points): the points, the median and 90th percentile of
    |predicted / measured - 1| of the rate against the targets, the signed median, and the part whose prediction
    misses its measured span most (storage: the predicted wait against the loop's disk time; decompression
    against the unzip time; deserialisation against the rest)."""
    if predicted.empty:
        return pd.DataFrame(columns=["group", "value", "points", "median_abs_error", "p90_abs_error"])
    rows = []
    groups = [("all", "all", predicted)]
    groups += [("scan", k, g) for k, g in predicted.groupby("scans")]
    groups += [("storage_profile", k, g) for k, g in predicted.groupby("storage_profile")]
    for group, value, g in groups:
        err = g["rate_error"].abs()
        median, p90 = float(err.median()), float(err.quantile(0.9))
        rows.append(
            {
                "group": group,
                "value": value,
                "points": len(g),
                "median_abs_error": median,
                "p90_abs_error": p90,
                "meets_targets": median <= MEDIAN_ERROR_TARGET and p90 <= P90_ERROR_TARGET,
                "signed_median_error": float(g["rate_error"].median()),
                "part_most_off": _part_most_off(g),
            }
        )
    return pd.DataFrame(rows)


def _part_most_off(g: pd.DataFrame) -> str:
    storage = g[["storage_transfer", "storage_requests", "throttled_requests", "overlap"]].sum(axis=1)
    rest = g["measured_loop_seconds"] - g["measured_disk_seconds"] - g["measured_unzip_seconds"]
    misses = {
        "storage": float((storage - g["measured_disk_seconds"]).median()),
        "decompression": float((g["decompression"] - g["measured_unzip_seconds"]).median()),
        "deserialisation": float((g["deserialisation"] - rest).median()),
    }
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
