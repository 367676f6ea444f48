// CPU kernels of the broadcasting binary ops of engine/ops/math_ops.cc: arithmetic, Pow,
// Maximum/Minimum and the comparisons (bool outputs), each an Eigen functor in cwise::BinaryOp.
// Maximum/Minimum propagate NaN (either operand NaN gives NaN); integer Div of lowest() by -1
// gives lowest() (NumPy and TensorFlow's wrap-around) instead of SIGFPE.
#include "kernels/cpu/cwise_binary.h"
#include "kernels/cpu/register_cpu.h"

namespace fb {
namespace {

namespace ei = Eigen::internal;
using cwise::BinaryOp;

// Integer Div truncates and wraps lowest() / -1 to lowest() (cwise::IntDivOp).
template <typename T>
using DivFunctor = std::conditional_t<std::is_integral_v<T>, cwise::IntDivOp<T>,
                                      ei::scalar_quotient_op<T, T>>;

#define FB_REGISTER_ARITHMETIC(T)                                          \
  FB_REGISTER_CPU_T("Add", T, BinaryOp<T, ei::scalar_sum_op<T, T>>);       \
  FB_REGISTER_CPU_T("Sub", T, BinaryOp<T, ei::scalar_difference_op<T, T>>); \
  FB_REGISTER_CPU_T("Mul", T, BinaryOp<T, ei::scalar_product_op<T, T>>);   \
  FB_REGISTER_CPU_T("Div", T, BinaryOp<T, DivFunctor<T>>);                 \
  FB_REGISTER_CPU_T("Maximum", T, BinaryOp<T, cwise::MaxOp<T>>);           \
  FB_REGISTER_CPU_T("Minimum", T, BinaryOp<T, cwise::MinOp<T>>);           \
  FB_REGISTER_CPU_T("Greater", T, BinaryOp<T, ei::scalar_cmp_op<T, T, ei::cmp_GT>>); \
  FB_REGISTER_CPU_T("Less", T, BinaryOp<T, ei::scalar_cmp_op<T, T, ei::cmp_LT>>);    \
  FB_REGISTER_CPU_T("Equal", T, BinaryOp<T, ei::scalar_cmp_op<T, T, ei::cmp_EQ>>)

FB_REGISTER_ARITHMETIC(float);
FB_REGISTER_ARITHMETIC(double);
FB_REGISTER_ARITHMETIC(int32_t);
FB_REGISTER_ARITHMETIC(int64_t);
FB_REGISTER_CPU_T("Equal", bool, BinaryOp<bool, ei::scalar_cmp_op<bool, bool, ei::cmp_EQ>>);
// pow costs tens of ns per element: split over threads sooner.
FB_REGISTER_CPU_T("Pow", float, BinaryOp<float, ei::scalar_pow_op<float, float>, 20>);
FB_REGISTER_CPU_T("Pow", double, BinaryOp<double, ei::scalar_pow_op<double, double>, 40>);

#undef FB_REGISTER_ARITHMETIC

}  // namespace
}  // namespace fb
