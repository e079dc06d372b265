"""The paper's Figures 1-10 (and the figures beyond it) from the tidy tables.

Every figure is drawn from summary.csv (mean, 1σ spread and 95 % interval of the mean of the unflagged
repetitions), files.csv (sizes) and points.csv (which scan a point belongs to): one panel per format, units on the
axes, and one colour per compression algorithm in every figure. Error bars are the 95 % interval of the mean
(Student t) wherever summary.csv has one for the metric, else the 1σ spread of the repetitions; sizes have none.
The footer says which, and the range of n. A point that is not valid (aggregate.apply_validity, judged by the rule
of the figure's own scans) is drawn hollow and no line runs through it. A scan absent from the study gives a
figure that says so instead of failing, so that a study with fewer scans still gets a complete report.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from rootparams.decide.decision import PARETO_RATE_MARGIN, crossovers, fixed_cost
from rootparams.results.aggregate import (
    apply_validity,
    container_ratios,
    scan_rows,
    valid_points,
    window_rule,
)
from rootparams.study.formats import eventsize_written_bytes
from rootparams.study.labels import (
    ALGORITHM_LABELS,
    CONTAINER_LABELS,
    STORAGE_ORDER,
    autoflush_label,
    autoflush_order,
    cache_label,
    cache_order,
    container_style_label,
    format_order,
    format_title,
    interval_scope,
    profile_list,
    reading_style_label,
    selection_label,
    selection_order,
)
from rootparams.tools.plotting import COLORBLIND, dark_colors, pyplot, theme
from rootparams.vocabulary import (
    ALGORITHMS,
    OFFSETS_GENERATED,
    OFFSETS_STORED,
    TTREE,
    UNCOMPRESSED,
)

if TYPE_CHECKING:
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

# One colour per algorithm in every figure (seaborn's colour-blind palette).
ALGORITHM_COLORS = {alg: COLORBLIND[i] for i, alg in enumerate(ALGORITHMS[:-1])} | {UNCOMPRESSED: "0.35"}


def _patch():
    from matplotlib.patches import Patch

    return Patch


def _max_n_locator():
    from matplotlib.ticker import MaxNLocator

    return MaxNLocator


@dataclass(frozen=True)
class Figure:
    name: str  # figNN_<what>: the file stem
    scans: tuple[str, ...]  # the config scans it draws
    title: str
    draw: Callable[[pd.DataFrame, dict], plt.Figure]


def _formats(data: pd.DataFrame) -> list[str]:
    return format_order(data["format"])


def _panels(n: int, title: str) -> tuple[plt.Figure, list[plt.Axes]]:
    fig, axes = pyplot().subplots(1, max(n, 1), figsize=(max(4.2 * n, 7.0), 3.8), squeeze=False)
    fig.suptitle(title, fontsize=11)
    return fig, list(axes[0])


def _empty(title: str, why: str) -> plt.Figure:
    fig, (ax,) = _panels(1, title)
    ax.text(0.5, 0.5, why, ha="center", va="center", wrap=True, transform=ax.transAxes)
    ax.set_axis_off()
    return fig


# What a figure's error bars are, said in its footer (draw): a spread read as an uncertainty of the mean, or the
# reverse, misleads by a factor of about sqrt(n).
_INTERVAL_BARS = "error bars: 95 % interval of the mean (Student t)"
_SPREAD_BARS = (
    "error bars: 1σ spread of the repetitions (no interval of the mean is recorded for this metric)"
)
_NO_BARS = "no error bars: file sizes are exact (every repetition reads the same file)"
_BAR_NOTES = "rootparams_error_bars"  # the attribute of a matplotlib Figure that collects them


def _note_bars(fig: plt.Figure, what: str) -> None:
    notes = getattr(fig, _BAR_NOTES, [])
    if what not in notes:
        setattr(fig, _BAR_NOTES, [*notes, what])


def _bars(
    rows: pd.DataFrame, y: str, spread: str | None, scale: float = 1.0
) -> tuple[np.ndarray | None, str | None]:
    """The error bars of ``rows``'s column ``y`` (lower and upper lengths, times ``scale``) and what they are: the
    95 % interval of the mean where the rows have one (``<metric>_ci95_low``/``_high`` beside ``<metric>_mean``, or
    ``<y>_ci95_low``/``_high`` for a derived column), else the 1σ spread (the column ``spread``), else none. A point
    without one (n = 1) gets a bar of length 0."""
    base = y.removesuffix("_mean")
    low, high = f"{base}_ci95_low", f"{base}_ci95_high"
    values = rows[y].to_numpy(dtype=float)
    if low in rows and high in rows and (rows[low].notna() | rows[high].notna()).any():
        lengths = np.vstack(
            [values - rows[low].to_numpy(dtype=float), rows[high].to_numpy(dtype=float) - values]
        )
        scope = interval_scope(rows.get("passes", []))
        return np.nan_to_num(np.clip(lengths, 0, None) * scale), f"{_INTERVAL_BARS}, {scope}"
    if spread is not None and spread in rows and rows[spread].notna().any():
        lengths = rows[spread].to_numpy(dtype=float) * scale
        return np.nan_to_num(np.vstack([lengths, lengths])), _SPREAD_BARS
    return None, None


def _errorbar(ax, x, y, bars, bars_are, valid=None, color=None, label=None) -> None:
    """Points with their error bars (``bars``: lower and upper lengths, or None; ``bars_are``: what they are), and
    a line that joins neighbouring valid points only. A point that is not valid stands alone, hollow, with its bar:
    the line breaks there, so that no trend is read through a number that does not measure what it claims."""
    x, y = np.asarray(x), np.asarray(y, dtype=float)
    valid = np.ones(len(y), dtype=bool) if valid is None else np.asarray(valid, dtype=bool)
    if bars is not None:
        ax.errorbar(x, y, yerr=bars, fmt="none", ecolor=color, elinewidth=1.0, capsize=3)
        _note_bars(ax.figure, bars_are)
    # The line breaks at an invalid point: it joins runs of consecutive valid points (in the order of x) only.
    order = np.argsort(x, kind="stable")
    runs: list[list[int]] = [[]]
    for i in order:
        if valid[i]:
            runs[-1].append(i)
        elif runs[-1]:
            runs.append([])
    for k, run in enumerate(r for r in runs if r):
        ax.plot(
            x[run],
            y[run],
            marker="o",
            markersize=4.5,
            color=color,
            linewidth=1.2,
            label=label if k == 0 else None,
        )
    if not valid.any():  # the legend still names the series
        ax.plot([], [], marker="o", markersize=4.5, color=color, linewidth=1.2, label=label)
    ax.plot(
        x[~valid],
        y[~valid],
        marker="o",
        markersize=5,
        color=color,
        markerfacecolor="white",
        markeredgewidth=1.2,
        linestyle="none",
    )


def _finish_axis(ax, panel, xs, order, categories, xlabel, ylabel, logy) -> None:
    """Ticks (the category labels in ``order``, or the integer values of ``xs``), title and axis labels."""
    if categories:
        ax.set_xticks(range(len(order)), [categories[1](v) for v in order], rotation=30, ha="right")
    else:
        ax.set_xticks(sorted(set(int(v) for v in xs)))
    ax.set_title(format_title(str(panel)))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if logy:
        ax.set_yscale("log")


def _lines_by_algorithm(
    data: pd.DataFrame,
    title: str,
    x: str,
    y: str,
    yerr: str | None,
    xlabel: str,
    ylabel: str,
    categories: tuple[list, Callable] | None = None,
    scale: float = 1.0,
    logy: bool = False,
) -> plt.Figure:
    """One panel per format, one line per algorithm; ``categories`` = (order, label) for a categorical x."""
    formats = _formats(data)
    fig, axes = _panels(len(formats), title)
    for ax, fmt in zip(axes, formats, strict=False):
        panel = data[data["format"] == fmt]
        order = categories[0](panel[x]) if categories else None
        asis = panel["origin"] == "asis" if "origin" in panel else pd.Series(False, index=panel.index)
        for i, row in panel[asis].iterrows():
            pos = order.index(row[x]) if categories else row[x]
            color = ALGORITHM_COLORS.get(row["algorithm"], "0.3")
            bars, bars_are = _bars(panel.loc[[i]], y, yerr, scale)
            if bars is not None:
                ax.errorbar(
                    [pos], [row[y] * scale], yerr=bars, fmt="none", ecolor=color, elinewidth=1.0, capsize=3
                )
                _note_bars(fig, bars_are)
            # Hollow where it is not valid, as every other point.
            face = color if valid_points(panel.loc[[i]]).iloc[0] else "white"
            ax.plot(
                [pos],
                [row[y] * scale],
                marker="*",
                markersize=12,
                markerfacecolor=face,
                markeredgecolor=color,
                markeredgewidth=1.2,
                linestyle="none",
                label="the real file as it is",
            )
        ticks = panel.loc[panel["algorithm"] != UNCOMPRESSED, x]
        panel = panel[~asis]
        for alg in [a for a in ALGORITHMS if a in set(panel["algorithm"])]:
            line = panel[panel["algorithm"] == alg]
            line = line.assign(
                _pos=line[x].map({v: i for i, v in enumerate(order)}) if categories else line[x]
            ).sort_values("_pos")
            style = {"color": ALGORITHM_COLORS[alg], "label": ALGORITHM_LABELS[alg]}
            bars, bars_are = _bars(line, y, yerr, scale)
            if alg == UNCOMPRESSED and not categories:
                # Uncompressed has no level: a horizontal reference across the panel, its bar a band; dotted and
                # said so where the point is not valid.
                value, is_valid = line[y].iloc[0] * scale, bool(valid_points(line).iloc[0])
                ax.axhline(
                    value,
                    color=style["color"],
                    linestyle="--" if is_valid else ":",
                    linewidth=1,
                    label=style["label"] + ("" if is_valid else " (not valid)"),
                )
                if bars is not None:
                    ax.axhspan(
                        value - bars[0, 0], value + bars[1, 0], color=style["color"], alpha=0.12, linewidth=0
                    )
                    _note_bars(fig, bars_are)
                continue
            _errorbar(ax, line["_pos"], line[y] * scale, bars, bars_are, valid_points(line), **style)
        # Uncompressed (a reference line, no level) gives no x tick.
        _finish_axis(ax, fmt, ticks, order, categories, xlabel, ylabel, logy and (panel[y] > 0).any())
    # Outside the panels, right of the last one: inside, it hid points of the first panel.
    handles: dict = {}
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(lab, h)
    axes[-1].legend(
        handles.values(), handles.keys(), fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0)
    )
    fig.tight_layout()
    return fig


def _lines_by(
    data: pd.DataFrame,
    title: str,
    panel_key: str,
    panel_order: list,
    hue: str,
    x: str,
    y: str,
    yerr: str | None,
    xlabel: str,
    ylabel: str,
    categories: tuple[Callable, Callable] | None,
    scale: float = 1.0,
    logy: bool = False,
    hue_label: Callable = str,
) -> plt.Figure:
    """Like _lines_by_algorithm for another hue (learn entries, storage profile); panels by ``panel_key``."""
    panels = (
        panel_order(data[panel_key])
        if callable(panel_order)
        else [p for p in panel_order if p in set(data[panel_key])]
    )
    fig, axes = _panels(len(panels), title)
    # One colour per hue value across all panels.
    rank = {
        v: i for i, v in enumerate([*STORAGE_ORDER, "default"])
    }  # storage: fast to slow; learn: default first
    values = sorted(set(data[hue].astype(str)), key=lambda v: (rank.get(v, 99), v))
    colors = dict(zip(values, dark_colors(len(values)), strict=True))
    for ax, key in zip(axes, panels, strict=False):
        panel = data[data[panel_key] == key]
        order = categories[0](panel[x]) if categories else None
        for value in [v for v in values if v in set(panel[hue].astype(str))]:
            line = panel[panel[hue].astype(str) == value].copy()
            line["_pos"] = line[x].map({v: j for j, v in enumerate(order)}) if categories else line[x]
            line = line.sort_values("_pos")
            bars, bars_are = _bars(line, y, yerr, scale)
            _errorbar(
                ax,
                line["_pos"],
                line[y] * scale,
                bars,
                bars_are,
                valid_points(line),
                color=colors[value],
                label=hue_label(value),
            )
        _finish_axis(ax, key, panel[x], order, categories, xlabel, ylabel, logy and (panel[y] > 0).any())
        ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


_RATE = ("event_rate_hz_mean", "event_rate_hz_std", "Event rate [Hz]")
# Figures of a file setting, where a user's file as it is is drawn at its own setting beside its rewrites.
_AS_IS_FIGURES = (
    "fig01_rate_vs_compression",
    "fig02_size_vs_compression",
    "fig03_rate_vs_autoflush",
    "fig04_size_vs_autoflush",
    "fig05_memory_vs_autoflush",
)
_AF_X = (autoflush_order, autoflush_label)
_CACHE_X = (cache_order, cache_label)
_SPLIT_X = (lambda v: sorted(set(int(x) for x in v)), str)


_SIZE_MB = ("size_bytes", None)  # sizes have no spread: every repetition reads the same file


def _by_algorithm(title, x, y, yerr, xlabel, ylabel, categories=None, scale=1.0):
    """A figure of one line per algorithm (Figures 1-7), as a function of the scan's rows."""
    return lambda d, ctx: _lines_by_algorithm(d, title, x, y, yerr, xlabel, ylabel, categories, scale)


