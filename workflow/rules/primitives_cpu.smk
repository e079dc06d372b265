# The CPU primitives: what a read costs the CPU without any storage wait, from the warm reads each block takes
# right after its cold reads (measurement.warm_reads; rootparams.measure.cpu_primitives). The warm reads are made inside the
# measuring job (rule measure_block): the same files, which the study removes once a format's block has read them
# (keep_files: false), the same reader server and the same host lock, so that no warm read overlaps a timed read.
# This rule only tabulates what the block records list; it reads no ROOT file.


rule cpu_primitives:
    """results/primitives/cpu.csv (one row per warm read: its time, CPU, unzip time and bytes, events, read
    calls, residency and memory probes) and cpu_summary.csv (one row per warm set: the CPU seconds per
    uncompressed MB of ROOT's decompression, the CPU microseconds per event outside it, the warm event rate and
    the host's memory latency, each a mean with its 95 % interval and n)."""
    input:
        blocks=block_records(),
    output:
        reads=paths.CPU_PRIMITIVES_TABLE,
        summary=paths.CPU_PRIMITIVES_SUMMARY,
    log:
        paths.log("primitives", "cpu"),
    conda:
        CONDA_ENV
    params:
        # The memory probe's length: its time per load is the host's memory latency.
        probe_loads=STUDY["measurement"]["memory_probe_loads"],
    script:
        "../scripts/cpu_primitives.py"


rule cpu_reference:
    """This host's one-thread 7-Zip benchmark rating (rootparams.measure.cpureference): the figure other machines have
    published, from which the model scales this host's CPU parts to another CPU. About 35 s a run; under the host's
    timed-read lock, like every measurement."""
    output:
        paths.CPU_REFERENCE_TABLE,
    log:
        paths.log("primitives", "cpu_reference"),
    conda:
        CONDA_ENV
    threads: all_cores
    resources:
        timed_read=1,
    params:
        host_lock=STUDY["measurement"]["host_lock"],
        runs=STUDY["measurement"]["cpu_reference_runs"],
    script:
        "../scripts/cpu_reference.py"


rule unzip_kinds:
    """ROOT's own decompression per content kind (rootparams.measure.unzipkinds): for each format's default file (written
    again, or a user's file as it is), its branches grouped by kind (rootparams.ownfile.contentkinds, as rootparams inspect
    groups them), a sample of each kind's baskets compressed in memory at every compressing setting of the study
    as ROOT's TBasket does, and ROOT's R__unzip timed on them: one row per format, kind and setting with the
    sample's bytes, its compression ratio and the CPU seconds per uncompressed MB (mean, 95 % interval and n).
    In the default study about 25-40 s per format on 2 cores, after writing its file (about 20 s); under the host's
    timed-read lock, like every measurement."""
    input:
        tool=paths.UNZIP_KINDS_EXE,
        samples=UNZIP_KIND_SAMPLES,
    output:
        report(
            paths.UNZIP_KINDS_TABLE,
            caption="../report/unzip_kinds.rst",
            category="Tables",
            labels={"table": "decompression per content kind"},
        ),
    log:
        paths.log("primitives", "unzip_kinds"),
    conda:
        CONDA_ENV
    threads: all_cores
    resources:
        timed_read=1,
    params:
        formats=list(UNZIP_KIND_SETTINGS),
        settings=UNZIP_KIND_SETTINGS,
        trees=UNZIP_KIND_TREES,
        host_lock=STUDY["measurement"]["host_lock"],
    script:
        "../scripts/unzip_kinds.py"


# The spread of a file's write cost (rootparams.measure.writenoise; WRITE_NOISE_FILES in common.smk): the study writes each
# file once, so a few of its own files are written again, each several times, with its writer, events, seed and
# threads, and scheduled like its own writes (no host lock: the study's files are not written under it either), so
# that their CPU time scatters as the study's writes do. The decision (rule decision_tables) draws every file's
# write cost with it; without it (measurement.primitives off, or only users' files) the decision borrows the reads'
# CPU noise and says so.
rule write_noise:
    """results/primitives/write_noise.csv: a few of the study's files (each format's default file first, at most
    three) written again three times each, taking turns, each with ROOT's CPU time per event; the pooled spread of
    its logarithm is the relative noise of one write, with its interval and number of writes. About three minutes
    on the default study (its xAOD, TOPQ1 and SUSY5 default files, 2 cores); each file removed once written and
    read back."""
    input:
        writer=paths.WRITER_EXE,
        reader=paths.READER_EXE,
        contents=[p for p in write_noise_sources(content_input).values() if p],
        recipes=[p for p in write_noise_sources(recipe_input).values() if p],
    output:
        paths.WRITE_NOISE_TABLE,
    log:
        paths.log("primitives", "write_noise"),
    conda:
        CONDA_ENV
    # As the study's own files are written (rule generate_file): ROOT's implicit MT compresses with two threads.
    threads: 2
    params:
        files=WRITE_NOISE_FILES,
        writes=writenoise.WRITES,
        events={
            f.format: STUDY["formats"][f.format]["written"] for f in WRITE_NOISE_FILES
        },
        contents=write_noise_sources(content_input),
        recipes=write_noise_sources(recipe_input),
        seed=STUDY["seed"],
        scratch=paths.write_noise_dir(DATA_DIR),
    script:
        "../scripts/write_noise.py"
