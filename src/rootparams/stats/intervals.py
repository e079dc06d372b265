"""The statistics behind every number a user reads: intervals of means and of ratios, verdicts in three states,
and a bootstrap over rounds (docs/statistics.md has the reasoning and the numbers they were checked on).

**A mean** (``Interval``): the repetitions' mean, their sample standard deviation (the note's 1σ *spread*, which
describes the repetitions, not the mean), the standard error s/√n, and a 95 % interval of the mean from Student's
t with n - 1 degrees of freedom. The repetitions of a point are taken in interleaved, shuffled rounds
(rootparams.measure.measure), so each one samples the host's state at another moment of the block, like every other
point's; t assumes that their mean is about normal, which it is for n ≥ 8 of these spreads (tests/test_intervals.py).

**A ratio** (``Ratio``) of two positive quantities (rates, times, sizes) is judged on the log scale, so that A/B
and B/A give the same verdict:
- *paired*, where both points were measured in the same rounds: d_k = ln(a_k / b_k) per round, its mean and a t
  interval over the rounds, exponentiated. A slow spell of the host moves both members of a pair alike and drops
  out of d_k: this is why the rounds are interleaved.
- *unpaired* otherwise (points of different blocks, or too few common rounds): ln(mean_a / mean_b) with the delta
  method's standard error sqrt(s_a²/(n_a m_a²) + s_b²/(n_b m_b²)) and Welch-Satterthwaite degrees of freedom.

**Verdicts at a margin** (``Judgement``). Every claim about a ratio is judged on its interval against a margin m:
the claim is *supported* when the whole interval lies in the claim's region, *contradicted* only when the whole
interval lies in the opposite region, and otherwise the run *cannot tell*. For "a equals b" the regions are
[1/(1+m), 1+m] and its outside: an interval that excludes 1 but reaches inside the margin is *cannot tell*, never
*different*. (Supported is a TOST at 2.5 % per side; contradicted likewise, a one-sided test at 2.5 % against the
nearer edge of the margin: a true ratio anywhere inside the margin is called different in at most 2.5 % of runs.)
``Ratio.resolvable_margin`` is the smallest margin the run could have called equal. Each verdict has the p-values
of its two tests (``Judgement.p_support``, ``p_contradict``; twice the one-sided p, so that p <= 0.05 is the 95 %
interval's verdict).

**Several verdicts of one claim** (a group of levels that must read alike, the sub-claims of a recommendation, the
physics checks of a study) are settled together (``Family``): a contradiction counts only where it survives Holm's
step-down adjustment over the family's contradiction p-values, so that the chance of one or more false
contradictions when every claim holds stays at most 5 % whatever the family's size; a claim that all members
hold needs each member supported at 95 % (an intersection-union test: no adjustment needed). ``expected_false``
states what a family should expect under "everything holds", with and without the adjustment.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

CONFIDENCE = 0.95
EQUAL, DIFFERENT, CANNOT_TELL = "equal", "different", "cannot tell"
HIGHER, LOWER, UNRESOLVED = "higher", "lower", "no difference resolved"
# Fewest common rounds for a paired interval (t with one degree of freedom is too wide to be of use below this).
MIN_PAIRS = 3
# Two rates within 5 % of each other count as no difference a setting should be chosen for: the margin of every
# claim that two rates are equal (the recommendations) and of "not slower" (the Pareto fronts). About the spread
# of one repetition on a quiet host; a run that cannot resolve it says "cannot tell".
RATE_MARGIN = 0.05


def scipy_stats():
    """scipy.stats, imported on first use: about 0.6 s, and the workflow imports this module (through the grid,
    the block plans and the figures' names) at every Snakemake start, each batch-cluster job's included."""
    from scipy import stats

    return stats


def t_quantile(df: float, confidence: float = CONFIDENCE) -> float:
    """The two-sided Student-t quantile for ``confidence`` with ``df`` degrees of freedom (NaN below 1)."""
    if not df >= 1:
        return math.nan
    return float(scipy_stats().t.ppf(0.5 + confidence / 2, df))


def _clean(values: Iterable[float]) -> np.ndarray:
    array = np.asarray([float(v) for v in values], dtype=float)
    return array[np.isfinite(array)]


@dataclass(frozen=True)
class Interval:
    """A mean with its spread (the sample standard deviation, ddof = 1: the note's 1σ), its standard error and
    its 95 % t interval, over ``n`` values. With one value: the value, and NaN for the rest.

    ``host_variance``: the relative variance of the mean that the host adds beyond what the repetitions show
    (``HostVariance``: the host's state between passes measured apart in time, over the ``passes`` this mean's
    repetitions were spread over), with ``host_df`` degrees of freedom; 0 where unknown. The interval then holds
    both (Welch-Satterthwaite), and describes the host over the run's passes, not only the run's minutes;
    ``run_low``/``run_high`` is the repetitions' own interval."""

    mean: float
    spread: float
    n: int
    confidence: float = CONFIDENCE
    host_variance: float = 0.0
    host_df: float = math.inf
    passes: int = 1

    @classmethod
    def of(cls, values: Iterable[float], confidence: float = CONFIDENCE) -> Interval:
        v = _clean(values)
        if not len(v):
            return cls(math.nan, math.nan, 0, confidence)
        return cls(float(v.mean()), float(v.std(ddof=1)) if len(v) > 1 else math.nan, len(v), confidence)

    @property
    def sem(self) -> float:
        """The repetitions' standard error of the mean (the run's own)."""
        return self.spread / math.sqrt(self.n) if self.n > 1 else math.nan

    @property
    def total_sem(self) -> float:
        """The standard error with the host's component: what the interval is made of."""
        return math.sqrt(self.sem**2 + self.host_variance * self.mean**2) if self.n > 1 else math.nan

    @property
    def df(self) -> float:
        """Welch-Satterthwaite's degrees of freedom of ``total_sem`` (n - 1 without a host component)."""
        run, host = self.sem**2, self.host_variance * self.mean**2
        if not host or self.n < 2:
            return float(self.n - 1)
        return (run + host) ** 2 / (run**2 / (self.n - 1) + host**2 / self.host_df)

    @property
    def half_width(self) -> float:
        return t_quantile(self.df, self.confidence) * self.total_sem if self.n > 1 else math.nan

    @property
    def low(self) -> float:
        return self.mean - self.half_width

    @property
    def high(self) -> float:
        return self.mean + self.half_width

    @property
    def run_half_width(self) -> float:
        """The repetitions' own interval: how well this run pins its mean, not the host's at another time."""
        return t_quantile(self.n - 1, self.confidence) * self.sem if self.n > 1 else math.nan

    @property
    def run_low(self) -> float:
        return self.mean - self.run_half_width

    @property
    def run_high(self) -> float:
        return self.mean + self.run_half_width

    @property
    def relative_half_width(self) -> float:
        return self.half_width / self.mean if self.mean else math.nan

    def _p(self, threshold: float, above: bool) -> float:
        """Twice the one-sided p-value that the true mean lies above (below) ``threshold``; NaN without an
        interval."""
        se = self.total_sem
        if not (self.n > 1 and se == se):
            return math.nan
        if se == 0:
            return 0.0 if (self.mean > threshold if above else self.mean < threshold) else 1.0
        z = (self.mean - threshold) / se
        tail = scipy_stats().t.sf(z, self.df) if above else scipy_stats().t.cdf(z, self.df)
        return min(1.0, 2 * float(tail))

    def judge_above(self, threshold: float) -> Judgement:
        """ "the mean is at least ``threshold``": supported with the interval above it, contradicted with the
        interval wholly below it."""
        return Judgement.of(self._p(threshold, True), self._p(threshold, False), self.confidence)

    def judge_within(self, low: float, high: float) -> Judgement:
        """ "the mean lies within [low, high]": supported with the interval inside, contradicted with it wholly
        outside."""
        return Judgement.of(
            max(_nan_high(self._p(low, True)), _nan_high(self._p(high, False))),
            min(_nan_high(self._p(high, True)), _nan_high(self._p(low, False))),
            self.confidence,
        )

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
        passes = f", {self.passes} passes" if self.host_variance else ""
        return (
            f"{self.mean:.{d}f}{unit} ({100 * self.confidence:.0f} % CI {self.low:.{d}f}-{self.high:.{d}f}, "
            f"n = {self.n}{passes})"
        )


def _digits(value: float, width: float) -> int:
    """Decimals that show the interval's width with two significant digits, at most 3."""
    scale = width if width == width and width > 0 else abs(value) * 0.01 if value == value and value else 1.0
    return int(min(3, max(0, 1 - math.floor(math.log10(scale)))))


@dataclass(frozen=True)
class Ratio:
    """a / b with its interval; ``n`` the common rounds (paired) or the smaller n (unpaired); ``df`` and ``log_se``
    the t distribution of ln(a / b) the interval came from (NaN where a ratio was written down by hand: they are
    then read back from the interval, with n - 1 degrees of freedom)."""

    estimate: float
    low: float
    high: float
    n: int
    paired: bool
    confidence: float = CONFIDENCE
    df: float = math.nan
    log_se: float = math.nan

    @property
    def resolvable_margin(self) -> float:
        """The smallest margin m for which this interval lies inside [1/(1+m), 1+m]: what the run can resolve."""
        if not (self.low > 0 and self.high > 0):
            return math.nan
        return max(self.high, 1 / self.low) - 1

    def _t(self) -> tuple[float, float, float]:
        """(ln estimate, standard error, degrees of freedom) of the log ratio; NaN where there is no interval."""
        if not (self.estimate > 0 and self.low > 0 and self.high > 0):
            return math.nan, math.nan, math.nan
        df = self.df if self.df == self.df else float(self.n - 1)
        se = self.log_se
        if math.isnan(se):
            q = t_quantile(df, self.confidence)
            se = math.log(self.high / self.low) / (2 * q) if q == q else math.nan
        return math.log(self.estimate), se, df

    def p_above(self, threshold: float) -> float:
        """Evidence that the true ratio lies above ``threshold``: twice the one-sided p-value of the test of
        "ratio <= threshold" (<= 1 - confidence exactly when the interval lies above it). NaN without an
        interval."""
        center, se, df = self._t()
        if not (se == se and threshold > 0 and df >= 1):
            return math.nan
        if se == 0:
            return 0.0 if center > math.log(threshold) else 1.0
        return min(1.0, 2 * float(scipy_stats().t.sf((center - math.log(threshold)) / se, df)))

    def p_below(self, threshold: float) -> float:
        """Evidence that the true ratio lies below ``threshold`` (as ``p_above``)."""
        center, se, df = self._t()
        if not (se == se and threshold > 0 and df >= 1):
            return math.nan
        if se == 0:
            return 0.0 if center < math.log(threshold) else 1.0
        return min(1.0, 2 * float(scipy_stats().t.cdf((center - math.log(threshold)) / se, df)))

    def judge_equal(self, margin: float) -> Judgement:
        """ "a equals b within ±margin": supported inside [1/(1+m), 1+m], contradicted wholly outside it."""
        low, high = 1 / (1 + margin), 1 + margin
        return Judgement.of(
            max(_nan_high(self.p_above(low)), _nan_high(self.p_below(high))),
            min(_nan_high(self.p_above(high)), _nan_high(self.p_below(low))),
            self.confidence,
        )

    def judge_above(self, threshold: float) -> Judgement:
        """ "the ratio is above ``threshold``": supported with the interval above it, contradicted with the
        interval at or below it."""
        return Judgement.of(self.p_above(threshold), self.p_below(threshold), self.confidence)

    def judge_below(self, threshold: float) -> Judgement:
        """ "the ratio is below ``threshold``" (the reverse of ``judge_above``)."""
        return Judgement.of(self.p_below(threshold), self.p_above(threshold), self.confidence)

    def equivalence(self, margin: float) -> str:
        """EQUAL (the interval inside ±margin), DIFFERENT (the interval wholly outside it) or CANNOT_TELL (an
        interval that reaches both, or none)."""
        return {True: EQUAL, False: DIFFERENT}.get(self.judge_equal(margin).supported, CANNOT_TELL)

    @property
    def direction(self) -> str:
        """HIGHER (a > b: the interval above 1), LOWER, or UNRESOLVED (the interval holds 1, or no interval).
        A direction, not a verdict at a margin: it orders, it does not say a difference matters."""
        if self.low > 1:
            return HIGHER
        if self.high < 1:
            return LOWER
        return UNRESOLVED

    def at(self, confidence: float) -> Ratio:
        """The same ratio with its interval at another confidence (e.g. adjusted for several comparisons)."""
        center, se, df = self._t()
        if math.isnan(se):
            return replace(self, confidence=confidence)
        half = t_quantile(df, confidence) * se
        return replace(
            self,
            low=math.exp(center - half),
            high=math.exp(center + half),
            confidence=confidence,
            df=df,
            log_se=se,
        )

    def text(self, digits: int = 2) -> str:
        """ "1.23x (95 % CI 1.18-1.28, 10 paired rounds)"."""
        if math.isnan(self.estimate):
            return "n/a"
        if math.isnan(self.low):
            return f"{self.estimate:.{digits}f}x (no interval: n = {self.n})"
        how = f"{self.n} paired rounds" if self.paired else f"unpaired, n ≥ {self.n}"
        return (
            f"{self.estimate:.{digits}f}x ({_percent_text(self.confidence)} % CI {self.low:.{digits}f}-"
            f"{self.high:.{digits}f}, {how})"
        )


def _percent_text(confidence: float) -> str:
    """95 for 0.95, 99.8 for 0.998: the confidence as people write it."""
    return f"{100 * confidence:.{0 if round(100 * confidence, 6) == round(100 * confidence) else 1}f}"


def _nan_high(p: float) -> float:
    """A p-value that could not be computed counts as no evidence."""
    return p if p == p else 1.0


@dataclass(frozen=True)
class Judgement:
    """One claim judged on an interval: ``supported`` True (the interval lies in the claim's region), False (it
    lies wholly in the opposite region) or None (cannot tell), with the two tests' p-values (twice one-sided, so
    that p <= 1 - confidence is the interval's verdict). A family of claims adjusts ``p_contradict``
    (``Family``)."""

    p_support: float
    p_contradict: float
    alpha: float = 1 - CONFIDENCE

    @classmethod
    def of(cls, p_support: float, p_contradict: float, confidence: float = CONFIDENCE) -> Judgement:
        return cls(_nan_high(p_support), _nan_high(p_contradict), round(1 - confidence, 12))

    @property
    def supported(self) -> bool | None:
        if self.p_contradict <= self.alpha:
            return False
        if self.p_support <= self.alpha:
            return True
        return None


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (each compared with the same alpha as one test): the chance of one or
    more false rejections in the family stays at most alpha, whatever the tests' dependence."""
    p = [_nan_high(x) for x in p_values]
    k = len(p)
    order = sorted(range(k), key=lambda i: p[i])
    adjusted, running = [1.0] * k, 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (k - rank) * p[i]))
        adjusted[i] = running
    return adjusted


