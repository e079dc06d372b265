"""Comparisons of measured points, paired by round where they can be (the statistics: rootparams.stats.intervals).

The points of one block (a format) are measured in interleaved rounds: repetition k of every point before
repetition k+1 of any (rootparams.measure.measure). Each repetition's record carries its round's key (``round_key``: the
block, the measuring job and the round), so two points' repetitions of the same round were taken minutes apart at
most, under the same state of the host. ``Repetitions.ratio`` pairs them; points that share fewer than
``intervals.MIN_PAIRS`` rounds (other blocks, a resumed block, records from before the rounds) are compared unpaired,
from their means, spreads and n, and the ratio says which (``Ratio.paired``).

A point's repetitions may be spread over several measuring jobs of its block (``measurement.passes``: the study
measures every format once, then again), each a *pass* at another time; the round key names its job
(``pass_of``). ``Repetitions.interval`` gives a mean's interval with the host's variance between passes
(``intervals.HostVariance``, pooled over the study's points of each metric), ``run_interval`` the repetitions' own.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from rootparams.stats.intervals import MIN_PAIRS, HostVariance, Interval, Ratio, ratio_paired, ratio_unpaired

POINT_ID = ["format", "file_id", "read_id"]


def point_key(row: Mapping[str, Any]) -> tuple[str, str, str]:
    return (str(row["format"]), str(row["file_id"]), str(row["read_id"]))


def _pass_of(round_key: Any) -> str:
    """The measuring job a repetition was taken in, from its round key ("<block>@<job start>/r<round>"): one pass
    of its point. Records without a round key (taken in sequential order) are one pass."""
    if not isinstance(round_key, str) or "/r" not in round_key:
        return ""
    return round_key.rsplit("/r", 1)[0]


class Repetitions:
    """The unflagged repetitions of every point, by round: what intervals and paired comparisons need.
    Built from repetitions.csv (``read``) or from a table of records; without one (None), every comparison is
    unpaired, from the summary's columns."""

    def __init__(self, table: pd.DataFrame | None = None):
        self._values: dict[tuple[str, str, str], pd.DataFrame] = {}
        # A point's values by metric, made once: the Pareto fronts ask for them many times.
        self._cache: dict[tuple[tuple[str, str, str], str], pd.Series] = {}
        self._host: dict[str, HostVariance] = {}
        if table is None or table.empty:
            return
        table = table[~table["flagged"].map(_true)] if "flagged" in table else table
        if "round_key" not in table:
            table = table.assign(round_key=None)
        for key, group in table.groupby(POINT_ID, sort=False):
            self._values[tuple(map(str, key))] = group

    @classmethod
    def read(cls, path: str | Path, metrics: Iterable[str] = ()) -> Repetitions:
        """repetitions.csv, only the columns needed (it is wide)."""
        wanted = {*POINT_ID, "round_key", "flagged", "rep", *metrics}
        return cls(pd.read_csv(path, usecols=lambda c: c in wanted or not metrics))

    def relative_spreads(self, metric: str, least: int = 3) -> list[float]:
        """Per point with at least ``least`` unflagged values of ``metric``: their sample σ over their mean (the
        repeat noise of one measurement of it)."""
        out = []
        for group in self._values.values():
            if metric not in group:
                continue
            values = pd.to_numeric(group[metric], errors="coerce").dropna()
            if len(values) >= least and values.mean() > 0:
                out.append(float(values.std(ddof=1) / values.mean()))
        return out

    def values(self, row: Mapping[str, Any], metric: str) -> pd.Series:
        """The point's unflagged values of ``metric``, indexed by round key (NaN-free)."""
        key = (point_key(row), metric)
        if key not in self._cache:
            group = self._values.get(key[0])
            if group is None or metric not in group:
                self._cache[key] = pd.Series(dtype=float)
            else:
                values = pd.to_numeric(group[metric], errors="coerce")
                keys = group["round_key"].where(group["round_key"].notna(), None)
                out = pd.Series(values.to_numpy(), index=list(keys))
                self._cache[key] = out[out.notna()]
        return self._cache[key]

    def values_by_pass(self, row: Mapping[str, Any], metric: str) -> list[list[float]]:
        """The point's unflagged values of ``metric``, grouped by the pass (measuring job) they were taken in."""
        values = self.values(row, metric)
        groups: dict[str, list[float]] = {}
        for key, value in zip(values.index, values.to_numpy(), strict=True):
            groups.setdefault(_pass_of(key), []).append(float(value))
        return list(groups.values())

    def host_variance(self, metric: str) -> HostVariance:
        """The host's variance between passes of ``metric``, pooled over every point (intervals.HostVariance)."""
        if metric not in self._host:
            formats: dict[str, list[list[list[float]]]] = {}
            for key in self._values:
                row = dict(zip(POINT_ID, key, strict=True))
                formats.setdefault(key[0], []).append(self.values_by_pass(row, metric))
            self._host[metric] = HostVariance.of(formats)
        return self._host[metric]

    def interval(self, row: Mapping[str, Any], metric: str = "event_rate_hz") -> Interval:
        """The mean of ``metric`` with its interval, the host's variance between passes included where the study
        measured passes (``host_variance``): from the repetitions where they are known, else from the summary
        row's ``<metric>_mean``, ``<metric>_std`` and ``n``."""
        if len(self.values(row, metric)):
            return self.host_variance(metric).interval(self.values_by_pass(row, metric))
        return summary_interval(row, metric)

    def run_interval(self, row: Mapping[str, Any], metric: str = "event_rate_hz") -> Interval:
        """The repetitions' own interval of ``metric``: this run's minutes, not the host at another time."""
        values = self.values(row, metric)
        return Interval.of(values) if len(values) else summary_interval(row, metric)

    def ratio(self, a: Mapping[str, Any], b: Mapping[str, Any], metric: str = "event_rate_hz") -> Ratio:
        """a / b of ``metric`` (two summary rows), paired by round where they share at least MIN_PAIRS rounds."""
        va, vb = self.values(a, metric), self.values(b, metric)
        va = va[[k is not None for k in va.index]]
        vb = vb[[k is not None for k in vb.index]]
        common = [k for k in va.index if k in set(vb.index)]
        if (
            len(set(common)) >= MIN_PAIRS
            and not va.index.duplicated().any()
            and not vb.index.duplicated().any()
        ):
            return ratio_paired(va[common].to_numpy(), vb[common].to_numpy())
        # Unpaired: the two means were taken under different states of the host, which their intervals hold.
        return ratio_unpaired(self.interval(a, metric), self.interval(b, metric))


def summary_interval(row: Mapping[str, Any], metric: str = "event_rate_hz") -> Interval:
    """A summary row's mean, spread and n of ``metric`` as an Interval (unpaired comparisons, figures), with the
    host's variance between passes where the summary has it (``<metric>_host_variance``, ``host_df``,
    ``passes``)."""
    mean = float(row.get(f"{metric}_mean", float("nan")))
    spread = float(row.get(f"{metric}_std", float("nan")))
    n = row.get("n", 0)
    n = int(n) if n == n and n is not None else 0
    host = _number(row.get(f"{metric}_host_variance"))
    if host > 0:
        return Interval(
            mean,
            spread,
            n,
            host_variance=host,
            host_df=_number(row.get("host_df")) or float("inf"),
            passes=int(_number(row.get("passes")) or 1),
        )
    return Interval(mean, spread, n)


def _number(value) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return 0.0
    return number if number == number else 0.0


def _true(value) -> bool:
    return str(value).lower() in ("true", "1", "1.0")
