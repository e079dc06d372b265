"""Results: records into summaries (repetitions, files, points), and the paper's Table 1.

The layers: docs/architecture.md."""
