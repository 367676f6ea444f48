#pragma once
// Checkpoint files (whitepaper 3.3, "Fault Tolerance": Save nodes write the contents of the
// Variables to persistent storage, Restore nodes read them back after a restart). One HDF5 file
// per checkpoint, written atomically; the layout is in docs/checkpoints.md:
//
//   /                  attributes: format_version (int, kCheckpointFormatVersion),
//                      global_step (int, only when a tensor named "global_step" was saved)
//   /<name>            one dataset per tensor, named after the variable ("layer1/w" is dataset
//                      w in group layer1), with the tensor's shape (row-major) and attributes
//                      dtype ("float", "int64", ... TensorFlow's names; a fixed-length string
//                      from version 2, variable-length in version 1) and crc32 (version 2)
//
// HDF5 storage types: float, double, (u)int8..64 as themselves; bool as h5py's enum(int8)
// {FALSE, TRUE}; complex64 as h5py's compound {r, i}; half and bfloat16 as their uint16 bits (the
// dtype attribute says which). String tensors are not supported.
//
// Integrity (so corruption is reported, never silently restored): the file uses the latest HDF5
// format, whose metadata is checksummed; non-scalar datasets carry HDF5's Fletcher32 checksum;
// and since format_version 2 every dataset, scalars included, has an attribute crc32: zlib's
// CRC-32 of CheckpointTensorCrc32's bytes (the variable's name, dtype, shape and data), and the
// root attribute global_step must equal the (checksummed) global_step dataset. Version-1 files
// (no crc32 attributes) are still read, with only HDF5's own checksums.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/framework/tensor.h"

namespace fb {

// The format version written. Readers accept kOldestCheckpointFormatVersion..this.
inline constexpr int64_t kCheckpointFormatVersion = 2;
inline constexpr int64_t kOldestCheckpointFormatVersion = 1;
// The tensor name whose value (an int64 scalar) is also stored as the root attribute
// global_step, as TensorFlow's global_step variable.
inline constexpr const char* kGlobalStepName = "global_step";

// Writes `tensors` under `names` to `path` atomically: the data goes to
// TemporaryCheckpointPath(path), which is flushed (H5Fflush), fsynced, renamed over `path`, and
// the directory is fsynced. If anything fails the temporary file is removed and an existing file
// at `path` is untouched; a crash or kill leaves the temporary file (RemoveStaleTemporaryFiles
// of engine/checkpoint/checkpoint_dir.h deletes it later) and `path` as it was.
// Errors name the file (and the variable): InvalidArgument for an empty, duplicate or
// '/'-leading name, a names/tensors length mismatch, or an unsupported dtype; Internal for I/O
// failures (with HDF5's or the OS's reason).
Status WriteCheckpoint(const std::string& path, const std::vector<std::string>& names,
                       const std::vector<Tensor>& tensors);

// Reads tensor `name` from the checkpoint at `path` and checks it is `dtype` and, unless
// `expected_shape` is UnknownRankShape(), that it has that shape (-1 dimensions match any
// size). Errors naming the file and the variable: NotFound (no such file, no such variable),
// DataLoss (not HDF5, truncated, corrupt: failed Fletcher32 or crc32 checksum, a missing crc32
// in a version-2 file, a global_step attribute that differs from the global_step dataset),
// FailedPrecondition (not a flowbench checkpoint, or a format_version this build cannot read),
// InvalidArgument (dtype or shape mismatch).
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
// Reads only metadata: use VerifyCheckpoint to check the data.
StatusOr<std::vector<CheckpointEntry>> ListCheckpoint(const std::string& path);

// Reads every tensor of the checkpoint at `path` and checks every checksum (see the top of this
// file). OK for an intact file; otherwise the errors of ReadCheckpointTensor (DataLoss for a
// corrupt or truncated file, NotFound when it does not exist, FailedPrecondition for a file that
// is not a flowbench checkpoint of a readable version), naming the file and the variable.
Status VerifyCheckpoint(const std::string& path);

// The CRC-32 (zlib's crc32) a version-2 checkpoint stores for a tensor: over the bytes of
// `name`, a NUL, DataTypeString(dtype), a NUL, each dimension as a little-endian int64, then
// the `data_bytes` bytes of element data at `data` (in memory order: little-endian on x86).
uint32_t CheckpointTensorCrc32(const std::string& name, DataType dtype, const TensorShape& shape,
                               const void* data, size_t data_bytes);

// The temporary file WriteCheckpoint writes `path` to before renaming it:
// "<path>.tmp-<hostname>-<pid>" of the calling process. Files of this form whose writer is dead
// are left behind only by a killed or crashed save; see RemoveStaleTemporaryFiles.
std::string TemporaryCheckpointPath(const std::string& path);
// Whether this process is writing a temporary file named as `tmp_path` (compared by file name,
// so in any directory) right now: a WriteCheckpoint call in some thread. Thread-safe.
bool IsTemporaryCheckpointInUse(const std::string& tmp_path);

}  // namespace fb
