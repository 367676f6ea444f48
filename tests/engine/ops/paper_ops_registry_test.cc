// The ops added for the paper models (whitepaper Table 1) are registered the way `flowbench ops`
// lists them: an OpDef with a shape function and a doc, CPU kernels for the expected dtypes, and
// a gradient or an explicit no-gradient mark (so autodiff never stops at them with an error).
#include <algorithm>
#include <catch2/catch.hpp>

#include "engine/autodiff/gradient_registry.h"
#include "engine/framework/op_kernel.h"

namespace fb {
namespace {

struct Expected {
  const char* op;
  std::vector<DataType> dtypes;  // empty: the kernel takes any dtype (or only bool)
  bool gradient;
};

TEST_CASE("Paper-model ops are registered with kernels, docs and gradients", "[ops]") {
  const DataType f = DataType::kFloat, d = DataType::kDouble, i = DataType::kInt32,
                 l = DataType::kInt64, b = DataType::kBool;
  const std::vector<Expected> expected = {
      {"StridedSlice", {}, true},
      {"StridedSliceGrad", {}, true},
      {"Tile", {}, true},
      {"Select", {}, true},
      {"Where", {f, d, i, l, b}, false},
      {"Range", {f, d, i, l}, false},
      {"ArgMin", {f, d, i, l}, false},
      {"Prod", {f, d, i, l}, true},
      {"L2Loss", {f, d}, true},
      {"Relu6", {f, d}, true},
      {"Relu6Grad", {f, d}, false},
      {"Elu", {f, d}, true},
      {"EluGrad", {f, d}, false},
      {"GreaterEqual", {f, d, i, l}, false},
      {"LessEqual", {f, d, i, l}, false},
      {"NotEqual", {f, d, i, l, b}, false},
      {"LogicalAnd", {}, false},
      {"LogicalOr", {}, false},
      {"LogicalNot", {}, false},
      {"RandomShuffle", {}, false},
  };
  for (const Expected& e : expected) {
    INFO(e.op);
    auto def = OpRegistry::Global()->LookUp(e.op);
    REQUIRE(def.ok());
    CHECK((*def)->shape_fn);
    CHECK_FALSE((*def)->doc.empty());
    std::vector<std::string> devices = KernelRegistry::Global()->DeviceTypesForOp(e.op);
    CHECK(std::find(devices.begin(), devices.end(), DEVICE_CPU) != devices.end());
    std::vector<DataType> types = KernelRegistry::Global()->TypesForOp(e.op, "CPU");
    for (DataType t : e.dtypes) CHECK(std::find(types.begin(), types.end(), t) != types.end());
    const bool has_gradient = GradientRegistry::Global()->Lookup(e.op) != nullptr;
    CHECK(has_gradient == e.gradient);
    // Differentiable-looking ops without a gradient function are marked as such on purpose,
    // except the gradient ops themselves (second order is not built).
    if (!e.gradient && std::string(e.op).find("Grad") == std::string::npos)
      CHECK(GradientRegistry::Global()->IsNoGradient(e.op));
  }
}

}  // namespace
}  // namespace fb
