"""Snakemake entry point: the paper's Table 1 (compression settings) for one format, as CSV, Markdown, LaTeX."""

from pathlib import Path

import pandas as pd

from rootparams.results.tables import EMPTY, compression_table, to_latex, to_markdown
from rootparams.tools.snakescript import run_logged


def main(smk, say):
    fmt = smk.wildcards.format
    table = compression_table(
        pd.read_csv(smk.input.summary), pd.read_csv(smk.input.files), smk.params.study, fmt
    )
    if table.empty:
        say(f"warning: Table 1 for {fmt}: {EMPTY} (the compression scan at the format's default settings)")
    table.to_csv(smk.output.csv, index=False)
    Path(smk.output.md).write_text(to_markdown(table, fmt))
    Path(smk.output.tex).write_text(to_latex(table, fmt))


run_logged(snakemake, main)
