// Array ops of whitepaper Table 1 that cut tensors into pieces or join pieces: Slice, Pad, Split,
// ConcatV2 (and TensorFlow's older Concat), ConcatOffset (used by Concat's gradient), Pack,
// Unpack. Definitions follow TensorFlow's array_ops.cc; shape functions use constant axes,
// begins, sizes and paddings when the graph has them.
#include "engine/framework/op_def.h"
#include "engine/framework/shape_inference.h"
#include "engine/ops/array_shape_util.h"

namespace fb {

namespace {

// The rank of the first input in [first, last) with a known rank, or -1.
int KnownRank(InferenceContext* c, int first, int last) {
  for (int i = first; i < last; ++i)
    if (c->input(i)) return c->input(i)->rank();
  return -1;
}

// Inputs [first, last) as shapes of `rank` (unknown ranks become all-unknown dims).
std::vector<TensorShape> ShapesWithRank(InferenceContext* c, int first, int last, int rank) {
  std::vector<TensorShape> shapes;
  for (int i = first; i < last; ++i)
    shapes.push_back(c->input(i) ? *c->input(i) : TensorShape(std::vector<int64_t>(rank, -1)));
  return shapes;
}

// Concat with the values at inputs [first, first + n) and the axis at input `axis_input`.
Status ConcatShapeFn(InferenceContext* c, int first, int n, int axis_input) {
  int rank = KnownRank(c, first, first + n);
  auto axis = ConstIntInput(*c, axis_input);
  if (rank < 0 || !axis) {
    SetUnknownDims(c, 0, rank);
    return Status::OK();
  }
  return SetOutputOrError(c, 0, ConcatShape(ShapesWithRank(c, first, first + n, rank), (*axis)[0]));
}

Status SliceShapeFn(InferenceContext* c) {
  RETURN_IF_ERROR(c->WithRank(1, 1));
  RETURN_IF_ERROR(c->WithRank(2, 1));
  auto begin = ConstIntInput(*c, 1);
  auto size = ConstIntInput(*c, 2);
  if (c->input(0) && begin && size) return SetOutputOrError(c, 0, SliceShape(*c->input(0), *begin, *size));
  if (size) {
    TensorShape out;
    for (int64_t s : *size) out.AddDim(s >= 0 ? s : -1);
    c->set_output(0, out);
    return Status::OK();
  }
  int rank = c->input(0) ? c->input(0)->rank() : (begin ? static_cast<int>(begin->size()) : -1);
  SetUnknownDims(c, 0, rank);
  return Status::OK();
}

Status PadShapeFn(InferenceContext* c) {
  RETURN_IF_ERROR(c->WithRank(1, 2));
  auto paddings = ConstIntInput(*c, 1);
  if (c->input(0) && paddings) return SetOutputOrError(c, 0, PadShape(*c->input(0), *paddings));
  SetUnknownDims(c, 0, c->input(0) ? c->input(0)->rank() : -1);
  return Status::OK();
}

Status SplitShapeFn(InferenceContext* c) {
  int64_t num_split;
  RETURN_IF_ERROR(c->GetAttr("num_split", &num_split));
  auto axis = ConstIntInput(*c, 0);
  PartialShape out;
  if (c->input(1) && axis) {
    auto s = SplitShape(*c->input(1), (*axis)[0], num_split);
    if (!s.ok()) return c->Error(s.status().message());
    out = *s;
  } else if (c->input(1)) {
    out = TensorShape(std::vector<int64_t>(c->input(1)->rank(), -1));
  }
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, out);
  return Status::OK();
}

Status ConcatOffsetShapeFn(InferenceContext* c) {
  for (int i = 1; i < c->num_inputs(); ++i) c->set_output(i - 1, c->input(i));
  return Status::OK();
}

Status PackShapeFn(InferenceContext* c) {
  int64_t axis;
  RETURN_IF_ERROR(c->GetAttr("axis", &axis));
  int rank = KnownRank(c, 0, c->num_inputs());
  if (rank < 0) {
    c->set_output(0, std::nullopt);
    return Status::OK();
  }
  return SetOutputOrError(c, 0, PackShape(ShapesWithRank(c, 0, c->num_inputs(), rank), axis));
}

Status UnpackShapeFn(InferenceContext* c) {
  int64_t num, axis;
  RETURN_IF_ERROR(c->GetAttr("num", &num));
  RETURN_IF_ERROR(c->GetAttr("axis", &axis));
  PartialShape out;
  if (c->input(0)) {
    auto s = UnpackShape(*c->input(0), num, axis);
    if (!s.ok()) return c->Error(s.status().message());
    out = *s;
  }
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, out);
  return Status::OK();
}

}  // namespace

