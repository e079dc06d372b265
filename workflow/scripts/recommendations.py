"""Snakemake entry point: results/recommendations.md, derived from the measured data."""

import json
from dataclasses import asdict
from pathlib import Path

import pandas as pd

from rootparams.decide.decision import decision_markdown
from rootparams.present.recommend import FINDING_COLUMNS, REPETITION_METRICS, findings, markdown
from rootparams.stats.compare import Repetitions
from rootparams.study.labels import profile_list
from rootparams.tools.snakescript import run_logged


def main(smk):
    summary = pd.read_csv(smk.input.summary)
    provenance = json.loads(Path(smk.input.provenance).read_text())
    found = findings(
        summary,
        pd.read_csv(smk.input.points),
        pd.read_csv(smk.input.files),
        smk.params.study,
        provenance.get("usable_cores"),
        precision=pd.read_csv(smk.input.precision),
        # The repetitions by round: every comparison is paired by round where both points share rounds.
        repetitions=Repetitions.read(smk.input.repetitions, metrics=REPETITION_METRICS),
    )
    profiles = profile_list(summary["storage_profile"])
    context = (
        f"Machine: {provenance['host']} ({provenance['usable_cores']} cores); "
        f"{smk.params.study['repetitions']} repetitions per point."
    )
    lead = decision_markdown(
        pd.read_csv(smk.input.choice),
        pd.read_csv(smk.input.crossovers),
        pd.read_csv(smk.input.front),
        smk.params.study,
    )
    Path(smk.output.recommendations).write_text(markdown(found, profiles, context, lead=lead))
    pd.DataFrame([asdict(f) for f in found], columns=FINDING_COLUMNS).to_csv(smk.output.findings, index=False)


run_logged(snakemake, main)