class Family:
    """Claims settled together: a contradiction stands only where Holm's adjustment over the family's
    contradiction p-values keeps it (family-wise error at most alpha); support is judged per claim (a claim that
    all hold needs each). Claims are added with ``add`` (which returns the claim's index) and read back settled
    with ``supported`` once all are in."""

    def __init__(self) -> None:
        self.judgements: list[Judgement] = []

    def add(self, judgement: Judgement) -> int:
        self.judgements.append(judgement)
        return len(self.judgements) - 1

    def __len__(self) -> int:
        return len(self.judgements)

    def settled(self) -> list[Judgement]:
        adjusted = holm([j.p_contradict for j in self.judgements])
        return [replace(j, p_contradict=p) for j, p in zip(self.judgements, adjusted, strict=True)]

    def supported(self, index: int) -> bool | None:
        return self.settled()[index].supported

    def unadjusted_contradictions(self) -> int:
        """How many claims the per-claim rule (no adjustment) would call contradicted: what Holm took back."""
        return sum(j.supported is False for j in self.judgements)


def expected_false(comparisons: int, alpha: float = 1 - CONFIDENCE) -> tuple[float, float]:
    """Under "every claim holds" (each true ratio inside its margin), with ``comparisons`` contradiction tests
    each at alpha / 2 one-sided: (at most this many false contradictions expected without an adjustment: alpha / 2
    per test at the margin's edge, less inside it; the chance of one or more with Holm's adjustment: at most
    alpha / 2)."""
    return comparisons * alpha / 2, min(alpha / 2, comparisons * alpha / 2)


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
    se = float(d.std(ddof=1)) / math.sqrt(n)
    half = t_quantile(n - 1, confidence) * se
    return Ratio(
        math.exp(center), math.exp(center - half), math.exp(center + half), n, True, confidence, n - 1, se
    )