REGISTER_OP("Slice")
    .Input("input: T")
    .Input("begin: Index")
    .Input("size: Index")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Index: {int32, int64}")
    .SetShapeFn(SliceShapeFn)
    .Doc("The box of `input` starting at `begin` with extent `size` (1-D, one entry per "
         "dimension; size -1 means to the end of that dimension).");

REGISTER_OP("Pad")
    .Input("input: T")
    .Input("paddings: Tpaddings")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tpaddings: {int32, int64} = int32")
    .SetShapeFn(PadShapeFn)
    .Doc("`input` surrounded by zeros: `paddings` is [rank, 2], row i holding how many zeros go "
         "before and after dimension i.");

REGISTER_OP("Split")
    .Input("split_dim: int32")
    .Input("value: T")
    .Output("output: num_split * T")
    .Attr("num_split: int >= 1")
    .Attr("T: type")
    .SetShapeFn(SplitShapeFn)
    .Doc("`value` cut into `num_split` equal pieces along `split_dim` (a scalar, negative counts "
         "from the end), which must divide evenly.");

REGISTER_OP("ConcatV2")
    .Input("values: N * T")
    .Input("axis: Tidx")
    .Output("output: T")
    .Attr("N: int >= 2")
    .Attr("T: type")
    .Attr("Tidx: {int32, int64} = int32")
    .SetShapeFn([](InferenceContext* c) { return ConcatShapeFn(c, 0, c->num_inputs() - 1, c->num_inputs() - 1); })
    .Doc("The N `values` joined along `axis` (a scalar in [-rank, rank)). All dimensions except "
         "`axis` must match.");

REGISTER_OP("Concat")
    .Input("concat_dim: int32")
    .Input("values: N * T")
    .Output("output: T")
    .Attr("N: int >= 2")
    .Attr("T: type")
    .SetShapeFn([](InferenceContext* c) { return ConcatShapeFn(c, 1, c->num_inputs() - 1, 0); })
    .Doc("TensorFlow's original concat with the axis first; see ConcatV2.");

REGISTER_OP("ConcatOffset")
    .Input("concat_dim: int32")
    .Input("shape: N * shape_type")
    .Output("offset: N * shape_type")
    .Attr("N: int >= 2")
    .Attr("shape_type: {int32, int64} = int32")
    .SetShapeFn(ConcatOffsetShapeFn)
    .Doc("For the shapes of N tensors being concatenated along `concat_dim`, where each starts in "
         "the result: offset i is zero except entry concat_dim, the sum of the sizes before it. "
         "Used by the gradient of ConcatV2.");

REGISTER_OP("Pack")
    .Input("values: N * T")
    .Output("output: T")
    .Attr("N: int >= 1")
    .Attr("T: type")
    .Attr("axis: int = 0")
    .SetShapeFn(PackShapeFn)
    .Doc("The N equal-shaped `values` stacked along a new dimension `axis` in [-rank-1, rank].");

REGISTER_OP("Unpack")
    .Input("value: T")
    .Output("output: num * T")
    .Attr("num: int >= 0")
    .Attr("T: type")
    .Attr("axis: int = 0")
    .SetShapeFn(UnpackShapeFn)
    .Doc("`value` cut into `num` tensors along dimension `axis`, which is removed.");

}  // namespace fb
