"""Where ROOT is, and which ROOT it is, without importing it (``import ROOT`` costs ~0.8 s and ~420 MB)."""

from __future__ import annotations

import importlib.util
import re
import sys
from functools import cache
from pathlib import Path

from rootparams.errors import UserError


class RootNotFound(UserError):
    """The ROOT wheel is not installed in this environment."""


@cache
def rootsys() -> Path:
    spec = importlib.util.find_spec("ROOT")
    if spec is None or spec.origin is None:
        raise RootNotFound(
            "ROOT is not installed in this Python environment "
            f"({sys.executable}); install the pinned wheel with `pip install root==0.1a12` "
            "or run the README's setup command"
        )
    return Path(spec.origin).parent


@cache
def root_version() -> str:
    text = (rootsys() / "include" / "ROOT" / "RVersion.hxx").read_text()
    parts = [re.search(rf"#define ROOT_VERSION_{p}\s+(\d+)", text) for p in ("MAJOR", "MINOR", "PATCH")]
    if not all(parts):
        return "unknown"
    major, minor, patch = (int(m.group(1)) for m in parts)
    return f"{major}.{minor:02d}.{patch:02d}"


def bin_path(tool: str) -> Path:
    """A tool shipped in the ROOT wheel (rootreadspeed, hadd, rootls)."""
    return rootsys() / "bin" / tool
