"""The study: what a study is: its formats, what its scans vary and which figures they feed, its points, how
its timed reads are cut into measuring jobs (blocks and passes), the loaded and validated configuration, its
disk footprint, and how its settings are named and ordered for people. ``studyfiles`` names the files a
study's points read and are made from.

The layers: docs/architecture.md."""
