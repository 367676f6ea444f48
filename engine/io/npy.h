#pragma once
// NumPy .npy files <-> Tensors, for `flowbench run` feeds and fetches.
// Format: NEP 1 / numpy.lib.format (https://numpy.org/doc/stable/reference/generated/
// numpy.lib.format.html): magic "\x93NUMPY", version (1.0, 2.0 or 3.0 read; 1.0 written unless
// the header needs more than 65535 bytes), little-endian header length, a Python dict literal
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } padded to a 64-byte boundary,
// then the C-order element data.
// dtypes: float16/32/64, int8/16/32/64, uint8/16/32/64, bool, complex64 ('<c8'). bfloat16 and
// string tensors have no .npy encoding: writing them is Unimplemented.
// Errors name the file: NotFound (missing), DataLoss (bad magic, malformed header, a header
// length or shape that needs more bytes than the file has, "expected N bytes ..., found M", or
// whose size overflows), ResourceExhausted (the data fits the file but not in memory),
// Unimplemented (fortran_order True, big-endian or unsupported descr). Declared sizes are checked
// against the file before anything is allocated.
#include <string>

#include "engine/framework/status.h"
#include "engine/framework/tensor.h"

namespace fb {

StatusOr<Tensor> ReadNpy(const std::string& path);
Status WriteNpy(const Tensor& t, const std::string& path);

// The .npy descr for a dtype ("<f4"), or Unimplemented.
StatusOr<std::string> NpyDescr(DataType dt);
// The dtype of a .npy descr; '|' and '=' byte orders are accepted for one-byte types.
StatusOr<DataType> DataTypeFromNpyDescr(const std::string& descr);

}  // namespace fb
