"""The statistics behind every number a user reads: intervals of means and of ratios, verdicts in three states,
and a bootstrap over rounds (docs/statistics.md has the reasoning and the numbers they were checked on).

**A mean** (``Interval``): the repetitions' mean, their sample standard deviation (the note's 1σ *spread*, which
describes the repetitions, not the mean), the standard error s/√n, and a 95 % interval of the mean from Student's
t with n - 1 degrees of freedom. The repetitions of a point are taken in interleaved, shuffled rounds
(rootparams.measure), so each one samples the host's state at another moment of the block, like every other
point's; t assumes that their mean is about normal, which it is for n ≥ 8 of these spreads (tests/test_stats.py).

**A ratio** (``Ratio``) of two positive quantities (rates, times, sizes) is judged on the log scale, so that A/B
and B/A give the same verdict:
- *paired*, where both points were measured in the same rounds: d_k = ln(a_k / b_k) per round, its mean and a t
  interval over the rounds, exponentiated. A slow spell of the host moves both members of a pair alike and drops
  out of d_k: this is why the rounds are interleaved.
- *unpaired* otherwise (points of different blocks, or too few common rounds): ln(mean_a / mean_b) with the delta
  method's standard error sqrt(s_a²/(n_a m_a²) + s_b²/(n_b m_b²)) and Welch-Satterthwaite degrees of freedom.

**Verdicts.** A claim that two things are equal is an equivalence test at a stated margin m: the ratio's 95 %
interval inside [1/(1+m), 1+m] is *equal*; an interval that excludes 1 otherwise is *different*; anything else is
*cannot tell* at this noise. (Requiring the 95 % interval inside the margin is a TOST at 2.5 % per side: stricter
than the usual 90 % interval.) ``Ratio.resolvable_margin`` is the smallest margin the run could have called equal.
A claim of a gain needs the interval to exclude 1 (``Ratio.direction``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as _scipy_stats

CONFIDENCE = 0.95
EQUAL, DIFFERENT, CANNOT_TELL = "equal", "different", "cannot tell"
HIGHER, LOWER, UNRESOLVED = "higher", "lower", "no difference resolved"
# Fewest common rounds for a paired interval (t with one degree of freedom is too wide to be of use below this).
MIN_PAIRS = 3
# Two rates within 5 % of each other count as no difference a setting should be chosen for: the margin of every
# claim that two rates are equal (the recommendations) and of "not slower" (the Pareto fronts). About the spread
# of one repetition on a quiet host; a run that cannot resolve it says "cannot tell".
RATE_MARGIN = 0.05


def t_quantile(df: float, confidence: float = CONFIDENCE) -> float:
    """The two-sided Student-t quantile for ``confidence`` with ``df`` degrees of freedom (NaN below 1)."""
    if not df >= 1:
        return math.nan
    return float(_scipy_stats.t.ppf(0.5 + confidence / 2, df))


def _clean(values: Iterable[float]) -> np.ndarray:
    array = np.asarray([float(v) for v in values], dtype=float)
    return array[np.isfinite(array)]


@dataclass(frozen=True)
class Interval:
    """A mean with its spread (the sample standard deviation, ddof = 1: the note's 1σ), its standard error and
    its 95 % t interval, over ``n`` values. With one value: the value, and NaN for the rest."""

    mean: float
    spread: float
    n: int
    confidence: float = CONFIDENCE

    @classmethod
    def of(cls, values: Iterable[float], confidence: float = CONFIDENCE) -> Interval:
        v = _clean(values)
        if not len(v):
            return cls(math.nan, math.nan, 0, confidence)
        return cls(float(v.mean()), float(v.std(ddof=1)) if len(v) > 1 else math.nan, len(v), confidence)

    @property
    def sem(self) -> float:
        return self.spread / math.sqrt(self.n) if self.n > 1 else math.nan

    @property
    def half_width(self) -> float:
        return t_quantile(self.n - 1, self.confidence) * self.sem if self.n > 1 else math.nan

    @property
    def low(self) -> float:
        return self.mean - self.half_width

    @property
    def high(self) -> float:
        return self.mean + self.half_width

    @property
    def relative_half_width(self) -> float:
        return self.half_width / self.mean if self.mean else math.nan

    def text(self, unit: str = "", digits: int | None = None) -> str:
        """ "1234 Hz (95 % CI 1201-1267, n = 10)"; a single value says n = 1 and has no interval."""
        d = _digits(self.mean, self.half_width) if digits is None else digits
        unit = f" {unit}" if unit else ""
        if self.n == 0 or math.isnan(self.mean):
            return "n/a (n = 0)"
        if self.n < 2:
            return f"{self.mean:.{d}f}{unit} (n = 1, no interval)"
        if math.isnan(self.half_width):
            return f"{self.mean:.{d}f}{unit} (n = {self.n}, no spread known: no interval)"
        return (
            f"{self.mean:.{d}f}{unit} ({100 * self.confidence:.0f} % CI {self.low:.{d}f}-{self.high:.{d}f}, "
            f"n = {self.n})"
        )


def _digits(value: float, width: float) -> int:
    """Decimals that show the interval's width with two significant digits, at most 3."""
    scale = width if width == width and width > 0 else abs(value) * 0.01 if value == value and value else 1.0
    return int(min(3, max(0, 1 - math.floor(math.log10(scale)))))


@dataclass(frozen=True)
class Ratio:
    """a / b with its interval; ``n`` the common rounds (paired) or the smaller n (unpaired)."""

    estimate: float
    low: float
    high: float
    n: int
    paired: bool
    confidence: float = CONFIDENCE

    @property
    def resolvable_margin(self) -> float:
        """The smallest margin m for which this interval lies inside [1/(1+m), 1+m]: what the run can resolve."""
        if not (self.low > 0 and self.high > 0):
            return math.nan
        return max(self.high, 1 / self.low) - 1

    def equivalence(self, margin: float) -> str:
        """EQUAL (inside ±margin), DIFFERENT (excludes 1, not inside the margin) or CANNOT_TELL."""
        if not (self.low > 0 and self.high > 0):
            return CANNOT_TELL
        if self.high <= 1 + margin and self.low >= 1 / (1 + margin):
            return EQUAL
        if self.low > 1 or self.high < 1:
            return DIFFERENT
        return CANNOT_TELL

    @property
    def direction(self) -> str:
        """HIGHER (a > b: the interval above 1), LOWER, or UNRESOLVED (the interval holds 1, or no interval)."""
        if self.low > 1:
            return HIGHER
        if self.high < 1:
            return LOWER
        return UNRESOLVED

    def text(self, digits: int = 2) -> str:
        """ "1.23x (95 % CI 1.18-1.28, 10 paired rounds)"."""
        if math.isnan(self.estimate):
            return "n/a"
        if math.isnan(self.low):
            return f"{self.estimate:.{digits}f}x (no interval: n = {self.n})"
        how = f"{self.n} paired rounds" if self.paired else f"unpaired, n ≥ {self.n}"
        return (
            f"{self.estimate:.{digits}f}x ({100 * self.confidence:.0f} % CI {self.low:.{digits}f}-"
            f"{self.high:.{digits}f}, {how})"
        )


def ratio_paired(a: Sequence[float], b: Sequence[float], confidence: float = CONFIDENCE) -> Ratio:
    """a_k / b_k over pairs measured in the same round (the same length, in the same order)."""
    a_v, b_v = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    keep = np.isfinite(a_v) & np.isfinite(b_v) & (a_v > 0) & (b_v > 0)
    d = np.log(a_v[keep] / b_v[keep])
    n = len(d)
    if n == 0:
        return Ratio(math.nan, math.nan, math.nan, 0, True, confidence)
    center = float(d.mean())
    if n < 2:
        return Ratio(math.exp(center), math.nan, math.nan, n, True, confidence)
    half = t_quantile(n - 1, confidence) * float(d.std(ddof=1)) / math.sqrt(n)
    return Ratio(math.exp(center), math.exp(center - half), math.exp(center + half), n, True, confidence)


def ratio_unpaired(a: Interval, b: Interval, confidence: float = CONFIDENCE) -> Ratio:
    """mean_a / mean_b from two independent samples: delta method on the log scale, Welch's degrees of freedom.
    One sample without a spread (n = 1) gives the estimate without an interval."""
    if not (a.mean > 0 and b.mean > 0):
        return Ratio(math.nan, math.nan, math.nan, min(a.n, b.n), False, confidence)
    estimate = a.mean / b.mean
    if a.n < 2 or b.n < 2 or math.isnan(a.spread) or math.isnan(b.spread):
        return Ratio(estimate, math.nan, math.nan, min(a.n, b.n), False, confidence)
    va = (a.spread / a.mean) ** 2 / a.n
    vb = (b.spread / b.mean) ** 2 / b.n
    se = math.sqrt(va + vb)
    if se == 0:
        return Ratio(estimate, estimate, estimate, min(a.n, b.n), False, confidence)
    df = (va + vb) ** 2 / (va**2 / (a.n - 1) + vb**2 / (b.n - 1))
    half = t_quantile(df, confidence) * se
    center = math.log(estimate)
    return Ratio(estimate, math.exp(center - half), math.exp(center + half), min(a.n, b.n), False, confidence)


def combine(verdicts: Iterable[str]) -> str:
    """Several equivalence verdicts of one claim (e.g. every pair of levels): DIFFERENT if any pair differs,
    EQUAL if all are equal, else CANNOT_TELL."""
    verdicts = list(verdicts)
    if not verdicts:
        return CANNOT_TELL
    if DIFFERENT in verdicts:
        return DIFFERENT
    return EQUAL if all(v == EQUAL for v in verdicts) else CANNOT_TELL


@dataclass(frozen=True)
class Trend:
    """A least-squares line through (t, y) in relative terms: ``slope`` per unit of t as a fraction of the mean,
    with its 95 % t interval (n - 2 degrees of freedom)."""

    mean: float
    slope: float
    low: float
    high: float
    n: int

    @classmethod
    def of(cls, t: Sequence[float], y: Sequence[float], confidence: float = CONFIDENCE) -> Trend:
        t_v, y_v = np.asarray(t, dtype=float), np.asarray(y, dtype=float)
        keep = np.isfinite(t_v) & np.isfinite(y_v)
        t_v, y_v = t_v[keep], y_v[keep]
        n = len(t_v)
        if n < 3 or np.ptp(t_v) == 0:
            return cls(float(y_v.mean()) if n else math.nan, math.nan, math.nan, math.nan, n)
        mean = float(y_v.mean())
        dt = t_v - t_v.mean()
        slope = float((dt * (y_v - mean)).sum() / (dt**2).sum())
        residual = y_v - mean - slope * dt
        se = math.sqrt(float((residual**2).sum()) / (n - 2) / float((dt**2).sum()))
        half = t_quantile(n - 2, confidence) * se
        return cls(mean, slope / mean, (slope - half) / mean, (slope + half) / mean, n)


def bootstrap_means(values: np.ndarray, replicates: int = 2000, seed: int = 0) -> np.ndarray:
    """Resample the columns (rounds) of ``values`` (points x rounds, NaN where a point has no value in a round)
    with replacement, the same draw for every point so that pairs stay pairs; return each point's mean over each
    draw (replicates x points). A point without any value in a draw keeps its overall mean there."""
    values = np.asarray(values, dtype=float)
    _, rounds = values.shape
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, rounds, size=(replicates, rounds))
    picked = values[:, draws]  # points x replicates x rounds
    with np.errstate(invalid="ignore"):
        counts = np.isfinite(picked).sum(axis=2)
        sums = np.nansum(picked, axis=2)
        means = np.where(counts > 0, sums / np.maximum(counts, 1), np.nanmean(values, axis=1)[:, None])
    return means.T


def quantiles(samples: np.ndarray, confidence: float = CONFIDENCE) -> tuple[np.ndarray, np.ndarray]:
    """The percentile interval of bootstrap samples (replicates x quantities)."""
    tail = 100 * (1 - confidence) / 2
    return np.percentile(samples, tail, axis=0), np.percentile(samples, 100 - tail, axis=0)


def round_matrix(by_point: Mapping[object, Mapping[str, float]]) -> tuple[list, list[str], np.ndarray]:
    """(points, round keys, points x rounds values with NaN where missing) from {point: {round key: value}}."""
    points = list(by_point)
    rounds = sorted({r for values in by_point.values() for r in values})
    matrix = np.full((len(points), len(rounds)), np.nan)
    index = {r: j for j, r in enumerate(rounds)}
    for i, p in enumerate(points):
        for r, v in by_point[p].items():
            matrix[i, index[r]] = v
    return points, rounds, matrix
