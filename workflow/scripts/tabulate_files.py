"""Snakemake entry point: the catalogue of generated files, one row per file (results/tables/files.csv)."""

from rootparams.aggregate import load_catalogue
from rootparams.snakescript import run_logged


def main(smk):
    files = load_catalogue(smk.input).sort_values(["format", "file_id"])
    files.to_csv(smk.output[0], index=False)


run_logged(snakemake, main)
