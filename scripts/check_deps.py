#!/usr/bin/env python3
"""Checks the one-way dependency rule of docs/ARCHITECTURE (module map).

Every #include of a project header is mapped to the module that owns it, and
must be allowed for the including file's module. Also enforced:
  * `<module>/internal/` headers are private to their module (tests excepted);
  * trainer_runtime/ never includes libcurl, libarchive, http/ or the sdk;
  * samples/ use public headers only;
  * the sdk's backends (sdk/local, sdk/vertex, sdk/k8s, sdk/slurm, sdk/ssh) never include each
    other: what two of them share lives beside the driver (sdk/, sdk/internal/).
Usage: check_deps.py [ROOT]   (default: the repository holding this script)
Exits 1 listing every violation as file:line, 0 when the graph is clean.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent).resolve()

# Module -> modules it may include (besides itself). Longest prefix wins.
ALLOWED = {
    "base": set(),
    "jobspec": {"base"},
    "http": {"base"},
    "registry/oci": {"base"},
    "registry": {"base", "http", "registry/oci"},
    "packager": {"base", "http", "registry/oci", "registry"},
    "sdk": {"base", "http", "jobspec", "registry/oci", "registry", "packager"},
    "sdk/cli": {"base", "http", "jobspec", "registry/oci", "registry", "packager", "sdk"},
    "trainer_runtime": {"base", "jobspec"},
    "samples": {"base", "jobspec", "trainer_runtime", "sdk"},
    "tests": None,  # anything
    "bench": None,  # anything
}
MODULES = sorted(ALLOWED, key=len, reverse=True)

# Third-party headers a module must never include.
FORBIDDEN_SYSTEM = {
    "trainer_runtime": [r"^curl/", r"^archive\.h$", r"^archive_entry\.h$"],
}

# The sdk's backend folders (sdk/backend_driver.h); each may use the sdk's
# shared plumbing but no other backend's folder.
SDK_BACKENDS = ["sdk/local", "sdk/vertex", "sdk/k8s", "sdk/slurm", "sdk/ssh"]

# The sdk's core (the target trainpkg_sdk_core): what the backends build on,
# so it never includes a backend's folder.
SDK_CORE = ["sdk/internal", "sdk/auth"]


def backend_of(rel_path: str):
    for backend in SDK_BACKENDS:
        if rel_path.startswith(backend + "/"):
            return backend
    return None


SOURCE_SUFFIXES = {".h", ".hpp", ".cc", ".cpp", ".cu", ".cuh"}
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def module_of(rel_path: str):
    for module in MODULES:
        if rel_path == module or rel_path.startswith(module + "/"):
            return module
    return None


def check_file(path: pathlib.Path, violations: list):
    rel = path.relative_to(ROOT).as_posix()
    owner = module_of(rel)
    if owner is None:
        return
    allowed = ALLOWED[owner]
    for lineno, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
        match = INCLUDE_RE.match(line)
        if not match:
            continue
        kind, target = match.groups()
        where = f"{rel}:{lineno}"
        for pattern in FORBIDDEN_SYSTEM.get(owner, []):
            if re.search(pattern, target):
                violations.append(f"{where}: {owner}/ must not include <{target}>")
        target_module = module_of(target) if kind == '"' else None
        if target_module is None:
            continue
        if allowed is not None and "/internal/" in target and target_module != owner:
            violations.append(f"{where}: {target} is internal to {target_module}/")
        if owner == "samples" and "/internal/" in target:
            violations.append(f"{where}: samples use public headers only, not {target}")
        backend, target_backend = backend_of(rel), backend_of(target) if kind == '"' else None
        if backend and target_backend and target_backend != backend:
            violations.append(
                f"{where}: {backend}/ may not include {target} ({target_backend}/): backends "
                f"never include each other; share it beside the driver in sdk/ or sdk/internal/")
        if target_backend and any(rel.startswith(core + "/") for core in SDK_CORE):
            violations.append(
                f"{where}: {rel.rsplit('/', 1)[0]}/ is the sdk's core, which the backends build "
                f"on; it may not include {target} ({target_backend}/)")
        if allowed is None or target_module == owner or target_module in allowed:
            continue
        violations.append(
            f"{where}: {owner}/ may not include {target} ({target_module}/); "
            f"allowed: {', '.join(sorted(allowed)) or 'third-party only'}")


def main() -> int:
    violations = []
    checked = 0
    for path in sorted(ROOT.rglob("*")):
        if path.suffix not in SOURCE_SUFFIXES or not path.is_file():
            continue
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("build") or "/." in "/" + rel:
            continue
        check_file(path, violations)
        checked += 1
    if violations:
        print(f"check_deps: {len(violations)} violation(s) of the dependency rule:")
        for v in violations:
            print("  " + v)
        return 1
    print(f"check_deps: {checked} files, include graph follows the dependency rule")
    return 0


if __name__ == "__main__":
    sys.exit(main())
