"""The figures from hand-made tables: what the error bars are, which points a line joins, Fig. 15's ratios, and
validity judged by the rule of the figure's own scans."""

import math

import matplotlib.colors as mcolors
import numpy as np
import pandas as pd
import pytest

from rootparams.present.figures import (
    _INTERVAL_BARS,
    _NO_BARS,
    _SPREAD_BARS,
    ALGORITHM_COLORS,
    FIGURES,
    draw,
)
from rootparams.results.aggregate import container_ratios, scan_rows
from rootparams.stats.compare import Repetitions
from rootparams.stats.intervals import ratio_paired

FIGURE = {f.name: f for f in FIGURES}
READ_ID = "cache-1_learnD_mt1_particle_native"


def point(algorithm, level, rate, scans="compression", valid=True, container="ttree", n=10, **extra):
    """A summary row (with its points.csv scans) at the xAOD's defaults but for what is given; the rate's 95 %
    interval is mean ± 1 Hz, its spread 2 Hz."""
    file_id = f"{'rntuple_' if container == 'rntuple' else ''}{algorithm}-{level}_af100"
    return {
        "format": "xaod",
        "file_id": file_id,
        "read_id": READ_ID,
        "container": container,
        "algorithm": algorithm,
        "level": level,
        "autoflush": 100,
        "split_level": 0,
        "branches": "particle",
        "storage_profile": "native",
        "n": n,
        "n_required": 8,
        "valid": valid,
        "window_valid": valid,
        "window_invalid_reasons": "" if valid else "lasts as little as 0.5 s (< 1 s)",
        "event_rate_hz_mean": rate,
        "event_rate_hz_std": 2.0,
        "event_rate_hz_ci95_low": rate - 1.0,
        "event_rate_hz_ci95_high": rate + 1.0,
        "rss_increase_bytes_mean": 5e7,
        "rss_increase_bytes_std": 1e6,
        "scans": scans,
        **extra,
    }


def tables(rows):
    """summary.csv, points.csv and files.csv of ``rows`` (the size grows with the level, for a visible line)."""
    summary = pd.DataFrame(rows)
    points = summary[["format", "file_id", "read_id", "scans"]]
    files = summary[["format", "file_id"]].drop_duplicates().assign(size_bytes=lambda f: 1e8 + 1e6 * f.index)
    return summary.drop(columns="scans"), points, files


def lines_of(ax, color):
    """The drawn lines (a line style, not markers only) and the hollow markers of ``color``."""
    mine = [line for line in ax.lines if mcolors.same_color(line.get_color(), color)]
    joined = [line for line in mine if line.get_linestyle() not in ("None", "none", "")]
    hollow = [
        line
        for line in mine
        if mcolors.same_color(line.get_markerfacecolor(), "white") and len(line.get_xdata())
    ]
    return joined, hollow


def footer(fig) -> str:
    """The figure's texts as one line (the footer is wrapped to the figure's width)."""
    return " ".join(" ".join(t.get_text() for t in fig.texts).split())


def test_a_line_joins_the_valid_points_only_and_the_invalid_one_stands_alone_hollow():
    summary, points, files = tables(
        [
            point("lz4", 1, 300.0),
            point("lz4", 5, 280.0, valid=False),
            point("lz4", 9, 200.0),
            point("zlib", 1, 150.0),
            point("zlib", 5, 140.0),
            point("zlib", 9, 130.0),
        ]
    )
    fig = draw(FIGURE["fig01_rate_vs_compression"], summary, points, files, {})
    ax = fig.axes[0]
    joined, hollow = lines_of(ax, ALGORITHM_COLORS["lz4"])
    # The line breaks at level 5: no line through it, nor to it; levels 1 and 9 stand on their own.
    assert sorted(list(j.get_xdata()) for j in joined) == [[1], [9]]
    assert sorted(list(j.get_ydata()) for j in joined) == [[200.0], [300.0]]
    assert [(list(h.get_xdata()), list(h.get_ydata())) for h in hollow] == [([5], [280.0])]
    zlib, zlib_hollow = lines_of(ax, ALGORITHM_COLORS["zlib"])
    assert list(zlib[0].get_xdata()) == [1, 5, 9] and not zlib_hollow
    # The bars are the 95 % interval of the mean (± 1 Hz here), not the 1σ spread (2 Hz), at every point.
    segments = [s for c in ax.collections for s in c.get_segments()]
    assert any(np.allclose(s, [[5, 279.0], [5, 281.0]]) for s in segments)
    assert not any(np.allclose(s, [[5, 278.0], [5, 282.0]]) for s in segments)
    text = footer(fig)
    assert _INTERVAL_BARS in text and "n = 10 unflagged repetitions per point" in text
    assert "1 of 6 points not valid" in text


