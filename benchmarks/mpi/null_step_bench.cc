// The null-step benchmark of OSDI 2016 (section 6.2, Figure 6 there): synchronous replication
// where each worker fetches the model from the parameter server, does a trivial computation
// (x 0.5) and sends the update back, which the ps sums into an accumulator, for a scalar model
// (1 float), a dense model (`--dense` floats) and a sparse model (32 random rows of a
// [`--rows`, 64] embedding gathered on the ps). Reports the median step time against the number
// of workers, next to a hand-written MPI loop doing the same exchanges (MPI_Isend/MPI_Recv of the
// same bytes, the same sums) in the same run, once with the data alone and once also with the
// master's per-step "run" and "done" messages (raw_run_done).
// Run: mpirun -np 4 build/flowbench-mpi-null-step [--steps 20] [--dense 1048576] [--rows 100000]
//      [--models scalar,dense,sparse]
// Rank 0 is /job:ps/task:0 (and the master); ranks 1.. are /job:worker/task:0...
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "engine/client/array_ops.h"
#include "engine/client/math_ops.h"
#include "engine/client/optimizer.h"
#include "engine/client/state_ops.h"
#include "mpi/master.h"
#include "mpi/mpi_status.h"
#include "mpi/mpi_transport.h"
#include "mpi/worker_service.h"

