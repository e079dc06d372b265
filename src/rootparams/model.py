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
