"""ROOT's decompression per basket of a real file at several settings: the file's baskets recompressed at each
(rootparams recompress, its own bytes), then every compressed basket decompressed in memory with ROOT's R__unzip, best
of five passes (benchmarks/cxx/unzip_per_basket.cxx). Prints µs per basket and MB/s per setting.

    python benchmarks/unzip_per_basket.py FILE[:TREE] [--settings 105,505,404,205] [--build results/build]

Why: a setting's decompression speed depends on the basket size as well as on the algorithm. On the ATLAS PHYSLITE
sample (baskets of 4 kB on average) ZSTD-5 decompresses slower than ZLIB-5, on Delphes' (16 kB) faster: ROOT 6.40's
R__unzipZSTD creates and frees a decompression context per call (docs/measurement.md, "advise on the file's own
bytes").
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from rootparams.ownfile.sources import describe
from rootparams.tools import build, rootenv
from rootparams.tools.recompress import recompress_file

HERE = Path(__file__).resolve().parent


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", help="FILE or FILE:TREE")
    p.add_argument("--settings", default="105,505,404,205")
    p.add_argument("--build", default="results/build")
    args = p.parse_args()
    path, _, tree = args.file.partition(":") if not Path(args.file).exists() else (args.file, "", "")
    tree = tree or describe(path).tree
    tools = build.ensure_built(args.build)
    root = rootenv.rootsys()
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(tmp) / "unzip_per_basket"
        subprocess.run(
            ["g++", "-O2", "-std=c++17", f"-I{root}/include", "-Wno-cpp", str(HERE / "cxx" / "unzip_per_basket.cxx"),
             "-o", str(exe), f"-L{root}/lib", "-lCore", "-lRIO", "-lTree", f"-Wl,-rpath,{root}/lib",
             "-Wl,--allow-shlib-undefined"],
            check=True,
        )  # fmt: skip
        for setting in args.settings.split(","):
            out = Path(tmp) / f"{setting}.root"
            recompress_file(path, tree=tree, output=out, compression=int(setting), recompressor=tools.recompressor,
                            reader=tools.reader, uproot_branches=5)  # fmt: skip
            run = subprocess.run([str(exe), str(out), tree], capture_output=True, text=True, check=True)
            print(f"setting {setting}: {run.stdout.strip().split(': ', 1)[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
