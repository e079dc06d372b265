"""Statistics: intervals of means and of ratios, verdicts in three states and a bootstrap over rounds
(``intervals``), points compared paired by round (``compare``), and the host's drift over a study (``drift``).

The layers: docs/architecture.md."""