_fig01 = _by_algorithm(
    "Fig. 1: event rate vs compression", "level", *_RATE[:2], "Compression level", _RATE[2]
)
_fig02 = _by_algorithm(
    "Fig. 2: file size vs compression", "level", *_SIZE_MB, "Compression level", "File size [MB]", scale=1e-6
)
_fig03 = _by_algorithm(
    "Fig. 3: event rate vs AutoFlush", "autoflush", *_RATE[:2], "AutoFlush", _RATE[2], _AF_X
)
_fig04 = _by_algorithm(
    "Fig. 4: file size vs AutoFlush", "autoflush", *_SIZE_MB, "AutoFlush", "File size [MB]", _AF_X, scale=1e-6
)
_fig05 = _by_algorithm(
    "Fig. 5: memory vs AutoFlush (the reader's peak RSS above its RSS after the open)",
    "autoflush",
    "rss_increase_bytes_mean",
    "rss_increase_bytes_std",
    "AutoFlush",
    "Peak RSS increase [MB]",
    _AF_X,
    scale=1e-6,
)
_fig06 = _by_algorithm(
    "Fig. 6: event rate vs split level", "split_level", *_RATE[:2], "Split level", _RATE[2], _SPLIT_X
)
_fig07 = _by_algorithm(
    "Fig. 7: file size vs split level",
    "split_level",
    *_SIZE_MB,
    "Split level",
    "File size [MB]",
    _SPLIT_X,
    scale=1e-6,
)


