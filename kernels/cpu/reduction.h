#pragma once
// Reductions over arbitrary axes on CPU, for the Sum/Mean/Max/Min kernels. The input's dimensions
// are collapsed into alternating kept and reduced groups (size-1 dimensions dropped), and each
// reduced group is removed in one pass of Reduce3D over the view [outer, r, inner], from the
// innermost group outwards. Each pass is vectorised with Eigen arrays and split over the
// intra-op pool (whitepaper 5.4).
#include <algorithm>
#include <limits>
#include <vector>

#include "engine/framework/op_kernel.h"
#include "engine/ops/math_reduction_util.h"
#include "engine/framework/thread_pool.h"
#include "kernels/cpu/cwise_binary.h"

namespace fb {
namespace reduction {

struct SumReducer {
  template <typename T>
  static T Identity() { return T(0); }
  template <typename A>
  static auto Reduce(const A& a) { return a.sum(); }
  template <typename A, typename B>
  static void Accumulate(A& acc, const B& b) { acc += b; }
};

// Max and Min propagate NaN (TensorFlow and NumPy): a NaN anywhere in a reduced slice makes its
// result NaN, on every path (long vectors, rows, strided columns).
struct MaxReducer {
  template <typename T>
  static T Identity() { return std::numeric_limits<T>::lowest(); }
  template <typename A>
  static auto Reduce(const A& a) {
    using T = typename A::Scalar;
    return a.redux(cwise::MaxOp<T>());
  }
  template <typename A, typename B>
  static void Accumulate(A& acc, const B& b) {
    acc = acc.binaryExpr(b, cwise::MaxOp<typename A::Scalar>());
  }
};

struct MinReducer {
  template <typename T>
  static T Identity() { return std::numeric_limits<T>::max(); }
  template <typename A>
  static auto Reduce(const A& a) {
    using T = typename A::Scalar;
    return a.redux(cwise::MinOp<T>());
  }
  template <typename A, typename B>
  static void Accumulate(A& acc, const B& b) {
    acc = acc.binaryExpr(b, cwise::MinOp<typename A::Scalar>());
  }
};

// out[o, c] = reduce over k of in[o, k, c], for a row-major [outer, r, inner] input with r >= 1.
template <typename T, typename R>
void Reduce3D(ThreadPool* pool, const T* in, T* out, int64_t outer, int64_t r, int64_t inner) {
  using cwise::ConstVec;
  using cwise::Vec;
  if (inner == 1 && outer == 1) {
    // One long vector: partial results per block in parallel, then their reduction.
    const int64_t kBlock = 1 << 15;
    const int64_t blocks = (r + kBlock - 1) / kBlock;
    std::vector<T> partial(blocks);
    pool->ParallelFor(blocks, kBlock / 2, [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b)
        partial[b] = R::Reduce(ConstVec<T>(in + b * kBlock, std::min(kBlock, r - b * kBlock)));
    });
    *out = R::Reduce(ConstVec<T>(partial.data(), blocks));
  } else if (inner == 1) {
    pool->ParallelFor(outer, r / 2 + 1, [&](int64_t begin, int64_t end) {
      for (int64_t o = begin; o < end; ++o) out[o] = R::Reduce(ConstVec<T>(in + o * r, r));
    });
  } else {
    // Output elements [begin, end) of the [outer, inner] result, by row segments.
    pool->ParallelFor(outer * inner, r / 2 + 1, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end;) {
        int64_t o = i / inner, c = i % inner, len = std::min(end - i, inner - c);
        const T* block = in + o * r * inner + c;
        Vec<T> acc(out + i, len);
        acc = ConstVec<T>(block, len);
        for (int64_t k = 1; k < r; ++k) R::Accumulate(acc, ConstVec<T>(block + k * inner, len));
        i += len;
      }
    });
  }
}

// The input shape collapsed for reduction: `dims` with `reduced` flags, neighbours with equal
// flags merged and size-1 dimensions dropped. Requires a non-empty input.
struct Collapsed {
  std::vector<int64_t> dims;
  std::vector<bool> reduced;
};
Collapsed Collapse(const TensorShape& shape, const std::vector<bool>& mask);

