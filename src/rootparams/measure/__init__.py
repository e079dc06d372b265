"""Making and measuring: a point's file written (or a user's file catalogued or rewritten), its timed reads,
the warm reads that measure its CPU primitives, ROOT's decompression per content kind, the storage primitives
(fio's rates under each storage profile; the round trip and bandwidth of each remote profile, measured with
ROOT through its endpoint), the host's CPU rating (7-Zip's one-thread benchmark, the figure other machines
publish), and the spread of a write's CPU time (a few of the study's files written again); and, before the
first job, the programs all of these will run (g++, fio, 7-Zip, the monitor, the remote profiles' servers),
checked at once.

The layers: docs/architecture.md."""
