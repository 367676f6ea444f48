#pragma once
// NumPy broadcasting of two shapes (https://numpy.org/doc/stable/user/basics.broadcasting.html;
// TensorFlow's util/bcast.h): shapes are aligned at their last dimension, missing leading
// dimensions count as 1, and each pair of dimensions must be equal or contain a 1.
//
// For the kernels the broadcast is reduced to the fewest dimensions that describe it: size-1
// output dimensions are dropped and neighbouring dimensions along which each operand is either
// repeated or not are merged, so [2,3,4] + [4] becomes [6,4] with strides x:(4,1) y:(0,1). For
// gradients it also gives the axes each operand was repeated along (BroadcastGradientArgs).
#include <cstdint>
#include <vector>

#include "engine/framework/tensor_shape.h"

namespace fb {

class BCast {
 public:
  enum class Kind {
    kSameShape,  // x and y have the same shape: one element-wise pass
    kScalarX,    // x has one element
    kScalarY,    // y has one element
    kRowX,       // collapsed to [R, C]: x is one row [C] repeated R times, y is [R, C]
    kRowY,       // the same with x and y swapped
    kGeneral,    // anything else: strided, row by row over the collapsed dims
  };

  // InvalidArgument "incompatible shapes [2,3] and [4]" when the shapes do not broadcast.
  static StatusOr<BCast> Make(const TensorShape& x, const TensorShape& y);

  Kind kind() const { return kind_; }
  const TensorShape& output_shape() const { return output_shape_; }
  // Collapsed output dimensions and each operand's strides in elements (0 where repeated).
  // Empty for a scalar output.
  const std::vector<int64_t>& dims() const { return dims_; }
  const std::vector<int64_t>& x_strides() const { return x_strides_; }
  const std::vector<int64_t>& y_strides() const { return y_strides_; }
  // Axes of the output along which x (y) was repeated, ascending: summing the output's gradient
  // over them and reshaping gives x's (y's) gradient.
  const std::vector<int64_t>& x_reduce() const { return x_reduce_; }
  const std::vector<int64_t>& y_reduce() const { return y_reduce_; }

 private:
  void Collapse(const std::vector<int64_t>& x, const std::vector<int64_t>& y);
  // Whether the collapsed broadcast is [R, C] with `row` strided (0, 1) and `full` (C, 1).
  bool IsRow(const std::vector<int64_t>& row, const std::vector<int64_t>& full) const;
  Kind kind_ = Kind::kGeneral;
  TensorShape output_shape_;
  std::vector<int64_t> dims_, x_strides_, y_strides_;
  std::vector<int64_t> x_reduce_, y_reduce_;
};

}  // namespace fb
