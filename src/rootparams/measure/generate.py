"""Write one grid point's ROOT file and describe what was really written.

The file is written under a temporary name next to its destination and renamed only once the writer
succeeded and the file was read back, so a crash, a full disk or a kill never leaves a file that looks
finished. The catalogue entry holds the settings read back from the file, not the requested ones. A user's own
file (rootparams.ownfile.sources) is catalogued as it is (catalogue_source), repeated when it is too short to time
(tile_source), or remade at a point's settings (rewrite_point): its baskets recompressed when only the compression
changes (rootparams.tools.recompress: no class dictionary needed, the file's own bytes), else rewritten by ROOT
(rootparams.tools.rewrite: every entry re-streamed).
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import re
import socket
import tempfile
from pathlib import Path
from typing import Any

from rootparams.errors import UserError
from rootparams.study.formats import recipe_text
from rootparams.study.grid import FilePoint
from rootparams.tools.processes import run_tool
from rootparams.tools.recompress import recompress_file
from rootparams.tools.records import write_json_atomic
from rootparams.tools.rewrite import RewriteError, RewriteRequest, file_identity, rewrite_file
from rootparams.vocabulary import (
    OFFSETS_STORED,
    PAPER_FILE_DEFAULTS,
    RNTUPLE,
    TTREE,
    UNIFORM,
    decode,
    hot_compression_setting,
    mantissa_bits,
    parse_branch_compression,
)

# uproot compares this many branches of each recompression with the source (every branch of a tiled source, once):
# a recompression keeps every basket's structure, which the tool checks basket by basket through ROOT; uproot's own
# decompressors check that the new algorithm's bytes decode, which a sample shows (1400 branches take ~8 s).
_RECOMPRESS_UPROOT_BRANCHES = 60

# The content seed of the benchmarks' scratch files (the note's date), so that their figures are reproducible.
BENCHMARK_SEED = 20200326


class BranchCompressionError(UserError, ValueError):
    """A per-branch compression that a format's file cannot take: it would cover every branch, or its regex finds
    none. The message names the value, the format and what would be valid."""


def paper_file_point(fmt: str, **settings: Any) -> FilePoint:
    """The grid point of ``fmt`` at the paper's file settings (the schema's file_defaults), with ``settings``
    (algorithm, level, autoflush, split_level, basket_size) overriding them."""
    valid = [f.name for f in dataclasses.fields(FilePoint) if f.name not in ("format", "origin")]
    if unknown := set(settings) - set(valid):
        raise TypeError(f"unknown file settings {sorted(unknown)}; valid: {valid}")
    d = {**PAPER_FILE_DEFAULTS[fmt], **settings}
    return FilePoint(fmt, **{key: d[key] for key in valid if key in d})


def scratch_file(
    fmt: str,
    events: int,
    tools: Any,
    scratch: str | Path,
    *,
    seed: int = BENCHMARK_SEED,
    **settings: Any,
) -> Path:
    """A file of ``fmt`` for a benchmark: the paper's file settings of the format, with ``settings``
    (algorithm, level, autoflush, split_level, basket_size) overriding them, written into ``scratch`` once
    and reused while it exists (its name holds the point id, the events and the seed). ``tools``: the built
    writer and reader (build.ensure_built)."""
    point = paper_file_point(fmt, **settings)
    out = Path(scratch) / f"{fmt}_{point.id}_{events}ev_seed{seed}.root"
    if not out.exists():
        generate_file(
            point,
            events=events,
            seed=seed,
            writer=tools.writer,
            reader=tools.reader,
            output=str(out),
            catalogue=None,
        )
    return out


def generate_file(
    point: FilePoint,
    *,
    events: int,
    seed: int,
    writer: str,
    reader: str,
    output: str,
    catalogue: str | None,
    content: str | None = None,
    threads: int = 1,
    recipe: str | Path | None = None,
    on_failure: str = "fail",
    say=print,
) -> dict[str, Any]:
    """Write ``output`` at ``point``. With ``content`` (a file written earlier from the same recipe and seed),
    the events are read from it instead of generated again: the settings change, the events do not.
    ``threads`` > 1: ROOT's implicit MT compresses each cluster's baskets in parallel (same content).
    ``recipe``: the path of a recipe text to write instead of the built-in ``recipe_text(point.format)`` (e.g.
    one from ``rootparams.ownfile.calibrate``); ``point.format`` then only labels the catalogue entry.

    ``on_failure`` "record" (write_failures): a writer that fails or crashes at this point (a recipe it cannot write
    in this container, say) leaves an empty placeholder at ``output`` and a catalogue entry that says why
    (``refused``), as a refused rewrite does, so that this point alone is not measured and every other point of the
    study is; "fail" raises the error."""
    try:
        return _generate_file(point, events=events, seed=seed, writer=writer, reader=reader, output=output,
                              catalogue=catalogue, content=content, threads=threads, recipe=recipe)  # fmt: skip
    except UserError as error:
        if on_failure != "record" or catalogue is None:
            raise
        say(f"writing refused, recorded (write_failures: record): {error}")
        open(output, "wb").close()  # the placeholder Snakemake expects; the catalogue says there is no file
        entry = {
            **_requested_settings(point, output),
            "refused": f"the writer failed: {str(error).splitlines()[0]}",
            "refused_message": str(error),
        }
        write_json_atomic(catalogue, entry)
        return entry


def _generate_file(
    point: FilePoint,
    *,
    events: int,
    seed: int,
    writer: str,
    reader: str,
    output: str,
    catalogue: str | None,
    content: str | None,
    threads: int,
    recipe: str | Path | None,
) -> dict[str, Any]:
    out = Path(output)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp_root = out.with_name(f".{out.name}.partial")
    if recipe is not None and not Path(recipe).is_file():
        raise FileNotFoundError(f"recipe {recipe} for {output}: no such file")
    with tempfile.NamedTemporaryFile("w", suffix=".recipe", delete=False) as r:
        r.write(Path(recipe).read_text() if recipe else recipe_text(point.format))
        recipe_path = r.name

    def write(path: Path, n: int, extra: list[str]) -> dict[str, Any]:
        return run_tool(
            [
                writer,
                "--recipe",
                recipe_path,
                "--output",
                str(path),
                "--events",
                str(n),
                "--compression",
                str(point.compression_setting),
                "--autoflush",
                str(point.autoflush),
                *_container_args(point),
                "--seed",
                str(seed),
                "--threads",
                str(threads),
                *(["--content", content] if content else []),
                *extra,
            ],
            f"writing {output}",
        )

    try:
        hot_args, ranked_on = [], None
        if point.branch_compression != UNIFORM:
            hot, ranked_on = hot_branches(point, content, lambda path, n: write(path, n, []), reader, events)
            hot_setting = hot_compression_setting(point.branch_compression)
            hot_args = ["--hot-branches", ",".join(hot), "--hot-compression", str(hot_setting)]
        written = write(tmp_root, events, hot_args)
        written["hot_branches_ranked_on"] = ranked_on
        inspected = run_tool([reader, "--file", str(tmp_root), "--inspect"], f"reading back {output}")
        os.replace(tmp_root, out)
    except BaseException:
        tmp_root.unlink(missing_ok=True)
        raise
    finally:
        os.unlink(recipe_path)
    entry = catalogue_entry(point, written, inspected, output)
    if catalogue:
        write_json_atomic(catalogue, entry)
    return entry


# A pilot write ranks the branches where there is no content file to rank them on (formats generated in place).
_PILOT_EVENTS = 200


def hot_branches(
    point: FilePoint, content: str | None, write_pilot, reader: str, events: int
) -> tuple[list[str], str]:
    """The top-level branches that get the per-branch compression of ``point`` (largest<N> or match:<regex>), and
    what they were ranked on. Ranked by uncompressed bytes (the reader's --inspect tot_bytes, a branch with its
    sub-branches; the compression does not change them) of the format's content file, the same events; without
    one, of a pilot write of the first PILOT_EVENTS events at the point's uniform settings. Ties by name, so
    that the choice is reproducible."""
    pilot = None
    if content:
        source, ranked_on = content, f"content file ({Path(content).name}), uncompressed bytes per branch"
    else:
        fd, name = tempfile.mkstemp(suffix=".pilot.root")
        os.close(fd)
        pilot = Path(name)
        count = min(events, _PILOT_EVENTS)
        write_pilot(pilot, count)
        source, ranked_on = str(pilot), f"pilot write of {count} events, uncompressed bytes per branch"
    try:
        inspected = run_tool([reader, "--file", source, "--inspect"], f"ranking the branches of {source}")
    finally:
        if pilot:
            pilot.unlink(missing_ok=True)
    ranked = [b["name"] for b in sorted(inspected["branch_list"], key=lambda b: (-b["tot_bytes"], b["name"]))]
    chosen = _choose_branches(point, ranked)
    if any("," in b for b in chosen):
        raise ValueError(
            f"branch names with ',' cannot be passed to the writer: {[b for b in chosen if ',' in b]}"
        )
    return chosen, ranked_on


def _choose_branches(point: FilePoint, ranked: list[str]) -> list[str]:
    """The branches among ``ranked`` (top-level names, the largest first) that ``point``'s per-branch compression
    picks. Raises BranchCompressionError where it would pick every branch or none."""
    n, regex, _, _ = parse_branch_compression(point.branch_compression)
    value, fmt, count = point.branch_compression, point.format, len(ranked)
    if n is not None:
        if n >= count:
            valid = f"use largest1 to largest{count - 1}" if count > 1 else "use uniform"
            raise BranchCompressionError(
                f"branch_compression {value!r} would cover every branch of format {fmt}: its file has {count} "
                f"top-level branches, so largest{n} leaves none at the file's setting; {valid}"
            )
        return ranked[:n]
    chosen = [b for b in ranked if re.search(regex, b)]
    if not chosen:
        nearest = _nearest(regex, ranked)
        raise BranchCompressionError(
            f"branch_compression {value!r} finds no branch of format {fmt}: the regex {regex!r} matches none of its "
            f"{count} top-level branch names; "
            + (f"the nearest are {', '.join(nearest)}; " if nearest else "")
            + f"the largest are {', '.join(ranked[:5])}"
        )
    return chosen


def _nearest(regex: str, names: list[str]) -> list[str]:
    """The names most like a regex that finds none (its letters and digits compared with each), if any are."""
    literal = re.sub(r"[^A-Za-z0-9_]", "", regex) or regex
    return difflib.get_close_matches(literal, names, n=5, cutoff=0.3)


def _container_args(point: FilePoint) -> list[str]:
    """The writer's options for the point's container: split level and basket size for a TTree, the page size
    for an RNTuple (which has no split level); the mantissa bits kept where the float precision is not full."""
    bits = mantissa_bits(point.float_precision)
    lossy = ["--float-mantissa", str(bits)] if bits else []
    if point.container == RNTUPLE:
        return ["--container", RNTUPLE, "--page-size", str(point.page_size), *lossy]
    offsets = ["--offsets", point.offsets] if point.offsets != OFFSETS_STORED else []
    return ["--split", str(point.split_level), "--basket", str(point.basket_size), *lossy, *offsets]


# The catalogue entry's key for the writer's per-variable precision records.
FLOAT_PRECISION_LOSS = "float_precision_loss"

# What a catalogue entry says of the writing: the writer's (or the rewriter's) report, absent (None) for a source
# file measured as it is, which this study did not write.
_WRITE_FIELDS = (
    "seed",
    "write_start_time",
    "write_end_time",
    "write_wall_seconds",
    "write_cpu_seconds",
    "content_source",
    "generate_seconds",
    "root_write_seconds",
    "root_write_cpu_seconds",
    "peak_rss_bytes",
    "write_threads",
    "float_values_truncated",
    "float_precision_loss",
    "hot_branches",
    "hot_branches_ranked_on",
)


def _requested_settings(point: FilePoint, output: str) -> dict[str, Any]:
    """The start of every catalogue entry, also of a rewrite ROOT refused: the file and the grid point's settings
    as requested (the same names and meanings as in repetitions.csv and summary.csv, so that joins on them are
    right). split_level -1 and basket_size 0: an RNTuple's (or kept by a rewrite); page_size 0: a TTree's."""
    return {
        "format": point.format,
        "file_id": point.id,
        "origin": point.origin,
        "path": output,
        "container": point.container,
        "algorithm": point.algorithm,
        "level": point.level,
        "autoflush": point.autoflush,
        "split_level": point.split_level,
        "basket_size": point.basket_size,
        "page_size": point.page_size,
        "branch_compression": point.branch_compression,
        "float_precision": point.float_precision,
        "offsets": point.offsets,
    }


_COUNTED_ARRAY_FIELDS = (
    "counter_zip_bytes",
    "counter_tot_bytes",
    "counted_zip_bytes",
    "counted_tot_bytes",
    "counted_branches",
)


def counted_array_bytes(branch_list: list[dict]) -> dict[str, int | None]:
    """The compressed and uncompressed bytes of a flat tree's counters (``nMuon``: one count per entry) and of its
    counted arrays (``Muon_pt[nMuon]``, whose baskets store their entries' offsets unless they are generated on
    read), summed over the top-level branches the reader's --inspect lists with their ``counter``; and how many
    counted arrays there are. None for each where the file has no counted array (class branches, an RNTuple, or
    a reader that does not name counters)."""
    counted = [b for b in branch_list if b.get("counter")]
    if not counted:
        return dict.fromkeys(_COUNTED_ARRAY_FIELDS)
    counters = {b["counter"] for b in counted}
    counter_branches = [b for b in branch_list if b["name"] in counters]
    return {
        "counter_zip_bytes": sum(int(b["zip_bytes"]) for b in counter_branches),
        "counter_tot_bytes": sum(int(b["tot_bytes"]) for b in counter_branches),
        "counted_zip_bytes": sum(int(b["zip_bytes"]) for b in counted),
        "counted_tot_bytes": sum(int(b["tot_bytes"]) for b in counted),
        "counted_branches": len(counted),
    }


def catalogue_entry(point: FilePoint, written: dict | None, inspected: dict, output: str) -> dict[str, Any]:
    """The catalogue entry of ``output``: the point's settings as requested, what the file holds as read back
    (``inspected``, the reader's --inspect), and how it was written (``written``; None for a source as it is)."""
    written = {k: (written or {}).get(k) for k in _WRITE_FIELDS}
    setting = inspected["file_compression_setting"]
    algorithm, level = decode(setting)
    branch_settings = {b["compression_setting"] for b in inspected["branch_list"]}
    uncompressed = inspected["tot_bytes"]
    root_seconds = written["root_write_seconds"]
    return {
        **_requested_settings(point, output),
        # What the file really holds, read back from it (*_in_file; tests check that they match the request).
        "algorithm_in_file": algorithm,
        "level_in_file": level,
        "compression_setting_in_file": setting,
        "branch_compression_settings_in_file": ";".join(str(s) for s in sorted(branch_settings)),
        # TTree::GetAutoFlush after writing: an entry count, also for a byte-based (negative) request. An RNTuple
        # has no AutoFlush (empty here): its clusters' size is events_per_cluster, as for a TTree.
        "autoflush_in_file": inspected["autoflush"] if point.container == TTREE else None,
        "split_level_in_file": max((b["split_level"] for b in inspected["branch_list"]), default=0),
        # Whether the tree carries ROOT's kGenerateOffsetMap (the offsets setting; an RNTuple has none: None).
        "offsets_in_file": inspected.get("offsets"),
        "events": inspected["entries"],
        "clusters": inspected["clusters"],
        "events_per_cluster": inspected["entries"] / max(inspected["clusters"], 1),
        "size_bytes": inspected["file_size_bytes"],
        # The file's modification time when catalogued: with its size, the identity its repetition records are
        # kept under (measure.point_identity), also after the file itself has been removed.
        "file_mtime_ns": os.stat(output).st_mtime_ns,
        "zip_bytes": inspected["zip_bytes"],
        "tot_bytes": uncompressed,
        "particle_zip_bytes": inspected["particle_zip_bytes"],
        "particle_tot_bytes": inspected["particle_tot_bytes"],
        "particle_fraction_zip": inspected["particle_zip_bytes"] / max(inspected["zip_bytes"], 1),
        "compression_ratio": uncompressed / max(inspected["zip_bytes"], 1),
        # A flat tree's counters and counted arrays (the offsets topics of the recommendations compare them between
        # files written with stored and generated offsets).
        **counted_array_bytes(inspected["branch_list"]),
        "bytes_per_event": inspected["file_size_bytes"] / max(inspected["entries"], 1),
        "top_level_branch_count": inspected["top_level_branches"],
        "branch_count": inspected["branches"],
        "leaf_count": inspected["leaves"],
        "seed": written["seed"],
        "write_start_time": written["write_start_time"],
        "write_end_time": written["write_end_time"],
        "write_wall_seconds": written["write_wall_seconds"],
        "write_cpu_seconds": written["write_cpu_seconds"],
        "content_source": written["content_source"],
        "generate_seconds": written["generate_seconds"],
        "root_write_seconds": root_seconds,
        # ROOT's part in CPU time of all threads (fills and close); None for files written before it was recorded.
        "root_write_cpu_seconds": written["root_write_cpu_seconds"],
        "write_mb_per_s_uncompressed": uncompressed / 1e6 / root_seconds if root_seconds else None,
        "write_peak_rss_bytes": written["peak_rss_bytes"],
        "write_threads": written["write_threads"],
        "root_version": inspected["root_version"],
        "host": socket.gethostname(),
        # Reduced float precision (float_precision mantissa<N>): how many float values the writer rounded (0 at
        # full precision; None where this study did not write the file), and per float variable the precision
        # lost (values, max and RMS relative error, max absolute error), a list the files table leaves out and
        # float_precision.csv tabulates (rootparams.results.aggregate.float_precision_table).
        "float_values_truncated": written["float_values_truncated"],
        FLOAT_PRECISION_LOSS: list(written["float_precision_loss"] or []),
        # Per-branch compression (branch_compression other than uniform): the top-level branches given their own
        # setting (with all their sub-branches), that setting, and what they were ranked on.
        "hot_branches": ";".join(written["hot_branches"] or []),
        "hot_compression_setting": hot_compression_setting(point.branch_compression),
        "hot_branches_ranked_on": written["hot_branches_ranked_on"],
    }


def catalogue_source(
    point: FilePoint, *, source: str, tree: str, reader: str, catalogue: str, tiled: dict | None = None
) -> dict:
    """The catalogue entry of a source as it is: what the reader finds in it, and its identity (size, mtime,
    checksum of its first 64 kB), so that a later run can tell whether the user's file changed. ``tiled``: the
    tile record (tile_source) when ``source`` is the file repeated, whose copies and original it names."""
    before = file_identity(source)
    inspected = run_tool(
        [reader, "--file", source, "--tree", tree, "--inspect"], f"reading {source} as it is"
    )
    entry = {
        **catalogue_entry(point, None, inspected, source),
        **_source_fields(before),
        **_tile_fields(tiled),
    }
    write_json_atomic(catalogue, entry)
    return entry


def _tile_fields(tiled: dict | None) -> dict:
    """How a point's source was tiled (every point of a tiled format carries it): copies and the original file."""
    if not tiled:
        return {"tiled_copies": 1, "tiled_from": None}
    return {"tiled_copies": tiled["copies"], "tiled_from": tiled["source"]["path"]}


def tile_source(
    source: str,
    *,
    tree: str,
    copies: int,
    output: str,
    record: str,
    recompressor: str,
    reader: str,
    selections: list[str] | tuple[str, ...] = (),
    say=print,
    log_path: str | None = None,
) -> dict:
    """``source`` repeated ``copies`` times into ``output``, every basket (page) as it is (rootparams.tools.recompress,
    compression kept), checked against the source; ``record`` gets the tool's JSON, the checks and the source's
    identity. A file that cannot be tiled is an error naming the file and why: every point of its format is made
    from the tiled file."""
    result = recompress_file(
        source, tree=tree, output=output, compression=None, copies=copies, recompressor=recompressor,
        reader=reader, selections=selections, log_path=log_path,
    )  # fmt: skip
    w = result["written"]
    say(
        f"{source}: {copies} copies of its {w['source_entries']} entries in {output} "
        f"({w.get('baskets_written', w.get('pages_written'))} baskets or pages, each checked against the source's; "
        f"uproot agrees on {result['uproot']['compared']} branches)"
    )
    entry = {"copies": copies, "source": result["source"], "written": w, "check": result["check"],
             "uproot": result["uproot"]}  # fmt: skip
    write_json_atomic(record, entry)
    return entry


def rewrite_method(point: FilePoint, own: dict[str, Any]) -> str:
    """How a rewrite of a source at ``point`` is made: "recompress" when it changes only the compression (its
    container, AutoFlush and basket sizes are the file's own ``own`` settings: an RNTuple always), the baskets
    recompressed as they are (no class dictionary needed, the file's own bytes); else "root", ROOT's slow clone,
    which re-streams every entry (needs the classes' dictionaries)."""
    if point.container == RNTUPLE:
        return "recompress"
    same_layout = point.container == own["container"] and point.autoflush == int(own["autoflush"])
    return "recompress" if same_layout and point.basket_size == 0 else "root"


def _source_fields(identity: dict) -> dict:
    return {f"source_{k}": v for k, v in identity.items()}


def rewrite_point(
    point: FilePoint,
    *,
    source: str,
    tree: str,
    rewriter: str,
    reader: str,
    output: str,
    catalogue: str,
    on_failure: str,
    say,
    log_path: str | None = None,
    selections: list[str] | tuple[str, ...] = (),
    recompressor: str | None = None,
    source_settings: dict[str, Any] | None = None,
    tiled: dict | None = None,
    original: str | None = None,
) -> dict:
    """Remake ``source`` at ``point``'s settings in a process of its own (output in ``log_path``): its baskets
    recompressed (rootparams.tools.recompress) where only the compression changes (rewrite_method, from the file's own
    ``source_settings``; from the ``original`` file, copied as often as ``tiled`` says, where the source is tiled),
    else rewritten by ROOT (rootparams.tools.rewrite). Then check, untimed, that the new file can
    stand in for the source: its streamer info records,
    entries and top-level branches, and the branches the reader finds for each of ``selections`` (the branch
    selections of the point's reads; rewrite.check_rewrite). If ROOT cannot rewrite it (it crashes on a class
    without a dictionary, say) or the new file fails the check, ``on_failure`` "fail" raises the error, which
    names the file and what is at fault (the branch or class and the signal, or what the new file lacks);
    "record" keeps it in the catalogue entry (``refused``) and leaves an empty placeholder at ``output``, so that
    the point's reads are recorded as refused and every other point of the study goes on (measure_point never
    reads a refused point's file)."""
    identity = file_identity(source)  # also for a refused rewrite, which returns none
    ttree = point.container == TTREE
    method = rewrite_method(point, source_settings) if recompressor and source_settings else "root"
    try:
        if method == "recompress":
            # A tiled source's recompression is made from the file itself (``original``), its copies written from
            # one recompression: the same bytes as recompressing the tiled file, at the cost of one copy.
            copies = int(tiled["copies"]) if tiled and original else 1
            result = recompress_file(
                original if copies > 1 else source, tree=tree, output=output,
                compression=point.compression_setting, copies=copies, recompressor=recompressor, reader=reader,
                selections=selections, log_path=log_path, uproot_branches=_RECOMPRESS_UPROOT_BRANCHES,
            )  # fmt: skip
        else:
            result = rewrite_file(
                RewriteRequest(
                    source,
                    tree=tree,
                    output=output,
                    compression=point.compression_setting,
                    autoflush=point.autoflush if ttree else None,
                    basket_size=point.basket_size if ttree else None,
                    rewriter=rewriter,
                    reader=reader,
                    container=point.container,
                    selections=selections,
                    log_path=log_path,
                )
            )
    except RewriteError as error:
        if on_failure == "fail":
            raise
        say(f"rewrite refused, recorded (rewrite_failures: record): {error}")
        open(output, "wb").close()  # the placeholder Snakemake expects; the catalogue says there is no file
        culprits = error.culprits or []
        entry = {
            **_requested_settings(point, output),
            "refused": str(error).splitlines()[0],
            "refused_signal": error.signal_name,
            "refused_branches": ";".join(f"{c.get('branch')} ({c.get('class')})" for c in culprits),
            "refused_message": str(error),
            "rewrite_method": method,
            **_source_fields(identity),
            **_tile_fields(tiled),
        }
        write_json_atomic(catalogue, entry)
        return entry
    entry = _remade_entry(point, method, result, source, output, identity, tiled)
    write_json_atomic(catalogue, entry)
    return entry


def _remade_entry(
    point: FilePoint,
    method: str,
    result: dict,
    source: str,
    output: str,
    identity: dict,
    tiled: dict | None,
) -> dict:
    """The catalogue entry of a source remade at ``point`` (rewrite_point) by ``method``: its write times, what the
    new file holds (``result``: the rewrite's or recompression's), the source's identity, how it was made and
    checked."""
    w = result["written"]
    # A tiled recompression compresses one copy and writes its bytes N times: what compressing every copy costs (the
    # write cost the decision prices) adds the first copy's compression time for each further copy.
    extra = (int(w.get("copies", 1)) - 1) * float(w.get("zip_cpu_seconds_per_copy") or 0.0)
    written = {
        "seed": None,
        "write_start_time": w["rewrite_start_time"],
        "write_end_time": w["rewrite_end_time"],
        "write_wall_seconds": w["rewrite_wall_seconds"] + extra,
        "write_cpu_seconds": w["rewrite_cpu_seconds"] + extra,
        "content_source": (
            f"baskets of {source} recompressed" if method == "recompress" else f"rewrite of {source}"
        ),
        "generate_seconds": 0.0,
        "root_write_seconds": w["rewrite_wall_seconds"] + extra,
        "root_write_cpu_seconds": w["rewrite_cpu_seconds"] + extra,
        "peak_rss_bytes": w["peak_rss_bytes"],
        "write_threads": 1,
    }
    entry = {
        **catalogue_entry(point, written, result["inspected"], output),
        **_source_fields(identity),
        **_tile_fields(tiled),
        "refused": None,
        # How the file was made (rewrite_method) and, for a recompression, what its checks compared: baskets or
        # pages (the tool's, through ROOT's reading code) and branches whose values uproot compared.
        "rewrite_method": method,
        "recompress_units_compared": w.get("baskets_compared", w.get("pages_compared")),
        "recompress_stored_uncompressed": w.get(
            "baskets_stored_uncompressed", w.get("pages_stored_uncompressed")
        ),
        "uproot_branches_compared": (result.get("uproot") or {}).get("compared"),
        # The write times above for a tiled recompression are the first copy's compression times the copies: the
        # tool itself compressed once (recompress_seconds is what it took).
        "recompress_seconds": w["rewrite_wall_seconds"],
        # What the rewrite carries of the source's streamer info records (TTree; none for an RNTuple rewrite)
        # and the branch selections checked on it before any timed read.
        "streamer_infos_copied": w.get("streamer_infos_copied"),
        "streamer_infos_source": w.get("streamer_infos_source"),
        "streamer_infos_missing": w.get("streamer_infos_missing_count"),
        "rewrite_checked_selections": ";".join(f"{k}: {v}" for k, v in result["check"]["selections"].items()),
    }
    return entry
