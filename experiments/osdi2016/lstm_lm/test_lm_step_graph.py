#!/usr/bin/python3
"""Checks of lm_step_graph.py (CTest osdi2016_lstm_lm_step_graph): the PS-side softmax work, the
candidate rows of the sampled softmax, the worker's compute time, the shards, and bad input; and
of run's start spread, paper PS speed and --sim-only errors."""
import importlib.machinery
import importlib.util
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import lm_step_graph as g  # noqa: E402


def load_run():
    """experiments/osdi2016/lstm_lm/run as a module (it has no .py suffix)."""
    loader = importlib.machinery.SourceFileLoader("lstm_lm_run", os.path.join(HERE, "run"))
    spec = importlib.util.spec_from_loader("lstm_lm_run", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod

MODEL = {"vocab": 1000, "embedding": 16, "cells": 16, "projection": 8, "num_sampled": 50}


def nodes(graph):
    return {n["name"]: n for n in graph["nodes"]}


def dims(n):
    return n["attrs"]["shape"]["shape"]


class LmStepGraphTest(unittest.TestCase):
    def test_full_softmax_runs_on_the_ps_tasks_with_all_its_flops(self):
        words, ps = 40, 3
        ns = nodes(g.step_graph(MODEL, ps, "full", words, 1e9, 0.01, 0.02))
        cols = [dims(ns[f"sw_{k}"])[1] for k in range(ps)]
        self.assertEqual(sum(cols), MODEL["vocab"])
        for k in range(ps):
            for op in ("logits", "dsw", "dh"):
                self.assertEqual(ns[f"{op}_{k}"]["device"], f"/job:ps/task:{k}")
            self.assertEqual(ns[f"logits_{k}"]["inputs"], ["h", f"sw_{k}"])
        # 3 products of 2 W P V/ps FLOPs per shard: 3 x 2 W P V in all.
        flops = sum(3 * 2 * words * MODEL["projection"] * c for c in cols)
        self.assertEqual(flops, 6 * words * MODEL["projection"] * MODEL["vocab"])
        self.assertIn("^dh_2", ns["backward"]["inputs"])

    def test_full_softmax_logits_round_trip_through_the_worker(self):
        # The cross-entropy normalises over every shard's logits, on the worker: each PS sends
        # its logits there and gets their gradient back before it computes dW_k and dh_k.
        ps = 3
        ns = nodes(g.step_graph(MODEL, ps, "full", 40, 1e9, 0.01, 0.02))
        self.assertEqual(ns["xent"]["device"], "/job:worker")
        for k in range(ps):
            self.assertEqual(ns[f"lg_{k}"]["inputs"][0], f"logits_{k}")
            self.assertEqual(ns[f"lg_{k}"]["device"], "/job:worker")
            self.assertIn(f"^lg_{k}", ns["xent"]["inputs"])
            self.assertEqual(ns[f"dlogits_{k}"]["device"], "/job:worker")
            self.assertIn("^xent", ns[f"dlogits_{k}"]["inputs"])
            self.assertEqual(ns[f"dsw_{k}"]["inputs"], [f"ht_{k}", f"dlogits_{k}"])
            self.assertEqual(ns[f"dh_{k}"]["inputs"], [f"dlogits_{k}", f"swt_{k}"])

    def test_sampled_softmax_gathers_the_candidate_rows_on_the_ps(self):
        words, ps = 40, 4
        ns = nodes(g.step_graph(MODEL, ps, "sampled", words, 1e9, 0.01, 0.02))
        rows = sum(len(ns[f"cand_{k}_idx"]["attrs"]["value"]["tensor"]["values"])
                   for k in range(ps))
        self.assertEqual(rows, MODEL["num_sampled"] + words)
        self.assertEqual(ns["cand_0_rows"]["op"], "Gather")
        self.assertEqual(ns["cand_0_rows"]["device"], "/job:ps/task:0")
        self.assertNotIn("logits_0", ns)

    def test_worker_matmuls_take_the_measured_time(self):
        words, flops = 64, 2e9
        ns = nodes(g.step_graph(MODEL, 2, "full", words, flops, 0.5, 1.0))
        k1 = dims(ns["x"])[1]
        k2 = dims(ns["w_bwd"])[1]
        p = MODEL["projection"]
        self.assertAlmostEqual(2 * words * k1 * p / flops, 0.5, delta=0.5 * 0.01)
        self.assertAlmostEqual(2 * words * p * k2 / flops, 1.0, delta=0.01)

    def test_lstm_variables_round_robin_and_embedding_sharded(self):
        ns = nodes(g.step_graph(MODEL, 2, "full", 10, 1e9, 0.01, 0.01))
        self.assertEqual(ns["lstm_weights"]["device"], "/job:ps/task:0")
        self.assertEqual(ns["lstm_biases"]["device"], "/job:ps/task:1")
        self.assertEqual(ns["lstm_projection"]["device"], "/job:ps/task:0")
        self.assertEqual(dims(ns["emb_0"])[0] + dims(ns["emb_1"])[0], MODEL["vocab"])
        # More PS tasks than words: shards without a row read get no Gather.
        ns = nodes(g.step_graph(MODEL, 8, "full", 3, 1e9, 0.01, 0.01))
        self.assertIn("emb_2_rows", ns)
        self.assertNotIn("emb_3_rows", ns)

    def test_start_spread_and_paper_ps_speed(self):
        run = load_run()
        self.assertEqual(run.start_spread({"start_spread": "worker_step"}, 0.9), 0.9)
        self.assertEqual(run.start_spread({"start_spread": 0.25}, 0.9), 0.25)
        self.assertEqual(run.start_spread({}, 0.9), 0)
        with self.assertRaisesRegex(Exception, "paper.start_spread must be worker_step or "
                                               "seconds >= 0, got 'soon'"):
            run.start_spread({"start_spread": "soon"}, 0.9)
        cfg = {"paper": {"paper_ps": {"cores": 8, "flops_per_cycle": 16,
                                      "this_machine_flops_per_cycle": 64, "clock_ratio": 1.0}}}
        self.assertAlmostEqual(run.paper_ps_speed(cfg, 104.7e9), 209.4e9)

    def test_sim_only_names_what_it_lacks(self):
        with tempfile.TemporaryDirectory() as d:
            missing = os.path.join(d, "nope.h5")
            out = subprocess.run([sys.executable, os.path.join(HERE, "run"), "--quick",
                                  "--sim-only", missing, "--out", d],
                                 capture_output=True, text=True)
            self.assertNotEqual(out.returncode, 0)
            self.assertIn(f"profile '{missing}' does not exist", out.stderr)

    def test_bad_input_is_named(self):
        with self.assertRaisesRegex(ValueError, "softmax must be full or sampled, got 'hier'"):
            g.step_graph(MODEL, 2, "hier", 10, 1e9, 0.01, 0.01)
        with self.assertRaisesRegex(ValueError, "ps=0"):
            g.step_graph(MODEL, 0, "full", 10, 1e9, 0.01, 0.01)


if __name__ == "__main__":
    unittest.main()
