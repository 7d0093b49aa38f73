# CUDA is optional. When nvcc is found (on PATH, through CUDACXX, or in the
# standard /usr/local/cuda location) the CUDA sources are compiled and
# TRAINPKG_HAVE_CUDA is defined; otherwise everything builds without them.
option(TRAINPKG_ENABLE_CUDA "Compile CUDA sources when nvcc is available" ON)
set(TRAINPKG_HAVE_CUDA OFF)
if(TRAINPKG_ENABLE_CUDA)
  if(NOT DEFINED CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX}
     AND EXISTS "/usr/local/cuda/bin/nvcc")
    set(CMAKE_CUDA_COMPILER "/usr/local/cuda/bin/nvcc")
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      # Ampere and Hopper: the data-centre GPUs Vertex offers today.
      set(CMAKE_CUDA_ARCHITECTURES "80;90")
    endif()
    enable_language(CUDA)
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit REQUIRED)
    set(TRAINPKG_HAVE_CUDA ON)
    message(STATUS "trainpkg: CUDA ${CUDAToolkit_VERSION} found; CUDA sources will be compiled")
  else()
    message(STATUS "trainpkg: nvcc not found; building without CUDA")
  endif()
endif()
