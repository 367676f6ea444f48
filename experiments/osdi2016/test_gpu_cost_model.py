#!/usr/bin/python3
"""Checks of gpu_cost_model.py by hand (run by CTest: osdi2016_gpu_cost_model)."""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_cost_model as gcm  # noqa: E402

DEVICE = {"model": "test", "peak_flops_per_s": 1e12, "memory_bandwidth_bytes_per_s": 1e11,
          "launch_overhead_ns": 1000}


def row(op, flops, nbytes, kernel=""):
    return {"node": op, "op": op, "flops": flops, "bytes": nbytes, "kernel": kernel}


class GpuCostModelTest(unittest.TestCase):
    def test_roofline_by_hand(self):
        eff = dict(gcm.PRIOR_EFFICIENCIES, conv_fwd=2.0)
        # Conv 3x3: 4e9 FLOPs at 2 x 1 TFLOP/s = 2 ms (bytes 1e6 at 75 GB/s: 13 us) + 1 us.
        # Relu: 1.5e8 bytes at 0.75 x 100 GB/s = 2 ms + 1 us. 1x1 conv: GEMM efficiency 0.75.
        ms, parts = gcm.predict([row("Conv2D", 4e9, 1e6, "3x3"), row("Relu", 1e6, 1.5e8),
                                 row("Conv2D", 7.5e8, 1e3, "1x1")], DEVICE, eff)
        self.assertAlmostEqual(parts["conv_fwd"], 2.0)
        self.assertAlmostEqual(parts["memory"], 2.0)
        self.assertAlmostEqual(parts["conv1x1"], 1.0)
        self.assertAlmostEqual(parts["launch"], 0.003)
        self.assertAlmostEqual(ms, 5.003)

    def test_calibration_recovers_the_efficiencies(self):
        fwd = [row("Conv2D", 4e9, 1e6, "5x5"), row("MatMul", 1e9, 1e6)]
        fb = fwd + [row("Conv2DBackpropInput", 4e9, 1e6, "5x5"),
                    row("Conv2DBackpropFilter", 4e9, 1e6, "5x5")]
        truth = dict(gcm.PRIOR_EFFICIENCIES, conv_fwd=1.6, conv_bwd_data=1.2, conv_bwd_filter=1.2)
        f = gcm.predict(fwd, DEVICE, truth)[0]
        b = gcm.predict(fb, DEVICE, truth)[0] - f
        eff = gcm.calibrate(fwd, fb, DEVICE, f, b)
        self.assertAlmostEqual(eff["conv_fwd"], 1.6, places=6)
        self.assertAlmostEqual(eff["conv_bwd_filter"], 1.2, places=6)

    def test_unreachable_target_is_an_error(self):
        with self.assertRaisesRegex(gcm.CostModelError, "target 0.00 ms is outside"):
            gcm.calibrate([row("Conv2D", 4e9, 1e6, "3x3")], [row("Conv2D", 4e9, 1e6, "3x3")],
                          DEVICE, 0.0001, 1.0)

    def test_device_errors_name_the_file_and_field(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "gpu.json")
            with open(path, "w") as f:
                json.dump({"devices": [dict(DEVICE, type="GPU", name="g",
                                            memory_bandwidth_bytes_per_s=0)]}, f)
            with self.assertRaisesRegex(gcm.CostModelError,
                                        "gpu.json.*memory_bandwidth_bytes_per_s.*found 0"):
                gcm.load_device(path)
            with open(path, "w") as f:
                json.dump({"devices": [{"type": "CPU"}]}, f)
            with self.assertRaisesRegex(gcm.CostModelError, "gpu.json: no device of type GPU"):
                gcm.load_device(path)

    def test_unneeded_and_empty_nodes_cost_nothing(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "w.csv")
            with open(path, "w") as f:
                f.write("node,op,flops,bytes_accessed,output_bytes,needed,kernel\n"
                        "a,Conv2D,100,10,4,1,3x3\nb,Conv2DBackpropInput,100,10,4,0,3x3\n"
                        "c,Identity,0,0,4,1,\n")
            rows = gcm.load_work(path)
            self.assertEqual([r["node"] for r in rows], ["a"])


if __name__ == "__main__":
    unittest.main()