def ratio_unpaired(a: Interval, b: Interval, confidence: float = CONFIDENCE) -> Ratio:
    """mean_a / mean_b from two independent samples: delta method on the log scale, Welch-Satterthwaite degrees of
    freedom (over the repetitions' and, where the intervals have one, the host's components). One sample without
    a spread (n = 1) gives the estimate without an interval."""
    if not (a.mean > 0 and b.mean > 0):
        return Ratio(math.nan, math.nan, math.nan, min(a.n, b.n), False, confidence)
    estimate = a.mean / b.mean
    if a.n < 2 or b.n < 2 or math.isnan(a.spread) or math.isnan(b.spread):
        return Ratio(estimate, math.nan, math.nan, min(a.n, b.n), False, confidence)
    # Each component of the log ratio's variance with its degrees of freedom.
    parts = [
        ((a.spread / a.mean) ** 2 / a.n, a.n - 1),
        ((b.spread / b.mean) ** 2 / b.n, b.n - 1),
        (a.host_variance, a.host_df),
        (b.host_variance, b.host_df),
    ]
    parts = [(v, df) for v, df in parts if v > 0]
    se = math.sqrt(sum(v for v, _ in parts))
    if se == 0:
        return Ratio(estimate, estimate, estimate, min(a.n, b.n), False, confidence, a.n + b.n - 2, 0.0)
    df = se**4 / sum(v**2 / df for v, df in parts)
    half = t_quantile(df, confidence) * se
    center = math.log(estimate)
    return Ratio(
        estimate,
        math.exp(center - half),
        math.exp(center + half),
        min(a.n, b.n),
        False,
        confidence,
        df,
        se,
    )


