"""matplotlib and seaborn, imported when a figure is drawn, not with the modules that draw it.

The workflow imports the figures' module (for the figures' names) and the drift module (for its figure's name) at
every Snakemake start, and on a batch cluster every job is a Snakemake start of its own. With matplotlib, seaborn
and scipy.stats (rootparams.stats.intervals.scipy_stats) imported at once, the workflow's imports took 1.9 s on a
2-core VM and a dry run of the tiny test study 3.3 s; imported on first use, 0.7 s and 2.0 s. A figure's own job
imports them as it draws (tests/test_import_layers.py checks that the workflow's imports do not).
"""

from __future__ import annotations

from types import ModuleType


def pyplot() -> ModuleType:
    """matplotlib.pyplot on the Agg backend: files only, no display on batch nodes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def seaborn() -> ModuleType:
    import seaborn as sns

    return sns
