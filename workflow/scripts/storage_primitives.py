"""Snakemake entry point: the storage primitives of this host (fio under native storage and each local storage
profile of the study), results/primitives/storage.csv and every run behind it."""

from rootparams.measure import storage_primitives
from rootparams.tools.snakescript import run_logged


def main(smk, say):
    p = smk.params
    records = storage_primitives.measure_storage(
        p.profiles,
        p.data_dir,
        repetitions=p.repetitions,
        runtime_seconds=p.runtime_seconds,
        scratch_bytes=p.scratch_bytes,
        fill_runs=p.fill_runs,
        host_lock=p.host_lock,
        hold_free_page_reporting=p.hold_free_page_reporting,
        seed=p.seed,
        say=say,
    )
    table = storage_primitives.write_tables(records, smk.output.table, smk.output.runs)
    for line in storage_primitives.describe(table):
        say(line)
    # Not an error: the table says what this host's throttle does, and the timed reads run on it all the same.
    for _, row in table[table["nominal_check"].isin(["fail", "cannot tell"])].iterrows():
        what = "misses its nominal figures" if row["nominal_check"] == "fail" else "cannot be checked"
        say(
            f"warning: storage profile {row['storage_profile']!r} {what} on {row['pattern']} {row['io_mode']} "
            f"reads of {row['block_bytes']} B: {row['nominal_check_detail']}"
        )


run_logged(snakemake, main)
