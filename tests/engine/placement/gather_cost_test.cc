// The cost model's work of a Gather: it reads the rows it selects, not the whole table, so an
// embedding lookup costs the same for any table size (OSDI 2016 section 6.2, sparse null step).
#include <catch2/catch.hpp>

#include "engine/client/array_ops.h"
#include "engine/client/state_ops.h"
#include "engine/framework/device_name.h"
#include "engine/placement/cost_model.h"

namespace fb {
namespace {

OpWork GatherWork(int64_t rows, bool v2) {
  Scope root = Scope::NewRootScope();
  auto table = ops::Variable(root.WithOpName("table"), TensorShape({rows, 64}), DataType::kFloat);
  std::vector<int32_t> idx(32);
  for (int i = 0; i < 32; ++i) idx[i] = i * 3;
  auto indices = ops::Const(root.WithOpName("idx"), idx, TensorShape({32}));
  Output g = v2 ? ops::GatherV2(root.WithOpName("g"), table, indices, 0)
                : ops::Gather(root.WithOpName("g"), table, indices);
  REQUIRE(root.ok());
  DeviceDesc cpu;
  cpu.name = LocalDeviceName("CPU", 0);
  cpu.type = "CPU";
  auto m = CostModel::Create(*root.graph(), {cpu});
  INFO(m.status().ToString());
  REQUIRE(m.ok());
  return m->Work(*g.node());
}

TEST_CASE("Cost model: a Gather reads its selected rows, not the whole table",
          "[placement][cost_model]") {
  for (bool v2 : {false, true}) {
    INFO((v2 ? "GatherV2" : "Gather"));
    const double selected = 32.0 * 64 * 4;  // read and written once each
    const double indices = 32.0 * 4 + (v2 ? 4 : 0);  // GatherV2 also reads its int32 axis
    CHECK(GatherWork(1000, v2).bytes_accessed == Approx(2 * selected + indices));
    // 16M rows (4 GiB): the same work as 1000 rows.
    CHECK(GatherWork(int64_t{1} << 24, v2).bytes_accessed == Approx(2 * selected + indices));
  }
}

}  // namespace
}  // namespace fb
