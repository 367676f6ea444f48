#pragma once
// Geometry shared by the windowed NN ops (Conv2D, MaxPool, AvgPool and their gradients) and
// their kernels: attr parsing and output size / padding arithmetic, in TensorFlow's conventions
// (tensorflow/core/framework/kernel_shape_util.cc, GetWindowedOutputSizeVerbose):
//   VALID: out = ceil((in - effective_window + 1) / stride), no padding;
//   SAME:  out = ceil(in / stride), pad_total = max(0, (out - 1) * stride + effective_window - in),
//          pad_before = pad_total / 2 (the extra element, if any, goes after);
//   effective_window = (window - 1) * dilation + 1.
// Layout is NHWC for activations and HWIO ([rows, cols, in_depth, out_depth]) for filters.
// Errors are InvalidArgument without a node prefix: shape functions add "<Op> '<node>': " and the
// executor adds the node name for kernels.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/framework/attr_value.h"
#include "engine/framework/shape_inference.h"

namespace fb {

enum class Padding { kSame, kValid };

// One spatial dimension of a windowed op. Sizes may be -1 (unknown, shape inference only): the
// output is then -1 too.
struct WindowDim {
  int64_t in = 0, window = 0, stride = 1, dilation = 1;
  int64_t out = 0;         // output size
  int64_t pad_before = 0;  // implicit zero rows/cols before the first input element
};

// Fills d->out and d->pad_before. InvalidArgument when a VALID window does not fit the input
// ("window 5 (dilated 5) is larger than input size 3").
Status ComputeWindowDim(Padding padding, WindowDim* d);

// The attrs every 2-D windowed op shares: strides [1, sh, sw, 1], padding "SAME"/"VALID",
// data_format "NHWC", and for convolutions dilations [1, dh, dw, 1] (default 1s), for pooling
// ksize [1, kh, kw, 1].
struct Window2DAttrs {
  int64_t stride_rows = 1, stride_cols = 1;
  int64_t dilation_rows = 1, dilation_cols = 1;
  int64_t window_rows = 1, window_cols = 1;  // pooling only (from ksize)
  Padding padding = Padding::kValid;
};

// Parses the attrs above from a node's attrs; `pooling` selects ksize (pooling) or dilations
// (convolution). InvalidArgument for a list that is not of length 4, a non-unit batch or depth
// entry, a non-positive stride/size, or an unknown padding or data_format.
StatusOr<Window2DAttrs> ParseWindow2DAttrs(const AttrMap& attrs, bool pooling);

// Geometry of one Conv2D (or its backprops): input [batch, rows, cols, in_depth], filter
// [filter_rows, filter_cols, in_depth, out_depth], output [batch, out_rows, out_cols, out_depth].
struct Conv2DShape {
  int64_t batch = 0, in_depth = 0, out_depth = 0;
  WindowDim rows, cols;
  std::vector<int64_t> InputDims() const { return {batch, rows.in, cols.in, in_depth}; }
  std::vector<int64_t> FilterDims() const { return {rows.window, cols.window, in_depth, out_depth}; }
  std::vector<int64_t> OutputDims() const { return {batch, rows.out, cols.out, out_depth}; }
};

// Checks ranks (input 4-D NHWC, filter 4-D HWIO) and channel agreement and computes the output
// geometry. Dims may be -1 (unknown). Messages: "input must be 4-D NHWC, got shape [28,28]",
// "input depth 3 does not match filter in_depth 1 (filter shape [5,5,1,6])".
StatusOr<Conv2DShape> ComputeConv2DShape(const std::vector<int64_t>& input,
                                         const std::vector<int64_t>& filter,
                                         const Window2DAttrs& attrs);

// Geometry of a 2-D pooling over input [batch, rows, cols, depth]; filter dims are unused
// (in_depth == out_depth == depth). Requires a 4-D input.
StatusOr<Conv2DShape> ComputePool2DShape(const std::vector<int64_t>& input,
                                         const Window2DAttrs& attrs);

// "[2,3,?]": dims for messages (-1 prints as "?").
std::string DimsString(const std::vector<int64_t>& dims);

// Shape-function helpers. The dims of `s`, or `rank` unknown (-1) dims when its rank is unknown;
// a known rank is returned as is (so rank errors still name the real shape).
std::vector<int64_t> DimsOrUnknown(const PartialShape& s, int rank);
// `s` as an error of the node being inferred ("Conv2D 'conv1': <message>"); OK stays OK.
Status NodeError(const InferenceContext* c, const Status& s);
// The int32/int64 vector held by constant input i (input_sizes of the backprop ops), or
// `rank` unknown dims when the input is not a graph-time constant.
StatusOr<std::vector<int64_t>> ConstantDimsOrUnknown(const InferenceContext* c, int i, int rank);

// Shape function of the element-wise gradient ops (ReluGrad, Relu6Grad, EluGrad, ...): output 0
// is the merge of inputs 0 and 1, which must have the same shape where both are known.
Status MergeBothInputsShape(InferenceContext* c);

}  // namespace fb
