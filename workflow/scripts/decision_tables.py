"""Snakemake entry point: the Pareto fronts and the cost model's tables (rootparams.decide.decision)."""

import pandas as pd

from rootparams.decide.decision import (
    candidates,
    cheapest,
    cost_model,
    cost_ranking,
    cost_table,
    crossovers,
    pareto,
    pareto_table,
    prices,
    read_repetitions,
)
from rootparams.tools.snakescript import run_logged


def main(smk, say):
    config = smk.params.study
    repetitions = read_repetitions(smk.input.repetitions)
    rows = pareto(
        candidates(pd.read_csv(smk.input.summary), pd.read_csv(smk.input.files), config), repetitions
    )
    pareto_table(rows).to_csv(smk.output.front, index=False)
    # The files written again (the write-noise primitive), where the study measured it; else the noise is borrowed
    # from the reads, and the tables say which.
    writes = smk.input.get("writes")
    writes = writes if isinstance(writes, str) else (writes[0] if writes else None)
    model = cost_model(rows, config, repetitions, writes=pd.read_csv(writes) if writes else None)
    say(f"the writes' noise: {model.write_noise.describe()}")
    cost_table(model, config).to_csv(smk.output.costs, index=False)
    ranking = cost_ranking(model, prices(config)["reads_per_file"])
    ranking.to_csv(smk.output.ranking, index=False)
    cheapest(ranking).to_csv(smk.output.choice, index=False)
    crossovers(model.parts, read_draws=model.read_draws, write_draws=model.write_draws).to_csv(
        smk.output.crossovers, index=False
    )


run_logged(snakemake, main)
