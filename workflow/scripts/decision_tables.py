"""Snakemake entry point: the Pareto fronts and the cost model's tables (rootparams.decision)."""

import pandas as pd

from rootparams.decision import (
    GROUP_KEYS,
    PARETO_COLUMNS,
    candidates,
    cheapest,
    cost_candidates,
    cost_table,
    crossovers,
    pareto,
    prices,
)
from rootparams.snakescript import run_logged


def main(smk):
    config = smk.params.study
    rows = pareto(candidates(pd.read_csv(smk.input.summary), pd.read_csv(smk.input.files), config))
    front = rows.sort_values(
        [*GROUP_KEYS, "on_front", "bytes_per_event"], ascending=[True] * 4 + [False, True]
    )
    front[[c for c in PARETO_COLUMNS if c in front.columns]].to_csv(smk.output.front, index=False)
    cost_table(rows, config).to_csv(smk.output.costs, index=False)
    parts = cost_candidates(rows, config)
    cheapest(parts, prices(config)["reads_per_file"]).to_csv(smk.output.choice, index=False)
    crossovers(parts).to_csv(smk.output.crossovers, index=False)


run_logged(snakemake, main)
