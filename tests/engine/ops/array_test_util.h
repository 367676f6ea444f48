#pragma once
// Helpers for the array-op tests: run a graph built with the client API, and run one op's shape
// function on given input shapes and constant inputs.
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "engine/client/array_ops.h"
#include "engine/client/state_ops.h"
#include "engine/framework/shape_inference.h"
#include "tests/test_util.h"

namespace fb::test {

using Feeds = std::vector<std::pair<Output, Tensor>>;

// Runs `fetches` of the graph built in `s` in a fresh Session (1 CPU device, `threads` threads).
inline Status RunScopeStatus(const Scope& s, const std::vector<Output>& fetches,
                             std::vector<Tensor>* out, const Feeds& feeds = {}, int threads = 2) {
  INFO(s.status().ToString());
  REQUIRE(s.ok());
  auto session = MakeSession(s.ToGraphDef(), 1, threads);
  std::vector<Session::NamedTensor> named;
  for (const auto& [o, t] : feeds) named.push_back({o.name(), t});
  std::vector<std::string> names;
  for (const Output& o : fetches) names.push_back(o.name());
  return session->Run(named, names, {}, out);
}

// Same, REQUIREing success.
inline std::vector<Tensor> RunScope(const Scope& s, const std::vector<Output>& fetches,
                                    const Feeds& feeds = {}, int threads = 2) {
  std::vector<Tensor> out;
  Status st = RunScopeStatus(s, fetches, &out, feeds, threads);
  INFO(st.ToString());
  REQUIRE(st.ok());
  return out;
}

// The message of the error a Run of `fetch` fails with; FAILs if it succeeds.
inline std::string RunError(const Scope& s, Output fetch, const Feeds& feeds = {}) {
  std::vector<Tensor> out;
  Status st = RunScopeStatus(s, {fetch}, &out, feeds);
  REQUIRE_FALSE(st.ok());
  return st.message();
}

// Runs the shape function of `op` for node "n" with `attrs` (defaults added), input shapes
// `inputs` (nullopt: unknown rank) and constant inputs `consts` (nullptr: not constant).
inline StatusOr<std::vector<PartialShape>> InferShapes(const std::string& op, AttrMap attrs,
                                                       std::vector<PartialShape> inputs,
                                                       std::vector<const Tensor*> consts = {}) {
  ASSIGN_OR_RETURN(const OpDef* def, OpRegistry::Global()->LookUp(op));
  RETURN_IF_ERROR(AddDefaultsAndValidateAttrs(*def, "n", &attrs));
  InferenceContext c("n", *def, attrs, std::move(inputs), std::move(consts));
  RETURN_IF_ERROR(def->shape_fn(&c));
  return c.outputs();
}

// Output 0 of InferShapes as a string ("[2,?]", "<unknown>"), or the error message.
inline std::string InferredShape(const std::string& op, AttrMap attrs,
                                 std::vector<PartialShape> inputs,
                                 std::vector<const Tensor*> consts = {}) {
  auto shapes = InferShapes(op, std::move(attrs), std::move(inputs), std::move(consts));
  if (!shapes.ok()) return shapes.status().message();
  return PartialShapeString((*shapes)[0]);
}

template <typename T>
Tensor Vec(const std::vector<T>& v) {
  return Tensor::FromVector<T>(v);
}
inline Tensor I32(const std::vector<int32_t>& v) { return Tensor::FromVector<int32_t>(v); }
inline Tensor I64(const std::vector<int64_t>& v) { return Tensor::FromVector<int64_t>(v); }
// A float tensor 0, 1, 2, ... of `shape`.
inline Tensor Iota(const TensorShape& shape, DataType dtype = DataType::kFloat) {
  Tensor t(dtype, shape);
  VisitDataType(dtype, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_arithmetic_v<T>) {
      for (int64_t i = 0; i < t.NumElements(); ++i) t.data<T>()[i] = static_cast<T>(i);
    } else {
      FB_CHECK(false) << "Iota of " << DataTypeString(dtype);
    }
  });
  return t;
}

}  // namespace fb::test