def _learn_label(value: str) -> str:
    return f"learn entries: {value}"


def _fig08(d, ctx):
    return _lines_by(
        d,
        "Fig. 8: event rate vs TTreeCache size",
        "format",
        format_order,
        "learn_entries",
        "cache_size",
        *_RATE[:2],
        "TTreeCache size",
        _RATE[2],
        _CACHE_X,
        hue_label=_learn_label,
    )


def _fig09(d, ctx):
    return _lines_by(
        d,
        "Fig. 9: read calls vs TTreeCache size",
        "format",
        format_order,
        "learn_entries",
        "cache_size",
        "loop_read_calls_mean",
        "loop_read_calls_std",
        "TTreeCache size",
        "Read calls in the event loop",
        _CACHE_X,
        logy=True,
        hue_label=_learn_label,
    )


def _fig10(d, ctx):
    fig = _lines_by_algorithm(
        d,
        "Fig. 10: event rate vs implicit-MT threads",
        "threads",
        *_RATE[:2],
        "Implicit-MT threads",
        _RATE[2],
    )
    cores = ctx.get("cores")
    for ax in fig.axes:
        ax.xaxis.set_major_locator(_max_n_locator()(integer=True))
        if cores and d["threads"].max() > cores:
            ax.axvspan(cores + 0.5, d["threads"].max() + 0.5, color="0.85", zorder=0, label="oversubscribed")
            ax.text(
                cores + 0.6, ax.get_ylim()[0], f"> {cores} cores: oversubscribed", fontsize=7, va="bottom"
            )
    return fig


def _setting_order(values) -> list[str]:
    """Compression settings ("zlib-5") in the paper's algorithm order, then by level."""

    def key(v):
        alg, level = v.rsplit("-", 1)
        return (ALGORITHMS.index(alg) if alg in ALGORITHMS else 99, int(level))

    return sorted(set(values), key=key)


def _fig11(d, ctx):
    d = d.assign(setting=d["algorithm"] + "-" + d["level"].astype(str))
    return _lines_by(
        d,
        "Fig. 11 (beyond the paper): xAOD event rate vs compression per storage profile",
        "format",
        format_order,
        "storage_profile",
        "setting",
        *_RATE[:2],
        "Compression (algorithm-level)",
        _RATE[2],
        (_setting_order, str),
        hue_label=lambda p: f"storage: {p}",
    )


def _fig12(d, ctx):
    return _lines_by(
        d,
        "Fig. 12 (beyond the paper): xAOD event rate vs TTreeCache size per storage profile",
        "format",
        format_order,
        "storage_profile",
        "cache_size",
        *_RATE[:2],
        "TTreeCache size",
        _RATE[2],
        _CACHE_X,
        hue_label=lambda p: f"storage: {p}",
    )


def _container_setting(d: pd.DataFrame) -> pd.DataFrame:
    return d.assign(setting=d["algorithm"] + "-" + d["level"].astype(str))


def _fig13(d, ctx):
    return _lines_by(
        _container_setting(d),
        "Fig. 13 (beyond the paper): event rate, TTree and RNTuple (the same events)",
        "format",
        format_order,
        "container",
        "setting",
        *_RATE[:2],
        "Compression (algorithm-level)",
        _RATE[2],
        (_setting_order, str),
    )


def _fig14(d, ctx):
    return _lines_by(
        _container_setting(d),
        "Fig. 14 (beyond the paper): file size, TTree and RNTuple (the same events)",
        "format",
        format_order,
        "container",
        "setting",
        "size_bytes",
        None,
        "Compression (algorithm-level)",
        "File size [MB]",
        (_setting_order, str),
        scale=1e-6,
    )


def _fig15(d, ctx):
    """The rate ratio with its 95 % interval (paired by round where both points were measured in the same
    rounds: rootparams.stats.compare), hollow where either point is not valid; the file size ratio, exact."""
    ratios = container_ratios(d, ctx.get("repetitions"))
    if ratios.empty:
        return _empty("Fig. 15: RNTuple / TTree", "No setting measured in both containers.")
    nan = float("nan")
    long = pd.concat(
        [
            ratios.assign(
                what="event rate",
                ratio=ratios["rate_ratio"],
                ratio_ci95_low=ratios["rate_ratio_low"],
                ratio_ci95_high=ratios["rate_ratio_high"],
            ),
            # A file's size depends on no timed read: its ratio is exact, and valid whatever the reads were.
            ratios.assign(
                what="file size",
                ratio=ratios["size_ratio"],
                ratio_ci95_low=nan,
                ratio_ci95_high=nan,
                valid=True,
            ),
        ]
    )
    fig = _lines_by(
        _container_setting(long),
        "Fig. 15 (beyond the paper): RNTuple / TTree, event rate and file size",
        "format",
        format_order,
        "what",
        "setting",
        "ratio",
        None,
        "Compression (algorithm-level)",
        "RNTuple / TTree",
        (_setting_order, str),
    )
    for ax in fig.axes:
        ax.axhline(1.0, color="0.5", linewidth=0.8, linestyle=":")
    paired = int(ratios["rate_ratio_paired"].astype(bool).sum())
    setattr(
        fig,
        _BAR_NOTES,
        [
            f"error bars: 95 % interval of the rate ratio ({paired} of {len(ratios)} paired by round, the others "
            "unpaired); a ratio is hollow where either point is not valid; file size ratios are exact"
        ],
    )
    return fig


def _series(d: pd.DataFrame, *extra: str) -> pd.DataFrame:
    """A hue that names the container, the compression setting and ``extra`` columns: "RNTuple zlib-5 hdd"."""
    label = d["container"].map(CONTAINER_LABELS) + " " + d["algorithm"] + "-" + d["level"].astype(str)
    if "cluster_bunch" in d:  # ROOT's default bunch of 1 unnamed
        label = label + d["cluster_bunch"].map(lambda b: f" bunch {int(b)}" if b == b and int(b) != 1 else "")
    for column in extra:
        label = label + " " + d[column].astype(str)
    return d.assign(series=label)


def _fig16(d, ctx):
    return _lines_by(
        _series(d),
        "Fig. 16 (beyond the paper): event rate vs cluster size (TTree AutoFlush, RNTuple clusters)",
        "format",
        format_order,
        "series",
        "autoflush",
        *_RATE[:2],
        "Cluster size (AutoFlush)",
        _RATE[2],
        _AF_X,
    )


def _fig17(d, ctx):
    pages = (lambda v: sorted(set(int(x) for x in v)), lambda v: f"{int(v) / 1024:g} kB")
    return _lines_by(
        _series(d),
        "Fig. 17 (beyond the paper): RNTuple event rate vs largest page size",
        "format",
        format_order,
        "series",
        "page_size",
        *_RATE[:2],
        "Largest page (uncompressed)",
        _RATE[2],
        pages,
    )


