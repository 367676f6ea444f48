// flowbench-osdi-opwork: the per-node work (FLOPs, bytes) of a registered model's forward or
// forward+backward pass, as the shared cost model estimates it (engine/placement/op_cost.h), as
// CSV. The input of the GPU cost model of experiments/osdi2016/gpu_cost_model.py (OSDI 2016
// Table 1, simulated on a Titan X).
//
//   flowbench-osdi-opwork --model alexnet --batch 128 --mode forward-backward > work.csv
//
// Modes (as convnet-benchmarks timed TensorFlow, experiments/training/benchmark.h):
//   forward           the nodes the logits depend on
//   forward-backward  the nodes the loss and every gradient depend on (no weight update)
// Output columns: node, op, flops, bytes_accessed (read + written), output_bytes, needed, kernel,
// stride, x_shape, y_shape (see ShapesOf); one row per node of the pass (Variables, Placeholders
// and Consts included, with their work, usually 0).
// needed = 1 when a root depends on the node through data edges; 0 for nodes only kept by control
// edges (e.g. the gradient with respect to the input images, which tf.gradients(loss, params)
// never computes: the pass time should leave them out).
// Exit status 2 with a message naming the flag on bad arguments, 1 when the model fails to build.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "engine/placement/cost_model.h"
#include "engine/runtime/subgraph.h"
#include "experiments/models/model_graph.h"
#include "experiments/models/models.h"

