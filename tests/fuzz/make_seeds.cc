// Writes the seed corpora of the fuzz targets (tests/fuzz/corpus/<target>/) with the project's
// own writers, so that the seeds are valid files of the current formats:
//   graph_json  WriteGraphDefFile (a layer, a while loop, a convolution; plus the untagged
//               example of docs/graph-format.md)
//   npy         WriteNpy (every dtype, scalar, empty), plus 2.0 and 3.0 headers
//   idx         WriteIdxFile (images, labels, rank 4, gzip-compressed)
//   checkpoint  WriteCheckpoint (every storage type, global_step, nested names)
//   trace       TraceWriter (a real-mode trace with a graph, a simulated one)
//   platform    sim/platform_generator (fat tree, multi-GPU node, MPI node, this machine),
//               plus small hand-written platforms of sim/platforms
// Usage: build-fuzz/fuzz_make_seeds tests/fuzz/corpus   (scripts/fuzz --make-seeds)
// The seeds are committed; rerun this after a format change and commit what changed.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "datasets/idx_reader.h"
#include "engine/checkpoint/checkpoint_file.h"
#include "engine/graph/graph.h"
#include "engine/graph/node_def.h"
#include "engine/io/npy.h"
#include "engine/trace/trace_writer.h"
#include "sim/platform_generator.h"

namespace fs = std::filesystem;

