"""The study's words, each defined once: every other module takes them from here.

What a study can set (the setting keys of a file and of a read, the container each belongs to, which of them a
rewrite of a user's file can change), their defaults (read from the configuration schema, their one home), the
containers and the ROOT classes that hold them, the compression algorithms and ROOT's compression setting
(100 x algorithm + level), the grammars of float_precision and branch_compression, and the repetitions a point
needs. It imports nothing of this package but its errors, so that every module can import it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from typing import Any

from rootparams.errors import UserError

# Containers -------------------------------------------------------------------------------------------------

TTREE = "ttree"
RNTUPLE = "rntuple"
CONTAINERS = (TTREE, RNTUPLE)
# The ROOT class of each container, as a file's keys name it (uproot's classnames, TKey::GetClassName).
# The C++ reader's has_ntuple makes the same test (tests/test_vocabulary.py: both agree on real files).
CONTAINER_CLASSES = {"TTree": TTREE, "ROOT::RNTuple": RNTUPLE}


def container_of_class(class_name: str) -> str | None:
    """The container a top-level key of ROOT class ``class_name`` holds; None for any other class."""
    return CONTAINER_CLASSES.get(class_name)


# The grammars' fixed words ----------------------------------------------------------------------------------

UNIFORM = "uniform"  # branch_compression: every branch at the file's algorithm and level
FULL_PRECISION = "full"  # float_precision: every float as it is
UNCOMPRESSED = "none"  # the algorithm of an uncompressed file
# offsets: a counted array's baskets keep their entries' offsets (ROOT's default), or leave them to be generated on
# read from the counter (ROOT's I/O feature kGenerateOffsetMap)
OFFSETS_STORED, OFFSETS_GENERATED = "stored", "generated"

# Setting keys -----------------------------------------------------------------------------------------------

FILE_KEYS = (
    "container",
    "algorithm",
    "level",
    "autoflush",
    "split_level",
    "basket_size",
    "page_size",
    "branch_compression",
    "float_precision",
    "offsets",
)
READ_KEYS = (
    "cache_size",
    "learn_entries",
    "cluster_bunch",
    "async_prefetch",
    "threads",
    "reading_style",
    "unzip",
    "branches",
    "storage_profile",
)
# Settings that mean something for one container only (docs/formats.md, "RNTuple"), each with the value a
# point of the other container keeps: a scan that varies one over points of the other container is an error,
# and no two points differ only in a setting that changes nothing.
CONTAINER_ONLY = {
    TTREE: {
        "split_level": -1,
        "basket_size": 0,
        "branch_compression": UNIFORM,
        "offsets": OFFSETS_STORED,
        "learn_entries": "default",
        "async_prefetch": False,
        "unzip": False,
    },
    RNTUPLE: {"page_size": 0, "cluster_bunch": 1},
}


def fixed_settings(container: str, keys: Iterable[str]) -> dict[str, Any]:
    """The settings among ``keys`` that a point stored as ``container`` lacks, at their fixed values."""
    keys = set(keys)
    return {
        key: value
        for owner, fixed in CONTAINER_ONLY.items()
        if owner != container
        for key, value in fixed.items()
        if key in keys
    }


# The file settings a rewrite of a user's file can change, per container (rootparams.tools.rewrite). Split level
# cannot change through a copy: ROOT's clone keeps each branch's split level (the branches are made from the
# source's). An RNTuple is rewritten by ROOT's RNTupleMerger, which changes the compression and keeps the
# clusters and pages.
REWRITABLE = {TTREE: ("algorithm", "level", "autoflush", "basket_size"), RNTUPLE: ("algorithm", "level")}
WHY_NOT_REWRITABLE = {
    "split_level": "split level cannot change through a copy (ROOT's clone keeps each branch's split level)",
    "container": "a source keeps its container (a TTree is not converted into an RNTuple or back)",
    "page_size": "page_size is an RNTuple setting of our writer, which does not rewrite a source",
    "float_precision": "float_precision is applied by our writer as it writes, which does not rewrite a source",
    "branch_compression": "branch_compression is applied by our writer as it writes (ROOT's copy keeps one setting)",
    "offsets": "offsets is a setting of our writer (TTree::SetIOFeatures before the branches are made), which does "
    "not rewrite a source",
}


def unrewritable(container: str, varied: Iterable[str]) -> list[str]:
    """The file settings among ``varied`` that a source stored as ``container`` cannot be rewritten at."""
    return [k for k in varied if k in FILE_KEYS and k not in REWRITABLE[container]]


def why_not(container: str, key: str) -> str:
    """Why a source stored as ``container`` cannot be rewritten at another ``key``."""
    if container == RNTUPLE and key in REWRITABLE[TTREE]:
        return (
            f"{key} cannot change in an RNTuple source (ROOT's RNTupleMerger rewrites its compression only, "
            "keeping its clusters and pages)"
        )
    return WHY_NOT_REWRITABLE[key]


# Compression ------------------------------------------------------------------------------------------------

# ROOT's compression algorithms (ROOT::RCompressionSetting::EAlgorithm) by a study's names for them, in the
# order people see them: the paper's three, then beyond it.
ALGORITHM_CODES = {"lz4": 4, "zlib": 1, "lzma": 2, "zstd": 5, UNCOMPRESSED: 0}
ALGORITHMS = tuple(ALGORITHM_CODES)
COMPRESSING_ALGORITHMS = tuple(a for a in ALGORITHMS if a != UNCOMPRESSED)
_ALGORITHM_NAMES = {code: name for name, code in ALGORITHM_CODES.items()}


class CompressionSettingError(UserError, ValueError):
    """A compression algorithm, or a compression setting read from a file, that this study does not know."""


def _known_algorithms() -> str:
    return ", ".join(f"{name} ({code})" for code, name in sorted(_ALGORITHM_NAMES.items()))


def encode(algorithm: str, level: int) -> int:
    """ROOT's compression setting of ``algorithm`` at ``level``: 100 x algorithm + level."""
    if algorithm not in ALGORITHM_CODES:
        raise CompressionSettingError(
            f"compression algorithm {algorithm!r} is not one this study knows; known algorithms are "
            f"{_known_algorithms()}"
        )
    return 100 * ALGORITHM_CODES[algorithm] + level


