# `cpack -G DEB` in the build directory: one .deb per install component
# (cmake/TrainpkgInstall.cmake) and a -dbgsym package with the command's debug
# information. docs/adr/2026-11-27-install-and-packages.md says why.
set(CPACK_PACKAGE_NAME trainpkg)
set(CPACK_PACKAGE_VENDOR "trainpkg")
set(CPACK_PACKAGE_CONTACT "trainpkg maintainers <trainpkg@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_COMPONENTS_ALL trainpkg libtrainpkg-dev)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# The binaries are not stripped at install: CPack keeps their debug
# information in trainpkg-dbgsym (a .ddeb) and strips them itself.
set(CPACK_DEBIAN_DEBUGINFO_PACKAGE ON)
# Static libraries lose their debug information as dh_strip does it, so the
# -dev package is not half a gigabyte.
set(CPACK_PRE_BUILD_SCRIPTS ${PROJECT_SOURCE_DIR}/cmake/TrainpkgStripStaticLibraries.cmake)

set(CPACK_DEBIAN_TRAINPKG_PACKAGE_NAME trainpkg)
set(CPACK_DEBIAN_TRAINPKG_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_TRAINPKG_DESCRIPTION "Vertex AI training jobs and OCI images without a daemon
trainpkg builds OCI images from Dockerfiles or native binaries without a
daemon, pushes and pulls them, and runs Vertex AI CustomJobs and
hyperparameter tuning jobs locally (processes or runc containers), on
Vertex AI, Kubernetes or Slurm.")
# dpkg-shlibdeps names the libraries' packages; runc and slirp4netns run
# containers and RUN steps, which process-mode jobs do without.
set(CPACK_DEBIAN_TRAINPKG_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_TRAINPKG_PACKAGE_RECOMMENDS "runc, slirp4netns")

set(CPACK_DEBIAN_LIBTRAINPKG-DEV_PACKAGE_NAME libtrainpkg-dev)
set(CPACK_DEBIAN_LIBTRAINPKG-DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_LIBTRAINPKG-DEV_DESCRIPTION "trainpkg C++ SDK and trainer runtime (static libraries)
Headers, static libraries, CMake package (find_package(trainpkg)) and
pkg-config files of the trainpkg SDK (CustomJob, JobClient), registry
client, image packager, job model and trainer runtime (cluster info,
coordination, Gloo collectives, nn, data-parallel training).")
# What trainpkgConfig.cmake finds (COMPONENTS training: gRPC, protobuf, Gloo,
# OpenBLAS, zlib; in a CUDA build also the CUDA toolkit, which Debian does not
# ship), and the headers the installed ones include.
set(CPACK_DEBIAN_LIBTRAINPKG-DEV_PACKAGE_DEPENDS "libabsl-dev, libfmt-dev, nlohmann-json3-dev, \
libyaml-cpp-dev, libcurl4-openssl-dev | libcurl-dev, libssl-dev, libarchive-dev, libdeflate-dev, \
libzstd-dev, libsqlite3-dev, pkg-config, libgrpc++-dev, libprotobuf-dev, libgloo-dev, libopenblas-dev, zlib1g-dev")

include(CPack)
