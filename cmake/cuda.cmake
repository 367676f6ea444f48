# The GPU device and its CUDA, cuBLAS, cuDNN and NCCL kernels (kernels/cuda, issue 7), the GPU
# test executable (tests/gpu) and the GPU benchmarks (benchmarks/*_gpubench.cc). On by default when
# nvcc is found; everything builds and links on a machine without a GPU, where the GPU device does
# not register and flowbench_gpu_tests exits 77 (CTest: skipped).
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
target_link_libraries(fb_kernels_cuda PUBLIC fb_engine CUDA::cudart_static CUDA::cublas
                      ${FB_CUDNN_LIBRARY} ${FB_NCCL_LIBRARY})
target_include_directories(fb_kernels_cuda PUBLIC ${FB_CUDNN_INCLUDE})
target_compile_definitions(fb_kernels_cuda PUBLIC FLOWBENCH_CUDA=1)
target_compile_options(fb_kernels_cuda PRIVATE
  $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr -Xcompiler=-Wall>)
list(APPEND FB_ALL_LIBS fb_kernels_cuda)

# GPU tests: their own executable, so the CPU suite never needs a GPU. Exit code 77 means "no GPU".
file(GLOB_RECURSE _fb_gpu_tests CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/gpu/*_test.cc)
add_executable(flowbench_gpu_tests ${PROJECT_SOURCE_DIR}/tests/gpu/gpu_test_main.cc
               ${_fb_gpu_tests})
target_link_libraries(flowbench_gpu_tests PRIVATE ${FB_ALL_LIBS})
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
    target_link_libraries(flowbench-gpubench PRIVATE ${FB_ALL_LIBS} benchmark::benchmark)
  endif()
endif()
