#include "mpi/variable_checkpointer.h"

#include <filesystem>

#include "engine/checkpoint/checkpoint_file.h"
#include "engine/checkpoint/saver.h"
#include "engine/client/optimizer.h"
#include "engine/client/state_ops.h"

namespace fb::mpi {

namespace {
std::string ReadName(size_t i) { return "ckpt/read_" + std::to_string(i); }
std::string ValueName(size_t i) { return "ckpt/value_" + std::to_string(i); }
}  // namespace

VariableCheckpointer VariableCheckpointer::Build(const Scope& root, const std::vector<Output>& vars) {
  VariableCheckpointer c;
  std::vector<Output> assigns;
  Scope ckpt = root.NewSubScope("ckpt");
  for (size_t i = 0; i < vars.size(); ++i) {
    Node* var = vars[i].node();
    Scope s = ckpt.WithDevice(var->requested_device());
    TensorShape shape;
    (void)GetNodeAttr(var->def().attrs, "shape", &shape);
    DataType dtype = DataType::kFloat;
    (void)GetNodeAttr(var->def().attrs, "dtype", &dtype);
    c.names_.push_back(var->name());
    c.dtypes_.push_back(dtype);
    c.shapes_.push_back(shape);
    ops::Identity(s.WithOpName("read_" + std::to_string(i)), vars[i]);
    Output value = ops::Placeholder(s.WithOpName("value_" + std::to_string(i)), dtype, shape);
    assigns.push_back(ops::Assign(s, vars[i], value));
  }
  ops::Group(ckpt.WithOpName("restore"), assigns);
  return c;
}

Status VariableCheckpointer::Save(const RunFn& run, const std::string& dir, int64_t step) const {
  std::vector<std::string> fetches;
  for (size_t i = 0; i < names_.size(); ++i) fetches.push_back(ReadName(i));
  std::vector<Tensor> values;
  RETURN_IF_ERROR(run({}, fetches, {}, &values));
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Internal("cannot create checkpoint directory '", dir, "': ", ec.message());
  RemoveStaleTemporaryFiles(dir);
  std::vector<std::string> names = names_;
  names.push_back(kGlobalStepName);
  values.push_back(Tensor::Scalar<int64_t>(step));
  return WriteCheckpoint(CheckpointPath(dir, step), names, values);
}

StatusOr<RestoredCheckpoint> VariableCheckpointer::RestoreLatest(const RunFn& run,
                                                                 const std::string& dir) const {
  // Reads (and so checks) every tensor before assigning any.
  return RestoreNewestValid(dir, [&](const std::string& path) -> StatusOr<int64_t> {
    std::vector<std::pair<std::string, Tensor>> feeds;
    for (size_t i = 0; i < names_.size(); ++i) {
      ASSIGN_OR_RETURN(Tensor t, ReadCheckpointTensor(path, names_[i], dtypes_[i], shapes_[i]));
      feeds.push_back({ValueName(i), t});
    }
    ASSIGN_OR_RETURN(Tensor step,
                     ReadCheckpointTensor(path, kGlobalStepName, DataType::kInt64, TensorShape{}));
    std::vector<Tensor> out;
    RETURN_IF_ERROR(run(feeds, {}, {"ckpt/restore"}, &out));
    return step.scalar<int64_t>();
  });
}

std::vector<std::string> VariableCheckpointer::ReadNames() const {
  std::vector<std::string> names;
  for (size_t i = 0; i < names_.size(); ++i) names.push_back(ReadName(i));
  return names;
}

}  // namespace fb::mpi
