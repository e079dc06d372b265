"""Config validation: defaults come from the schema, and every violation names key, value and what is valid."""

import copy

import pytest
import yaml
from conftest import REPO
from conftest import config_problems as problems

from rootparams.study.config import load_study_config
from rootparams.vocabulary import PAPER_FILE_DEFAULTS


def test_empty_config_gets_every_default():
    config = load_study_config({})
    assert config["repetitions"] == 10
    assert config["measurement"]["cache_state"] == "cold"
    assert config["measurement"]["monitor"] == "auto"
    assert config["read_defaults"] == {
        "cache_size": -1,
        "learn_entries": "default",
        "cluster_bunch": 1,
        "async_prefetch": False,
        "threads": 1,
        "reading_style": "getentry",
        "unzip": False,
        "branches": "particle",
        "storage_profile": "hdd",
    }
    assert config["file_defaults"]["xaod"] == PAPER_FILE_DEFAULTS["xaod"]


def test_partial_file_defaults_are_completed_per_format():
    config = load_study_config(
        {"formats": {"topq1": {"written": 10, "read": 10}}, "file_defaults": {"topq1": {"level": 9}}}
    )
    assert config["file_defaults"]["topq1"] == {**PAPER_FILE_DEFAULTS["topq1"], "level": 9}


def test_shipped_configs_are_valid():
    for path in [*(REPO / "config").glob("*.yaml"), *(REPO / "tests" / "configs").glob("*.yaml")]:
        load_study_config(yaml.safe_load(path.read_text()))


@pytest.mark.parametrize("extra", ["storage", "rntuple", "per-branch-and-lossy"])
def test_the_configs_said_to_add_to_the_default_study_keep_every_default_point(extra):
    # `--configfile config/config.yaml config/<extra>.yaml`: Snakemake merges the second into the first.
    from snakemake.utils import update_config

    from rootparams.study.grid import expand_points

    def points(raw):
        return {(p.file, p.read) for p in expand_points(load_study_config(raw))}

    default = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    added = yaml.safe_load((REPO / "config" / f"{extra}.yaml").read_text())
    merged = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    update_config(merged, added)
    assert points(default) | points(added) == points(merged)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"repetitons": 3}, ["repetitons", "did you mean 'repetitions'", "valid keys here are"]),
        ({"repetitions": "ten"}, ["repetitions = 'ten'", "must be of type integer"]),
        ({"scans": {"c": {"level": [1, 12]}}}, ["scans.c.level[1] = 12", "from 1 to 9"]),
        ({"scans": {"c": {"algorithm": ["gzip"]}}}, ["scans.c.algorithm[0] = 'gzip'", "'zlib'", "'zstd'"]),
        ({"formats": {"aod": {"written": 1, "read": 2}}}, ["formats", "'aod'", "'xaod'", "'truth3'"]),
        ({"read_defaults": {"threads": 0}}, ["read_defaults.threads = 0", "at least 1"]),
        (
            {"scans": {"r": {"storage_profile": ["xrootd-moon"]}}},
            ["'xrootd-moon'", "'xrootd-wan'", "storage_profiles"],
        ),
        (
            {"scans": {"r": {"container": ["ttree", "rntuple"], "async_prefetch": [True]}}},
            ["scans.r.async_prefetch is a ttree setting", "cluster cache"],
        ),
        ({"measurement": {"storage_profiles": {"sat": {"rtt_ms": 600, "read_bps": 10000}}}}, ["sat"]),
        ({"file_defaults": {"xaod": {"autoflush": 2.5}}}, ["file_defaults.xaod.autoflush = 2.5", "integer"]),
        ({"formats": {"xaod": {"written": 0, "read": 2}}}, ["formats.xaod.written = 0", "at least 1"]),
        (
            {"formats": {"xaod": {"written": 10, "read": 20}}},
            ["formats.xaod.read = 20", "more events than are written"],
        ),
        ({"repetitions": 1}, ["repetitions = 1", "at least 2", "require_sigma: false"]),
        (
            {"measurement": {"adaptive": True, "warm_reads": 0, "primitives": False}},
            ["measurement.adaptive = true needs", "primitives: true", "warm_reads of at least 1"],
        ),
        (
            {"measurement": {"storage_primitives": {"repetitions": 1}}},
            ["measurement.storage_primitives.repetitions = 1", "from 2 to 20"],
        ),
        (
            {"measurement": {"storage_primitives": {"runtime": 0.5}}},
            ["measurement.storage_primitives", "'runtime'", "did you mean 'runtime_seconds'"],
        ),
        ({"read_defaults": {"learn_entries": "often"}}, ["learn_entries = 'often'", "'default'", "integer"]),
        ({"data_dir": "../elsewhere"}, ["data_dir = '../elsewhere'", ".."]),
        ({"data_dir": "results/data"}, ["data_dir", "separate from results/"]),
        ({"measurement": {"monitor": "top"}}, ["measurement.monitor = 'top'", "'dool'", "'none'"]),
        ({"formats": {"xaod": {"written": 10, "read": -5}}}, ["formats.xaod.read = -5", "at least 2"]),
        ({"scans": {"c": {"autoflush": ["10MB"]}}}, ["scans.c.autoflush[0] = '10MB'", "integer"]),
        ({"scans": {"c": {"threads": [0, 2]}}}, ["scans.c.threads[0] = 0", "at least 1"]),
        ({"read_defaults": {"storage_profile": "tape"}}, ["read_defaults.storage_profile = 'tape'", "'hdd'"]),
        ({"scans": {"c": {"branches": ["list:a;rm -rf /"]}}}, ["scans.c.branches[0]", "list:<a>,<b>"]),
        ({"scans": {"../x": {"level": [1]}}}, ["scans", "'../x'", "must match"]),
        (
            {"measurement": {"storage_profiles": {"Bad Name": {"read_bps": 5000}}}},
            ["'Bad Name'", "must match"],
        ),
    ],
)
def test_invalid_values_name_key_value_and_what_is_valid(raw, expected):
    text = "\n".join(problems(raw))
    for piece in expected:
        assert piece in text, f"{piece!r} missing from:\n{text}"