namespace fb {
namespace {

NodeDef Node(std::string name, std::string op, std::vector<std::string> inputs, AttrMap attrs) {
  NodeDef n;
  n.name = std::move(name);
  n.op = std::move(op);
  n.inputs = std::move(inputs);
  n.attrs = std::move(attrs);
  return n;
}

// x -> MatMul(W) -> BiasAdd(b) -> Relu, with the variables' initializers and an init target.
GraphDef LayerGraph() {
  GraphDef g;
  g.nodes = {
      Node("x", "Placeholder", {}, {{"dtype", DataType::kFloat}, {"shape", TensorShape{-1, 4}}}),
      Node("W", "Variable", {}, {{"dtype", DataType::kFloat}, {"shape", TensorShape{4, 3}}}),
      Node("b", "Variable", {}, {{"dtype", DataType::kFloat}, {"shape", TensorShape{3}}}),
      Node("W/init", "Const", {},
           {{"dtype", DataType::kFloat},
            {"value", Tensor::FromVector<float>({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
                                                TensorShape{4, 3})}}),
      Node("b/init", "Const", {},
           {{"dtype", DataType::kFloat}, {"value", Tensor::FromVector<float>({0, 0.5f, -1})}}),
      Node("W/assign", "Assign", {"W", "W/init"}, {{"T", DataType::kFloat}}),
      Node("b/assign", "Assign", {"b", "b/init"}, {{"T", DataType::kFloat}}),
      Node("init", "NoOp", {"^W/assign", "^b/assign"}, {}),
      Node("xW", "MatMul", {"x", "W"}, {{"T", DataType::kFloat}}),
      Node("xWb", "BiasAdd", {"xW", "b"}, {{"T", DataType::kFloat}}),
      Node("y", "Relu", {"xWb:0"}, {{"T", DataType::kFloat}}),
  };
  return g;
}

// i = 0; while (i < 10) i = i + 1 (whitepaper 4.4: Enter, Merge, Switch, NextIteration, Exit).
GraphDef LoopGraph() {
  const AttrMap i32 = {{"T", DataType::kInt32}};
  GraphDef g;
  g.nodes = {
      Node("zero", "Const", {}, {{"dtype", DataType::kInt32}, {"value", Tensor::Scalar<int32_t>(0)}}),
      Node("ten", "Const", {}, {{"dtype", DataType::kInt32}, {"value", Tensor::Scalar<int32_t>(10)}}),
      Node("one", "Const", {"^loop/merge"},
           {{"dtype", DataType::kInt32}, {"value", Tensor::Scalar<int32_t>(1)}}),
      Node("loop/enter", "Enter", {"zero"}, {{"T", DataType::kInt32}, {"frame_name", "loop"}}),
      Node("loop/limit", "Enter", {"ten"},
           {{"T", DataType::kInt32}, {"frame_name", "loop"}, {"is_constant", true}}),
      Node("loop/merge", "Merge", {"loop/enter", "loop/next"},
           {{"T", DataType::kInt32}, {"N", 2}}),
      Node("loop/less", "Less", {"loop/merge", "loop/limit"}, i32),
      Node("loop/cond", "LoopCond", {"loop/less"}, {}),
      Node("loop/switch", "Switch", {"loop/merge", "loop/cond"}, i32),
      Node("loop/body", "Identity", {"loop/switch:1"}, i32),
      Node("loop/add", "Add", {"loop/body", "one"}, i32),
      Node("loop/next", "NextIteration", {"loop/add"}, i32),
      Node("loop/exit", "Exit", {"loop/switch:0"}, i32),
  };
  return g;
}

// NHWC image -> Conv2D (SAME) -> MaxPool -> Reshape -> Softmax.
GraphDef ConvGraph() {
  const AttrMap f32 = {{"T", DataType::kFloat}};
  std::vector<float> filter(3 * 3 * 1 * 2, 0.125f);
  GraphDef g;
  g.nodes = {
      Node("image", "Placeholder", {},
           {{"dtype", DataType::kFloat}, {"shape", TensorShape{1, 4, 4, 1}}}),
      Node("filter", "Const", {},
           {{"dtype", DataType::kFloat},
            {"value", Tensor::FromVector<float>(filter, TensorShape{3, 3, 1, 2})}}),
      Node("conv", "Conv2D", {"image", "filter"},
           {{"T", DataType::kFloat},
            {"strides", std::vector<int64_t>{1, 1, 1, 1}},
            {"padding", "SAME"}}),
      Node("pool", "MaxPool", {"conv"},
           {{"T", DataType::kFloat},
            {"ksize", std::vector<int64_t>{1, 2, 2, 1}},
            {"strides", std::vector<int64_t>{1, 2, 2, 1}},
            {"padding", "VALID"}}),
      Node("shape", "Const", {},
           {{"dtype", DataType::kInt32}, {"value", Tensor::FromVector<int32_t>({1, 8})}}),
      Node("flat", "Reshape", {"pool", "shape"}, f32),
      Node("probs", "Softmax", {"flat"}, f32),
  };
  return g;
}

// The example of docs/graph-format.md: untagged attrs, a partial device, a control input.
constexpr const char* kUntaggedGraph = R"({"version": 1,
 "nodes": [
   {"name": "x", "op": "Placeholder", "attrs": {"dtype": "float", "shape": [-1, 784]}},
   {"name": "W", "op": "Variable", "device": "/job:worker/task:0/device:CPU:0",
    "attrs": {"dtype": {"type": "float"}, "shape": {"shape": [784, 10]}}},
   {"name": "Wx", "op": "MatMul", "inputs": ["x", "W:0"], "attrs": {"T": "float"}},
   {"name": "init", "op": "NoOp", "inputs": ["^Wx"]}
 ]}
)";

Status WriteText(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return out ? Status::OK() : Internal("cannot write ", path.string());
}

Status GraphSeeds(const fs::path& dir) {
  const std::pair<const char*, GraphDef> graphs[] = {
      {"layer.json", LayerGraph()}, {"loop.json", LoopGraph()}, {"conv.json", ConvGraph()}};
  for (const auto& [name, def] : graphs) {
    // Seeds must be valid: a seed the reader rejects teaches the fuzzer nothing.
    RETURN_IF_ERROR(Graph::FromGraphDef(def).status().WithPrefix(std::string(name) + ": "));
    RETURN_IF_ERROR(WriteGraphDefFile(def, (dir / name).string()));
  }
  return WriteText(dir / "untagged.json", kUntaggedGraph);
}

// The 1.0 file at `v1` rewritten with a version `major` header (4-byte header length).
Status WriteNpyVersion(const fs::path& v1, const fs::path& out, char major) {
  std::ifstream in(v1, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < 10) return Internal("short ", v1.string());
  const uint32_t header_len = static_cast<uint8_t>(bytes[8]) | static_cast<uint8_t>(bytes[9]) << 8;
  std::string header = bytes.substr(10, header_len);
  std::string data = bytes.substr(10 + header_len);
  // Keep the 64-byte alignment of magic + version + length + header: two more length bytes.
  header.erase(header.size() - 3, 2);
  std::string head = bytes.substr(0, 6) + std::string{major, 0};
  const uint32_t n = static_cast<uint32_t>(header.size());
  for (int i = 0; i < 4; ++i) head.push_back(static_cast<char>(n >> (8 * i)));
  return WriteText(out, head + header + data);
}

Status NpySeeds(const fs::path& dir) {
  auto half = Tensor(DataType::kHalf, TensorShape{2});
  half.data<fb::half>()[0] = fb::half(1.5f);
  half.data<fb::half>()[1] = fb::half(-2.0f);
  auto c64 = Tensor(DataType::kComplex64, TensorShape{2});
  c64.data<complex64>()[0] = complex64(1, 2);
  c64.data<complex64>()[1] = complex64(-3, 0.5f);
  const std::pair<const char*, Tensor> tensors[] = {
      {"f32_2x3.npy", Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape{2, 3})},
      {"f64_scalar.npy", Tensor::Scalar<double>(3.25)},
      {"i64_4.npy", Tensor::FromVector<int64_t>({-1, 0, 1, 1LL << 40})},
      {"i32_2x1x2.npy", Tensor::FromVector<int32_t>({7, 8, 9, 10}, TensorShape{2, 1, 2})},
      {"u8_3.npy", Tensor::FromVector<uint8_t>({0, 128, 255})},
      {"bool_2x2.npy", Tensor::FromVector<bool>({true, false, false, true}, TensorShape{2, 2})},
      {"f16_2.npy", half},
      {"c64_2.npy", c64},
      {"f32_0x3.npy", Tensor(DataType::kFloat, TensorShape{0, 3})},
  };
  for (const auto& [name, t] : tensors) RETURN_IF_ERROR(WriteNpy(t, (dir / name).string()));
  RETURN_IF_ERROR(WriteNpyVersion(dir / "f32_2x3.npy", dir / "f32_2x3_v2.npy", 2));
  return WriteNpyVersion(dir / "i64_4.npy", dir / "i64_4_v3.npy", 3);
}

