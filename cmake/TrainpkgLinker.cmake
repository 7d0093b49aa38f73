# Links with lld when the compiler can use it: the trainpkg binary is ~260 MB
# with its debug info, and GNU ld spent 12 s of CPU linking it where lld
# spends 4.5 s (docs/adr/2026-11-27-fast-first-build.md).
include(CheckLinkerFlag)
option(TRAINPKG_LLD "Link with lld when it is installed" ON)
if(TRAINPKG_LLD)
  check_linker_flag(CXX "-fuse-ld=lld" TRAINPKG_HAVE_LLD)
  if(TRAINPKG_HAVE_LLD)
    add_link_options("$<$<LINK_LANGUAGE:CXX>:-fuse-ld=lld>")
    message(STATUS "Linking with lld")
  endif()
endif()
