# Targets. Sources are globbed per module so that adding an op, kernel or test is adding a file.
# Registries use static initializers, so modules are OBJECT libraries (the linker keeps them).

function(fb_glob out)
  file(GLOB_RECURSE files CONFIGURE_DEPENDS ${ARGN})
  set(${out} ${files} PARENT_SCOPE)
endfunction()

# --- engine: framework, graph, ops, runtime, autodiff, client, placement, partition, passes, trace
fb_glob(ENGINE_SRCS ${PROJECT_SOURCE_DIR}/engine/*.cc)
add_library(fb_engine OBJECT ${ENGINE_SRCS})
target_include_directories(fb_engine PUBLIC ${PROJECT_SOURCE_DIR})
# ${CMAKE_DL_LIBS}: dlopen of the GPU module (engine/framework/device_plugin.cc).
target_link_libraries(fb_engine PUBLIC Eigen3::Eigen nlohmann_json::nlohmann_json fmt::fmt
                      spdlog::spdlog ZLIB::ZLIB Threads::Threads ${CMAKE_DL_LIBS}
                      PkgConfig::OPENBLAS ${HDF5_C_LIBRARIES})
target_include_directories(fb_engine PUBLIC ${HDF5_C_INCLUDE_DIRS})
if(TCMALLOC_FOUND)
  target_link_libraries(fb_engine PUBLIC PkgConfig::TCMALLOC)
endif()

# --- CPU kernels
fb_glob(CPU_KERNEL_SRCS ${PROJECT_SOURCE_DIR}/kernels/cpu/*.cc)
add_library(fb_kernels_cpu OBJECT ${CPU_KERNEL_SRCS})
target_link_libraries(fb_kernels_cpu PUBLIC fb_engine)
# oneDNN's sgemm under the convolutions (kernels/cpu/conv_gemm.h), when installed.
if(DNNL_FOUND)
  target_compile_definitions(fb_kernels_cpu PRIVATE FB_HAVE_DNNL)
  target_include_directories(fb_kernels_cpu PRIVATE ${DNNL_INCLUDE_DIR})
  target_link_libraries(fb_kernels_cpu PUBLIC ${DNNL_LIBRARY} gomp)
endif()

# --- datasets and experiments (model builders)
fb_glob(DATASET_SRCS ${PROJECT_SOURCE_DIR}/datasets/*.cc ${PROJECT_SOURCE_DIR}/experiments/models/*.cc ${PROJECT_SOURCE_DIR}/experiments/training/*.cc)
if(DATASET_SRCS)
  add_library(fb_datasets OBJECT ${DATASET_SRCS})
  target_link_libraries(fb_datasets PUBLIC fb_engine)
  set(FB_DATASETS fb_datasets)
endif()

# Everything a flowbench program links (more modules add themselves to FB_ALL_LIBS below).
set(FB_ALL_LIBS fb_engine fb_kernels_cpu ${FB_DATASETS})

foreach(extra IN ITEMS cuda mpi sim sweep osdi2016)
  if(EXISTS ${PROJECT_SOURCE_DIR}/cmake/${extra}.cmake)
    include(${PROJECT_SOURCE_DIR}/cmake/${extra}.cmake)
  endif()
endforeach()

# --- the flowbench command line
fb_glob(APP_SRCS ${PROJECT_SOURCE_DIR}/apps/*.cc)
add_executable(flowbench ${APP_SRCS})
target_link_libraries(flowbench PRIVATE ${FB_ALL_LIBS} CLI11::CLI11)

# --- examples
fb_glob(EXAMPLE_SRCS ${PROJECT_SOURCE_DIR}/examples/*.cc)
foreach(src ${EXAMPLE_SRCS})
  get_filename_component(name ${src} NAME_WE)
  add_executable(${name} ${src})
  target_link_libraries(${name} PRIVATE ${FB_ALL_LIBS})
  set(FB_EXAMPLES ${FB_EXAMPLES} ${name})
endforeach()

# --- tests
enable_testing()
include(${PROJECT_SOURCE_DIR}/cmake/FlowbenchTests.cmake)

# --- benchmarks
if(FLOWBENCH_BENCHMARKS)
  find_package(benchmark REQUIRED)
  # Top level only: benchmarks/mpi/ and GPU benchmarks build into their own executables.
  file(GLOB BENCH_SRCS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/benchmarks/*_bench.cc)
  if(BENCH_SRCS)
    add_executable(flowbench-bench ${BENCH_SRCS})
    target_link_libraries(flowbench-bench PRIVATE ${FB_ALL_LIBS} benchmark::benchmark_main)
  endif()
endif()
