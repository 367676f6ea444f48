// inception_v3 against torchvision 0.14 (Debian's /usr/bin/python3 with torch and torchvision):
// the model's initial weights, a batch of two images and the results of one training-form step
// are written as .npy files, and tests/experiments/inception_v3_torchvision.py loads the weights
// into torchvision.models.inception_v3(aux_logits=False, transform_input=False) and compares
// logits, every gradient and the batch-norm moving statistics (see the script for tolerances).
// This checks the branch widths, the concatenation orders, the factorized convs' padding, the
// count_include_pad average pools and batch normalization end to end. Without torch and
// torchvision the test prints "skipped" and passes.
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include <catch2/catch.hpp>

#include "engine/io/npy.h"
#include "experiments/models/models.h"
#include "tests/engine/trace/temp_dir.h"
#include "tests/test_util.h"

namespace fb::experiments {
namespace {

bool HaveTorchvision() {
  static const bool ok =
      std::system("/usr/bin/python3 -c 'import torch, torchvision' >/dev/null 2>&1") == 0;
  if (!ok) std::cout << "skipped: /usr/bin/python3 with torch and torchvision not found\n";
  return ok;
}

void Write(const Tensor& t, const std::string& path) {
  Status s = WriteNpy(t, path);
  INFO(s.ToString());
  REQUIRE(s.ok());
}

// Writes `list` (the variables' names, one a line) and <prefix><i>.npy for `values`.
void WriteAll(const test::TempDir& dir, const std::string& list, const std::string& prefix,
              const std::vector<ModelVariable>& vs, const std::vector<Tensor>& values) {
  std::ofstream names(dir.file(list));
  for (size_t i = 0; i < vs.size(); ++i) {
    names << vs[i].name << "\n";
    Write(values[i], dir.file(prefix + std::to_string(i) + ".npy"));
  }
}

std::vector<std::string> Fetches(const std::vector<ModelVariable>& vs) {
  std::vector<std::string> names;
  for (const ModelVariable& v : vs) names.push_back(v.name + ":0");
  return names;
}

// Runs the comparison script on `dir`; its output is the failure message.
void Compare(const test::TempDir& dir) {
  const std::string log = dir.file("compare.log");
  const std::string cmd = std::string("/usr/bin/python3 ") + FB_SOURCE_DIR +
                          "/tests/experiments/inception_v3_torchvision.py " + dir.path() + " >" +
                          log + " 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  INFO(text.str());
  CHECK(rc == 0);
  CHECK_THAT(text.str(), Catch::Contains("logits:") && Catch::EndsWith("OK\n"));
}

// 107x107 is the smallest size whose 8x8 blocks keep 2x2 positions (at 75x75 they are 1x1 and
// batch normalization over two values is ill-conditioned for a float32 comparison).
TEST_CASE("inception_v3 matches torchvision's logits, gradients and running statistics",
          "[inception]") {
  if (!HaveTorchvision()) return;
  constexpr int64_t kSize = 107;
  auto o = WithModelDefaults("inception_v3", ModelOptions{});
  REQUIRE(o.ok());
  o->image_shape = {kSize, kSize, 3};
  o->num_classes = 10;
  o->batch_size = 2;
  auto m = BuildModel("inception_v3", *o);
  INFO(m.status().ToString());
  REQUIRE(m.ok());
  auto s = test::MakeSession(m->scope.ToGraphDef());
  test::RunOk(s.get(), {}, {}, {m->init});
  Tensor x(DataType::kFloat, TensorShape{2, kSize, kSize, 3});
  for (int64_t i = 0; i < x.NumElements(); ++i) x.data<float>()[i] = std::sin(0.01f * i);
  Tensor labels = Tensor::FromVector(std::vector<int32_t>{1, 7}, TensorShape{2});

  test::TempDir dir;
  WriteAll(dir, "names.txt", "v", m->variables, test::RunOk(s.get(), {}, Fetches(m->variables)));
  std::vector<std::string> fetches = m->gradients;
  fetches.push_back(m->logits);
  // The forward and backward pass with the moving-average updates, but no optimizer step.
  std::vector<Tensor> out =
      test::RunOk(s.get(), {{m->images, x}, {m->labels, labels}}, fetches, {m->update_op});
  Write(out.back(), dir.file("logits.npy"));
  out.pop_back();
  WriteAll(dir, "grads.txt", "g", m->variables, out);
  WriteAll(dir, "nt_names.txt", "m", m->non_trainable_variables,
           test::RunOk(s.get(), {}, Fetches(m->non_trainable_variables)));
  Write(x, dir.file("x.npy"));
  Write(labels, dir.file("labels.npy"));
  Compare(dir);
}

}  // namespace
}  // namespace fb::experiments
