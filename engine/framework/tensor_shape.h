#pragma once
// TensorShape: the dimensions of a Tensor, row-major (the last dimension varies fastest).
// A dimension of -1 means "unknown" and only appears in shapes produced by shape inference
// (PartialShape); a Tensor's shape is always fully known.
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "engine/framework/status.h"

namespace fb {

class TensorShape {
 public:
  TensorShape() = default;  // a scalar
  TensorShape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit TensorShape(std::vector<int64_t> dims) : dims_(std::move(dims)) {}

  int rank() const { return static_cast<int>(dims_.size()); }
  int dims() const { return rank(); }
  int64_t dim_size(int i) const { return dims_[i]; }
  const std::vector<int64_t>& dim_sizes() const { return dims_; }
  // Product of the dimensions (1 for a scalar). Meaningless if any dimension is unknown.
  int64_t num_elements() const;
  bool IsFullyDefined() const;

  void AddDim(int64_t d) { dims_.push_back(d); }
  void set_dim(int i, int64_t d) { dims_[i] = d; }
  void RemoveDim(int i) { dims_.erase(dims_.begin() + i); }
  void InsertDim(int i, int64_t d) { dims_.insert(dims_.begin() + i, d); }

  bool operator==(const TensorShape& o) const { return dims_ == o.dims_; }
  bool operator!=(const TensorShape& o) const { return dims_ != o.dims_; }
  // "[2,3]", "[]" for a scalar, "?" for unknown dimensions: "[?,784]".
  std::string DebugString() const;

 private:
  std::vector<int64_t> dims_;
};

// Shape attrs may say "unknown rank" (JSON "unknown"); it is stored as the sentinel [-2].
inline TensorShape UnknownRankShape() { return TensorShape{-2}; }
inline bool IsUnknownRank(const TensorShape& s) { return s.rank() == 1 && s.dim_size(0) == -2; }

// Validates dimensions of a shape given by a user (file, feed, attr): all >= 0 and the element
// count fits in int64. `what` names the source in the error message.
Status ValidateShape(const std::vector<int64_t>& dims, const std::string& what);

}  // namespace fb
