#include "engine/placement/op_cost.h"

#include <functional>
#include <set>
#include <unordered_map>

#include "engine/placement/graph_shapes.h"

namespace fb {

namespace {

struct WorkArgs {
  const Node& n;
  const std::vector<PartialShape>& in;
  const std::vector<PartialShape>& out;
  int64_t unknown_dim;
  int64_t Dim(const PartialShape& s, int i) const {
    if (!s || i < 0 || i >= s->rank()) return unknown_dim;
    return s->dim_size(i) < 0 ? unknown_dim : s->dim_size(i);
  }
  double InElems(int i) const {
    return i < static_cast<int>(in.size()) ? EstimatedElements(in[i], unknown_dim) : 0;
  }
  double OutElems(int i) const {
    return i < static_cast<int>(out.size()) ? EstimatedElements(out[i], unknown_dim) : 0;
  }
  bool Attr(const char* name) const {
    bool v = false;
    return GetNodeAttr(n.def().attrs, name, &v).ok() && v;
  }
};

using FlopsFn = std::function<double(const WorkArgs&)>;

double MatMulFlops(const WorkArgs& a) {
  int64_t m = a.Dim(a.out[0], 0), n = a.Dim(a.out[0], 1);
  int64_t k = a.Attr("transpose_a") ? a.Dim(a.in[0], 0) : a.Dim(a.in[0], 1);
  return 2.0 * m * n * k;
}

double BatchMatMulFlops(const WorkArgs& a) {
  const PartialShape& x = a.in[0];
  int rank = x ? x->rank() : 0;
  int64_t k = a.Attr("adj_x") ? a.Dim(x, rank - 2) : a.Dim(x, rank - 1);
  return 2.0 * a.OutElems(0) * k;
}

// Multiply-adds per output element of a convolution: KH*KW*IC from the HWIO filter.
double ConvFlops(const WorkArgs& a, const PartialShape& filter, double out_elems) {
  return 2.0 * out_elems * a.Dim(filter, 0) * a.Dim(filter, 1) * a.Dim(filter, 2);
}

double PoolWindow(const WorkArgs& a) {
  std::vector<int64_t> ksize;
  if (!GetNodeAttr(a.n.def().attrs, "ksize", &ksize).ok()) return 1;
  double w = 1;
  for (int64_t k : ksize) w *= k;
  return w;
}

FlopsFn PerOutputElement(double k) {
  return [k](const WorkArgs& a) { return k * a.OutElems(0); };
}
FlopsFn PerInputElement(double k) {
  return [k](const WorkArgs& a) { return k * a.InElems(0); };
}

const std::unordered_map<std::string, FlopsFn>& FlopTable() {
  static const auto* table = new std::unordered_map<std::string, FlopsFn>{
      {"MatMul", MatMulFlops},
      {"BatchMatMul", BatchMatMulFlops},
      {"Conv2D", [](const WorkArgs& a) { return ConvFlops(a, a.in[1], a.OutElems(0)); }},
      // dx: one multiply-add per (output element, filter tap), like the forward pass.
      {"Conv2DBackpropInput", [](const WorkArgs& a) { return ConvFlops(a, a.in[1], a.InElems(2)); }},
      {"Conv2DBackpropFilter",
       [](const WorkArgs& a) { return ConvFlops(a, a.out[0], a.InElems(2)); }},
      {"MaxPool", [](const WorkArgs& a) { return a.OutElems(0) * PoolWindow(a); }},
      {"AvgPool", [](const WorkArgs& a) { return a.OutElems(0) * PoolWindow(a); }},
      {"MaxPoolGrad", [](const WorkArgs& a) { return a.InElems(2) * PoolWindow(a); }},
      {"AvgPoolGrad", [](const WorkArgs& a) { return a.InElems(1) * PoolWindow(a); }},
      {"Softmax", PerOutputElement(5)},
      {"LogSoftmax", PerOutputElement(5)},
      {"SoftmaxCrossEntropyWithLogits", PerInputElement(5)},
      {"SparseSoftmaxCrossEntropyWithLogits", PerInputElement(5)},
      {"Exp", PerOutputElement(4)},
      {"Log", PerOutputElement(4)},
      {"Sqrt", PerOutputElement(4)},
      {"Rsqrt", PerOutputElement(4)},
      {"Tanh", PerOutputElement(4)},
      {"Sigmoid", PerOutputElement(4)},
      {"Pow", PerOutputElement(4)},
      {"Sum", PerInputElement(1)},
      {"Mean", PerInputElement(1)},
      {"Max", PerInputElement(1)},
      {"Min", PerInputElement(1)},
      {"ArgMax", PerInputElement(1)},
      {"ArgMin", PerInputElement(1)},
      {"Prod", PerInputElement(1)},
      {"L2Loss", PerInputElement(2)},
      {"Elu", PerOutputElement(4)},
      {"BiasAddGrad", PerInputElement(1)},
      // One add per data element, whatever num_segments is (often known only at run time, which
      // left the output's size, the old estimate, unknown: 1 FLOP in profiles of the sampled
      // softmax's gradient).
      {"UnsortedSegmentSum", PerInputElement(1)},
      // Per element: centred sums and square, then scale and shift (training); the gradient
      // adds dy and dy * xhat sums and dx = a * dy + b * (x - mean) + c.
      {"FusedBatchNorm", PerInputElement(5)},
      {"FusedBatchNormGrad", PerInputElement(8)},
      // The GEMM [B, I + H] x [I + H, 4C] (w is input 3) and about 30 FLOPs per cell for the
      // gates (3 sigmoids, 2 tanh, 5 multiply-adds); the gradient about 20 per cell.
      {"LSTMBlockCell",
       [](const WorkArgs& a) {
         return 2.0 * a.Dim(a.in[0], 0) * a.InElems(3) + 30.0 * a.OutElems(0);
       }},
      {"LSTMBlockCellGrad", [](const WorkArgs& a) { return 20.0 * a.InElems(1); }},
      {"ApplyAdam", PerInputElement(10)},
      {"ApplyMomentum", PerInputElement(4)},
      {"ApplyGradientDescent", PerInputElement(2)},
      {"MatrixInverse", [](const WorkArgs& a) {
         double n = a.Dim(a.out[0], a.out[0] ? a.out[0]->rank() - 1 : 0);
         return a.OutElems(0) * n;  // batch * n^3
       }},
  };
  return *table;
}

// Ops whose output is a selection of rows of input 0 (gathers): they read those rows only.
bool ReadsSelectedRowsOfInput0(const std::string& op) {
  return op == "Gather" || op == "GatherV2" || op == "ResourceGather";
}

}  // namespace

bool IsMetadataOp(const std::string& op) {
  static const auto* ops = new std::set<std::string>{
      "Const", "Placeholder", "Identity", "NoOp", "Variable", "Reshape", "Shape", "Size",
      "Rank", "ExpandDims", "Squeeze", "StopGradient", "_Send", "_Recv", "_Feed", "_Fetch",
      "IsVariableInitialized", "BroadcastGradientArgs", "ReducedShape", "ConcatOffset",
      "InvertPermutation", "Enter", "Exit", "Merge", "Switch", "NextIteration", "LoopCond"};
  return ops->count(op) > 0;
}

OpWork EstimateOpWork(const Node& n, const std::vector<PartialShape>& inputs,
                      const std::vector<PartialShape>& outputs, int64_t unknown_dim) {
  OpWork w;
  if (IsMetadataOp(n.op())) return w;
  // A gather reads only the rows it selects (an embedding lookup touches 32 rows of a 16 GB
  // table, OSDI 2016 section 6.2): its params input costs what it produces, not its size.
  const bool reads_selected_rows = ReadsSelectedRowsOfInput0(n.op());
  for (int i = 0; i < n.num_inputs() && i < static_cast<int>(inputs.size()); ++i) {
    if (i == 0 && reads_selected_rows && !outputs.empty()) {
      w.bytes_accessed += EstimatedBytes(n.input_type(0), outputs[0], unknown_dim);
      continue;
    }
    w.bytes_accessed += EstimatedBytes(n.input_type(i), inputs[i], unknown_dim);
  }
  for (int i = 0; i < n.num_outputs() && i < static_cast<int>(outputs.size()); ++i)
    w.bytes_accessed += EstimatedBytes(n.output_type(i), outputs[i], unknown_dim);
  WorkArgs args{n, inputs, outputs, unknown_dim};
  const auto& table = FlopTable();
  auto it = table.find(n.op());
  if (it != table.end()) {
    w.flops = it->second(args);
  } else {
    for (int i = 0; i < n.num_outputs(); ++i) w.flops += args.OutElems(i);
  }
  return w;
}

}  // namespace fb
