#pragma once
// Helpers for the math kernel tests: build a small graph with the client API, run it on one CPU
// device (4 intra-op threads, so large inputs take the parallel paths) and return the result or
// the error, plus tensors from initializer lists.
#include <functional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "engine/client/math_ops.h"
#include "engine/client/state_ops.h"
#include "tests/test_util.h"

namespace fb::test {

using BuildFn = std::function<Output(const Scope&)>;

// Builds the graph, runs it and fetches the output `build` returns. Graph-building errors are
// returned as they are.
inline StatusOr<Tensor> TryEval(const BuildFn& build) {
  Scope root = Scope::NewRootScope();
  Output y = build(root);
  if (!root.ok()) return root.status();
  SessionOptions opts;
  opts.device_options.threads_per_cpu = 4;
  auto session = Session::Create(opts);
  if (!session.ok()) return session.status();
  RETURN_IF_ERROR((*session)->Extend(root.ToGraphDef()));
  std::vector<Tensor> out;
  RETURN_IF_ERROR((*session)->Run({}, {y.name()}, {}, &out));
  return out[0];
}

// TryEval that REQUIREs success.
inline Tensor Eval(const BuildFn& build) {
  auto t = TryEval(build);
  INFO(t.status().ToString());
  REQUIRE(t.ok());
  return *t;
}

// The error message of a graph that must fail to build or run.
inline std::string EvalError(const BuildFn& build) {
  auto t = TryEval(build);
  REQUIRE_FALSE(t.ok());
  return t.status().message();
}

// Tensors of float, double, int32, int64 and bool from values and a shape.
inline Tensor F(const std::vector<float>& v, const TensorShape& s) { return Tensor::FromVector(v, s); }
inline Tensor D(const std::vector<double>& v, const TensorShape& s) { return Tensor::FromVector(v, s); }
inline Tensor I(const std::vector<int32_t>& v, const TensorShape& s) { return Tensor::FromVector(v, s); }
inline Tensor L(const std::vector<int64_t>& v, const TensorShape& s) { return Tensor::FromVector(v, s); }
inline Tensor B(const std::vector<bool>& v, const TensorShape& s) { return Tensor::FromVector(v, s); }

// A binary op of the client API (ops::Add, ops::GreaterEqual ...) evaluated on two constants.
using BinaryFn = Output (*)(const Scope&, Output, Output);
inline Tensor Binary(BinaryFn op, const Tensor& x, const Tensor& y) {
  return Eval([&](const Scope& s) { return op(s, ops::Const(s, x), ops::Const(s, y)); });
}

// Exact comparison of dtype, shape and values, with both tensors printed on failure.
inline void ExpectEqual(const Tensor& got, const Tensor& want) {
  INFO("got " << got.DebugString(32) << ", want " << want.DebugString(32));
  CHECK(TensorsEqual(got, want));
}

}  // namespace fb::test
