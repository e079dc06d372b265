# Stage 2: one timed cold read per job. The job claims every core Snakemake has, so no other job of the
# pipeline runs while a file is being read (the aggregation verifies this from the recorded windows).


rule measure_repetition:
    input:
        root=paths.root_file(DATA_DIR),
        warmup=warmup_file,
        reader=paths.READER_EXE,
    output:
        record=paths.repetition_record(),
        samples=paths.monitor_samples(),
    log:
        paths.log("measure", "{format}", "{file_id}", "{read_id}", "rep{rep}"),
    conda:
        CONDA_ENV
    threads: all_cores
    resources:
        timed_read=1,
    params:
        file=file_point,
        read=read_point,
        events=events_read,
        measurement=STUDY["measurement"],
    script:
        "../scripts/measure_repetition.py"
