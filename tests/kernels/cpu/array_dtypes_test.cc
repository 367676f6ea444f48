// Every data-movement kernel on every dtype. Reference: the same op run on int64 positions
// (1, 2, 3, ...) says which input element each output element comes from (0: padding), and the
// output of each dtype must hold exactly those elements.
#include <functional>

#include <catch2/catch.hpp>

#include "tests/engine/ops/array_test_util.h"

namespace fb {
namespace {

using test::RunScope;

// A distinct non-zero value for position k >= 1 (bool: parity, so padding is false).
template <typename T>
T ValueFor(int64_t k) {
  if constexpr (std::is_same_v<T, std::string>) return "s" + std::to_string(k);
  else if constexpr (std::is_same_v<T, bool>) return k % 2 == 1;
  else if constexpr (std::is_same_v<T, complex64>) return complex64(k, -k);
  else if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) return T(static_cast<float>(k));
  else return static_cast<T>(k);
}

Tensor Positions(DataType dt, const TensorShape& shape) {
  Tensor t(dt, shape);
  VisitDataType(dt, [&](auto zero) {
    using T = decltype(zero);
    for (int64_t i = 0; i < t.NumElements(); ++i) t.data<T>()[i] = ValueFor<T>(i + 1);
  });
  return t;
}

using ArrayFn = std::function<Output(const Scope&, Output)>;

void CheckAllDtypes(const ArrayFn& f) {
  const TensorShape shape{2, 3, 4};
  auto run = [&](DataType dt) {
    Scope root = Scope::NewRootScope();
    return RunScope(root, {f(root, ops::Const(root, Positions(dt, shape)))})[0];
  };
  Tensor src = run(DataType::kInt64);
  for (DataType dt : AllDataTypes()) {
    INFO("dtype " << DataTypeString(dt));
    Tensor out = run(dt);
    REQUIRE(out.dtype() == dt);
    REQUIRE(out.shape() == src.shape());
    VisitDataType(dt, [&](auto zero) {
      using T = decltype(zero);
      for (int64_t i = 0; i < out.NumElements(); ++i) {
        int64_t k = src.data<int64_t>()[i];
        INFO("element " << i << " from position " << k);
        CHECK((out.data<T>()[i] == (k == 0 ? T{} : ValueFor<T>(k))));
      }
    });
  }
}

TEST_CASE("Views work for every dtype: Reshape, ExpandDims, Squeeze, Identity, StopGradient", "[array]") {
  CheckAllDtypes([](const Scope& s, Output x) { return ops::Reshape(s, x, {4, -1}); });
  CheckAllDtypes([](const Scope& s, Output x) { return ops::ExpandDims(s, x, 1); });
  CheckAllDtypes([](const Scope& s, Output x) { return ops::Squeeze(s, ops::ExpandDims(s, x, 1), {1}); });
  CheckAllDtypes([](const Scope& s, Output x) { return ops::Identity(s, x); });
  CheckAllDtypes([](const Scope& s, Output x) { return ops::StopGradient(s, x); });
}

TEST_CASE("Transpose, Slice and Pad work for every dtype", "[array]") {
  CheckAllDtypes([](const Scope& s, Output x) { return ops::Transpose(s, x, {2, 0, 1}); });
  CheckAllDtypes([](const Scope& s, Output x) { return ops::Slice(s, x, {1, 0, 1}, {1, 2, -1}); });
  CheckAllDtypes([](const Scope& s, Output x) { return ops::Pad(s, x, {{0, 1}, {1, 0}, {0, 0}}); });
}

TEST_CASE("Concat, Split, Pack and Unpack work for every dtype", "[array]") {
  CheckAllDtypes([](const Scope& s, Output x) { return ops::Concat(s, {x, x}, 1); });
  CheckAllDtypes([](const Scope& s, Output x) { return ops::Split(s, x, 2, 2)[1]; });
  CheckAllDtypes([](const Scope& s, Output x) { return ops::Split(s, x, 0, 2)[1]; });
  CheckAllDtypes([](const Scope& s, Output x) { return ops::Pack(s, {x, x}, 1); });
  CheckAllDtypes([](const Scope& s, Output x) { return ops::Unpack(s, x, 3, 1)[2]; });
}

TEST_CASE("Gather and GatherV2 work for every dtype", "[array]") {
  CheckAllDtypes([](const Scope& s, Output x) {
    return ops::Gather(s, x, ops::Const(s, test::I32({1, 0, 1})));
  });
  CheckAllDtypes([](const Scope& s, Output x) {
    return ops::GatherV2(s, x, ops::Const(s, test::I64({3, 0})), 2);
  });
}

}  // namespace
}  // namespace fb
