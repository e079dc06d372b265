"""Every path the workflow reads or writes, in one place.

Rules and scripts never build paths by string concatenation: they call these functions, so a change of
layout touches this file only. Patterns contain Snakemake wildcards ({format}, {file_id}, {read_id},
{rep}); the same functions with values give concrete paths.

Layout:
    <data_dir>/files/<format>/<file_id>.root          the ROOT files under test (storage under test)
    <data_dir>/warmup/<format>.root                    a few events, read before each timed read to warm ROOT
    <data_dir>/content/<format>.root                   the events of a format, generated once (temporary)
    <data_dir>/unzip-sample/<format>.root              the format's default file, written for the decompression
                                                       per content kind (temporary)
    <data_dir>/primitives/storage-scratch.bin          the file fio reads for the storage primitives (removed after)
    <data_dir>/primitives/remote/remote-scratch.bin    the file ROOT reads over root:// for the remote primitives
    results/build/                                     compiled xAOD-like classes and reader/writer/rewriter executables
    results/catalogue/<format>/<file_id>.json          what each file really is (read back from it)
    results/blocks/<block>.json                        a block's measurement, done: its points' reads, its rounds
    results/blocks/<block>.measuring-job.json          the timing of the block's last job that took reads
    results/repetitions/<format>/<file_id>/<read_id>/rep<N>.json   one timed read (kept across reruns)
    results/sentinel/<block>-<epoch ms>.json           one read of the drift sentinel
    results/primitives/warm/<format>/<file_id>/<warm_id>/warm<N>.json   one warm read (kept across reruns)
    results/primitives/cpu.csv, cpu_summary.csv        the CPU primitives from the warm reads (rootparams.measure.cpu_primitives)
    results/primitives/unzip_kinds.csv                 ROOT's decompression per content kind (rootparams.measure.unzipkinds)
    results/monitor/<block>/<job start>.csv            raw dool/dstat samples of one measuring job
    results/tables/points.csv                          which scans each measured point belongs to
    results/tables/measure_jobs.csv                    each measuring job's wall time and timed loops
    results/figures/figNN_<what>.{png,pdf}             the paper's figures
    results/recommendations.md                         recommendations derived from the data
    results/tables/*.csv                               tidy tables for people and later stages
    results/provenance.json                            machine, software and config of the run
    results/primitives/storage.csv                     the storage primitives: fio's rates per profile and request
    results/primitives/storage_runs.csv                every fio run behind them
    results/primitives/remote.csv                      the remote primitives: round trip, bandwidth per remote profile
    results/primitives/remote_requests.csv             every timed request behind them
"""

from __future__ import annotations

from pathlib import Path

RESULTS = "results"
BUILD = f"{RESULTS}/build"
TABLES = f"{RESULTS}/tables"
_LOGS = f"{RESULTS}/logs"

WRITER_EXE = f"{BUILD}/bin/rootparams-write"
READER_EXE = f"{BUILD}/bin/rootparams-read"
REWRITER_EXE = f"{BUILD}/bin/rootparams-rewrite"
RECOMPRESSOR_EXE = f"{BUILD}/bin/rootparams-recompress"
UNZIP_KINDS_EXE = f"{BUILD}/bin/rootparams-unzipkinds"
BUILD_INFO = f"{BUILD}/build.json"

