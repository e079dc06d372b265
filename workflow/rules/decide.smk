# Stage 5: from measurements to a decision (rootparams.decide.decision): per format, the Pareto front of file size,
# event rate and write cost, and the cost model's cheapest setting per reads per file, each with how sure it is
# (the repetitions, by round: intervals and the chance of each candidate to be the cheapest). recommendations.md
# leads with it.


rule decision_tables:
    input:
        summary=paths.SUMMARY_TABLE,
        files=paths.FILES_TABLE,
        repetitions=paths.REPETITIONS_TABLE,
        # The write-noise primitive's table where the study measures it (write_noise_table: primitives_cpu.smk,
        # included after this file, hence called when the job is planned).
        writes=lambda wildcards: write_noise_table(),
    output:
        front=report(
            paths.PARETO_TABLE,
            caption="../report/pareto.rst",
            category="Decision",
            labels={"table": "Pareto fronts"},
        ),
        costs=paths.COST_TABLE,
        choice=report(
            paths.COST_CHOICE_TABLE,
            caption="../report/cost.rst",
            category="Decision",
            labels={"table": "cheapest setting"},
        ),
        crossovers=paths.COST_CROSSOVERS_TABLE,
        ranking=report(
            paths.COST_RANKING_TABLE,
            caption="../report/cost.rst",
            category="Decision",
            labels={"table": "every candidate's cost and chance to be the cheapest"},
        ),
    log:
        paths.log("decide", "tables"),
    conda:
        CONDA_ENV
    params:
        study=STUDY,
    script:
        "../scripts/decision_tables.py"


rule pareto_figure:
    input:
        front=paths.PARETO_TABLE,
    output:
        png=report(
            paths.figure(pareto_figure_name("{format}"), "png"),
            caption="../report/pareto.rst",
            category="Decision",
            labels={"figure": "Pareto front", "format": "{format}"},
        ),
        pdf=paths.figure(pareto_figure_name("{format}"), "pdf"),
    log:
        paths.log("decide", "pareto_{format}"),
    conda:
        CONDA_ENV
    script:
        "../scripts/decision_figure.py"


rule cost_figure:
    input:
        costs=paths.COST_TABLE,
        choice=paths.COST_CHOICE_TABLE,
    output:
        png=report(
            paths.figure(DECISION_FIGURES[1], "png"),
            caption="../report/cost.rst",
            category="Decision",
            labels={"figure": "cost against reads"},
        ),
        pdf=paths.figure(DECISION_FIGURES[1], "pdf"),
    log:
        paths.log("decide", "cost_figure"),
    conda:
        CONDA_ENV
    params:
        study=STUDY,
    script:
        "../scripts/decision_figure.py"
