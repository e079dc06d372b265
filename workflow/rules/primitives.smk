# Primitives: a few figures of this host from which a model of the cold read can predict every rate. The storage
# part: fio under native storage and every local storage profile of the study (rootparams.measure.storage_primitives), on a cold
# scratch file in data_dir, in about two minutes. Like a measuring job it claims every core and the host's
# timed-read lock, so that no other job or study disturbs it and it disturbs none. The remote part: the round trip
# and bandwidth of every remote profile the study reads on, through the reads' own endpoint, with ROOT
# (rootparams.measure.remote_primitives); a study without remote profiles has no such job.
from rootparams.measure import remote_primitives, storage_primitives


rule storage_primitives:
    """Bandwidth, IOPS and per-request latency of sequential and random reads at ROOT's request sizes, buffered
    and direct, under each storage profile the study reads on (remote ones left out), with their 95 % intervals,
    and each throttled profile checked against its nominal figures."""
    output:
        table=report(
            paths.STORAGE_PRIMITIVES_TABLE,
            caption="../report/storage_primitives.rst",
            category="Tables",
            labels={"table": "storage primitives"},
        ),
        runs=paths.STORAGE_PRIMITIVES_RUNS,
    log:
        paths.log("primitives", "storage"),
    conda:
        CONDA_ENV
    threads: all_cores
    resources:
        timed_read=1,
    params:
        profiles=storage_primitives.profiles_to_measure(STUDY),
        data_dir=DATA_DIR,
        host_lock=STUDY["measurement"]["host_lock"],
        hold_free_page_reporting=STUDY["measurement"]["hold_free_page_reporting"],
        seed=STUDY["seed"],
        repetitions=STORAGE_PRIMITIVES["repetitions"],
        runtime_seconds=STORAGE_PRIMITIVES["runtime_seconds"],
        scratch_bytes=STORAGE_PRIMITIVES["scratch_mib"] * storage_primitives.MIB,
        fill_runs=STORAGE_PRIMITIVES["fill_runs"],
    script:
        "../scripts/storage_primitives.py"


rule remote_primitives:
    """The round trip (many small reads), the bandwidth (one large transfer) and the cost of a vector read of each
    remote storage profile the study reads on, measured with ROOT through the same endpoint (XRootD server and
    proxy) the timed reads use, each checked against its nominal figures."""
    output:
        table=report(
            paths.REMOTE_PRIMITIVES_TABLE,
            caption="../report/remote_primitives.rst",
            category="Tables",
            labels={"table": "remote storage primitives"},
        ),
        requests=paths.REMOTE_PRIMITIVES_REQUESTS,
    log:
        paths.log("primitives", "remote"),
    conda:
        CONDA_ENV
    threads: all_cores
    resources:
        timed_read=1,
    params:
        profiles=remote_primitives.profiles_to_measure(STUDY),
        data_dir=DATA_DIR,
        logs_dir=paths.REMOTE_PRIMITIVES_ENDPOINT_LOGS,
        host_lock=STUDY["measurement"]["host_lock"],
        hold_free_page_reporting=STUDY["measurement"]["hold_free_page_reporting"],
        seed=STUDY["seed"],
    script:
        "../scripts/remote_primitives.py"