def decode(setting: int) -> tuple[str, int]:
    """(algorithm, level) of ROOT's compression setting ``setting``; level 0 where it is uncompressed (an
    uncompressed file has no level)."""
    code, level = divmod(int(setting), 100)
    if code not in _ALGORITHM_NAMES:
        raise CompressionSettingError(
            f"compression setting {setting} (algorithm {code}) is not one this study knows; known algorithms "
            f"are {_known_algorithms()}"
        )
    name = _ALGORITHM_NAMES[code]
    if code == 0 and level > 0:
        # Algorithm 0 with a level is ROOT's "global default" (kUseGlobal), as ROOT 5 wrote every compressed file
        # (setting 1-9): its baskets are ZLIB's, the only algorithm ROOT had before 5.30.
        return "zlib", level
    return (name, 0) if name == UNCOMPRESSED else (name, level)


# Grammars ---------------------------------------------------------------------------------------------------
# Each grammar is a Python regex with named groups; the schema holds the same regex as its pattern
# (schema_pattern; tests/test_vocabulary.py checks that it does).

_MANTISSA = r"mantissa(?P<bits>[1-9]|1[0-9]|2[0-2])"  # explicit mantissa bits kept, of a float's 23
_PER_BRANCH = (
    r"(?:largest(?P<n>[1-9][0-9]*)|match:(?P<regex>.+))"
    rf":(?P<alg>{'|'.join(COMPRESSING_ALGORITHMS)})-(?P<level>[1-9])"
)
_MANTISSA_RE = re.compile(_MANTISSA)
_PER_BRANCH_RE = re.compile(_PER_BRANCH)


def schema_pattern(grammar: str) -> str:
    """``grammar`` as a JSON schema pattern for a whole value: its named groups made plain."""
    return "^(" + re.sub(r"\(\?P<\w+>", "(?:", grammar) + ")$"


FLOAT_PRECISION_PATTERN = schema_pattern(f"{FULL_PRECISION}|{_MANTISSA}")
BRANCH_COMPRESSION_PATTERN = schema_pattern(f"{UNIFORM}|{_PER_BRANCH}")


def mantissa_bits(float_precision: str) -> int | None:
    """The explicit mantissa bits kept by a float precision "mantissa<N>" (1..22); None for "full" (all 23 of a
    float) and for anything else."""
    m = _MANTISSA_RE.fullmatch(float_precision)
    return int(m["bits"]) if m else None


def float_precision_problem(value: str) -> str | None:
    """What is wrong with a float_precision value, or None."""
    if value == FULL_PRECISION or mantissa_bits(value) is not None:
        return None
    return f"float_precision {value!r}: must be '{FULL_PRECISION}' or 'mantissa<N>' with N from 1 to 22"


