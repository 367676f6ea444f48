// CheckNumerics (whitepaper section 6, lesson 5) and StopGradient kernels.
#include <cmath>
#include <limits>

#include <catch2/catch.hpp>

#include "tests/engine/ops/array_test_util.h"

namespace fb {
namespace {

using test::RunError;
using test::RunScope;
using test::Values;

TEST_CASE("CheckNumerics passes finite tensors through, double range included", "[array]") {
  Scope root = Scope::NewRootScope();
  auto f = ops::CheckNumerics(root, ops::Const(root, std::vector<float>{1, -2, 3e38f}, {3}), "f");
  auto d = ops::CheckNumerics(root, ops::Const(root, std::vector<double>{1e300, -1e-300}, {2}), "d");
  auto out = RunScope(root, {f, d});
  CHECK(Values<float>(out[0]) == std::vector<float>{1, -2, 3e38f});
  CHECK(Values<double>(out[1]) == std::vector<double>{1e300, -1e-300});
}

TEST_CASE("CheckNumerics fails naming the node, the message and NaN or Inf", "[array]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  auto error_for = [](std::vector<float> values) {
    Scope root = Scope::NewRootScope();
    auto x = ops::Placeholder(root.WithOpName("x"), DataType::kFloat);
    auto c = ops::CheckNumerics(root.WithOpName("check_logits"), x, "logits blew up");
    return RunError(root, c, {{x, Tensor::FromVector<float>(values)}});
  };
  std::string m = error_for({1, nan});
  CHECK_THAT(m, Catch::Contains("CheckNumerics 'check_logits'") &&
                    Catch::Contains("logits blew up : Tensor had NaN values"));
  CHECK_THAT(error_for({-inf, 2}), Catch::Contains("Tensor had Inf values"));
  CHECK_THAT(error_for({inf, nan}), Catch::Contains("Tensor had Inf and NaN values"));
}

TEST_CASE("CheckNumerics checks half tensors", "[array]") {
  Scope root = Scope::NewRootScope();
  Tensor h(DataType::kHalf, TensorShape{2});
  h.data<half>()[0] = half(1.0f);
  h.data<half>()[1] = half(std::numeric_limits<float>::infinity());
  auto c = ops::CheckNumerics(root.WithOpName("h"), ops::Const(root, h), "half");
  CHECK_THAT(RunError(root, c), Catch::Contains("half : Tensor had Inf values"));
}

TEST_CASE("StopGradient returns its input", "[array]") {
  Scope root = Scope::NewRootScope();
  auto out = RunScope(root, {ops::StopGradient(root, ops::Const(root, test::I64({4, 5})))});
  CHECK(Values<int64_t>(out[0]) == std::vector<int64_t>{4, 5});
}

}  // namespace
}  // namespace fb
