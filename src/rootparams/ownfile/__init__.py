"""The user's own files: a user's file as a source of the study, the kinds of content a file's bytes are
grouped into, what a file is (``rootparams inspect``), and a recipe that clones its content (``rootparams
calibrate``).

The layers: docs/architecture.md."""
