#pragma once
// Helpers for the NN op tests: run one op on constant inputs through a real Session, and run an
// op's shape function on given input shapes.
#include <functional>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "engine/client/nn_ops.h"
#include "engine/client/state_ops.h"
#include "engine/framework/shape_inference.h"
#include "engine/runtime/session.h"

namespace fb::test {

using OpBuilder = std::function<std::vector<Output>(const Scope&, const std::vector<Output>&)>;

// Builds f over Const inputs holding `inputs`, runs it on one CPU device (2 threads) and returns
// its outputs, or the first build or run error.
inline StatusOr<std::vector<Tensor>> RunOp(const OpBuilder& f, const std::vector<Tensor>& inputs) {
  Scope root = Scope::NewRootScope();
  std::vector<Output> in;
  for (size_t i = 0; i < inputs.size(); ++i)
    in.push_back(ops::Const(root.WithOpName("in" + std::to_string(i)), inputs[i]));
  std::vector<Output> outs = f(root, in);
  RETURN_IF_ERROR(root.status());
  SessionOptions opts;
  opts.device_options.threads_per_cpu = 2;
  ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::Create(opts));
  RETURN_IF_ERROR(session->Extend(root.ToGraphDef()));
  std::vector<std::string> fetches;
  for (const Output& o : outs) fetches.push_back(o.name());
  std::vector<Tensor> result;
  RETURN_IF_ERROR(session->Run({}, fetches, {}, &result));
  return result;
}

// RunOp that REQUIREs success.
inline std::vector<Tensor> RunOpOk(const OpBuilder& f, const std::vector<Tensor>& inputs) {
  auto r = RunOp(f, inputs);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  return *r;
}

// The status of RunOp, REQUIRing failure.
inline Status RunOpError(const OpBuilder& f, const std::vector<Tensor>& inputs) {
  auto r = RunOp(f, inputs);
  REQUIRE_FALSE(r.ok());
  return r.status();
}

// Runs the shape function of `op` for a node named `node` with `attrs` (defaults added) on
// `inputs` (std::nullopt: unknown rank) and optional constant input values.
inline StatusOr<std::vector<PartialShape>> InferShapes(
    const std::string& op, const std::string& node, AttrMap attrs,
    const std::vector<PartialShape>& inputs, const std::vector<const Tensor*>& constants = {}) {
  ASSIGN_OR_RETURN(const OpDef* def, OpRegistry::Global()->LookUp(op));
  RETURN_IF_ERROR(AddDefaultsAndValidateAttrs(*def, node, &attrs));
  InferenceContext c(node, *def, attrs, inputs, constants);
  RETURN_IF_ERROR(def->shape_fn(&c));
  return c.outputs();
}

// A tensor of T with values uniform in [lo, hi), seeded.
template <typename T>
Tensor RandomTensor(const TensorShape& shape, double lo = -1, double hi = 1, int seed = 7) {
  Tensor t(DataTypeToEnum<T>::value, shape);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<T>()[i] = static_cast<T>(dist(rng));
  return t;
}

// sum(a * b) over all elements, in double.
template <typename T>
double Dot(const Tensor& a, const Tensor& b) {
  REQUIRE(a.shape() == b.shape());
  double s = 0;
  for (int64_t i = 0; i < a.NumElements(); ++i) s += double(a.data<T>()[i]) * b.data<T>()[i];
  return s;
}

}  // namespace fb::test
