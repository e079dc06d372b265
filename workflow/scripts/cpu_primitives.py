"""Snakemake entry point: the CPU primitives from the blocks' warm reads (rootparams.measure.cpu_primitives): cpu.csv, one row
per warm read, and cpu_summary.csv, one row per warm set with each primitive's mean, 95 % interval and n."""

import json
from pathlib import Path

from rootparams.measure.cpu_primitives import cpu_summary, cpu_table, records_of_blocks
from rootparams.tools.records import write_text_atomic
from rootparams.tools.snakescript import run_logged


def main(smk, say):
    blocks = [json.loads(Path(block).read_text()) for block in smk.input.blocks]
    table = cpu_table(records_of_blocks(blocks), smk.params.probe_loads)
    summary = cpu_summary(table)
    if table.empty:
        say("no warm reads in these blocks: measurement.warm_reads is 0, or every warm read failed")
    write_text_atomic(smk.output.reads, table.to_csv(index=False))
    write_text_atomic(smk.output.summary, summary.to_csv(index=False))


run_logged(snakemake, main)
