# The model of the timed loop (docs/model.md) against the study's measured rates: every valid point predicted
# from the host's primitives (the storage's fio figures, the warm reads' CPU) and its layout counts.

MODEL_FIGURE = "fig33_model_vs_measured"


rule model_tables:
    input:
        repetitions=paths.REPETITIONS_TABLE,
        files=paths.FILES_TABLE,
        summary=paths.SUMMARY_TABLE,
        points=paths.POINTS_TABLE,
        storage=paths.STORAGE_PRIMITIVES_TABLE,
        warm=paths.CPU_PRIMITIVES_SUMMARY,
    output:
        points=report(
            paths.MODEL_POINTS_TABLE,
            caption="../report/model.rst",
            category="Model",
            labels={"table": "predicted against measured"},
        ),
        errors=paths.MODEL_ERRORS_TABLE,
        png=report(
            paths.figure(MODEL_FIGURE, "png"),
            caption="../report/model.rst",
            category="Model",
            labels={"figure": "model against measured"},
        ),
        pdf=paths.figure(MODEL_FIGURE, "pdf"),
    log:
        paths.log("report", "model"),
    conda:
        CONDA_ENV
    script:
        "../scripts/model_tables.py"
