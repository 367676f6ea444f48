# The SimGrid simulator (sim/): S4U actors replaying placed, partitioned graphs. SimGrid 3.32 from
# Debian (libsimgrid-dev) ships a pkg-config file but no CMake config.
pkg_check_modules(SIMGRID REQUIRED IMPORTED_TARGET simgrid)
# libxml2 (Debian libxml2-dev) checks platform files before SimGrid reads them
# (sim/platform_validation.h).
find_package(LibXml2 REQUIRED)

file(GLOB_RECURSE SIM_SRCS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/sim/*.cc)
add_library(fb_sim OBJECT ${SIM_SRCS})
target_link_libraries(fb_sim PUBLIC fb_engine PkgConfig::SIMGRID LibXml2::LibXml2)
target_compile_definitions(fb_sim PRIVATE FB_SIM_PLATFORM_DIR="${PROJECT_SOURCE_DIR}/sim/platforms")
list(APPEND FB_ALL_LIBS fb_sim)
# The GPU tests (cmake/cuda.cmake, configured before this file) profile the GPU for the simulator
# (tests/gpu/profile_recorder_gpu_test.cc).
if(TARGET flowbench_gpu_tests)
  target_link_libraries(flowbench_gpu_tests PRIVATE fb_sim)
endif()
