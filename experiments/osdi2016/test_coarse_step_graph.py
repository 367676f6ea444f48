#!/usr/bin/python3
"""Checks of coarse_step_graph.py (CTest osdi2016_coarse_step_graph): the layers (weights with
the small variables after them), their placement, the compute split (evenly over the layers,
forward a third, backward two thirds, all the FLOPs), the forward and backward chains in layer
order, each gradient after its layer's backward, the variable sizes read from an opwork table,
and bad input."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import coarse_step_graph as c  # noqa: E402

# A 4-byte scalar first, then three layers: weights (64 KB) + bias (256 B) each.
VARS = [4, 65536, 256, 65536, 256, 65536, 256]


def nodes(graph):
    return {n["name"]: n for n in graph["nodes"]}


def matmul_flops(ns, name):
    side = ns[f"{name}_a"]["attrs"]["shape"]["shape"][0]
    return 2 * side ** 3


class CoarseStepGraphTest(unittest.TestCase):
    def test_layers_are_weights_with_the_small_variables_after_them(self):
        self.assertEqual(c.layers(VARS), [4 + 65536 + 256, 65536 + 256, 65536 + 256])
        self.assertEqual(c.layers([8, 40, 4]), [52])  # no weights: one layer
        self.assertEqual(c.layers([100, 5], min_compute_bytes=50), [105])

    def test_every_layer_on_its_round_robin_ps_task_with_its_bytes(self):
        ns = nodes(c.step_graph(VARS, 2, 6e9))
        sizes = c.layers(VARS)
        self.assertNotIn("v_3", ns)
        for j, b in enumerate(sizes):
            v = ns[f"v_{j}"]
            self.assertEqual(v["device"], f"/job:ps/task:{j % 2}")
            self.assertEqual(v["attrs"]["shape"]["shape"], [b // 4])
            self.assertEqual(ns[f"fetch_{j}"]["inputs"], [f"v_{j}"])
            self.assertEqual(ns[f"apply_{j}"]["op"], "AssignAdd")
            self.assertNotIn("device", ns[f"apply_{j}"])  # colocated with v_j by the engine
            self.assertEqual(ns[f"grad_{j}"]["inputs"], [f"fetch_{j}", f"^bwd_{j}"])

    def test_the_compute_is_all_there_a_third_forward(self):
        flops = 6e9
        ns = nodes(c.step_graph(VARS, 2, flops))
        fwd = sum(matmul_flops(ns, f"fwd_{j}") for j in range(3))
        bwd = sum(matmul_flops(ns, f"bwd_{j}") for j in range(3))
        self.assertAlmostEqual(fwd / flops, 1 / 3, delta=0.01)  # sides are rounded to integers
        self.assertAlmostEqual(bwd / flops, 2 / 3, delta=0.01)

    def test_forward_in_layer_order_backward_reversed(self):
        ns = nodes(c.step_graph(VARS, 2, 6e9))
        self.assertEqual(ns["fwd_0"]["inputs"][2:], ["^fetch_0"])
        self.assertEqual(ns["fwd_2"]["inputs"][2:], ["^fetch_2", "^fwd_1"])
        self.assertEqual(ns["bwd_2"]["inputs"][2:], ["^fwd_2"])
        self.assertEqual(ns["bwd_1"]["inputs"][2:], ["^bwd_2"])
        self.assertEqual(ns["bwd_0"]["inputs"][2:], ["^bwd_1"])

    def test_variable_bytes_reads_the_needed_variables_in_order(self):
        with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
            f.write("node,op,flops,output_bytes,needed\nw,Variable,0,400,1\nx,Conv2D,9,8,1\n"
                    "unused,Variable,0,12,0\nb,Variable,0,16,1\n")
        try:
            self.assertEqual(c.variable_bytes(f.name), [400, 16])
        finally:
            os.unlink(f.name)

    def test_bad_input_is_refused_with_the_reason(self):
        for args in (([], 2, 1e9), ([4, 0], 2, 1e9), ([4], 0, 1e9), ([4], 1, 0)):
            with self.assertRaises(ValueError):
                c.step_graph(*args)


if __name__ == "__main__":
    unittest.main()
