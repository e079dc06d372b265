# Stage 1: write one ROOT file per file point and catalogue what was really written. The events of a
# format are generated once (generate_content) and read back for every grid point of that format.


rule generate_content:
    input:
        writer=paths.WRITER_EXE,
        reader=paths.READER_EXE,
    output:
        root=temp(paths.content_file(DATA_DIR)),
    log:
        paths.log("generate", "{format}", "content"),
    conda:
        CONDA_ENV
    threads: 1
    params:
        point=content_point,
        events=events_written,
        seed=STUDY["seed"],
    script:
        "../scripts/generate_file.py"


rule generate_file:
    input:
        writer=paths.WRITER_EXE,
        reader=paths.READER_EXE,
        content=paths.content_file(DATA_DIR),
    output:
        root=unless_kept(paths.root_file(DATA_DIR)),
        catalogue=paths.catalogue_entry(),
    log:
        paths.log("generate", "{format}", "{file_id}"),
    conda:
        CONDA_ENV
    # Level-9 and LZMA writing is compression-bound; ROOT's implicit MT compresses a cluster's baskets in
    # parallel (Snakemake lowers this to --cores when fewer).
    threads: 2
    params:
        point=file_point,
        events=events_written,
        seed=STUDY["seed"],
    script:
        "../scripts/generate_file.py"


rule generate_warmup_file:
    input:
        writer=paths.WRITER_EXE,
        reader=paths.READER_EXE,
    output:
        root=paths.warmup_file(DATA_DIR),
    log:
        paths.log("generate", "{format}", "warmup"),
    conda:
        CONDA_ENV
    threads: 1
    params:
        point=warmup_file_point,
        events=WARMUP_EVENTS,
        seed=STUDY["seed"] + 1,
    script:
        "../scripts/generate_file.py"
