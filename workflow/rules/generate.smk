# Stage 1: write one ROOT file per file point and catalogue what was really written. The events of a
# format are generated once (generate_content) and read back for every grid point of that format. A format
# made from a user's file (docs/formats.md, "Your own files") has its file described as it is
# (catalogue_source), rewritten by ROOT for its file-side points (rewrite_file), or its profile cloned into a
# recipe (calibrate_recipe) that the generate rules then write like a built-in format's.


rule generate_content:
    input:
        writer=paths.WRITER_EXE,
        reader=paths.READER_EXE,
        recipe=recipe_input,
    output:
        # Kept (not temp): written again, it would be newer than every file written from it, and adding a
        # scan to a finished study would write all of the format's files again.
        root=paths.content_file(DATA_DIR),
    log:
        paths.log("generate", "{format}", "content"),
    wildcard_constraints:
        format=outputs.formats_pattern(STUDY, "recipe"),
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
        content=content_input,
        recipe=recipe_input,
    output:
        root=unless_kept(paths.root_file(DATA_DIR)),
        catalogue=paths.catalogue_entry(),
    log:
        paths.log("generate", "{format}", "{file_id}"),
    wildcard_constraints:
        format=GENERATED_FORMATS,
        file_id=FILE_ID_PATTERN,
    conda:
        CONDA_ENV
    # Level-9 and LZMA writing is compression-bound; ROOT's implicit MT compresses a cluster's baskets in
    # parallel (Snakemake lowers this to --cores when fewer).
    threads: 2
    params:
        point=file_point,
        events=events_written,
        seed=STUDY["seed"],
        on_failure=STUDY["write_failures"],
    script:
        "../scripts/generate_file.py"


# The drift sentinel's file is read in every block that measures something, also in a later run that adds points
# to a finished study: it is kept, so that it is not written again (a file written again counts as new, and its
# point would be measured again).
use rule generate_file as generate_sentinel_file with:
    output:
        root=paths.root_file(DATA_DIR),
        catalogue=paths.catalogue_entry(),
    wildcard_constraints:
        format=SENTINEL_FORMAT,
        file_id=SENTINEL_FILE_ID,


ruleorder: generate_sentinel_file > generate_file


rule generate_warmup_file:
    input:
        writer=paths.WRITER_EXE,
        reader=paths.READER_EXE,
        recipe=recipe_input,
    output:
        root=paths.warmup_file(DATA_DIR),
    log:
        paths.log("generate", "{format}", "warmup"),
    wildcard_constraints:
        format=GENERATED_FORMATS,
    conda:
        CONDA_ENV
    threads: 1
    params:
        point=warmup_file_point,
        events=WARMUP_EVENTS,
        seed=STUDY["seed"] + 1,
    script:
        "../scripts/generate_file.py"


# The decompression per content kind (rule unzip_kinds) is measured on the format's default file, written again with
# the study's events and seed (the same content and layout as the study's default file) and removed once measured.
use rule generate_warmup_file as generate_unzip_sample with:
    output:
        root=temp(paths.unzip_sample_file(DATA_DIR)),
    log:
        paths.log("generate", "{format}", "unzip-sample"),
    threads: 2
    params:
        point=warmup_file_point,
        events=events_written,
        seed=STUDY["seed"],


rule calibrate_recipe:
    input:
        source=original_source_file,
    output:
        paths.recipe_file(),
    log:
        paths.log("generate", "{format}", "calibrate"),
    wildcard_constraints:
        format=outputs.formats_pattern(STUDY, "clone"),
    conda:
        CONDA_ENV
    params:
        # the tree the config checked (found there when not given), so that both agree on it
        tree=lambda w: source_of(STUDY, w.format).tree,
    script:
        "../scripts/calibrate_recipe.py"


# A source too short to time, repeated (formats.<name>.tile): its baskets copied as they are, N times, checked.
rule tile_source:
    input:
        source=original_source_file,
        recompressor=paths.RECOMPRESSOR_EXE,
        reader=paths.READER_EXE,
    output:
        root=paths.tiled_source_file(DATA_DIR),
        record=paths.tile_record(),
    log:
        paths.log("generate", "{format}", "tile_x{copies}"),
    wildcard_constraints:
        format=SOURCE_FORMATS,
        copies=r"\d+",
    conda:
        CONDA_ENV
    threads: 1
    params:
        tree=tree_name,
        # the branch selections of the format's reads, checked on the tiled file as on any rewrite
        selections=lambda w: sorted(
            {p.read.branches for p in POINTS if p.file.format == w.format}
        ),
    script:
        "../scripts/tile_source.py"


rule catalogue_source:
    input:
        source=source_file,
        reader=paths.READER_EXE,
        tiled=tile_record_input,
    output:
        catalogue=paths.catalogue_entry(file_id=ASIS_ID),
    log:
        paths.log("generate", "{format}", ASIS_ID),
    wildcard_constraints:
        format=SOURCE_FORMATS,
    conda:
        CONDA_ENV
    params:
        point=lambda w: FILE_POINTS[(w.format, ASIS_ID)],
        tree=tree_name,
    script:
        "../scripts/catalogue_source.py"


rule rewrite_file:
    input:
        source=source_file,
        # a recompression of a tiled source is made from the file itself, its copies written from one recompression
        original=original_source_file,
        rewriter=paths.REWRITER_EXE,
        recompressor=paths.RECOMPRESSOR_EXE,
        reader=paths.READER_EXE,
        tiled=tile_record_input,
    output:
        root=unless_kept(paths.root_file(DATA_DIR)),
        catalogue=paths.catalogue_entry(),
    log:
        paths.log("generate", "{format}", "{file_id}"),
    wildcard_constraints:
        format=SOURCE_FORMATS,
        file_id=REWRITE_ID_PATTERN,
    conda:
        CONDA_ENV
    threads: 1
    params:
        point=file_point,
        tree=tree_name,
        on_failure=STUDY["rewrite_failures"],
        # The branch selections of the reads of this file, checked on it before any timed read.
        selections=file_selections,
        source_settings=source_settings,
    script:
        "../scripts/rewrite_file.py"
