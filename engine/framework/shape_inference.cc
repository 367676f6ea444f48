#include "engine/framework/shape_inference.h"

namespace fb {

std::string PartialShapeString(const PartialShape& s) {
  return s ? s->DebugString() : "<unknown>";
}

InferenceContext::InferenceContext(std::string node_name, const OpDef& op, const AttrMap& attrs,
                                   std::vector<PartialShape> inputs,
                                   std::vector<const Tensor*> input_tensors)
    : node_name_(std::move(node_name)),
      op_(op),
      attrs_(attrs),
      inputs_(std::move(inputs)),
      input_tensors_(std::move(input_tensors)) {
  input_tensors_.resize(inputs_.size(), nullptr);
  std::vector<DataType> in, out;
  if (InOutTypesForNode(op, node_name_, attrs, &in, &out).ok()) outputs_.resize(out.size());
}

Status InferenceContext::WithRank(int i, int rank) const {
  if (!inputs_[i] || inputs_[i]->rank() == rank) return Status::OK();
  return Error("input ", i, " must be ", rank, "-D, got shape ", inputs_[i]->DebugString());
}

Status InferenceContext::WithRankAtLeast(int i, int rank) const {
  if (!inputs_[i] || inputs_[i]->rank() >= rank) return Status::OK();
  return Error("input ", i, " must be at least ", rank, "-D, got shape ",
               inputs_[i]->DebugString());
}

Status InferenceContext::MergeDim(int64_t a, int64_t b, int64_t* out,
                                  const std::string& what) const {
  if (a >= 0 && b >= 0 && a != b) return Error(what, ": dimensions ", a, " and ", b, " differ");
  *out = a >= 0 ? a : b;
  return Status::OK();
}

Status InferenceContext::BroadcastShapes(const PartialShape& a, const PartialShape& b,
                                         PartialShape* out) const {
  if (!a || !b) {
    *out = std::nullopt;
    return Status::OK();
  }
  int rank = std::max(a->rank(), b->rank());
  TensorShape result(std::vector<int64_t>(rank, -1));
  for (int i = 0; i < rank; ++i) {
    int ia = a->rank() - rank + i, ib = b->rank() - rank + i;
    int64_t da = ia >= 0 ? a->dim_size(ia) : 1;
    int64_t db = ib >= 0 ? b->dim_size(ib) : 1;
    int64_t d;
    if (da == 1) d = db;
    else if (db == 1) d = da;
    else if (da < 0 || db < 0) d = da < 0 ? (db < 0 ? -1 : db) : da;
    else if (da == db) d = da;
    else
      return Error("incompatible shapes for broadcasting: ", a->DebugString(), " and ",
                   b->DebugString());
    result.set_dim(i, d);
  }
  *out = result;
  return Status::OK();
}

namespace shape_fns {
Status Unknown(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, std::nullopt);
  return Status::OK();
}
Status UnchangedShape(InferenceContext* c) {
  c->set_output(0, c->input(0));
  return Status::OK();
}
Status ScalarShape(InferenceContext* c) {
  c->set_output(0, TensorShape{});
  return Status::OK();
}
Status BroadcastBinary(InferenceContext* c) {
  PartialShape out;
  RETURN_IF_ERROR(c->BroadcastShapes(c->input(0), c->input(1), &out));
  c->set_output(0, out);
  return Status::OK();
}
}  // namespace shape_fns

}  // namespace fb
