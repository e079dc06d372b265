"""What a block measures: its plan (every point with the files its reads need), the measurement settings it is
given, the repetitions it plans of each point, and which of its points still have reads to take.

A block is the points of one format in one pass (rootparams.study.blocks). Its measuring job (workflow/rules/measure.smk)
gets these as parameters, so that a change of what a block measures reruns it and nothing else: its settings hold
only the study's storage profiles it reads on, and with measurement.adaptive only the part of the study its
decision reads. Every function takes the loaded study configuration (rootparams.study.config) and grid points
(rootparams.study.grid); only ``chosen_before`` and ``points_to_measure`` read records on disk.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from rootparams.decide import adaptive
from rootparams.measure.measure import needs_measuring, plan_point, reads_measurement
from rootparams.study import blocks, studyfiles
from rootparams.study.formats import is_longer_read
from rootparams.tools import paths
from rootparams.tools.records import read_json


def _is_adaptive(study: Mapping[str, Any]) -> bool:
    """Whether the study measures only where the decision needs it (measurement.adaptive; rootparams.decide.adaptive)."""
    return bool(study["measurement"]["adaptive"])


def _is_planned(study: Mapping[str, Any], block: str) -> bool:
    """Whether measurement.adaptive plans the block: the blocks of the formats with a decision of their own. A
    longer read of another format's recipe (xaod_long, the cache scans' xAOD: formats.is_longer_read) has none, so
    its points are measured in full, as without the plan (adaptive.planned_repetitions: no candidate of the cost
    model)."""
    return _is_adaptive(study) and not is_longer_read(blocks.format_of(block))


def plan_entry(study: Mapping[str, Any], point: Any) -> dict[str, Any]:
    """A point as a block's plan names it: its file and read, the file it reads and its catalogue entry, its
    format's warm-up file, the tree a source's points read, the events read; with measurement.adaptive, its
    scans (the anchors are the points of the default scan)."""
    fmt = point.file.format
    return {
        "file": point.file,
        "read": point.read,
        "root": studyfiles.point_root_file(study, fmt, point.file.id),
        "catalogue": paths.catalogue_entry(fmt, point.file.id),
        "warmup": studyfiles.warmup_file(study, fmt),
        "tree": studyfiles.tree_name(study, fmt),
        "events": study["formats"][fmt]["read"],
        **({"scans": list(point.scans)} if _is_adaptive(study) else {}),
    }


def chosen_before(study: Mapping[str, Any], block: str) -> set[tuple]:
    """measurement.adaptive: the candidates the block's plan chose in an earlier run, from its record (read
    before the job replaces it), so that a rerun plans their repetitions from the start; none before its first
    run, and none read for a study that is not adaptive."""
    if not _is_adaptive(study):
        return set()
    record = Path(paths.block_record(blocks.format_of(block)))
    return adaptive.chosen_before(read_json(record) if record.exists() else None)


def planned_repetitions(study: Mapping[str, Any], point: Any, chosen: set[tuple]) -> int:
    """The repetitions a point's plan names: the study's, or with measurement.adaptive fewer for a candidate the
    plan has not chosen (``chosen``: chosen_before of its block). A pass measures its own share of them
    (blocks.block_repetitions)."""
    if not _is_adaptive(study):
        return study["repetitions"]
    entry = {
        **asdict(point.file),
        **asdict(point.read),
        "file_id": point.file.id,
        "read_id": point.read.id,
    }
    return adaptive.planned_repetitions(entry, point.scans, study, chosen)


def block_measurement(
    study: Mapping[str, Any],
    block: str,
    points: Sequence[Any],
    sentinel: Any | None,
    total_passes: int,
    chosen: set[tuple] = frozenset(),
) -> dict[str, Any]:
    """The measurement settings a block's job is given (``points``: the block's; ``sentinel``: the drift
    sentinel's point or None; ``chosen``: chosen_before of the block, used with measurement.adaptive only).

    Only the study's own storage profiles this block reads on are kept: redefining a profile reruns the blocks
    that use it, and in them re-measures the points on it (measure.measurement_key). The warm reads and the
    sequential rounds are the last pass's. In a block the plan measures (is_planned), the plan decides what to
    measure in full (no sequential rounds), and the settings carry what the block's plan needs besides its points:
    of the study only what the block's decision reads, so that a change elsewhere (another format, a figure) does
    not run the block again, and the candidates an earlier run chose. Without it, no "adaptive" key at all: a
    study that is not adaptive passes its blocks the settings it always did, and they do not run again; nor does
    a block of a longer read of another format's recipe (xaod_long), which is measured as without the plan."""
    used = {p.read.storage_profile for p in [*points, *([sentinel] if sentinel else [])]}
    own = study["measurement"]["storage_profiles"]
    measurement = {
        **reads_measurement(study["measurement"]),
        "storage_profiles": {name: own[name] for name in own if name in used},
    }
    if not blocks.is_last_pass(block, total_passes):
        measurement.update(warm_reads=0, target_half_width=None)
    planned = _is_planned(study, block)
    if planned:
        measurement["target_half_width"] = None
    del measurement["adaptive"]
    if planned:
        fmt = blocks.format_of(block)
        measurement["adaptive"] = {
            "study": {
                "formats": {fmt: study["formats"][fmt]},
                "file_defaults": {fmt: study["file_defaults"][fmt]},
                "read_defaults": study["read_defaults"],
                "cost": study["cost"],
                "repetitions": study["repetitions"],
                "measurement": dict(measurement),
            },
            "chosen": sorted(chosen),
        }
    return measurement


