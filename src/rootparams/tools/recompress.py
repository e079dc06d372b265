"""A user's own file at another compression setting, on its own bytes, without its classes' dictionaries; a short
file made long enough to time by repeating its own clusters. ``recompress_file`` runs ``rootparams-recompress``
(cxx/recompress_baskets.cxx) in a process of its own.

Why not ROOT's own rewrite (rootparams.tools.rewrite, ``hadd -f<N>``): both re-stream every entry, which needs every class's
dictionary; on a real ATLAS DAOD (classes without a dictionary outside Athena) ROOT crashes. ROOT compresses every
basket (every RNTuple page) alone, from a byte buffer, so changing the algorithm or level only needs each basket's
bytes decompressed and compressed again: no object is unstreamed. The recompressor does that, basket by basket in
the source's order on disk, and keeps everything else: entries, entry offsets, basket and cluster boundaries, split
levels, basket sizes, streamer info records. With ``copies`` = N it writes the whole tree N times one after the other
(entries kE..kE+E-1 are copy k): each basket keeps its own bytes (a basket is compressed alone), so only the order in
which baskets are met across copies differs from a longer real file.

What makes a recompressed file stand in for its source (``recompress_file`` refuses it otherwise, before any timed
read, with the reason):

* the tool's own check, through ROOT's reading code (TBasket::ReadBasketBuffers), not its writing code: every basket
  of the new file holds the entries, data bytes and entry offsets of the source's basket it came from; an RNTuple's
  pages the same packed bytes and element counts (a later copy's deferred columns start with zero pages, as ROOT's
  RNTupleMerger writes them);
* ROOT's reader opens it (``rootparams-read --inspect``) and finds the source's entries (times the copies), branches,
  classes and particle containers, and the same branches for every selection the study reads it with
  (rootparams.tools.rewrite.check_rewrite);
* uproot, an independent reader, gives the same values for every branch it can interpret, over the first entries of
  the first and of the last copy (``uproot_agreement``).

The new file is written as ``.<name>.partial`` next to the output and renamed only when it passed.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rootparams.tools.processes import json_result
from rootparams.tools.rewrite import (
    RewriteError,
    _reader_json,
    _run,
    check_rewrite,
    crash_signal,
    file_identity,
    refusal,
    same_file,
)

_RECOMPRESS_TIMEOUT_SECONDS = 3600
# Entries of the first and of the last copy whose values uproot compares with the source's.
_UPROOT_ENTRIES = 200
# A new file beyond this is refused before it is written: a basket's key header grows past 2 GB (the tool checks it).
MAX_OUTPUT_BYTES = 1_900_000_000


class RecompressError(RewriteError):
    """A file could not be recompressed (or tiled), or the result could not stand in for its source; the message says
    why, naming the file. ``log_path`` holds the tool's output."""


def recompress_file(
    source: str | Path,
    *,
    tree: str,
    output: str | Path,
    compression: int | None,
    copies: int = 1,
    recompressor: str,
    reader: str,
    selections: Sequence[str] = (),
    timeout: float = _RECOMPRESS_TIMEOUT_SECONDS,
    log_path: str | Path | None = None,
    uproot_entries: int = _UPROOT_ENTRIES,
    uproot_branches: int | None = None,
) -> dict[str, Any]:
    """``source``'s tree or RNTuple ``tree`` into ``output``, every basket (page) at ``compression`` (ROOT's
    100 * algorithm + level; None keeps each basket's bytes as they are), the whole tree written ``copies`` times.

    Returns {"written": the tool's JSON (its own basket-by-basket check included), "inspected": the reader's
    --inspect of the new file, "source": file_identity(source), "check": check_rewrite's comparison,
    "uproot": uproot_agreement's, over at most ``uproot_branches`` top-level branches spread over the tree (None:
    all)}. Raises RecompressError when the tool fails or crashes, or the new file does
    not pass a check; ROOT's output then goes to ``log_path`` (default ``<output>.recompress.log``)."""
    src, out = Path(source), Path(output)
    log = Path(log_path) if log_path else out.with_name(f"{out.name}.recompress.log")
    setting = "keep" if compression is None else str(int(compression))
    what = (
        f"recompressing {tree} of {src} at "
        + ("its own compression" if compression is None else f"compression setting {compression}")
        + (f", {copies} copies" if copies > 1 else "")
    )
    if not src.is_file():
        raise RecompressError(f"{what}: no such file")
    if copies < 1:
        raise RecompressError(f"{what}: copies must be at least 1, not {copies}")
    if copies * src.stat().st_size > MAX_OUTPUT_BYTES:
        raise RecompressError(
            f"{what}: {copies} copies of a {src.stat().st_size / 1e6:.1f} MB file would exceed "
            f"{MAX_OUTPUT_BYTES / 1e9:.1f} GB; ask for fewer copies"
        )
    before = file_identity(src)
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(f".{out.name}.partial")
    cmd = [recompressor, "--input", str(src), "--tree", tree, "--output", str(partial), "--compression", setting,
           "--copies", str(copies)]  # fmt: skip
    try:
        try:
            proc = _run(cmd, timeout)
        except subprocess.TimeoutExpired:
            raise RecompressError(f"{what}: no result within {timeout:.0f} s", log_path=str(log)) from None
        written = json_result(proc.stdout.splitlines())
        sig = crash_signal(proc.returncode, proc.stderr)
        if sig or proc.returncode not in (0, 3) or written is None:
            _log(log, cmd, proc)
            reason = (
                f"it crashed ({sig})" if sig else (_tool_error(proc.stderr) or f"exit code {proc.returncode}")
            )
            raise RecompressError(
                f"{what} failed: {reason} (its output: {log})", signal_name=sig, log_path=str(log)
            )
        if not written.get("verified", False):
            _log(log, cmd, proc)
            raise RecompressError(
                f"{what}: the new file does not hold the source's bytes ({written.get('mismatch_count')} "
                f"differences, e.g. {'; '.join(written.get('mismatches', [])[:3])}); refused (its output: {log})",
                log_path=str(log),
            )
        inspected, why = _reader_json([reader, "--file", str(partial), "--tree", tree, "--inspect"], timeout)
        if inspected is None:
            raise RecompressError(f"{what}: ROOT's reader cannot open the new file: {why}", log_path=str(log))
        check = check_rewrite(
            src, partial, tree=tree, reader=reader, written=written, inspected=inspected,
            selections=selections, timeout=timeout, copies=copies,
        )  # fmt: skip
        agreement = _uproot_agreement(
            src, partial, tree=tree, copies=copies, entries=uproot_entries, branches=uproot_branches
        )
        problems = list(check["problems"]) + [f"uproot reads {d}" for d in agreement["differing"][:5]]
        if problems:
            _log(
                log,
                ["check", str(src), str(partial)],
                None,
                json.dumps({"check": check, "uproot": agreement}),
            )
            raise RecompressError(
                refusal(what, out, partial, problems, log), culprits=check["culprits"], log_path=str(log)
            )
        os.replace(partial, out)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    after = file_identity(src)
    if not same_file(before, after):
        raise RecompressError(
            f"{what}: the source file changed while it was read (before {before}, after {after})"
        )
    written["file"] = str(out)
    inspected["file"] = str(out)
    return {"written": written, "inspected": inspected, "source": before, "check": check, "uproot": agreement}


