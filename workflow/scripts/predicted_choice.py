"""Snakemake entry point: the decision on media the host lacks, from the model's predicted rates."""

import pandas as pd

from rootparams.decide import adaptive
from rootparams.model.model import P90_ERROR_TARGET
from rootparams.tools.snakescript import run_logged


def main(smk, say):
    errors = pd.read_csv(smk.input.errors)
    everything = errors[errors["group"] == "all"]["p90_abs_error"]
    # the model's 90th-percentile error on this host, at least its target
    uncertainty = max(P90_ERROR_TARGET, float(everything.iloc[0]) if len(everything) else 0.0)
    table = adaptive.predicted_choices(
        pd.read_csv(smk.input.summary, low_memory=False),
        pd.read_csv(smk.input.files),
        pd.read_csv(smk.input.repetitions, low_memory=False),
        pd.read_csv(smk.input.media),
        smk.params.study,
        smk.params.study["cost"]["predicted_media"],
        uncertainty,
    )
    table.to_csv(smk.output[0], index=False)
    for _, r in table.iterrows():
        say(f"{r['medium_name']}, {r['format']}, {r['reads_per_file']} reads: {r['choice']}")


run_logged(snakemake, main)
