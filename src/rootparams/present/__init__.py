"""Presentation: the figures, the recommendations, the run summary, the comparison of hosts, and what a user
types to apply advise's decision (hadd, ROOT calls, the framework's output keys; docs/applying.md).
``outputs`` lists a study's final outputs and the patterns of their names.

The layers: docs/architecture.md."""
