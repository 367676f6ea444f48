#include "engine/ops/nn_ops_common.h"

namespace fb {

std::string DimsString(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ",";
    s += dims[i] < 0 ? "?" : std::to_string(dims[i]);
  }
  return s + "]";
}

Status ComputeWindowDim(Padding padding, WindowDim* d) {
  int64_t effective = (d->window - 1) * d->dilation + 1;
  if (d->in < 0) {
    d->out = -1;
    d->pad_before = -1;
    return Status::OK();
  }
  if (padding == Padding::kValid) {
    if (effective > d->in)
      return InvalidArgument("window ", d->window, " (dilated ", effective,
                             ") is larger than input size ", d->in, " with VALID padding");
    d->out = (d->in - effective + d->stride) / d->stride;
    d->pad_before = 0;
  } else {
    d->out = (d->in + d->stride - 1) / d->stride;
    int64_t pad_total = std::max<int64_t>(0, (d->out - 1) * d->stride + effective - d->in);
    d->pad_before = pad_total / 2;
  }
  return Status::OK();
}

std::vector<int64_t> DimsOrUnknown(const PartialShape& s, int rank) {
  return s ? s->dim_sizes() : std::vector<int64_t>(rank, -1);
}

Status NodeError(const InferenceContext* c, const Status& s) {
  return s.ok() ? s : c->Error(s.message());
}

StatusOr<std::vector<int64_t>> ConstantDimsOrUnknown(const InferenceContext* c, int i, int rank) {
  const Tensor* t = c->input_tensor(i);
  if (!t) return std::vector<int64_t>(rank, -1);
  if (t->dims() != 1 || t->NumElements() != rank)
    return c->Error("input ", i, " must be a vector of ", rank, " sizes, got shape ",
                    t->shape().DebugString());
  std::vector<int64_t> dims(rank);
  for (int k = 0; k < rank; ++k)
    dims[k] = t->dtype() == DataType::kInt64 ? t->data<int64_t>()[k] : t->data<int32_t>()[k];
  return dims;
}

namespace {

// Reads a list(int) attr of 4 entries [1, rows, cols, 1] into (*rows, *cols).
Status ParseRowsCols(const AttrMap& attrs, const std::string& name, int64_t* rows,
                     int64_t* cols) {
  std::vector<int64_t> v;
  RETURN_IF_ERROR(GetNodeAttr(attrs, name, &v));
  if (v.size() != 4)
    return InvalidArgument(name, " must have 4 entries [1, rows, cols, 1], got ", DimsString(v));
  if (v[0] != 1 || v[3] != 1)
    return InvalidArgument(name, " in the batch and depth dimensions must be 1, got ",
                           DimsString(v));
  if (v[1] < 1 || v[2] < 1) return InvalidArgument(name, " must be positive, got ", DimsString(v));
  *rows = v[1];
  *cols = v[2];
  return Status::OK();
}

}  // namespace

StatusOr<Window2DAttrs> ParseWindow2DAttrs(const AttrMap& attrs, bool pooling) {
  Window2DAttrs w;
  RETURN_IF_ERROR(ParseRowsCols(attrs, "strides", &w.stride_rows, &w.stride_cols));
  if (pooling) {
    RETURN_IF_ERROR(ParseRowsCols(attrs, "ksize", &w.window_rows, &w.window_cols));
  } else if (attrs.count("dilations")) {
    RETURN_IF_ERROR(ParseRowsCols(attrs, "dilations", &w.dilation_rows, &w.dilation_cols));
  }
  std::string padding;
  RETURN_IF_ERROR(GetNodeAttr(attrs, "padding", &padding));
  if (padding == "SAME") w.padding = Padding::kSame;
  else if (padding == "VALID") w.padding = Padding::kValid;
  else return InvalidArgument("padding must be \"SAME\" or \"VALID\", got \"", padding, "\"");
  if (attrs.count("data_format")) {
    std::string format;
    RETURN_IF_ERROR(GetNodeAttr(attrs, "data_format", &format));
    if (format != "NHWC")
      return InvalidArgument("data_format \"", format, "\" is not supported (only \"NHWC\")");
  }
  return w;
}

namespace {

// Fills the spatial geometry of `s` from input rows/cols and window sizes.
Status FillWindows(const Window2DAttrs& a, int64_t in_rows, int64_t in_cols, int64_t win_rows,
                   int64_t win_cols, Conv2DShape* s) {
  s->rows = {in_rows, win_rows, a.stride_rows, a.dilation_rows};
  s->cols = {in_cols, win_cols, a.stride_cols, a.dilation_cols};
  Status st = ComputeWindowDim(a.padding, &s->rows);
  if (!st.ok()) return st.WithPrefix("rows: ");
  st = ComputeWindowDim(a.padding, &s->cols);
  if (!st.ok()) return st.WithPrefix("cols: ");
  return Status::OK();
}

}  // namespace

StatusOr<Conv2DShape> ComputeConv2DShape(const std::vector<int64_t>& input,
                                         const std::vector<int64_t>& filter,
                                         const Window2DAttrs& attrs) {
  if (input.size() != 4)
    return InvalidArgument("input must be 4-D NHWC, got shape ", DimsString(input));
  if (filter.size() != 4)
    return InvalidArgument("filter must be 4-D [rows, cols, in_depth, out_depth], got shape ",
                           DimsString(filter));
  if (input[3] >= 0 && filter[2] >= 0 && input[3] != filter[2])
    return InvalidArgument("input depth ", input[3], " does not match filter in_depth ",
                           filter[2], " (input shape ", DimsString(input), ", filter shape ",
                           DimsString(filter), ")");
  if (filter[0] == 0 || filter[1] == 0)
    return InvalidArgument("filter must have positive rows and cols, got shape ",
                           DimsString(filter));
  Conv2DShape s;
  s.batch = input[0];
  s.in_depth = input[3] >= 0 ? input[3] : filter[2];
  s.out_depth = filter[3];
  int64_t win_rows = filter[0] >= 0 ? filter[0] : 1, win_cols = filter[1] >= 0 ? filter[1] : 1;
  RETURN_IF_ERROR(FillWindows(attrs, input[1], input[2], win_rows, win_cols, &s));
  if (filter[0] < 0) s.rows.out = -1;
  if (filter[1] < 0) s.cols.out = -1;
  return s;
}

StatusOr<Conv2DShape> ComputePool2DShape(const std::vector<int64_t>& input,
                                         const Window2DAttrs& attrs) {
  if (input.size() != 4)
    return InvalidArgument("input must be 4-D NHWC, got shape ", DimsString(input));
  Conv2DShape s;
  s.batch = input[0];
  s.in_depth = s.out_depth = input[3];
  RETURN_IF_ERROR(FillWindows(attrs, input[1], input[2], attrs.window_rows, attrs.window_cols, &s));
  return s;
}

Status MergeBothInputsShape(InferenceContext* c) {
  const PartialShape& a = c->input(0);
  const PartialShape& b = c->input(1);
  if (!a || !b) {
    c->set_output(0, a ? a : b);
    return Status::OK();
  }
  if (a->rank() != b->rank())
    return c->Error("inputs must have the same shape, got ", a->DebugString(), " and ",
                    b->DebugString());
  TensorShape out = *a;
  for (int i = 0; i < a->rank(); ++i) {
    int64_t d;
    RETURN_IF_ERROR(c->MergeDim(a->dim_size(i), b->dim_size(i), &d, "inputs"));
    out.set_dim(i, d);
  }
  c->set_output(0, out);
  return Status::OK();
}

}  // namespace fb