def _fig18(d, ctx):
    d = _series(d, "storage_profile")
    on_off = (cache_order, lambda v: "off" if int(v) == 0 else "on (TTree: -1)")
    return _lines_by(
        d,
        "Fig. 18 (beyond the paper): RNTuple cluster cache (and TTreeCache) off and on per storage",
        "format",
        format_order,
        "series",
        "cache_size",
        *_RATE[:2],
        "Cluster cache / TTreeCache",
        _RATE[2],
        on_off,
        logy=True,
    )


def _storage_rtt(d: pd.DataFrame) -> pd.DataFrame:
    """The storage profile as an x category ordered by the latency it adds: local profiles first (no network),
    then the remote ones by RTT, each labelled with it (remote_rtt_ms from the records)."""
    rtt = d["remote_rtt_ms_mean"] if "remote_rtt_ms_mean" in d else pd.Series(np.nan, index=d.index)
    label = [p if r != r else f"{p} ({r:g} ms)" for p, r in zip(d["storage_profile"], rtt, strict=True)]
    rank = {p: i for i, p in enumerate(STORAGE_ORDER)}
    order = sorted(
        set(zip(rtt.fillna(-1), d["storage_profile"].map(lambda p: rank.get(p, 99)), label, strict=True))
    )
    return d.assign(storage=label), [lab for *_, lab in order]


def _fig19(d, ctx):
    return _lines_by(
        d,
        "Fig. 19 (beyond the paper): event rate vs TTreeCache size, local and over XRootD with added latency",
        "format",
        format_order,
        "storage_profile",
        "cache_size",
        *_RATE[:2],
        "TTreeCache size",
        _RATE[2],
        _CACHE_X,
        logy=True,
        hue_label=lambda p: f"storage: {p}",
    )


def _fig20(d, ctx):
    d, order = _storage_rtt(d[d["container"] == TTREE] if "container" in d else d)
    cache = {0: "TTreeCache off", -1: "TTreeCache -1 (ROOT's default sizing)"}
    d = d.assign(cache=d["cache_size"].map(lambda v: cache.get(int(v), f"TTreeCache {cache_label(int(v))}")))
    return _lines_by(
        d,
        "Fig. 20 (beyond the paper): event rate vs round-trip time, TTreeCache off and on",
        "format",
        format_order,
        "cache",
        "storage",
        *_RATE[:2],
        "Storage (added round-trip time)",
        _RATE[2],
        (lambda v: [o for o in order if o in set(v)], str),
        logy=True,
    )


def _prefetch_series(container: str, async_prefetch: bool, cache_size: int) -> str:
    """Fig. 21's line: the TTreeCache (with or without async prefetching) or the RNTuple cluster cache."""
    if container != TTREE:
        return f"{CONTAINER_LABELS.get(container, container)}, cluster cache {'off' if cache_size == 0 else 'on'}"
    return f"TTree, TTreeCache {cache_label(cache_size)}" + (" + async prefetch" if async_prefetch else "")


def _fig21(d, ctx):
    d, order = _storage_rtt(d)
    series = [
        _prefetch_series(c, bool(a), int(s))
        for c, a, s in zip(d["container"], d["async_prefetch"].fillna(False), d["cache_size"], strict=True)
    ]
    return _lines_by(
        d.assign(series=series),
        "Fig. 21 (beyond the paper): async prefetching and the RNTuple cluster cache by storage",
        "format",
        format_order,
        "series",
        "storage",
        *_RATE[:2],
        "Storage (added round-trip time)",
        _RATE[2],
        (lambda v: [o for o in order if o in set(v)], str),
        logy=True,
    )


# ---- The related studies (docs/measurement.md, "The related studies") ------------------------------------------
_SELECTION_X = (selection_order, selection_label)


def _layout_series(d: pd.DataFrame) -> pd.DataFrame:
    """Access patterns: one line per on-disk layout, split level (branch-wise at >= 1, class-wise at 0) and
    cluster size."""
    label = [
        "split "
        + str(int(s))
        + (" (class-wise)" if int(s) == 0 else " (branch-wise)")
        + ", AutoFlush "
        + autoflush_label(int(a))
        for s, a in zip(d["split_level"], d["autoflush"], strict=True)
    ]
    return d.assign(series=label)


def _fig22(d, ctx):
    return _lines_by(
        _layout_series(d),
        "Fig. 22 (access-pattern study): event rate vs access pattern, split level and cluster size",
        "format",
        format_order,
        "series",
        "branches",
        *_RATE[:2],
        "Branches read",
        _RATE[2],
        _SELECTION_X,
        logy=True,
    )


def _scaled(d: pd.DataFrame, metric: str, name: str, factor) -> pd.DataFrame:
    """``d`` with ``metric``'s mean, 1σ spread and 95 % interval of the mean (where summary.csv has one) times
    ``factor`` (exact per point: the events a read holds, the bytes of an event) as ``name``, ``name``_std,
    ``name``_ci95_low and ``name``_ci95_high."""
    columns = {name: d[f"{metric}_mean"] * factor, f"{name}_std": d[f"{metric}_std"] * factor}
    for end in ("ci95_low", "ci95_high"):
        if f"{metric}_{end}" in d:
            columns[f"{name}_{end}"] = d[f"{metric}_{end}"] * factor
    return d.assign(**columns)


def _fig23(d, ctx):
    d = _scaled(_layout_series(d), "loop_bytes_read", "bytes_per_event", 1 / d["events_read_mean"])
    return _lines_by(
        d,
        "Fig. 23 (access-pattern study): compressed bytes read per event vs access pattern",
        "format",
        format_order,
        "series",
        "branches",
        "bytes_per_event",
        "bytes_per_event_std",
        "Branches read",
        "Bytes read per event (loop)",
        _SELECTION_X,
        logy=True,
    )


def _style_series(d: pd.DataFrame) -> pd.DataFrame:
    styles = [reading_style_label(s, t) for s, t in zip(d["reading_style"], d["threads"], strict=True)]
    # One line per selection and compression setting: the studies' gap between styles depends on the algorithm.
    series = [
        f"{selection_label(b)}; {a}-{int(lv)}"
        for b, a, lv in zip(d["branches"], d["algorithm"], d["level"], strict=True)
    ]
    return d.assign(style=styles, selection=series)


# The reading styles in the studies' order (a label's part before its thread count).
_STYLE_RANK = {"TTree::GetEntry": 0, "TTree bulk API": 1, "RDataFrame": 2, "uproot": 3}


def _style_rank(label: str) -> int:
    return _STYLE_RANK.get(label.split(",")[0], 9)


def _style_order(values) -> list[str]:
    return sorted(set(values), key=lambda v: (_style_rank(v), v))


def _fig24(d, ctx):
    return _lines_by(
        _style_series(d),
        "Fig. 24 (reading-style study): event rate by reading style",
        "format",
        format_order,
        "selection",
        "style",
        *_RATE[:2],
        "Reading style",
        _RATE[2],
        (_style_order, str),
        logy=True,
    )


