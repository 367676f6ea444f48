#!/usr/bin/python3
"""Checks of mechanisms.py by hand (run by CTest: osdi2016_table1_mechanisms)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mechanisms  # noqa: E402


class MechanismsTest(unittest.TestCase):
    def test_tile_utilization_by_hand(self):
        # 24 tiles of 128x128: one full wave on 24 SMs.
        self.assertAlmostEqual(mechanisms.tile_utilization(128 * 24, 128), 1.0)
        # M = 3200, N = 128: 128x128 gives 25 tiles in 2 waves (25/48); 128x64 50 tiles in 3
        # waves (50/72); 128x32 100 tiles in 5 waves (100/120 = 0.833): the best.
        self.assertAlmostEqual(mechanisms.tile_utilization(3200, 128), 100 / 120)
        # M = 100, N = 16: 128x32 pads to 4096 slots for 1600 outputs (0.390625) in one tile of
        # 24 slots; split-K fills the GPU, so only the edge counts.
        self.assertAlmostEqual(mechanisms.tile_utilization(100, 16), 0.390625 / 24)
        self.assertAlmostEqual(mechanisms.tile_utilization(100, 16, split_k=True), 0.390625)

    def test_gemm_dims_per_direction(self):
        shapes = {"kernel": "3x3", "x_shape": "2x10x10x4", "y_shape": "2x5x5x8"}
        self.assertEqual(mechanisms.gemm_dims(dict(shapes, op="Conv2D")), (50, 8, False))
        self.assertEqual(mechanisms.gemm_dims(dict(shapes, op="Conv2DBackpropInput")),
                         (200, 4, False))
        self.assertEqual(mechanisms.gemm_dims(dict(shapes, op="Conv2DBackpropFilter")),
                         (36, 8, True))
        self.assertIsNone(mechanisms.gemm_dims(dict(shapes, op="Conv2D", x_shape="")))

    def test_with_tiles_divides_gemm_flops_only(self):
        conv = {"op": "Conv2D", "kernel": "1x1", "x_shape": "1x10x10x4", "y_shape": "1x10x10x16",
                "flops": 3200.0, "bytes": 1.0}
        relu = {"op": "Relu", "kernel": "", "flops": 100.0, "bytes": 1.0}
        out = mechanisms.with_tiles([conv, relu])
        # M = 100, N = 16 without split-K: utilization 0.390625 / 24.
        self.assertAlmostEqual(out[0]["flops"], 3200.0 / (0.390625 / 24))
        self.assertEqual(out[1], relu)

    def test_needed_scales_by_hand(self):
        device = {"peak_flops_per_s": 1e12, "memory_bandwidth_bytes_per_s": 1e11,
                  "launch_overhead_ns": 0}
        eff = dict(mechanisms.gcm.PRIOR_EFFICIENCIES, conv_fwd=0.5, conv_bwd_data=0.5,
                   conv_bwd_filter=0.5)
        conv = {"op": "Conv2D", "kernel": "", "flops": 1e9, "bytes": 1.0}
        relu = {"op": "Relu", "kernel": "", "flops": 0.0, "bytes": 7.5e7}
        grad = dict(conv, op="Conv2DBackpropFilter")
        # Forward: conv 2 ms + relu 1 ms = 3 ms; backward: conv 2 ms. Published 5 / 3 ms: the
        # forward convolutions x2 (2 + 2 ms more) or the memory x3; backward conv x1.5; no
        # backward memory (None).
        k = mechanisms.needed_scales([conv, relu], [conv, relu, grad], device, eff, (5.0, 3.0))
        self.assertAlmostEqual(k[("conv", "fwd")], 2.0)
        self.assertAlmostEqual(k[("memory", "fwd")], 3.0)
        self.assertAlmostEqual(k[("conv", "bwd")], 1.5)
        self.assertIsNone(k[("memory", "bwd")])


if __name__ == "__main__":
    unittest.main()
