# `flowbench sweep` (sweep/): experiment grids from a YAML spec, each run in its own process, a
# journal and an HDF5 results table (docs/sweeps.md). yaml-cpp from Debian (libyaml-cpp-dev)
# ships a CMake config with the imported target yaml-cpp.
find_package(yaml-cpp REQUIRED)

# The build's commit (sweep/build_commit.h), refreshed at every build; the header changes, and
# build_commit.cc recompiles, only when HEAD (or its -dirty state) does.
set(FB_GENERATED_DIR ${PROJECT_BINARY_DIR}/generated)
add_custom_target(fb_git_revision
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
          -DOUT=${FB_GENERATED_DIR}/fb_git_revision.h -P ${PROJECT_SOURCE_DIR}/cmake/git_revision.cmake
  BYPRODUCTS ${FB_GENERATED_DIR}/fb_git_revision.h
  COMMENT "Recording the git revision")

file(GLOB_RECURSE SWEEP_SRCS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/sweep/*.cc)
add_library(fb_sweep OBJECT ${SWEEP_SRCS})
target_link_libraries(fb_sweep PUBLIC fb_engine yaml-cpp)
target_include_directories(fb_sweep PRIVATE ${FB_GENERATED_DIR})
add_dependencies(fb_sweep fb_git_revision)
list(APPEND FB_ALL_LIBS fb_sweep)
