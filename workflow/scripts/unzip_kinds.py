"""Snakemake entry point: ROOT's decompression per content kind (rootparams.measure.unzipkinds), one format after the other,
into results/primitives/unzip_kinds.csv."""

import time

import pandas as pd

from rootparams.measure import unzipkinds
from rootparams.tools.records import write_text_atomic
from rootparams.tools.snakescript import run_logged


def main(smk, say):
    tables = []
    samples = smk.input.samples
    samples = [samples] if isinstance(samples, str) else list(samples)  # one file comes as a string
    for fmt, sample in zip(smk.params.formats, samples, strict=True):
        start = time.time()
        result, inspection = unzipkinds.measure(
            smk.input.tool,
            sample,
            smk.params.settings[fmt],
            tree=smk.params.trees[fmt],
            host_lock=smk.params.host_lock,
            say=say,
            jobs=smk.threads,  # the rule holds every core: the compression (not timed) uses them
        )
        table = unzipkinds.kind_summary(fmt, result, inspection)
        say(
            f"decompression per content kind: {fmt}, {table['kind'].nunique()} kinds x "
            f"{table['compression_setting'].nunique()} settings in {time.time() - start:.1f} s (with any wait for "
            "the host's lock)"
        )
        tables.append(table)
    summary = (
        pd.concat(tables, ignore_index=True) if tables else pd.DataFrame(columns=unzipkinds.SUMMARY_COLUMNS)
    )
    write_text_atomic(smk.output[0], summary.to_csv(index=False))


run_logged(snakemake, main)
