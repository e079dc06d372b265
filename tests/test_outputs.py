"""What a study's workflow produces (rootparams.present.outputs): the final outputs of the shipped configurations, the
outputs each setting adds, and the wildcard patterns, pinned on config/config.yaml, config/quick.yaml and two
examples (the workflow's dry run lists the same jobs as when these lived in workflow/rules/common.smk)."""

import re

import pytest
import yaml
from conftest import REPO

from rootparams.present import outputs
from rootparams.present.figures import pareto_figure_name
from rootparams.study.config import load_study_config
from rootparams.study.grid import expand_points, sentinel_point
from rootparams.tools import paths

CONFIGS = ["config/config.yaml", "config/quick.yaml", "config/examples/adaptive.yaml"]
REMOTE = "config/examples/model-check-remote.yaml"


def study_of(name):
    study = load_study_config(yaml.safe_load((REPO / name).read_text()))
    return study, expand_points(study)


@pytest.fixture(scope="module", params=[*CONFIGS, REMOTE])
def shipped(request):
    return request.param, *study_of(request.param)


# The outputs per configuration, as the workflow's target rule "all" had them, and four more each since Figures 36
# and 37 (the bulk reads and the offsets) are drawn in every study.
COUNTS = {
    "config/config.yaml": 125,
    "config/quick.yaml": 153,
    "config/examples/adaptive.yaml": 104,
    REMOTE: 105,
}


def test_the_final_outputs_are_pinned_and_distinct(shipped):
    name, study, points = shipped
    final = outputs.final_outputs(study, points)
    assert len(final) == len(set(final)) == COUNTS[name]
    assert final[0] == paths.PROVENANCE and paths.RECOMMENDATIONS in final
    for fmt in outputs._decided_formats(study):
        assert {paths.table1(fmt, ext) for ext in ("csv", "md", "tex")} <= set(final)


def test_primitives_and_warm_reads_bring_the_model(shipped):
    _, study, points = shipped
    final = set(outputs.final_outputs(study, points))
    measurement = study["measurement"]
    assert (paths.STORAGE_PRIMITIVES_TABLE in final) == bool(measurement["primitives"])
    assert (paths.CPU_PRIMITIVES_TABLE in final) == bool(measurement["warm_reads"])
    model = bool(measurement["primitives"] and measurement["warm_reads"])
    assert (paths.MODEL_POINTS_TABLE in final) == model
    if model:
        assert {paths.figure(outputs.parts_figure(f), "pdf") for f in study["formats"]} <= final


def test_a_live_plan_has_its_own_table_and_a_replay_needs_every_point():
    for name, live in [("config/examples/adaptive.yaml", True), ("config/quick.yaml", False)]:
        final = set(outputs.final_outputs(*study_of(name)))
        assert (f"{paths.ADAPTIVE_PLAN_TABLE}.csv" in final) == live
        assert (f"{paths.ADAPTIVE_REPLAY_TABLE}.csv" in final) == (not live)


def test_only_a_study_on_remote_storage_measures_the_remote_primitives():
    assert outputs.remote_primitive_tables(study_of(REMOTE)[0]) == [paths.REMOTE_PRIMITIVES_TABLE]
    for name in CONFIGS:
        study, points = study_of(name)
        assert outputs.remote_primitive_tables(study) == []
        assert paths.REMOTE_PRIMITIVES_TABLE not in outputs.final_outputs(study, points)
    study, points = study_of(REMOTE)
    study["measurement"]["primitives"] = False
    assert outputs.remote_primitive_tables(study) == []
    assert outputs.write_noise_files(study, points) == []


def test_the_decompression_and_the_write_noise_of_the_default_study():
    study, points = study_of("config/config.yaml")
    assert sorted(outputs.unzip_kind_settings(study, points)) == ["susy5", "topq1", "truth3", "xaod"]
    # The write noise writes a longer read of a recipe after the other formats' default files, so not at all.
    written = outputs.write_noise_files(study, points)
    assert [f.format for f in written] == ["xaod", "topq1", "susy5"]


def test_the_wildcard_patterns():
    study, _ = study_of("config/quick.yaml")
    patterns = {k: re.compile(v) for k, v in outputs.wildcard_constraints(study).items()}
    assert patterns["format"].fullmatch("xaod") and not patterns["format"].fullmatch("xaod.pass2")
    # The block wildcard has its own pattern: a format, with or without its pass.
    assert patterns["block"].fullmatch("xaod.pass2") and patterns["block"].fullmatch("truth3")
    assert not patterns["block"].fullmatch("nosuch.pass1")
    assert patterns["file_id"].fullmatch("asis") and patterns["file_id"].fullmatch(
        "zlib-5_af100_split0_basket32000"
    )
    assert patterns["rep"].fullmatch("12") and not patterns["rep"].fullmatch("x")
    assert outputs.formats_pattern(study, "source") == outputs._NOTHING
    assert outputs.generated_formats_pattern(study) == "|".join(study["formats"])
    # The sentinel's file: its names escaped; none without a sentinel.
    fmt, file_id = outputs.sentinel_patterns(sentinel_point(study))
    assert re.fullmatch(fmt, "xaod") and re.fullmatch(file_id, "zlib-5_af100_split0_basket32000")
    assert outputs.sentinel_patterns(None) == (outputs._NOTHING, outputs._NOTHING)


def test_a_longer_read_of_a_recipe_has_no_table1_or_pareto_front_or_decompression_sample_of_its_own():
    # xaod_long, the cache scans' xAOD past the learning phase (formats.is_longer_read), added to the default study
    # as config/examples/bulk-offsets-cache.yaml has it: its base format's Table 1 and decision are the recipe's;
    # its scans' figures are the study's, and the model still draws its parts. Its content kinds are xaod's: no
    # decompression sample of its own (it would be the same recipe written again).
    raw = yaml.safe_load((REPO / "config/config.yaml").read_text())
    steady = yaml.safe_load((REPO / "config/examples/bulk-offsets-cache.yaml").read_text())
    raw["formats"]["xaod_long"] = steady["formats"]["xaod_long"]
    study = load_study_config(raw)
    points = expand_points(study)
    assert "xaod_long" in {p.file.format for p in points}
    assert outputs._decided_formats(study) == ["xaod", "topq1", "susy5", "truth3"]
    assert sorted(outputs.unzip_kind_settings(study, points)) == ["susy5", "topq1", "truth3", "xaod"]
    final = set(outputs.final_outputs(study, points))
    for fmt, decided in [("xaod", True), ("xaod_long", False)]:
        assert ({paths.table1(fmt, ext) for ext in ("csv", "md", "tex")} <= final) == decided
        assert (paths.figure(pareto_figure_name(fmt), "pdf") in final) == decided
    assert paths.figure(outputs.parts_figure("xaod_long"), "pdf") in final