Status IdxSeeds(const fs::path& dir) {
  using datasets::IdxArray;
  IdxArray images{{2, 3, 3}, {}};
  for (int i = 0; i < 18; ++i) images.data.push_back(static_cast<uint8_t>(i * 14));
  IdxArray labels{{4}, {0, 9, 3, 7}};
  IdxArray rank4{{1, 2, 2, 1}, {1, 2, 3, 4}};
  RETURN_IF_ERROR(datasets::WriteIdxFile((dir / "images-idx3-ubyte").string(), images));
  RETURN_IF_ERROR(datasets::WriteIdxFile((dir / "labels-idx1-ubyte").string(), labels));
  RETURN_IF_ERROR(datasets::WriteIdxFile((dir / "rank4-idx4-ubyte").string(), rank4));
  return datasets::WriteIdxFile((dir / "images-idx3-ubyte.gz").string(), images);
}

Status CheckpointSeeds(const fs::path& dir) {
  auto half = Tensor(DataType::kHalf, TensorShape{2});
  half.data<fb::half>()[0] = fb::half(0.5f);
  half.data<fb::half>()[1] = fb::half(4.0f);
  auto c64 = Tensor(DataType::kComplex64, TensorShape{1});
  c64.data<complex64>()[0] = complex64(1, -1);
  RETURN_IF_ERROR(WriteCheckpoint(
      (dir / "model.h5").string(), {"w", "b", "global_step"},
      {Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape{2, 3}),
       Tensor::FromVector<float>({0.5f, -0.5f, 0}), Tensor::Scalar<int64_t>(40)}));
  RETURN_IF_ERROR(WriteCheckpoint(
      (dir / "types.h5").string(),
      {"layer1/w", "layer1/mask", "layer2/h", "layer2/c", "counts", "bytes"},
      {Tensor::FromVector<double>({1.5, -2}), Tensor::FromVector<bool>({true, false, true}),
       half, c64, Tensor::FromVector<int32_t>({3, 1, 4}, TensorShape{1, 3}),
       Tensor::FromVector<uint8_t>({0, 255})}));
  return WriteCheckpoint((dir / "scalar.h5").string(), {"w"}, {Tensor::Scalar<float>(2.5f)});
}