PROVENANCE = f"{RESULTS}/provenance.json"
FILES_TABLE = f"{TABLES}/files.csv"
FLOAT_PRECISION_TABLE = f"{TABLES}/float_precision.csv"  # precision lost per float variable (float_precision)
REPETITIONS_TABLE = f"{TABLES}/repetitions.csv"
MONITOR_TABLE = f"{TABLES}/monitor_samples.csv"
SUMMARY_TABLE = f"{TABLES}/summary.csv"
POINTS_TABLE = f"{TABLES}/points.csv"
MEASURE_JOBS_TABLE = f"{TABLES}/measure_jobs.csv"
SENTINEL_TABLE = f"{TABLES}/sentinel.csv"  # every read of the drift sentinel, in time order
PHYSICS_TABLE = f"{TABLES}/physics_checks.csv"  # the instrument's physics checks on this run's reads
# From measurements to a decision (rootparams.decide.decision): the Pareto fronts and the cost model.
PARETO_TABLE = f"{TABLES}/pareto_front.csv"
COST_TABLE = f"{TABLES}/cost_model.csv"
COST_CHOICE_TABLE = f"{TABLES}/cost_choice.csv"
COST_CROSSOVERS_TABLE = f"{TABLES}/cost_crossovers.csv"
COST_RANKING_TABLE = (
    f"{TABLES}/cost_ranking.csv"  # every candidate's cost interval and chance to be the cheapest
)
# The primitives a model predicts each point's rate from (docs/model.md); the CPU ones come from warm reads
# (rootparams.measure.cpu_primitives).
PRIMITIVES = f"{RESULTS}/primitives"
CPU_PRIMITIVES_TABLE = f"{PRIMITIVES}/cpu.csv"  # one row per warm read
CPU_PRIMITIVES_SUMMARY = f"{PRIMITIVES}/cpu_summary.csv"  # one row per warm set: means, 95 % intervals, n
# ROOT's decompression CPU per uncompressed MB per format, content kind and setting (rootparams.measure.unzipkinds).
UNZIP_KINDS_TABLE = f"{PRIMITIVES}/unzip_kinds.csv"
# A few of the study's files written again, several times each: the spread of a write's CPU time
# (rootparams.measure.writenoise), one row per write.
WRITE_NOISE_TABLE = f"{PRIMITIVES}/write_noise.csv"
# The model against the measurements: one row per valid point (its parts), and the errors per scan and profile.
MODEL_POINTS_TABLE = f"{TABLES}/model_points.csv"
MODEL_ERRORS_TABLE = f"{TABLES}/model_errors.csv"
# Every valid point predicted on each medium the host lacks (rootparams.model.model.MEDIA): predictions only.
MODEL_MEDIA_TABLE = f"{TABLES}/model_media.csv"
# This host's one-thread 7-Zip rating (rootparams.measure.cpureference), and the note's Table 1 predicted for its testbed.
CPU_REFERENCE_TABLE = f"{PRIMITIVES}/cpu_reference.csv"
NOTE_TESTBED_TABLE = f"{TABLES}/note_testbed_table1"  # .csv and .md
# The adaptive plan (measure anchors, predict the rest, measure what comes close to the decision) replayed on the
# study (rootparams.decide.adaptive): .csv and .md.
ADAPTIVE_REPLAY_TABLE = f"{TABLES}/adaptive_replay"
ADAPTIVE_PLAN_TABLE = f"{TABLES}/adaptive_plan"
# The decision on each medium the host lacks, from predicted rates (cost.predicted_media).
PREDICTED_CHOICE_TABLE = f"{TABLES}/cost_choice_predicted.csv"
FIGURES = f"{RESULTS}/figures"
# The storage primitives (rootparams.measure.storage_primitives): one row per storage profile x pattern x request size x I/O mode,
# and every fio run behind them.
STORAGE_PRIMITIVES_TABLE = f"{PRIMITIVES}/storage.csv"
STORAGE_PRIMITIVES_RUNS = f"{PRIMITIVES}/storage_runs.csv"
# The remote storage primitives (rootparams.measure.remote_primitives): one row per remote storage profile (its round trip,
# bandwidth and vector reads through the reads' own endpoint, measured with ROOT), and every timed request.
REMOTE_PRIMITIVES_TABLE = f"{PRIMITIVES}/remote.csv"
REMOTE_PRIMITIVES_REQUESTS = f"{PRIMITIVES}/remote_requests.csv"
# The logs of the servers and proxies the remote primitives start: <this>/<profile>/{xrootd,toxiproxy}.log
REMOTE_PRIMITIVES_ENDPOINT_LOGS = f"{_LOGS}/primitives/remote-endpoints"
RECOMMENDATIONS = f"{RESULTS}/recommendations.md"
# recommendations.md's findings as a table: one row per format and topic, its verdict and what was measured.
FINDINGS_TABLE = f"{TABLES}/findings.csv"


def root_file(data_dir: str, format: str = "{format}", file_id: str = "{file_id}") -> str:
    return f"{Path(data_dir).as_posix().rstrip('/')}/files/{format}/{file_id}.root"


