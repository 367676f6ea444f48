#pragma once
// Shared helpers for the Google Benchmark programs: a Session over one CPU device with a given
// number of inter-op threads, and seeded random float tensors.
#include <random>

#include "engine/client/scope.h"
#include "engine/runtime/session.h"

namespace fb::bench {

inline std::unique_ptr<Session> MakeSession(const Scope& root, int threads) {
  FB_CHECK(root.ok()) << root.status();
  SessionOptions opts;
  opts.device_options.threads_per_cpu = threads;
  // Micro-benchmarks time the graph as built (the default passes would remove the executor
  // benchmarks' Identity chains).
  opts.default_passes = false;
  auto s = Session::Create(opts);
  FB_CHECK(s.ok()) << s.status();
  Status st = (*s)->Extend(root.ToGraphDef());
  FB_CHECK(st.ok()) << st;
  return std::move(*s);
}

inline Tensor RandomFloats(const TensorShape& shape, unsigned seed = 1) {
  Tensor t(DataType::kFloat, shape);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = u(gen);
  return t;
}

// Runs once and FB_CHECKs success (warm-up before the timed loop).
inline void RunOnce(Session* s, const std::vector<Session::NamedTensor>& feeds,
                    const std::vector<std::string>& fetches,
                    const std::vector<std::string>& targets = {}) {
  std::vector<Tensor> out;
  Status st = s->Run(feeds, fetches, targets, &out);
  FB_CHECK(st.ok()) << st;
}

}  // namespace fb::bench