Status TraceSeeds(const fs::path& dir) {
  ASSIGN_OR_RETURN(std::unique_ptr<Graph> graph, Graph::FromGraphDef(LayerGraph()));
  TraceMetadata meta;
  meta.mode = TraceMode::kReal;
  meta.host = "seed";
  meta.config_json = R"({"model": "layer", "steps": 2})";
  ASSIGN_OR_RETURN(auto real, TraceWriter::Create((dir / "real.h5").string(), meta));
  RETURN_IF_ERROR(real->AddGraph(*graph));
  const std::string cpu0 = "/job:localhost/replica:0/task:0/device:CPU:0";
  const std::string cpu1 = "/job:localhost/replica:0/task:0/device:CPU:1";
  for (int64_t step = 0; step < 2; ++step) {
    const int64_t t0 = 1000 + step * 10000;
    RETURN_IF_ERROR(real->AddEvent({EventKind::kCompute, 0, cpu0, 1, step, "xW", "MatMul", t0,
                                    t0 + 800, 48, ""}));
    RETURN_IF_ERROR(real->AddEvent({EventKind::kSend, 0, cpu0, 1, step, "xW/_send", "_Send",
                                    t0 + 800, t0 + 900, 48, cpu1}));
    RETURN_IF_ERROR(real->AddEvent({EventKind::kRecv, 0, cpu1, 2, step, "xW/_recv", "_Recv",
                                    t0 + 850, t0 + 950, 48, cpu0}));
    RETURN_IF_ERROR(real->AddEvent({EventKind::kCompute, 0, cpu1, 2, step, "y", "Relu", t0 + 950,
                                    t0 + 1200, 48, ""}));
    StepTotals totals;
    totals.loss = 1.0 / (step + 1);
    totals.peak_bytes[cpu0] = 4096;
    RETURN_IF_ERROR(real->AddStep(step, {}, totals));
    RETURN_IF_ERROR(real->AddMetric(step, "loss", totals.loss));
  }
  RETURN_IF_ERROR(real->Close());

  meta.mode = TraceMode::kSim;
  meta.host = "two_hosts.xml";
  ASSIGN_OR_RETURN(auto sim, TraceWriter::Create((dir / "sim.h5").string(), meta));
  RETURN_IF_ERROR(sim->AddDevice("a", "CPU").status());
  RETURN_IF_ERROR(sim->AddEvent({EventKind::kCompute, 0, "a", 0, 0, "n", "MatMul", 0, 10, 8, ""}));
  RETURN_IF_ERROR(sim->AddEvent({EventKind::kMemcpy, 1, "b", 3, 0, "c", "MemcpyHtoD", 5, 9, 8, ""}));
  RETURN_IF_ERROR(sim->AddStep(0, {}, {}));
  return sim->Close();
}

Status PlatformSeeds(const fs::path& dir, const fs::path& source_dir) {
  sim::DeviceClass cpu;
  cpu.type = "CPU";
  cpu.flops_per_s = 1e11;
  ASSIGN_OR_RETURN(std::string fat_tree, sim::FatTreeClusterXml(4, "ib"));
  ASSIGN_OR_RETURN(std::string pcie, sim::MultiGpuNodeXml(2, "pcie"));
  ASSIGN_OR_RETURN(std::string nvlink, sim::MultiGpuNodeXml(2, "nvlink"));
  ASSIGN_OR_RETURN(std::string mpi, sim::MpiNodeXml({{"ps", 1}, {"worker", 2}}, cpu));
  RETURN_IF_ERROR(WriteText(dir / "fat_tree_4_ib.xml", fat_tree));
  RETURN_IF_ERROR(WriteText(dir / "node_2gpu_pcie.xml", pcie));
  RETURN_IF_ERROR(WriteText(dir / "node_2gpu_nvlink.xml", nvlink));
  RETURN_IF_ERROR(WriteText(dir / "mpi_ps1_worker2.xml", mpi));
  ASSIGN_OR_RETURN(std::string single_cpu, sim::SingleCpuXml("cpu", 1e11, 2e10, 3000));
  RETURN_IF_ERROR(WriteText(dir / "single_cpu.xml", single_cpu));
  for (const char* name : {"two_hosts.xml", "star_4.xml"}) {
    std::error_code ec;
    fs::copy_file(source_dir / "sim/platforms" / name, dir / name,
                  fs::copy_options::overwrite_existing, ec);
    if (ec) return Internal("cannot copy sim/platforms/", name, ": ", ec.message());
  }
  return Status::OK();
}

Status MakeSeeds(const fs::path& root) {
  const std::pair<const char*, Status (*)(const fs::path&)> sets[] = {
      {"graph_json", GraphSeeds}, {"npy", NpySeeds},     {"idx", IdxSeeds},
      {"checkpoint", CheckpointSeeds}, {"trace", TraceSeeds}};
  for (const auto& [name, fn] : sets) {
    fs::create_directories(root / name);
    RETURN_IF_ERROR(fn(root / name).WithPrefix(std::string(name) + ": "));
  }
  fs::create_directories(root / "platform");
  return PlatformSeeds(root / "platform", FB_SOURCE_DIR).WithPrefix("platform: ");
}

}  // namespace
}  // namespace fb

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " CORPUS_DIR (tests/fuzz/corpus)\n";
    return 2;
  }
  fb::Status s = fb::MakeSeeds(argv[1]);
  if (!s.ok()) {
    std::cerr << "fuzz_make_seeds: " << s.ToString() << "\n";
    return 1;
  }
  std::cout << "fuzz_make_seeds: wrote the seed corpora under " << argv[1] << "\n";
  return 0;
}
