"""Snakemake entry point: the remote storage primitives of this host (the round trip, bandwidth and vector reads of
each remote storage profile of the study, through its endpoint, with ROOT), results/primitives/remote.csv and every
timed request behind it."""

from rootparams.measure import remote_primitives
from rootparams.tools.snakescript import run_logged


def main(smk, say):
    p = smk.params
    rows, requests = remote_primitives.measure_remote(
        p.profiles,
        p.data_dir,
        p.logs_dir,
        host_lock=p.host_lock,
        hold_free_page_reporting=p.hold_free_page_reporting,
        seed=p.seed,
        say=say,
    )
    table = remote_primitives.write_tables(rows, requests, smk.output.table, smk.output.requests)
    for line in remote_primitives.describe(table):
        say(line)
    # Not an error: the table says what this host's endpoint delivers, and the model predicts from the measured
    # figures; a profile that could not be measured leaves its points unpredicted.
    for _, row in table[table["nominal_check"].isin(["fail", "not measured"])].iterrows():
        what = "misses its nominal figures" if row["nominal_check"] == "fail" else "was not measured"
        say(f"warning: storage profile {row['storage_profile']!r} {what}: {row['nominal_check_detail']}")


run_logged(snakemake, main)
