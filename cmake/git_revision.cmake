# Run at every build (cmake -P): writes OUT, a header defining FB_BUILD_GIT_REVISION as the
# source tree's `git rev-parse HEAD` ("-dirty" appended when tracked files differ from HEAD, ""
# without git), rewriting it only when the revision changed so that nothing recompiles otherwise.
# Usage: cmake -DSOURCE_DIR=... -DOUT=.../fb_git_revision.h -P git_revision.cmake
set(rev "")
find_program(GIT git)
if(GIT)
  execute_process(COMMAND ${GIT} -C ${SOURCE_DIR} rev-parse HEAD
                  OUTPUT_VARIABLE rev OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE rc ERROR_QUIET)
  if(NOT rc EQUAL 0)
    set(rev "")
  else()
    execute_process(COMMAND ${GIT} -C ${SOURCE_DIR} diff --quiet HEAD --
                    RESULT_VARIABLE dirty ERROR_QUIET)
    if(NOT dirty EQUAL 0)
      set(rev "${rev}-dirty")
    endif()
  endif()
endif()
set(text "#pragma once\n#define FB_BUILD_GIT_REVISION \"${rev}\"\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE ${OUT} "${text}")
endif()
