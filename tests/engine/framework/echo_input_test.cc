// EchoInput / EchoJson / CapMessage: input quoted in messages stays short and printable.
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "engine/framework/echo_input.h"

namespace fb {
namespace {

TEST_CASE("EchoInput keeps short input and escapes control characters", "[framework][echo]") {
  CHECK(EchoInput("conv1/weights") == "conv1/weights");
  CHECK(EchoInput("a\nb\tc\x01") == "a\\nb\\tc\\x01");
  CHECK(EchoInput("") == "");
}

TEST_CASE("EchoInput keeps the head and tail of long input with its size", "[framework][echo]") {
  std::string big = "HEAD" + std::string(10 << 20, 'x') + "TAIL";
  std::string e = EchoInput(big);
  CHECK(e.size() <= kMaxEchoBytes + 40);
  CHECK_THAT(e, Catch::StartsWith("HEAD") && Catch::EndsWith("TAIL") &&
                    Catch::Contains("(" + std::to_string(big.size()) + " bytes)"));
  // Control characters in a long input are escaped too, and the bound still holds.
  std::string newlines(1000, '\n');
  std::string en = EchoInput(newlines);
  CHECK(en.size() <= kMaxEchoBytes + 40);
  CHECK(en.find('\n') == std::string::npos);
}

TEST_CASE("EchoInput never splits a UTF-8 sequence", "[framework][echo]") {
  std::string snowmen;
  for (int i = 0; i < 200; ++i) snowmen += "\xe2\x98\x83";  // U+2603
  std::string e = EchoInput(snowmen, 50);
  auto head = e.substr(0, e.find("..."));
  auto tail = e.substr(e.rfind("...") + 3);
  CHECK(head.size() % 3 == 0);
  CHECK(tail.size() % 3 == 0);
  CHECK_FALSE(head.empty());
}

TEST_CASE("EchoJson bounds large and deep JSON", "[framework][echo]") {
  CHECK(EchoJson(nlohmann::json::parse(R"({"a": [1, 2]})")) == R"({"a":[1,2]})");
  std::string e = EchoJson(nlohmann::json(std::string(1 << 20, 'q')));
  CHECK(e.size() <= kMaxEchoBytes + 40);
  CHECK_THAT(e, Catch::Contains("bytes)"));
  // 100,000 levels: json's own dump() would recurse that deep.
  nlohmann::json deep = nlohmann::json::array();
  for (int i = 0; i < 100000; ++i) deep = nlohmann::json::array({std::move(deep)});
  std::string d = EchoJson(deep);
  CHECK(d.size() <= kMaxEchoBytes + 40);
  CHECK_THAT(d, Catch::StartsWith("[[[[") && Catch::Contains("[...]"));
  nlohmann::json wide = nlohmann::json::array();
  for (int i = 0; i < 100000; ++i) wide.push_back(i);
  CHECK_THAT(EchoJson(wide), Catch::StartsWith("[0,1,2") && Catch::EndsWith("(truncated)"));
}

TEST_CASE("CapMessage bounds a Status message and keeps its code", "[framework][echo]") {
  Status s = InvalidArgument("node '", std::string(1 << 20, 'n'), "'");
  Status capped = CapMessage(s);
  CHECK(capped.code() == Code::kInvalidArgument);
  CHECK(capped.message().size() <= kMaxMessageBytes + 40);
  CHECK_THAT(capped.message(), Catch::StartsWith("node 'nnn"));
  CHECK(CapMessage(Status::OK()).ok());
  CHECK(CapMessage(NotFound("short")).message() == "short");
}

}  // namespace
}  // namespace fb