@dataclass(frozen=True)
class HostVariance:
    """How much the host moves a point's mean between passes measured apart in time, beyond the noise of its
    repetitions: the relative (log-scale) variance ``tau2`` of one pass's mean, pooled over a study's points, with
    ``df`` degrees of freedom (``points`` points contributed). NaN where no point was measured in two passes.

    Per point with two or more passes of two or more values each: the sample variance of its passes' log means,
    less what its repetitions' own noise puts there (their pooled relative variance over the passes' mean
    1 / n); averaged over the points and cut at 0. The points of one format share the host's state in each pass,
    so a format contributes its passes - 1 degrees of freedom however many points it has: ``df`` is their sum over
    the formats."""

    tau2: float
    df: float
    points: int

    @classmethod
    def of(cls, formats: Mapping[str, Sequence[Sequence[Sequence[float]]]]) -> HostVariance:
        """``formats``: per format (a block's points share the host), per point, per pass, its values."""
        excess, df = [], 0
        for points in formats.values():
            passes_seen = 0
            for passes in points:
                kept = [_clean(v) for v in passes]
                kept = [v[v > 0] for v in kept]
                kept = [v for v in kept if len(v) >= 2]
                if len(kept) < 2:
                    continue
                means = np.array([v.mean() for v in kept])
                within = sum(float(((v / v.mean() - 1) ** 2).sum()) for v in kept) / sum(
                    len(v) - 1 for v in kept
                )
                noise = within * float(np.mean([1 / len(v) for v in kept]))
                excess.append(float(np.var(np.log(means), ddof=1)) - noise)
                passes_seen = max(passes_seen, len(kept))
            df += max(passes_seen - 1, 0)
        if not excess or df == 0:
            return cls(math.nan, 0.0, len(excess))
        return cls(max(0.0, float(np.mean(excess))), float(df), len(excess))

    @property
    def known(self) -> bool:
        return self.tau2 == self.tau2 and self.df > 0

    def interval(self, values_by_pass: Sequence[Sequence[float]], confidence: float = CONFIDENCE) -> Interval:
        """The mean of every value of ``values_by_pass`` with its interval: the repetitions' noise and the host's
        state in each of the passes they were measured in (tau2 / passes). Without a known tau2, the repetitions'
        own interval."""
        groups = [_clean(v) for v in values_by_pass]
        groups = [v for v in groups if len(v)]
        interval = Interval.of(np.concatenate(groups) if groups else [], confidence)
        if not self.known or interval.n < 2:
            return interval
        return replace(interval, host_variance=self.tau2 / len(groups), host_df=self.df, passes=len(groups))