def _fig25(d, ctx):
    return _lines_by(
        _style_series(d),
        "Fig. 25 (reading-style study): reader CPU per event by reading style (all threads, loop span)",
        "format",
        format_order,
        "selection",
        "style",
        "loop_cpu_us_per_event_mean",
        "loop_cpu_us_per_event_std",
        "Reading style",
        "CPU per event [µs]",
        (_style_order, str),
        logy=True,
    )


def _event_size_rows(d: pd.DataFrame) -> pd.DataFrame:
    """The event-size formats with their uncompressed event size (from the format's name) and a line per
    container and reading style; one panel."""
    size = d["format"].map(eventsize_written_bytes)  # what an event holds (36 B for eventsize_40)
    series = [
        f"{CONTAINER_LABELS.get(c, c)}, {reading_style_label(s, t)}"
        for c, s, t in zip(d["container"], d["reading_style"], d["threads"], strict=True)
    ]
    return d.assign(event_bytes=size, series=series, panel="the same volume at every event size")


def _fig26(d, ctx):
    d = _event_size_rows(d)
    d = _scaled(d, "event_rate_hz", "mb_s", d["event_bytes"] / 1e6)
    fig = _lines_by(
        d,
        "Fig. 26 (event-size study): uncompressed throughput vs event size at a fixed volume",
        "panel",
        ["the same volume at every event size"],
        "series",
        "event_bytes",
        "mb_s",
        "mb_s_std",
        "Uncompressed bytes per event",
        "Throughput [MB/s, uncompressed]",
        None,
        logy=True,
    )
    for ax in fig.axes:
        ax.set_xscale("log")
    return fig


def _fig27(d, ctx):
    d = _event_size_rows(d)
    fig = _lines_by(
        d,
        "Fig. 27 (event-size study): reader CPU per event vs event size (the per-event overhead)",
        "panel",
        ["the same volume at every event size"],
        "series",
        "event_bytes",
        "loop_cpu_us_per_event_mean",
        "loop_cpu_us_per_event_std",
        "Uncompressed bytes per event",
        "CPU per event [µs]",
        None,
        logy=True,
    )
    for ax in fig.axes:
        ax.set_xscale("log")
    return fig


def _fig28(d, ctx):
    label = [
        f"{a}-{int(lv)}, parallel unzip {'on' if u else 'off'}"
        for a, lv, u in zip(d["algorithm"], d["level"], d["unzip"].fillna(False).astype(bool), strict=True)
    ]
    fig = _lines_by(
        d.assign(series=label),
        "Fig. 28 (parallel-unzip study): parallel unzip (TTreeCacheUnzip) and implicit MT",
        "format",
        format_order,
        "series",
        "threads",
        *_RATE[:2],
        "Implicit-MT threads",
        _RATE[2],
        (lambda v: sorted(set(int(x) for x in v)), str),
    )
    return fig


def _fig29(d, ctx):
    d = d.assign(setting=d["algorithm"] + "-" + d["level"].astype(str))
    return _lines_by(
        d,
        "Fig. 29: compression ratio with mostly empty collections (skimmed) and full events",
        "algorithm",
        ALGORITHMS,
        "format",
        "level",
        "compression_ratio",
        None,
        "Compression level",
        "Compression ratio (uncompressed / compressed)",
        (lambda v: sorted(set(int(x) for x in v)), str),
        hue_label=format_title,
    )


def _grouped_bars(
    ax,
    rows: pd.DataFrame,
    x: str,
    order: list,
    hue: str,
    hues: list,
    y: str,
    yerr: str | None,
    scale: float = 1.0,
    hatch: dict | None = None,
    judged: bool = True,
) -> None:
    """Bars grouped by ``x`` (its categories in ``order``), one bar per value of ``hue`` (``hues``, in order) side by
    side in each group; each bar coloured by its algorithm, hatched as ``hatch`` says for its hue value; error bars
    as ``_bars`` finds them (none for exact sizes); hollow where the point is not valid (``judged``: a file size
    depends on no timed read and is never hollow)."""
    width = 0.8 / max(len(hues), 1)
    index = {v: i for i, v in enumerate(order)}
    for j, value in enumerate(hues):
        bars_of = rows[(rows[hue] == value) & rows[x].isin(list(index))]
        if bars_of.empty:
            continue
        pos = bars_of[x].map(index).to_numpy(dtype=float) + (j - (len(hues) - 1) / 2) * width
        height = bars_of[y].to_numpy(dtype=float) * scale
        colors = [ALGORITHM_COLORS.get(a, "0.3") for a in bars_of["algorithm"]]
        valid = valid_points(bars_of).to_numpy(dtype=bool) if judged else np.ones(len(bars_of), dtype=bool)
        pattern = (hatch or {}).get(value, "")
        if valid.any():
            ax.bar(
                pos[valid],
                height[valid],
                width,
                color=[c for c, ok in zip(colors, valid, strict=True) if ok],
                hatch=pattern,
                edgecolor="0.2",
                linewidth=0.5,
            )
        if (~valid).any():
            ax.bar(
                pos[~valid],
                height[~valid],
                width,
                facecolor="white",
                edgecolor=[c for c, ok in zip(colors, valid, strict=True) if not ok],
                hatch=pattern,
                linewidth=1.2,
            )
        bars, bars_are = _bars(bars_of, y, yerr, scale)
        if bars is not None:
            ax.errorbar(pos, height, yerr=bars, fmt="none", ecolor="0.15", elinewidth=1.0, capsize=3)
            _note_bars(ax.figure, bars_are)
    ax.set_xticks(range(len(order)), [str(v) for v in order], rotation=30, ha="right")


def _setting_patches(settings: list[str]) -> list[Patch]:
    """Legend entries: one colour per compression setting's algorithm."""
    return [_patch()(color=ALGORITHM_COLORS.get(s.rsplit("-", 1)[0], "0.3"), label=s) for s in settings]


def _style_categories(d: pd.DataFrame) -> list[str]:
    container = d["container"] if "container" in d else pd.Series(TTREE, index=d.index)
    return [
        container_style_label(s, c, t)
        for c, s, t in zip(container, d["reading_style"], d["threads"], strict=True)
    ]


def _category_order(values) -> list[str]:
    """TTree's reading styles in the studies' order, then RNTuple's (views before bulk)."""
    present = set(values)
    rntuple = sorted((v for v in present if v.startswith("RNTuple")), key=lambda v: ("bulk" in v, v))
    return _style_order(present - set(rntuple)) + rntuple


def _settings(d: pd.DataFrame) -> pd.Series:
    """Each row's compression setting, "zlib-5"."""
    return d["algorithm"] + "-" + d["level"].astype(int).astype(str)


def _stored_offsets(d: pd.DataFrame) -> pd.DataFrame:
    """The rows of files with stored offsets (ROOT's default; all rows of tables from before the setting)."""
    return d[d["offsets"].fillna(OFFSETS_STORED) == OFFSETS_STORED] if "offsets" in d else d


