# Reproduce "Impact of ROOT file parameters on ATLAS Analysis Object Data" (ATLAS PUB note, 2020) on this
# machine: write synthetic xAOD-like files at every grid point, read each one cold several times under
# TTreePerfStats and dool, and tabulate mean and 1 sigma. The logic lives in src/rootparams.
from snakemake.utils import min_version

min_version("9.0")


# The default study. A study given with --configfile replaces it instead of extending it: a config file holds
# only what its study changes from the schema's defaults (README, "Another configuration"), so that
# config/quick.yaml does not inherit the default study's scans. --config key=value still extends it.
if not workflow.overwrite_configfiles:

    configfile: "config/config.yaml"


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/build.smk"
include: "workflow/rules/generate.smk"
include: "workflow/rules/measure.smk"
include: "workflow/rules/aggregate.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/decide.smk"
include: "workflow/rules/primitives.smk"
include: "workflow/rules/primitives_cpu.smk"
include: "workflow/rules/model.smk"


# Tables, figures, the decision and the summaries take seconds each (at most ~20 s in the default study): on a
# batch cluster they run where Snakemake runs instead of waiting, each, for a node and the executor's status checks
# (about 14 s a job on a single-node Slurm). Writing, measuring and the primitives stay cluster jobs.
localrules:
    tabulate_files,
    tabulate_repetitions,
    table1,
    figure,
    drift_figure,
    decision_tables,
    pareto_figure,
    cost_figure,
    recommendations,
    run_summary,
    model_parts,
    model_tables,
    note_testbed,
    predicted_choice,
    adaptive_replay,


rule all:
    default_target: True
    input:
        final_outputs(),


onstart:
    preflight()


onsuccess:
    print_noise_summary()
    cancel_scheduler_timers()


onerror:
    cancel_scheduler_timers()
