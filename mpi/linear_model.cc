#include "mpi/linear_model.h"

#include "engine/client/math_ops.h"
#include "engine/client/state_ops.h"

namespace fb::mpi {

namespace {
// A float in [-1, 1) from a 64-bit hash (splitmix64) of the indices.
float Uniform(uint64_t a, uint64_t b) {
  uint64_t z = a * 0x9E3779B97F4A7C15ull + b + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<float>(z >> 40) / static_cast<float>(1 << 23) - 1.f;
}
}  // namespace

ModelFns LinearRegression::Fns() const {
  int d = features;
  ModelFns fns;
  fns.variables = [d](const Scope& s) {
    Output w = ops::Variable(s.WithOpName("W"), TensorShape{d, 1}, DataType::kFloat);
    Output b = ops::Variable(s.WithOpName("b"), TensorShape{1}, DataType::kFloat);
    std::vector<Output> inits = {
        ops::Assign(s, w, ops::Const(s, std::vector<float>(d, 0.1f), TensorShape{d, 1})),
        ops::Assign(s, b, ops::Const(s, std::vector<float>{0.f}, TensorShape{1}))};
    return ModelVariables{{w, b}, inits, {}};
  };
  fns.loss = [d](const Scope& s, const ModelVariables& v) -> ReplicaOutputs {
    const std::vector<Output>& vars = v.trainable;
    Output x = ops::Placeholder(s.WithOpName("x"), DataType::kFloat, TensorShape{-1, d});
    Output y = ops::Placeholder(s.WithOpName("y"), DataType::kFloat, TensorShape{-1, 1});
    Output pred = ops::Add(s, ops::MatMul(s, x, vars[0]), vars[1]);
    return ops::Mean(s.WithOpName("loss"), ops::Square(s, ops::Sub(s, pred, y)), std::vector<int>{0, 1});
  };
  return fns;
}

std::pair<Tensor, Tensor> LinearRegression::Batch(int64_t step, int64_t begin, int64_t end) const {
  int64_t n = end - begin;
  Tensor x(DataType::kFloat, TensorShape{n, features});
  Tensor y(DataType::kFloat, TensorShape{n, 1});
  for (int64_t r = 0; r < n; ++r) {
    float acc = 0.5f;
    for (int k = 0; k < features; ++k) {
      float v = Uniform(static_cast<uint64_t>(step) * 1000003 + begin + r, k);
      x.data<float>()[r * features + k] = v;
      acc += v * (k + 1.f) / features * (k % 2 ? -1.f : 1.f);
    }
    y.data<float>()[r] = acc;
  }
  return {x, y};
}

std::vector<std::pair<std::string, Tensor>> LinearRegression::Feeds(
    int replica, const std::pair<Tensor, Tensor>& batch) const {
  std::string p = ReplicaPrefix(replica);
  return {{p + "/x", batch.first}, {p + "/y", batch.second}};
}

double LinearRegression::Loss(const Tensor& w, const Tensor& b, const std::pair<Tensor, Tensor>& batch) const {
  const Tensor& x = batch.first;
  int64_t n = x.dim_size(0);
  double total = 0;
  for (int64_t r = 0; r < n; ++r) {
    double pred = b.data<float>()[0];
    for (int k = 0; k < features; ++k) pred += x.data<float>()[r * features + k] * w.data<float>()[k];
    double e = pred - batch.second.data<float>()[r];
    total += e * e;
  }
  return n ? total / n : 0;
}

}  // namespace fb::mpi
