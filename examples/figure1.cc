// Whitepaper Figure 1, built with the C++ client API and run 10 times:
//   b = Variable(zeros[100]); W = Variable(uniform[784,100]); x = Placeholder([1,784])
//   relu = Relu(MatMul(x, W) + b)
// Each step feeds a fresh random x and fetches relu. Usage: build/figure1
#include <iostream>
#include <random>

#include <fmt/format.h>

#include "engine/client/math_ops.h"
#include "engine/client/nn_ops.h"
#include "engine/client/random_ops.h"
#include "engine/client/state_ops.h"
#include "engine/runtime/session.h"

using namespace fb;  // NOLINT: example program

int main() {
  Scope root = Scope::NewRootScope();
  auto b = ops::Variable(root.WithOpName("b"), {100}, DataType::kFloat);
  auto W = ops::Variable(root.WithOpName("W"), {784, 100}, DataType::kFloat);
  auto init_b = ops::Assign(root.WithOpName("init_b"), b,
                            ops::Const(root, std::vector<float>(100, 0.0f), TensorShape{100}));
  auto init_W = ops::Assign(root.WithOpName("init_W"), W,
                            ops::RandomUniform(root, {784, 100}, DataType::kFloat, /*seed=*/1));
  auto x = ops::Placeholder(root.WithOpName("x"), DataType::kFloat, {1, 784});
  auto relu = ops::Relu(root.WithOpName("relu"), ops::Add(root, ops::MatMul(root, x, W), b));
  if (!root.ok()) {
    std::cerr << root.status() << "\n";
    return 1;
  }
  auto session = Session::Create(SessionOptions{});
  Status st = session.ok() ? (*session)->Extend(root.ToGraphDef()) : session.status();
  std::vector<Tensor> out;
  if (st.ok()) st = (*session)->Run({}, {}, {"init_b", "init_W"}, &out);
  std::mt19937 gen(42);
  std::uniform_real_distribution<float> uniform(0, 1);
  for (int step = 0; st.ok() && step < 10; ++step) {
    Tensor input(DataType::kFloat, TensorShape{1, 784});
    for (int i = 0; i < 784; ++i) input.data<float>()[i] = uniform(gen);
    st = (*session)->Run({{"x:0", input}}, {"relu:0"}, {}, &out);
    if (!st.ok()) break;
    int active = 0;
    for (int i = 0; i < 100; ++i) active += out[0].data<float>()[i] > 0;
    fmt::print("step {}: relu {} ({} of 100 units active)\n", step,
               out[0].TypeAndShapeString(), active);
  }
  if (!st.ok()) {
    std::cerr << st << "\n";
    return 1;
  }
  return 0;
}
