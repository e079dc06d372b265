"""matplotlib, imported when a figure is drawn, not with the modules that draw it, and the figures' style.

The workflow imports the figures' module (for the figures' names) and the drift module (for its figure's name) at
every Snakemake start, and on a batch cluster every job is a Snakemake start of its own. With matplotlib, seaborn
and scipy.stats (rootparams.stats.intervals.scipy_stats) imported at once, the workflow's imports took 1.9 s on a
2-core VM and a dry run of the tiny test study 3.3 s; imported on first use, 0.7 s and 2.0 s. A figure's own job
imports them as it draws (tests/test_import_layers.py checks that the workflow's imports do not).

The figures' style is seaborn's (``set_theme(style="whitegrid", context="paper")``) and their hue colours its "dark"
palette, written out below (``theme``, ``dark_colors``), like the algorithms' colours (``COLORBLIND``): seaborn imports scipy.stats, 0.85 s of a figure job's
1.6 s of imports on a 2-core VM, for figures that used seaborn for nothing else. tests/test_figures.py checks
that they are seaborn's own at the version the tests pin.
"""

from __future__ import annotations

from types import ModuleType


def pyplot() -> ModuleType:
    """matplotlib.pyplot on the Agg backend: files only, no display on batch nodes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


# seaborn's "paper" context scales its "notebook" sizes by 0.8.
_PAPER = 0.8
# seaborn's colour-blind palette, its first five colours (color_palette("colorblind", 5)): one per algorithm in
# every figure (rootparams.present.figures.ALGORITHM_COLORS).
COLORBLIND = ("#0173b2", "#de8f05", "#029e73", "#d55e00", "#cc78bc")
# seaborn's "deep" palette: the colour cycle of set_theme.
_DEEP = (
    "#4c72b0",
    "#dd8452",
    "#55a868",
    "#c44e52",
    "#8172b3",
    "#937860",
    "#da8bc3",
    "#8c8c8c",
    "#ccb974",
    "#64b5cd",
)
# seaborn's "dark" palette: color_palette("dark", n) cycles through it.
_DARK = (
    "#001c7f",
    "#b1400d",
    "#12711c",
    "#8c0800",
    "#591e71",
    "#592f0d",
    "#a23582",
    "#3c3c3c",
    "#b8850a",
    "#006374",
)
# What seaborn 0.13's set_theme(style="whitegrid", context="paper") changes of matplotlib's defaults, but for
# "image.cmap" ("rocket", a colormap seaborn registers on import): no figure draws an image.
_WHITEGRID_PAPER = {
    "axes.axisbelow": True,
    "axes.edgecolor": ".8",
    "axes.grid": True,
    "axes.labelcolor": ".15",
    "axes.labelsize": 12 * _PAPER,
    "axes.linewidth": 1.25 * _PAPER,
    "axes.titlesize": 12 * _PAPER,
    "font.sans-serif": ["Arial", "DejaVu Sans", "Liberation Sans", "Bitstream Vera Sans", "sans-serif"],
    "font.size": 12 * _PAPER,
    "grid.color": ".8",
    "legend.fontsize": 11 * _PAPER,
    "legend.title_fontsize": 12 * _PAPER,
    "lines.linewidth": 1.5 * _PAPER,
    "lines.markersize": 6 * _PAPER,
    "lines.solid_capstyle": "round",
    "patch.edgecolor": "w",
    "patch.force_edgecolor": True,
    "patch.linewidth": 1 * _PAPER,
    "text.color": ".15",
    "xtick.bottom": False,
    "xtick.color": ".15",
    "xtick.labelsize": 11 * _PAPER,
    "xtick.major.size": 6 * _PAPER,
    "xtick.major.width": 1.25 * _PAPER,
    "xtick.minor.size": 4 * _PAPER,
    "xtick.minor.width": 1 * _PAPER,
    "ytick.color": ".15",
    "ytick.labelsize": 11 * _PAPER,
    "ytick.left": False,
    "ytick.major.size": 6 * _PAPER,
    "ytick.major.width": 1.25 * _PAPER,
    "ytick.minor.size": 4 * _PAPER,
    "ytick.minor.width": 1 * _PAPER,
}


def theme() -> None:
    """The figures' style: seaborn's whitegrid style in its paper context, without importing seaborn."""
    import matplotlib as mpl
    from cycler import cycler

    pyplot()
    mpl.rcParams.update(_WHITEGRID_PAPER)
    mpl.rcParams["axes.prop_cycle"] = cycler("color", [mpl.colors.to_rgb(c) for c in _DEEP])


def dark_colors(n: int) -> list[str]:
    """``n`` colours of seaborn's "dark" palette, as color_palette("dark", n) gives them (cycled past 10)."""
    return [_DARK[i % len(_DARK)] for i in range(n)]
