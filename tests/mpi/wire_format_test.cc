#include "mpi/wire_format.h"

#include <catch2/catch.hpp>
#include <cstring>

#include "mpi/recv_buffer_pool.h"

namespace fb::mpi {
namespace {

TEST_CASE("Tensor headers round-trip and malformed ones are rejected with the reason", "[mpi][wire]") {
  TensorHeader h;
  h.step_id = 42;
  h.dtype = static_cast<int32_t>(DataType::kFloat);
  h.payload_tag = 77;
  h.payload_bytes = 2 * 3 * 4;
  h.chunk_bytes = 1 << 20;
  h.dims = {2, 3};
  h.key = "/job:worker/replica:0/task:0/device:CPU:0;/job:ps/replica:0/task:0/device:CPU:0;w:0;0:0";
  std::string bytes = EncodeHeader(h);
  TensorHeader back;
  REQUIRE(DecodeHeader(bytes, &back).ok());
  CHECK(back.step_id == 42);
  CHECK(back.dims == std::vector<int64_t>{2, 3});
  CHECK(back.key == h.key);
  CHECK(back.payload_tag == 77);

  CHECK_THAT(DecodeHeader(bytes.substr(0, 10), &back).message(), Catch::Contains("truncated"));
  CHECK_THAT(DecodeHeader(bytes + "x", &back).message(), Catch::Contains("key length"));
  h.payload_bytes = 5;  // 6 floats need 24 bytes
  CHECK_THAT(DecodeHeader(EncodeHeader(h), &back).message(), Catch::Contains("but 5 payload bytes"));
  h.payload_bytes = 24;
  h.dtype = 999;
  CHECK_THAT(DecodeHeader(EncodeHeader(h), &back).message(), Catch::Contains("unknown dtype 999"));
}

TEST_CASE("Small payloads travel inside the header; a truncated one is DataLoss", "[mpi][wire]") {
  TensorHeader h;
  h.step_id = 7;
  h.dtype = static_cast<int32_t>(DataType::kInt32);
  h.payload_tag = kInlinePayload;
  h.payload_bytes = 8;
  h.dims = {2};
  h.key = "k";
  const int32_t values[2] = {-3, 1 << 30};
  h.inline_payload.assign(reinterpret_cast<const char*>(values), sizeof(values));
  const std::string bytes = EncodeHeader(h);
  TensorHeader back;
  REQUIRE(DecodeHeader(bytes, &back).ok());
  CHECK(back.payload_tag == kInlinePayload);
  CHECK(back.key == "k");
  REQUIRE(back.inline_payload.size() == 8);
  int32_t got[2];
  std::memcpy(got, back.inline_payload.data(), sizeof(got));
  CHECK(got[0] == -3);
  CHECK(got[1] == 1 << 30);
  CHECK_THAT(DecodeHeader(bytes.substr(0, bytes.size() - 1), &back).message(),
             Catch::Contains("key length"));
  // Not inline: nothing may follow the key.
  h.payload_tag = 12;
  CHECK(DecodeHeader(EncodeHeader(h), &back).ok());
  CHECK(back.inline_payload.empty());
}

TEST_CASE("String tensors serialize with length prefixes, truncation is DataLoss", "[mpi][wire]") {
  Tensor t(DataType::kString, TensorShape{3});
  t.data<std::string>()[0] = "";
  t.data<std::string>()[1] = "flow";
  t.data<std::string>()[2] = std::string(1000, 'b');
  std::string bytes = SerializeStrings(t);
  CHECK(bytes.size() == 3 * 8 + 4 + 1000);
  Tensor back(DataType::kString, TensorShape{3});
  REQUIRE(DeserializeStrings(bytes, &back).ok());
  CHECK(back.data<std::string>()[1] == "flow");
  CHECK(back.data<std::string>()[2] == t.data<std::string>()[2]);
  Status s = DeserializeStrings(bytes.substr(0, 18), &back);
  CHECK(s.code() == Code::kDataLoss);
  CHECK_THAT(s.message(), Catch::Contains("element 1"));
}

TEST_CASE("RecvBufferPool reuses large buffers and bounds what it keeps", "[mpi][wire]") {
  RecvBufferPool pool(/*min_cached_bytes=*/1024, /*max_cached_bytes=*/8192);
  void* a = pool.AllocateRaw(64, 4096);
  pool.DeallocateRaw(a, 4096);
  CHECK(pool.cached_bytes() == 4096);
  void* b = pool.AllocateRaw(64, 4096);
  CHECK(b == a);  // reused
  CHECK(pool.hits() == 1);
  void* small = pool.AllocateRaw(64, 100);  // below min_cached_bytes: never kept
  pool.DeallocateRaw(small, 100);
  CHECK(pool.cached_bytes() == 0);
  void* c = pool.AllocateRaw(64, 4096);
  void* d = pool.AllocateRaw(64, 6144);
  pool.DeallocateRaw(b, 4096);
  pool.DeallocateRaw(c, 4096);
  pool.DeallocateRaw(d, 6144);  // over the bound: the oldest idle buffers are released
  CHECK(pool.cached_bytes() <= 8192);
  CHECK(pool.GetStats().bytes_in_use == 0);
}

}  // namespace
}  // namespace fb::mpi
