"""Commands: ``advise``, the answer for one file, runs the workflow on a configuration made for it;
``recompress_command``, ``rootparams recompress``, a file at another compression without its dictionaries.

The layers: docs/architecture.md."""