namespace fb::mpi {
namespace {

constexpr int kEmbeddingDim = 64, kSparseRows = 32;

struct Config {
  int steps = 20;
  int64_t dense = 1 << 20;
  int64_t rows = 100000;
  std::string models = "scalar,dense,sparse";  // which models to run, comma-separated
};

struct Model {
  std::string name;
  TensorShape var_shape;     // the parameters on the ps
  TensorShape fetch_shape;   // what each worker fetches
  bool sparse = false;
};

std::vector<Model> Models(const Config& c) {
  std::vector<Model> all = {
      {"scalar", TensorShape{1}, TensorShape{1}},
      {"dense", TensorShape{c.dense}, TensorShape{c.dense}},
      {"sparse", TensorShape{c.rows, kEmbeddingDim}, TensorShape{kSparseRows, kEmbeddingDim}, true}};
  std::vector<Model> chosen;
  for (const Model& m : all)
    if (("," + c.models + ",").find("," + m.name + ",") != std::string::npos) chosen.push_back(m);
  return chosen;
}

std::vector<int32_t> SparseIndices(int64_t rows) {
  std::vector<int32_t> idx;
  for (int i = 0; i < kSparseRows; ++i) idx.push_back(static_cast<int32_t>((i * 7919ll) % rows));
  return idx;
}

std::string Target(const Model& m, int workers) { return "null_step_" + m.name + "_" + std::to_string(workers); }

// Variables, initializers, and one null-step target per number of workers.
void BuildModel(const Scope& root, const Model& m, int max_workers, std::vector<Output>* inits) {
  Scope ps = root.NewSubScope(m.name).WithDevice("/job:ps/task:0");
  Output var = ops::Variable(ps.WithOpName("params"), m.var_shape, DataType::kFloat);
  Output acc = ops::Variable(ps.WithOpName("acc"), m.fetch_shape, DataType::kFloat);
  auto zeros = [&](const TensorShape& s) { return ops::Fill(ps, ops::IntConst(ps, s.dim_sizes()), ops::Const(ps, 0.f)); };
  inits->push_back(ops::Assign(ps, var, zeros(m.var_shape)));
  inits->push_back(ops::Assign(ps, acc, zeros(m.fetch_shape)));
  Output fetched = var;
  if (m.sparse) {
    auto idx = SparseIndices(m.var_shape.dim_size(0));
    fetched = ops::Gather(ps, var, ops::Const(ps, idx, TensorShape{kSparseRows}));
  }
  for (int w = 1; w <= max_workers; ++w) {
    std::vector<Output> updates;
    for (int i = 0; i < w; ++i) {
      Scope ws = root.NewSubScope(m.name + "_w" + std::to_string(w)).WithDevice("/job:worker/task:" + std::to_string(i));
      updates.push_back(ops::Mul(ws, fetched, ops::Const(ws, 0.5f)));
    }
    Scope s = ps.NewSubScope("sum_" + std::to_string(w));
    ops::Group(root.WithOpName(Target(m, w)), {ops::AssignAdd(s, acc, ops::AddN(s, updates))});
  }
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// flowbench: median seconds per null step, per model and number of workers (rank 0 only).
std::vector<std::vector<double>> RunFlowbench(const Config& c, const std::vector<Model>& models) {
  int max_workers = WorldSize() - 1;
  ClusterSpec cluster = *ClusterSpec::Parse("ps=1,worker=" + std::to_string(max_workers));
  std::vector<std::vector<double>> medians(models.size());
  if (WorldRank() != 0) {
    Status s = ServeWorker(cluster, {});
    if (!s.ok()) std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return medians;
  }
  Scope root = Scope::NewRootScope();
  std::vector<Output> inits;
  for (const Model& m : models) BuildModel(root, m, max_workers, &inits);
  ops::Group(root.WithOpName("init"), inits);
  auto master = Master::Create(cluster);
  Status s = master.ok() ? (*master)->Extend(root.ToGraphDef()) : master.status();
  std::vector<Tensor> out;
  if (s.ok()) s = (*master)->Run({}, {}, {"init"}, &out);
  for (size_t k = 0; k < models.size() && s.ok(); ++k) {
    for (int w = 1; w <= max_workers && s.ok(); ++w) {
      s = (*master)->Run({}, {}, {Target(models[k], w)}, &out);  // compiles and registers
      std::vector<double> times;
      for (int i = 0; i < c.steps && s.ok(); ++i) {
        double t0 = Now();
        s = (*master)->Run({}, {}, {Target(models[k], w)}, &out);
        times.push_back(Now() - t0);
      }
      medians[k].push_back(Median(times));
    }
  }
  if (!s.ok()) std::fprintf(stderr, "flowbench null step failed: %s\n", s.ToString().c_str());
  if (master.ok()) (*master)->Shutdown();
  return medians;
}

// The same exchanges as one hand-written MPI loop: ps sends the (gathered) parameters to each of
// `workers` workers, each multiplies by 0.5 and sends back, the ps sums into the accumulator.
// With `control`, the loop also does what flowbench's master does around the data: a "run"
// message to each worker before and a "done" message from each after (one int each).
double RawStep(MPI_Comm comm, const Model& m, int workers, bool control, std::vector<float>* params,
               std::vector<float>* acc, std::vector<float>* buf) {
  int rank = WorldRank();
  int64_t n = m.fetch_shape.num_elements();
  double t0 = Now();
  if (rank == 0) {
    const float* src = params->data();
    if (m.sparse) {  // the gather
      auto idx = SparseIndices(m.var_shape.dim_size(0));
      for (int i = 0; i < kSparseRows; ++i)
        std::memcpy(buf->data() + i * kEmbeddingDim, params->data() + idx[i] * kEmbeddingDim, kEmbeddingDim * sizeof(float));
      src = buf->data();
    }
    std::vector<MPI_Request> reqs(2 * workers, MPI_REQUEST_NULL);
    int run = 1;
    for (int w = 1; w <= workers; ++w) {
      if (control) MPI_Isend(&run, 1, MPI_INT, w, 6, comm, &reqs[workers + w - 1]);
      MPI_Isend(src, static_cast<int>(n), MPI_FLOAT, w, 7, comm, &reqs[w - 1]);
    }
    MPI_Waitall(2 * workers, reqs.data(), MPI_STATUSES_IGNORE);
    std::vector<float> sum(n, 0.f), in(n);
    for (int w = 1; w <= workers; ++w) {
      MPI_Recv(in.data(), static_cast<int>(n), MPI_FLOAT, MPI_ANY_SOURCE, 8, comm, MPI_STATUS_IGNORE);
      for (int64_t i = 0; i < n; ++i) sum[i] += in[i];
    }
    for (int64_t i = 0; i < n; ++i) (*acc)[i] += sum[i];
    for (int w = 1; control && w <= workers; ++w)
      MPI_Recv(&run, 1, MPI_INT, MPI_ANY_SOURCE, 9, comm, MPI_STATUS_IGNORE);
  } else if (rank <= workers) {
    int run = 0;
    if (control) MPI_Recv(&run, 1, MPI_INT, 0, 6, comm, MPI_STATUS_IGNORE);
    MPI_Recv(buf->data(), static_cast<int>(n), MPI_FLOAT, 0, 7, comm, MPI_STATUS_IGNORE);
    for (int64_t i = 0; i < n; ++i) (*buf)[i] *= 0.5f;
    MPI_Send(buf->data(), static_cast<int>(n), MPI_FLOAT, 0, 8, comm);
    if (control) MPI_Send(&run, 1, MPI_INT, 0, 9, comm);
  }
  return Now() - t0;
}

std::vector<std::vector<double>> RunRawMpi(const Config& c, const std::vector<Model>& models, bool control) {
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  std::vector<std::vector<double>> medians(models.size());
  for (size_t k = 0; k < models.size(); ++k) {
    const Model& m = models[k];
    std::vector<float> params(WorldRank() == 0 ? m.var_shape.num_elements() : 0, 0.f);
    std::vector<float> acc(m.fetch_shape.num_elements(), 0.f), buf(m.fetch_shape.num_elements());
    for (int w = 1; w < WorldSize(); ++w) {
      std::vector<double> times;
      for (int i = 0; i <= c.steps; ++i) {
        MPI_Barrier(comm);
        double t = RawStep(comm, m, w, control, &params, &acc, &buf);
        if (i > 0) times.push_back(t);  // the first step warms up
      }
      medians[k].push_back(Median(times));
    }
  }
  MPI_Comm_free(&comm);
  return medians;
}

// The flags (CLI11), checked before MPI starts: exit code 2 and a message naming the flag on
// bad input (an integer that does not parse, a count below 1) instead of an exception.
int ParseFlags(int argc, char** argv, Config* c) {
  CLI::App app{"flowbench-mpi-null-step: the OSDI 2016 null step (section 6.2) under mpirun, next "
               "to raw MPI"};
  app.add_option("--steps", c->steps, "Timed steps per model and worker count")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--dense", c->dense, "Floats of the dense model (4 bytes each)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 31));
  app.add_option("--rows", c->rows, "Rows of the sparse model's [rows, 64] embedding")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 26));
  app.add_option("--models", c->models, "Comma-separated: scalar, dense, sparse");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? -1 : 2;  // -1: --help, printed
  }
  return 0;
}

