// MatMul and BatchMatMul (OpenBLAS gemm) against hand-computed products and a naive triple loop,
// for every transpose combination, plus the shape errors.
#include <random>

#include "kernels/cpu/matmul.h"
#include "tests/kernels/cpu/math_test_util.h"

namespace fb {
namespace {

using test::D;
using test::Eval;
using test::EvalError;
using test::ExpectEqual;
using test::F;

// a = [[1,2,3],[4,5,6]], b = [[7,8],[9,10],[11,12]]: a b = [[58,64],[139,154]].
TEST_CASE("MatMul of hand-computed matrices, all transpose combinations", "[math][matmul]") {
  Tensor a = F({1, 2, 3, 4, 5, 6}, {2, 3}), b = F({7, 8, 9, 10, 11, 12}, {3, 2});
  Tensor at = F({1, 4, 2, 5, 3, 6}, {3, 2}), bt = F({7, 9, 11, 8, 10, 12}, {2, 3});
  Tensor want = F({58, 64, 139, 154}, {2, 2});
  auto mm = [](const Tensor& x, const Tensor& y, bool tx, bool ty) {
    return Eval([&](const Scope& s) { return ops::MatMul(s, ops::Const(s, x), ops::Const(s, y), tx, ty); });
  };
  ExpectEqual(mm(a, b, false, false), want);
  ExpectEqual(mm(at, b, true, false), want);
  ExpectEqual(mm(a, bt, false, true), want);
  ExpectEqual(mm(at, bt, true, true), want);
  ExpectEqual(mm(b, a, false, false), F({39, 54, 69, 49, 68, 87, 59, 82, 105}, {3, 3}));
  ExpectEqual(mm(D({1, 2}, {1, 2}), D({3, 4}, {2, 1}), false, false), D({11}, {1, 1}));
}

TEST_CASE("MatMul with an empty inner dimension gives zeros", "[math][matmul]") {
  Tensor got = Eval([](const Scope& s) {
    return ops::MatMul(s, ops::Const(s, Tensor(DataType::kFloat, {2, 0})),
                       ops::Const(s, Tensor(DataType::kFloat, {0, 3})));
  });
  ExpectEqual(got, F({0, 0, 0, 0, 0, 0}, {2, 3}));
}

TEST_CASE("MatMul shape errors name the node", "[math][matmul][errors]") {
  std::string msg = EvalError([](const Scope& s) {
    return ops::MatMul(s.WithOpName("mm"), ops::Const(s, Tensor(DataType::kFloat, {2, 3})),
                       ops::Const(s, Tensor(DataType::kFloat, {4, 5})));
  });
  CHECK_THAT(msg, Catch::Contains("MatMul 'mm'") &&
                      Catch::Contains("matrix size-incompatible: In[0]: [2,3], In[1]: [4,5]"));
  msg = EvalError([](const Scope& s) {
    return ops::MatMul(s.WithOpName("mm"), ops::Const(s, Tensor(DataType::kFloat, {3})),
                       ops::Const(s, Tensor(DataType::kFloat, {3, 1})));
  });
  CHECK_THAT(msg, Catch::Contains("In[0] must be a matrix, got shape [3]"));
  msg = EvalError([](const Scope& s) {
    return ops::MatMul(s.WithOpName("mm"), ops::Const(s, Tensor(DataType::kInt32, {1, 1})),
                       ops::Const(s, Tensor(DataType::kInt32, {1, 1})));
  });
  CHECK_THAT(msg, Catch::Contains("'mm'") && Catch::Contains("attr 'T' is int32, allowed: float, double"));
}

// Naive reference for a batch of row-major products with optional transposes.
Tensor NaiveBatchMatMul(const Tensor& x, const Tensor& y, bool tx, bool ty) {
  const int r = x.dims();
  const int64_t m = x.dim_size(r - (tx ? 1 : 2)), k = x.dim_size(r - (tx ? 2 : 1));
  const int64_t n = y.dim_size(r - (ty ? 2 : 1));
  TensorShape out_shape = x.shape();
  out_shape.set_dim(r - 2, m);
  out_shape.set_dim(r - 1, n);
  Tensor out(DataType::kDouble, out_shape);
  const int64_t batch = out.NumElements() / (m * n);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t l = 0; l < k; ++l) {
          double xv = x.data<double>()[b * m * k + (tx ? l * m + i : i * k + l)];
          double yv = y.data<double>()[b * k * n + (ty ? j * k + l : l * n + j)];
          sum += xv * yv;
        }
        out.data<double>()[(b * m + i) * n + j] = sum;
      }
  return out;
}

