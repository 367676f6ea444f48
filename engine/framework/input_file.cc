#include "engine/framework/input_file.h"

#include <filesystem>

#include "engine/framework/echo_input.h"

namespace fb {

Status CheckInputFile(const std::string& path, const std::string& what) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status))
    return NotFound(what, " '", EchoInput(path, 512), "' does not exist");
  if (std::filesystem::is_directory(status))
    return InvalidArgument(what, " '", EchoInput(path, 512), "' is a directory, expected a file");
  return Status::OK();
}

}  // namespace fb
