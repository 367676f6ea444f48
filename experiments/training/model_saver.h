#pragma once
// Checkpoints of a model's graph (whitepaper 3.3): a Saver (engine/checkpoint/saver.h) over every
// Variable, weights, optimizer slots and input/step alike. Checkpoint names are the Variable
// node names, except that HDF5 names are paths: a Variable whose name is also the prefix of
// another's (a weight "fc1/weights" and its Adam slots "fc1/weights/Adam", "fc1/weights/Adam_1")
// is stored as "<name>/value", so the slots can live in the group "<name>".
#include <memory>

#include "engine/checkpoint/saver.h"
#include "experiments/models/models.h"

namespace fb::experiments {

// Adds the Saver's nodes to model.scope (call before Session::Extend). Errors: Saver::Create's.
StatusOr<std::unique_ptr<Saver>> CreateModelSaver(const Model& model);

}  // namespace fb::experiments
