#!/usr/bin/python3
"""Checks of coarse_step_graph.py (CTest osdi2016_coarse_step_graph): placement of every variable,
the compute split over the layers' weights (forward a third, backward two thirds, all the FLOPs),
the forward and backward chains in layer order, each gradient after its layer's backward, the
variable sizes read from an opwork table, and bad input."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import coarse_step_graph as c  # noqa: E402

# Three layers: weights (64 KB) + bias (256 B) each, then a 4-byte scalar.
VARS = [65536, 256, 65536, 256, 65536, 256, 4]


def nodes(graph):
    return {n["name"]: n for n in graph["nodes"]}


def matmul_flops(ns, name):
    side = ns[f"{name}_a"]["attrs"]["shape"]["shape"][0]
    return 2 * side ** 3


class CoarseStepGraphTest(unittest.TestCase):
    def test_every_variable_on_its_round_robin_ps_task_with_its_bytes(self):
        ns = nodes(c.step_graph(VARS, 3, 6e9))
        for j, b in enumerate(VARS):
            v = ns[f"v_{j}"]
            self.assertEqual(v["device"], f"/job:ps/task:{j % 3}")
            self.assertEqual(v["attrs"]["shape"]["shape"], [max(1, b // 4)])
            self.assertEqual(ns[f"fetch_{j}"]["inputs"], [f"v_{j}"])
            self.assertEqual(ns[f"apply_{j}"]["op"], "AssignAdd")
            self.assertNotIn("device", ns[f"apply_{j}"])  # colocated with v_j by the engine
            self.assertEqual(ns[f"grad_{j}"]["inputs"][0], f"fetch_{j}")

    def test_the_compute_goes_to_the_weights_a_third_forward(self):
        flops = 6e9
        ns = nodes(c.step_graph(VARS, 2, flops))
        weights = [0, 2, 4]
        self.assertEqual(sorted(n[4:] for n in ns if n.startswith("fwd_") and "_" not in n[4:]),
                         ["0", "2", "4"])
        fwd = sum(matmul_flops(ns, f"fwd_{j}") for j in weights)
        bwd = sum(matmul_flops(ns, f"bwd_{j}") for j in weights)
        self.assertAlmostEqual(fwd / flops, 1 / 3, delta=0.01)  # sides are rounded to integers
        self.assertAlmostEqual(bwd / flops, 2 / 3, delta=0.01)

    def test_forward_in_layer_order_backward_reversed_gradients_after_their_layer(self):
        ns = nodes(c.step_graph(VARS, 2, 6e9))
        self.assertEqual(ns["fwd_0"]["inputs"][2:], ["^fetch_0"])
        self.assertEqual(ns["fwd_2"]["inputs"][2:], ["^fetch_1", "^fetch_2", "^fwd_0"])
        self.assertEqual(ns["bwd_4"]["inputs"][2:], ["^fwd_4"])
        self.assertEqual(ns["bwd_2"]["inputs"][2:], ["^bwd_4"])
        self.assertEqual(ns["bwd_0"]["inputs"][2:], ["^bwd_2"])
        # The scalar above the last layer leaves first, the bias with the layer above's backward.
        self.assertEqual(ns["grad_6"]["inputs"], ["fetch_6", "^fwd_4"])
        self.assertEqual(ns["grad_4"]["inputs"], ["fetch_4", "^bwd_4"])
        self.assertEqual(ns["grad_3"]["inputs"], ["fetch_3", "^bwd_4"])
        self.assertEqual(ns["grad_0"]["inputs"], ["fetch_0", "^bwd_0"])

    def test_without_large_variables_the_largest_carries_the_compute(self):
        ns = nodes(c.step_graph([8, 40, 4], 1, 1e6))
        self.assertIn("fwd_1", ns)
        self.assertNotIn("fwd_0", ns)

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
