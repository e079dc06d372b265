"""Load and validate a study configuration.

The JSON schema (``schemas/config.schema.yaml``) carries every default and every per-key rule. This
module applies it, fills the defaults in, adds the checks a schema cannot express (for example "no more
events read than written"), and turns every violation into one message that names the key, the value
and what would be valid. Invalid configurations stop here, before Snakemake schedules any job.
"""

from __future__ import annotations

import copy
import difflib
import math
import re
from collections.abc import Iterator, Mapping
from typing import Any

import jsonschema

from rootparams.errors import UserError
from rootparams.host.storage import PROFILES, resolve_profile
from rootparams.ownfile.inspection import inspect_file
from rootparams.ownfile.sources import SourceError, SourceFile, describe, file_settings, resolve_path
from rootparams.study.formats import (
    EVENTSIZE_PREFIX,
    KNOWN_FORMATS,
    event_size_bytes,
    eventsize_events,
    eventsize_name,
    is_builtin,
    is_flat_format,
)
from rootparams.study.grid import expand_points, format_kind, left_out_of, scan_formats
from rootparams.tools.recompress import MAX_OUTPUT_BYTES
from rootparams.vocabulary import (
    CONTAINER_ONLY,
    FILE_KEYS,
    LATER_FILE_KEY_DEFAULTS,
    OFFSETS_GENERATED,
    PAPER_FILE_DEFAULTS,
    PAPER_READ_DEFAULTS,
    READ_KEYS,
    RNTUPLE,
    TTREE,
    branch_compression_problem,
    schema,
    unrewritable,
    why_not,
)

# The RNTuple cluster cache has no size: only "off" (0) and "on" (-1) are points of their own.
_RNTUPLE_CACHE_SIZES = (0, -1)
_BUILTIN_STORAGE_PROFILES = tuple(PROFILES)  # rootparams.host.storage defines them


class ConfigError(UserError, ValueError):
    """A configuration that cannot be run. The message lists every problem found, one per line."""

    def __init__(self, problems: list[str], source: str = "the configuration"):
        self.problems = problems
        lines = "\n".join(f"  - {p}" for p in problems)
        super().__init__(
            f"Invalid study configuration ({source}); nothing was run.\n{lines}\n"
            "The schema with every key, its default and its valid values is src/rootparams/schemas/config.schema.yaml."
        )


def load_study_config(raw: Mapping[str, Any] | None, source: str = "the configuration") -> dict[str, Any]:
    """Validate ``raw`` and return a new, complete configuration with every default filled in.

    Raises ConfigError naming each offending key, its value and what is valid.
    """
    config = copy.deepcopy(dict(raw or {}))
    problems = [_describe(error) for error in _schema_errors(config)]
    if problems:
        raise ConfigError(problems, source)
    _fill_defaults(config, schema(), schema())
    problems = list(_add_event_size_formats(config))
    _flat_formats_read_all(config)
    # _format_problems reads the source files: their settings are the defaults below.
    problems += list(_format_problems(config))
    if problems:
        raise ConfigError(problems, source)
    for fmt, settings in config["file_defaults"].items():
        if fmt in config["formats"]:
            config["file_defaults"][fmt] = {**format_file_defaults(config, fmt), **settings}
        elif fmt in PAPER_FILE_DEFAULTS:  # a built-in format this study leaves out
            config["file_defaults"][fmt] = {**PAPER_FILE_DEFAULTS[fmt], **settings}
        else:
            problems.append(
                f"file_defaults.{fmt}: not a format of this study; its formats are "
                f"{', '.join(sorted(config['formats']))}"
            )
    for fmt in config["formats"]:
        config["file_defaults"].setdefault(fmt, format_file_defaults(config, fmt))
    for settings in config["file_defaults"].values():  # every format alike, unless a study says otherwise
        for key, default in LATER_FILE_KEY_DEFAULTS.items():
            settings.setdefault(key, default)
    config["read_defaults"] = {**PAPER_READ_DEFAULTS, **config["read_defaults"]}
    problems += list(_semantic_problems(config))
    if problems:
        raise ConfigError(problems, source)
    return config


