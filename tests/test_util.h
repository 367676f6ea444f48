#pragma once
// Shared test helpers: graphs from inline JSON, sessions with N CPU devices, tensor comparison.
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "engine/runtime/session.h"

namespace fb::test {

// Parses a GraphDef from JSON text; FAILs the test on error.
inline GraphDef ParseGraph(const std::string& json_text) {
  auto g = GraphDefFromJson(nlohmann::json::parse(json_text));
  INFO(g.status().ToString());
  REQUIRE(g.ok());
  return *g;
}

// A Session on `num_cpu` CPU devices with `threads` threads each, extended with `g`.
inline std::unique_ptr<Session> MakeSession(const GraphDef& g, int num_cpu = 1, int threads = 2) {
  SessionOptions opts;
  opts.device_options.num_cpu_devices = num_cpu;
  opts.device_options.threads_per_cpu = threads;
  auto s = Session::Create(opts);
  REQUIRE(s.ok());
  Status st = (*s)->Extend(g);
  INFO(st.ToString());
  REQUIRE(st.ok());
  return std::move(*s);
}

// Runs and REQUIREs success.
inline std::vector<Tensor> RunOk(Session* s, const std::vector<Session::NamedTensor>& feeds,
                                 const std::vector<std::string>& fetches,
                                 const std::vector<std::string>& targets = {}) {
  std::vector<Tensor> out;
  Status st = s->Run(feeds, fetches, targets, &out);
  INFO(st.ToString());
  REQUIRE(st.ok());
  return out;
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.NumElements());
}

// Element-wise |a - b| <= atol + rtol * |b| for float/double tensors of equal shape.
inline void ExpectClose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-6) {
  REQUIRE(a.dtype() == b.dtype());
  REQUIRE(a.shape() == b.shape());
  for (int64_t i = 0; i < a.NumElements(); ++i) {
    double x = a.dtype() == DataType::kFloat ? a.data<float>()[i] : a.data<double>()[i];
    double y = b.dtype() == DataType::kFloat ? b.data<float>()[i] : b.data<double>()[i];
    INFO("element " << i << ": " << x << " vs " << y);
    CHECK(std::abs(x - y) <= atol + rtol * std::abs(y));
  }
}

}  // namespace fb::test
