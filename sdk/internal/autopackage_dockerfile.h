// The Dockerfile of gcloud's autopackaging (command_lib/ai/docker/build.py,
// read for docs/adr/2026-11-27-autopackaging.md), for the packager: the
// build context is the package directory itself.
//
//   FROM <executor>
//   ARG PIP_BREAK_SYSTEM_PACKAGES=1 ...        (pip settings for RUN only)
//   RUN ["mkdir", "-m", "777", "-p", "/usr/app", "/home"]
//   WORKDIR /usr/app
//   ENV HOME=/home
//   ENV PYTHONDONTWRITEBYTECODE=1
//   COPY ["setup.py", "./setup.py"]        + RUN pip install .       (setup.py in the package)
//   COPY ["requirements.txt", ...]         + RUN pip install -r ...  (requirements.txt in it)
//   COPY ["<extra package>", "./<name>"]   + RUN pip install ./<name> (each extra-packages)
//   RUN pip install --upgrade <requirement>                           (each requirements)
//   COPY ["<extra dir>", "<extra dir>"]                               (each extra-dirs)
//   COPY ["<dir of the main file>", "<same>"]
//   ENTRYPOINT ["python3", "-m", MODULE] | ["python3", SCRIPT] | ["/bin/bash", SCRIPT]
//
// Every pip runs as `python3 -m pip install --no-cache-dir` in exec form.
#ifndef TRAINPKG_SDK_INTERNAL_AUTOPACKAGE_DOCKERFILE_H_
#define TRAINPKG_SDK_INTERNAL_AUTOPACKAGE_DOCKERFILE_H_

#include <string>
#include <vector>

#include "jobspec/worker_pool_flag.h"

namespace trainpkg::sdk::internal {

// What the package directory holds that the Dockerfile depends on.
struct PackageLayout {
  bool has_setup_py = false;          // <package>/setup.py
  bool has_requirements_txt = false;  // <package>/requirements.txt
};

// The package-relative file that runs: SCRIPT, or MODULE with '.' -> '/'
// and ".py" appended (gcloud's rule: trainer.task -> trainer/task.py).
std::string MainFile(const jobspec::Autopackaging& spec);

// The paths, relative to the package, that the Dockerfile copies ("." is
// the whole package).
std::vector<std::string> CopiedPaths(const jobspec::Autopackaging& spec,
                                     const PackageLayout& layout);

// Everything after the FROM line (which the caller prepends), so that it
// can be hashed without the executor's local path.
std::string AutopackageDockerfileBody(const jobspec::Autopackaging& spec,
                                      const PackageLayout& layout);

}  // namespace trainpkg::sdk::internal

#endif  // TRAINPKG_SDK_INTERNAL_AUTOPACKAGE_DOCKERFILE_H_
