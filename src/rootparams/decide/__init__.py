"""The decision: the cost model and the Pareto fronts, the instrument's checks, and the plan that measures
only where the model cannot decide. ``blockplan`` says what each block's measuring job measures.

The layers: docs/architecture.md."""
