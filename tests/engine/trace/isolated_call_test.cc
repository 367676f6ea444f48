#include "engine/trace/isolated_call.h"

#include <csignal>

#include <catch2/catch.hpp>

namespace fb {
namespace {

IsolatedCallOptions Options(double timeout_s) {
  IsolatedCallOptions o;
  o.path = "x.h5";
  o.what = "reading the trace";
  o.timeout_s = timeout_s;
  return o;
}

TEST_CASE("RunIsolated returns the child's bytes", "[trace]") {
  std::string big(1 << 20, 'a');  // larger than a pipe's buffer
  big[12345] = 'b';
  auto r = RunIsolated([&]() -> StatusOr<std::string> { return big; }, Options(30));
  REQUIRE(r.ok());
  CHECK(*r == big);
}

TEST_CASE("RunIsolated passes the child's error on with its code", "[trace][errors]") {
  auto r = RunIsolated([]() -> StatusOr<std::string> { return InvalidArgument("x.h5: bad"); },
                       Options(30));
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::kInvalidArgument);
  CHECK(r.status().message() == "x.h5: bad");
}

TEST_CASE("RunIsolated turns a crash of the child into DataLoss naming the file",
          "[trace][errors]") {
  auto r = RunIsolated(
      []() -> StatusOr<std::string> {
        std::raise(SIGSEGV);
        return std::string("unreachable");
      },
      Options(30));
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::kDataLoss);
  CHECK_THAT(r.status().message(),
             Catch::StartsWith("x.h5: reading the trace crashed (signal 11") &&
                 Catch::EndsWith("the file is corrupt"));
}

TEST_CASE("RunIsolated kills a child that runs past the deadline", "[trace][errors]") {
  auto r = RunIsolated(
      []() -> StatusOr<std::string> {
        volatile bool forever = true;
        while (forever) {
        }
        return std::string();
      },
      Options(0.5));
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::kDataLoss);
  CHECK_THAT(r.status().message(),
             Catch::StartsWith("x.h5: reading the trace did not finish within 0.5 s"));
}

}  // namespace
}  // namespace fb
