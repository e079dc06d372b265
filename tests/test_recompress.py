"""rootparams-recompress (rootparams.tools.recompress): a file's baskets (pages) at another compression without its classes'
dictionaries, tiled N times, checked; against ROOT's own recompression (hadd -f<N>) where ROOT can make one."""

import functools
import subprocess

import pytest
import uproot
from conftest import REPO, side_by_side

from rootparams.tools import rootenv
from rootparams.tools.recompress import RecompressError, recompress_file

DATA = REPO.parent / "shared" / "data"
PHYSLITE = DATA / "atlas_physlite_run2_ttbar_100ev.root"  # xAOD classes without a dictionary here
PHYSLITE_RNTUPLE = DATA / "atlas_physlite_rntuple_100ev.root"  # likewise, and columns added after entry 0
NANOAOD = DATA / "cms_nanoaod_2015_ttbar_200ev.root"  # baskets kept inside the TTree object
BACON = DATA / "cms_bacon_ntuple_10ev.root"  # TClonesArrays of classes without a dictionary


def _recompress(build, source, tree, out, compression, copies=1, **kw):
    return recompress_file(
        source, tree=tree, output=out, compression=compression, copies=copies,
        recompressor=str(build["recompressor"]), reader=str(build["reader"]), **kw,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("source", "tree", "selection"),
    [(PHYSLITE, "CollectionTree", "particle"), (BACON, "Events", "all"), (NANOAOD, "Events", "all")],
    ids=["physlite", "bacon", "nanoaod"],
)
def test_a_tree_without_dictionaries_is_recompressed_and_tiled_on_its_own_bytes(build, tmp_path, source, tree,
                                                                                 selection):  # fmt: skip
    """Every basket's uncompressed bytes are the source's (the tool's check, through ROOT's reading code), ROOT's
    reader finds the entries, branches, classes and particle containers, uproot reads the same values."""
    out, keep = tmp_path / "zstd.root", tmp_path / "keep.root"
    # The tiled recompression and the file as it is (checked below) are made side by side.
    result, kept = side_by_side(
        functools.partial(_recompress, build, source, tree, out, 505, copies=3, selections=[selection]),
        functools.partial(_recompress, build, source, tree, keep, None, selections=[selection]),
    )
    w = result["written"]
    source_entries = uproot.open(source)[tree].num_entries
    assert w["verified"] and w["mismatch_count"] == 0 and w["entries"] == 3 * source_entries
    assert (
        w["baskets_compared"] > 0 and w["baskets_compared_stored"] > 0
    )  # the middle copy by its stored bytes
    assert w["streamer_infos_missing"] == [] and w["clusters"] == 3 * w["source_clusters"]
    assert result["check"]["problems"] == [] and result["inspected"]["entries"] == 3 * source_entries
    assert result["uproot"]["compared"] > 0 and result["uproot"]["differing"] == []
    with uproot.open(out) as f:
        assert f.file.fCompress == 505 and f[tree].num_entries == 3 * source_entries
    # The source is never touched, and a file written at its own setting, as it is, holds the same baskets.
    assert kept["written"]["mode"] == "keep" and kept["written"]["verified"]


def test_an_rntuple_without_dictionaries_is_recompressed_and_tiled(build, tmp_path):
    """The PHYSLITE RNTuple: ROOT's RNTupleMerger (hadd) aborts on its classes; its pages are recompressed here,
    and its deferred columns get the zero pages a later copy needs (RNTupleMerger's rule)."""
    out = tmp_path / "lz4.root"
    result = _recompress(build, PHYSLITE_RNTUPLE, "EventData", out, 404, copies=3, uproot_branches=None)
    w = result["written"]
    assert w["container"] == "rntuple" and w["verified"] and w["entries"] == 300 and w["clusters"] == 3
    assert w["zero_pages_written"] > 0 and w["pages_compared_stored"] > 0
    # uproot refuses a column whose elements do not add up to the entries: every field reads, with the source's values.
    assert result["uproot"]["differing"] == [] and result["uproot"]["compared"] == 854


def test_the_sizes_agree_with_roots_own_recompression(build, tmp_path):
    """Where ROOT's own recompression works (hadd on the CMS NanoAOD sample), the sizes agree within 0.5 %."""
    hadd = str(rootenv.bin_path("hadd"))
    settings = (505, 101)
    ours = {s: tmp_path / f"ours_{s}.root" for s in settings}
    theirs = {s: tmp_path / f"hadd_{s}.root" for s in settings}

    def recompress(setting: int) -> None:
        _recompress(build, NANOAOD, "Events", ours[setting], setting)

    def run_hadd(setting: int) -> None:
        cmd = [hadd, f"-f{setting}", str(theirs[setting]), str(NANOAOD)]
        subprocess.run(cmd, check=True, capture_output=True)

    # Ours and hadd's at each setting side by side (each writes its own file from the unchanged source): our
    # recompression's uproot check runs in this process, hadd in its own.
    side_by_side(*(functools.partial(make, s) for s in settings for make in (recompress, run_hadd)))
    for setting in settings:
        assert abs(ours[setting].stat().st_size / theirs[setting].stat().st_size - 1) < 0.005, setting


def test_a_file_that_cannot_be_recompressed_is_a_clear_error(build, tmp_path):
    with pytest.raises(RecompressError, match="no such file"):
        _recompress(build, tmp_path / "nope.root", "Events", tmp_path / "o.root", 505)
    with pytest.raises(RecompressError, match=r"has no TTree named 'Nope'; its top-level keys are: Events"):
        _recompress(build, NANOAOD, "Nope", tmp_path / "o.root", 505)
    with pytest.raises(RecompressError, match="--compression 606: must be 0"):
        _recompress(build, NANOAOD, "Events", tmp_path / "o.root", 606)
    assert not (tmp_path / "o.root").exists() and not list(tmp_path.glob(".*.partial"))
