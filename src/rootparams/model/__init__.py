"""The model: the model of the timed loop (docs/model.md), and what limits a read.

The layers: docs/architecture.md."""