def _fig36(d, ctx):
    """Events per second per reading style and compression setting ("Optimizing ROOT IO For Analysis", Figure 1):
    one panel per format and selection, a group of bars per reading style, one bar per compression setting, with
    the 95 % interval of the mean; files with stored offsets."""
    d = _stored_offsets(d)
    d = d.assign(style=_style_categories(d), setting=_settings(d))
    pairs = [
        (f, b) for f in format_order(d["format"]) for b in selection_order(d[d["format"] == f]["branches"])
    ]
    title = "Fig. 36 (bulk-read study): events per second by reading style and algorithm"
    fig, axes = _panels(len(pairs), title)
    settings = _setting_order(d["setting"])
    for ax, (fmt, selection) in zip(axes, pairs, strict=False):
        panel = d[(d["format"] == fmt) & (d["branches"] == selection)]
        here = [s for s in settings if s in set(panel["setting"])]
        _grouped_bars(ax, panel, "style", _category_order(panel["style"]), "setting", here, *_RATE[:2])
        ax.set_yscale("log")
        ax.set_title(f"{format_title(fmt)}, {selection_label(selection)}")
        ax.set_xlabel("Reading style")
        ax.set_ylabel(_RATE[2])
    axes[-1].legend(
        handles=_setting_patches(settings), fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0)
    )
    fig.tight_layout()
    return fig


# Fig. 37: bars of files with generated offsets are hatched.
_OFFSETS_HATCH = {OFFSETS_GENERATED: "//"}


