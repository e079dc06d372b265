"""The uproot reading style (rootparams.tools.uproot_read): one timed read in a process of its own, with the C++
reader's spans and fields, cross-checked against a direct uproot computation and the kernel's counters."""

import json
import subprocess
import sys

import awkward as ak
import numpy as np
import pytest
import uproot

from rootparams.host import pagecache
from rootparams.measure.generate import generate_file
from rootparams.study.grid import FilePoint

BRANCHES = ["ElectronsAux.pt", "ElectronsAux.eta", "MuonsAux.pt", "AntiKt4EMTopoJetsAux.pt"]


@pytest.fixture(scope="module")
def split_file(build, tmp_path_factory):
    out = tmp_path_factory.mktemp("uproot") / "susy5_split99.root"
    generate_file(
        FilePoint("susy5", "zlib", 1, -1_000_000, 99, 32000),
        events=600,
        seed=3,
        writer=str(build["writer"]),
        reader=str(build["reader"]),
        output=str(out),
        catalogue=None,
    )
    return out


def read(path, events, branches, *extra) -> tuple[int, dict | None, str]:
    cmd = [
        sys.executable,
        "-m",
        "rootparams.tools.uproot_read",
        "--file",
        str(path),
        "--events",
        str(events),
        "--branches",
        ",".join(branches),
        *extra,
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("ROOTPARAMS_JSON ")]
    return proc.returncode, json.loads(lines[0].split(" ", 1)[1]) if lines else None, proc.stderr


def test_the_read_touches_every_value_and_counts_its_bytes(split_file):
    code, out, err = read(split_file, 500, BRANCHES)
    assert code == 0, err
    tree = uproot.open(split_file)["CollectionTree"]
    direct = sum(
        float(np.sum(ak.to_numpy(ak.flatten(tree[b].array(entry_stop=500), axis=None)), dtype=np.float64))
        for b in BRANCHES
    )
    assert out["values_sum"] == pytest.approx(direct, rel=1e-9)
    assert out["events_read"] == 500 and out["event_rate_hz"] == pytest.approx(500 / out["loop_seconds"])
    assert out["reading_style"] == "uproot" and out["io_counters_source"] == "uproot.source"
    assert out["note_window_is_loop"] and out["note_window_seconds"] == out["loop_seconds"]
    # What uproot asked the file for in the loop: the selected branches' baskets (500 of 600 events), not more.
    assert 0 < out["loop_bytes_read"] <= 1.2 * out["selected_zip_bytes"]
    assert out["open_seconds"] + out["loop_seconds"] == pytest.approx(out["process_seconds"])
    assert out["peak_rss_bytes"] >= out["rss_baseline_bytes"] > 0


def test_a_cold_read_fetches_from_storage_and_a_warm_one_does_not(split_file):
    pagecache.make_cold(str(split_file), system_wide=False)
    assert pagecache.residency(str(split_file)).resident_pages == 0
    code, cold, err = read(split_file, 600, BRANCHES)
    assert code == 0, err
    assert cold["process_storage_read_bytes"] > 0
    code, warm, err = read(split_file, 600, BRANCHES)
    assert code == 0, err
    assert warm["loop_storage_read_bytes"] == 0


def test_errors_name_the_file_and_what_is_valid(split_file, tmp_path):
    code, out, err = read(split_file, 10, ["ElectronsAux.nope"])
    assert code == 2 and out is None and "branch(es) ElectronsAux.nope not in CollectionTree" in err
    code, _, err = read(split_file, 10, BRANCHES, "--tree", "Events")
    assert code == 2 and "no tree or RNTuple 'Events'; it has CollectionTree" in err
    code, _, err = read("root://localhost//tmp/x.root", 10, BRANCHES)
    assert code == 2 and "uproot reads local files only here" in err
    code, _, err = read(split_file, 10_000, BRANCHES)
    assert code == 3 and "has 600 entries, but 10000 were requested" in err
    junk = tmp_path / "junk.root"
    junk.write_bytes(b"not a ROOT file at all" * 100)
    code, _, err = read(junk, 10, BRANCHES)
    assert code == 3 and str(junk) in err