namespace fb::experiments {
namespace {

// Nodes the roots reach backwards through data edges only.
std::set<const Node*> DataAncestors(const std::vector<Node*>& roots) {
  std::set<const Node*> seen(roots.begin(), roots.end());
  std::vector<const Node*> stack(roots.begin(), roots.end());
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    for (const Edge* e : n->in_edges()) {
      if (!e->IsControlEdge() && seen.insert(e->src).second) stack.push_back(e->src);
    }
  }
  return seen;
}

struct Args {
  std::string model;
  int64_t batch = 0;
  std::string mode = "forward-backward";
};

StatusOr<Node*> NodeOf(const Graph& g, const std::string& tensor) {
  ASSIGN_OR_RETURN(TensorId id, ParseTensorId(tensor));
  Node* n = g.FindNode(id.node);
  if (n == nullptr) return NotFound("the model has no node '", id.node, "'");
  return n;
}

struct PassGraph {
  ModelGraph graph;
  std::set<const Node*> needed;
};

// The pass's graph: the model pruned to what `mode` evaluates.
StatusOr<PassGraph> BuildPassGraph(const Args& args) {
  ASSIGN_OR_RETURN(ModelOptions options, WithModelDefaults(args.model, ModelOptions{}));
  options.batch_size = args.batch;
  options.optimizer = "sgd";
  ASSIGN_OR_RETURN(Model m, BuildModel(args.model, options));
  ModelGraph out;
  ASSIGN_OR_RETURN(out.graph, Graph::FromGraphDef(m.scope.ToGraphDef()));
  std::vector<std::string> tensors = {m.logits};
  if (args.mode == "forward-backward") {
    tensors = m.gradients;
    tensors.push_back(m.loss);
  }
  std::vector<Node*> roots;
  for (const std::string& t : tensors) {
    ASSIGN_OR_RETURN(Node * n, NodeOf(*out.graph, t));
    roots.push_back(n);
  }
  PruneForTargets(out.graph.get(), roots);
  out.feed_shapes = BatchedPlaceholderShapes(*out.graph, args.batch);
  return PassGraph{std::move(out), DataAncestors(roots)};
}

// "KHxKW" of a convolution's filter (HWIO: Conv2D and Conv2DBackpropInput take it as input 1,
// Conv2DBackpropFilter produces it), "" for other ops or unknown shapes.
std::string KernelSize(const Node& n, const GraphShapes& shapes) {
  PartialShape filter;
  if (n.op() == "Conv2D" || n.op() == "Conv2DBackpropInput") {
    std::vector<PartialShape> in = shapes.inputs(n);
    if (in.size() > 1) filter = in[1];
  } else if (n.op() == "Conv2DBackpropFilter") {
    filter = shapes.output(n, 0);
  }
  if (!filter || filter->rank() != 4) return "";
  return std::to_string(filter->dim_size(0)) + "x" + std::to_string(filter->dim_size(1));
}

std::string ShapeText(const PartialShape& s) {
  if (!s) return "";
  std::string out;
  for (int i = 0; i < s->rank(); ++i) {
    if (s->dim_size(i) < 0) return "";
    out += (i > 0 ? "x" : "") + std::to_string(s->dim_size(i));
  }
  return out;
}

// Shape columns of a convolution ("" for other ops and unknown shapes), what the GPU cost model
// needs to price cuDNN's algorithms (FFT or implicit GEMM):
//   stride   the convolution's row stride
//   x_shape  the forward convolution's input  [N,H,W,C] (Conv2D: input 0; Conv2DBackpropInput:
//            its output dX; Conv2DBackpropFilter: input 0)
//   y_shape  the forward convolution's output [N,P,Q,K] (Conv2D: its output; the gradients: dY,
//            input 2)
struct ShapeColumns {
  std::string stride, x_shape, y_shape;
};

ShapeColumns ShapesOf(const Node& n, const GraphShapes& shapes) {
  ShapeColumns c;
  std::vector<PartialShape> in = shapes.inputs(n);
  if (n.op().rfind("Conv2D", 0) != 0 || in.size() < 2) return c;
  std::vector<int64_t> strides;
  if (GetNodeAttr(n.def().attrs, "strides", &strides).ok() && strides.size() == 4) {
    c.stride = std::to_string(strides[1]);
  }
  if (n.op() == "Conv2D") {
    c.x_shape = ShapeText(in[0]);
    c.y_shape = ShapeText(shapes.output(n, 0));
  } else if (in.size() == 3) {
    c.x_shape = ShapeText(n.op() == "Conv2DBackpropInput" ? shapes.output(n, 0) : in[0]);
    c.y_shape = ShapeText(in[2]);
  }
  return c;
}

Status Run(const Args& args) {
  ASSIGN_OR_RETURN(PassGraph pass, BuildPassGraph(args));
  const ModelGraph& mg = pass.graph;
  DeviceDesc gpu;  // work does not depend on the device; any positive speeds do
  gpu.name = "/job:localhost/replica:0/task:0/device:GPU:0";
  gpu.type = "GPU";
  CostModelOptions options;
  options.feed_shapes = mg.feed_shapes;
  ASSIGN_OR_RETURN(CostModel cost, CostModel::Create(*mg.graph, {gpu}, {}, options));
  std::printf("node,op,flops,bytes_accessed,output_bytes,needed,kernel,stride,x_shape,y_shape\n");
  for (Node* n : mg.graph->nodes()) {
    const OpWork& w = cost.Work(*n);
    ShapeColumns c = ShapesOf(*n, cost.shapes());
    std::printf("%s,%s,%.0f,%.0f,%lld,%d,%s,%s,%s,%s\n", n->name().c_str(), n->op().c_str(),
                w.flops, w.bytes_accessed, static_cast<long long>(cost.TotalOutputBytes(*n)),
                pass.needed.count(n) > 0 ? 1 : 0, KernelSize(*n, cost.shapes()).c_str(),
                c.stride.c_str(), c.x_shape.c_str(), c.y_shape.c_str());
  }
  return Status::OK();
}

}  // namespace
}  // namespace fb::experiments

int main(int argc, char** argv) {
  fb::experiments::Args args;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (i + 1 >= argc) {
      std::cerr << "flowbench-osdi-opwork: flag " << flag << " needs a value\n";
      return 2;
    }
    std::string value = argv[++i];
    if (flag == "--model") {
      args.model = value;
    } else if (flag == "--batch") {
      args.batch = std::atoll(value.c_str());
    } else if (flag == "--mode") {
      args.mode = value;
    } else {
      std::cerr << "flowbench-osdi-opwork: unknown flag " << flag
                << " (expected --model NAME --batch N --mode forward|forward-backward)\n";
      return 2;
    }
  }
  if (args.model.empty() || args.batch < 1 ||
      (args.mode != "forward" && args.mode != "forward-backward")) {
    std::cerr << "flowbench-osdi-opwork: expected --model NAME --batch N (>= 1) --mode "
                 "forward|forward-backward, found --model '"
              << args.model << "' --batch " << args.batch << " --mode '" << args.mode << "'\n";
    return 2;
  }
  fb::Status s = fb::experiments::Run(args);
  if (!s.ok()) {
    std::cerr << "flowbench-osdi-opwork: " << s.message() << "\n";
    return 1;
  }
  return 0;
}
