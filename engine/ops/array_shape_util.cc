#include "engine/ops/array_shape_util.h"

#include <algorithm>
#include <sstream>

namespace fb {

namespace {
bool Compatible(int64_t a, int64_t b) { return a < 0 || b < 0 || a == b; }
int64_t Merge(int64_t a, int64_t b) { return a >= 0 ? a : b; }
// a + b, unknown if either is.
int64_t AddDims(int64_t a, int64_t b) { return a < 0 || b < 0 ? -1 : a + b; }
}  // namespace

std::vector<int64_t> IntTensorValues(const Tensor& t) {
  if (t.dtype() == DataType::kInt32) return {t.data<int32_t>(), t.data<int32_t>() + t.NumElements()};
  FB_CHECK(t.dtype() == DataType::kInt64) << "IntTensorValues of " << t.TypeAndShapeString();
  return {t.data<int64_t>(), t.data<int64_t>() + t.NumElements()};
}

std::optional<std::vector<int64_t>> ConstIntInput(const InferenceContext& c, int i) {
  const Tensor* t = c.input_tensor(i);
  if (!t || (t->dtype() != DataType::kInt32 && t->dtype() != DataType::kInt64)) return std::nullopt;
  return IntTensorValues(*t);
}

StatusOr<int> CanonicalAxis(int64_t axis, int rank, const std::string& what) {
  if (axis < -rank || axis >= rank)
    return InvalidArgument(what, " ", axis, " is out of range [", -rank, ", ", rank,
                           ") for rank ", rank);
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

std::string IntListString(const std::vector<int64_t>& v) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < v.size(); ++i) os << (i ? "," : "") << v[i];
  os << "]";
  return os.str();
}

std::string FlatIndexString(const TensorShape& shape, int64_t flat) {
  if (shape.rank() == 0) return "";
  std::vector<int64_t> index(shape.rank());
  for (int i = shape.rank() - 1; i >= 0; --i) {
    const int64_t d = shape.dim_size(i);
    index[i] = d > 0 ? flat % d : 0;
    flat = d > 0 ? flat / d : 0;
  }
  return IntListString(index);
}

Status SetOutputOrError(InferenceContext* c, int i, const StatusOr<TensorShape>& shape) {
  if (!shape.ok()) return c->Error(shape.status().message());
  c->set_output(i, *shape);
  return Status::OK();
}

void SetUnknownDims(InferenceContext* c, int i, int rank) {
  if (rank < 0) c->set_output(i, std::nullopt);
  else c->set_output(i, TensorShape(std::vector<int64_t>(rank, -1)));
}

StatusOr<TensorShape> ReshapeShape(const TensorShape& input, const std::vector<int64_t>& requested) {
  int infer = -1;
  int64_t known = 1;
  for (size_t i = 0; i < requested.size(); ++i) {
    if (requested[i] == -1) {
      if (infer >= 0)
        return InvalidArgument("only one dimension of the requested shape ",
                               IntListString(requested), " may be -1, not both ", infer, " and ", i);
      infer = static_cast<int>(i);
    } else if (requested[i] < 0) {
      return InvalidArgument("requested shape ", IntListString(requested),
                             " has a negative dimension ", requested[i], " at ", i);
    } else if (__builtin_mul_overflow(known, requested[i], &known)) {
      return InvalidArgument("requested shape ", IntListString(requested),
                             " has too many elements: the product of its dimensions overflows "
                             "int64");
    }
  }
  TensorShape out(requested);
  if (!input.IsFullyDefined()) return out;
  int64_t n = input.num_elements();
  if (infer >= 0) {
    if (known == 0)
      return InvalidArgument("cannot infer the -1 in ", IntListString(requested),
                             " when another requested dimension is 0");
    if (n % known != 0)
      return InvalidArgument("input of shape ", input.DebugString(), " has ", n,
                             " values, not divisible by ", known, " for requested shape ",
                             IntListString(requested));
    out.set_dim(infer, n / known);
  } else if (known != n) {
    return InvalidArgument("input of shape ", input.DebugString(), " has ", n,
                           " values, but the requested shape ", IntListString(requested), " has ",
                           known);
  }
  return out;
}

StatusOr<TensorShape> ExpandDimsShape(const TensorShape& input, int64_t dim) {
  int r = input.rank();
  if (dim < -r - 1 || dim > r)
    return InvalidArgument("dim ", dim, " is out of range [", -r - 1, ", ", r, "] for input of shape ",
                           input.DebugString());
  TensorShape out = input;
  out.InsertDim(static_cast<int>(dim < 0 ? dim + r + 1 : dim), 1);
  return out;
}

