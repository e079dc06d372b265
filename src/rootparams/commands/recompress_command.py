"""``rootparams recompress IN OUT --setting N``: a file's event data at another compression, without its classes'
dictionaries (rootparams.tools.recompress does the work and the checks; this is the command around it)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rootparams.ownfile.sources import SourceError, describe
from rootparams.tools import build
from rootparams.tools.recompress import RewriteError, recompress_file
from rootparams.vocabulary import CompressionSettingError, decode

# The checkout the package was installed from; its build is used where there is one.
CHECKOUT = Path(__file__).resolve().parents[3]
# Where the command builds its tools when the checkout has none: per user, reused by later calls.
_USER_BUILD = Path.home() / ".cache" / "rootparams" / "build"


def build_parser(prog: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=prog,
        description="Recompress a ROOT file's TTree (its baskets) or RNTuple (its pages) at another compression "
        "setting without reading any object, so that no class dictionary is needed (a real ATLAS DAOD, a CMS EDM "
        "file, anyone's classes): every basket is decompressed and compressed again, clusters, entries and streamer "
        "info records kept; then checked basket by basket through ROOT's reading code and branch by branch with "
        "uproot. Only the tree (RNTuple) is written: other objects of the file (metadata trees, histograms) are not.",
    )
    p.add_argument("input", help="the ROOT file to recompress (it is only read)")
    p.add_argument(
        "output", help="the new file (overwritten); written beside it first and renamed once checked"
    )
    p.add_argument("--setting", required=True, help="ROOT's compression setting: 100*algorithm+level, e.g. 505 "
                   "(ZSTD-5), 404 (LZ4-4), 101 (ZLIB-1), 207 (LZMA-7), 0 (uncompressed); or 'keep'")  # fmt: skip
    p.add_argument(
        "--tree", help="the TTree or RNTuple (default: the file's event data, found as advise finds it)"
    )
    p.add_argument(
        "--copies", type=int, default=1, help="write the tree this many times, one after the other"
    )
    return p


def main(argv: list[str] | None = None, prog: str = "rootparams recompress") -> int:
    args = build_parser(prog).parse_args(argv)
    try:
        setting = None if args.setting == "keep" else _setting(args.setting)
        if setting is not None:
            decode(setting)  # the same validation as the study's: a clear error naming the valid values
        tree = args.tree or _event_data(args.input)
        checkout = CHECKOUT / "results" / "build"
        tools = build.ensure_built(checkout if (checkout / "build.json").exists() else _USER_BUILD)
        result = recompress_file(
            args.input, tree=tree, output=args.output, compression=setting, copies=args.copies,
            recompressor=tools.recompressor, reader=tools.reader,
        )  # fmt: skip
    except (RewriteError, SourceError, CompressionSettingError, ValueError) as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        return 2
    w = result["written"]
    units = "baskets" if w["container"] == "ttree" else "pages"
    compared = w.get("baskets_compared", w.get("pages_compared"))
    print(
        f"{args.output}: {w['container'].replace('ttree', 'TTree').replace('rntuple', 'RNTuple')} {tree}, "
        f"{w['entries']} entries, setting {w['compression_setting']}, {Path(args.output).stat().st_size / 1e6:.2f} MB "
        f"(the source: {Path(args.input).stat().st_size / 1e6:.2f} MB); {compared} {units} checked against the "
        f"source's through ROOT, {result['uproot']['compared']} branches through uproot "
        f"({result['uproot']['uninterpretable']} it cannot interpret)"
    )
    return 0


def _setting(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(
            f"--setting {text!r} is not a compression setting; give 100*algorithm+level (1 ZLIB, 2 LZMA, 4 LZ4, "
            "5 ZSTD), e.g. 505, or 0 for uncompressed, or keep"
        ) from None


def _event_data(path: str) -> str:
    return describe(path).tree
