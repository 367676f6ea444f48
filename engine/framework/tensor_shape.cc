#include "engine/framework/tensor_shape.h"

#include <limits>
#include <sstream>

namespace fb {

// Saturates at INT64_MAX instead of overflowing (undefined behaviour): a shape computed from fed
// values ([2^40, 2^40]) then reads as "too many elements" and fails allocation with a Status.
int64_t TensorShape::num_elements() const {
  int64_t n = 1;
  for (int64_t d : dims_) {
    if (__builtin_mul_overflow(n, d, &n)) return std::numeric_limits<int64_t>::max();
  }
  return n;
}

bool TensorShape::IsFullyDefined() const {
  for (int64_t d : dims_)
    if (d < 0) return false;
  return true;
}

std::string TensorShape::DebugString() const {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i) os << ",";
    if (dims_[i] < 0) os << "?"; else os << dims_[i];
  }
  os << "]";
  return os.str();
}

Status ValidateShape(const std::vector<int64_t>& dims, const std::string& what) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return InvalidArgument(what, ": negative dimension ", d);
    if (d > 0 && n > std::numeric_limits<int64_t>::max() / d)
      return InvalidArgument(what, ": shape has too many elements");
    n *= d;
  }
  return Status::OK();
}

}  // namespace fb