def test_the_footer_says_what_the_bars_are_per_figure():
    rows = [point("lz4", 5, 300.0, scans="autoflush", n=8), point("zlib", 5, 200.0, scans="autoflush")]
    # The reader's memory without an interval column (a summary made before it had one): its 1σ spread.
    fig = draw(FIGURE["fig05_memory_vs_autoflush"], *tables(rows), {})
    assert _SPREAD_BARS in footer(fig) and _INTERVAL_BARS not in footer(fig)
    assert "n = 8-10 unflagged repetitions per point" in footer(fig)
    # File sizes: no bars.
    rows = [point("lz4", 5, 300.0), point("zlib", 5, 200.0)]
    fig = draw(FIGURE["fig02_size_vs_compression"], *tables(rows), {})
    assert _NO_BARS in footer(fig)
    assert not [c for ax in fig.axes for c in ax.collections if len(c.get_segments())]


def test_fig15_draws_the_paired_ratio_interval_and_hollow_where_a_point_is_not_valid():
    rows = [
        point("lz4", 5, 300.0, scans="container"),
        point("lz4", 5, 330.0, scans="container", container="rntuple"),
        point("zlib", 5, 200.0, scans="container"),
        point("zlib", 5, 260.0, scans="container", container="rntuple", valid=False),
    ]
    summary, points, files = tables(rows)
    # Five interleaved rounds: each point's repetitions keyed by their round.
    rng = np.random.default_rng(1)
    records = [
        {
            "format": "xaod",
            "file_id": r["file_id"],
            "read_id": READ_ID,
            "round_key": f"b1:r{k}",
            "flagged": False,
            "event_rate_hz": r["event_rate_hz_mean"] * (1 + 0.02 * rng.standard_normal()),
        }
        for r in rows
        for k in range(5)
    ]
    repetitions = Repetitions(pd.DataFrame(records))
    measurement = {"min_window_seconds": 1.0, "min_window_io_share": 0.9}
    fig = draw(
        FIGURE["fig15_rntuple_over_ttree"],
        summary,
        points,
        files,
        {"repetitions": repetitions, "measurement": measurement},
    )
    ax = fig.axes[0]
    (rate_line,) = [line for line in ax.lines if line.get_label() == "event rate"]
    (size_line,) = [line for line in ax.lines if line.get_label() == "file size"]
    ratios = container_ratios(scan_rows(summary, points, files, "container"), repetitions).set_index(
        "algorithm"
    )
    assert ratios["rate_ratio_paired"].all() and list(ratios["valid"]) == [True, False]
    # lz4-5 valid, joined; zlib-5's RNTuple point is not valid: its ratio is hollow, not joined.
    assert list(rate_line.get_xdata()) == [0]
    assert rate_line.get_ydata()[0] == pytest.approx(ratios.loc["lz4", "rate_ratio"])
    _, hollow = lines_of(ax, rate_line.get_color())
    assert [list(h.get_xdata()) for h in hollow] == [[1]]
    assert hollow[0].get_ydata()[0] == pytest.approx(ratios.loc["zlib", "rate_ratio"])
    # The size ratio depends on no timed read: both joined.
    assert list(size_line.get_xdata()) == [0, 1]
    # The bar is the paired ratio's 95 % interval, from the rounds.
    by_round = {
        r["file_id"]: [x["event_rate_hz"] for x in records if x["file_id"] == r["file_id"]] for r in rows
    }
    expected = ratio_paired(by_round["rntuple_lz4-5_af100"], by_round["lz4-5_af100"])
    segments = [s for c in ax.collections for s in c.get_segments()]
    assert any(np.allclose(s, [[0, expected.low], [0, expected.high]]) for s in segments)
    assert "95 % interval of the rate ratio (2 of 2 paired by round" in footer(fig)