@dataclass(frozen=True)
class Trend:
    """A least-squares line through (t, y) in relative terms: ``slope`` per unit of t as a fraction of the mean,
    with its 95 % t interval. Successive readings of a host are not independent (a slow spell lasts minutes): the
    residuals' lag-1 autocorrelation ``autocorrelation`` (in time order), where positive, widens the slope's
    standard error by sqrt((1 + r) / (1 - r)) and shrinks the degrees of freedom to n (1 - r) / (1 + r) - 2 (the
    AR(1) effective sample size); without it, n - 2."""

    mean: float
    slope: float
    low: float
    high: float
    n: int
    autocorrelation: float = math.nan

    @classmethod
    def of(cls, t: Sequence[float], y: Sequence[float], confidence: float = CONFIDENCE) -> Trend:
        t_v, y_v = np.asarray(t, dtype=float), np.asarray(y, dtype=float)
        keep = np.isfinite(t_v) & np.isfinite(y_v)
        t_v, y_v = t_v[keep], y_v[keep]
        n = len(t_v)
        if n < 3 or np.ptp(t_v) == 0:
            return cls(float(y_v.mean()) if n else math.nan, math.nan, math.nan, math.nan, n)
        order = np.argsort(t_v, kind="stable")
        t_v, y_v = t_v[order], y_v[order]
        mean = float(y_v.mean())
        dt = t_v - t_v.mean()
        slope = float((dt * (y_v - mean)).sum() / (dt**2).sum())
        residual = y_v - mean - slope * dt
        se = math.sqrt(float((residual**2).sum()) / (n - 2) / float((dt**2).sum()))
        r = _lag1_autocorrelation(residual)
        df = n - 2
        if r == r and r > 0:
            inflation = (1 + r) / (1 - r) if r < 1 else math.inf
            se *= math.sqrt(inflation)
            df = max(1.0, n / inflation - 2)
        half = t_quantile(df, confidence) * se
        return cls(mean, slope / mean, (slope - half) / mean, (slope + half) / mean, n, r)


def _lag1_autocorrelation(values: Sequence[float]) -> float:
    """The lag-1 autocorrelation of a series in its order (NaN for fewer than 3 values or no spread)."""
    v = np.asarray(values, dtype=float)
    if len(v) < 3:
        return math.nan
    d = v - v.mean()
    denominator = float((d**2).sum())
    return float((d[1:] * d[:-1]).sum() / denominator) if denominator > 0 else math.nan


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
