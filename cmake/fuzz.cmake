# libFuzzer targets of tests/fuzz (docs/reliability.md, "Fuzzing"). Included from CMakeLists.txt
# instead of the rest of the project when FLOWBENCH_FUZZ is ON, so a fuzz build directory
# (scripts/fuzz uses build-fuzz/) holds only these targets: the readers under test and what they
# need are compiled once more with libFuzzer's coverage and comparison hooks
# (-fsanitize=fuzzer-no-link) plus AddressSanitizer and UndefinedBehaviorSanitizer, and each
# target links libFuzzer's main (-fsanitize=fuzzer). No CUDA, MPI, kernels, tests or benchmarks:
# a cold build of this directory is about 6.5 CPU-minutes (clang 14), about 3.5 minutes on 2 cores.
#
#   fuzz_graph_json   GraphDef JSON (engine/graph)        fuzz_npy         .npy (engine/io)
#   fuzz_idx          IDX (datasets/idx_reader)           fuzz_checkpoint  checkpoints (HDF5)
#   fuzz_trace        traces (engine/trace, HDF5)         fuzz_platform    SimGrid platforms (sim/)
#   fuzz              all six                             fuzz_make_seeds  tests/fuzz/corpus
#
# Configure: cmake -S . -B build-fuzz -DFLOWBENCH_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++
#            -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo   (scripts/fuzz does it)

if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "FLOWBENCH_FUZZ needs clang for libFuzzer (Debian: clang libclang-rt-14-dev), "
          "found ${CMAKE_CXX_COMPILER_ID}: configure a separate build directory with "
          "-DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang (scripts/fuzz does)")
endif()
if(FLOWBENCH_SANITIZE)
  message(FATAL_ERROR "FLOWBENCH_FUZZ brings its own sanitizers: leave FLOWBENCH_SANITIZE off")
endif()

# Whatever the build type says: -O1 with line tables (libFuzzer's recommendation: fast, and
# stack traces name lines), assertions on (assert() in nlohmann-json and Eigen's bounds checks
# find more), every UBSan report fatal so that libFuzzer records it as a crash.
string(TOUPPER "${CMAKE_BUILD_TYPE}" fb_fuzz_config)
set(CMAKE_CXX_FLAGS_${fb_fuzz_config} "-O1 -g1")
set(CMAKE_C_FLAGS_${fb_fuzz_config} "-O1 -g1")
set(FB_FUZZ_SANITIZERS -fsanitize=address,undefined -fno-sanitize-recover=all)
add_compile_options(-fsanitize=fuzzer-no-link ${FB_FUZZ_SANITIZERS} -fno-omit-frame-pointer)
add_link_options(${FB_FUZZ_SANITIZERS})

# The readers and what they call, as static libraries so that each target links only the
# objects it uses. Whole folders are globbed (not single files) so that a reader split into
# more files keeps linking; the folders are small.
file(GLOB FB_FUZZ_CORE_SRCS CONFIGURE_DEPENDS
  ${PROJECT_SOURCE_DIR}/engine/framework/*.cc
  ${PROJECT_SOURCE_DIR}/engine/graph/*.cc
  ${PROJECT_SOURCE_DIR}/engine/io/*.cc
  ${PROJECT_SOURCE_DIR}/engine/checkpoint/checkpoint_*.cc
  ${PROJECT_SOURCE_DIR}/engine/trace/*.cc
  ${PROJECT_SOURCE_DIR}/datasets/idx_*.cc)
add_library(fb_fuzz_core STATIC ${FB_FUZZ_CORE_SRCS})
target_include_directories(fb_fuzz_core PUBLIC ${PROJECT_SOURCE_DIR} ${HDF5_C_INCLUDE_DIRS})
target_link_libraries(fb_fuzz_core PUBLIC Eigen3::Eigen nlohmann_json::nlohmann_json fmt::fmt
                      spdlog::spdlog ZLIB::ZLIB Threads::Threads ${HDF5_C_LIBRARIES})

# Op definitions register themselves from static initializers: an OBJECT library, so that the
# linker keeps them all (the GraphDef reader resolves ops and attrs through the registry).
file(GLOB FB_FUZZ_OPS_SRCS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/engine/ops/*.cc)
add_library(fb_fuzz_ops OBJECT ${FB_FUZZ_OPS_SRCS})
target_link_libraries(fb_fuzz_ops PUBLIC fb_fuzz_core)

# SimGrid platforms: the validation (libxml2) and Simulation::LoadPlatform, whose object file
# also holds the rest of the simulator, hence sim/ with placement and partitioning (the static
# library links only the objects the platform target and the seed generator reach).
pkg_check_modules(SIMGRID REQUIRED IMPORTED_TARGET simgrid)
find_package(LibXml2 REQUIRED)
file(GLOB FB_FUZZ_SIM_SRCS CONFIGURE_DEPENDS
  ${PROJECT_SOURCE_DIR}/sim/*.cc
  ${PROJECT_SOURCE_DIR}/engine/placement/*.cc
  ${PROJECT_SOURCE_DIR}/engine/partition/*.cc)
add_library(fb_fuzz_sim STATIC ${FB_FUZZ_SIM_SRCS})
target_link_libraries(fb_fuzz_sim PUBLIC fb_fuzz_core PkgConfig::SIMGRID LibXml2::LibXml2)
target_compile_definitions(fb_fuzz_sim PRIVATE
  FB_SIM_PLATFORM_DIR="${PROJECT_SOURCE_DIR}/sim/platforms")

# One executable per tests/fuzz/<target>_fuzz.cc.
set(FB_FUZZ_TARGETS graph_json npy idx checkpoint trace platform)
foreach(target IN LISTS FB_FUZZ_TARGETS)
  add_executable(fuzz_${target} ${PROJECT_SOURCE_DIR}/tests/fuzz/${target}_fuzz.cc)
  target_link_libraries(fuzz_${target} PRIVATE fb_fuzz_core)
  target_link_options(fuzz_${target} PRIVATE -fsanitize=fuzzer)
endforeach()
target_link_libraries(fuzz_graph_json PRIVATE fb_fuzz_ops)
target_link_libraries(fuzz_platform PRIVATE fb_fuzz_sim)
list(TRANSFORM FB_FUZZ_TARGETS PREPEND fuzz_ OUTPUT_VARIABLE fb_fuzz_executables)
add_custom_target(fuzz DEPENDS ${fb_fuzz_executables})

# The seed corpora's generator (the project's own writers): built on demand only.
add_executable(fuzz_make_seeds EXCLUDE_FROM_ALL ${PROJECT_SOURCE_DIR}/tests/fuzz/make_seeds.cc)
target_link_libraries(fuzz_make_seeds PRIVATE fb_fuzz_ops fb_fuzz_sim)
target_compile_definitions(fuzz_make_seeds PRIVATE FB_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
