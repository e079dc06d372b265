"""Snakemake entry point: this host's one-thread 7-Zip rating, results/primitives/cpu_reference.csv."""

from rootparams.measure import cpureference
from rootparams.tools.snakescript import run_logged


def main(smk, say):
    row = cpureference.measure(runs=smk.params.runs, host_lock=smk.params.host_lock, say=say)
    cpureference.write_table(row, smk.output[0])


run_logged(snakemake, main)
