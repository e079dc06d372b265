# Reproduce "Impact of ROOT file parameters on ATLAS Analysis Object Data" (ATLAS PUB note, 2020) on this
# machine: write synthetic xAOD-like files at every grid point, read each one cold several times under
# TTreePerfStats and dool, and tabulate mean and 1 sigma. The logic lives in src/rootparams.
from snakemake.utils import min_version

min_version("9.0")


configfile: "config/config.yaml"


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/build.smk"
include: "workflow/rules/generate.smk"
include: "workflow/rules/measure.smk"
include: "workflow/rules/aggregate.smk"
include: "workflow/rules/report.smk"


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
