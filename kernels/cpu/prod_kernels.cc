// CPU kernel of Prod (engine/ops/math_prod_argmin_ops.cc) for float, double, int32 and int64, on
// the reduction machinery of the other reductions (kernels/cpu/reduction.h).
#include "engine/ops/math_reduction_util.h"
#include "kernels/cpu/reduction.h"
#include "kernels/cpu/register_cpu.h"

namespace fb {
namespace {

struct ProdReducer {
  template <typename T>
  static T Identity() {
    return T(1);
  }
  template <typename A>
  static auto Reduce(const A& a) {
    return a.prod();
  }
  template <typename A, typename B>
  static void Accumulate(A& acc, const B& b) {
    acc *= b;
  }
};

template <typename T>
using ProdOp = reduction::ReductionOp<T, ProdReducer>;

FB_REGISTER_CPU_T("Prod", float, ProdOp<float>);
FB_REGISTER_CPU_T("Prod", double, ProdOp<double>);
FB_REGISTER_CPU_T("Prod", int32_t, ProdOp<int32_t>);
FB_REGISTER_CPU_T("Prod", int64_t, ProdOp<int64_t>);

}  // namespace
}  // namespace fb
