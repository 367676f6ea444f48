#include "engine/framework/tensor.h"

#include <cstdint>
#include <new>
#include <sstream>

namespace fb {

TensorBuffer::TensorBuffer(Allocator* allocator, DataType dtype, int64_t num_elements)
    : allocator_(allocator),
      keep_alive_(allocator->weak_from_this().lock()),
      dtype_(dtype),
      num_elements_(num_elements) {
  size_t elem = dtype == DataType::kString ? sizeof(std::string) : DataTypeSize(dtype);
  bytes_ = static_cast<size_t>(num_elements) * elem;
  data_ = allocator_->AllocateRaw(Allocator::kAlignment, bytes_);
  // Out of memory is not an invariant violation: AllocateTensor turns this into
  // ResourceExhausted, and Device::Compute does the same for tensors that kernels construct.
  if (data_ == nullptr) throw std::bad_alloc();
  if (dtype == DataType::kString) {
    auto* s = static_cast<std::string*>(data_);
    for (int64_t i = 0; i < num_elements; ++i) new (s + i) std::string();
  }
}

TensorBuffer::~TensorBuffer() {
  if (dtype_ == DataType::kString) {
    auto* s = static_cast<std::string*>(data_);
    for (int64_t i = 0; i < num_elements_; ++i) s[i].~basic_string();
  }
  allocator_->DeallocateRaw(data_, bytes_);
}

Tensor::Tensor(DataType dtype, const TensorShape& shape, Allocator* allocator)
    : dtype_(dtype), shape_(shape) {
  FB_CHECK(shape.IsFullyDefined()) << "Tensor shape must be fully defined, got "
                                   << shape.DebugString();
  // A shape whose byte size does not fit in size_t cannot be allocated (num_elements()
  // saturates at INT64_MAX on overflow, so the product below would wrap without this check).
  size_t elem = dtype == DataType::kString ? sizeof(std::string) : DataTypeSize(dtype);
  if (elem != 0 && static_cast<uint64_t>(shape.num_elements()) > SIZE_MAX / elem)
    throw std::bad_alloc();
  buffer_ = std::make_shared<TensorBuffer>(allocator ? allocator : DefaultCpuAllocator(), dtype,
                                           shape.num_elements());
}

size_t Tensor::TotalBytes() const {
  if (dtype_ != DataType::kString) return ByteSize();
  size_t total = 0;
  const std::string* s = data<std::string>();
  for (int64_t i = 0; i < NumElements(); ++i) total += s[i].size();
  return total;
}

Tensor Tensor::Reshaped(const TensorShape& shape) const {
  FB_CHECK(shape.num_elements() == NumElements())
      << "Reshaped " << shape_.DebugString() << " to " << shape.DebugString();
  Tensor t = *this;
  t.shape_ = shape;
  return t;
}

Tensor Tensor::Slice(int64_t start, int64_t limit) const {
  FB_CHECK(dims() >= 1 && start >= 0 && start <= limit && limit <= dim_size(0))
      << "Slice [" << start << "," << limit << ") of " << shape_.DebugString();
  Tensor t = *this;
  int64_t row = dim_size(0) == 0 ? 0 : NumElements() / dim_size(0);
  size_t elem = dtype_ == DataType::kString ? sizeof(std::string) : DataTypeSize(dtype_);
  t.offset_bytes_ += start * row * elem;
  t.shape_.set_dim(0, limit - start);
  return t;
}

Tensor Tensor::DeepCopy(Allocator* allocator) const {
  Tensor t(dtype_, shape_, allocator);
  if (dtype_ == DataType::kString) {
    std::copy(data<std::string>(), data<std::string>() + NumElements(), t.data<std::string>());
  } else if (ByteSize() > 0) {
    std::memcpy(t.raw_data(), raw_data(), ByteSize());
  }
  return t;
}

std::string Tensor::TypeAndShapeString() const {
  return std::string(DataTypeString(dtype_)) + shape_.DebugString();
}

namespace {
template <typename T>
void PrintValue(std::ostream& os, const T& v) {
  if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
    os << static_cast<float>(v);
  } else if constexpr (std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t>) {
    os << static_cast<int>(v);
  } else {
    os << v;
  }
}
}  // namespace

std::string Tensor::DebugString(int max_entries) const {
  std::ostringstream os;
  os << "Tensor<" << DataTypeString(dtype_) << ", " << shape_.DebugString() << ">";
  if (!buffer_) return os.str();
  os << ": [";
  int64_t n = std::min<int64_t>(NumElements(), max_entries);
  VisitDataType(dtype_, [&](auto zero) {
    using T = decltype(zero);
    const T* d = data<T>();
    for (int64_t i = 0; i < n; ++i) {
      if (i) os << " ";
      PrintValue(os, d[i]);
    }
    return 0;
  });
  if (NumElements() > n) os << " ...";
  os << "]";
  return os.str();
}

bool TensorsEqual(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  return VisitDataType(a.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* x = a.data<T>();
    const T* y = b.data<T>();
    for (int64_t i = 0; i < a.NumElements(); ++i)
      if (!(x[i] == y[i])) return false;
    return true;
  });
}

}  // namespace fb