StatusOr<TensorShape> SqueezeShape(const TensorShape& input, const std::vector<int64_t>& dims) {
  std::vector<bool> drop(input.rank(), false);
  for (int64_t d : dims) {
    ASSIGN_OR_RETURN(int axis, CanonicalAxis(d, input.rank(), "squeeze dim"));
    if (!Compatible(input.dim_size(axis), 1))
      return InvalidArgument("cannot squeeze dim ", d, " of shape ", input.DebugString(),
                             ": expected a dimension of 1, got ", input.dim_size(axis));
    drop[axis] = true;
  }
  TensorShape out;
  for (int i = 0; i < input.rank(); ++i) {
    int64_t d = input.dim_size(i);
    if (drop[i] || (dims.empty() && d == 1)) continue;
    out.AddDim(d);
  }
  return out;
}

StatusOr<TensorShape> TransposeShape(const TensorShape& input, const std::vector<int64_t>& perm) {
  int r = input.rank();
  if (static_cast<int>(perm.size()) != r)
    return InvalidArgument("perm ", IntListString(perm), " has ", perm.size(),
                           " entries for input of rank ", r, " (shape ", input.DebugString(), ")");
  std::vector<bool> seen(r, false);
  TensorShape out;
  for (int64_t p : perm) {
    if (p < 0 || p >= r || seen[p])
      return InvalidArgument("perm ", IntListString(perm), " is not a permutation of [0, ", r, ")");
    seen[p] = true;
    out.AddDim(input.dim_size(static_cast<int>(p)));
  }
  return out;
}

StatusOr<TensorShape> ConcatShape(const std::vector<TensorShape>& inputs, int64_t axis) {
  FB_CHECK(!inputs.empty()) << "ConcatShape of no inputs";
  TensorShape out = inputs[0];
  ASSIGN_OR_RETURN(int a, CanonicalAxis(axis, out.rank(), "axis"));
  for (size_t k = 1; k < inputs.size(); ++k) {
    const TensorShape& in = inputs[k];
    bool ok = in.rank() == out.rank();
    for (int i = 0; ok && i < in.rank(); ++i) {
      if (i == a) continue;
      ok = Compatible(in.dim_size(i), out.dim_size(i));
      if (ok) out.set_dim(i, Merge(out.dim_size(i), in.dim_size(i)));
    }
    if (!ok)
      return InvalidArgument("input ", k, " has shape ", in.DebugString(), " but input 0 has shape ",
                             inputs[0].DebugString(), ": all dimensions except axis ", a,
                             " must match");
    out.set_dim(a, AddDims(out.dim_size(a), in.dim_size(a)));
  }
  return out;
}

StatusOr<TensorShape> PackShape(const std::vector<TensorShape>& inputs, int64_t axis) {
  FB_CHECK(!inputs.empty()) << "PackShape of no inputs";
  TensorShape out = inputs[0];
  for (size_t k = 1; k < inputs.size(); ++k) {
    const TensorShape& in = inputs[k];
    bool ok = in.rank() == out.rank();
    for (int i = 0; ok && i < in.rank(); ++i) {
      ok = Compatible(in.dim_size(i), out.dim_size(i));
      if (ok) out.set_dim(i, Merge(out.dim_size(i), in.dim_size(i)));
    }
    if (!ok)
      return InvalidArgument("input ", k, " has shape ", in.DebugString(), " but input 0 has shape ",
                             inputs[0].DebugString(), ": packed tensors must have equal shapes");
  }
  int r = out.rank();
  if (axis < -r - 1 || axis > r)
    return InvalidArgument("axis ", axis, " is out of range [", -r - 1, ", ", r, "]");
  out.InsertDim(static_cast<int>(axis < 0 ? axis + r + 1 : axis),
                static_cast<int64_t>(inputs.size()));
  return out;
}

StatusOr<TensorShape> UnpackShape(const TensorShape& input, int64_t num, int64_t axis) {
  ASSIGN_OR_RETURN(int a, CanonicalAxis(axis, input.rank(), "axis"));
  if (!Compatible(input.dim_size(a), num))
    return InvalidArgument("cannot unpack ", num, " tensors from dimension ", a, " of shape ",
                           input.DebugString());
  TensorShape out = input;
  out.RemoveDim(a);
  return out;
}