def test_a_lenient_scan_rule_reaches_its_own_figure_only():
    # One point with a short timed loop (0.1 s) in the access scan and one in the compression scan; the study's
    # rule wants 1 s, the access scan's own 0.05 s.
    short = {"loop_seconds_min": 0.1, "loop_io_share_min": 0.95, "valid": False, "window_valid": False}
    rows = [
        point("zlib", 5, 100.0, scans="access", **short) | {"branches": "sparse"},
        point("lz4", 5, 300.0, scans="compression", **short),
    ]
    measurement = {
        "min_window_seconds": 1.0,
        "min_window_io_share": 0.9,
        "window_by_scan": {"access": {"min_window_seconds": 0.05, "min_window_io_share": 0.8}},
    }
    ctx = {"measurement": measurement}
    access = draw(FIGURE["fig22_rate_vs_access_pattern"], *tables(rows), ctx)
    assert "every point valid" in footer(access) and "this scan's own rule" in footer(access)
    assert not [
        line
        for line in access.axes[0].lines
        if mcolors.same_color(line.get_markerfacecolor(), "white") and len(line.get_xdata())
    ]
    compression = draw(FIGURE["fig01_rate_vs_compression"], *tables(rows), ctx)
    assert "1 of 1 points not valid" in footer(compression)
    assert "lasts at least 1 s" in footer(compression)


def test_a_point_without_an_interval_gets_no_bar():
    rows = [point("lz4", 1, 300.0, n=1), point("lz4", 9, 200.0)]
    rows[0] |= {
        "event_rate_hz_std": math.nan,
        "event_rate_hz_ci95_low": math.nan,
        "event_rate_hz_ci95_high": math.nan,
        "n_required": 1,
    }
    fig = draw(FIGURE["fig01_rate_vs_compression"], *tables(rows), {})
    segments = [s for c in fig.axes[0].collections for s in c.get_segments()]
    assert any(np.allclose(s, [[1, 300.0], [1, 300.0]]) for s in segments)
    assert any(np.allclose(s, [[9, 199.0], [9, 201.0]]) for s in segments)


def style_row(style, algorithm, rate, container="ttree", valid=True, offsets="stored", scans="reading_style"):
    """A point of the flat format's reading-style (or offsets) scans, its rate's 95 % interval mean ± 1 Hz."""
    row = point(algorithm, 1, rate, scans=scans, valid=valid, container=container)
    suffix = "_offgen" if offsets == "generated" else ""
    return row | {
        "format": "nanoaod",
        "file_id": row["file_id"] + suffix,
        "read_id": f"{READ_ID}_{style}",
        "branches": "analysis",
        "reading_style": style,
        "threads": 1,
        "offsets": offsets,
    }


def bar_heights(ax) -> dict[tuple[float, float], str]:
    """Each drawn bar's (x centre, height) and whether it is filled or hollow (white)."""
    return {
        (round(p.get_x() + p.get_width() / 2, 6), round(p.get_height(), 6)): (
            "hollow" if mcolors.same_color(p.get_facecolor(), "white") else "filled"
        )
        for p in ax.patches
    }


