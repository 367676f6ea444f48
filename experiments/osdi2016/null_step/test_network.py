#!/usr/bin/python3
"""Checks of the null step's network model (CTest osdi2016_null_step_network): the platform's
per-byte host cost shared by sending and receiving (null_graph.write_platform), and the
calibration note that inception_v3/run and lstm_lm/run read back (common.network_note,
common.parse_network_note)."""
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
import common  # noqa: E402
import null_graph  # noqa: E402


class NetworkTest(unittest.TestCase):
    def platform(self, **kw):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "p.xml")
            null_graph.write_platform(path, 3, 5e9, 5e-5, 1e11, 2e10, **kw)
            with open(path) as f:
                return f.read()

    def test_host_cost_is_written_for_both_directions(self):
        text = self.platform(message_overhead_ns=74000, host_bytes_per_s=2.288e9)
        self.assertIn('<prop id="serialize_bytes_per_s" value="2.288e+09"/>', text)
        self.assertIn('<prop id="send_serialize_bytes_per_s" value="2.288e+09"/>', text)
        self.assertIn('<prop id="message_overhead_ns" value="74000"/>', text)
        plain = self.platform(message_overhead_ns=74000)
        self.assertNotIn("serialize_bytes_per_s", plain)

    def test_sparse_ids_come_from_the_worker(self):
        # 2016 embedding_lookup: the worker partitions the ids and sends each PS its share; the
        # PS gathers with them (a PS-side Const would save the PS one message per worker step).
        g = {n["name"]: n for n in null_graph.null_step_graph("sparse", 1 << 20, 16)["nodes"]}
        for k in range(16):
            self.assertEqual(g[f"idx_{k}"]["device"], "/job:worker")
            self.assertEqual(g[f"lookup_{k}"]["inputs"], [f"table_{k}", f"idx_{k}"])
            self.assertEqual(g[f"lookup_{k}"]["device"], f"/job:ps/task:{k}")
        ids = sum(len(g[f"idx_{k}"]["attrs"]["value"]["tensor"]["values"]) for k in range(16))
        self.assertEqual(ids, null_graph.SPARSE_ROWS)

    def test_negative_host_rate_is_refused_by_name(self):
        with self.assertRaisesRegex(ValueError, "host_bytes_per_s must be >= 0, got -1"):
            self.platform(host_bytes_per_s=-1)

    def test_note_round_trip(self):
        note = "5 steps; " + common.network_note(1e12, 5e-5, 74000, 2.288e9)
        self.assertIn("host 2.288 GB/s shared by send and receive", note)
        bw, lat, msg, host = common.parse_network_note(note)
        self.assertAlmostEqual(bw, 1e12)
        self.assertAlmostEqual(lat, 5e-5)
        self.assertAlmostEqual(msg, 74000)
        self.assertAlmostEqual(host, 2.288e9)

    def test_session18_note_has_no_host_cost(self):
        net = common.parse_network_note(
            "5 steps; NIC 2.163 GB/s, latency 50 us, 74.0 us per message")
        for got, want in zip(net, (2.163e9, 5e-5, 74000.0, 0.0)):
            self.assertAlmostEqual(got, want)
        self.assertEqual(len(net), 4)
        self.assertIsNone(common.parse_network_note("median of 10 steps, 4 ranks on 2 cores"))


if __name__ == "__main__":
    unittest.main()
