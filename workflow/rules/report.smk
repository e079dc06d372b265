# Stage 4: what a person reads: a run summary (machine, storage, noise), and the HTML report
# (`snakemake --report`), which collects every output marked with report().


rule run_summary:
    input:
        summary=paths.SUMMARY_TABLE,
        files=paths.FILES_TABLE,
        provenance=paths.PROVENANCE,
    output:
        report(
            paths.RUN_SUMMARY,
            caption="../report/run_summary.rst",
            category="Run",
            labels={"document": "run summary"},
        ),
    log:
        paths.log("report", "run_summary"),
    conda:
        CONDA_ENV
    script:
        "../scripts/run_summary.py"


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
