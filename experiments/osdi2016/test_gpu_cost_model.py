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


def conv(op, flops, nbytes, kernel, stride, x_shape, y_shape):
    return dict(row(op, flops, nbytes, kernel), stride=stride, x_shape=x_shape, y_shape=y_shape)


class GpuCostModelTest(unittest.TestCase):
    def test_roofline_by_hand(self):
        eff = dict(gcm.PRIOR_EFFICIENCIES, conv_fwd=0.5)
        # Conv 3x3 without shapes (an implicit GEMM): 1e9 FLOPs at 0.5 x 1 TFLOP/s = 2 ms (bytes
        # 1e6 at 75 GB/s: 13 us) + 1 us. Relu: 1.5e8 bytes at 0.75 x 100 GB/s = 2 ms + 1 us.
        # 1x1 conv: the same forward GEMM efficiency, 5e8 FLOPs = 1 ms.
        ms, parts = gcm.predict([row("Conv2D", 1e9, 1e6, "3x3"), row("Relu", 1e6, 1.5e8),
                                 row("Conv2D", 5e8, 1e3, "1x1")], DEVICE, eff)
        self.assertAlmostEqual(parts["conv_fwd"], 3.0)
        self.assertAlmostEqual(parts["memory"], 2.0)
        self.assertAlmostEqual(parts["launch"], 0.003)
        self.assertAlmostEqual(ms, 5.003)

    def test_fft_work_by_hand(self):
        # AlexNet conv2: 5x5 SAME on 27x27, 64 -> 192 channels, batch 128. The padded plane is
        # pow2ceil(27 + 5 - 1) = 32 square: 32 x (32 / 2 + 1) = 544 bins.
        r = conv("Conv2D", 57330892800, 96780288, "5x5", "1", "128x27x27x64", "128x27x27x192")
        flops, nbytes = gcm.fft_work(r)
        self.assertEqual(flops, 8.0 * 128 * 64 * 192 * 544)
        self.assertEqual(nbytes, 8.0 * 544 * 2 * (128 * 64 + 64 * 192 + 128 * 192)
                         + 4.0 * (128 * 27 * 27 * 64 + 25 * 64 * 192 + 128 * 27 * 27 * 192))
        self.assertEqual(gcm.pow2ceil(31), 32)
        self.assertEqual(gcm.pow2ceil(32), 32)
        self.assertEqual(gcm.pow2ceil(1), 1)

    def test_fft_chosen_when_faster_by_hand(self):
        eff = dict(gcm.PRIOR_EFFICIENCIES, conv_fwd=0.5)
        # 5x5 SAME on 12x12, batch 4, 64 -> 64 channels: bins 16 x 9 = 144.
        # GEMM: 2*4*144*64*25*64 = 117964800 FLOPs at 0.5 TFLOP/s = 235.9296 us.
        # FFT: 8*4*64*64*144 = 18874368 FLOPs = 37.748736 us; transforms
        # 8*144*2*(256 + 4096 + 256) + 4*(36864 + 102400 + 36864) = 11321344 bytes at 75 GB/s =
        # 150.951253 us; 188.699989 us in all: the FFT.
        r = conv("Conv2D", 117964800, 1e4, "5x5", "1", "4x12x12x64", "4x12x12x64")
        ns, algo = gcm.conv_ns(r, DEVICE, eff)
        self.assertEqual(algo, "fft")
        self.assertAlmostEqual(ns / 1e3, 37.748736 + 11321344 / 75e3, places=6)
        # Plus TensorFlow's TransformFilter before the cuDNN call (NCHW, the default): the 5x5x64x64
        # filter read and written, 819200 bytes at 75 GB/s = 10.922667 us, and its launch. The
        # SAME padding of 5x5 on 12x12 totals 4 rows (even): no pad copy.
        self.assertAlmostEqual(gcm.node_ns(r, DEVICE, eff), 2000 + ns + 819200 / 75)
        # 8 -> 8 channels: GEMM 1843200 FLOPs = 3.6864 us; FFT 294912 FLOPs = 0.589824 us plus
        # 338176 bytes = 4.509013 us: the GEMM.
        small = conv("Conv2D", 1843200, 1e4, "5x5", "1", "4x12x12x8", "4x12x12x8")
        ns, algo = gcm.conv_ns(small, DEVICE, eff)
        self.assertEqual(algo, "gemm")
        self.assertAlmostEqual(ns / 1e3, 3.6864)

    def test_no_fft_for_strided_1x1_or_unknown_shapes(self):
        eff = dict(gcm.PRIOR_EFFICIENCIES, conv_fwd=0.5)
        big = ("4x12x12x64", "4x12x12x64")
        for kernel, stride, shapes in (("5x5", "2", big), ("1x1", "1", big), ("5x5", "1", ("", "")),
                                       ("5x5", "1", ("4x12x12", "4x12x12x64")), ("", "1", big)):
            r = conv("Conv2D", 117964800, 1e4, kernel, stride, *shapes)
            self.assertIsNone(gcm.fft_work(r))
            ns, algo = gcm.conv_ns(r, DEVICE, eff)
            self.assertEqual(algo, "gemm")
            self.assertAlmostEqual(ns / 1e3, 235.9296)
        rows = [conv("Conv2D", 117964800, 1e4, "5x5", "1", *big),
                conv("Conv2DBackpropFilter", 117964800, 1e4, "5x5", "2", *big), row("Relu", 0, 10)]
        self.assertEqual(gcm.algorithm_counts(rows, DEVICE, eff), {"fft": 1, "gemm": 1})

    def test_layout_kernels_by_hand(self):
        # GoogLeNet's conv1 at batch 2: 7x7 stride 2 SAME on 224x224x3 -> 112x112x64. Total
        # padding (112 - 1) * 2 + 7 - 224 = 5 rows and columns, odd: PadInput copies the input
        # into 225x225 (read 2*224*224*3, write 2*225*225*3 floats).
        shapes = {"kernel": "7x7", "stride": "2", "x_shape": "2x224x224x3",
                  "y_shape": "2x112x112x64"}
        fwd = dict(row("Conv2D", 1.0, 1.0), **shapes)
        filt, x, xp, y = 8.0 * 7 * 7 * 3 * 64, 2 * 224 * 224 * 3, 2 * 225 * 225 * 3, \
            2 * 112 * 112 * 64
        self.assertEqual(gcm.layout_kernels(fwd), [filt, 4.0 * (x + xp)])
        self.assertEqual(gcm.layout_kernels(dict(fwd, op="Conv2DBackpropInput")),
                         [filt, 4.0 * (x + xp)])
        # NHWC adds the transposes: forward input (padded) and output; backward data output
        # gradient and input gradient; backward filter output gradient and input (padded).
        self.assertEqual(gcm.layout_kernels(fwd, "NHWC"),
                         [filt, 4.0 * (x + xp), 8.0 * xp, 8.0 * y])
        self.assertEqual(gcm.layout_kernels(dict(fwd, op="Conv2DBackpropInput"), "NHWC")[2:],
                         [8.0 * y, 8.0 * x])
        self.assertEqual(gcm.layout_kernels(dict(fwd, op="Conv2DBackpropFilter"), "NHWC")[2:],
                         [8.0 * y, 8.0 * xp])
        self.assertEqual(gcm.layout_kernels(fwd, None), [])
        # VALID with nothing left over (AlexNet's conv1: 11x11 stride 4 on 227 -> 55) and a 3x3
        # SAME stride 1 (2 rows): even, the filter transform only.
        alex = dict(row("Conv2D", 1.0, 1.0), kernel="11x11", stride="4", x_shape="2x227x227x3",
                    y_shape="2x55x55x64")
        self.assertEqual(gcm.layout_kernels(alex), [8.0 * 11 * 11 * 3 * 64])
        same3 = dict(row("Conv2DBackpropFilter", 1.0, 1.0), kernel="3x3", stride="1",
                     x_shape="2x14x14x8", y_shape="2x14x14x16")
        self.assertEqual(gcm.layout_kernels(same3), [8.0 * 9 * 8 * 16])
        # A 1x1 stride-1 filter: through cuDNN in NCHW, cuBLAS directly in NHWC (no kernels).
        one = dict(same3, kernel="1x1")
        self.assertEqual(gcm.layout_kernels(one), [8.0 * 8 * 16])
        self.assertEqual(gcm.layout_kernels(one, "NHWC"), [])
        # Not a convolution, or no shapes: nothing.
        self.assertEqual(gcm.layout_kernels(row("Relu", 1.0, 1.0)), [])
        self.assertEqual(gcm.layout_kernels(dict(fwd, x_shape="")), [])

    def test_layout_kernels_priced_as_memory_with_a_launch_each(self):
        eff = dict(gcm.PRIOR_EFFICIENCIES, conv_fwd=0.5)
        # 1x1 without FFT: GEMM 1e6 FLOPs at 0.5 TFLOP/s = 2 us; TransformFilter of 8x16 floats
        # (1024 bytes at 75 GB/s = 13.653 ns) in memory; two launches of 1 us.
        r = conv("Conv2D", 1e6, 1.0, "1x1", "1", "2x14x14x8", "2x14x14x16")
        ms, parts = gcm.predict([r], DEVICE, eff)
        self.assertAlmostEqual(parts["conv_fwd"], 0.002)
        self.assertAlmostEqual(parts["memory"], 1024 / 75e9 * 1e3)
        self.assertAlmostEqual(parts["launch"], 0.002)
        bare = gcm.DEFAULT_PRICING._replace(data_format=None)
        self.assertAlmostEqual(gcm.predict([r], DEVICE, eff, bare)[0], 0.003)

    def test_fft_when_eligible_takes_the_slower_fft(self):
        eff = dict(gcm.PRIOR_EFFICIENCIES, conv_fwd=0.5)
        # The 8 -> 8 channel 5x5 of test_fft_chosen_when_faster_by_hand: the GEMM is faster, but
        # "fft_when_eligible" takes the FFT (0.589824 + 4.509013 us).
        small = conv("Conv2D", 1843200, 1e4, "5x5", "1", "4x12x12x8", "4x12x12x8")
        first = gcm.DEFAULT_PRICING._replace(choice="fft_when_eligible")
        ns, algo = gcm.conv_ns(small, DEVICE, eff, first)
        self.assertEqual(algo, "fft")
        self.assertAlmostEqual(ns / 1e3, 0.589824 + 338176 / 75e3, places=6)

    def test_bad_pricing_is_an_error(self):
        eff = dict(gcm.PRIOR_EFFICIENCIES, conv_fwd=0.5)
        r = conv("Conv2D", 1e6, 1.0, "1x1", "1", "2x14x14x8", "2x14x14x16")
        with self.assertRaisesRegex(gcm.CostModelError, "data_format 'NWHC': expected one of"):
            gcm.predict([r], DEVICE, eff, gcm.DEFAULT_PRICING._replace(data_format="NWHC"))
        with self.assertRaisesRegex(gcm.CostModelError, "algorithm choice 'best': expected"):
            gcm.conv_ns(r, DEVICE, eff, gcm.DEFAULT_PRICING._replace(choice="best"))

    def test_calibration_recovers_the_efficiencies(self):
        fwd = [row("Conv2D", 4e9, 1e6, "5x5"), row("MatMul", 1e9, 1e6)]
        fb = fwd + [row("Conv2DBackpropInput", 4e9, 1e6, "5x5"),
                    row("Conv2DBackpropFilter", 4e9, 1e6, "5x5")]
        truth = dict(gcm.PRIOR_EFFICIENCIES, conv_fwd=0.9, conv_bwd_data=0.6, conv_bwd_filter=0.6)
        f = gcm.predict(fwd, DEVICE, truth)[0]
        b = gcm.predict(fb, DEVICE, truth)[0] - f
        eff = gcm.calibrate(fwd, fb, DEVICE, f, b)
        self.assertAlmostEqual(eff["conv_fwd"], 0.9, places=6)
        self.assertAlmostEqual(eff["conv_bwd_filter"], 0.6, places=6)

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
                f.write("node,op,flops,bytes_accessed,output_bytes,needed,kernel,stride,x_shape,"
                        "y_shape\na,Conv2D,100,10,4,1,3x3,1,2x5x5x3,2x5x5x4\n"
                        "b,Conv2DBackpropInput,100,10,4,0,3x3,1,2x5x5x3,2x5x5x4\n"
                        "c,Identity,0,0,4,1,,,,\n")
            rows = gcm.load_work(path)
            self.assertEqual([r["node"] for r in rows], ["a"])
            self.assertEqual((rows[0]["stride"], rows[0]["x_shape"], rows[0]["y_shape"]),
                             ("1", "2x5x5x3", "2x5x5x4"))


if __name__ == "__main__":
    unittest.main()
