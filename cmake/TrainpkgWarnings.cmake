option(TRAINPKG_UNITY_BUILD "Compile each target's sources in batches (unity build)" ON)
set(TRAINPKG_UNITY_BATCH_SIZE 8 CACHE STRING "Sources per unity batch")

# trainpkg_target_defaults(<target>): the project's compile settings for one target.
function(trainpkg_target_defaults target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
      -Wcast-align -Woverloaded-virtual -Wimplicit-fallthrough>)
  if(TRAINPKG_WERROR)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
  endif()
  file(RELATIVE_PATH dir "${CMAKE_SOURCE_DIR}" "${CMAKE_CURRENT_SOURCE_DIR}")
  if(TRAINPKG_UNITY_BUILD AND NOT dir MATCHES "^(tests|bench)(/|$)")
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${TRAINPKG_UNITY_BATCH_SIZE})
  endif()
endfunction()