def branch_compression_problem(value: str) -> str | None:
    """What is wrong with a branch_compression value, or None."""
    if value == UNIFORM:
        return None
    m = _PER_BRANCH_RE.fullmatch(str(value))
    if not m:
        return (
            f"branch_compression {value!r}: must be '{UNIFORM}', 'largest<N>:<algorithm>-<level>' (e.g. "
            "'largest4:lz4-1') or 'match:<regex>:<algorithm>-<level>' (e.g. 'match:^Electrons:lz4-1'), "
            f"algorithm one of {', '.join(COMPRESSING_ALGORITHMS)}, level 1-9"
        )
    if m["regex"] is not None:
        try:
            re.compile(m["regex"])
        except re.error as e:
            return f"branch_compression {value!r}: the regex {m['regex']!r} does not compile ({e})"
    return None


def parse_branch_compression(value: str) -> tuple[int | None, str | None, str, int] | None:
    """A per-branch compression as (N largest or None, regex or None, algorithm, level); None for "uniform"."""
    if (problem := branch_compression_problem(value)) is not None:
        raise ValueError(problem)
    if value == UNIFORM:
        return None
    m = _PER_BRANCH_RE.fullmatch(value)
    return (int(m["n"]) if m["n"] else None, m["regex"], m["alg"], int(m["level"]))


def hot_compression_setting(value: str) -> int | None:
    """ROOT's compression setting of the branches a per-branch compression picks; None for uniform."""
    parsed = parse_branch_compression(value)
    return None if parsed is None else encode(parsed[2], parsed[3])


# Defaults, from the schema ----------------------------------------------------------------------------------


@cache
def schema() -> dict[str, Any]:
    """The configuration schema (schemas/config.schema.yaml): every key, its rules and its default."""
    # Imported here, as the schema is read on first use only (see __getattr__).
    from importlib import resources

    import yaml

    return yaml.safe_load(resources.files("rootparams").joinpath("schemas/config.schema.yaml").read_text())


def _paper_file_defaults() -> dict[str, dict[str, Any]]:
    """The paper's file settings per built-in format (file_defaults), then those every format shares."""
    per_format = schema()["properties"]["file_defaults"]["default"]
    shared = _later_file_key_defaults()
    return {
        fmt: {**settings, **{k: v for k, v in shared.items() if k not in settings}}
        for fmt, settings in per_format.items()
    }


def _later_file_key_defaults() -> dict[str, Any]:
    return {
        key: schema()["$defs"][key]["default"] for key in ("branch_compression", "float_precision", "offsets")
    }


def _window_rule_defaults() -> dict[str, float]:
    measurement = schema()["properties"]["measurement"]["properties"]
    return {key: measurement[key]["default"] for key in ("min_window_io_share", "min_window_seconds")}


def required_repetitions(measurement: Mapping[str, Any] | None, repetitions: int | None = None) -> int:
    """The unflagged repetitions a point needs to be valid: measurement.min_repetitions, or where it is null (its
    default), 80 % of the study's repetitions, rounded up. The measuring job decides its make-up rounds by it,
    rootparams.results.aggregate a point's validity."""
    measurement = measurement or {}
    if measurement.get("min_repetitions") is not None:
        return int(measurement["min_repetitions"])
    return max(1, math.ceil(0.8 * (repetitions or measurement.get("repetitions", 1) or 1)))


# The names read from the schema, each made on first use (module __getattr__): the uproot reader imports this
# module inside its timed process, where reading the schema would count as its start-up.
_FROM_SCHEMA: dict[str, Callable[[], Any]] = {
    # The paper's defaults per built-in format and for reading (file_defaults, read_defaults).
    "PAPER_FILE_DEFAULTS": _paper_file_defaults,
    "PAPER_READ_DEFAULTS": lambda: schema()["properties"]["read_defaults"]["default"],
    # File settings added after the paper's, whose default is one for every format: a point or a record that
    # does not give one has it (a record written before the setting existed was made at it).
    "LATER_FILE_KEY_DEFAULTS": _later_file_key_defaults,
    # The study's window rule where a configuration gives none (measurement.min_window_*).
    "WINDOW_RULE_DEFAULTS": _window_rule_defaults,
}


def __getattr__(name: str) -> Any:
    if name not in _FROM_SCHEMA:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = globals()[name] = _FROM_SCHEMA[name]()
    return value
