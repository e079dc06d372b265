# Stage 3: tidy tables from the per-file and per-repetition records, plus the run's provenance.


rule provenance:
    input:
        build=paths.BUILD_INFO,
    output:
        paths.PROVENANCE,
    log:
        paths.log("aggregate", "provenance"),
    conda:
        CONDA_ENV
    params:
        study=STUDY,
    script:
        "../scripts/provenance.py"


rule tabulate_files:
    input:
        catalogue_entries(),
    output:
        files=report(
            paths.FILES_TABLE,
            caption="../report/files.rst",
            category="Tables",
            labels={"table": "files"},
        ),
        float_precision=paths.FLOAT_PRECISION_TABLE,
    log:
        paths.log("aggregate", "files"),
    conda:
        CONDA_ENV
    params:
        # The study's files, so that a scan taken out of the study takes its files out of the table (the set of
        # inputs alone does not rerun a job: profiles/default, rerun-triggers).
        files=lambda w: sorted(f"{f.format}/{f.id}" for f in file_points(POINTS)),
    script:
        "../scripts/tabulate_files.py"


rule tabulate_repetitions:
    input:
        blocks=block_records(),
        files=paths.FILES_TABLE,
    output:
        repetitions=paths.REPETITIONS_TABLE,
        samples=paths.MONITOR_TABLE,
        summary=report(
            paths.SUMMARY_TABLE,
            caption="../report/summary.rst",
            category="Tables",
            labels={"table": "summary"},
        ),
        point_scans=paths.POINTS_TABLE,
        jobs=paths.MEASURE_JOBS_TABLE,
        sentinel=paths.SENTINEL_TABLE,
    log:
        paths.log("aggregate", "repetitions"),
    conda:
        CONDA_ENV
    params:
        points=POINTS,
        measurement=READS_MEASUREMENT,
        repetitions=STUDY["repetitions"],
    script:
        "../scripts/tabulate_repetitions.py"
