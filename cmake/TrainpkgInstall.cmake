# What `cmake --install` lays out, in two components (CPack makes one .deb of
# each, cmake/TrainpkgPackage.cmake):
#   trainpkg         bin/trainpkg, bin/trainpkg-slurm-task, the man pages and
#                    bash/zsh completions trainpkg-docs wrote into <build>/share
#   libtrainpkg-dev  the static libraries as trainpkg:: targets, their headers
#                    under include/trainpkg/, trainpkgConfig.cmake and .pc files
# docs/adr/2026-11-27-install-and-packages.md says why it looks like this.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# trainpkg::packager: the daemonless image builder and the native bundler,
# with the Dockerfile parser, layer writer, unpacker and RUN they use.
add_library(trainpkg_packager INTERFACE)
target_link_libraries(trainpkg_packager INTERFACE trainpkg_builder trainpkg_bundle
  trainpkg_dockerfile trainpkg_layer trainpkg_unpack trainpkg_run)

# trainpkg_install_export(<export set> <library target> <name after trainpkg::> ...)
# Installs the libraries into the export set under their trainpkg:: names.
# The tree's include root is for the build tree only; installed consumers get
# include/ (<trainpkg/sdk/custom_job.h>) and include/trainpkg/ (what the
# installed headers include: "jobspec/custom_job.h"). protoc's output
# directories (cmake/TrainpkgProto.cmake) stay in the build tree: no
# installed header includes generated code.
function(trainpkg_install_export export_set)
  set(pairs ${ARGN})
  set(targets)
  while(pairs)
    list(POP_FRONT pairs target name)
    set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
    foreach(property INTERFACE_INCLUDE_DIRECTORIES INTERFACE_SYSTEM_INCLUDE_DIRECTORIES)
      get_target_property(dirs ${target} ${property})
      if(NOT dirs)
        continue()
      endif()
      get_target_property(sources ${target} SOURCES)
      list(FILTER sources INCLUDE REGEX "\\.pb\\.cc$")
      list(LENGTH dirs count)
      if(NOT count EQUAL 1 OR NOT (dirs STREQUAL TRAINPKG_INCLUDE_ROOT OR sources))
        message(FATAL_ERROR "${target}: interface include directories '${dirs}' are neither the "
          "tree's include root nor protoc's output; say in cmake/TrainpkgInstall.cmake which "
          "ones an installed consumer gets")
      endif()
      set_target_properties(${target} PROPERTIES ${property} "$<BUILD_INTERFACE:${dirs}>")
    endforeach()
    list(APPEND targets ${target})
  endwhile()
  install(TARGETS ${targets} EXPORT ${export_set}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT libtrainpkg-dev
    INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} ${CMAKE_INSTALL_INCLUDEDIR}/trainpkg)
endfunction()

# The public five and everything they link: a static library's private
# dependencies are link dependencies of whoever links it, so they are
# exported too.
trainpkg_install_export(trainpkgTargets
  trainpkg_base base
  trainpkg_jobspec jobspec
  trainpkg_oci oci
  trainpkg_http http
  trainpkg_registry registry
  trainpkg_dockerfile dockerfile
  trainpkg_unpack unpack
  trainpkg_layer layer
  trainpkg_run run
  trainpkg_builder builder
  trainpkg_bundle bundle
  trainpkg_packager packager
  trainpkg_sdk_core sdk_core
  trainpkg_sdk_local sdk_local
  trainpkg_sdk_vertex sdk_vertex
  trainpkg_sdk_k8s sdk_k8s
  trainpkg_sdk_slurm sdk_slurm
  trainpkg_sdk_ssh sdk_ssh
  trainpkg_sdk sdk
  trainpkg_image_builder image_builder
  trainpkg_runtime runtime)

# find_package(trainpkg COMPONENTS training): the distributed-training layers
# of the trainer runtime, with gRPC, protobuf, Gloo, OpenBLAS (and in CUDA
# builds the CUDA runtime and NCCL) as their dependencies.
set(_trainpkg_training
  trainpkg_grpc_status grpc_status
  trainpkg_rpc_auth rpc_auth
  trainpkg_coordination_proto coordination_proto
  trainpkg_coordination coordination
  trainpkg_collectives collectives
  trainpkg_nn nn
  trainpkg_train_proto train_proto
  trainpkg_train train
  trainpkg_data_proto data_proto
  trainpkg_data data
  trainpkg_ps_proto ps_proto
  trainpkg_ps ps
  trainpkg_runtime_gpu runtime_gpu)
if(TRAINPKG_HAVE_CUDA)
  list(APPEND _trainpkg_training trainpkg_collectives_nccl collectives_nccl)
endif()
trainpkg_install_export(trainpkgTrainingTargets ${_trainpkg_training})

