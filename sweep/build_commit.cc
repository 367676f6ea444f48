#include "sweep/build_commit.h"

#include <cstdlib>

#include "fb_git_revision.h"  // generated: #define FB_BUILD_GIT_REVISION "..."

namespace fb::sweep {

std::string BuildCommit() {
  if (const char* rev = std::getenv("FLOWBENCH_GIT_REVISION"); rev && *rev) return rev;
  const std::string built = FB_BUILD_GIT_REVISION;
  return built.empty() ? "unknown" : built;
}

}  // namespace fb::sweep
