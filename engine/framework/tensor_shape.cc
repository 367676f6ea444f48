#include "engine/framework/tensor_shape.h"

#include <limits>
#include <sstream>

namespace fb {

int64_t TensorShape::num_elements() const {
  int64_t n = 1;
  for (int64_t d : dims_) n *= d;
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
