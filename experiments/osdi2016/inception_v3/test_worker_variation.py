#!/usr/bin/python3
"""Checks of worker_variation.py (CTest osdi2016_inception_worker_variation): order statistics of
exponentials by hand, the noise from Chen et al.'s numbers, and bad spec values."""
import math
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import worker_variation as wv  # noqa: E402

CHEN = {"workers": 100, "backups": 2, "within_fraction": 0.8, "threshold_s": 2.0,
        "median_s": 1.93}


class WorkerVariationTest(unittest.TestCase):
    def test_order_statistics_by_hand(self):
        # One exponential: its median is ln 2.
        self.assertAlmostEqual(wv.order_statistic_quantile(0.5, 1, 1), math.log(2), places=9)
        # The largest of n: P(max <= x) = (1 - e^-x)^n, so x = -ln(1 - f^(1/n)).
        for n, f in ((10, 0.3), (100, 0.8)):
            self.assertAlmostEqual(wv.order_statistic_quantile(f, n, 1),
                                   -math.log(1 - f ** (1 / n)), places=9)
        # The smallest of n (k = n): exponential of rate n, x = -ln(1 - f) / n.
        self.assertAlmostEqual(wv.order_statistic_quantile(0.5, 4, 4), math.log(2) / 4,
                               places=9)

    def test_chen_numbers(self):
        mu, all_within = wv.chen_tail(CHEN)
        # 3rd largest of 100: quantiles 3.6249 (50%) and 4.1743 (80%): 0.07 s / 0.5493.
        self.assertAlmostEqual(mu, 0.07 / (4.174257 - 3.624941), places=4)
        self.assertAlmostEqual(mu, 0.1274, places=3)
        self.assertAlmostEqual(all_within, 0.212, places=3)  # Chen et al. measured 0.30
        lower = dict(CHEN, median_s=1.85)  # a lower median: a wider spread
        self.assertAlmostEqual(wv.chen_tail(lower)[0], 0.15 / (4.174257 - 3.624941), places=4)

    def test_bad_values_name_the_key(self):
        cases = [(dict(CHEN, median_s=2.0), "threshold_s > median_s"),
                 (dict(CHEN, within_fraction=0.4), "within_fraction must be in (0.5, 1)"),
                 (dict(CHEN, backups=100), "0 <= backups < workers"),
                 ({k: v for k, v in CHEN.items() if k != "median_s"}, "missing 'median_s'")]
        for tail, text in cases:
            with self.assertRaises(ValueError) as e:
                wv.chen_tail(tail)
            self.assertIn(text, str(e.exception))
            self.assertIn("variation.chen_tail", str(e.exception))


if __name__ == "__main__":
    unittest.main()
