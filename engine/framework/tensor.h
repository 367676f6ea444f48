#pragma once
// Tensor: a typed, shaped, reference-counted view of a buffer from a Device's Allocator.
// Layout is dense row-major (C order). Copying a Tensor shares the buffer (whitepaper section 2:
// tensors flow along edges without copies); Slice() and Reshape-style views share it too.
// Thread-safety: the buffer's refcount is atomic; element access is not synchronised.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "engine/framework/allocator.h"
#include "engine/framework/tensor_shape.h"
#include "engine/framework/types.h"

namespace fb {

// Owns `bytes` bytes from `allocator`; for kString it also constructs/destroys std::string objects.
class TensorBuffer {
 public:
  TensorBuffer(Allocator* allocator, DataType dtype, int64_t num_elements);
  ~TensorBuffer();
  TensorBuffer(const TensorBuffer&) = delete;
  TensorBuffer& operator=(const TensorBuffer&) = delete;
  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }
  Allocator* allocator() const { return allocator_; }

 private:
  Allocator* allocator_;
  DataType dtype_;
  int64_t num_elements_;
  size_t bytes_;
  void* data_;
};

class Tensor {
 public:
  template <typename T>
  using FlatMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
  template <typename T>
  using MatrixMap = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;

  Tensor() = default;  // an uninitialized tensor: !IsInitialized()
  // Allocates an uninitialized buffer (strings are empty) from `allocator` (default CPU).
  Tensor(DataType dtype, const TensorShape& shape, Allocator* allocator = nullptr);

  template <typename T>
  static Tensor Scalar(T value) {
    Tensor t(DataTypeToEnum<T>::value, TensorShape{});
    t.scalar<T>() = value;
    return t;
  }
  // values.size() must equal shape.num_elements().
  template <typename T>
  static Tensor FromVector(const std::vector<T>& values, const TensorShape& shape) {
    Tensor t(DataTypeToEnum<T>::value, shape);
    FB_CHECK(static_cast<int64_t>(values.size()) == shape.num_elements())
        << values.size() << " values for shape " << shape.DebugString();
    std::copy(values.begin(), values.end(), t.data<T>());
    return t;
  }
  template <typename T>
  static Tensor FromVector(const std::vector<T>& values) {
    return FromVector(values, TensorShape{static_cast<int64_t>(values.size())});
  }

  bool IsInitialized() const { return buffer_ != nullptr || dtype_ != DataType::kInvalid; }
  DataType dtype() const { return dtype_; }
  const TensorShape& shape() const { return shape_; }
  int dims() const { return shape_.rank(); }
  int64_t dim_size(int i) const { return shape_.dim_size(i); }
  int64_t NumElements() const { return shape_.num_elements(); }
  // Bytes of element data (0 for strings: see TotalBytes).
  size_t ByteSize() const { return NumElements() * DataTypeSize(dtype_); }
  // Bytes including string payloads: what a transfer of this tensor costs.
  size_t TotalBytes() const;

  template <typename T>
  T* data() const {
    FB_CHECK(DataTypeToEnum<T>::value == dtype_)
        << "Tensor of " << DataTypeString(dtype_) << " accessed as "
        << DataTypeString(DataTypeToEnum<T>::value);
    return reinterpret_cast<T*>(raw_data());
  }
  void* raw_data() const {
    return buffer_ ? static_cast<char*>(buffer_->data()) + offset_bytes_ : nullptr;
  }
  template <typename T>
  FlatMap<T> flat() const { return FlatMap<T>(data<T>(), NumElements()); }
  // Views the tensor as [prod(dims[:-1]), dims[-1]] (a scalar or vector as [1, n]).
  template <typename T>
  MatrixMap<T> matrix() const {
    int64_t cols = dims() == 0 ? 1 : dim_size(dims() - 1);
    int64_t rows = cols == 0 ? 0 : NumElements() / cols;
    return MatrixMap<T>(data<T>(), rows, cols);
  }
  template <typename T>
  T& scalar() const {
    FB_CHECK(NumElements() == 1) << "scalar() on shape " << shape_.DebugString();
    return *data<T>();
  }

  // A tensor sharing this buffer with a new shape of the same number of elements.
  Tensor Reshaped(const TensorShape& shape) const;
  // Rows [start, limit) of dimension 0, sharing the buffer. FB_CHECKs bounds.
  Tensor Slice(int64_t start, int64_t limit) const;
  // A deep copy into `allocator` (default CPU).
  Tensor DeepCopy(Allocator* allocator = nullptr) const;
  bool SharesBufferWith(const Tensor& other) const {
    return buffer_ && buffer_ == other.buffer_;
  }
  // Number of Tensors sharing the buffer (for in-place reuse decisions).
  long BufferRefCount() const { return buffer_.use_count(); }
  Allocator* allocator() const { return buffer_ ? buffer_->allocator() : nullptr; }

  // "Tensor<float, [2,2]>: [1 2 3 4]" with at most `max_entries` values.
  std::string DebugString(int max_entries = 8) const;
  // "float[2,2]"
  std::string TypeAndShapeString() const;

 private:
  DataType dtype_ = DataType::kInvalid;
  TensorShape shape_;
  std::shared_ptr<TensorBuffer> buffer_;
  size_t offset_bytes_ = 0;
};

// Element-wise equality of dtype, shape and values (exact; NaN != NaN).
bool TensorsEqual(const Tensor& a, const Tensor& b);

}  // namespace fb
