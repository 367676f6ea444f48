// The numeric flags of every `flowbench` subcommand are range-checked at parse time (a message
// naming the flag, before any work starts), the subcommands share one vocabulary with the old
// spellings kept as aliases, every training command writes --metrics-json and --trace, and
// `flowbench run --timeout` ends a step that never finishes, naming what was pending.
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "engine/client/control_flow.h"
#include "engine/client/data_flow_ops.h"
#include "engine/client/math_ops.h"
#include "engine/client/state_ops.h"
#include "engine/graph/node_def.h"
#include "engine/trace/trace_reader.h"
#include "tests/apps/cli.h"

namespace fb {
namespace {

namespace fs = std::filesystem;

using test::Cli;
using test::ExpectRejected;

TEST_CASE("flowbench refuses non-finite and out-of-range float flags naming the flag",
          "[apps][flags]") {
  Cli cli;
  for (const char* bad : {"nan", "inf", "-inf", "1e400", "abc"}) {
    ExpectRejected(cli, std::string("train --dataset synthetic --lr ") + bad, "--lr", bad);
    ExpectRejected(cli, std::string("lstm --lr ") + bad, "--lr", bad);
    ExpectRejected(cli, std::string("dist-train --lr ") + bad, "--lr", bad);
    ExpectRejected(cli, std::string("run --graph g.json --fetch y:0 --timeout ") + bad, "--timeout",
                   bad);
  }
  ExpectRejected(cli, "train --lr -0.1", "--lr", "-0.1");
  ExpectRejected(cli, "train --momentum 1.5", "--momentum", "1.5");
  ExpectRejected(cli, "dist-train --max-final-loss nan", "--max-final-loss", "nan");
  ExpectRejected(cli, "run --graph g.json --fetch y:0 --timeout -1", "--timeout", "-1");
  ExpectRejected(cli, "sim --model mlp --platform p.xml --stragglers 0.5:inf", "--stragglers",
                 "0.5:inf");
  ExpectRejected(cli, "sim --model mlp --platform p.xml --stragglers 0.5:1e400", "--stragglers",
                 "0.5:1e400");
  // The old spelling is checked as the canonical one (the message names the option).
  ExpectRejected(cli, "lstm --learning-rate nan", "--lr", "nan");
}

TEST_CASE("flowbench refuses zero, negative and huge counts naming the flag", "[apps][flags]") {
  Cli cli;
  ExpectRejected(cli, "lstm --batch 0", "--batch-size", "'0'");
  ExpectRejected(cli, "lstm --batch-size -3", "--batch-size", "'-3'");
  ExpectRejected(cli, "lstm --hidden 0", "--hidden", "'0'");
  ExpectRejected(cli, "lstm --seq-len 0", "--seq-len", "'0'");
  ExpectRejected(cli, "lstm --steps 0", "--steps", "'0'");
  ExpectRejected(cli, "lstm --blas-threads 0", "--blas-threads", "'0'");
  ExpectRejected(cli, "train --threads 100000", "--threads", "'100000'");
  ExpectRejected(cli, "train --blas-threads 0", "--blas-threads", "'0'");
  ExpectRejected(cli, "train --epochs 0", "--epochs", "'0'");
  ExpectRejected(cli, "train --batch-size 0", "--batch-size", "'0'");
  ExpectRejected(cli, "train --hidden 256,0", "--hidden", "'0'");
  ExpectRejected(cli, "train --keep 0", "--keep-checkpoints", "'0'");
  ExpectRejected(cli, "train --devices cpu:100000", "--devices", "cpu:100000");
  ExpectRejected(cli, "train --passes nosuch", "--passes", "unknown graph pass 'nosuch'");
  ExpectRejected(cli, "train --steps 1.5", "--steps", "'1.5'");
  ExpectRejected(cli, "train --dataset synthetic --checkpoint-dir " + cli.dir +
                          "/ck --checkpoint-every 0",
                 "--checkpoint-every", "'0'");
  ExpectRejected(cli, "dist-train --batch 0", "--batch-size", "'0'");
  ExpectRejected(cli, "dist-train --steps 0", "--steps", "'0'");
  ExpectRejected(cli, "dist-train --checkpoint-every 0", "--checkpoint-every", "'0'");
  ExpectRejected(cli, "sim --model mlp --platform p.xml --replicas 0", "--replicas", "'0'");
  ExpectRejected(cli, "sim --model mlp --platform p.xml --ps -1", "--ps", "'-1'");
  ExpectRejected(cli, "sim --model mlp --platform p.xml --batch 0", "--batch-size", "'0'");
  ExpectRejected(cli, "sim --model mlp --platform p.xml --steps 0", "--steps", "'0'");
  ExpectRejected(cli, "place --model mlp --batch 0", "--batch-size", "'0'");
  ExpectRejected(cli, "run --graph g.json --fetch y:0 --threads 0", "--threads", "'0'");
  ExpectRejected(cli, "trace summary t.h5 --top 0", "--top", "'0'");
}

TEST_CASE("flowbench help texts describe the tool without issue numbers", "[apps][flags]") {
  Cli cli;
  for (const char* cmd : {"", "train", "lstm", "dist-train", "sim", "run", "place", "trace",
                          "sim-platform", "ops", "supervise"}) {
    INFO(cmd);
    cli.Run(std::string(cmd) + " --help");
    CHECK_THAT(cli.Stdout(), !Catch::Contains("issue", Catch::CaseSensitive::No));
  }
}

TEST_CASE("flowbench train accepts the shared vocabulary and its old spellings",
          "[apps][flags]") {
  Cli cli;
  for (const char* flags : {"--batch-size 32 --steps 2 --learning-rate 0.01",
                            "--batch 32 --max-steps 2 --lr 0.01"}) {
    INFO(flags);
    const int rc = cli.Run(std::string("train --dataset synthetic --model mlp --hidden 16 ") +
                           flags + " --metrics-json " + cli.dir + "/m.json");
    INFO(cli.Stderr());
    REQUIRE(rc == 0);
    auto j = nlohmann::json::parse(cli.Read("m.json"));
    CHECK(j["batch_size"] == 32);
    CHECK(j["steps"] == 2);
    CHECK(j["learning_rate"] == Approx(0.01));
  }
}

TEST_CASE("flowbench lstm writes --metrics-json and --trace and accepts --batch", "[apps][flags]") {
  Cli cli;
  const std::string corpus = cli.Corpus();
  const int rc = cli.Run("lstm --corpus " + corpus +
                         " --steps 3 --hidden 8 --batch 2 --seq-len 8 --eval-seq-len 16"
                         " --optimizer sgd --lr 0.1 --threads 1 --trace-steps 1 --trace " +
                         cli.dir + "/lstm.h5 --metrics-json " + cli.dir + "/m.json");
  INFO(cli.Stderr());
  REQUIRE(rc == 0);
  auto j = nlohmann::json::parse(cli.Read("m.json"));
  CHECK(j["model"] == "lstm");
  CHECK(j["batch_size"] == 2);
  CHECK(j["steps"] == 3);
  CHECK(j["optimizer"] == "sgd");
  CHECK(j["heldout_perplexity"].get<double>() > 1);
  CHECK(j["blas_threads"] == 1);
  CHECK(j["train_cpu_s"].get<double>() > 0);  // training CPU time, for (user + sys) / wall
  auto trace = TraceReader::Open(cli.dir + "/lstm.h5");
  INFO(trace.status().ToString());
  REQUIRE(trace.ok());
  CHECK(trace->steps.size() == 3);
  CHECK_FALSE(trace->events.empty());
}

// Writes `root`'s graph as GraphDef JSON to `path`.
void WriteGraph(const Scope& root, const std::string& path) {
  INFO(root.status().ToString());
  REQUIRE(root.ok());
  REQUIRE(WriteGraphDefFile(root.ToGraphDef(), path).ok());
}

TEST_CASE("flowbench run --timeout ends a dequeue that never completes, naming it",
          "[apps][flags][timeout]") {
  Cli cli;
  Scope root = Scope::NewRootScope();
  ops::QueueOptions qo;
  qo.shapes = {TensorShape{}};
  Output q = ops::FIFOQueue(root.WithOpName("q"), {DataType::kFloat}, qo);
  ops::QueueDequeue(root.WithOpName("wait_forever"), q, {DataType::kFloat});
  WriteGraph(root, cli.dir + "/g.json");
  const int rc = cli.Run("run --graph " + cli.dir +
                         "/g.json --fetch wait_forever:0 --timeout 0.5 --out " + cli.dir);
  CHECK(rc == 1);
  CHECK(cli.seconds < 8);
  CHECK_THAT(cli.Stderr(), Catch::Contains("--timeout 0.5") &&
                               Catch::Contains("QueueDequeue 'wait_forever'") &&
                               Catch::Contains("DeadlineExceeded"));
}

TEST_CASE("flowbench run --timeout ends a loop that never ends, naming where it stopped",
          "[apps][flags][timeout]") {
  Cli cli;
  Scope root = Scope::NewRootScope();
  auto out = ops::WhileLoop(
      root.WithOpName("spin"), {ops::Const(root, 0.0f)},
      [](const Scope& s, const std::vector<Output>& v) {
        return ops::Less(s, v[0], ops::Const(s, 1.0f));
      },
      [](const Scope& s, const std::vector<Output>& v) {
        return std::vector<Output>{ops::Add(s, v[0], ops::Const(s, 0.0f))};
      });
  WriteGraph(root, cli.dir + "/g.json");
  const int rc =
      cli.Run("run --graph " + cli.dir + "/g.json --fetch " + out[0].name() + " --timeout 0.5");
  CHECK(rc == 1);
  CHECK(cli.seconds < 8);
  CHECK_THAT(cli.Stderr(), Catch::Contains("--timeout 0.5") && Catch::Contains("iteration") &&
                               Catch::Contains("spin"));
}

}  // namespace
}  // namespace fb
