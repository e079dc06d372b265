"""Snakemake entry point: record machine, storage, software and config of this run."""

from rootparams.tools import provenance
from rootparams.tools.records import read_json, write_json_atomic
from rootparams.tools.snakescript import run_logged


def main(smk):
    write_json_atomic(smk.output[0], provenance.collect(smk.params.study, read_json(smk.input.build)))


run_logged(snakemake, main)