def test_all_problems_are_reported_at_once():
    found = problems({"repetitions": 0, "seed": -1, "formats": {"xaod": {"written": 1, "read": 1}}})
    assert len(found) == 3  # repetitions, seed, and read < 2


def test_loader_does_not_modify_its_input():
    raw = {"formats": {"xaod": {"written": 10, "read": 10}}}
    before = copy.deepcopy(raw)
    load_study_config(raw)
    assert raw == before


def test_every_user_error_is_one_family_and_printed_without_a_traceback(tmp_path, capsys):
    """snakescript.run_logged prints any UserError as a message (no traceback) and exits 1."""
    import types

    from rootparams import vocabulary
    from rootparams.errors import UserError
    from rootparams.host import monitor, pagecache, storage
    from rootparams.measure import generate
    from rootparams.results import aggregate
    from rootparams.study import config, footprint
    from rootparams.tools import build, processes, rootenv
    from rootparams.tools.snakescript import run_logged

    family = [
        aggregate.OverlapError,
        build.BuildError,
        config.ConfigError,
        footprint.DiskSpaceError,
        monitor.MonitorError,
        monitor.MonitorCSVError,
        processes.ToolError,
        processes.DamagedFileError,
        pagecache.EvictionError,
        rootenv.RootNotFound,
        storage.StorageProfileError,
        vocabulary.CompressionSettingError,
        generate.BranchCompressionError,
    ]
    assert all(issubclass(e, UserError) for e in family)
    smk = types.SimpleNamespace(log=[str(tmp_path / "job.log")], rule="r", wildcards={})

    def fail(_):
        raise monitor.MonitorCSVError("x.csv: no header rows found")

    with pytest.raises(SystemExit):
        run_logged(smk, fail)
    log = (tmp_path / "job.log").read_text()
    assert "error in rule r ({}): x.csv: no header rows found" in log and "Traceback" not in log