int Main(const Config& c) {
  if (WorldSize() < 2) {
    std::fprintf(stderr, "flowbench-mpi-null-step needs at least 2 ranks (a ps and a worker)\n");
    return 1;
  }
  auto models = Models(c);
  if (models.empty()) {
    std::fprintf(stderr, "--models '%s': expected a comma-separated list of scalar, dense, sparse\n", c.models.c_str());
    return 1;
  }
  auto ours = RunFlowbench(c, models);
  MPI_Barrier(MPI_COMM_WORLD);
  auto raw = RunRawMpi(c, models, false);
  auto raw_control = RunRawMpi(c, models, true);
  if (WorldRank() == 0) {
    std::printf("%-8s %8s %14s %12s %8s %18s %8s\n", "model", "workers", "flowbench_ms", "raw_mpi_ms",
                "ratio", "raw_run_done_ms", "ratio");
    for (size_t k = 0; k < models.size(); ++k)
      for (size_t w = 0; w < ours[k].size(); ++w)
        std::printf("%-8s %8zu %14.4f %12.4f %8.2f %18.4f %8.2f\n", models[k].name.c_str(), w + 1,
                    ours[k][w] * 1e3, raw[k][w] * 1e3, ours[k][w] / raw[k][w],
                    raw_control[k][w] * 1e3, ours[k][w] / raw_control[k][w]);
  }
  return 0;
}

}  // namespace
}  // namespace fb::mpi

int main(int argc, char** argv) {
  fb::mpi::Config c;
  if (int rc = fb::mpi::ParseFlags(argc, argv, &c); rc != 0) return rc < 0 ? 0 : rc;
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rc = fb::mpi::Main(c);
  fb::mpi::MpiTransport::Get()->Shutdown();
  MPI_Finalize();
  return rc;
}