def tiled_source_file(data_dir: str, format: str = "{format}", copies: int | str = "{copies}") -> str:
    """A source's file repeated ``copies`` times (formats.<name>.tile; rootparams.tools.recompress): what every point of
    the format is made from. Kept while the study needs it (the file as it is reads it)."""
    return f"{Path(data_dir).as_posix().rstrip('/')}/tiled/{format}_x{copies}.root"


def tile_record(format: str = "{format}", copies: int | str = "{copies}") -> str:
    """How a source was tiled: the recompressor's JSON and its checks, the source's identity."""
    return f"{RESULTS}/catalogue/{format}/tiled_x{copies}.json"


def content_file(data_dir: str, format: str = "{format}") -> str:
    return f"{Path(data_dir).as_posix().rstrip('/')}/content/{format}.root"


def warmup_file(data_dir: str, format: str = "{format}") -> str:
    return f"{Path(data_dir).as_posix().rstrip('/')}/warmup/{format}.root"


def write_noise_dir(data_dir: str) -> str:
    """Where the write-noise primitive writes its files, each removed once measured (rootparams.measure.writenoise)."""
    return f"{Path(data_dir).as_posix().rstrip('/')}/write-noise"


def unzip_sample_file(data_dir: str, format: str = "{format}") -> str:
    """The format's default file, written again for the decompression per content kind (rootparams.measure.unzipkinds)."""
    return f"{Path(data_dir).as_posix().rstrip('/')}/unzip-sample/{format}.root"


def storage_scratch_file(data_dir: str) -> str:
    """The file the storage primitives read with fio: on the disk the study's files are read from."""
    return f"{Path(data_dir).as_posix().rstrip('/')}/primitives/storage-scratch.bin"


def remote_scratch_file(data_dir: str) -> str:
    """The file the remote primitives read over root://: in a directory of its own, which the server exports."""
    return f"{Path(data_dir).as_posix().rstrip('/')}/primitives/remote/remote-scratch.bin"


def recipe_file(format: str = "{format}") -> str:
    """A calibrated clone's recipe (rootparams.ownfile.calibrate), made from its file once."""
    return f"{RESULTS}/recipes/{format}.recipe"


def catalogue_entry(format: str = "{format}", file_id: str = "{file_id}") -> str:
    return f"{RESULTS}/catalogue/{format}/{file_id}.json"


def repetition_record(
    format: str = "{format}", file_id: str = "{file_id}", read_id: str = "{read_id}", rep: int | str = "{rep}"
) -> str:
    return f"{RESULTS}/repetitions/{format}/{file_id}/{read_id}/rep{rep}.json"


def warm_record(format: str, file_id: str, warm_id: str, rep: int | str) -> str:
    """One warm read of a file at one CPU-relevant read setting (rootparams.measure.cpu_primitives), kept across reruns."""
    return f"{PRIMITIVES}/warm/{format}/{file_id}/{warm_id}/warm{rep}.json"


def block_record(block: str = "{block}") -> str:
    """A block's measurement, done: the records of its points, its sentinel reads and the order of its rounds."""
    return f"{RESULTS}/blocks/{block}.json"


def block_measuring_job(block: str = "{block}") -> str:
    """The timing of the last job of a block that measured something (kept across reruns: not a declared output),
    for a rerun that finds every read taken."""
    return f"{RESULTS}/blocks/{block}.measuring-job.json"


SENTINEL_RECORDS = f"{RESULTS}/sentinel"  # one record per read of the drift sentinel


def monitor_samples(block: str, job_start: float) -> str:
    return f"{RESULTS}/monitor/{block}/{int(job_start)}.csv"


def log(stage: str, *parts: str) -> str:
    return f"{_LOGS}/{stage}/{'/'.join(parts)}.log"


def remote_logs(fmt: str, file_id: str, read_id: str) -> str:
    """The directory of a remote point's server and proxy logs (xrootd.log, toxiproxy.log)."""
    return f"{_LOGS}/remote/{fmt}/{file_id}/{read_id}"


RUN_SUMMARY = f"{RESULTS}/run_summary.md"


def table1(format: str = "{format}", ext: str = "csv") -> str:
    return f"{TABLES}/table1_compression_{format}.{ext}"


def figure(name: str, ext: str) -> str:
    return f"{FIGURES}/{name}.{ext}"
