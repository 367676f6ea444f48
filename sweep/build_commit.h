#pragma once
// The commit this binary was built from, for the provenance of results and the keys of resumed
// sweeps.
#include <string>

namespace fb::sweep {

// FLOWBENCH_GIT_REVISION from the environment when set (as the trace writer reads it), else the
// revision the build recorded (cmake/git_revision.cmake runs `git rev-parse HEAD` at every build
// and appends "-dirty" when tracked files differ from it), else "unknown" (no git, or a source
// tree outside a repository).
std::string BuildCommit();

}  // namespace fb::sweep
