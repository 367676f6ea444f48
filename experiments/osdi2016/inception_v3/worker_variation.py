"""The compute noise of experiments/osdi2016/inception_v3/run from Chen et al. 2016's measured
gradient arrival times (spec.yaml `variation.chen_tail`): a worker's gradient arrives at
t0 + Exp(mu), i.i.d. per worker and step; mu from the arrival of the (n - b)-th of n gradients."""
import math

KEYS = ("workers", "backups", "within_fraction", "threshold_s", "median_s")


def order_statistic_quantile(f, n, k):
    """x with P(k-th largest of n unit exponentials <= x) = f, 0 < f < 1, 1 <= k <= n: exactly
    P(at most k - 1 of n exceed x), each with probability exp(-x); bisection to 1e-12."""
    def cdf(x):
        p = math.exp(-x)
        return sum(math.comb(n, j) * p ** j * (1 - p) ** (n - j) for j in range(k))
    lo, hi = 0.0, 60.0 + math.log(n)
    while hi - lo > 1e-12:
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if cdf(mid) < f else (lo, mid)
    return lo


def chen_tail(tail):
    """(mu seconds, P(all n within the threshold) predicted): the mean of the exponential part
    of a gradient's arrival time for which the (n - b)-th of n gradients arrives within
    threshold_s in a fraction within_fraction of the steps and has the median median_s. The
    second value checks the model on Chen et al.'s other number (all n within the threshold).
    ValueError naming the spec key for a missing or impossible value."""
    for key in KEYS:
        if key not in tail:
            raise ValueError(f"spec.yaml variation.chen_tail: missing '{key}' (needs "
                             f"{', '.join(KEYS)})")
    n, b = int(tail["workers"]), int(tail["backups"])
    f, thr, med = (float(tail[k]) for k in ("within_fraction", "threshold_s", "median_s"))
    if not (n >= 1 and 0 <= b < n):
        raise ValueError(f"spec.yaml variation.chen_tail: needs workers >= 1 and 0 <= backups "
                         f"< workers, got workers {n}, backups {b}")
    if not 0.5 < f < 1:
        raise ValueError(f"spec.yaml variation.chen_tail.within_fraction must be in (0.5, 1) "
                         f"(the threshold above the median), got {f}")
    if not thr > med > 0:
        raise ValueError(f"spec.yaml variation.chen_tail: needs threshold_s > median_s > 0, got "
                         f"threshold_s {thr}, median_s {med}")
    x_med = order_statistic_quantile(0.5, n, b + 1)
    x_f = order_statistic_quantile(f, n, b + 1)
    return (thr - med) / (x_f - x_med), (1 - math.exp(-x_f)) ** n
