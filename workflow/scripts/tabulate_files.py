"""Snakemake entry point: the catalogue of generated files, one row per file (results/tables/files.csv), and the
precision lost per float variable of the files written at reduced float precision (float_precision.csv)."""

from rootparams.results.aggregate import float_precision_table, load_catalogue
from rootparams.tools.snakescript import run_logged


def main(smk):
    files = load_catalogue(smk.input).sort_values(["format", "file_id"])
    files.to_csv(smk.output.files, index=False)
    float_precision_table(smk.input).to_csv(smk.output.float_precision, index=False)


run_logged(snakemake, main)
