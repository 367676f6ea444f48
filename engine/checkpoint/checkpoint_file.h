#pragma once
// Checkpoint files (whitepaper 3.3, "Fault Tolerance": Save nodes write the contents of the
// Variables to persistent storage, Restore nodes read them back after a restart). One HDF5 file
// per checkpoint, written atomically; the layout is in docs/checkpoints.md:
//
//   /                  attributes: format_version (int, kCheckpointFormatVersion),
//                      global_step (int, only when a tensor named "global_step" was saved)
//   /<name>            one dataset per tensor, named after the variable ("layer1/w" is dataset
//                      w in group layer1), with the tensor's shape (row-major) and an attribute
//                      dtype ("float", "int64", ... TensorFlow's names)
//
// HDF5 storage types: float, double, (u)int8..64 as themselves; bool as h5py's enum(int8)
// {FALSE, TRUE}; complex64 as h5py's compound {r, i}; half and bfloat16 as their uint16 bits (the
// dtype attribute says which). Non-scalar datasets carry HDF5's Fletcher32 checksum and the file
// uses the latest HDF5 format, whose metadata is checksummed too, so corruption is reported, not
// silently restored. String tensors are not supported.
#include <string>
#include <vector>

#include "engine/framework/tensor.h"

namespace fb {

inline constexpr int64_t kCheckpointFormatVersion = 1;
// The tensor name whose value (an int64 scalar) is also stored as the root attribute
// global_step, as TensorFlow's global_step variable.
inline constexpr const char* kGlobalStepName = "global_step";

// Writes `tensors` under `names` to `path` atomically: the data goes to "<path>.tmp-<pid>",
// which is flushed (H5Fflush), fsynced, renamed over `path`, and the directory is fsynced. If
// anything fails the temporary file is removed and an existing file at `path` is untouched.
// Errors name the file (and the variable): InvalidArgument for an empty, duplicate or
// '/'-leading name, a names/tensors length mismatch, or an unsupported dtype; Internal for I/O
// failures (with HDF5's or the OS's reason).
Status WriteCheckpoint(const std::string& path, const std::vector<std::string>& names,
                       const std::vector<Tensor>& tensors);

// Reads tensor `name` from the checkpoint at `path` and checks it is `dtype` and, unless
// `expected_shape` is UnknownRankShape(), that it has that shape (-1 dimensions match any
// size). Errors naming the file and the variable: NotFound (no such file, no such variable),
// DataLoss (not HDF5, truncated, corrupt: failed checksum), FailedPrecondition (not a flowbench
// checkpoint or another format_version), InvalidArgument (dtype or shape mismatch).
StatusOr<Tensor> ReadCheckpointTensor(const std::string& path, const std::string& name,
                                      DataType dtype,
                                      const TensorShape& expected_shape = UnknownRankShape(),
                                      Allocator* allocator = nullptr);

struct CheckpointEntry {
  std::string name;
  DataType dtype = DataType::kInvalid;
  TensorShape shape;
};

// The tensors a checkpoint holds, sorted by name. Same file errors as ReadCheckpointTensor.
StatusOr<std::vector<CheckpointEntry>> ListCheckpoint(const std::string& path);

}  // namespace fb
