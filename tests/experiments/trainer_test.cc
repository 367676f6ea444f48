// The training loop of `flowbench train` on small synthetic data: reproducibility, resume
// equals an uninterrupted run, checkpoint and trace contents.
#include "experiments/training/trainer.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <catch2/catch.hpp>

#include "datasets/synthetic.h"
#include "engine/checkpoint/checkpoint_file.h"
#include "engine/checkpoint/saver.h"
#include "engine/trace/hdf5_util.h"
#include "engine/trace/trace_reader.h"
#include "tests/engine/trace/temp_dir.h"
#include "tests/test_util.h"

namespace fb::experiments {
namespace {

// `n` examples of 5 classes of 12x12 images; splits share classes but not examples.
std::shared_ptr<const datasets::Dataset> Synthetic(int64_t n, uint64_t split) {
  datasets::SyntheticOptions so;
  so.num_examples = n;
  so.image_shape = {12, 12, 1};
  so.num_classes = 5;
  so.split = split;
  auto d = datasets::MakeSyntheticDataset(so);
  REQUIRE(d.ok());
  return *d;
}

// 2 epochs of 12 steps (batch 16 over 192 examples).
TrainOptions SmallRun(const std::string& model) {
  TrainOptions o;
  o.model = model;
  o.epochs = 2;
  o.threads = 2;
  o.model_options.batch_size = 16;
  o.model_options.hidden_units = {32};
  o.model_options.seed = 3;
  return o;
}

TrainResult RunOk(const TrainOptions& o, std::shared_ptr<const datasets::Dataset> train,
                  std::shared_ptr<const datasets::Dataset> test = nullptr) {
  auto r = Train(o, train, test);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  return *r;
}

void CheckSameVariables(const TrainResult& a, const TrainResult& b) {
  REQUIRE(a.variable_names == b.variable_names);
  for (size_t i = 0; i < a.final_variables.size(); ++i) {
    INFO(a.variable_names[i]);
    CHECK(test::Values<float>(a.final_variables[i]) == test::Values<float>(b.final_variables[i]));
  }
}

TEST_CASE("Same seed and threads give identical loss curves and weights", "[train]") {
  auto train = Synthetic(192, 1);
  for (std::string model : {"mlp", "lenet"}) {
    INFO(model);
    TrainOptions o = SmallRun(model);
    TrainResult a = RunOk(o, train, Synthetic(100, 2)), b = RunOk(o, train, Synthetic(100, 2));
    REQUIRE(a.losses.size() == 24);
    CHECK(a.losses == b.losses);
    CHECK(a.test_accuracy == b.test_accuracy);
    CheckSameVariables(a, b);
    o.model_options.seed = 4;
    CHECK(RunOk(o, train).losses != a.losses);  // the seed matters
  }
}

TEST_CASE("Resuming from a checkpoint ends with the weights of an uninterrupted run", "[train]") {
  auto train = Synthetic(192, 1);
  for (std::string model : {"mlp", "lenet"}) {
    INFO(model);
    test::TempDir dir;
    TrainOptions o = SmallRun(model);
    const TrainResult whole = RunOk(o, train);

    o.checkpoint_dir = dir.file("ckpt");
    o.checkpoint_every.steps = 5;
    o.max_steps = 17;  // stops mid-epoch 2: checkpoints at steps 5, 10, 15 and 17
    const TrainResult first = RunOk(o, train);
    CHECK(first.steps == 17);
    auto steps = ListCheckpointSteps(o.checkpoint_dir);
    REQUIRE(steps.ok());
    CHECK(*steps == std::vector<int64_t>{5, 10, 15, 17});

    o.resume = true;
    o.max_steps = -1;
    const TrainResult resumed = RunOk(o, train);
    CHECK(resumed.first_step == 17);
    CHECK(resumed.steps == 24);
    // The resumed run sees the same batches: its losses are the tail of the whole run's.
    CHECK(resumed.losses == std::vector<double>(whole.losses.begin() + 17, whole.losses.end()));
    CheckSameVariables(whole, resumed);
  }
}

TEST_CASE("Checkpoints every N seconds keep the newest ones", "[train]") {
  auto train = Synthetic(192, 1);
  test::TempDir dir;
  TrainOptions o = SmallRun("mlp");
  o.checkpoint_dir = dir.file("ckpt");
  o.checkpoint_every.seconds = 1e-9;  // due after every step
  o.keep_checkpoints = 3;
  o.max_steps = 6;
  RunOk(o, train);
  auto steps = ListCheckpointSteps(o.checkpoint_dir);
  REQUIRE(steps.ok());
  CHECK(*steps == std::vector<int64_t>{4, 5, 6});
}

TEST_CASE("Resuming from a truncated checkpoint fails naming the file", "[train]") {
  auto train = Synthetic(192, 1);
  test::TempDir dir;
  TrainOptions o = SmallRun("mlp");
  o.checkpoint_dir = dir.file("ckpt");
  o.checkpoint_every.steps = 100;
  o.max_steps = 3;
  RunOk(o, train);
  const std::string path = CheckpointPath(o.checkpoint_dir, 3);
  REQUIRE(std::filesystem::exists(path));
  std::filesystem::resize_file(path, std::filesystem::file_size(path) / 2);
  o.resume = true;
  auto r = Train(o, train, nullptr);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::kDataLoss);
  CHECK_THAT(r.status().message(), Catch::Contains(path));
}

// A run of the MLP that stops after 6 steps, with checkpoints at steps 2, 4 and 6.
TrainOptions CheckpointedRun(const test::TempDir& dir) {
  TrainOptions o = SmallRun("mlp");
  o.checkpoint_dir = dir.file("ckpt");
  o.checkpoint_every.steps = 2;
  o.max_steps = 6;
  return o;
}

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Every file of `dir` with its contents.
std::map<std::string, std::string> Snapshot(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    files[e.path().string()] = ReadBytes(e.path().string());
  return files;
}

// Changes the int64 scalar `name` of a checkpoint through HDF5, keeping HDF5's own metadata
// checksums valid: what a flipped bit in the (unchecksummed) data block of a scalar amounts to.
void OverwriteInt64(const std::string& path, const std::string& name, int64_t value) {
  h5::Hdf5Guard guard;
  h5::Handle f(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
  REQUIRE(f.valid());
  h5::Handle ds(H5Dopen2(f.get(), name.c_str(), H5P_DEFAULT), H5Dclose);
  REQUIRE(ds.valid());
  REQUIRE(H5Dwrite(ds.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, &value) >= 0);
}

TEST_CASE("Resume skips a corrupt newest checkpoint with a warning and continues from the older",
          "[train][checkpoint]") {
  auto train = Synthetic(192, 1);
  test::TempDir dir;
  TrainOptions o = SmallRun("mlp");
  const TrainResult whole = RunOk(o, train);
  o = CheckpointedRun(dir);
  RunOk(o, train);
  const std::string c4 = CheckpointPath(o.checkpoint_dir, 4);
  const std::string c6 = CheckpointPath(o.checkpoint_dir, 6);
  std::string why;
  SECTION("truncated") {
    std::filesystem::resize_file(c6, std::filesystem::file_size(c6) / 2);
    why = c6 + ": cannot open checkpoint";
  }
  SECTION("one bit flipped in the step counter") {
    OverwriteInt64(c6, "input/step", 6 ^ 1);  // resumed at step 7 before checksums
    why = c6 + ": variable 'input/step': corrupt checkpoint: crc32 checksum mismatch";
  }
  const std::string intact = ReadBytes(c4);
  o.resume = true;
  o.max_steps = 1;
  const TrainResult r = RunOk(o, train);
  CHECK(r.first_step == 4);
  CHECK(r.resumed_from == c4);
  REQUIRE(r.resume_warnings.size() == 1);
  CHECK_THAT(r.resume_warnings[0], Catch::Contains(why));
  CHECK(ReadBytes(c4) == intact);  // the checkpoint resumed from is kept as it was

  o.max_steps = -1;  // on to the end: the same weights as an uninterrupted run
  const TrainResult rest = RunOk(o, train);
  CHECK(rest.first_step == 5);
  CHECK(rest.losses == std::vector<double>(whole.losses.begin() + 5, whole.losses.end()));
  CheckSameVariables(whole, rest);
}

TEST_CASE("Resume fails naming file and variable when the newest checkpoint lacks a variable",
          "[train][checkpoint]") {
  auto train = Synthetic(192, 1);
  test::TempDir dir;
  TrainOptions o = CheckpointedRun(dir);
  RunOk(o, train);
  const std::string c6 = CheckpointPath(o.checkpoint_dir, 6);
  auto entries = ListCheckpoint(c6);
  REQUIRE(entries.ok());
  std::string victim;
  for (const CheckpointEntry& e : *entries)
    if (e.name != "global_step" && e.name != "input/step") victim = e.name;
  REQUIRE_FALSE(victim.empty());
  {  // as h5py's `del f[victim]`: an intact file without that variable
    h5::Hdf5Guard guard;
    h5::Handle f(H5Fopen(c6.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
    REQUIRE(H5Ldelete(f.get(), victim.c_str(), H5P_DEFAULT) >= 0);
  }
  const auto before = Snapshot(o.checkpoint_dir);
  o.resume = true;
  o.max_steps = -1;
  auto r = Train(o, train, nullptr);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() != Code::kNotFound);
  CHECK_THAT(r.status().message(), Catch::Contains(c6 + ": no variable '" + victim + "'"));
  CHECK(Snapshot(o.checkpoint_dir) == before);  // nothing overwritten, deleted or added
}

TEST_CASE("Resuming an MLP run from a LeNet checkpoint fails naming file and variable",
          "[train][checkpoint]") {
  auto train = Synthetic(192, 1);
  test::TempDir dir;
  TrainOptions o = SmallRun("lenet");
  o.checkpoint_dir = dir.file("ckpt");
  o.max_steps = 2;
  RunOk(o, train);
  const auto before = Snapshot(o.checkpoint_dir);
  o.model = "mlp";
  o.resume = true;
  o.max_steps = -1;
  auto r = Train(o, train, nullptr);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() != Code::kNotFound);
  CHECK_THAT(r.status().message(), Catch::Contains(CheckpointPath(o.checkpoint_dir, 2) +
                                                   ": variable '") ||
                                       Catch::Contains(CheckpointPath(o.checkpoint_dir, 2) +
                                                       ": no variable '"));
  CHECK(Snapshot(o.checkpoint_dir) == before);
}

TEST_CASE("Resume ignores a checkpoint name whose step does not fit in 64 bits",
          "[train][checkpoint]") {
  auto train = Synthetic(192, 1);
  test::TempDir dir;
  TrainOptions o = CheckpointedRun(dir);
  RunOk(o, train);
  const std::string huge = o.checkpoint_dir + "/ckpt-99999999999999999999.h5";
  std::filesystem::copy_file(CheckpointPath(o.checkpoint_dir, 6), huge);
  o.resume = true;
  o.max_steps = 1;
  const TrainResult r = RunOk(o, train);  // std::stoll threw std::out_of_range here
  CHECK(r.first_step == 6);
  REQUIRE(r.resume_warnings.size() == 1);
  CHECK_THAT(r.resume_warnings[0], Catch::Contains(huge + ": not a checkpoint name"));
}

TEST_CASE("Checkpointing removes the temporary files of killed saves", "[train][checkpoint]") {
  auto train = Synthetic(192, 1);
  test::TempDir dir;
  TrainOptions o = CheckpointedRun(dir);
  std::filesystem::create_directories(o.checkpoint_dir);
  pid_t dead = fork();
  REQUIRE(dead >= 0);
  if (dead == 0) _exit(0);
  REQUIRE(waitpid(dead, nullptr, 0) == dead);
  // What a save killed before its rename leaves (the form WriteCheckpoint used before hosts).
  const std::string stale = CheckpointPath(o.checkpoint_dir, 8) + ".tmp-" + std::to_string(dead);
  // A save in progress in another live process of this host.
  std::string live = TemporaryCheckpointPath(CheckpointPath(o.checkpoint_dir, 8));
  live = live.substr(0, live.rfind('-') + 1) + std::to_string(getppid());
  std::ofstream(stale) << std::string(1000, 'x');
  std::ofstream(live) << std::string(1000, 'x');
  RunOk(o, train);
  CHECK_FALSE(std::filesystem::exists(stale));
  CHECK(std::filesystem::exists(live));
}

// Names of the nodes a step computing `roots` must execute: the backward closure over data and
// control edges in the trace's /graph tables (internal "_" nodes left out).
std::set<std::string> NeededNodes(const Trace& t, const std::vector<std::string>& roots) {
  std::map<int32_t, std::vector<int32_t>> inputs;
  for (const EdgeRecord& e : t.edges) inputs[e.dst].push_back(e.src);
  std::map<std::string, int32_t> id;
  for (const OpRecord& op : t.ops) id[t.str(op.node)] = op.id;
  std::set<int32_t> seen;
  std::vector<int32_t> stack;
  for (const std::string& r : roots) stack.push_back(id.at(r));
  while (!stack.empty()) {
    int32_t n = stack.back();
    stack.pop_back();
    if (!seen.insert(n).second) continue;
    for (int32_t src : inputs[n]) stack.push_back(src);
  }
  std::set<std::string> names;
  for (const OpRecord& op : t.ops) {
    const std::string& name = t.str(op.node);
    if (seen.count(op.id) && !name.empty() && name[0] != '_') names.insert(name);
  }
  return names;
}

TEST_CASE("The trace holds one row per executed node for each traced step", "[train]") {
  auto train = Synthetic(192, 1);
  test::TempDir dir;
  TrainOptions o = SmallRun("lenet");
  o.epochs = 1;
  o.trace_path = dir.file("run.h5");
  o.trace_steps = 2;
  o.default_passes = false;  // the trace's graph is the client's: every node of it runs
  RunOk(o, train, Synthetic(50, 2));
  auto t = TraceReader::Open(o.trace_path);
  INFO(t.status().ToString());
  REQUIRE(t.ok());
  const std::set<std::string> needed = NeededNodes(*t, {"loss", "train"});
  CHECK(needed.count("input/batch") == 1);
  CHECK(needed.count("conv1/Conv2D") == 1);
  std::map<int64_t, std::multiset<std::string>> per_step;
  for (const EventRecord& e : t->events) {
    const std::string& name = t->str(e.node);
    if (name.empty() || name[0] == '_') continue;  // _Fetch and other rewrite nodes
    per_step[e.step].insert(name);
    CHECK(e.end_ns >= e.start_ns);
  }
  // Steps 1 and 2 are traced (step 0 warms up).
  REQUIRE(per_step.size() == 2);
  for (const auto& [step, names] : per_step) {
    INFO("step " << step);
    CHECK((step == 1 || step == 2));
    CHECK(std::set<std::string>(names.begin(), names.end()) == needed);
    CHECK(names.size() == needed.size());  // each exactly once
  }
  // Every step has a /steps row and a loss metric.
  CHECK(t->steps.size() == 12);
  int losses = 0;
  for (const MetricRecord& m : t->metrics) losses += t->str(m.name) == "loss";
  CHECK(losses == 12);
}

TEST_CASE("Checkpoint intervals parse as steps or seconds", "[train]") {
  CHECK(ParseCheckpointEvery("500")->steps == 500);
  CHECK(ParseCheckpointEvery("30s")->seconds == 30);
  CHECK(ParseCheckpointEvery("2.5s")->seconds == 2.5);
  for (std::string bad : {"", "s", "0", "-3", "10m", "abc", "nans", "infs", "-infs", "1e999s",
                          "1e400s", "99999999999999999999"}) {
    INFO(bad);
    CHECK(ParseCheckpointEvery(bad).status().message() ==
          "checkpoint interval '" + bad +
              "': expected a positive number of steps (500) or seconds (30s)");
  }
}

TEST_CASE("Train rejects a test set whose images differ in shape before training", "[train]") {
  TrainOptions o = SmallRun("mlp");
  datasets::SyntheticOptions so;
  so.num_examples = 20;
  so.image_shape = {14, 14, 1};
  so.num_classes = 5;
  auto test_set = datasets::MakeSyntheticDataset(so);
  REQUIRE(test_set.ok());
  int steps = 0;
  auto r = Train(o, Synthetic(192, 0), *test_set, [&](const StepProgress&) { ++steps; });
  CHECK(r.status().code() == Code::kInvalidArgument);
  CHECK_THAT(r.status().message(), Catch::Contains("[14,14,1]") && Catch::Contains("[12,12,1]"));
  CHECK(steps == 0);
}

TEST_CASE("Train rejects a dataset smaller than one batch", "[train]") {
  TrainOptions o = SmallRun("mlp");
  auto r = Train(o, Synthetic(10, 1), nullptr);
  CHECK(r.status().message() == "dataset 'synthetic' has 10 examples, fewer than one batch of 16");
}

// Issue 4's check: LeNet on 4 CPU devices (one thread each) under the greedy placer follows the
// 1-device loss curve bit for bit; with lossy 16-bit transfers (5.5) on every edge that
// round-robin placement cuts, within 3% per step (momentum SGD, lr 0.01): the whitepaper's
// truncation to 16 bits keeps 7 mantissa bits, up to 0.8% per value on every cut edge, and which
// edges round-robin cuts depends on the graph's node order (2.1% at step 5 once the unused
// gradient of the images left the graph).
TEST_CASE("LeNet on 4 devices with the greedy placer gives the 1-device loss curve",
          "[train][placement]") {
  auto train = Synthetic(192, 1);
  TrainOptions o = SmallRun("lenet");
  o.epochs = 1;
  o.threads = 1;
  // Momentum SGD: updates proportional to the gradients, so 16-bit rounding errors stay small
  // (Adam's first steps move every weight by +-lr whatever the gradient's size).
  o.model_options.optimizer = "momentum";
  o.model_options.learning_rate = 0.01;
  TrainResult one = RunOk(o, train);
  o.devices = "cpu:4";
  o.threads = 4;
  o.placer = "greedy";
  TrainResult four = RunOk(o, train);
  CHECK(four.losses == one.losses);
  CheckSameVariables(one, four);
  o.placer = "round_robin";  // greedy may keep most of LeNet on one device
  o.passes = {"compression"};
  o.default_passes = false;  // the cross-device edges compression was measured on (issue 4)
  TrainResult lossy = RunOk(o, train);
  REQUIRE(lossy.losses.size() == one.losses.size());
  CHECK(lossy.losses != one.losses);  // transfers were compressed
  for (size_t i = 0; i < one.losses.size(); ++i) {
    INFO("step " << i << ": " << one.losses[i] << " vs " << lossy.losses[i]);
    CHECK(std::abs(lossy.losses[i] - one.losses[i]) <= 0.03 * std::abs(one.losses[i]));
  }
}

TEST_CASE("Train rejects a bad --devices flag and an unknown placer", "[train][placement]") {
  auto train = Synthetic(192, 1);
  TrainOptions o = SmallRun("mlp");
  o.devices = "tpu:3";
  auto r = Train(o, train, nullptr);
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.status().message(), Catch::Contains("tpu:3"));
  o.devices = "cpu:2";
  o.placer = "clairvoyant";
  r = Train(o, train, nullptr);
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.status().message(), Catch::Contains("clairvoyant"));
}

}  // namespace
}  // namespace fb::experiments
