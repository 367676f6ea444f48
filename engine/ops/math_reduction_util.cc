#include "engine/ops/math_reduction_util.h"

#include "engine/framework/shape_inference.h"

namespace fb {

StatusOr<std::vector<int64_t>> IndexValues(const Tensor& t, const char* what) {
  std::vector<int64_t> v(t.NumElements());
  if (t.dtype() == DataType::kInt32) {
    std::copy(t.data<int32_t>(), t.data<int32_t>() + v.size(), v.begin());
  } else if (t.dtype() == DataType::kInt64) {
    std::copy(t.data<int64_t>(), t.data<int64_t>() + v.size(), v.begin());
  } else {
    return InvalidArgument(what, " must be int32 or int64, got ", DataTypeString(t.dtype()));
  }
  return v;
}

StatusOr<std::vector<bool>> ReductionMask(const Tensor& axes, int rank) {
  if (axes.dims() > 1)
    return InvalidArgument("reduction_indices must be a scalar or vector, got shape ",
                           axes.shape().DebugString());
  ASSIGN_OR_RETURN(std::vector<int64_t> values, IndexValues(axes, "reduction_indices"));
  std::vector<bool> mask(rank, false);
  for (int64_t a : values) {
    if (a < -rank || a >= rank)
      return InvalidArgument("reduction index ", a, " is out of range for input of rank ", rank);
    mask[a < 0 ? a + rank : a] = true;
  }
  return mask;
}

TensorShape ReducedShape(const TensorShape& shape, const std::vector<bool>& mask, bool keep_dims) {
  TensorShape out;
  for (int i = 0; i < shape.rank(); ++i) {
    if (!mask[i]) out.AddDim(shape.dim_size(i));
    else if (keep_dims) out.AddDim(1);
  }
  return out;
}

Status ReductionShape(InferenceContext* c) {
  RETURN_IF_ERROR(c->WithRankAtLeast(1, 0));
  bool keep_dims = false;
  RETURN_IF_ERROR(c->GetAttr("keep_dims", &keep_dims));
  const PartialShape& in = c->input(0);
  const Tensor* axes = c->input_tensor(1);
  if (!in) {
    c->set_output(0, std::nullopt);
    return Status::OK();
  }
  if (!axes) {
    if (keep_dims) c->set_output(0, TensorShape(std::vector<int64_t>(in->rank(), -1)));
    else c->set_output(0, std::nullopt);
    return Status::OK();
  }
  auto mask = ReductionMask(*axes, in->rank());
  if (!mask.ok()) return c->Error(mask.status().message());
  c->set_output(0, ReducedShape(*in, *mask, keep_dims));
  return Status::OK();
}

Status ArgMaxShape(InferenceContext* c) {
  RETURN_IF_ERROR(c->WithRankAtLeast(0, 1));
  RETURN_IF_ERROR(c->WithRank(1, 0));
  const PartialShape& in = c->input(0);
  const Tensor* dim = c->input_tensor(1);
  if (!in || !dim) {
    c->set_output(0, in ? PartialShape(TensorShape(std::vector<int64_t>(in->rank() - 1, -1)))
                        : std::nullopt);
    return Status::OK();
  }
  auto mask = ReductionMask(*dim, in->rank());
  if (!mask.ok()) return c->Error(mask.status().message());
  c->set_output(0, ReducedShape(*in, *mask, /*keep_dims=*/false));
  return Status::OK();
}

}  // namespace fb
