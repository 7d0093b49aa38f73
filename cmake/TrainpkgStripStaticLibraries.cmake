# CPACK_PRE_BUILD_SCRIPTS (cmake/TrainpkgPackage.cmake): strips the debug
# information from every static library CPack staged, with dh_strip's flags.
file(GLOB_RECURSE _archives "${CPACK_TEMPORARY_INSTALL_DIRECTORY}/*.a")
foreach(_archive IN LISTS _archives)
  execute_process(COMMAND strip --strip-debug --remove-section=.comment --remove-section=.note
    --enable-deterministic-archives "${_archive}" COMMAND_ERROR_IS_FATAL ANY)
endforeach()
