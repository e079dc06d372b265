"""How much the host drifted over a study, from the drift sentinel: one reference point read again every
``measurement.sentinel.every_seconds`` of measuring, through every block (rootparams.measure.measure; sentinel.csv).

The points of one block are measured in interleaved rounds, so a drift within the block falls on all of them and
is part of each point's σ. Between blocks it is not: points of different formats, and this study against another
run, differ by the drift as well. The sentinel says how large it was: its spread (σ/mean over the whole study), its
trend (a least-squares line, relative change per hour with a 95 % interval), and the repeat check (its first third
of reads against its last third, rootparams.decide.instrument_checks). A study whose sentinel spread exceeds the noise it claims (the
median σ/mean of its points) says so in its grade (rootparams.present.report).

The trend is used, not only shown (``comparisons_note``): the host's change over the study (the trend times the
study's hours, its interval from the trend's, which allows for the autocorrelation of successive readings) against
the precision the run claims for a mean (the median half-width of the points' own 95 % intervals). Where even its
smaller end exceeds that precision, the run says that comparisons between blocks (points of different formats or
passes compared unpaired, and this run against another) cannot be trusted to better than the change; rates are not
corrected by it (the sentinel is one point of one format, and formats answer the host's state differently), and
the rates' intervals with the study's passes hold the drift instead (intervals.HostVariance).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pandas as pd

from rootparams.stats.intervals import Interval, Trend
from rootparams.tools.plotting import pyplot

if TYPE_CHECKING:
    import matplotlib.pyplot as plt

DRIFT_FIGURE = "fig32_drift_sentinel"  # results/figures/<this>.{png,pdf}


@dataclass(frozen=True)
class Drift:
    reads: int  # unflagged sentinel reads
    flagged: int
    hours: float  # from the first read to the last
    rate: Interval  # events/s over every unflagged read
    trend: Trend  # relative change per hour
    subject: str  # which point

    @property
    def rel_spread(self) -> float:
        return self.rate.spread / self.rate.mean if self.rate.mean else math.nan

    def text(self) -> str:
        if self.reads < 3:
            return f"the drift sentinel was read {self.reads} time(s): too few to tell the host's drift"
        r = self.trend.autocorrelation
        trend = (
            f"{100 * self.trend.slope:+.1f} % per hour (95 % CI {100 * self.trend.low:+.1f} to "
            f"{100 * self.trend.high:+.1f}"
            + (f", widened for the readings' lag-1 autocorrelation {r:.2f}" if r == r and r > 0 else "")
            + ")"
        )
        return (
            f"{self.subject}: {self.reads} reads over {self.hours:.2f} h ({self.flagged} flagged, left out): "
            f"{self.rate.text('Hz', 0)}, σ/mean {self.rel_spread:.1%}; trend {trend}"
        )

    def change(self) -> tuple[float, float, float]:
        """The host's relative change over the study (the trend times its hours): (estimate, low, high)."""
        return self.trend.slope * self.hours, self.trend.low * self.hours, self.trend.high * self.hours


def comparisons_note(drift: Drift | None, claimed: float) -> str:
    """What the sentinel's trend means for comparisons between blocks, against ``claimed`` (the median relative
    half-width of the points' own 95 % intervals): empty where the change over the study is within it, or
    unknown."""
    if drift is None or drift.reads < 3 or math.isnan(claimed):
        return ""
    change, low, high = drift.change()
    if not (low == low and high == high):
        return ""
    smallest = 0.0 if low <= 0 <= high else min(abs(low), abs(high))
    if smallest <= claimed:
        return ""
    return (
        f"the host changed by {100 * change:+.1f} % (95 % CI {100 * low:+.1f} to {100 * high:+.1f}) over the study's "
        f"{drift.hours:.2f} h of measuring, more than the ±{100 * claimed:.1f} % a point's own interval claims: "
        "points of different formats or passes compared unpaired, and this run against another, cannot be trusted "
        f"to better than {100 * smallest:.1f} %; the paired comparisons within a block are not affected"
    )


