# Stage 2: the timed cold reads, one job per block: the points of one format, measured in interleaved rounds
# (repetition k of every point before repetition k+1 of any, each round in a shuffled order), so that a slow spell
# of the host falls on every point alike and points can be compared pair by pair. The job claims every core
# Snakemake has, so no other job of the pipeline runs while a file is being read (the aggregation verifies this
# from the recorded windows), and reads the drift sentinel every measurement.sentinel.every_seconds.
#
# Each repetition's record is written the moment it is taken and is kept across reruns (it is not a declared
# output, so Snakemake never deletes it): a rerun after a crash, or with more repetitions, measures only the
# missing ones, as long as the file (its size and modification time, from its catalogue entry: a file written
# again counts as new, see keep_files) and the settings that make its read are unchanged. The block's inputs are the
# files of the points that still have reads to take (rootparams.decide.blockplan.points_to_measure), so that adding a
# scan to a finished study writes and measures only its new points; what the block measures is its plan, a
# parameter, and a changed plan reruns it (profiles/default: the rerun triggers). The declared output is the block
# record, written last, which lists the block's repetitions, its sentinel reads and the order of its rounds. With
# measurement.passes, a block is one pass of a format (its share of the repetitions) and waits for the previous
# pass of every format.


rule measure_block:
    input:
        roots=block_root_files,
        catalogues=block_catalogues,
        warmup=block_warmup_files,
        reader=paths.READER_EXE,
        storage=block_storage_primitives,
        earlier=earlier_blocks,
    output:
        paths.block_record(),
    log:
        paths.log("measure", "{block}"),
    conda:
        CONDA_ENV
    threads: all_cores
    resources:
        timed_read=1,
    params:
        plan=block_plan,
        sentinel=sentinel_plan,
        repetitions=STUDY["repetitions"],
        reps=block_repetitions,
        pairs=block_pairs,
        measurement=block_measurement,
        seed=STUDY["seed"],
    script:
        "../scripts/measure_block.py"