def _fig37(d, ctx):
    """File size and event rate with entry offsets stored or generated on read (the BulkIO talk's bar chart), per
    format: the size per compression setting, a bar per offsets setting (exact: no bars); the rate per compression
    setting and reading style, a bar per offsets setting, with the 95 % interval of the mean."""
    if "offsets" in d:
        d = d.assign(offsets=d["offsets"].fillna(OFFSETS_STORED))
    else:
        d = d.assign(offsets=OFFSETS_STORED)
    d = d.assign(setting=_settings(d))
    styles = [reading_style_label(r, t) for r, t in zip(d["reading_style"], d["threads"], strict=True)]
    d = d.assign(style=styles, category=d["setting"] + ", " + pd.Series(styles, index=d.index))
    formats = format_order(d["format"])
    fig, axes = pyplot().subplots(len(formats), 2, figsize=(11.0, 3.8 * len(formats)), squeeze=False)
    title = "Fig. 37 (offsets study): file size and event rate, entry offsets stored or generated"
    fig.suptitle(title, fontsize=11)
    hues = [o for o in (OFFSETS_STORED, OFFSETS_GENERATED) if o in set(d["offsets"])]
    settings = _setting_order(d["setting"])
    for (size_ax, rate_ax), fmt in zip(axes, formats, strict=True):
        panel = d[d["format"] == fmt]
        here = [s for s in settings if s in set(panel["setting"])]
        files = panel.drop_duplicates("file_id")
        size = ("size_bytes", None, 1e-6, _OFFSETS_HATCH, False)  # exact: no bars, never hollow
        _grouped_bars(size_ax, files, "setting", here, "offsets", hues, *size)
        size_ax.set_title(f"{format_title(fmt)}: file size")
        size_ax.set_xlabel("Compression (algorithm-level)")
        size_ax.set_ylabel("File size [MB]")
        rank = {s: i for i, s in enumerate(here)}
        kinds = panel.drop_duplicates("category")
        ranks = kinds["setting"].map(rank), kinds["style"].map(_style_rank)
        keys = zip(*ranks, kinds["category"], strict=True)
        order = [c for *_, c in sorted(keys)]
        _grouped_bars(rate_ax, panel, "category", order, "offsets", hues, *_RATE[:2], hatch=_OFFSETS_HATCH)
        rate_ax.set_yscale("log")
        rate_ax.set_title(f"{format_title(fmt)}: event rate")
        rate_ax.set_xlabel("Compression, reading style")
        rate_ax.set_ylabel(_RATE[2])
    _note_bars(fig, "file sizes: exact, no bars")
    handles = _setting_patches(settings) + [
        _patch()(facecolor="white", edgecolor="0.2", hatch=_OFFSETS_HATCH.get(o, ""), label=f"offsets {o}")
        for o in hues
    ]
    axes[0][-1].legend(handles=handles, fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    fig.tight_layout()
    return fig


# The figures that compare the containers; every other figure draws the TTree points when the study has both.
_CONTAINER_FIGURES = (
    "fig13_rate_ttree_vs_rntuple",
    "fig14_size_ttree_vs_rntuple",
    "fig15_rntuple_over_ttree",
    "fig16_rate_vs_cluster_size",
    "fig17_rntuple_rate_vs_page_size",
    "fig18_cluster_cache_by_storage",
    "fig21_prefetch_by_latency",
    "fig26_throughput_vs_event_size",
    "fig27_cpu_per_event_vs_event_size",
    "fig36_rate_by_reading_style_and_algorithm",
)

FIGURES = [
    Figure(
        "fig01_rate_vs_compression", ("compression",), "Event rate vs compression algorithm and level", _fig01
    ),
    Figure(
        "fig02_size_vs_compression", ("compression",), "File size vs compression algorithm and level", _fig02
    ),
    Figure("fig03_rate_vs_autoflush", ("autoflush",), "Event rate vs AutoFlush", _fig03),
    Figure("fig04_size_vs_autoflush", ("autoflush",), "File size vs AutoFlush", _fig04),
    Figure("fig05_memory_vs_autoflush", ("autoflush",), "Reader memory vs AutoFlush", _fig05),
    Figure("fig06_rate_vs_split", ("split",), "Event rate vs split level", _fig06),
    Figure("fig07_size_vs_split", ("split",), "File size vs split level", _fig07),
    Figure(
        "fig08_rate_vs_cache",
        ("cache", "cache_learn"),
        "Event rate vs TTreeCache size (and learn entries)",
        _fig08,
    ),
    Figure("fig09_readcalls_vs_cache", ("cache", "cache_learn"), "Read calls vs TTreeCache size", _fig09),
    Figure("fig10_rate_vs_threads", ("threads",), "Event rate vs implicit-MT threads", _fig10),
    Figure(
        "fig11_rate_vs_compression_by_storage",
        ("storage_compression",),
        "xAOD rate vs compression per storage",
        _fig11,
    ),
    Figure(
        "fig12_rate_vs_cache_by_storage",
        ("storage_cache",),
        "xAOD rate vs TTreeCache size per storage",
        _fig12,
    ),
    Figure(_CONTAINER_FIGURES[0], ("container",), "Event rate, TTree and RNTuple", _fig13),
    Figure(_CONTAINER_FIGURES[1], ("container",), "File size, TTree and RNTuple", _fig14),
    Figure(_CONTAINER_FIGURES[2], ("container",), "RNTuple / TTree: event rate and file size", _fig15),
    Figure(
        _CONTAINER_FIGURES[3],
        ("autoflush", "rntuple_cluster"),
        "Event rate vs cluster size, both containers",
        _fig16,
    ),
    Figure(_CONTAINER_FIGURES[4], ("rntuple_page",), "RNTuple event rate vs page size", _fig17),
    Figure(
        _CONTAINER_FIGURES[5],
        ("rntuple_cache", "storage_cache", "container_storage"),
        "Cluster cache and TTreeCache per storage",
        _fig18,
    ),
    # Remote reads (config/remote.yaml): the same cold reads through a local XRootD server.
    Figure(
        "fig19_rate_vs_cache_by_latency", ("remote_cache",), "Rate vs TTreeCache size per latency", _fig19
    ),
    Figure("fig20_rate_vs_rtt", ("remote_cache",), "Rate vs round-trip time, cache off and on", _fig20),
    Figure(
        _CONTAINER_FIGURES[6],
        ("remote_prefetch", "remote_rntuple"),
        "Async prefetch and cluster cache",
        _fig21,
    ),
    # The related studies (config/seeds.yaml): each scan is off in a study that does not name it.
    Figure("fig22_rate_vs_access_pattern", ("access",), "Rate vs access pattern and split level", _fig22),
    Figure("fig23_bytes_vs_access_pattern", ("access",), "Bytes read per event vs access pattern", _fig23),
    Figure("fig24_rate_by_reading_style", ("reading_style",), "Rate by reading style", _fig24),
    Figure("fig25_cpu_by_reading_style", ("reading_style",), "CPU per event by reading style", _fig25),
    Figure(_CONTAINER_FIGURES[7], ("event_size",), "Throughput vs event size at a fixed volume", _fig26),
    Figure(_CONTAINER_FIGURES[8], ("event_size",), "CPU per event vs event size", _fig27),
    Figure("fig28_rate_vs_unzip", ("unzip",), "Parallel unzip and implicit MT", _fig28),
    Figure("fig29_skim_compression_ratio", ("skim",), "Compression ratio, skimmed and full events", _fig29),
    # ROOT's bulk read and entry offsets (config/examples/bulk-offsets-cache.yaml).
    Figure(
        _CONTAINER_FIGURES[9],
        ("reading_style", "bulk_container"),
        "Events per second by reading style and algorithm",
        _fig36,
    ),
    Figure(
        "fig37_size_and_rate_by_offsets",
        ("offsets",),
        "File size and rate, offsets stored or generated",
        _fig37,
    ),
]
FIGURE_NAMES = [f.name for f in FIGURES]
# Drawn from config/remote.yaml's scans (they need xrootd and toxiproxy): tests/test_remote_study.py draws them.
_REMOTE_FIGURES = ("fig19_rate_vs_cache_by_latency", "fig20_rate_vs_rtt", "fig21_prefetch_by_latency")
# Drawn from the related studies' scans: tests/test_seed_studies.py draws them (tiny_seeds.yaml).
_SEED_SCANS = {"access", "reading_style", "event_size", "unzip", "skim", "bulk_container", "offsets"}
_SEED_FIGURES = tuple(f.name for f in FIGURES if set(f.scans) & _SEED_SCANS)


def draw(
    figure: Figure, summary: pd.DataFrame, points: pd.DataFrame, files: pd.DataFrame, ctx: dict
) -> plt.Figure:
    """``figure`` from the tidy tables. ``ctx``, each optional: "measurement" (the study's measurement config:
    validity is judged by the rule of the figure's own scans, aggregate.window_rule; without it, summary.csv's
    validity), "repetitions" (compare.Repetitions: Fig. 15's ratios paired by round; without it, unpaired),
    "cores" (Fig. 10)."""
    theme()
    measurement = ctx.get("measurement")
    data = scan_rows(summary, points, files, figure.scans, measurement=measurement)
    if figure.name in _AS_IS_FIGURES and "origin" in summary:
        # A user's file as it is, at its own settings, beside its rewrites (a star): also where every rewrite
        # was refused, so that the real file still has its panel.
        default = scan_rows(summary, points, files, "default")
        as_is = default[default["origin"] == "asis"]
        if measurement is not None:  # judged by this figure's rule, as the rewrites beside it
            as_is = apply_validity(as_is, measurement, figure.scans)
        data = pd.concat([data, as_is], ignore_index=True)
    if figure.name not in _CONTAINER_FIGURES and "container" in data:
        # The paper's figures are of TTrees: a format measured in both containers shows its TTree points
        # only; a format that is an RNTuple only (a user's RNTuple file) keeps its own.
        has_ttree = data.groupby("format")["container"].transform(lambda c: (c == TTREE).any())
        data = data[(data["container"] == TTREE) | ~has_ttree]
    if data.empty:
        wanted = " or ".join(f"'{s}'" for s in figure.scans)
        return _empty(figure.title, f"No points of the scan {wanted} in this study (see config/*.yaml).")
    fig = figure.draw(data, ctx)
    fig.text(0.01, -0.01, _footer(fig, data, measurement, figure.scans), fontsize=7, color="0.3", va="top")
    return fig


def _footer(fig: plt.Figure, data: pd.DataFrame, measurement: dict | None, scans: tuple[str, ...]) -> str:
    """The storage profiles, n, what the error bars are, and which points are not valid and by what rule."""
    profiles = profile_list(data["storage_profile"])
    lo, hi = int(data["n"].min()), int(data["n"].max())
    n = (
        f"n = {lo} unflagged repetitions per point"
        if lo == hi
        else f"n = {lo}-{hi} unflagged repetitions per point"
    )
    bars = "; ".join(getattr(fig, _BAR_NOTES, [])) or _NO_BARS
    invalid = int((~valid_points(data)).sum())
    validity = (
        f"hollow, joined to no line: {invalid} of {len(data)} points not valid (a timed loop misses I/O or is too "
        "short, or too few repetitions are unflagged)"
        if invalid
        else "every point valid"
    )
    if measurement is not None:
        rule = window_rule(measurement, scans)
        own = " (this scan's own rule)" if rule != window_rule(measurement) else ""
        required = (
            f", at least {int(data['n_required'].max())} of them unflagged" if "n_required" in data else ""
        )
        validity += (
            f"; valid: every timed loop lasts at least {rule['min_window_seconds']:g} s and holds at least "
            f"{rule['min_window_io_share']:.0%} of its read's I/O{own}{required}"
        )
    # Wrapped to the figure's width (about 19 characters an inch at 7 pt), so that it does not widen the image.
    width = max(int(fig.get_figwidth() * 19), 80)
    return "\n".join(
        textwrap.fill(part, width) for part in (f"storage profile: {profiles}; {n}; {bars}", validity)
    )


def save(fig: plt.Figure, png: str, pdf: str) -> None:
    fig.savefig(png, dpi=130, bbox_inches="tight")
    fig.savefig(pdf, bbox_inches="tight")
    pyplot().close(fig)


# From measurements to a decision (rootparams.decide.decision): drawn from its tables, not from a scan.
DECISION_FIGURES = ("fig30_pareto", "fig31_cost_vs_reads")


def pareto_figure_name(fmt: str) -> str:
    return f"{DECISION_FIGURES[0]}_{fmt}"


def draw_pareto(front: pd.DataFrame, fmt: str) -> plt.Figure:
    """File size against event rate for one format (pareto_front.csv), a panel per container, storage profile
    and branch selection; marker area grows with the write cost; the front's points are coloured by algorithm
    and joined, the others grey; every point labelled; error bars: the rate's 95 % interval of the mean."""
    theme()
    title = f"{format_title(fmt)}: file size, event rate and write cost (Pareto front)"
    everything = front[front["format"] == fmt]
    valid = everything["valid"].map(lambda v: str(v).lower() == "true")
    rows = everything[valid]
    if rows.empty:
        return _empty(title, f"No valid point of {fmt} in this run (see pareto_front.csv).")
    groups = list(rows.groupby(["container", "storage_profile", "branches"], sort=True))
    groups.sort(
        key=lambda g: (g[0][0], STORAGE_ORDER.index(g[0][1]) if g[0][1] in STORAGE_ORDER else 99, g[0][2])
    )
    fig, axes = pyplot().subplots(1, len(groups), figsize=(6.5 * len(groups), 5.2), squeeze=False)
    fig.suptitle(title, fontsize=11)
    write = rows["write_core_us_per_event"]
    wmax = float(write.max()) if write.notna().any() else 1.0
    for ax, ((container, profile, branches), g) in zip(axes[0], groups, strict=True):
        left_out = everything[
            ~valid
            & (everything["container"] == container)
            & (everything["storage_profile"] == profile)
            & (everything["branches"] == branches)
        ]
        ax.scatter(
            left_out["bytes_per_event"] / 1e3,
            left_out["event_rate_hz"],
            marker="x",
            s=18,
            color="0.75",
            linewidth=0.8,
        )
        on = g["on_front"].map(lambda v: str(v).lower() == "true")
        area = 15 + 250 * (g["write_core_us_per_event"].fillna(0) / wmax)
        kb = g["bytes_per_event"] / 1e3
        rate = g["event_rate_hz"]
        # The 95 % interval of the mean rate; none (n = 1) draws no bar.
        low, high = g.get("event_rate_hz_ci95_low", rate), g.get("event_rate_hz_ci95_high", rate)
        bars = np.vstack([(rate - low).fillna(0).clip(lower=0), (high - rate).fillna(0).clip(lower=0)])
        ax.errorbar(kb, rate, yerr=bars, fmt="none", ecolor="0.6", elinewidth=0.8, capsize=2)
        ax.scatter(kb[~on], rate[~on], s=area[~on], facecolor="none", edgecolor="0.55", linewidth=0.8)
        colors = [ALGORITHM_COLORS.get(a, "0.3") for a in g["algorithm"][on]] if "algorithm" in g else "C0"
        ax.scatter(kb[on], rate[on], s=area[on], c=colors, edgecolor="black", linewidth=0.8, zorder=3)
        line = g[on].sort_values("bytes_per_event")
        ax.plot(line["bytes_per_event"] / 1e3, line["event_rate_hz"], color="black", linewidth=0.8, zorder=2)
        for x, y, label, is_on in zip(kb, rate, g["setting"], on, strict=True):
            ax.annotate(
                label,
                (x, y),
                xytext=(3, 3),
                textcoords="offset points",
                fontsize=5.5,
                color="black" if is_on else "0.5",
            )
        ax.set_title(
            f"{CONTAINER_LABELS.get(container, container)}, {profile}, {selection_label(branches)}",
            fontsize=9,
        )
        ax.set_xlabel("File size per event [kB]")
        ax.set_ylabel("Event rate [Hz]")
    fig.text(
        0.01,
        -0.01,
        "filled and joined: the front; grey: surely beaten by a point of the front (not larger, not "
        f"costlier to write, a rate at most {100 * PARETO_RATE_MARGIN:g} % lower with 95 % confidence and not surely "
        "lower, better in one)\na point whose rate may be more than that faster stays on the front; "
        f"x: not valid, left out ({int((~valid).sum())}); marker area: ROOT's write time per event (largest "
        f"{wmax:.0f} core-µs, one measurement per file)\nerror bars: 95 % interval of the mean rate",
        fontsize=7,
        color="0.3",
        va="top",
    )
    return fig


def draw_cost(parts: pd.DataFrame, choice: pd.DataFrame, price: dict) -> plt.Figure:
    """Total cost per million events against reads per file (cost_model.csv), a panel per format: one line per
    setting with the lowest mean total somewhere from 1 to 10000 reads (thick, with its 95 % band), the other
    candidates thin and grey; at each cost.reads_per_file (dotted) whether the choice is sure or a tie
    (cost_choice.csv)."""
    theme()
    title = (
        f"Cost per million events against reads per file ({price['storage_profile']} reads; disk "
        f"{price['disk_per_tb_year']:g} {price['currency']}/TB-year x {price['lifetime_years']:g} y x "
        f"{price['copies']}, CPU {price['cpu_per_core_hour']:g} {price['currency']}/core-hour)"
    )
    if parts.empty:
        return _empty(
            title, "No valid point on the cost's storage profile and default selection in this run."
        )
    formats = format_order(parts["format"])
    fig, axes = _panels(len(formats), title)
    reads = np.logspace(0, 4, 200)
    envelope = crossovers(parts)
    bands = {"read_cost_ci95_low", "read_cost_ci95_high"} <= set(parts.columns)
    for ax, fmt in zip(axes, formats, strict=True):
        group = parts[parts["format"] == fmt]
        winners = set(envelope[(envelope["format"] == fmt) & (envelope["from_reads"] < reads[-1])]["setting"])
        for _, row in group.iterrows():
            fixed = fixed_cost(row)
            cost = fixed + reads * row["read_cost"]
            if row["setting"] not in winners:
                ax.plot(reads, cost, linewidth=0.5, color="0.75")
                continue
            (line,) = ax.plot(reads, cost, linewidth=1.8, label=row["setting"])
            if bands:
                # Disk is exact; the write is one measurement at the study's write noise (σ/mean), independent
                # of the reads: the two half-widths add in quadrature.
                noise = float(row.get("write_noise", 0.0) or 0.0)
                write = 1.96 * noise * row["write_cost"] if noise == noise else 0.0
                below = np.hypot(write, reads * (row["read_cost"] - row["read_cost_ci95_low"]))
                above = np.hypot(write, reads * (row["read_cost_ci95_high"] - row["read_cost"]))
                ax.fill_between(
                    reads,
                    cost - below,
                    cost + above,
                    color=line.get_color(),
                    alpha=0.2,
                    linewidth=0,
                )
        for _, c in choice[choice["format"] == fmt].iterrows():
            n = max(c["reads_per_file"], 1)
            ax.axvline(n, color="0.5", linestyle=":", linewidth=0.8)
            if "tie" in c:
                ax.text(
                    n,
                    0.98,
                    " tie" if str(c["tie"]).lower() == "true" else " sure",
                    fontsize=6,
                    color="0.3",
                    va="top",
                    transform=ax.get_xaxis_transform(),
                )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(format_title(fmt))
        ax.set_xlabel("Reads per file")
        ax.set_ylabel(f"Cost per million events [{price['currency']}]")
        ax.legend(fontsize=6, title="lowest mean somewhere", title_fontsize=6)
    fig.text(
        0.01,
        -0.01,
        "thick: the lowest mean total somewhere from 1 to 10^4 reads; band: its 95 % interval (the "
        "reads, a bootstrap over rounds;\nthe write, one measurement per file, at the study's write noise; disk "
        "exact); grey: the other "
        f"candidates ({len(parts)} in all: valid points, lossless unless cost.lossy);\ndotted: cost.reads_per_file, "
        "'sure' where one setting is the cheapest in 95 % of the resamples, 'tie' where several are equal\nwithin "
        "the uncertainty (cost_choice.csv)",
        fontsize=7,
        color="0.3",
        va="top",
    )
    return fig
