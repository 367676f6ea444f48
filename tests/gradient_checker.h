#pragma once
// Numerical gradient check (central differences in float64), for every differentiable op:
// builds y = f(x_1..x_n) from float64 Placeholders, adds symbolic gradients of L = sum(w * y) for a
// fixed random w, and compares them with (L(x + eps e_i) - L(x - eps e_i)) / (2 eps) for every
// element of every x. Returns the largest absolute difference.
#include <functional>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "engine/autodiff/gradients.h"
#include "engine/client/state_ops.h"
#include "engine/runtime/session.h"

namespace fb::test {

using GraphFn = std::function<Output(const Scope&, const std::vector<Output>& xs)>;

inline double MaxGradientError(const GraphFn& f, const std::vector<Tensor>& x_values,
                               double eps = 1e-6) {
  Scope root = Scope::NewRootScope();
  std::vector<Output> xs;
  for (size_t i = 0; i < x_values.size(); ++i)
    xs.push_back(ops::Placeholder(root.WithOpName("x" + std::to_string(i)), x_values[i].dtype()));
  Output y = f(root, xs);
  Output w = ops::Placeholder(root.WithOpName("w"), y.valid() ? y.type() : DataType::kDouble);
  INFO(root.status().ToString());
  REQUIRE(root.ok());
  std::vector<NodeOut> grads;
  Status st = AddSymbolicGradients(root.graph(), {y}, {xs.begin(), xs.end()}, {w}, &grads);
  INFO(st.ToString());
  REQUIRE(st.ok());

  auto session = Session::Create(SessionOptions());
  REQUIRE(session.ok());
  REQUIRE((*session)->Extend(root.ToGraphDef()).ok());
  auto run = [&](const std::vector<Tensor>& xv, const std::vector<std::string>& fetches,
                 const Tensor* wv) {
    std::vector<Session::NamedTensor> feeds;
    for (size_t i = 0; i < xv.size(); ++i) feeds.push_back({xs[i].name(), xv[i]});
    if (wv) feeds.push_back({w.name(), *wv});
    std::vector<Tensor> out;
    Status s = (*session)->Run(feeds, fetches, {}, &out);
    INFO(s.ToString());
    REQUIRE(s.ok());
    return out;
  };
  Tensor y0 = run(x_values, {y.name()}, nullptr)[0];
  REQUIRE(y0.dtype() == DataType::kDouble);
  Tensor wv(DataType::kDouble, y0.shape());
  std::mt19937 rng(42);
  std::uniform_real_distribution<double> dist(0.5, 1.5);
  for (int64_t i = 0; i < wv.NumElements(); ++i) wv.data<double>()[i] = dist(rng);
  auto loss = [&](const std::vector<Tensor>& xv) {
    Tensor yv = run(xv, {y.name()}, nullptr)[0];
    double l = 0;
    for (int64_t i = 0; i < yv.NumElements(); ++i) l += yv.data<double>()[i] * wv.data<double>()[i];
    return l;
  };
  std::vector<std::string> grad_names;
  for (const NodeOut& g : grads) grad_names.push_back(g.name());
  std::vector<Tensor> symbolic = run(x_values, grad_names, &wv);
  double max_err = 0;
  for (size_t k = 0; k < x_values.size(); ++k) {
    if (x_values[k].dtype() != DataType::kDouble) continue;  // integer inputs: no gradient
    REQUIRE(symbolic[k].shape() == x_values[k].shape());
    for (int64_t i = 0; i < x_values[k].NumElements(); ++i) {
      std::vector<Tensor> plus, minus;
      for (const Tensor& t : x_values) plus.push_back(t.DeepCopy()), minus.push_back(t.DeepCopy());
      plus[k].data<double>()[i] += eps;
      minus[k].data<double>()[i] -= eps;
      double numeric = (loss(plus) - loss(minus)) / (2 * eps);
      double err = std::abs(numeric - symbolic[k].data<double>()[i]);
      if (err > max_err) max_err = err;
    }
  }
  return max_err;
}

// A float64 tensor of `shape` with values uniform in [lo, hi), seeded.
inline Tensor RandomDouble(const TensorShape& shape, double lo = -1, double hi = 1, int seed = 1) {
  Tensor t(DataType::kDouble, shape);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<double>()[i] = dist(rng);
  return t;
}

}  // namespace fb::test