def test_settings_without_meaning_for_a_container_are_refused_with_their_counterpart():
    base = {"formats": {"xaod": {"written": 10, "read": 10}}}
    found = problems({**base, "scans": {"s": {"container": ["ttree", "rntuple"], "split_level": [0, 99]}}})
    assert len(found) == 1 and "scans.s.split_level is a ttree setting" in found[0]
    assert "RNTuple has no split level" in found[0] and "container: [ttree]" in found[0]
    found = problems(
        {**base, "scans": {"p": {"page_size": [65536]}}}
    )  # the format's default container: ttree
    assert "scans.p.page_size is a rntuple setting" in found[0] and "basket_size" in found[0]
    found = problems({**base, "scans": {"c": {"container": ["rntuple"], "cache_size": [0, 2000000, -1]}}})
    assert "no size, only 0 (off) and -1 (on)" in found[0] and "[2000000]" in found[0]
    # A format stored as RNTuple by default: its scans are RNTuple scans.
    rntuple_default = {**base, "file_defaults": {"xaod": {"container": "rntuple"}}}
    assert (
        "learn_entries is a ttree setting"
        in problems({**rntuple_default, "scans": {"l": {"learn_entries": [0]}}})[0]
    )
    ok = load_study_config(
        {
            **base,
            "scans": {
                "r": {
                    "container": ["rntuple"],
                    "page_size": [65536],
                    "cache_size": [0, -1],
                    "cluster_bunch": [1, 4],
                }
            },
        }
    )
    assert ok["file_defaults"]["xaod"]["page_size"] == 1048576


# ---- The seeds' studies (issue #16): reading styles, parallel unzip, per-format scans, event sizes -------------


def test_columnar_reading_styles_need_a_variable_selection():
    found = problems(
        {
            "formats": {"susy5": {"written": 100, "read": 100}},
            "scans": {"styles": {"reading_style": ["getentry", "uproot", "rdataframe"]}},
        }
    )
    assert len(found) == 2
    assert all("'particle' selects whole container objects" in p and "(scans: styles)" in p for p in found)
    assert any("reading_style uproot" in p for p in found) and any(
        "reading_style rdataframe" in p for p in found
    )
    ok = {
        "formats": {"susy5": {"written": 100, "read": 100}},
        "scans": {
            "styles": {
                "reading_style": ["getentry", "uproot", "rdataframe"],
                "branches": ["analysis", "sparse"],
            }
        },
    }
    load_study_config(ok)


def test_rdataframe_reads_ttrees_only_and_uproot_local_files_only():
    found = problems(
        {
            "formats": {"susy5": {"written": 100, "read": 100}},
            "read_defaults": {"branches": "analysis"},
            "scans": {
                "styles": {"reading_style": ["rdataframe"], "container": ["ttree", "rntuple"]},
                "far": {"reading_style": ["uproot"], "storage_profile": ["native", "xrootd-wan"]},
            },
        }
    )
    assert any("reading_style rdataframe reads TTrees only" in p for p in found)
    assert any("uproot reads local files only" in p and "'xrootd-wan'" in p for p in found)
    assert len(found) == 2


def test_parallel_unzip_needs_the_ttree_cache_and_a_ttree():
    found = problems(
        {
            "formats": {"susy5": {"written": 100, "read": 100}},
            "scans": {"unzip": {"unzip": [False, True], "cache_size": [0, -1]}},
        }
    )
    assert found == [
        "format susy5: unzip needs the TTreeCache (TTreeCacheUnzip is one): cache_size 0 switches it off "
        "(scans: unzip)"
    ]
    found = problems(
        {
            "formats": {"susy5": {"written": 100, "read": 100}},
            "scans": {"unzip": {"unzip": [True], "container": ["ttree", "rntuple"]}},
        }
    )
    assert any("scans.unzip.unzip is a ttree setting" in p for p in found)