def _uproot_agreement(
    source: str | Path,
    copy: str | Path,
    *,
    tree: str,
    copies: int,
    entries: int = _UPROOT_ENTRIES,
    branches: int | None = None,
) -> dict[str, Any]:
    """uproot's values of every top-level branch (field) it can interpret, in ``copy`` against ``source``: entries
    [0, m) of the first copy and of the last one (m = min(entries, the source's)), each against the source's first m.
    Returns {"compared": branches compared, "uninterpretable": branches uproot cannot read in the source (classes
    it cannot model), "differing": ["<branch>: <what>", ...]}."""
    import awkward as ak  # here: uproot and awkward take a second to import
    import uproot

    out: dict[str, Any] = {"compared": 0, "uninterpretable": 0, "differing": []}
    with uproot.open(source) as fs, uproot.open(copy) as fc:
        s, c = fs[tree], fc[tree]
        n = int(s.num_entries)
        if int(c.num_entries) != copies * n:
            out["differing"].append(f"{c.num_entries} entries, expected {copies} x {n}")
            return out
        m = min(entries, n)
        names = s.keys(recursive=False) if hasattr(s, "field_names") else [b.name for b in s.branches]
        if (
            branches is not None and len(names) > branches
        ):  # spread evenly: every kind of branch gets its turn
            names = [names[round(i * (len(names) - 1) / max(branches - 1, 1))] for i in range(branches)]
        for name in names:
            try:
                want = s[name].array(entry_start=0, entry_stop=m, library="ak")
            except Exception:  # a class uproot cannot model: ROOT's own check covers it
                out["uninterpretable"] += 1
                continue
            for start in sorted({0, (copies - 1) * n}):
                try:
                    got = c[name].array(entry_start=start, entry_stop=start + m, library="ak")
                except Exception as error:
                    out["differing"].append(
                        f"{name}: unreadable in the new file ({type(error).__name__}: {error})"
                    )
                    break
                if not _same(want, got, ak):
                    out["differing"].append(f"{name}: other values at entries {start}-{start + m - 1}")
                    break
            else:
                out["compared"] += 1
    return out


def _same(a, b, ak) -> bool:
    # NaN-safe and type-agnostic: the values as JSON text (NaN written as NaN on both sides).
    return json.dumps(ak.to_list(a), default=str) == json.dumps(ak.to_list(b), default=str)


def _tool_error(stderr: str) -> str:
    mine = [
        line.split("error: ", 1)[1]
        for line in stderr.splitlines()
        if line.startswith("rootparams-recompress: error:")
    ]
    return " ".join(mine)


def _log(log: Path, cmd: list[str], proc: subprocess.CompletedProcess | None, extra: str = "") -> None:
    with contextlib.suppress(OSError):
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "a") as f:
            f.write(f"$ {' '.join(cmd)}\n")
            if proc is not None:
                lines = [line for line in proc.stderr.splitlines() if "no dictionary for class" not in line]
                f.write(f"exit code: {proc.returncode}\n--- stdout\n{proc.stdout[-5000:]}\n--- stderr\n")
                f.write("\n".join(lines[-60:]) + "\n")
            if extra:
                f.write(extra + "\n")
            f.write("\n")
