"""What a scan varies, and which of the study's figures, tables and findings it feeds.

The figures and findings are made for the scans of the note and of the studies beyond it (``KNOWN``), by name. A
scan of another name feeds them too when it varies what one of them varies (``kind_of``): a scan called
``compresion`` or ``levels`` that varies the algorithm and the level gives Table 1, Figures 1-2 and the compression
finding like ``compression`` does. A scan that matches none is measured and tabulated (summary.csv, points.csv)
and is in no figure; the study says so when it starts (``notes``), with the name it may have meant.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

# Scans with figures, tables or findings of their own, by name (figures.FIGURES, recommend's topics, decision).
_KNOWN = (
    "compression",
    "autoflush",
    "split",
    "cache",
    "cache_learn",
    "threads",
    "storage_compression",
    "storage_cache",
    "container",
    "container_storage",
    "rntuple_cluster",
    "rntuple_page",
    "rntuple_cache",
    "remote_cache",
    "remote_prefetch",
    "remote_rntuple",
    "access",
    "reading_style",
    "bulk_container",
    "offsets",
    "event_size",
    "unzip",
    "skim",
    "branch_compression",
    "branch_compression_uniform",
    "float_precision",
)

# The known scans a scan of another name can stand for, by what they vary: one or more (must all vary, may vary
# besides). A setting given one value only moves the scan's points and varies nothing. Scans whose settings
# overlap another's (rntuple_cluster is an autoflush of RNTuples, the storage and remote scans vary a profile as
# well as another setting) are matched by name only.
_Signature = tuple[frozenset[str], frozenset[str]]
_SIGNATURES: dict[str, tuple[_Signature, ...]] = {
    # A compression scan may also vary the algorithm alone (one level for every algorithm).
    "compression": (
        (frozenset({"level"}), frozenset({"algorithm"})),
        (frozenset({"algorithm"}), frozenset({"level"})),
    ),
    "autoflush": ((frozenset({"autoflush"}), frozenset({"algorithm", "level"})),),
    "split": ((frozenset({"split_level"}), frozenset()),),
    "cache": ((frozenset({"cache_size"}), frozenset()),),
    "cache_learn": ((frozenset({"learn_entries"}), frozenset({"cache_size"})),),
    "threads": ((frozenset({"threads"}), frozenset({"algorithm", "level"})),),
    "container": ((frozenset({"container"}), frozenset({"algorithm", "level"})),),
    "access": ((frozenset({"branches"}), frozenset({"split_level"})),),
    "reading_style": ((frozenset({"reading_style"}), frozenset({"algorithm", "level", "threads"})),),
    "unzip": ((frozenset({"unzip"}), frozenset({"threads"})),),
}

# Keys of a scan that say where it applies, not what it varies.
_NOT_SETTINGS = ("formats",)


def varied(scan: Mapping[str, Any]) -> set[str]:
    """The settings a scan varies: those given two values or more."""
    return {
        k
        for k, v in scan.items()
        if k not in _NOT_SETTINGS and isinstance(v, list) and len(set(map(str, v))) > 1
    }


def _matches(keys: set[str], signatures: tuple[_Signature, ...]) -> bool:
    return any(must <= keys and keys <= must | may for must, may in signatures)


def kind_of(name: str, scan: Mapping[str, Any]) -> str | None:
    """The known scan ``name``'s figures and findings come from: the name itself where it is known, else the one
    known scan whose signature what it varies matches, else None."""
    if name in _KNOWN:
        return name
    keys = varied(scan)
    kinds = [kind for kind, signatures in _SIGNATURES.items() if _matches(keys, signatures)]
    return kinds[0] if len(kinds) == 1 else None


def kinds(name: str, scan: Mapping[str, Any]) -> tuple[str, ...]:
    """The names a scan's points are known by in the tables (points.csv ``scans``): its own, and the known scan it
    stands for where that is another."""
    kind = kind_of(name, scan)
    return (name,) if kind in (None, name) else (name, kind)


def study_scans(scans: Mapping[str, Mapping[str, Any]]) -> set[str]:
    """Every name the study's scans are known by: their own and the known scans they stand for."""
    return {k for name, scan in scans.items() for k in kinds(name, scan)}


def notes(scans: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """One line per scan of an unknown name: which known scan it is drawn as, or that it is in no figure, with
    the known name closest to its own."""
    out = []
    for name, scan in scans.items():
        if name in _KNOWN:
            continue
        keys = sorted(varied(scan))
        close = difflib.get_close_matches(name, _KNOWN, n=1, cutoff=0.75)
        meant = f"; did you mean '{close[0]}'?" if close else ""
        kind = kind_of(name, scan)
        what = ", ".join(keys) or "nothing"
        if kind is not None:
            out.append(f"scans.{name} varies {what}: drawn and judged as the '{kind}' scan{meant}")
        else:
            out.append(
                f"scans.{name} varies {what}, which no figure or finding is made for: it is measured and "
                f"tabulated (summary.csv), in no figure{meant} (the figures' scans: {_signature_text()})"
            )
    return out


def _signature_text() -> str:
    return "; ".join(
        f"{kind}: {' and '.join(sorted(signatures[0][0]))}" for kind, signatures in _SIGNATURES.items()
    )
