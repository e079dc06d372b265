# The model of the timed loop (docs/model.md) against the study's measured rates: every valid point predicted
# from the host's primitives (the storage's fio figures, the warm reads' CPU) and its layout counts; the parts of
# each point's time beside its measured rate; the rates predicted for media the host lacks; and the note's Table 1
# predicted for its testbed.

# The model's error beside baselines that need none of its rules (warm CPU alone, B / bandwidth alone, the larger of
# the two, their sum), on the same points, with the rules' version: .csv and .md.
MODEL_BASELINES_TABLE = f"{paths.TABLES}/model_baselines"


rule model_tables:
    input:
        repetitions=paths.REPETITIONS_TABLE,
        files=paths.FILES_TABLE,
        summary=paths.SUMMARY_TABLE,
        points=paths.POINTS_TABLE,
        storage=paths.STORAGE_PRIMITIVES_TABLE,
        remote=model_remote_primitives,
        warm=paths.CPU_PRIMITIVES_SUMMARY,
    output:
        points=report(
            paths.MODEL_POINTS_TABLE,
            caption="../report/model.rst",
            category="Model",
            labels={"table": "predicted against measured"},
        ),
        errors=paths.MODEL_ERRORS_TABLE,
        baselines=report(
            f"{MODEL_BASELINES_TABLE}.csv",
            caption="../report/model.rst",
            category="Model",
            labels={"table": "model against baselines"},
        ),
        baselines_md=f"{MODEL_BASELINES_TABLE}.md",
        media=paths.MODEL_MEDIA_TABLE,
        png=report(
            paths.figure(MODEL_FIGURE, "png"),
            caption="../report/model.rst",
            category="Model",
            labels={"figure": "model against measured"},
        ),
        pdf=paths.figure(MODEL_FIGURE, "pdf"),
        media_png=report(
            paths.figure(MEDIA_FIGURE, "png"),
            caption="../report/model_media.rst",
            category="Model",
            labels={"figure": "predicted for other media"},
        ),
        media_pdf=paths.figure(MEDIA_FIGURE, "pdf"),
    log:
        paths.log("report", "model"),
    conda:
        CONDA_ENV
    script:
        "../scripts/model_tables.py"


rule model_parts:
    """One format's valid points: the predicted parts of the time per event, stacked, beside the measured time."""
    input:
        points=paths.MODEL_POINTS_TABLE,
    output:
        png=report(
            paths.figure(parts_figure("{format}"), "png"),
            caption="../report/model_parts.rst",
            category="Model",
            labels={"figure": "parts of the read time: {format}"},
        ),
        pdf=paths.figure(parts_figure("{format}"), "pdf"),
    log:
        paths.log("report", "model_parts_{format}"),
    conda:
        CONDA_ENV
    script:
        "../scripts/model_parts.py"


rule note_testbed:
    """The note's Table 1 predicted for its testbed (i7-6700, a 5400 rpm disk), with this host's CPU scaled by
    the ratio of its measured 7-Zip rating to the testbed CPU's published one."""
    input:
        repetitions=paths.REPETITIONS_TABLE,
        files=paths.FILES_TABLE,
        summary=paths.SUMMARY_TABLE,
        points=paths.POINTS_TABLE,
        storage=paths.STORAGE_PRIMITIVES_TABLE,
        warm=paths.CPU_PRIMITIVES_SUMMARY,
        cpu_reference=paths.CPU_REFERENCE_TABLE,
    output:
        csv=report(
            f"{paths.NOTE_TESTBED_TABLE}.csv",
            caption="../report/note_testbed.rst",
            category="Model",
            labels={"table": "the note's Table 1 predicted for its testbed"},
        ),
        md=f"{paths.NOTE_TESTBED_TABLE}.md",
    log:
        paths.log("report", "note_testbed"),
    conda:
        CONDA_ENV
    script:
        "../scripts/note_testbed.py"


rule adaptive_replay:
    """The adaptive plan (anchors measured, the rest predicted, the candidates close to the decision measured)
    replayed on this study: the points and measuring time it needs, and whether its decision is the study's.
    """
    input:
        summary=paths.SUMMARY_TABLE,
        files=paths.FILES_TABLE,
        repetitions=paths.REPETITIONS_TABLE,
        points=paths.POINTS_TABLE,
        model_points=paths.MODEL_POINTS_TABLE,
        measure_jobs=paths.MEASURE_JOBS_TABLE,
        warm_reads=paths.CPU_PRIMITIVES_TABLE,
    output:
        csv=report(
            f"{paths.ADAPTIVE_REPLAY_TABLE}.csv",
            caption="../report/adaptive_replay.rst",
            category="Model",
            labels={"table": "measuring only where it matters (replay)"},
        ),
        md=f"{paths.ADAPTIVE_REPLAY_TABLE}.md",
    log:
        paths.log("report", "adaptive_replay"),
    conda:
        CONDA_ENV
    params:
        study=STUDY,
    script:
        "../scripts/adaptive_replay.py"


rule adaptive_plan:
    """measurement.adaptive: what each block's plan measured and left predicted, the measuring time it took and
    spared, and the decision it led to."""
    input:
        blocks=block_records(),
        repetitions=paths.REPETITIONS_TABLE,
        measure_jobs=paths.MEASURE_JOBS_TABLE,
        warm_reads=paths.CPU_PRIMITIVES_TABLE,
        choice=paths.COST_CHOICE_TABLE,
    output:
        csv=report(
            f"{paths.ADAPTIVE_PLAN_TABLE}.csv",
            caption="../report/adaptive_plan.rst",
            category="Model",
            labels={"table": "measuring only where it matters"},
        ),
        md=f"{paths.ADAPTIVE_PLAN_TABLE}.md",
    log:
        paths.log("report", "adaptive_plan"),
    conda:
        CONDA_ENV
    params:
        repetitions=STUDY["repetitions"],
    script:
        "../scripts/adaptive_plan.py"


rule predicted_choice:
    """The decision on each medium the host lacks (cost.predicted_media), every candidate's read predicted."""
    input:
        summary=paths.SUMMARY_TABLE,
        files=paths.FILES_TABLE,
        repetitions=paths.REPETITIONS_TABLE,
        media=paths.MODEL_MEDIA_TABLE,
        errors=paths.MODEL_ERRORS_TABLE,
    output:
        report(
            paths.PREDICTED_CHOICE_TABLE,
            caption="../report/predicted_choice.rst",
            category="Model",
            labels={"table": "the decision on media this host lacks (predicted)"},
        ),
    log:
        paths.log("report", "predicted_choice"),
    conda:
        CONDA_ENV
    params:
        study=STUDY,
    script:
        "../scripts/predicted_choice.py"
