#pragma once
// End-to-end comparison of a batch-normalized model with torchvision 0.14 (Debian's
// /usr/bin/python3 with torch and torchvision), shared by the resnet50 and inception_v3 tests:
// the model's initial weights (names.txt, v<i>.npy), one training-form step's gradients
// (grads.txt, g<i>.npy), logits (logits.npy) and moving statistics after the update (nt_names.txt,
// m<i>.npy), and the batch (x.npy, labels.npy) are written to a temporary directory, and
// `script` (under tests/experiments/) loads them into torchvision and compares; its output is the
// failure message. Without torch and torchvision, HaveTorchvision prints "skipped".
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/io/npy.h"
#include "experiments/models/models.h"
#include "tests/engine/trace/temp_dir.h"
#include "tests/test_util.h"

namespace fb::experiments::test_torchvision {

inline bool HaveTorchvision() {
  static const bool ok =
      std::system("/usr/bin/python3 -c 'import torch, torchvision' >/dev/null 2>&1") == 0;
  if (!ok) std::cout << "skipped: /usr/bin/python3 with torch and torchvision not found\n";
  return ok;
}

inline void Write(const Tensor& t, const std::string& path) {
  Status s = WriteNpy(t, path);
  INFO(s.ToString());
  REQUIRE(s.ok());
}

// Writes `list` (the variables' names, one a line) and <prefix><i>.npy for `values`.
inline void WriteAll(const test::TempDir& dir, const std::string& list, const std::string& prefix,
                     const std::vector<ModelVariable>& vs, const std::vector<Tensor>& values) {
  std::ofstream names(dir.file(list));
  for (size_t i = 0; i < vs.size(); ++i) {
    names << vs[i].name << "\n";
    Write(values[i], dir.file(prefix + std::to_string(i) + ".npy"));
  }
}

inline std::vector<std::string> Fetches(const std::vector<ModelVariable>& vs) {
  std::vector<std::string> names;
  for (const ModelVariable& v : vs) names.push_back(v.name + ":0");
  return names;
}

// Builds `model` with `o`, runs one forward and backward pass on (x, labels) with the
// moving-average updates but no optimizer step, and runs `script` on the results.
inline void CompareWithTorchvision(const std::string& model, const ModelOptions& o,
                                   const Tensor& x, const Tensor& labels,
                                   const std::string& script) {
  auto m = BuildModel(model, o);
  INFO(m.status().ToString());
  REQUIRE(m.ok());
  auto s = test::MakeSession(m->scope.ToGraphDef());
  test::RunOk(s.get(), {}, {}, {m->init});
  test::TempDir dir;
  WriteAll(dir, "names.txt", "v", m->variables, test::RunOk(s.get(), {}, Fetches(m->variables)));
  std::vector<std::string> fetches = m->gradients;
  fetches.push_back(m->logits);
  std::vector<Tensor> out =
      test::RunOk(s.get(), {{m->images, x}, {m->labels, labels}}, fetches, {m->update_op});
  Write(out.back(), dir.file("logits.npy"));
  out.pop_back();
  WriteAll(dir, "grads.txt", "g", m->variables, out);
  WriteAll(dir, "nt_names.txt", "m", m->non_trainable_variables,
           test::RunOk(s.get(), {}, Fetches(m->non_trainable_variables)));
  Write(x, dir.file("x.npy"));
  Write(labels, dir.file("labels.npy"));

  const std::string log = dir.file("compare.log");
  const std::string cmd = std::string("/usr/bin/python3 ") + FB_SOURCE_DIR +
                          "/tests/experiments/" + script + " " + dir.path() + " >" + log + " 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  INFO(text.str());
  CHECK(rc == 0);
  CHECK_THAT(text.str(), Catch::Contains("logits:") && Catch::EndsWith("OK\n"));
}

}  // namespace fb::experiments::test_torchvision
