// BCast (kernels/cpu/bcast.h): output shapes, the chosen path, collapsed strides and the
// gradient reduction axes, against hand-worked broadcasts.
#include "kernels/cpu/bcast.h"

#include <catch2/catch.hpp>

namespace fb {
namespace {

using V = std::vector<int64_t>;

BCast Make(const TensorShape& x, const TensorShape& y) {
  auto b = BCast::Make(x, y);
  INFO(b.status().ToString());
  REQUIRE(b.ok());
  return *b;
}

TEST_CASE("BCast picks the fast paths", "[math][bcast]") {
  CHECK(Make({2, 3}, {2, 3}).kind() == BCast::Kind::kSameShape);
  CHECK(Make({3}, {1, 3}).kind() == BCast::Kind::kSameShape);
  CHECK(Make({}, {2, 3}).kind() == BCast::Kind::kScalarX);
  CHECK(Make({2, 3}, {1}).kind() == BCast::Kind::kScalarY);
  CHECK(Make({3}, {2, 3}).kind() == BCast::Kind::kRowX);
  CHECK(Make({4, 2, 3}, {2, 3}).kind() == BCast::Kind::kRowY);
  CHECK(Make({2, 1}, {1, 3}).kind() == BCast::Kind::kGeneral);
}

TEST_CASE("BCast collapses dimensions and gives strides", "[math][bcast]") {
  // [2,3,4] + [4]: x is [6,4] with strides (4,1), y repeats over the 6 rows.
  BCast b = Make({2, 3, 4}, {4});
  CHECK(b.output_shape() == TensorShape({2, 3, 4}));
  CHECK(b.dims() == V{6, 4});
  CHECK(b.x_strides() == V{4, 1});
  CHECK(b.y_strides() == V{0, 1});
  // [2,1,5] + [3,1]: output [2,3,5]; size-1 output dims are dropped, none here.
  b = Make({2, 1, 5}, {3, 1});
  CHECK(b.output_shape() == TensorShape({2, 3, 5}));
  CHECK(b.dims() == V{2, 3, 5});
  CHECK(b.x_strides() == V{5, 0, 1});
  CHECK(b.y_strides() == V{0, 1, 0});
}

TEST_CASE("BCast gives the axes each side was repeated along", "[math][bcast]") {
  BCast b = Make({2, 3, 4}, {3, 1});  // y is read as [1,3,1]
  CHECK(b.x_reduce().empty());
  CHECK(b.y_reduce() == V{0, 2});
  b = Make({1, 4}, {3, 1});
  CHECK(b.x_reduce() == V{0});
  CHECK(b.y_reduce() == V{1});
  b = Make({4}, {2, 3, 4});
  CHECK(b.x_reduce() == V{0, 1});
  CHECK(b.y_reduce().empty());
}

TEST_CASE("BCast rejects shapes that do not broadcast", "[math][bcast][errors]") {
  auto b = BCast::Make({2, 3}, {4});
  REQUIRE_FALSE(b.ok());
  CHECK(b.status().message() == "incompatible shapes [2,3] and [4]");
  CHECK_FALSE(BCast::Make({2, 0}, {3}).ok());
  CHECK(Make({2, 0}, {1}).output_shape() == TensorShape({2, 0}));
}

}  // namespace
}  // namespace fb
