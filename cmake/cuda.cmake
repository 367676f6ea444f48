# The GPU device and its CUDA, cuBLAS, cuDNN and NCCL kernels (kernels/cuda, issue 7), the GPU
# test executable (tests/gpu) and the GPU benchmarks (benchmarks/*_gpubench.cc). On by default when
# nvcc is found; everything builds and links on a machine without a GPU, where the GPU device does
# not register and flowbench_gpu_tests exits 77 (CTest: skipped).
#
# kernels/cuda is the module libflowbench_cuda.so (next to the executables), not part of them: a
# program loads it with dlopen the first time a GPU is asked for (engine/framework/device_plugin.h),
# so that CPU-only runs never map libcublasLt, cuDNN and NCCL (about 190 MiB of peak RSS each,
# docs/benchmarks.md "Peak memory"). Its kernels and its GPU DeviceFactory register from its
# static initializers into the registries of the program, whose symbols the module resolves:
# every executable exports them (ENABLE_EXPORTS, -rdynamic). flowbench_gpu_tests and
# flowbench-gpubench link the objects directly instead (then nothing is loaded).
if(NOT DEFINED CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
  set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
endif()
include(CheckLanguage)
check_language(CUDA)
set(_fb_cuda_default OFF)
if(CMAKE_CUDA_COMPILER AND NOT FLOWBENCH_SANITIZE)
  set(_fb_cuda_default ON)
endif()
option(FLOWBENCH_CUDA "Build the GPU device and CUDA kernels" ${_fb_cuda_default})
if(NOT FLOWBENCH_CUDA)
  return()
endif()

if(NOT CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES 80 90)  # A100, H100
endif()
set(CMAKE_CUDA_STANDARD 17)  # the .cu files are C++17; CMake 3.25 knows no CUDA20 for nvcc 13
set(CMAKE_CUDA_STANDARD_REQUIRED ON)
enable_language(CUDA)
if(CCACHE_PROGRAM)
  set(CMAKE_CUDA_COMPILER_LAUNCHER ${CCACHE_PROGRAM})
endif()
find_package(CUDAToolkit REQUIRED)

# The top-level warning flags are for gcc: keep them away from nvcc.
get_directory_property(_fb_opts COMPILE_OPTIONS)
set(_fb_wrapped)
foreach(opt IN LISTS _fb_opts)
  list(APPEND _fb_wrapped "$<$<COMPILE_LANGUAGE:C,CXX>:${opt}>")
endforeach()
set_directory_properties(PROPERTIES COMPILE_OPTIONS "${_fb_wrapped}")

set(_fb_cuda_libdirs ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_LIBRARY_ROOT}/lib)
find_library(FB_CUDNN_LIBRARY cudnn HINTS ${_fb_cuda_libdirs} REQUIRED)
find_library(FB_NCCL_LIBRARY nccl HINTS ${_fb_cuda_libdirs} REQUIRED)
find_path(FB_CUDNN_INCLUDE cudnn.h HINTS ${CUDAToolkit_INCLUDE_DIRS} REQUIRED)

file(GLOB _fb_cuda_srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/kernels/cuda/*.cc
     ${PROJECT_SOURCE_DIR}/kernels/cuda/*.cu)
add_library(fb_kernels_cuda OBJECT ${_fb_cuda_srcs})
set_target_properties(fb_kernels_cuda PROPERTIES POSITION_INDEPENDENT_CODE ON)  # for the module
target_link_libraries(fb_kernels_cuda PUBLIC fb_engine CUDA::cudart_static CUDA::cublas
                      ${FB_CUDNN_LIBRARY} ${FB_NCCL_LIBRARY})
target_include_directories(fb_kernels_cuda PUBLIC ${FB_CUDNN_INCLUDE})
target_compile_definitions(fb_kernels_cuda PUBLIC FLOWBENCH_CUDA=1)
target_compile_options(fb_kernels_cuda PRIVATE
  $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr -Xcompiler=-Wall>)

# The module: the objects of kernels/cuda and the CUDA libraries. fb_engine comes in only as usage
# requirements (an object library linked transitively adds no objects): its symbols are the
# loading program's. Undefined symbols are therefore allowed here and resolved by dlopen.
add_library(flowbench_cuda MODULE)
target_link_libraries(flowbench_cuda PRIVATE fb_kernels_cuda)
set_target_properties(flowbench_cuda PROPERTIES LINKER_LANGUAGE CXX)
# Where engine/framework/device_plugin.cc finds it: next to the executable (same build directory).
set_source_files_properties(${PROJECT_SOURCE_DIR}/engine/framework/device_plugin.cc
  PROPERTIES COMPILE_DEFINITIONS FB_GPU_MODULE_NAME="$<TARGET_FILE_NAME:flowbench_cuda>")

# What every flowbench program gets instead of the kernels: FLOWBENCH_CUDA=1 (tests that ask for
# GPU kernels, which load the module) and the module built before the program.
add_library(fb_gpu_support INTERFACE)
target_compile_definitions(fb_gpu_support INTERFACE FLOWBENCH_CUDA=1)
add_dependencies(fb_gpu_support flowbench_cuda)
list(APPEND FB_ALL_LIBS fb_gpu_support)
# The programs export their symbols to the module (-rdynamic): every executable defined after
# this point (the CLI, tests, examples, benchmarks, MPI and simulator programs).
set(CMAKE_ENABLE_EXPORTS ON)

# GPU tests: their own executable, so the CPU suite never needs a GPU. Exit code 77 means "no GPU".
file(GLOB_RECURSE _fb_gpu_tests CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/gpu/*_test.cc)
add_executable(flowbench_gpu_tests ${PROJECT_SOURCE_DIR}/tests/gpu/gpu_test_main.cc
               ${_fb_gpu_tests})
target_link_libraries(flowbench_gpu_tests PRIVATE ${FB_ALL_LIBS} fb_kernels_cuda)
find_package(Catch2 2 REQUIRED)
target_link_libraries(flowbench_gpu_tests PRIVATE Catch2::Catch2)
enable_testing()
add_test(NAME flowbench_gpu_tests COMMAND flowbench_gpu_tests)
set_tests_properties(flowbench_gpu_tests PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 900)

# GPU benchmarks: SGEMM/HGEMM through flowbench next to cuBLAS called directly.
if(FLOWBENCH_BENCHMARKS)
  find_package(benchmark REQUIRED)
  file(GLOB _fb_gpubench CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/benchmarks/*_gpubench.cc)
  if(_fb_gpubench)
    add_executable(flowbench-gpubench ${_fb_gpubench})
    target_link_libraries(flowbench-gpubench PRIVATE ${FB_ALL_LIBS} fb_kernels_cuda
                          benchmark::benchmark)
  endif()
endif()
