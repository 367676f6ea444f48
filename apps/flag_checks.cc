#include "apps/flag_checks.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/passes/graph_pass.h"
#include "experiments/models/models.h"

namespace fb::apps {

CLI::Validator FiniteRange(double lo, double hi) {
  auto check = [lo, hi](std::string& text) -> std::string {
    const char* begin = text.c_str();
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(begin, &end);
    if (text.empty() || end != begin + text.size())
      return fmt::format("must be a number in [{}, {}], got '{}'", lo, hi, text);
    if (!std::isfinite(v) || errno == ERANGE)
      return fmt::format("must be a finite number in [{}, {}], got '{}'", lo, hi, text);
    if (v < lo || v > hi) return fmt::format("must be in [{}, {}], got '{}'", lo, hi, text);
    return "";
  };
  return CLI::Validator(check, fmt::format("in [{}, {}]", lo, hi), kNumberCheckName);
}

CLI::Validator IntRange(int64_t lo, int64_t hi) {
  auto check = [lo, hi](std::string& text) -> std::string {
    const char* begin = text.c_str();
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(begin, &end, 10);
    if (text.empty() || end != begin + text.size() || errno == ERANGE || v < lo || v > hi)
      return fmt::format("must be an integer in [{}, {}], got '{}'", lo, hi, text);
    return "";
  };
  return CLI::Validator(check, fmt::format("integer in [{}, {}]", lo, hi), kNumberCheckName);
}

CLI::Validator DevicesCheck() {
  return CLI::Validator(
      [](std::string& spec) -> std::string {
        const size_t colon = spec.find(':');
        std::string type = colon == std::string::npos ? "" : spec.substr(0, colon);
        std::string count = colon == std::string::npos ? "" : spec.substr(colon + 1);
        for (char& c : type) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        const int64_t max = type == "gpu" ? kMaxGpus : kMaxThreads;
        if ((type == "cpu" || type == "gpu") && IntRange(1, max)(count).empty()) return "";
        return fmt::format("must be cpu:N with N in [1, {}] or gpu:N with N in [1, {}], got '{}'",
                           kMaxThreads, kMaxGpus, spec);
      },
      "cpu:N|gpu:N");
}

CLI::Validator GraphPassCheck() {
  return CLI::Validator(
      [](std::string& name) -> std::string {
        const std::vector<std::string> known = GraphPassRegistry::Global()->Names();
        if (std::find(known.begin(), known.end(), name) != known.end()) return "";
        return fmt::format("unknown graph pass '{}' (registered: {})", name,
                           fmt::join(known, ", "));
      },
      "PASS[,PASS...]");
}

CLI::Validator ModelCheck() {
  return CLI::Validator(
      [](std::string& name) -> std::string {
        auto defaults = experiments::LookupDefaults(name);
        return defaults.ok() ? "" : defaults.status().message();
      },
      "MODEL");
}

CLI::Validator OutputFileCheck() {
  return CLI::Validator(
      [](std::string& path) -> std::string {
        namespace fs = std::filesystem;
        std::error_code ec;
        if (path.empty()) return "must name a file to write, got ''";
        if (fs::is_directory(path, ec))
          return fmt::format("must name a file to write, got the directory '{}'", path);
        fs::path dir = fs::path(path).parent_path();
        while (!dir.empty() && !fs::exists(dir, ec)) dir = dir.parent_path();
        if (dir.empty()) dir = ".";
        if (!fs::is_directory(dir, ec))
          return fmt::format("cannot write '{}': '{}' is not a directory", path, dir.string());
        if (access(dir.c_str(), W_OK) != 0)
          return fmt::format("cannot write '{}': directory '{}' is not writable", path,
                             dir.string());
        return "";
      },
      "FILE");
}

std::string UncheckedNumericFlag(CLI::App* app) {
  for (CLI::Option* opt : app->get_options()) {
    const std::string type = opt->get_type_name();
    const std::string base = type.substr(0, type.find(':'));
    if (base != "FLOAT" && base != "INT" && base != "UINT") continue;
    try {
      opt->get_validator(kNumberCheckName);
    } catch (const CLI::OptionNotFound&) {
      return app->get_name() + " " + opt->get_name();
    }
  }
  for (CLI::App* sub : app->get_subcommands([](CLI::App*) { return true; })) {
    std::string bad = UncheckedNumericFlag(sub);
    if (!bad.empty()) return bad;
  }
  return "";
}

}  // namespace fb::apps
