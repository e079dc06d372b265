"""How settings are named and ordered for people: the one place that figures, tables, the report and the
recommendations take their labels from (no plotting library needed to write a label). The settings themselves
and the algorithms' order are rootparams.vocabulary's; the storage profiles are rootparams.host.storage's."""

from __future__ import annotations

from collections.abc import Iterable

from rootparams.host.storage import PROFILES
from rootparams.vocabulary import RNTUPLE, TTREE

_FORMAT_ORDER = ["xaod", "xaod_long", "topq1", "susy5", "susy5_skim", "truth3", "nanoaod"]
_FORMAT_TITLES = {
    "xaod": "primary xAOD",
    # The cache scans past the TTreeCache's learning phase (config/config.yaml reads 1000 of its events).
    "xaod_long": "xAOD-like, 1000 events (cache scans)",
    "topq1": "TOPQ1",
    "susy5": "SUSY5",
    "susy5_skim": "SUSY5, skimmed",
    "truth3": "TRUTH3",
    "nanoaod": "NanoAOD-like (flat)",
}


def format_order(values) -> list[str]:
    """The formats among ``values``: the built-in ones in the paper's order, then formats made from files
    (sources, clones) by name."""
    present = set(values)
    return [f for f in _FORMAT_ORDER if f in present] + sorted(present - set(_FORMAT_ORDER))


def format_title(fmt: str) -> str:
    return _FORMAT_TITLES.get(fmt, fmt)


ALGORITHM_LABELS = {
    "lz4": "LZ4",
    "zlib": "ZLIB",
    "lzma": "LZMA",
    "zstd": "ZSTD (beyond the paper)",
    "none": "uncompressed",
}
# The built-in storage profiles, fast to slow (storage.PROFILES lists them so; the xrootd ones by their added
# round-trip time).
STORAGE_ORDER = list(PROFILES)


def profile_list(values: Iterable) -> str:
    """The storage profiles among ``values`` (e.g. a table's storage_profile column), each once, by name: how
    every table, figure and summary names the storage it was read on."""
    return ", ".join(sorted({str(v) for v in values}))


def autoflush_label(value: int) -> str:
    if value == 0:
        return "0 (off)"
    if value < 0:
        return f"{-value / 1e6:g} MB"
    return f"{value} ev"


def autoflush_order(values) -> list[int]:
    """Event counts ascending, then byte sizes ascending, then 0 (disabled: one cluster)."""
    values = sorted(set(int(v) for v in values))
    return (
        [v for v in values if v > 0]
        + sorted((v for v in values if v < 0), reverse=True)
        + [v for v in values if v == 0]
    )


def cache_label(value: int) -> str:
    if value == 0:
        return "off"
    if value == -1:
        return "-1 (AutoFlush)"
    return f"{value / 1e6:g} MB"


def cache_order(values) -> list[int]:
    values = sorted(set(int(v) for v in values))
    return [v for v in values if v == 0] + [v for v in values if v > 0] + [v for v in values if v == -1]


# Branch selections, from the most to the least read (the access patterns of the 2019 ATLAS CHEP study).
_SELECTION_ORDER = ["all", "particle", "analysis", "sparse"]
_SELECTION_LABELS = {
    "all": "all branches",
    "particle": "particle containers",
    "analysis": "analysis: pt, eta, phi, m of 8 collections",
    "sparse": "sparse: 6 variables",
}


def selection_order(values) -> list[str]:
    present = set(values)
    return [s for s in _SELECTION_ORDER if s in present] + sorted(present - set(_SELECTION_ORDER))


def selection_label(value: str) -> str:
    return _SELECTION_LABELS.get(value, value)


CONTAINER_LABELS = {TTREE: "TTree", RNTUPLE: "RNTuple"}
_READING_STYLE_LABELS = {
    "getentry": "TTree::GetEntry",
    "rdataframe": "RDataFrame",
    "uproot": "uproot",
    "bulk": "TTree bulk API",
}


def reading_style_label(style: str, threads: int = 1) -> str:
    """ "RDataFrame, 2 threads": the style, and implicit MT where it is on (uproot has none)."""
    name = _READING_STYLE_LABELS.get(style, style)
    return name if int(threads) == 1 else f"{name}, {int(threads)} threads"


# The reading styles of an RNTuple: its views (the GetEntry style's counterpart) and its bulk read.
_RNTUPLE_STYLE_LABELS = {"getentry": "RNTuple views", "bulk": "RNTuple bulk (RBulkValues)"}


def container_style_label(style: str, container: str, threads: int = 1) -> str:
    """A reading style in its container's terms: an RNTuple's views and bulk read (Fig. 36, the run summary),
    a TTree's styles as reading_style_label."""
    if container == RNTUPLE:
        return _RNTUPLE_STYLE_LABELS.get(style, f"RNTuple {style}")
    return reading_style_label(style, threads)


def interval_scope(passes) -> str:
    """What a rate's 95 % interval covers, said beside every table and figure of rates: the host over the
    study's passes (measurement.passes > 1: intervals.HostVariance), or this run's minutes only."""
    try:
        most = max((int(p) for p in passes if p == p), default=1)
    except (TypeError, ValueError):
        most = 1
    if most > 1:
        return f"with the host's drift between the study's {most} passes"
    return "this run only: a repeat on the same host may fall outside it"
