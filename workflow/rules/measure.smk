# Stage 2: the timed cold reads of one grid point per job. The job claims every core Snakemake has, so no
# other job of the pipeline runs while a file is being read (the aggregation verifies this from the
# recorded windows). One job makes all repetitions of a point: the monitor and the job start-up are paid
# once per point, not once per read.
#
# Each repetition's record is written the moment it is taken and is kept across reruns (it is not a
# declared output, so Snakemake never deletes it): a rerun after a crash, or with more repetitions, measures
# only the missing ones, as long as the file (size and mtime: a removed file written again counts as new, see
# keep_files) and the measurement settings are unchanged. The declared output
# is the point record, written last, which lists the point's repetitions.


rule measure_point:
    input:
        root=root_file,
        catalogue=paths.catalogue_entry(),
        warmup=warmup_file,
        reader=paths.READER_EXE,
    output:
        paths.point_record(),
    log:
        paths.log("measure", "{format}", "{file_id}", "{read_id}"),
    conda:
        CONDA_ENV
    threads: all_cores
    resources:
        timed_read=1,
    params:
        file=file_point,
        read=read_point,
        tree=tree_name,
        events=events_read,
        repetitions=STUDY["repetitions"],
        measurement=measurement_of,
    script:
        "../scripts/measure_point.py"
