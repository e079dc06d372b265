"""Snakemake entry point: a few of the study's files written again, several times each (rootparams.measure.writenoise),
into results/primitives/write_noise.csv."""

from rootparams.measure import writenoise
from rootparams.tools.records import write_text_atomic
from rootparams.tools.snakescript import run_logged


def main(smk, say):
    table = writenoise.measure(
        smk.params.files,
        writer=smk.input.writer,
        reader=smk.input.reader,
        events=smk.params.events,
        seed=smk.params.seed,
        scratch=smk.params.scratch,
        contents=smk.params.contents,
        recipes=smk.params.recipes,
        threads=smk.threads,
        writes=smk.params.writes,
        say=say,
    )
    write_text_atomic(smk.output[0], table.to_csv(index=False))


run_logged(snakemake, main)
