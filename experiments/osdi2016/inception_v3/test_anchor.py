#!/usr/bin/python3
"""Checks of anchor.py (CTest osdi2016_inception_anchor): the --quick settings, the errors on a
bad spec (unknown mode, missing kept profile), the worker hosts' speed read from a platform, and
the profiled one-process step (and its error when the anchor's batch was not profiled)."""
import os
import sys
import tempfile
import types
import unittest

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
import anchor  # noqa: E402
import common  # noqa: E402

CFG = {"anchor": {"model": "inception_v3", "ps": 1, "workers": 3, "batch": 2, "modes": ["sync"],
                  "backups": 1, "steps": 10, "repeats": 3, "lr": 0.01, "sim_steps": 10,
                  "quick": {"model": "lenet", "batch": 16, "modes": ["async"]}}}


class AnchorTest(unittest.TestCase):
    def test_quick_overrides_and_keeps_the_rest(self):
        full, quick = anchor.settings(CFG, False), anchor.settings(CFG, True)
        self.assertEqual((full["model"], full["batch"], full["modes"]), ("inception_v3", 2, ["sync"]))
        self.assertEqual((quick["model"], quick["batch"], quick["modes"]), ("lenet", 16, ["async"]))
        self.assertEqual((quick["ps"], quick["workers"]), (1, 3))
        self.assertNotIn("quick", quick)
        self.assertIn("quick", CFG["anchor"])  # the spec itself is not changed

    def test_an_unknown_mode_is_named(self):
        bad = {"anchor": dict(CFG["anchor"], modes=["sync", "hogwild"])}
        with self.assertRaisesRegex(common.RunError, "anchor.modes.*hogwild"):
            anchor.settings(bad, False)

    def test_missing_or_bad_settings_are_named(self):
        with self.assertRaisesRegex(common.RunError, "no `anchor`"):
            anchor.settings({}, False)
        no_steps = {"anchor": {k: v for k, v in CFG["anchor"].items() if k != "steps"}}
        with self.assertRaisesRegex(common.RunError, "missing.*steps"):
            anchor.settings(no_steps, False)
        for key, value in (("workers", 0), ("batch", "two"), ("repeats", 1.5)):
            with self.assertRaisesRegex(common.RunError, f"anchor.{key} must be an integer"):
                anchor.settings({"anchor": dict(CFG["anchor"], **{key: value})}, False)
        with self.assertRaisesRegex(common.RunError, "anchor.modes must be a list"):
            anchor.settings({"anchor": dict(CFG["anchor"], modes="sync")}, False)

    def test_a_missing_kept_profile_is_named(self):
        args = types.SimpleNamespace(build_dir="build")
        with self.assertRaisesRegex(common.RunError, "anchor.profile.*nosuch.h5"):
            anchor.profile(args, {"profile": "nosuch.h5"}, tempfile.gettempdir())

    def _platform(self, zone_body):
        """A platform file holding one Full zone with `zone_body`, removed after the test."""
        with tempfile.NamedTemporaryFile("w", suffix=".xml", delete=False) as f:
            f.write('<platform version="4.1"><zone id="z" routing="Full">%s</zone></platform>'
                    % zone_body)
        self.addCleanup(os.unlink, f.name)
        return f.name

    def test_host_speed_of_the_worker_hosts(self):
        self.assertEqual(anchor.host_speed(self._platform(
            '<host id="ps0" speed="1f"/><host id="worker0" speed="4e10f"/>')), 4e10)
        with self.assertRaisesRegex(common.RunError, "worker0.*'fast'"):
            anchor.host_speed(self._platform('<host id="worker0" speed="fast"/>'))
        with self.assertRaisesRegex(common.RunError, "no worker host"):
            anchor.host_speed(self._platform('<host id="ps0" speed="1f"/>'))

    def test_profiled_step_and_a_batch_not_profiled(self):
        path = os.path.join(tempfile.mkdtemp(), "p.h5")
        steps = np.array([(b"lenet", 16, 1, 3.5e6), (b"lenet", 32, 1, 6.0e6)],
                         dtype=[("model", "S64"), ("batch", "<i8"), ("threads", "<i4"),
                                ("median_step_ns", "<f8")])
        with h5py.File(path, "w") as f:
            f["/steps"] = steps
        self.assertAlmostEqual(anchor.profiled_step_s(path, "lenet", 32), 6.0e-3)
        with self.assertRaisesRegex(common.RunError, "no step of lenet at batch 8"):
            anchor.profiled_step_s(path, "lenet", 8)


if __name__ == "__main__":
    unittest.main()
