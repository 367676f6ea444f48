// Save and Restore (whitepaper 3.3 and Table 1, "Checkpointing operations"), with TensorFlow's
// signatures. Files: engine/checkpoint/checkpoint_file.h, docs/checkpoints.md; graph-building
// API: engine/checkpoint/saver.h.
#include "engine/framework/op_def.h"
#include "engine/framework/shape_inference.h"

namespace fb {

REGISTER_OP("Save")
    .Input("filename: string")
    .Input("tensor_names: string")
    .Input("data: T")
    .Attr("T: list(type)")
    .SetIsStateful()
    .Doc("Writes `data` (mixed dtypes) to the HDF5 checkpoint `filename` (scalar), one dataset "
         "per tensor named by `tensor_names` (1-D, one name per tensor). Atomic: a failed Save "
         "leaves an existing checkpoint untouched. A tensor named \"global_step\" (int64 scalar) "
         "is also stored as the root attribute global_step.");

REGISTER_OP("Restore")
    .Input("file_pattern: string")
    .Input("tensor_name: string")
    .Output("tensor: dt")
    .Attr("dt: type")
    .Attr("preferred_shard: int = -1")
    .Attr("shape: shape = \"unknown\"")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      TensorShape shape;
      RETURN_IF_ERROR(c->GetAttr("shape", &shape));
      if (IsUnknownRank(shape)) return shape_fns::Unknown(c);
      c->set_output(0, shape);
      return Status::OK();
    })
    .Doc("Reads tensor `tensor_name` (scalar) of dtype `dt` from the checkpoint file "
         "`file_pattern` (scalar; one file, no glob patterns). `shape` (a flowbench addition, "
         "default unknown) is checked against the stored shape; -1 dimensions match any size. "
         "`preferred_shard` is accepted for TensorFlow compatibility and ignored.");

}  // namespace fb