def test_fig36_draws_a_bar_per_style_and_algorithm_with_its_interval_rntuple_beside():
    rows = [
        style_row("getentry", "lz4", 100.0),
        style_row("bulk", "lz4", 1000.0),
        style_row("getentry", "zlib", 80.0),
        style_row("bulk", "zlib", 120.0, valid=False),
        style_row("getentry", "lz4", 150.0, container="rntuple", scans="bulk_container"),
        style_row("bulk", "lz4", 900.0, container="rntuple", scans="bulk_container"),
        # Not this figure's: a file with generated offsets.
        style_row("bulk", "lz4", 5.0, offsets="generated"),
    ]
    fig = draw(FIGURE["fig36_rate_by_reading_style_and_algorithm"], *tables(rows), {})
    ax = fig.axes[0]
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    assert ticks == ["TTree::GetEntry", "TTree bulk API", "RNTuple views", "RNTuple bulk (RBulkValues)"]
    bars = bar_heights(ax)
    # Two settings per style: lz4-1 left of the centre, zlib-1 right of it (RNTuple has lz4-1 only).
    assert bars[(-0.2, 100.0)] == bars[(0.8, 1000.0)] == bars[(2.8, 900.0)] == "filled"
    assert bars[(1.2, 120.0)] == "hollow"  # not valid
    assert not [b for b in bars if b[1] == 5.0]
    segments = [s for c in ax.collections for s in c.get_segments()]
    assert any(np.allclose(s, [[0.8, 999.0], [0.8, 1001.0]]) for s in segments)
    assert _INTERVAL_BARS in footer(fig) and "1 of 7 points not valid" in footer(fig)  # the table's 7
    assert ax.get_yscale() == "log"


def test_fig37_draws_exact_sizes_and_rates_with_their_intervals_per_offsets_setting():
    rows = [
        style_row("getentry", "lz4", 100.0, scans="offsets"),
        style_row("getentry", "lz4", 95.0, offsets="generated", scans="offsets"),
        style_row("bulk", "lz4", 1000.0, scans="offsets"),
        style_row("bulk", "lz4", 990.0, offsets="generated", scans="offsets"),
    ]
    summary, points, files = tables(rows)
    files = files.assign(size_bytes=[10e6, 9e6])  # the stored file, then the generated one
    fig = draw(FIGURE["fig37_size_and_rate_by_offsets"], summary, points, files, {})
    size_ax, rate_ax = fig.axes[:2]
    assert [t.get_text() for t in size_ax.get_xticklabels()] == ["lz4-1"]
    sizes = sorted((p.get_height(), p.get_hatch() or "") for p in size_ax.patches)
    assert sizes == [(pytest.approx(9.0), "//"), (pytest.approx(10.0), "")]
    assert not [c for c in size_ax.collections if len(c.get_segments())]  # sizes: no bars
    labels = [t.get_text() for t in rate_ax.get_xticklabels()]
    assert labels == ["lz4-1, TTree::GetEntry", "lz4-1, TTree bulk API"]
    rates = bar_heights(rate_ax)
    assert rates[(-0.2, 100.0)] == rates[(0.2, 95.0)] == rates[(0.8, 1000.0)] == "filled"
    segments = [s for c in rate_ax.collections for s in c.get_segments()]
    assert any(np.allclose(s, [[0.2, 94.0], [0.2, 96.0]]) for s in segments)
    text = footer(fig)
    assert _INTERVAL_BARS in text and "file sizes: exact, no bars" in text


def test_the_figures_style_and_hue_colours_are_seaborns_written_out():
    """rootparams.tools.plotting writes out seaborn's whitegrid style in its paper context, its "dark" palette and
    the first five colours of its colour-blind one,
    so that drawing a figure does not import seaborn (and scipy.stats with it): the same as seaborn's own."""
    import matplotlib as mpl
    import seaborn as sns

    from rootparams.tools.plotting import COLORBLIND, dark_colors, theme

    try:
        mpl.rcdefaults()
        sns.set_theme(style="whitegrid", context="paper")
        want = {k: v for k, v in mpl.rcParams.items() if k != "image.cmap"}  # a colormap seaborn registers
        mpl.rcdefaults()
        theme()
        assert {k: v for k, v in mpl.rcParams.items() if k != "image.cmap"} == want
    finally:
        mpl.rcdefaults()
    for n in (1, 3, 10, 12):
        assert dark_colors(n) == sns.color_palette("dark", n).as_hex()
    assert list(COLORBLIND) == sns.color_palette("colorblind", 5).as_hex()
