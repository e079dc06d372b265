"""A model of the timed loop: every predicted rate is a sum of named parts, each from a primitive measured apart
from the reads it predicts.

A cold read of a point is the warm read of the same file and read settings (the CPU: ROOT's decompression and
everything else, measured with the file resident in the page cache: ``rootparams.warmread``) plus what the storage
adds (``rootparams.storagebench``: fio's bandwidth and per-request latency under the same storage profile), less
what the kernel's read-ahead hides behind the CPU:

    loop = decompression + deserialisation            (the warm read's spans)
         + storage transfer                           bytes the block layer served / the medium's bandwidth
         + storage requests                           ROOT's read calls x the medium's per-request latency
         + throttled requests                         block requests / the profile's IOPS limit (hdd_seek)
         - overlap                                    the part of the storage time the read-ahead hid

The counts (bytes, read calls, block requests, uncompressed bytes) are the file's layout as the reader met it:
they are the same in every repetition and do not depend on the machine's speed, so the model may take them from
the reader's counters; none of its times come from the read it predicts. The overlap is a primitive of its own:
the fraction of the storage time that ROOT did not wait for, measured once per storage profile on a calibration
point (``overlap_fraction``), and said where it is used.

What the model is for: to tell *why* a rate is what it is (the stacked parts beside the measured rate), to carry
the rates to media the host does not have (``MEDIA``: drawn as predictions, never mixed with measurements), and to
say where it is off (the part whose prediction misses its measured span): that is a finding, not a constant to
tune.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

PARTS = ("decompression", "deserialisation", "storage_transfer", "storage_requests", "throttled_requests")
# The measured span each part is checked against (bottleneck.py's spans of the timed loop).
SPAN_OF_PART = {
    "decompression": "loop_unzip_seconds",
    "deserialisation": None,  # the loop less the other spans
    "storage_transfer": "loop_disk_seconds",
    "storage_requests": "loop_disk_seconds",
    "throttled_requests": "loop_disk_seconds",
}
# The targets a prediction is judged on, over the valid points of a scan and storage profile.
MEDIAN_ERROR_TARGET = 0.10
P90_ERROR_TARGET = 0.25


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

    def storage_parts(self, storage_bytes: float, read_calls: float, block_requests: float) -> dict[str, float]:
        transfer = storage_bytes / self.bandwidth_bps if self.bandwidth_bps else 0.0
        requests = read_calls * self.request_seconds
        throttled = block_requests / self.block_iops if self.block_iops else 0.0
        return {"storage_transfer": transfer, "storage_requests": requests, "throttled_requests": throttled}


# Media the host may not have, with the figures they are predicted at (a prediction, drawn as such).
MEDIA = {
    "nvme": Medium("NVMe SSD", 3.0e9, 80e-6, None, False, "3 GB/s sequential, 80 us per read request"),
    "hdd-seeking": Medium(
        "5400 rpm HDD, seeking", 150e6, 1 / 30, None, False, "150 MB/s, one 33 ms seek per read request (30 IOPS)"
    ),
    "wan-50ms": Medium("WAN, 50 ms", 100e6 / 8 * 8, 50e-3, None, False, "100 MB/s, 50 ms round trip per request"),
}
# The ATLAS note's testbed (section 2): a WDC WD5000AZRZ, 5400 rpm, ~150 MB/s host to disk, 10-50 IOPS.
NOTE_TESTBED_MEDIA = {
    "note testbed, 50 IOPS": Medium("note testbed disk, 50 IOPS", 150e6, 1 / 50, None, False, "150 MB/s, 20 ms"),
    "note testbed, 10 IOPS": Medium("note testbed disk, 10 IOPS", 150e6, 1 / 10, None, False, "150 MB/s, 100 ms"),
}


def predict(
    point: Mapping[str, float],
    warm: Mapping[str, float],
    medium: Medium,
    overlap_fraction: float = 0.0,
    cpu_factor: float = 1.0,
) -> dict[str, float]:
    """The predicted timed loop of one point, by part (seconds), its total and its rate.

    ``point``: the layout counts of the point (events_read, loop_storage_read_bytes, loop_read_calls,
    storage_requests); ``warm``: the warm read's means of the same file and read (warm_unzip_seconds,
    warm_loop_seconds); ``cpu_factor`` scales the CPU parts (another CPU: its time over this host's)."""
    decompression = float(warm["warm_unzip_seconds"]) * cpu_factor
    deserialisation = max(float(warm["warm_loop_seconds"]) - float(warm["warm_unzip_seconds"]), 0.0) * cpu_factor
    parts = {"decompression": decompression, "deserialisation": deserialisation}
    parts.update(
        medium.storage_parts(
            _number(point.get("loop_storage_read_bytes")) or _number(point.get("loop_bytes_read")),
            _number(point.get("loop_read_calls")),
            _number(point.get("storage_requests")),
        )
    )
    storage = parts["storage_transfer"] + parts["storage_requests"] + parts["throttled_requests"]
    # The read-ahead can hide storage time behind the CPU, never more than the CPU time there is.
    parts["overlap"] = -min(overlap_fraction * storage, decompression + deserialisation)
    total = sum(parts.values())
    events = _number(point.get("events_read"))
    return {**parts, "predicted_loop_seconds": total, "predicted_rate_hz": events / total if total > 0 else math.nan}


def _number(value) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return 0.0
    return number if math.isfinite(number) else 0.0


def errors_table(predicted: pd.DataFrame, by: Iterable[str] = ("scan", "storage_profile")) -> pd.DataFrame:
    """Per group: the number of valid points, the median and 90th percentile of |predicted/measured - 1| of the
    rate, whether each meets its target, and the part whose prediction misses its measured span most."""
    rows = []
    by = list(by)
    for key, g in predicted[predicted["valid"]].groupby(by, dropna=False):
        err = (g["predicted_rate_hz"] / g["event_rate_hz_mean"] - 1).abs()
        worst = g.loc[err.idxmax()] if len(g) else None
        rows.append(
            {
                **dict(zip(by, key if isinstance(key, tuple) else (key,))),
                "points": len(g),
                "median_abs_error": float(np.median(err)),
                "p90_abs_error": float(np.quantile(err, 0.9)),
                "median_target": MEDIAN_ERROR_TARGET,
                "p90_target": P90_ERROR_TARGET,
                "meets_targets": bool(
                    np.median(err) <= MEDIAN_ERROR_TARGET and np.quantile(err, 0.9) <= P90_ERROR_TARGET
                ),
                "signed_median_error": float(np.median(g["predicted_rate_hz"] / g["event_rate_hz_mean"] - 1)),
                "part_most_off": _part_most_off(g),
                "worst_point": None if worst is None else f"{worst['format']} {worst['file_id']} {worst['read_id']}",
            }
        )
    return pd.DataFrame(rows)


def _part_most_off(g: pd.DataFrame) -> str:
    """The part whose predicted seconds differ most, in the median over the group, from the span measured."""
    misses = {}
    storage = g[["storage_transfer", "storage_requests", "throttled_requests", "overlap"]].sum(axis=1)
    misses["storage (predicted wait against the loop's disk time)"] = np.median(storage - g["loop_disk_seconds_mean"])
    misses["decompression"] = np.median(g["decompression"] - g["loop_unzip_seconds_mean"])
    rest = g["loop_seconds_mean"] - g["loop_disk_seconds_mean"] - g["loop_unzip_seconds_mean"]
    misses["deserialisation"] = np.median(g["deserialisation"] - rest)
    part, miss = max(misses.items(), key=lambda kv: abs(kv[1]))
    return f"{part}: {miss * 1e3:+.0f} ms in the median"
