// The GPU kernel registrations keep the int32 values of while loops (counters, accumulator
// indices, the gradient loop's counts) in host memory, as TensorFlow does: a kernel that takes an
// int32-only node's values in device memory sends a loop counter to the GPU and back with a
// synchronisation every iteration (session 22 found int32 Identity doing this: 43 us per
// iteration of an empty loop on an H200; benchmarks/while_loop_gpubench.cc). Checked on the word
// LSTM's training graph (a forward and a gradient while loop) through the kernel registry, so it
// runs without a GPU wherever the GPU module is built.
#include <catch2/catch.hpp>

#include "engine/framework/device_plugin.h"
#include "engine/framework/op_kernel.h"
#include "experiments/models/models.h"

namespace fb {
namespace {

#ifdef FLOWBENCH_CUDA
// Whether every data input and output of `n` is int32 (and it has at least one).
bool Int32Only(const Node& n) {
  if (n.num_inputs() + n.num_outputs() == 0) return false;
  for (int i = 0; i < n.num_inputs(); ++i)
    if (n.input_type(i) != DataType::kInt32) return false;
  for (int i = 0; i < n.num_outputs(); ++i)
    if (n.output_type(i) != DataType::kInt32) return false;
  return true;
}

TEST_CASE("GPU kernels keep the int32 values of while loops in host memory",
          "[gpu_module][memory_types]") {
  REQUIRE(LoadDeviceSupport(DEVICE_GPU).ok());
  experiments::ModelOptions o;
  o.batch_size = 2;
  o.word_lm.vocab_size = 20;
  o.word_lm.num_steps = 3;
  o.word_lm.embedding_size = o.word_lm.lstm_cells = o.word_lm.projection_size = 4;
  auto m = experiments::BuildModel("lstm_lm_word", o);
  INFO(m.status().ToString());
  REQUIRE(m.ok());
  int checked = 0;
  for (Node* n : m->scope.graph()->nodes()) {
    if (!Int32Only(*n) || !KernelRegistry::Global()->HasKernel(DEVICE_GPU, n->def())) continue;
    std::vector<bool> host_in, host_out;
    REQUIRE(KernelRegistry::Global()->MemoryTypesForNode(DEVICE_GPU, n->def(), &host_in,
                                                         &host_out).ok());
    INFO(n->op() << " '" << n->name() << "'");
    host_in.resize(n->num_inputs(), false);  // a kernel that declares none: all device memory
    host_out.resize(n->num_outputs(), false);
    for (int i = 0; i < n->num_inputs(); ++i) CHECK(host_in[i]);
    for (int i = 0; i < n->num_outputs(); ++i) CHECK(host_out[i]);
    ++checked;
  }
  CHECK(checked > 30);  // counters, their Enter/Merge/Switch/Identity/NextIteration/Exit, ...
}
#endif

}  // namespace
}  // namespace fb
