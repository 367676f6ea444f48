#pragma once
// Helpers for the control-flow tests: a Session over a Scope's graph, runs with feeds.
#include <memory>
#include <string>
#include <vector>

#include "engine/client/control_flow.h"
#include "engine/client/math_ops.h"
#include "engine/client/state_ops.h"
#include "tests/test_util.h"

namespace fb::test {

inline std::unique_ptr<Session> SessionFor(const Scope& root, int num_cpu = 1, int threads = 2) {
  INFO(root.status().ToString());
  REQUIRE(root.ok());
  return MakeSession(root.ToGraphDef(), num_cpu, threads);
}

template <typename T>
T ScalarOf(const Tensor& t) {
  return t.scalar<T>();
}

}  // namespace fb::test