_EVENT_SIZE_SCAN = "event_size"
# The event-size formats' settings (a flat tree: the split level means nothing): the paper's ZLIB-5, 10 MB clusters.
_EVENTSIZE_FILE_DEFAULTS = {
    "container": TTREE,
    "algorithm": "zlib",
    "level": 5,
    "autoflush": -10_000_000,
    "split_level": 99,
    "basket_size": 32000,
    "page_size": 1048576,
}


def _add_event_size_formats(config: dict[str, Any]) -> Iterator[str]:
    """The event-size study's formats (one eventsize_<N> per size, the same uncompressed volume each), added to
    the study's formats and kept to scans.event_size."""
    study = config.get("event_size")
    if not study:
        return
    if _EVENT_SIZE_SCAN not in config["scans"]:
        yield (
            f"event_size is given but scans.{_EVENT_SIZE_SCAN} is not: add it to say what is varied over the "
            "event sizes, e.g. scans: {event_size: {reading_style: [getentry, rdataframe, uproot]}}"
        )
    for size in study["event_bytes"]:
        name = eventsize_name(size)
        events = eventsize_events(size, study["volume_bytes"])
        if name in config["formats"]:
            yield (f"formats.{name}: also made by event_size.event_bytes ({size}); remove one of the two")
            continue
        config["formats"][name] = {
            "written": events,
            "read": events,
            "branches": "all",
            "scans": [_EVENT_SIZE_SCAN],
        }
    if (
        _EVENT_SIZE_SCAN in config["scans"]
    ):  # the scan is of the event sizes only (unless it names formats itself)
        names = [eventsize_name(size) for size in study["event_bytes"]]
        config["scans"][_EVENT_SIZE_SCAN].setdefault("formats", names)


def _flat_formats_read_all(config: dict[str, Any]) -> None:
    """A built-in flat format (nanoaod, eventsize_<N>) has no ATLAS particle containers: where the study's
    default selection is the paper's 'particle', it reads all its branches instead (its points say so)."""
    default = {**PAPER_READ_DEFAULTS, **config["read_defaults"]}["branches"]
    for fmt, entry in config["formats"].items():
        if is_flat_format(fmt) and not ({"source", "calibrate"} & set(entry)) and default == "particle":
            entry.setdefault("branches", "all")


def source_of(config: Mapping[str, Any], fmt: str) -> SourceFile:
    """The file a source or clone format is made from."""
    entry = config["formats"][fmt]
    return describe(entry.get("source") or entry["calibrate"], entry.get("tree"))


def format_file_defaults(config: Mapping[str, Any], fmt: str) -> dict[str, Any]:
    """A format's file settings where neither a scan nor file_defaults gives them: the paper's for a built-in
    format, the file's own for a source; for a clone, the file's container, compression and AutoFlush (of an
    RNTuple: ROOT's TTree default, see clone_autoflush), a TTree
    split (split level 99, basket size 32000, as ATLAS and CMS write their trees), an RNTuple with ROOT's page
    size (1 MiB)."""
    kind = format_kind(config, fmt)
    if kind == "recipe":
        return dict(PAPER_FILE_DEFAULTS.get(fmt, _EVENTSIZE_FILE_DEFAULTS))
    own = file_settings(source_of(config, fmt))
    if kind == "source":
        return own
    return {
        **own,
        "autoflush": clone_autoflush(own),
        "split_level": 99,
        "basket_size": 32000,
        "page_size": 1048576,
    }


# An RNTuple has no AutoFlush (its file settings say 0). A clone of one is written as TTrees too (the container
# scan), and a TTree at AutoFlush 0 has no clusters at all: the TTreeCache then spans the whole file, which no one
# writes. The clone takes ROOT's own TTree default, about 30 MB of compressed data per cluster, for both
# containers, so that TTree and RNTuple are compared at the same cluster size.
_RNTUPLE_CLONE_AUTOFLUSH = -30_000_000


