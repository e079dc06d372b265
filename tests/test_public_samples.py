"""Public samples named skhep_testdata:<name> in a config (rootparams.ownfile.sources.resolve_path): resolved to the
scikit-hep-testdata package's cached file before any job, with an error that says what to do when it is not
there. The cache is a temporary one, seeded from the offline mirror of shared/data as ./run seeds the real one
(no test downloads anything)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import yaml
from conftest import REPO, SHARED_DATA, require

from rootparams.ownfile.sources import (
    OFFLINE_MIRROR_NAMES,
    SourceError,
    resolve_path,
    seed_public_sample_cache,
)
from rootparams.study.config import ConfigError, load_study_config, source_of

PHYSLITE = "skhep_testdata:uproot-issue-123b.root"


@pytest.fixture(autouse=True)
def _package_and_mirror():
    require(importlib.util.find_spec("skhep_testdata") is not None, "the scikit-hep-testdata package")
    require(
        all((SHARED_DATA / name).is_file() for name in OFFLINE_MIRROR_NAMES),
        f"the offline mirror of the public samples in {SHARED_DATA}",
    )


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    """A home of its own, so that scikit-hep-testdata's default cache (~/.local/skhepdata) is a temporary one."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return tmp_path / "home"


@pytest.fixture
def no_download(monkeypatch):
    """Any download scikit-hep-testdata tries fails at once, as on a machine without the internet."""
    import requests
    from skhep_testdata import local_files

    def refuse(url, **kwargs):
        raise requests.ConnectionError(f"no network in this test ({url})")

    monkeypatch.setattr(local_files.requests, "get", refuse)


def test_a_public_sample_resolves_to_the_file_in_a_seeded_cache(tmp_path, no_download):
    cache = tmp_path / "cache"
    assert sorted(seed_public_sample_cache(SHARED_DATA, cache)) == sorted(OFFLINE_MIRROR_NAMES.values())
    # The cache has them now: nothing is copied again.
    assert seed_public_sample_cache(SHARED_DATA, cache) == []
    path = resolve_path(PHYSLITE, cache_dir=cache)
    assert path == str(cache / "uproot-issue-123b.root")
    assert Path(path).read_bytes() == (SHARED_DATA / "atlas_physlite_run2_ttbar_100ev.root").read_bytes()
    assert not list(cache.glob(".*.partial"))
    # A path is not a public sample: it is returned as it is.
    assert resolve_path("../data/my.root", cache_dir=cache) == "../data/my.root"


def test_a_config_naming_a_public_sample_loads_with_the_local_file(home, no_download):
    seed_public_sample_cache(SHARED_DATA)  # the default cache, under the test's home
    config = load_study_config({"formats": {"physlite": {"source": PHYSLITE, "read": 10}}})
    local = home / ".local" / "skhepdata" / "uproot-issue-123b.root"
    assert config["formats"]["physlite"]["source"] == str(local)
    found = source_of(config, "physlite")
    assert (found.tree, found.entries, found.algorithm_level) == ("CollectionTree", 100, ("zlib", 5))


def test_the_own_file_example_config_works_from_the_cache(home, no_download):
    seed_public_sample_cache(SHARED_DATA)
    raw = yaml.safe_load((REPO / "config" / "examples" / "own-file.yaml").read_text())
    named = {entry.get("source") or entry.get("calibrate") for entry in raw["formats"].values()} - {None}
    assert named == {f"skhep_testdata:{name}" for name in OFFLINE_MIRROR_NAMES.values()}
    config = load_study_config(raw)
    cache = home / ".local" / "skhepdata"
    for fmt in ("cms_nanoaod", "physlite", "physlite_rntuple", "nanoaod_clone", "physlite_clone"):
        assert Path(source_of(config, fmt).path).parent == cache


def test_a_sample_missing_from_the_cache_says_it_needs_the_internet_once_or_a_copy(tmp_path, no_download):
    cache = tmp_path / "empty"
    with pytest.raises(SourceError) as info:
        resolve_path(PHYSLITE, cache_dir=cache)
    message = str(info.value)
    assert message.startswith(f"{PHYSLITE}: uproot-issue-123b.root is not in scikit-hep-testdata's cache")
    assert "ConnectionError" in message
    assert (
        f"needs the internet once, or a copy of the file in {cache} named uproot-issue-123b.root" in message
    )


def test_a_config_error_names_the_format_key_and_the_file(home, no_download):
    with pytest.raises(ConfigError) as info:
        load_study_config({"formats": {"physlite": {"source": PHYSLITE, "read": 10}}})
    (problem,) = info.value.problems
    assert problem.startswith(f"formats.physlite.source: {PHYSLITE}: uproot-issue-123b.root is not in")
    assert "needs the internet once" in problem


def test_an_unknown_name_suggests_the_close_one(tmp_path):
    with pytest.raises(
        SourceError, match=r"has no file 'uproot-issue-123.root'.*did you mean skhep_testdata:"
    ):
        resolve_path("skhep_testdata:uproot-issue-123.root", cache_dir=tmp_path)