// ArgMax(x, dimension) viewed as [outer, r, inner] around the reduced axis, with its output.
struct ArgMaxPlan {
  Tensor* out = nullptr;  // x's shape without the axis
  int64_t outer = 1, r = 0, inner = 1;
};
// ArgMax's checks and output, shared by the CPU and GPU kernels: x must be at least 1-D,
// `dimension` (a host tensor) a scalar naming an axis of x that is not empty (InvalidArgument
// otherwise); allocates output 0.
StatusOr<ArgMaxPlan> PrepareArgMax(OpKernelContext* ctx, const Tensor& x,
                                   const Tensor& dimension);

// How many reduced groups `c` has (the passes ReducePasses makes).
inline int ReducedGroups(const Collapsed& c) {
  return static_cast<int>(std::count(c.reduced.begin(), c.reduced.end(), true));
}

// Removes the reduced groups of `c` (the collapsed shape of `x`, at least one reduced group) one
// pass at a time, innermost first, shared by the CPU and GPU reductions: calls
// pass(in, next, outer, r, inner, last) to reduce `in` viewed as [outer, r, inner] into `*next`
// ([outer, inner]), where `in` is x for the first pass and the previous pass's result after it,
// and `next` is a temp from ctx->allocate_temp, or a tensor sharing `*out`'s buffer for the last
// pass (last = true). Errors: those of allocate_temp.
template <typename Pass>
Status ReducePasses(OpKernelContext* ctx, const Tensor& x, Collapsed c, Tensor* out, Pass pass) {
  int remaining = ReducedGroups(c);
  Tensor cur = x;
  for (int p = static_cast<int>(c.dims.size()) - 1; p >= 0; --p) {
    if (!c.reduced[p]) continue;
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < p; ++d) outer *= c.dims[d];
    for (size_t d = p + 1; d < c.dims.size(); ++d) inner *= c.dims[d];
    Tensor next = *out;
    if (--remaining > 0) RETURN_IF_ERROR(ctx->allocate_temp(x.dtype(), {outer * inner}, &next));
    pass(static_cast<const Tensor&>(cur), &next, outer, c.dims[p], inner, remaining == 0);
    c.dims.erase(c.dims.begin() + p);
    cur = next;
  }
  return Status::OK();
}

// Writes into `out` (of the reduced element count) the reduction of `x` over the masked axes.
template <typename T, typename R>
Status Reduce(OpKernelContext* ctx, const Tensor& x, const std::vector<bool>& mask, Tensor* out) {
  if (x.NumElements() == 0) {
    std::fill(out->data<T>(), out->data<T>() + out->NumElements(), R::template Identity<T>());
    return Status::OK();
  }
  Collapsed c = Collapse(x.shape(), mask);
  if (ReducedGroups(c) == 0) {
    std::copy(x.data<T>(), x.data<T>() + x.NumElements(), out->data<T>());
    return Status::OK();
  }
  return ReducePasses(ctx, x, std::move(c), out,
                      [&](const Tensor& in, Tensor* next, int64_t outer, int64_t r, int64_t inner,
                          bool /*last*/) {
                        Reduce3D<T, R>(ctx->intra_op_pool(), in.data<T>(), next->data<T>(), outer,
                                       r, inner);
                      });
}

// The kernel of a reduction over the axes given by input 1 (Sum, Max, Min, Prod, and Mean with
// kMean), keep_dims as TensorFlow; R is one of the reducers above.
template <typename T, typename R, bool kMean = false>
class ReductionOp : public OpKernel {
 public:
  explicit ReductionOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("keep_dims", &keep_dims_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    auto mask = ReductionMask(ctx->input(1), x.dims());
    OP_REQUIRES_OK(ctx, mask.status());
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, ReducedShape(x.shape(), *mask, keep_dims_), &out));
    OP_REQUIRES_OK(ctx, (reduction::Reduce<T, R>(ctx, x, *mask, out)));
    if constexpr (kMean) {
      const int64_t count = out->NumElements() == 0 ? 0 : x.NumElements() / out->NumElements();
      auto values = out->flat<T>();
      if (std::is_floating_point_v<T>) values /= static_cast<T>(count);  // NaN when empty
      else if (count > 0) values /= static_cast<T>(count);
    }
  }

 private:
  bool keep_dims_ = false;
};

}  // namespace reduction
}  // namespace fb
