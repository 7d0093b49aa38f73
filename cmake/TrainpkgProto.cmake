# trainpkg_proto_library(<target> <proto file under the source root> [GRPC])
# Generates the C++ (and with GRPC, the gRPC service) code of one .proto with
# protoc into <binary dir>/gen, keeping the repository path, so code includes
# "trainer_runtime/<module>/proto/<name>.pb.h". The generated code is compiled
# on its own static library, without the project's warning flags.
function(trainpkg_proto_library target proto)
  cmake_parse_arguments(P "GRPC" "" "" ${ARGN})
  find_package(Protobuf REQUIRED)
  file(RELATIVE_PATH rel ${TRAINPKG_INCLUDE_ROOT} ${proto})
  get_filename_component(rel_dir ${rel} DIRECTORY)
  get_filename_component(name ${rel} NAME_WE)
  set(gen ${CMAKE_CURRENT_BINARY_DIR}/gen)
  set(out ${gen}/${rel_dir}/${name})
  set(srcs ${out}.pb.cc ${out}.pb.h)
  set(grpc_args)
  set(grpc_deps)
  set(libs protobuf::libprotobuf)
  if(P_GRPC)
    find_package(gRPC CONFIG REQUIRED)
    list(APPEND srcs ${out}.grpc.pb.cc ${out}.grpc.pb.h)
    set(grpc_args --grpc_out=${gen} --plugin=protoc-gen-grpc=$<TARGET_FILE:gRPC::grpc_cpp_plugin>)
    set(grpc_deps gRPC::grpc_cpp_plugin)
    set(libs gRPC::grpc++ protobuf::libprotobuf)
  endif()
  add_custom_command(
    OUTPUT ${srcs}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${gen}
    COMMAND ${Protobuf_PROTOC_EXECUTABLE} --proto_path=${TRAINPKG_INCLUDE_ROOT} --cpp_out=${gen}
      ${grpc_args} ${proto}
    DEPENDS ${proto} ${grpc_deps}
    COMMENT "protoc: ${rel}"
    VERBATIM)
  add_library(${target} STATIC ${srcs})
  target_include_directories(${target} SYSTEM PUBLIC ${gen})
  target_link_libraries(${target} PUBLIC ${libs})
  target_compile_options(${target} PRIVATE -w)
endfunction()
