// .npy reading and writing: round trips of every encodable dtype, NumPy's own bytes, and the
// errors for missing, truncated and unsupported files.
#include <cstdio>
#include <fstream>

#include <catch2/catch.hpp>

#include "engine/io/npy.h"
#include "tests/test_util.h"

namespace fb {
namespace {

std::string TempPath(const std::string& name) { return "npy_test_" + name + ".npy"; }

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

TEST_CASE("npy round-trips every dtype with a NumPy encoding", "[io][npy]") {
  std::vector<Tensor> tensors = {
      Tensor::FromVector<float>({1.5f, -2, 3, 4, 5, 6}, {2, 3}),
      Tensor::FromVector<double>({0.25, -1e300}),
      Tensor::FromVector<int8_t>({-128, 127}),
      Tensor::FromVector<int16_t>({-30000, 7}),
      Tensor::FromVector<int32_t>({1, 2, 3}, {3, 1}),
      Tensor::FromVector<int64_t>({int64_t{1} << 40}),
      Tensor::FromVector<uint8_t>({0, 255}),
      Tensor::FromVector<uint16_t>({65535}),
      Tensor::FromVector<uint32_t>({4000000000u}),
      Tensor::FromVector<uint64_t>({~uint64_t{0}}),
      Tensor::FromVector<bool>({true, false, true}),
      Tensor::FromVector<half>({half(1.5f), half(-0.25f)}),
      Tensor::FromVector<complex64>({complex64(1, -1)}),
      Tensor::Scalar<float>(7),
      Tensor(DataType::kFloat, TensorShape{0, 4}),
  };
  for (const Tensor& t : tensors) {
    INFO(t.DebugString());
    std::string path = TempPath("roundtrip");
    REQUIRE(WriteNpy(t, path).ok());
    auto back = ReadNpy(path);
    std::remove(path.c_str());
    REQUIRE(back.ok());
    CHECK(TensorsEqual(*back, t));
  }
}

TEST_CASE("npy reads the bytes NumPy writes", "[io][npy]") {
  // numpy.save(f, numpy.array([[1, 2], [3, 4]], dtype='<i4')) with a version 1.0 header.
  std::string header = "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }";
  header.append(128 - 10 - header.size() - 1, ' ');
  header += '\n';
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
  bytes += static_cast<char>(header.size() & 0xff);
  bytes += static_cast<char>(header.size() >> 8);
  bytes += header;
  for (int32_t v : {1, 2, 3, 4}) bytes.append(reinterpret_cast<const char*>(&v), 4);
  std::string path = TempPath("numpy");
  WriteBytes(path, bytes);
  auto t = ReadNpy(path);
  std::remove(path.c_str());
  REQUIRE(t.ok());
  CHECK(TensorsEqual(*t, Tensor::FromVector<int32_t>({1, 2, 3, 4}, {2, 2})));
}

TEST_CASE("npy errors name the file and the problem", "[io][npy][errors]") {
  auto missing = ReadNpy("/nonexistent/x.npy");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().code() == Code::kNotFound);
  CHECK_THAT(missing.status().message(), Catch::Contains("/nonexistent/x.npy"));

  std::string path = TempPath("bad");
  WriteBytes(path, "PK\x03\x04 not numpy at all");
  auto bad_magic = ReadNpy(path);
  REQUIRE_FALSE(bad_magic.ok());
  CHECK_THAT(bad_magic.status().message(), Catch::Contains(path) && Catch::Contains("magic"));

  REQUIRE(WriteNpy(Tensor::FromVector<float>({1, 2, 3, 4}), path).ok());
  std::string full;
  {
    std::ifstream in(path, std::ios::binary);
    full.assign(std::istreambuf_iterator<char>(in), {});
  }
  WriteBytes(path, full.substr(0, full.size() - 3));
  auto truncated = ReadNpy(path);
  REQUIRE_FALSE(truncated.ok());
  CHECK(truncated.status().code() == Code::kDataLoss);
  CHECK_THAT(truncated.status().message(), Catch::Contains("truncated") && Catch::Contains("16 bytes"));

  std::string fortran = full;
  fortran.replace(fortran.find("False"), 5, "True ");
  WriteBytes(path, fortran);
  auto f = ReadNpy(path);
  REQUIRE_FALSE(f.ok());
  CHECK_THAT(f.status().message(), Catch::Contains("Fortran"));
  std::remove(path.c_str());

  auto no_encoding = WriteNpy(Tensor::FromVector<bfloat16>({bfloat16(1.0f)}), path);
  CHECK(no_encoding.code() == Code::kUnimplemented);
  CHECK_THAT(no_encoding.message(), Catch::Contains("bfloat16"));
}

}  // namespace
}  // namespace fb