def test_a_format_can_keep_to_scans_of_its_own():
    from rootparams.study.grid import expand_points

    config = load_study_config(
        {
            "formats": {
                "susy5": {"written": 100, "read": 100},
                "truth3": {"written": 100, "read": 100, "scans": ["compression"]},
            },
            "scans": {"compression": {"algorithm": ["lz4", "zlib"]}, "split": {"split_level": [0, 99]}},
        }
    )
    scans = {(p.file.format, s) for p in expand_points(config) for s in p.scans}
    assert ("truth3", "compression") in scans and ("truth3", "split") not in scans
    assert ("susy5", "split") in scans
    found = problems(
        {
            "formats": {"truth3": {"written": 100, "read": 100, "scans": ["compresion"]}},
            "scans": {"compression": {"algorithm": ["lz4"]}},
        }
    )
    assert found == [
        "formats.truth3.scans contains 'compresion', which is not a scan of this study; its scans are "
        "compression; did you mean 'compression'?"
    ]


def test_event_size_study_adds_one_format_per_size_with_the_same_volume():
    from rootparams.study.formats import eventsize_events, eventsize_name
    from rootparams.study.grid import expand_points

    config = load_study_config(
        {
            "formats": {"susy5": {"written": 100, "read": 100}},
            "event_size": {"event_bytes": [40, 4000], "volume_bytes": 4_000_000},
            "scans": {
                "event_size": {"reading_style": ["getentry", "uproot"]},
                "split": {"split_level": [0, 99]},
            },
        }
    )
    names = [eventsize_name(40), eventsize_name(4000)]
    for size, name in zip((40, 4000), names, strict=True):
        entry = config["formats"][name]
        assert entry["written"] == entry["read"] == eventsize_events(size, 4_000_000)
        assert entry["branches"] == "all" and entry["scans"] == ["event_size"]
    points = expand_points(config)
    styles = {(p.file.format, p.read.reading_style) for p in points if "event_size" in p.scans}
    assert styles == {(n, s) for n in names for s in ("getentry", "uproot")}
    assert not any(p.file.format in names and "split" in p.scans for p in points)
    assert problems({"event_size": {"event_bytes": [40]}, "scans": {}}) == [
        "event_size is given but scans.event_size is not: add it to say what is varied over the event sizes, e.g. "
        "scans: {event_size: {reading_style: [getentry, rdataframe, uproot]}}"
    ]


def test_a_scans_own_shorter_loops_judge_its_own_artifacts_only():
    from rootparams.results.aggregate import window_rule

    raw = {
        "formats": {"susy5": {"written": 100, "read": 100}},
        "scans": {"access": {"branches": ["all", "sparse"]}, "split": {"split_level": [0, 99]}},
        "measurement": {
            "window_by_scan": {"access": {"min_window_seconds": 0.05, "min_window_io_share": 0.8}}
        },
    }
    measurement = load_study_config(raw)["measurement"]
    assert window_rule(measurement, ("access",)) == {"min_window_seconds": 0.05, "min_window_io_share": 0.8}
    # An artifact that also draws another scan (or the whole study: Table 1, the fronts, the cost model) is strict.
    assert window_rule(measurement, ("access", "split")) == {
        "min_window_seconds": 1.0,
        "min_window_io_share": 0.9,
    }
    assert window_rule(measurement, ("split",)) == {"min_window_seconds": 1.0, "min_window_io_share": 0.9}
    assert window_rule(measurement) == {"min_window_seconds": 1.0, "min_window_io_share": 0.9}
    raw["measurement"]["window_by_scan"] = {"acess": {"min_window_seconds": 0.05}}
    assert problems(raw) == [
        "measurement.window_by_scan.acess: not a scan of this study; its scans are access, split"
    ]
