"""Tools: the project's paths and records, the C++ tools (``processes`` runs them, ``build`` compiles them),
ROOT's environment, ROOT files read, streamed and rewritten, and the provenance of a run, each on its own,
knowing no study.

The layers: docs/architecture.md."""
