#include "engine/checkpoint/saver.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "engine/checkpoint/checkpoint_file.h"
#include "engine/client/state_ops.h"

namespace fb {

namespace {

Status CheckVariables(const std::vector<std::pair<std::string, Output>>& variables) {
  if (variables.empty()) return InvalidArgument("Saver: no variables to save");
  std::set<std::string> names;
  for (const auto& [name, var] : variables) {
    if (!var.valid() || var.node()->op() != "Variable")
      return InvalidArgument("Saver: '", name, "' is not a Variable output",
                             var.valid() ? " (it is " + var.node()->op() + ")" : "");
    if (name == kGlobalStepName)
      return InvalidArgument("Saver: the checkpoint name '", kGlobalStepName,
                             "' is reserved for the saved step; rename variable '",
                             var.node()->name(), "' in the Saver's list");
    if (!names.insert(name).second) return InvalidArgument("Saver: name '", name, "' repeated");
  }
  return Status::OK();
}

}  // namespace

StatusOr<std::unique_ptr<Saver>> Saver::Create(
    const Scope& scope, const std::vector<std::pair<std::string, Output>>& variables) {
  if (Status s = CheckVariables(variables); !s.ok()) {
    scope.UpdateStatus(s);
    return s;
  }
  Scope save = scope.NewSubScope("save");
  std::unique_ptr<Saver> saver(new Saver);
  Output filename = ops::Placeholder(save.WithOpName("filename"), DataType::kString, {});
  Output step = ops::Placeholder(save.WithOpName("global_step"), DataType::kInt64, {});
  std::vector<std::string> names;
  std::vector<Output> data;
  for (const auto& [name, var] : variables) {
    names.push_back(name);
    data.push_back(var);
  }
  saver->names_ = names;
  names.push_back(kGlobalStepName);
  data.push_back(step);
  Output names_tensor = ops::Const(
      save.WithOpName("tensor_names"),
      Tensor::FromVector<std::string>(names, {static_cast<int64_t>(names.size())}));
  Node* save_node = ops::AddOpWithList(save.WithOpName("Save"), "Save",
                                       {{filename}, {names_tensor}, data});
  std::vector<Output> assigns;
  for (size_t i = 0; i < variables.size(); ++i) {
    const auto& [name, var] = variables[i];
    TensorShape shape;
    if (!GetNodeAttr(var.node()->def().attrs, "shape", &shape).ok()) shape = UnknownRankShape();
    Output tensor_name = ops::Const(save.WithOpName("name_" + std::to_string(i)),
                                    Tensor::Scalar<std::string>(name));
    Output restored = ops::Op(save.WithOpName("restore_" + std::to_string(i)), "Restore",
                              {filename, tensor_name}, {{"dt", var.type()}, {"shape", shape}});
    assigns.push_back(ops::Assign(save.WithOpName("assign_" + std::to_string(i)), var, restored));
  }
  Node* restore_all = ops::NoOp(save.WithOpName("restore_all").WithControlDependencies(assigns));
  Output step_name = ops::Const(save.WithOpName("global_step_name"),
                                Tensor::Scalar<std::string>(kGlobalStepName));
  Output restored_step = ops::Op(save.WithOpName("restore_global_step"), "Restore",
                                 {filename, step_name},
                                 {{"dt", DataType::kInt64}, {"shape", TensorShape{}}});
  if (!scope.ok()) return scope.status();
  saver->filename_feed_ = filename.name();
  saver->step_feed_ = step.name();
  saver->save_target_ = save_node->name();
  saver->restore_target_ = restore_all->name();
  saver->step_fetch_ = restored_step.name();
  return saver;
}

StatusOr<std::unique_ptr<Saver>> Saver::ForAllVariables(const Scope& scope) {
  std::vector<std::pair<std::string, Output>> variables;
  for (Node* n : scope.graph()->nodes())
    if (n->op() == "Variable") variables.push_back({n->name(), Output(n)});
  return Create(scope, variables);
}

Status Saver::Save(Session* session, const std::string& path, int64_t global_step) const {
  std::vector<Tensor> out;
  return session->Run({{filename_feed_, Tensor::Scalar<std::string>(path)},
                       {step_feed_, Tensor::Scalar<int64_t>(global_step)}},
                      {}, {save_target_}, &out);
}

StatusOr<int64_t> Saver::Restore(Session* session, const std::string& path) const {
  std::vector<Tensor> out;
  RETURN_IF_ERROR(session->Run({{filename_feed_, Tensor::Scalar<std::string>(path)}},
                               {step_fetch_}, {restore_target_}, &out));
  return out[0].scalar<int64_t>();
}

StatusOr<std::string> CheckpointManager::Save(Session* session, int64_t step) const {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) return Internal("checkpoint directory ", dir_, ": cannot create: ", ec.message());
  RemoveStaleTemporaryFiles(dir_);
  const std::string path = CheckpointPath(dir_, step);
  RETURN_IF_ERROR(saver_->Save(session, path, step));
  RETURN_IF_ERROR(PruneCheckpoints(dir_, step, keep_last_));
  return path;
}

StatusOr<RestoredCheckpoint> CheckpointManager::RestoreLatest(Session* session) const {
  return RestoreNewestValid(
      dir_, [&](const std::string& path) { return saver_->Restore(session, path); });
}

}  // namespace fb
