// RandomShuffle: rows are permuted intact (checked against the input rows), the same seed gives
// the same sequence of shuffles in a fresh Session while successive Runs differ, every position
// receives every row about equally often (600 shuffles of 4 rows: 150 expected per cell, bounds
// about 5 standard deviations), and scalars or single rows pass through unchanged.
#include <algorithm>
#include <map>

#include "engine/client/random_ops.h"
#include "tests/engine/ops/array_test_util.h"

namespace fb {
namespace {

using test::Iota;
using test::Values;

// `runs` successive Runs of RandomShuffle(x) in one Session.
std::vector<Tensor> Shuffles(const Tensor& x, int64_t seed, int runs, int64_t seed2 = 0) {
  Scope root = Scope::NewRootScope();
  auto y = ops::RandomShuffle(root, ops::Const(root, x), seed, seed2);
  auto session = test::MakeSession(root.ToGraphDef());
  std::vector<Tensor> out;
  for (int i = 0; i < runs; ++i) out.push_back(test::RunOk(session.get(), {}, {y.name()})[0]);
  return out;
}

TEST_CASE("RandomShuffle permutes whole rows", "[array][random]") {
  Tensor x = Iota({5, 3});  // row i holds 3i, 3i+1, 3i+2
  for (const Tensor& y : Shuffles(x, 7, 5)) {
    REQUIRE(y.shape() == TensorShape{5, 3});
    std::vector<float> v = Values<float>(y), firsts;
    for (int r = 0; r < 5; ++r) {
      CHECK(v[3 * r + 1] == v[3 * r] + 1);
      CHECK(v[3 * r + 2] == v[3 * r] + 2);
      firsts.push_back(v[3 * r]);
    }
    std::sort(firsts.begin(), firsts.end());
    CHECK(firsts == std::vector<float>{0, 3, 6, 9, 12});
  }
}

TEST_CASE("RandomShuffle is reproducible with a seed and differs between Runs", "[array][random]") {
  Tensor x = Iota({16}, DataType::kInt32);
  std::vector<Tensor> a = Shuffles(x, 42, 3), b = Shuffles(x, 42, 3), c = Shuffles(x, 43, 1);
  std::vector<Tensor> d = Shuffles(x, 42, 1, /*seed2=*/1);
  for (int i = 0; i < 3; ++i) CHECK(Values<int32_t>(a[i]) == Values<int32_t>(b[i]));
  CHECK(Values<int32_t>(a[0]) != Values<int32_t>(a[1]));
  CHECK(Values<int32_t>(a[0]) != Values<int32_t>(c[0]));
  CHECK(Values<int32_t>(a[0]) != Values<int32_t>(d[0]));
}

TEST_CASE("RandomShuffle puts every row in every position equally often", "[array][random]") {
  std::map<std::pair<int, int>, int> count;  // (position, row) -> times
  for (const Tensor& y : Shuffles(Iota({4}, DataType::kInt64), 3, 600))
    for (int p = 0; p < 4; ++p) ++count[{p, static_cast<int>(y.data<int64_t>()[p])}];
  REQUIRE(count.size() == 16);
  // Binomial(600, 1/4): mean 150, standard deviation 10.6.
  for (const auto& [cell, n] : count) {
    INFO("position " << cell.first << " row " << cell.second);
    CHECK(n > 97);
    CHECK(n < 203);
  }
}

TEST_CASE("RandomShuffle passes scalars, single rows and strings through", "[array][random]") {
  CHECK(Values<float>(Shuffles(Tensor::Scalar<float>(2.5f), 1, 1)[0]) == std::vector<float>{2.5f});
  CHECK(Values<float>(Shuffles(Iota({1, 4}), 1, 1)[0]) == std::vector<float>{0, 1, 2, 3});
  CHECK(Shuffles(Iota({0, 2}), 1, 1)[0].shape() == TensorShape{0, 2});
  Tensor words = Tensor::FromVector<std::string>({"a", "b", "c"});
  std::vector<std::string> v = Values<std::string>(Shuffles(words, 5, 1)[0]);
  std::sort(v.begin(), v.end());
  CHECK(v == std::vector<std::string>{"a", "b", "c"});
}

}  // namespace
}  // namespace fb