def analyse(sentinel: pd.DataFrame) -> Drift | None:
    """The drift of the sentinel's reads (sentinel.csv); None without any."""
    if sentinel is None or sentinel.empty:
        return None
    flagged = sentinel["flagged"].map(lambda v: str(v).lower() in ("true", "1"))
    good = sentinel[~flagged].sort_values("process_start_time")
    hours = (
        (good["process_start_time"] - good["process_start_time"].min()) / 3600 if len(good) else good.index
    )
    subject = f"{sentinel['format'].iloc[0]} {sentinel['file_id'].iloc[0]} ({sentinel['read_id'].iloc[0]})"
    return Drift(
        reads=len(good),
        flagged=int(flagged.sum()),
        hours=float(hours.max()) if len(good) else 0.0,
        rate=Interval.of(good["event_rate_hz"]),
        trend=Trend.of(hours, good["event_rate_hz"]),
        subject=subject,
    )


def draw(sentinel: pd.DataFrame, jobs: pd.DataFrame | None = None) -> plt.Figure:
    """The sentinel's event rate (and the host's memory probe) against the hours since its first read, the measuring
    jobs (blocks) shaded, the trend drawn with the mean."""
    fig, (ax, probe) = pyplot().subplots(
        2, 1, figsize=(9, 5.5), sharex=True, gridspec_kw={"height_ratios": [3, 1.4]}
    )
    title = "The drift sentinel: one reference point read again through the whole study"
    fig.suptitle(title, fontsize=11)
    drift = analyse(sentinel)
    if drift is None or sentinel.empty:
        ax.text(
            0.5,
            0.5,
            "No sentinel reads in this study (measurement.sentinel.every_seconds: 0).",
            ha="center",
            va="center",
            transform=ax.transAxes,
        )
        return fig
    start = sentinel["process_start_time"].min()
    flagged = sentinel["flagged"].map(lambda v: str(v).lower() in ("true", "1"))
    hours = (sentinel["process_start_time"] - start) / 3600
    if jobs is not None and len(jobs):
        for i, job in enumerate(jobs.sort_values("job_start_time").itertuples()):
            for axis in (ax, probe):
                axis.axvspan(
                    (job.job_start_time - start) / 3600,
                    (job.job_end_time - start) / 3600,
                    color="0.93" if i % 2 else "0.88",
                    zorder=0,
                )
            ax.text(
                (job.job_start_time - start) / 3600,
                1.0,
                f" {job.block}",
                transform=ax.get_xaxis_transform(),
                fontsize=7,
                va="top",
                color="0.3",
            )
    ax.plot(hours[~flagged], sentinel["event_rate_hz"][~flagged], "o", color="C0", markersize=4, label="read")
    ax.plot(
        hours[flagged],
        sentinel["event_rate_hz"][flagged],
        "x",
        color="C3",
        markersize=5,
        label="flagged (left out)",
    )
    mean = drift.rate.mean
    ax.axhline(mean, color="0.4", linewidth=0.8, linestyle="--", label=f"mean {mean:.0f} Hz")
    if drift.trend.slope == drift.trend.slope:
        h = hours[~flagged]
        center = h.mean()
        ax.plot(
            [h.min(), h.max()],
            [mean * (1 + drift.trend.slope * (x - center)) for x in (h.min(), h.max())],
            color="C1",
            linewidth=1.2,
            label=f"trend {100 * drift.trend.slope:+.1f} %/h",
        )
    ax.set_ylabel("Event rate [Hz]")
    ax.legend(fontsize=7, loc="lower left")
    for when, marker in (("before", "v"), ("after", "^")):
        column = f"memory_probe_{when}_seconds"
        if column in sentinel:
            probe.plot(
                hours,
                1e3 * sentinel[column],
                marker,
                markersize=3,
                linestyle="none",
                label=f"memory probe {when} the read",
            )
    probe.set_ylabel("Memory probe [ms]")
    probe.set_xlabel("Hours since the sentinel's first read")
    probe.legend(fontsize=6)
    fig.text(0.01, 0.005, drift.text(), fontsize=6.5, color="0.3")
    fig.tight_layout()
    return fig