StatusOr<TensorShape> SliceShape(const TensorShape& input, const std::vector<int64_t>& begin,
                                 const std::vector<int64_t>& size) {
  int r = input.rank();
  if (static_cast<int>(begin.size()) != r || static_cast<int>(size.size()) != r)
    return InvalidArgument("begin ", IntListString(begin), " and size ", IntListString(size),
                           " must have one entry per dimension of input ", input.DebugString());
  TensorShape out;
  for (int i = 0; i < r; ++i) {
    int64_t d = input.dim_size(i), b = begin[i], s = size[i];
    if (b < 0 || s < -1)
      return InvalidArgument("begin[", i, "] = ", b, " and size[", i, "] = ", s,
                             " must be >= 0 (size may be -1)");
    if (d >= 0 && (b > d || (s >= 0 && b + s > d)))
      return InvalidArgument("slice begin[", i, "] = ", b, " with size[", i, "] = ", s,
                             " exceeds dimension ", i, " of input ", input.DebugString());
    out.AddDim(s >= 0 ? s : (d >= 0 ? d - b : -1));
  }
  return out;
}

StatusOr<TensorShape> SplitShape(const TensorShape& input, int64_t axis, int64_t num_split) {
  ASSIGN_OR_RETURN(int a, CanonicalAxis(axis, input.rank(), "split_dim"));
  int64_t d = input.dim_size(a);
  if (num_split <= 0) return InvalidArgument("num_split must be >= 1, got ", num_split);
  if (d >= 0 && d % num_split != 0)
    return InvalidArgument("dimension ", a, " of input ", input.DebugString(),
                           " is not divisible by num_split ", num_split);
  TensorShape out = input;
  out.set_dim(a, d >= 0 ? d / num_split : -1);
  return out;
}

StatusOr<TensorShape> PadShape(const TensorShape& input, const std::vector<int64_t>& paddings) {
  int r = input.rank();
  if (static_cast<int>(paddings.size()) != 2 * r)
    return InvalidArgument("paddings must have shape [", r, ",2] for input ", input.DebugString(),
                           ", got ", paddings.size(), " values");
  TensorShape out;
  for (int i = 0; i < r; ++i) {
    int64_t before = paddings[2 * i], after = paddings[2 * i + 1];
    if (before < 0 || after < 0)
      return InvalidArgument("paddings[", i, "] = [", before, ",", after, "] must be >= 0");
    int64_t pad = 0, padded = 0;
    if (__builtin_add_overflow(before, after, &pad) ||
        __builtin_add_overflow(std::max<int64_t>(input.dim_size(i), 0), pad, &padded))
      return InvalidArgument("paddings[", i, "] = [", before, ",", after, "] on dimension ",
                             input.dim_size(i), " overflow int64");
    out.AddDim(AddDims(input.dim_size(i), pad));
  }
  return out;
}

StatusOr<TensorShape> GatherShape(const TensorShape& params, const TensorShape& indices,
                                  int64_t axis) {
  if (params.rank() == 0) return InvalidArgument("params must be at least 1-D, got a scalar");
  ASSIGN_OR_RETURN(int a, CanonicalAxis(axis, params.rank(), "axis"));
  TensorShape out;
  for (int i = 0; i < a; ++i) out.AddDim(params.dim_size(i));
  for (int64_t d : indices.dim_sizes()) out.AddDim(d);
  for (int i = a + 1; i < params.rank(); ++i) out.AddDim(params.dim_size(i));
  return out;
}

StatusOr<TensorShape> OneHotShape(const TensorShape& indices, int64_t depth, int64_t axis) {
  int r = indices.rank();
  if (depth < 0) return InvalidArgument("depth must be non-negative, got ", depth);
  if (axis < -1 || axis > r)
    return InvalidArgument("axis ", axis, " must be -1 or in [0, ", r, "] for indices of shape ",
                           indices.DebugString());
  TensorShape out = indices;
  out.InsertDim(static_cast<int>(axis == -1 ? r : axis), depth);
  return out;
}

StatusOr<TensorShape> SegmentSumShape(const TensorShape& data, const TensorShape& segment_ids,
                                      int64_t num_segments) {
  bool ok = segment_ids.rank() <= data.rank();
  for (int i = 0; ok && i < segment_ids.rank(); ++i)
    ok = Compatible(data.dim_size(i), segment_ids.dim_size(i));
  if (!ok)
    return InvalidArgument("data of shape ", data.DebugString(),
                           " must start with the shape of segment_ids ",
                           segment_ids.DebugString());
  if (num_segments < -1) return InvalidArgument("num_segments must be >= 0, got ", num_segments);
  TensorShape out{num_segments};
  for (int i = segment_ids.rank(); i < data.rank(); ++i) out.AddDim(data.dim_size(i));
  return out;
}

}  // namespace fb
