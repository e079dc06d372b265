"""What limits a read: the storage, decompression, or deserialisation (and the analysis), from its own spans.

Every timed loop records three spans (docs/measurement.md, "What is measured"): the time ROOT waited for the
storage (``loop_disk_seconds``: TTreePerfStats' disk time, RNTuple's ``timeCpuRead``), the time it spent
decompressing (``loop_unzip_seconds``), and the loop's wall time. What is neither is deserialisation, the
event loop and the reader's own work. ``rootreadspeed`` classifies a read the same way, from the same spans.

A read is *I/O-bound*, *decompression-bound* or *deserialisation-bound* when that span's share of the loop is
the largest and its 95 % interval (over the repetitions) lies above the runner-up's; otherwise it is *mixed*,
naming the two that cannot be told apart. With one repetition there is no interval, and the class is said to
rest on n = 1.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from rootparams.stats.intervals import Interval

SPANS = ("storage", "decompression", "deserialisation")
_CLASS_OF_SPAN = {
    "storage": "I/O-bound",
    "decompression": "decompression-bound",
    "deserialisation": "deserialisation-bound",
}
# What could move a read that one span dominates: the file settings and read settings of the study.
_LEVER = {
    "storage": (
        "fewer bytes from the storage: a stronger compression (ZSTD, LZMA, a higher level), reading only the "
        "branches used, a TTreeCache covering them, larger clusters on a high-latency storage"
    ),
    "decompression": (
        "a faster decompressor (LZ4, ZSTD instead of ZLIB or LZMA) or decompression in parallel "
        "(ROOT::EnableImplicitMT); the level barely matters for decompression speed"
    ),
    "deserialisation": (
        "not the compression: the layout (split level, RNTuple's columnar layout), the reading style, or the "
        "branches read"
    ),
}


@dataclass(frozen=True)
class Bottleneck:
    shares: dict[str, Interval]  # each span's share of the loop's wall time, over the repetitions
    verdict: str  # "I/O-bound", "decompression-bound", "deserialisation-bound" or "mixed (... or ...)"
    dominant: str  # the span with the largest mean share
    runner_up: str

    @property
    def lever(self) -> str:
        return _LEVER[self.dominant]

    def text(self) -> str:
        parts = ", ".join(f"{span} {100 * s.mean:.0f} %" for span, s in self.shares.items())
        n = min(s.n for s in self.shares.values())
        return f"{self.verdict} ({parts} of the loop; n = {n})"


def _span_shares(record: Mapping[str, object]) -> dict[str, float] | None:
    """One read's spans as shares of its loop; None when the loop or one of its spans was not recorded."""
    try:
        loop = float(record["loop_seconds"])  # type: ignore[arg-type]
        disk = float(record["loop_disk_seconds"])  # type: ignore[arg-type]
        unzip = float(record["loop_unzip_seconds"])  # type: ignore[arg-type]
    except (KeyError, TypeError, ValueError):
        return None
    if not loop > 0 or disk != disk or unzip != unzip:
        return None
    # The spans are measured by different clocks (ROOT's stopwatches inside the loop's wall clock); with
    # decompression on several threads, unzip time can exceed the wall time. Shares are clipped to [0, 1] and
    # the rest is what remains, never negative.
    storage = min(max(disk / loop, 0.0), 1.0)
    decompression = min(max(unzip / loop, 0.0), 1.0 - storage)
    return {
        "storage": storage,
        "decompression": decompression,
        "deserialisation": 1.0 - storage - decompression,
    }


def classify(records: Iterable[Mapping[str, object]]) -> Bottleneck | None:
    """The class of the reads of one point (its repetitions), or None when no read has its spans."""
    rows = [s for s in (_span_shares(r) for r in records) if s is not None]
    if not rows:
        return None
    shares = {span: Interval.of(r[span] for r in rows) for span in SPANS}
    ranked = sorted(SPANS, key=lambda span: shares[span].mean, reverse=True)
    top, second = ranked[0], ranked[1]
    a, b = shares[top], shares[second]
    if a.n < 2:
        verdict = f"{_CLASS_OF_SPAN[top]} (n = 1: no interval)"
    elif a.low > b.high:
        verdict = _CLASS_OF_SPAN[top]
    else:
        verdict = (
            f"mixed ({_CLASS_OF_SPAN[top]} or {_CLASS_OF_SPAN[second]}: their shares' intervals overlap)"
        )
    return Bottleneck(shares=shares, verdict=verdict, dominant=top, runner_up=second)
