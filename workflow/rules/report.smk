# Stage 4: what a person reads: a run summary (machine, storage, noise), and the HTML report
# (`snakemake --report`), which collects every output marked with report().


rule run_summary:
    input:
        summary=paths.SUMMARY_TABLE,
        files=paths.FILES_TABLE,
        provenance=paths.PROVENANCE,
        jobs=paths.MEASURE_JOBS_TABLE,
        repetitions=paths.REPETITIONS_TABLE,
        points=paths.POINTS_TABLE,
        sentinel=paths.SENTINEL_TABLE,
    output:
        summary=report(
            paths.RUN_SUMMARY,
            caption="../report/run_summary.rst",
            category="Run",
            labels={"document": "run summary"},
        ),
        checks=paths.PHYSICS_TABLE,
    log:
        paths.log("report", "run_summary"),
    conda:
        CONDA_ENV
    params:
        study=STUDY,
    script:
        "../scripts/run_summary.py"


rule drift_figure:
    input:
        sentinel=paths.SENTINEL_TABLE,
        jobs=paths.MEASURE_JOBS_TABLE,
    output:
        png=report(
            paths.figure(DRIFT_FIGURE, "png"),
            caption="../report/drift.rst",
            category="Run",
            labels={"figure": "drift sentinel"},
        ),
        pdf=paths.figure(DRIFT_FIGURE, "pdf"),
    log:
        paths.log("report", DRIFT_FIGURE),
    conda:
        CONDA_ENV
    script:
        "../scripts/drift_figure.py"


rule table1:
    input:
        summary=paths.SUMMARY_TABLE,
        files=paths.FILES_TABLE,
    output:
        csv=report(
            paths.table1("{format}", "csv"),
            caption="../report/table1.rst",
            category="Table 1",
            labels={"format": "{format}", "type": "csv"},
        ),
        md=paths.table1("{format}", "md"),
        tex=paths.table1("{format}", "tex"),
    log:
        paths.log("report", "table1_{format}"),
    conda:
        CONDA_ENV
    params:
        study=STUDY,
    script:
        "../scripts/table1.py"


rule figure:
    input:
        summary=paths.SUMMARY_TABLE,
        points=paths.POINTS_TABLE,
        files=paths.FILES_TABLE,
        provenance=paths.PROVENANCE,
        repetitions=paths.REPETITIONS_TABLE,
    output:
        png=report(
            paths.figure("{figure}", "png"),
            caption="../report/figure.rst",
            category="Figures",
            labels={"figure": "{figure}"},
        ),
        pdf=paths.figure("{figure}", "pdf"),
    log:
        paths.log("report", "{figure}"),
    conda:
        CONDA_ENV
    params:
        measurement=READS_MEASUREMENT,
    script:
        "../scripts/figure.py"


rule recommendations:
    input:
        summary=paths.SUMMARY_TABLE,
        repetitions=paths.REPETITIONS_TABLE,
        points=paths.POINTS_TABLE,
        files=paths.FILES_TABLE,
        provenance=paths.PROVENANCE,
        front=paths.PARETO_TABLE,
        choice=paths.COST_CHOICE_TABLE,
        crossovers=paths.COST_CROSSOVERS_TABLE,
        precision=paths.FLOAT_PRECISION_TABLE,
    output:
        recommendations=report(
            paths.RECOMMENDATIONS,
            caption="../report/recommendations.rst",
            category="Recommendations",
            labels={"document": "recommendations"},
        ),
        findings=paths.FINDINGS_TABLE,
    log:
        paths.log("report", "recommendations"),
    conda:
        CONDA_ENV
    params:
        study=STUDY,
    script:
        "../scripts/recommendations.py"
