# Compiles through ccache when it is installed. base_dir is the source root, so
# the compiler lines ccache hashes hold paths relative to the build directory:
# a second checkout or worktree of the same commit reuses every object, and so
# does a fresh clone in CI on a machine that built before. Debug info then names
# the checkout that compiled first; that is the price of the shared hits.
option(TRAINPKG_CCACHE "Compile through ccache when it is found" ON)
find_program(TRAINPKG_CCACHE_PROGRAM ccache)
if(TRAINPKG_CCACHE AND TRAINPKG_CCACHE_PROGRAM)
  set(_trainpkg_launcher
      "${CMAKE_COMMAND}" -E env "CCACHE_BASEDIR=${CMAKE_SOURCE_DIR}" CCACHE_NOHASHDIR=1
      "${TRAINPKG_CCACHE_PROGRAM}")
  set(CMAKE_CXX_COMPILER_LAUNCHER ${_trainpkg_launcher})
  set(CMAKE_C_COMPILER_LAUNCHER ${_trainpkg_launcher})
  set(CMAKE_CUDA_COMPILER_LAUNCHER ${_trainpkg_launcher})
  message(STATUS "Compiling through ${TRAINPKG_CCACHE_PROGRAM}")
endif()
