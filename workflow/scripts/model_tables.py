"""Snakemake entry point: the model of the timed loop against the study's measured rates, and the same points
predicted for media the host lacks (rootparams.model.model)."""

from pathlib import Path

import pandas as pd

from rootparams.model import model
from rootparams.present.figures import save
from rootparams.tools.snakescript import run_logged


def main(smk, say):
    i = smk.input
    points = model.read_study_points(i.repetitions, i.files, i.summary, i.points)
    storage, warm = pd.read_csv(smk.input.storage), pd.read_csv(smk.input.warm)
    # The remote profiles' primitives, where the study reads on any.
    remote = pd.read_csv(smk.input.remote) if smk.input.remote else None
    predicted = model.predicted_points(points, storage, warm, remote)
    predicted.to_csv(smk.output.points, index=False)
    errors = model.errors_table(predicted)
    errors.to_csv(smk.output.errors, index=False)
    say(f"model (rules {model.MODEL_VERSION}): {len(predicted)} of {len(points)} valid points predicted")
    for _, row in errors.iterrows():
        say(
            f"  {row['group']} {row['value']}: {row['points']} points, median error "
            f"{100 * row['median_abs_error']:.1f} %, 90th percentile {100 * row['p90_abs_error']:.1f} %"
        )
    # The same errors for predictions that need none of the model's rules, on the same points.
    baselines = model.baselines_table(predicted)
    baselines.to_csv(smk.output.baselines, index=False)
    text = model.baselines_markdown(baselines)
    Path(smk.output.baselines_md).write_text(text)
    say(text)
    save(model.draw(predicted), smk.output.png, smk.output.pdf)
    media = model.media_points(points, storage, warm)
    media.to_csv(smk.output.media, index=False)
    save(model.draw_media(predicted, media), smk.output.media_png, smk.output.media_pdf)


run_logged(snakemake, main)
