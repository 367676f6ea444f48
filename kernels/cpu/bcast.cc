#include "kernels/cpu/bcast.h"

namespace fb {

StatusOr<BCast> BCast::Make(const TensorShape& x, const TensorShape& y) {
  const int rank = std::max(x.rank(), y.rank());
  // Both shapes padded with leading 1s to the output's rank.
  std::vector<int64_t> px(rank, 1), py(rank, 1);
  std::copy(x.dim_sizes().begin(), x.dim_sizes().end(), px.end() - x.rank());
  std::copy(y.dim_sizes().begin(), y.dim_sizes().end(), py.end() - y.rank());
  BCast b;
  for (int i = 0; i < rank; ++i) {
    if (px[i] != py[i] && px[i] != 1 && py[i] != 1)
      return InvalidArgument("incompatible shapes ", x.DebugString(), " and ", y.DebugString());
    int64_t out = px[i] == 1 ? py[i] : px[i];
    b.output_shape_.AddDim(out);
    if (out != 1 && px[i] == 1) b.x_reduce_.push_back(i);
    if (out != 1 && py[i] == 1) b.y_reduce_.push_back(i);
  }
  b.Collapse(px, py);
  const bool one_dim = b.dims_.size() == 1 && b.x_strides_[0] == 1 && b.y_strides_[0] == 1;
  if (x == y || one_dim) b.kind_ = Kind::kSameShape;  // [3] + [1,3] is element-wise too
  else if (x.num_elements() == 1) b.kind_ = Kind::kScalarX;
  else if (y.num_elements() == 1) b.kind_ = Kind::kScalarY;
  else if (b.IsRow(b.x_strides_, b.y_strides_)) b.kind_ = Kind::kRowX;
  else if (b.IsRow(b.y_strides_, b.x_strides_)) b.kind_ = Kind::kRowY;
  else b.kind_ = Kind::kGeneral;
  return b;
}

bool BCast::IsRow(const std::vector<int64_t>& row, const std::vector<int64_t>& full) const {
  if (dims_.size() != 2) return false;
  return row == std::vector<int64_t>{0, 1} && full == std::vector<int64_t>{dims_[1], 1};
}

void BCast::Collapse(const std::vector<int64_t>& x, const std::vector<int64_t>& y) {
  std::vector<bool> x_repeated, y_repeated;
  for (size_t i = 0; i < x.size(); ++i) {
    int64_t out = output_shape_.dim_size(static_cast<int>(i));
    if (out == 1) continue;
    bool xr = x[i] == 1, yr = y[i] == 1;
    if (!dims_.empty() && x_repeated.back() == xr && y_repeated.back() == yr) {
      dims_.back() *= out;
    } else {
      dims_.push_back(out);
      x_repeated.push_back(xr);
      y_repeated.push_back(yr);
    }
  }
  x_strides_.assign(dims_.size(), 0);
  y_strides_.assign(dims_.size(), 0);
  int64_t x_step = 1, y_step = 1;
  for (int i = static_cast<int>(dims_.size()) - 1; i >= 0; --i) {
    if (!x_repeated[i]) x_strides_[i] = x_step, x_step *= dims_[i];
    if (!y_repeated[i]) y_strides_[i] = y_step, y_step *= dims_[i];
  }
}

}  // namespace fb