TEST_CASE("BatchMatMul matches a naive loop for every adjoint combination", "[math][matmul]") {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> dist(-1, 1);
  auto random = [&](const TensorShape& s) {
    Tensor t(DataType::kDouble, s);
    for (int64_t i = 0; i < t.NumElements(); ++i) t.data<double>()[i] = dist(rng);
    return t;
  };
  for (bool adj_x : {false, true})
    for (bool adj_y : {false, true}) {
      // M=4, K=5, N=3 with batch dims [2,3].
      Tensor x = random(adj_x ? TensorShape{2, 3, 5, 4} : TensorShape{2, 3, 4, 5});
      Tensor y = random(adj_y ? TensorShape{2, 3, 3, 5} : TensorShape{2, 3, 5, 3});
      Tensor got = Eval([&](const Scope& s) {
        return ops::BatchMatMul(s, ops::Const(s, x), ops::Const(s, y), adj_x, adj_y);
      });
      INFO("adj_x " << adj_x << " adj_y " << adj_y);
      test::ExpectClose(got, NaiveBatchMatMul(x, y, adj_x, adj_y), 1e-12, 1e-12);
    }
  // Rank 2 is one batch of one.
  ExpectEqual(Eval([](const Scope& s) {
                return ops::BatchMatMul(s, ops::Const(s, D({1, 2}, {1, 2})), ops::Const(s, D({3, 4}, {2, 1})));
              }),
              D({11}, {1, 1}));
}

// Products above kShardGemmMinMacs are split into bands of rows (m >= n) or columns (m < n) on
// the intra-op pool (Eval runs 4 threads); band edges that are not multiples of 16 included.
TEST_CASE("MatMul split over the intra-op pool matches a naive loop", "[math][matmul]") {
  std::mt19937 rng(12);
  std::uniform_real_distribution<double> dist(-1, 1);
  auto random = [&](const TensorShape& s) {
    Tensor t(DataType::kDouble, s);
    for (int64_t i = 0; i < t.NumElements(); ++i) t.data<double>()[i] = dist(rng);
    return t;
  };
  const int64_t k = 300;
  for (auto [m, n] : {std::pair<int64_t, int64_t>{37, 1003}, {1003, 37}}) {
    REQUIRE(m * n * k >= kShardGemmMinMacs);
    for (bool tx : {false, true})
      for (bool ty : {false, true}) {
        Tensor x = random(tx ? TensorShape{k, m} : TensorShape{m, k});
        Tensor y = random(ty ? TensorShape{n, k} : TensorShape{k, n});
        Tensor got = Eval([&](const Scope& s) {
          return ops::MatMul(s, ops::Const(s, x), ops::Const(s, y), tx, ty);
        });
        INFO("m " << m << " n " << n << " transpose_a " << tx << " transpose_b " << ty);
        test::ExpectClose(got, NaiveBatchMatMul(x, y, tx, ty), 1e-12, 1e-12);
      }
  }
}

TEST_CASE("BatchMatMul rejects unequal batch dimensions", "[math][matmul][errors]") {
  std::string msg = EvalError([](const Scope& s) {
    return ops::BatchMatMul(s.WithOpName("bmm"), ops::Const(s, Tensor(DataType::kFloat, {2, 3, 4})),
                            ops::Const(s, Tensor(DataType::kFloat, {3, 4, 5})));
  });
  CHECK_THAT(msg, Catch::Contains("BatchMatMul 'bmm'") &&
                      Catch::Contains("equal batch dimensions, got [2,3,4] and [3,4,5]"));
}

}  // namespace
}  // namespace fb