def points_to_measure(
    study: Mapping[str, Any],
    points: Sequence[Any],
    sentinel: Any | None,
    measurement: Mapping[str, Any],
    repetitions: Sequence[int],
    chosen: set[tuple] = frozenset(),
) -> list[Any]:
    """A block's points that still have reads to take (measure.needs_measuring), judged on the catalogue entries
    and records on disk now (``measurement``: block_measurement's; ``repetitions``: the block's repetition
    numbers). A point measured before needs neither its file nor its catalogue written again, so that adding a
    scan to a finished study writes and measures only the new points; a rewrite ROOT refused has nothing to read.
    In a block the plan measures (its ``measurement`` carries the plan's "adaptive" settings: is_planned) the plan
    may choose any candidate of the block: every readable point is needed while it runs. The sentinel is read
    only in a block that measures something."""
    todo, readable = [], []
    for point in points:
        entry = plan_entry(study, point)
        if not Path(entry["catalogue"]).exists():
            todo.append(point)
            readable.append(point)
            continue
        if read_json(entry["catalogue"]).get("refused"):
            continue
        readable.append(point)
        planned = planned_repetitions(study, point, chosen)
        if needs_measuring(plan_point(entry, measurement, planned, repetitions), measurement):
            todo.append(point)
    # The block's job plans exactly when its settings carry "adaptive" (workflow/scripts/measure_block.py).
    if "adaptive" in measurement and todo:
        todo = readable
    return todo + ([sentinel] if todo and sentinel else [])


class StudyBlocks:
    """A study's blocks (rootparams.study.blocks) and, per block name, what its measuring job needs: the questions
    the workflow's rule measure_block asks, each answered once (the records they read do not change while the
    workflow builds its jobs)."""

    def __init__(self, study: Mapping[str, Any], points: Sequence[Any], sentinel: Any | None):
        self.study, self.points, self.sentinel = study, list(points), sentinel
        self.passes = blocks.passes(study["measurement"], study["repetitions"])
        self.blocks = blocks.study_blocks(study, self.points, self.passes)
        self._chosen: dict[str, set[tuple]] = {}
        self._to_measure: dict[str, list[Any]] = {}

    def records(self) -> list[str]:
        """Every block's record, in the order the blocks run."""
        return [paths.block_record(block) for block in self.blocks]

    def chosen(self, block: str) -> set[tuple]:
        """chosen_before, read once per block."""
        if block not in self._chosen:
            self._chosen[block] = chosen_before(self.study, block)
        return self._chosen[block]

    def measurement(self, block: str) -> dict[str, Any]:
        """The block's measurement settings (block_measurement)."""
        return block_measurement(
            self.study, block, self.blocks[block], self.sentinel, self.passes, self.chosen(block)
        )

    def plan(self, block: str) -> list[dict[str, Any]]:
        """Every point of the block, with its files, catalogue entry and events (plan_entry)."""
        return [plan_entry(self.study, p) for p in self.blocks[block]]

    def sentinel_plan(self, block: str) -> dict[str, Any] | None:
        """The drift sentinel's plan entry, the same in every block; None without a sentinel."""
        return plan_entry(self.study, self.sentinel) if self.sentinel else None

    def repetitions(self, block: str) -> list[int]:
        """The repetition numbers the block (a pass) takes of each point."""
        return blocks.block_repetitions(self.study["repetitions"], block, self.passes)

    def pairs(self, block: str) -> list[tuple[int, int]]:
        """The pairs of points whose ratio the sequential rounds measure until resolved (blocks.level_pairs)."""
        return blocks.level_pairs(self.blocks[block])

    def earlier(self, block: str) -> list[str]:
        """The records of the blocks this one waits for: the previous pass of every format."""
        formats = blocks.measured_formats(self.study, self.points)
        return [paths.block_record(b) for b in blocks.earlier_blocks(block, formats, self.passes)]

    def to_measure(self, block: str) -> list[Any]:
        """The block's points that still have reads to take, and the sentinel if any (points_to_measure)."""
        if block not in self._to_measure:
            self._to_measure[block] = points_to_measure(
                self.study,
                self.blocks[block],
                self.sentinel,
                self.measurement(block),
                self.repetitions(block),
                self.chosen(block),
            )
        return self._to_measure[block]

    def root_files(self, block: str) -> list[str]:
        """The files of the points still to measure, and the sentinel's (kept until the last block has read
        it): the block's inputs, so that a finished point needs no file written again."""
        points = self.to_measure(block)
        return sorted({studyfiles.point_root_file(self.study, p.file.format, p.file.id) for p in points})

    def catalogues(self, block: str) -> list[str]:
        """Every point's catalogue entry and the sentinel's (they are never removed): the plan's identities come
        from them."""
        points = [*self.blocks[block], *([self.sentinel] if self.sentinel else [])]
        return sorted({paths.catalogue_entry(p.file.format, p.file.id) for p in points})

    def storage_primitives(self, block: str) -> list[str]:
        """The storage primitives' table, which an adaptive plan predicts from; none for any other block."""
        return [paths.STORAGE_PRIMITIVES_TABLE] if _is_adaptive(self.study) else []

    def warmup_files(self, block: str) -> list[str]:
        """The format's warm-up file, read only after the paper's drop_caches (measurement.eviction: system)."""
        if self.study["measurement"]["eviction"] != "system":
            return []
        return [studyfiles.warmup_file(self.study, blocks.format_of(block))]