def tile_copies(source: SourceFile, target_bytes: float, target_uncompressed_bytes: float) -> int:
    """How many copies of ``source``'s event data (tile: auto) make about ``target_bytes`` compressed and
    ``target_uncompressed_bytes`` uncompressed, whichever needs more; at least 1, and at most what keeps the tiled
    file under rootparams.tools.recompress's size limit. Baskets kept inside the TTree object (small files written
    without a final flush) count with the tree's key."""
    ins = inspect_file(source.path, source.tree)
    zipped = ins.compressed + (ins.tree_key_bytes if ins.in_tree_object else 0)
    unzipped = ins.uncompressed + ins.in_tree_object
    wanted = max(
        math.ceil(target_bytes / max(zipped, 1)), math.ceil(target_uncompressed_bytes / max(unzipped, 1))
    )
    limit = max(1, MAX_OUTPUT_BYTES // max(ins.file_size, 1))
    return int(min(max(wanted, 1), limit, 100_000))


def clone_autoflush(own: Mapping[str, Any]) -> int:
    """The AutoFlush of a calibrated clone of a file with the settings ``own`` (file_settings)."""
    if own["container"] == "rntuple" and int(own["autoflush"]) == 0:
        return _RNTUPLE_CLONE_AUTOFLUSH
    return int(own["autoflush"])


def _format_problems(config: dict[str, Any]) -> Iterator[str]:
    """Each format is either built in or made from a file that exists and holds enough events."""
    for fmt, entry in config["formats"].items():
        made_from = [k for k in ("source", "calibrate") if k in entry]
        where = f"formats.{fmt}"
        if fmt.startswith(EVENTSIZE_PREFIX) and not made_from:
            try:
                event_size_bytes(fmt)
            except ValueError as error:
                yield f"{where}: {error}"
                continue
        if is_builtin(fmt):
            if made_from or "tree" in entry:
                yield (
                    f"{where}: {fmt!r} is a built-in synthetic format and is not made from a file; give a format "
                    f"of your own another name (e.g. my{fmt}) for {made_from[0] if made_from else 'tree'}"
                )
            if "written" not in entry:
                yield f"{where}: give written (events per file) as well as read"
            elif entry["read"] == "all":
                entry["read"] = entry["written"]
            if entry.get("tile", 1) != 1:
                yield f"{where}.tile = {entry['tile']!r}: only a format made from a file as it is (source) is tiled"
            continue
        if len(made_from) != 1:
            close = _closest(fmt, list(KNOWN_FORMATS))
            yield (
                f"{where}: {fmt!r} is not a built-in format ({', '.join(map(repr, KNOWN_FORMATS))}"
                + (f"; did you mean {close!r}?" if close else "")
                + "), and a format of your own names one file, "
                "with either source (measured as it is and rewritten by ROOT) or calibrate (a synthetic clone of "
                "its profile)" + (f"; {fmt!r} gives both" if made_from else "")
            )
            continue
        if made_from == ["source"] and "written" in entry:
            yield (
                f"{where}.written = {entry['written']}: a source is read as it is, it has the events it has; "
                "remove written (read says how many are read)"
            )
        if made_from == ["calibrate"] and "written" not in entry:
            yield f"{where}: give written (events per file of the clone) as well as read"
        try:  # a public sample (skhep_testdata:<name>) becomes its local file here, before any job
            entry[made_from[0]] = resolve_path(entry[made_from[0]])
            found = source_of(config, fmt)
        except SourceError as error:
            yield f"{where}.{made_from[0]}: {error}"
            continue
        if made_from == ["source"]:
            copies = (
                tile_copies(found, config["tile_target_bytes"], config["tile_target_uncompressed_bytes"])
                if entry.get("tile", 1) == "auto"
                else int(entry.get("tile", 1))
            )
            entry["tile"] = copies
            entry["written"] = found.entries * copies  # the files of a source hold its entries (every copy's)
            if entry["read"] != "all" and entry["read"] > entry["written"]:
                held = f"{found.entries} entries in {found.tree}" + (
                    f", {copies} copies" if copies > 1 else ""
                )
                yield f"{where}.read = {entry['read']}: {found.path} has {held}; read at most {entry['written']}"
        elif entry.get("tile", 1) != 1:
            yield (
                f"{where}.tile = {entry['tile']!r}: only a format made from a file as it is (source) is tiled; a "
                "calibrate format writes as many events as its written says"
            )
        if entry["read"] == "all":
            entry["read"] = entry["written"]


def _schema_errors(config: dict[str, Any]) -> list[jsonschema.ValidationError]:
    validator = jsonschema.Draft202012Validator(schema())
    # Report the most specific error of each failing branch, in a stable order.
    errors = []
    for error in validator.iter_errors(config):
        errors.append(_most_specific(error))
    return sorted(errors, key=lambda e: [str(p) for p in e.absolute_path])


def _most_specific(error: jsonschema.ValidationError) -> jsonschema.ValidationError:
    # For oneOf/anyOf failures, the sub-error that went deepest says most about what is wrong.
    if error.context:
        deepest = max(error.context, key=lambda e: len(e.absolute_path))
        if len(deepest.absolute_path) > len(error.absolute_path):
            return _most_specific(deepest)
    return error


def key_path(path: Iterator[Any] | list[Any]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


# Keys that changed their name, by their old path: a config written for an earlier version is told the new name.
_RENAMED_KEYS = {"measurement.reader": "reader_process"}


def _describe(error: jsonschema.ValidationError) -> str:
    """One line: which key, which value, what would be valid."""
    where = key_path(list(error.absolute_path))
    value = error.instance
    rule = error.validator
    s = error.schema if isinstance(error.schema, dict) else {}
    if "propertyNames" in error.schema_path:
        return f"{where}: unknown key {value!r}; {_valid_text(s)}"
    if rule in ("oneOf", "anyOf"):
        options = " or ".join(_option_text(_resolve(o, schema())) for o in s[rule])
        return f"{where} = {value!r}: must be {options}"
    if rule == "additionalProperties":
        allowed = sorted(s.get("properties", {}))
        extra = sorted(set(value) - set(allowed)) if isinstance(value, dict) else []
        hints = []
        for key in extra:
            if (renamed := _RENAMED_KEYS.get(f"{where}.{key}")) is not None:
                hints.append(f"{key!r} is now called {renamed!r}")
                continue
            close = _closest(key, allowed)
            hints.append(f"unknown key {key!r}" + (f" (did you mean {close!r}?)" if close else ""))
        return f"{where}: {'; '.join(hints)}; valid keys here are {', '.join(allowed)}"
    if rule == "propertyNames":
        return f"{where}: key {error.instance!r} is not allowed: {_valid_text(s)}"
    if rule == "enum":
        return f"{where} = {value!r}: must be one of {', '.join(repr(v) for v in s['enum'])}"
    if rule == "const":
        return f"{where} = {value!r}: must be {s['const']!r}"
    if rule == "type":
        return f"{where} = {value!r}: must be of type {_type_text(s['type'])}, not {_json_type(value)}"
    if rule in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        return f"{where} = {value!r}: {_range_text(s)}"
    if rule == "pattern":
        return f"{where} = {value!r}: {s.get('description', '').strip() or 'must match ' + s['pattern']}"
    if rule in ("minItems", "minProperties", "minLength"):
        return f"{where} = {value!r}: must not be empty"
    if rule == "uniqueItems":
        return f"{where} = {value!r}: values must not repeat"
    if rule == "required":
        return f"{where}: {error.message}"
    return f"{where} = {value!r}: {error.message}"


def _valid_text(s: dict[str, Any]) -> str:
    if "enum" in s:
        return "must be one of " + ", ".join(repr(v) for v in s["enum"])
    if "$ref" in s:
        ref = s["$ref"].rsplit("/", 1)[-1]
        return _valid_text(schema()["$defs"][ref])
    if "pattern" in s:
        return f"must match {s['pattern']}"
    return "see the schema"


def _option_text(s: dict[str, Any]) -> str:
    if "const" in s:
        return repr(s["const"])
    if "enum" in s:
        return "one of " + ", ".join(repr(v) for v in s["enum"])
    text = f"an {s['type']}" if s.get("type") == "integer" else f"a {_type_text(s.get('type', 'value'))}"
    if "minimum" in s or "maximum" in s:
        text += f" that {_range_text(s).replace('must be ', 'is ')}"
    return text


def _type_text(t: str | list[str]) -> str:
    return " or ".join(t) if isinstance(t, list) else t


def _json_type(value: Any) -> str:
    return {
        bool: "boolean",
        int: "integer",
        float: "number",
        str: "string",
        list: "array",
        dict: "object",
    }.get(type(value), type(value).__name__)


def _range_text(s: dict[str, Any]) -> str:
    lo = s.get("minimum")
    hi = s.get("maximum")
    if lo is not None and hi is not None:
        return f"must be from {lo} to {hi}"
    if lo is not None:
        return f"must be at least {lo}"
    if "exclusiveMinimum" in s:
        return f"must be greater than {s['exclusiveMinimum']}"
    return f"must be at most {hi}"


def _closest(word: str, choices: list[str]) -> str | None:
    match = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return match[0] if match else None


def _resolve(node: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = root["$defs"][node["$ref"].rsplit("/", 1)[-1]]
    return node


def _fill_defaults(instance: Any, node: dict[str, Any], root: dict[str, Any]) -> None:
    """Insert schema defaults for absent keys, recursively (the schema is the one place for defaults)."""
    node = _resolve(node, root)
    if not isinstance(instance, dict):
        return
    for key, sub in node.get("properties", {}).items():
        sub_resolved = _resolve(sub, root)
        if key not in instance and "default" in sub:
            instance[key] = copy.deepcopy(sub["default"])
        elif key not in instance and "default" in sub_resolved:
            instance[key] = copy.deepcopy(sub_resolved["default"])
        if key in instance:
            _fill_defaults(instance[key], sub, root)


def scan_containers(config: dict[str, Any], scan: Mapping[str, Any], name: str | None = None) -> set[str]:
    """The containers a scan's points are stored in: its own list, or its formats' defaults."""
    if "container" in scan:
        return set(scan["container"])
    formats = [f for f in scan_formats(config, scan, name) if f in config["file_defaults"]]
    return {config["file_defaults"][f]["container"] for f in formats}


def left_out_notes(config: Mapping[str, Any]) -> list[str]:
    """One line per scan that leaves a source format out (it names no formats, and varies a setting the source
    cannot be rewritten at), to be said when the study starts."""
    notes = []
    for name, scan in config["scans"].items():
        for fmt in config["formats"]:
            if left_out_of(config, fmt, scan):
                container = config["file_defaults"][fmt]["container"]
                keys = unrewritable(container, list(scan))
                notes.append(f"scan {name} leaves source format {fmt} out: {why_not(container, keys[0])}")
    return notes


def _container_problems(config: dict[str, Any], name: str, scan: Mapping[str, Any]) -> Iterator[str]:
    containers = scan_containers(config, scan, name)
    for container, fixed in CONTAINER_ONLY.items():
        others = sorted(containers - {container})
        for key in fixed:
            if key in scan and others:
                counterpart = {
                    "split_level": "RNTuple has no split level (every field is stored column-wise)",
                    "basket_size": "its counterpart is page_size",
                    "branch_compression": "ROOT 6.40's RNTuple has one compression per file, "
                    "RNTupleWriteOptions::SetCompression",
                    "learn_entries": "the RNTuple cluster cache does not learn",
                    "async_prefetch": "the RNTuple cluster cache always reads ahead in a thread",
                    "unzip": "RNTuple decompresses pages in its own tasks under implicit MT",
                    "page_size": "its TTree counterpart is basket_size",
                    "cluster_bunch": "the TTreeCache's counterpart is cache_size",
                }[key]
                yield (
                    f"scans.{name}.{key} is a {container} setting, but the scan's points are also stored as "
                    f"{', '.join(others)} ({counterpart}); give the scan container: [{container}], or make a "
                    f"separate scan for {', '.join(others)} without {key}"
                )
    if RNTUPLE in containers and "cache_size" in scan:
        bad = [v for v in scan["cache_size"] if v not in _RNTUPLE_CACHE_SIZES]
        if bad:
            yield (
                f"scans.{name}.cache_size = {scan['cache_size']!r} for rntuple points: the RNTuple cluster cache has "
                f"no size, only 0 (off) and -1 (on) are valid ({bad!r} are not); give the scan container: [ttree], "
                "or make a separate rntuple scan with cache_size: [0, -1]"
            )


def _branch_compression_problems(name: str, scan: Mapping[str, Any]) -> Iterator[str]:
    """A per-branch compression that parses but cannot work: a regex that does not compile (the schema checks the
    shape only)."""
    for value in scan.get("branch_compression", []):
        if (problem := branch_compression_problem(value)) is not None:
            yield f"scans.{name}.{problem}"


def _source_scan_problems(config: dict[str, Any], name: str, scan: Mapping[str, Any]) -> Iterator[str]:
    """A scan that names a source format may vary only what a rewrite can change. (A scan that names no formats
    covers a source only with the settings it can take: grid.expand_points leaves the source out of it.)"""
    for fmt in scan.get("formats", []):
        if fmt not in config["formats"] or format_kind(config, fmt) != "source":
            continue
        container = config["file_defaults"][fmt]["container"]
        for key in unrewritable(container, list(scan)):
            yield (
                f"scans.{name}.{key}: format {fmt!r} is a source file, and {why_not(container, key)}; "
                f"remove {fmt} from the scan's formats, or scan a calibrated clone of the file "
                f"(formats: {{{fmt}_clone: {{calibrate: <the file>, written: N, read: N}}}})"
            )


def _selection_problems(config: dict[str, Any]) -> Iterator[str]:
    """'particle' needs ATLAS particle containers: a file without them is an error here, before any work, that
    names the selections that work."""
    for fmt, entry in config["formats"].items():
        kind = format_kind(config, fmt)
        if kind == "recipe" and not is_flat_format(fmt):
            continue
        found = source_of(config, fmt) if kind != "recipe" else None
        if found is not None and found.atlas_containers:
            continue
        default = entry.get("branches", config["read_defaults"]["branches"])
        uses = (
            [f"formats.{fmt}.branches" if "branches" in entry else "read_defaults.branches"]
            if default == "particle"
            else []
        )
        uses += [
            f"scans.{n}.branches"
            for n, scan in config["scans"].items()
            if "particle" in scan.get("branches", []) and fmt in scan_formats(config, scan, n)
        ]
        if uses:
            what = f"{found.path} ({found.tree})" if found is not None else "the flat built-in format"
            yield (
                f"{', '.join(uses)} = 'particle' for format {fmt!r}: {what} has no ATLAS "
                "particle containers (DataVector<xAOD::...> interface objects); selections that work on it are "
                "'all', 'regex:<pattern on top-level names>' (e.g. 'regex:^(Muon|Electron|Jet)_') and "
                f"'list:<name>,<name>'; give the format branches: all"
            )


_COLUMNAR_STYLES = ("rdataframe", "uproot", "bulk")
# Why a reading style cannot read a file written with generated offsets (offsets: generated), as found on ROOT
# 6.40.00 and uproot 5.7.7 (tests/test_bulk.py): TTree::GetEntry and the bulk style read the same content from it as
# from the file with stored offsets.
_GENERATED_OFFSETS_UNREADABLE = {
    "rdataframe": "ROOT 6.40.00's RDataFrame (its TTreeReader) returns wrong values from counted arrays whose "
    "offsets are generated",
    "uproot": "uproot fails on some of its counted arrays (DeserializationError), and rebuilds the others' "
    "offsets only where the counter's baskets start where the array's do",
}


def _access(profile: str, custom: dict[str, dict]) -> str | None:
    """How a storage profile reads ("local", "xrootd", "endpoint"), None for an unknown one (reported apart)."""
    try:
        return resolve_profile(profile, custom).access
    except (KeyError, ValueError):
        return None


def _reading_problems(config: dict[str, Any]) -> Iterator[str]:
    """Read points that cannot be measured as asked, found on the expanded grid (a scan may cross a reading
    style or parallel unzip with settings they do not go with), each said once with the scans it comes from."""
    try:
        points = expand_points(config)
    except ValueError:  # a malformed point is the schema's or another check's to report
        return
    custom = config["measurement"]["storage_profiles"]
    seen: dict[str, set[str]] = {}
    for point in points:
        read, container = point.read, point.file.container
        why = []
        if read.reading_style in _COLUMNAR_STYLES and read.branches == "particle":
            why.append(
                f"reading_style {read.reading_style} reads columns, and 'particle' selects whole container "
                "objects; use branches analysis, sparse or vars:<Collection>.<attribute>,..."
            )
        if read.reading_style in ("rdataframe", "uproot") and container != TTREE:
            why.append(
                f"reading_style {read.reading_style} reads TTrees only here; give the scan container: [ttree]"
            )
        if read.reading_style == "uproot" and _access(read.storage_profile, custom) not in ("local", None):
            why.append(
                f"reading_style uproot reads local files only (storage profile {read.storage_profile!r} "
                "reads over root://, which needs XRootD's Python bindings); use a local profile"
            )
        if read.unzip and read.cache_size == 0:
            why.append("unzip needs the TTreeCache (TTreeCacheUnzip is one): cache_size 0 switches it off")
        # ROOT's TTree bulk API reads plain branches of one fundamental leaf: a built-in format of std::vector and
        # class branches (the xAOD-like ones) has none it can read (a user's file is checked by the reader, which
        # names the branches; an RNTuple's std::vector fields have a bulk read).
        fmt = point.file.format
        recipe = format_kind(config, fmt) == "recipe"
        flat_recipe = recipe and is_flat_format(fmt)
        if read.reading_style == "bulk" and container == TTREE and recipe and not flat_recipe:
            why.append(
                "reading_style bulk reads a TTree's flat branches (one leaf of a fundamental type, scalar or "
                "counted array: nanoaod, eventsize_<N>); this format's branches are std::vector and class "
                "branches (TBranchElement), which ROOT's bulk API does not read; give the scan formats: "
                "[nanoaod], or container: [rntuple] (RNTuple's bulk read takes std::vector fields)"
            )
        if point.file.offsets == OFFSETS_GENERATED and not flat_recipe:
            why.append(
                f"offsets {OFFSETS_GENERATED} is for the built-in flat formats (nanoaod, eventsize_<N>): ROOT 6.40.00 "
                "crashes reading back a split xAOD-like file written with it (unbounded recursion in "
                "TLeaf::GenerateOffsetArrayBase), and a calibrated clone is not known to be flat; give the scan "
                "formats: [nanoaod]"
            )
        if point.file.offsets == OFFSETS_GENERATED and read.reading_style in _GENERATED_OFFSETS_UNREADABLE:
            why.append(
                f"offsets {OFFSETS_GENERATED} with reading_style {read.reading_style}: "
                f"{_GENERATED_OFFSETS_UNREADABLE[read.reading_style]}; read such files with reading_style getentry "
                "or bulk"
            )
        for text in why:
            seen.setdefault(f"format {point.file.format}: {text}", set()).update(
                s for s in point.scans if s in config["scans"]
            )
    for text, scans in seen.items():
        yield f"{text} (scans: {', '.join(sorted(scans))})"


def _semantic_problems(config: dict[str, Any]) -> Iterator[str]:
    if config["repetitions"] < 2 and config["require_sigma"]:
        yield (
            f"repetitions = {config['repetitions']}: at least 2 are needed for the 1-sigma spread of every result; "
            "use 2 or more (the paper used 10), or set require_sigma: false for a single-shot smoke run"
        )
    measurement = config["measurement"]
    if measurement["min_repetitions"] is not None and measurement["min_repetitions"] > config["repetitions"]:
        yield (
            f"measurement.min_repetitions = {measurement['min_repetitions']}: more than the {config['repetitions']} "
            f"repetitions the study takes; use at most {config['repetitions']}, or null (80 % of repetitions)"
        )
    if measurement["adaptive"]:
        needs = []
        if not measurement["primitives"]:
            needs.append("measurement.primitives: true (the storage primitives it predicts from)")
        if measurement["warm_reads"] < 1:
            needs.append("measurement.warm_reads of at least 1 (the CPU primitives it predicts from)")
        if measurement["cache_state"] != "cold":
            needs.append("measurement.cache_state: cold (the model predicts cold reads)")
        if needs:
            yield "measurement.adaptive = true needs " + "; and ".join(needs)
    sentinel = measurement["sentinel"]["format"]
    if sentinel is not None and sentinel not in config["formats"]:
        yield (
            f"measurement.sentinel.format = {sentinel!r}: not a format of this study; use one of "
            f"{', '.join(config['formats'])}, or null (the first)"
        )
    formats = config["formats"]
    for fmt, events in formats.items():
        if format_kind(config, fmt) != "source" and events["read"] > events["written"]:
            yield (
                f"formats.{fmt}.read = {events['read']}: cannot read more events than are written "
                f"(formats.{fmt}.written = {events['written']}); use at most {events['written']}"
            )
    for name, scan in config["scans"].items():
        for fmt in scan.get("formats", []):
            if fmt not in formats:
                yield (
                    f"scans.{name}.formats contains {fmt!r}, which is not a format of this study; "
                    f"the study's formats are {', '.join(sorted(formats))} (add it under 'formats')"
                )
        if not any(k in scan for k in (*FILE_KEYS, *READ_KEYS)):
            yield (f"scans.{name} varies nothing: give at least one of {', '.join((*FILE_KEYS, *READ_KEYS))}")
        yield from _container_problems(config, name, scan)
        yield from _branch_compression_problems(name, scan)
        yield from _source_scan_problems(config, name, scan)
    for fmt, entry in formats.items():
        for scan_name in entry.get("scans", []):
            if scan_name not in config["scans"]:
                close = _closest(scan_name, list(config["scans"]))
                yield (
                    f"formats.{fmt}.scans contains {scan_name!r}, which is not a scan of this study; its scans are "
                    f"{', '.join(sorted(config['scans'])) or '(none)'}"
                    + (f"; did you mean {close!r}?" if close else "")
                )
    for name in config["measurement"]["window_by_scan"]:
        if name not in config["scans"]:
            yield (
                f"measurement.window_by_scan.{name}: not a scan of this study; its scans are "
                f"{', '.join(sorted(config['scans'])) or '(none)'}"
            )
    yield from _selection_problems(config)
    yield from _reading_problems(config)
    known_profiles = (*_BUILTIN_STORAGE_PROFILES, *config["measurement"]["storage_profiles"])
    for where, profile in used_storage_profiles(config):
        if profile not in known_profiles:
            yield (
                f"{where} = {profile!r}: not a storage profile; valid are {', '.join(map(repr, known_profiles))} "
                "(define others under measurement.storage_profiles)"
            )
    cost_profile = config["cost"].get("storage_profile")
    used = sorted({profile for _, profile in used_storage_profiles(config)})
    if cost_profile is not None and cost_profile not in used:
        yield (
            f"cost.storage_profile = {cost_profile!r}: no point of this study reads on it, so the cost model would "
            f"have no rate; the study's profiles are {', '.join(map(repr, used))} (or null for read_defaults.storage_profile)"
        )
    data_dir = config["data_dir"]
    if any(part == ".." for part in re.split(r"[/\\]", data_dir)):
        yield f"data_dir = {data_dir!r}: must not contain '..'; give an absolute path or one below the workflow directory"
    if data_dir.rstrip("/") in ("results", ".", "") or data_dir.startswith("results/"):
        yield f"data_dir = {data_dir!r}: must be separate from results/ (it holds the ROOT files under test)"


def used_storage_profiles(config: dict[str, Any]) -> list[tuple[str, str]]:
    """Every storage profile the study asks for, with the key that asks for it."""
    used = [("read_defaults.storage_profile", config["read_defaults"]["storage_profile"])]
    for name, scan in config["scans"].items():
        used += [(f"scans.{name}.storage_profile", p) for p in scan.get("storage_profile", [])]
    return used


def without_throttling(config: dict[str, Any], reason: str) -> dict[str, Any]:
    """The study with every storage profile replaced by native, for a machine that cannot throttle
    (``reason``). Points that differed only by profile then coincide and are measured once. Raises
    ConfigError if measurement.unthrottled_fallback is "fail" and a throttled profile is asked for."""
    custom = config["measurement"]["storage_profiles"]
    # Remote profiles read through a server on the unthrottled disk: they need no blkio and stay.
    throttled = {p for _, p in used_storage_profiles(config) if resolve_profile(p, custom).throttled}
    if not throttled:
        return config
    if config["measurement"]["unthrottled_fallback"] == "fail":
        raise ConfigError(
            [
                f"storage profiles {', '.join(sorted(throttled))} cannot be applied on this machine: "
                f"{reason}; run as root with cgroup v1 blkio, use storage_profile: native, or set "
                "measurement.unthrottled_fallback: native"
            ]
        )
    out = copy.deepcopy(config)
    if out["read_defaults"]["storage_profile"] in throttled:
        out["read_defaults"]["storage_profile"] = "native"
    for scan in out["scans"].values():
        if "storage_profile" in scan:
            scan["storage_profile"] = list(
                dict.fromkeys("native" if p in throttled else p for p in scan["storage_profile"])
            )
    if out["cost"].get("storage_profile") in throttled:
        out["cost"]["storage_profile"] = "native"
    out["measurement"]["storage_note"] = f"throttled profiles fell back to native: {reason}"
    return out