# Every header of the exported modules, internal/ included: two public
# headers include internal ones (dockerignore.h, k8s_job_record.h).
set(_trainpkg_header_dirs base http jobspec registry packager sdk trainer_runtime)
foreach(dir IN LISTS _trainpkg_header_dirs)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir}
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/trainpkg COMPONENT libtrainpkg-dev
    FILES_MATCHING PATTERN "*.h"
    # Not exported: the CLI, `trainpkg serve` and hyperparameter tuning.
    # proto/ holds .proto files only (the generated headers are private).
    REGEX "/sdk/(cli|serve|hptune)$" EXCLUDE
    REGEX "/proto$" EXCLUDE)
endforeach()

set(_trainpkg_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/trainpkg)
foreach(export_set trainpkgTargets trainpkgTrainingTargets)
  install(EXPORT ${export_set} NAMESPACE trainpkg:: DESTINATION ${_trainpkg_cmake_dir}
    COMPONENT libtrainpkg-dev)
endforeach()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/trainpkgConfig.cmake.in
  ${PROJECT_BINARY_DIR}/trainpkgConfig.cmake INSTALL_DESTINATION ${_trainpkg_cmake_dir})
# 0.x: a minor version may break the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/trainpkgConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/trainpkgConfig.cmake
  ${PROJECT_BINARY_DIR}/trainpkgConfigVersion.cmake
  DESTINATION ${_trainpkg_cmake_dir} COMPONENT libtrainpkg-dev)

# pkg-config: trainpkg-runtime (what a trainer links) and trainpkg-sdk (what
# submits jobs). Static libraries, so every library of the closure is in
# Libs, in link order, and every third-party module in Requires.
set(_trainpkg_pc_dir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH TRAINPKG_PC_PREFIX_FROM_PCFILEDIR
  /prefix/${_trainpkg_pc_dir} /prefix)  # relocatable: prefix=${pcfiledir}/<this>
set(TRAINPKG_PC_NAME trainpkg-runtime)
set(TRAINPKG_PC_DESCRIPTION "trainpkg trainer runtime: cluster info and output paths")
set(TRAINPKG_PC_LIBS "-ltrainpkg_runtime -ltrainpkg_jobspec -ltrainpkg_base")
set(TRAINPKG_PC_REQUIRES
  "absl_status absl_statusor absl_strings absl_str_format absl_time fmt nlohmann_json yaml-cpp")
configure_file(${PROJECT_SOURCE_DIR}/cmake/trainpkg.pc.in
  ${PROJECT_BINARY_DIR}/trainpkg-runtime.pc @ONLY)
set(TRAINPKG_PC_NAME trainpkg-sdk)
set(TRAINPKG_PC_DESCRIPTION "trainpkg SDK: CustomJob, JobClient, registry client, packager")
set(TRAINPKG_PC_LIBS "-ltrainpkg_image_builder -ltrainpkg_sdk -ltrainpkg_sdk_local \
-ltrainpkg_sdk_vertex -ltrainpkg_sdk_k8s -ltrainpkg_sdk_slurm -ltrainpkg_sdk_ssh -ltrainpkg_sdk_core -ltrainpkg_bundle \
-ltrainpkg_builder -ltrainpkg_run -ltrainpkg_dockerfile -ltrainpkg_layer -ltrainpkg_unpack \
-ltrainpkg_registry -ltrainpkg_http -ltrainpkg_oci -ltrainpkg_jobspec -ltrainpkg_base")
set(TRAINPKG_PC_REQUIRES "${TRAINPKG_PC_REQUIRES} libcurl libcrypto libarchive libdeflate libzstd")
configure_file(${PROJECT_SOURCE_DIR}/cmake/trainpkg.pc.in
  ${PROJECT_BINARY_DIR}/trainpkg-sdk.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/trainpkg-runtime.pc ${PROJECT_BINARY_DIR}/trainpkg-sdk.pc
  DESTINATION ${_trainpkg_pc_dir} COMPONENT libtrainpkg-dev)

# The command, and what trainpkg-docs generated for it (the trainpkg_docs
# target, built by default). Man pages are gzipped as Debian expects.
install(TARGETS trainpkg trainpkg-slurm-task RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  COMPONENT trainpkg)
install(DIRECTORY ${PROJECT_BINARY_DIR}/share/ DESTINATION ${CMAKE_INSTALL_DATADIR}
  COMPONENT trainpkg)
install(CODE "
  file(GLOB _pages \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_MANDIR}/man1/*.1\")
  if(_pages)
    execute_process(COMMAND gzip -9nf \${_pages} COMMAND_ERROR_IS_FATAL ANY)
  endif()" COMPONENT trainpkg)
