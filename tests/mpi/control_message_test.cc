// Control messages (mpi/control_message.h) survive encoding: a traced "run" and a "done"
// carrying node executions (JSON), untraced ones in the compact form; malformed bytes are
// DataLoss.
#include "mpi/control_message.h"

#include <catch2/catch.hpp>

namespace fb::mpi {
namespace {

TEST_CASE("A traced run and its done with node executions round-trip", "[mpi][control]") {
  ControlMessage run{"run", 7, 42, Status::OK()};
  run.trace = true;
  auto decoded_run = DecodeControl(EncodeControl(run));
  REQUIRE(decoded_run.ok());
  CHECK(decoded_run->trace);
  CHECK(decoded_run->step_id == 42);
  CHECK_FALSE(DecodeControl(EncodeControl({"run", 7, 43, Status::OK()}))->trace);

  ControlMessage done{"done", 0, 42, Status::OK()};
  NodeExecStats s;
  s.node_name = "replica_0/conv1/Conv2D";
  s.op = "Conv2D";
  s.device = "/job:worker/replica:0/task:0/device:CPU:0";
  s.thread_id = 1234;
  s.start_ns = 1'700'000'000'000'000'000;
  s.end_ns = s.start_ns + 5000;
  s.output_bytes = 602112;
  s.step_id = 42;
  s.peer_device = "/job:ps/replica:0/task:0/device:CPU:0";
  s.transfer_bytes = 96;
  s.rank = 3;
  done.stats = {s, s};
  done.stats[1].node_name = "b";
  auto decoded = DecodeControl(EncodeControl(done));
  REQUIRE(decoded.ok());
  REQUIRE(decoded->stats.size() == 2);
  const NodeExecStats& d = decoded->stats[0];
  CHECK(d.node_name == s.node_name);
  CHECK(d.op == s.op);
  CHECK(d.device == s.device);
  CHECK(d.thread_id == s.thread_id);
  CHECK(d.start_ns == s.start_ns);
  CHECK(d.end_ns == s.end_ns);
  CHECK(d.output_bytes == s.output_bytes);
  CHECK(d.step_id == s.step_id);
  CHECK(d.peer_device == s.peer_device);
  CHECK(d.transfer_bytes == s.transfer_bytes);
  CHECK(d.rank == 3);
  CHECK(decoded->stats[1].node_name == "b");
}

TEST_CASE("Untraced runs and dones travel in the compact form and round-trip", "[mpi][control]") {
  ControlMessage done{"done", 5, int64_t{1} << 40, Aborted("/job:worker/replica:0/task:1: node 'x'")};
  std::string bytes = EncodeControl(done);
  CHECK(bytes[0] == 'C');
  CHECK(bytes.size() < 80);
  auto d = DecodeControl(bytes);
  REQUIRE(d.ok());
  CHECK(d->type == "done");
  CHECK(d->id == 5);
  CHECK(d->step_id == int64_t{1} << 40);
  CHECK(d->status.code() == Code::kAborted);
  CHECK(d->status.message() == done.status.message());
  for (const char* type : {"register", "registered", "run", "abort", "ping", "pong", "shutdown"}) {
    ControlMessage m{type, 3, 4, Status::OK()};
    m.trace = std::string(type) == "run";
    auto r = DecodeControl(EncodeControl(m));
    REQUIRE(r.ok());
    CHECK(r->type == type);
    CHECK(r->status.ok());
    CHECK(r->trace == m.trace);
  }
  // With partitions (a registration), the JSON form.
  ControlMessage reg{"register", 1, 0, Status::OK()};
  reg.partitions["/job:ps/replica:0/task:0/device:CPU:0"] = GraphDef();
  CHECK(EncodeControl(reg)[0] == '{');
  CHECK(DecodeControl(EncodeControl(reg))->partitions.size() == 1);
}

TEST_CASE("Malformed control messages are DataLoss", "[mpi][control]") {
  CHECK(DecodeControl("{not json").status().code() == Code::kDataLoss);
  std::string compact = EncodeControl({"run", 1, 2, Status::OK()});
  CHECK(DecodeControl(compact.substr(0, compact.size() - 1)).status().code() == Code::kDataLoss);
  CHECK(DecodeControl(compact + "x").status().code() == Code::kDataLoss);
  compact[1] = 99;  // no such type
  CHECK(DecodeControl(compact).status().code() == Code::kDataLoss);
  // A stats record with a missing field.
  auto bad = DecodeControl(R"({"type": "done", "id": 0, "step_id": 1,
      "status": {"code": 0, "message": ""}, "stats": [["n", "Op"]]})");
  CHECK(bad.status().code() == Code::kDataLoss);
}

}  // namespace
}  // namespace fb::mpi
