# Stage 0: compile the xAOD-like classes (ACLiC) and the native writer and reader, once per checkout.


rule build_cxx:
    input:
        cxx_sources(),
    output:
        writer=paths.WRITER_EXE,
        reader=paths.READER_EXE,
        rewriter=paths.REWRITER_EXE,
        recompressor=paths.RECOMPRESSOR_EXE,
        unzip_kinds=paths.UNZIP_KINDS_EXE,
        info=paths.BUILD_INFO,
    log:
        paths.log("build", "cxx"),
    conda:
        CONDA_ENV
    # The reader's units, the writer and the rewriter compile side by side, one compiler per core given.
    threads: all_cores
    script:
        "../scripts/build_cxx.py"
