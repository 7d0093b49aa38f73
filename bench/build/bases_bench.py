#!/usr/bin/env python3
"""Framework base bench of issue 17: the debian -> python -> pytorch-cpu chain of
dockerfiles/ built by trainpkg and by buildah in one run, on the same inputs,
then pytorch-cpu pushed by `trainpkg push` and by `skopeo copy`.

  rootfs   dockerfiles/build-bases.sh --rootfs-only: debootstrap --variant=minbase
           bookworm, cleaned, as a tarball (TRAINPKG_BASES_CACHE, default a fresh
           directory: debootstrap runs). Made once, the same input for both tools;
           its time is no tool's work and is reported apart.
  ours     trainpkg import TAR --output oci:L:debian --compression none
             (-c 'ENV LANG=C.UTF-8' -c 'CMD ["bash"]', as build-bases.sh)
           trainpkg build -f python.Dockerfile --build-arg BASE=oci:L:debian
             --compression none --output oci:L:python dockerfiles
           trainpkg build -f pytorch-cpu.Dockerfile --build-arg BASE=oci:L:python
             -t HOST/ours/pytorch-cpu:bookworm dockerfiles  (into the local store)
           with SOURCE_DATE_EPOCH = the archive's Release date, as build-bases.sh.
           Layouts, not a registry, carry the chain, as buildah's store carries
           its chain: no tool pushes before the push row (build-bases.sh instead
           pushes debian and python and builds FROM the registry).
  buildah  buildah --storage-driver vfs --root R --runroot R2 bud --layers
             --isolation I (default oci: runc with a private network, as trainpkg's
             RUN has: runc + slirp4netns)
           of `FROM scratch` + `ADD rootfs.tar /` + the same ENV and CMD (the
           Dockerfile form of an import: one layer, the tarball's files), then
           python.Dockerfile and pytorch-cpu.Dockerfile with
           --build-arg BASE=localhost/bench/<previous>:bookworm.
  cold     an empty TRAINPKG_HOME and layout directory / an empty buildah root.
  cached   the same commands again right after, caches kept (trainpkg's layer
           cache; buildah --layers).
  push     pytorch-cpu from each tool's store into an empty repository of a
           docker-registry started here on 127.0.0.1 (plain HTTP, a fresh one per
           round, started before the builds; no build talks to it):
           `trainpkg push HOST/ours/pytorch-cpu:bookworm`
           (reads its store's uncompressed layers, gzip level 6) against
           `skopeo copy containers-storage:[vfs@R+R2]localhost/bench/pytorch-cpu:bookworm
           docker://HOST/buildah/...` (reads buildah's vfs store, gzip at
           containers/image's default); each compresses all three layers.
  sizes    from each pushed manifest: the layers' compressed sizes summed, and
           the same blobs decompressed (the unpacked layer tars) summed.

`--rounds N` repeats the cold + cached + push sequence with fresh stores, the
tool going first alternating per round (the Debian mirror and page cache then
favour neither). Wall seconds per step, and CPU seconds (user + system of the
waited-for processes, RUSAGE_CHILDREN). Prints a table (ours / buildah) and
writes --json. Needs root, debootstrap, buildah, skopeo, docker-registry, and
the network to the archive the machine's apt sources name.
Usage: bases_bench.py --trainpkg build/bin/trainpkg [--rounds 1] [--json out.json]
                      [--workdir DIR] [--bases-cache DIR] [--isolation oci|chroot]
"""
import argparse
import json
import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
DOCKERFILES = os.path.normpath(os.path.join(HERE, "..", "..", "dockerfiles"))
SUITE = "bookworm"
STEPS = ("debian", "python", "pytorch-cpu")
IMPORT_DOCKERFILE = 'FROM scratch\nADD rootfs.tar /\nENV LANG=C.UTF-8\nCMD ["bash"]\n'


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Registry:
    """A docker-registry on 127.0.0.1 with a free port, plain HTTP."""

    def __init__(self, scratch):
        os.makedirs(scratch)
        self.host = f"127.0.0.1:{free_port()}"
        config = os.path.join(scratch, "registry.yml")
        with open(config, "w") as f:
            f.write(f"""version: 0.1
log: {{level: error}}
storage:
  filesystem: {{rootdirectory: {scratch}/data}}
http:
  addr: {self.host}
  secret: bench
""")
        self.log = open(os.path.join(scratch, "registry.log"), "w")
        self.proc = subprocess.Popen(["docker-registry", "serve", config],
                                     stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                urllib.request.urlopen(f"http://{self.host}/v2/", timeout=1)
                return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("docker-registry did not start")

    def stop(self):
        self.proc.terminate()
        self.proc.wait(10)
        self.log.close()


def timed(argv, log, env=None):
    """Runs argv with its output in `log`; returns (wall s, CPU s)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    with open(log, "w") as out:
        result = subprocess.run(argv, env=env, stdout=out, stderr=subprocess.STDOUT)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        with open(log, errors="replace") as f:
            tail = f.read()[-3000:]
        raise RuntimeError(f"{' '.join(argv)} failed ({result.returncode}), {log}:\n{tail}")
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def make_rootfs(cache, logs):
    env = dict(os.environ, TRAINPKG_BASES_CACHE=cache)
    log = os.path.join(logs, "rootfs.log")
    wall, _ = timed(["bash", os.path.join(DOCKERFILES, "build-bases.sh"), "--rootfs-only"], log, env)
    fields = {}
    with open(log) as f:
        for line in f:
            key, _, value = line.partition(": ")
            fields[key] = value.strip()
    return fields["rootfs"], fields["source-date-epoch"], wall


class Ours:
    name = "ours"

    def __init__(self, trainpkg, work, tarball, epoch, host):
        self.trainpkg, self.tarball = trainpkg, tarball
        self.home = os.path.join(work, "home")
        self.layout = os.path.join(work, "layout")
        self.env = dict(os.environ, TRAINPKG_HOME=self.home, SOURCE_DATE_EPOCH=epoch)
        # `trainpkg push REF` pushes a stored image to REF's own registry, so
        # the store tag names the bench's registry (started before the builds).
        self.ref = f"{host}/ours/pytorch-cpu:{SUITE}"

    def steps(self):
        t, layout = self.trainpkg, self.layout
        return {
            "debian": [t, "import", "-q", self.tarball, "--output", f"oci:{layout}:debian",
                       "--compression", "none", "-c", "ENV LANG=C.UTF-8", "-c", 'CMD ["bash"]'],
            "python": [t, "build", "-q", "-f", os.path.join(DOCKERFILES, "python.Dockerfile"),
                       "--build-arg", f"BASE=oci:{layout}:debian", "--compression", "none",
                       "--output", f"oci:{layout}:python", DOCKERFILES],
            "pytorch-cpu": [t, "build", "-q", "-f",
                            os.path.join(DOCKERFILES, "pytorch-cpu.Dockerfile"),
                            "--build-arg", f"BASE=oci:{layout}:python", "-t", self.ref, DOCKERFILES],
        }

    def push(self, host):
        return [self.trainpkg, "push", self.ref]

    def clean(self):
        shutil.rmtree(self.home, ignore_errors=True)
        shutil.rmtree(self.layout, ignore_errors=True)


class Buildah:
    name = "buildah"

    def __init__(self, work, tarball, isolation):
        self.root = os.path.join(work, "buildah-root")
        self.runroot = os.path.join(work, "buildah-run")
        self.isolation = isolation
        # The import's context: the tarball alone (a hard link: same bytes).
        self.ctx = os.path.join(work, "import-ctx")
        os.makedirs(self.ctx, exist_ok=True)
        target = os.path.join(self.ctx, "rootfs.tar")
        if not os.path.exists(target):
            try:
                os.link(tarball, target)
            except OSError:
                shutil.copyfile(tarball, target)
        self.import_dockerfile = os.path.join(work, "import.Dockerfile")
        with open(self.import_dockerfile, "w") as f:
            f.write(IMPORT_DOCKERFILE)
        self.env = None

    def buildah(self):
        return ["buildah", "--root", self.root, "--runroot", self.runroot, "--storage-driver", "vfs"]

    def bud(self, dockerfile, tag, ctx, base=None):
        args = [*self.buildah(), "bud", "--layers", "--isolation", self.isolation, "-q",
                "-f", dockerfile, "-t", f"localhost/bench/{tag}:{SUITE}"]
        if base:
            args += ["--build-arg", f"BASE=localhost/bench/{base}:{SUITE}"]
        return args + [ctx]

    def steps(self):
        return {
            "debian": self.bud(self.import_dockerfile, "debian", self.ctx),
            "python": self.bud(os.path.join(DOCKERFILES, "python.Dockerfile"), "python",
                               DOCKERFILES, "debian"),
            "pytorch-cpu": self.bud(os.path.join(DOCKERFILES, "pytorch-cpu.Dockerfile"),
                                    "pytorch-cpu", DOCKERFILES, "python"),
        }

    def push(self, host):
        src = f"containers-storage:[vfs@{self.root}+{self.runroot}]localhost/bench/pytorch-cpu:{SUITE}"
        return ["skopeo", "copy", "--quiet", "--dest-tls-verify=false", src,
                f"docker://{host}/buildah/pytorch-cpu:{SUITE}"]

    def clean(self):
        subprocess.run([*self.buildah(), "rm", "-a"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        subprocess.run([*self.buildah(), "rmi", "-a", "-f"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        shutil.rmtree(self.root, ignore_errors=True)
        shutil.rmtree(self.runroot, ignore_errors=True)


def image_sizes(host, repo):
    """(compressed layers summed, decompressed layers summed, layer count) of
    HOST/REPO:SUITE as the registry serves it."""
    accept = ("application/vnd.oci.image.manifest.v1+json,"
              "application/vnd.docker.distribution.manifest.v2+json")
    req = urllib.request.Request(f"http://{host}/v2/{repo}/manifests/{SUITE}",
                                 headers={"Accept": accept})
    with urllib.request.urlopen(req) as r:
        manifest = json.load(r)
    compressed = unpacked = 0
    for layer in manifest["layers"]:
        compressed += layer["size"]
        # A gzip blob may be several members one after the other (parallel
        # compressors write them): each member gets a fresh decompressor.
        d = zlib.decompressobj(wbits=47)  # gzip or zlib, auto-detected
        with urllib.request.urlopen(f"http://{host}/v2/{repo}/blobs/{layer['digest']}") as r:
            while data := r.read(1 << 20):
                while data:
                    unpacked += len(d.decompress(data, 1 << 24))
                    if d.eof:
                        data = d.unused_data
                        d = zlib.decompressobj(wbits=47)
                    else:
                        data = d.unconsumed_tail
    return compressed, unpacked, len(manifest["layers"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trainpkg", required=True)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--json", default="")
    parser.add_argument("--workdir", default="", help="scratch space, a few GB (default: a temp dir)")
    parser.add_argument("--bases-cache", default="",
                        help="TRAINPKG_BASES_CACHE for the rootfs (default: a fresh one, so "
                             "debootstrap runs)")
    parser.add_argument("--isolation", choices=["oci", "chroot"], default="oci",
                        help="buildah bud --isolation")
    parser.add_argument("--keep", action="store_true", help="keep the workdir (logs, stores)")
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("bases bench: needs root (debootstrap; RUN under runc)", file=sys.stderr)
        return 2
    for tool in ("buildah", "skopeo", "docker-registry"):
        if not shutil.which(tool):
            print(f"bases bench: {tool} is not installed (scripts/install-deps.sh --bench)",
                  file=sys.stderr)
            return 2
    trainpkg = os.path.abspath(args.trainpkg)
    work = tempfile.mkdtemp(prefix="trainpkg-bases-bench-", dir=args.workdir or None)
    logs = os.path.join(work, "logs")
    os.makedirs(logs)
    print(f"bases bench: work in {work}", flush=True)
    loads = [os.getloadavg()[0]]
    # results[round][tool]["cold"|"cached"][step] = (wall, cpu); ["push"] = (wall, cpu)
    rounds = []
    sizes = {}
    rootfs = {}
    registry = None
    try:
        cache = args.bases_cache or os.path.join(work, "bases-cache")
        print("rootfs: build-bases.sh --rootfs-only", flush=True)
        tarball, epoch, seconds = make_rootfs(cache, logs)
        rootfs = {"tarball": tarball, "bytes": os.path.getsize(tarball), "seconds": seconds,
                  "source_date_epoch": epoch, "cache_given": bool(args.bases_cache)}
        print(f"rootfs: {tarball} ({rootfs['bytes'] / 1e6:.1f} MB) in {seconds:.1f} s", flush=True)
        for r in range(args.rounds):
            rdir = os.path.join(work, f"round{r}")
            os.makedirs(rdir)
            registry = Registry(os.path.join(rdir, "registry"))
            tools = [Ours(trainpkg, rdir, tarball, epoch, registry.host),
                     Buildah(rdir, tarball, args.isolation)]
            if r % 2:
                tools.reverse()
            result = {t.name: {} for t in tools}
            result["order"] = [t.name for t in tools]
            for phase in ("cold", "cached"):
                for tool in tools:
                    result[tool.name][phase] = {}
                    for step, argv in tool.steps().items():
                        os.sync()
                        log = os.path.join(logs, f"r{r}-{tool.name}-{phase}-{step}.log")
                        wall, cpu = timed(argv, log, tool.env)
                        result[tool.name][phase][step] = (wall, cpu)
                        loads.append(os.getloadavg()[0])
                        print(f"round {r} {phase:<6} {tool.name:<7} {step:<11} {wall:8.1f} s "
                              f"(cpu {cpu:.1f} s, load {loads[-1]:.1f})", flush=True)
            for tool in tools:
                os.sync()
                log = os.path.join(logs, f"r{r}-{tool.name}-push.log")
                result[tool.name]["push"] = timed(tool.push(registry.host), log, tool.env)
                loads.append(os.getloadavg()[0])
                print(f"round {r} push   {tool.name:<7} {result[tool.name]['push'][0]:20.1f} s",
                      flush=True)
            for tool, repo in (("ours", "ours/pytorch-cpu"), ("buildah", "buildah/pytorch-cpu")):
                sizes[tool] = image_sizes(registry.host, repo)
            registry.stop()
            registry = None
            for tool in tools:
                tool.clean()
            rounds.append(result)
    finally:
        if registry is not None:
            registry.stop()
        if args.keep:
            print(f"bases bench: kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)

    def med(tool, phase, step, i=0):
        return statistics.median(r[tool][phase][step][i] for r in rounds)

    def total(tool, phase, i=0):
        return statistics.median(sum(r[tool][phase][s][i] for s in STEPS) for r in rounds)

    def push(tool, i=0):
        return statistics.median(r[tool]["push"][i] for r in rounds)

    print(f"\nframework bases, {args.rounds} round(s) (medians), buildah --isolation "
          f"{args.isolation}, vfs; 1-minute load {min(loads):.1f}-{max(loads):.1f} "
          f"({os.cpu_count()} cores)")
    print(f"rootfs (debootstrap + cleaning, shared input{', cached' if args.bases_cache else ''}): "
          f"{rootfs['seconds']:.1f} s, {rootfs['bytes'] / 1e6:.1f} MB")
    print(f"{'step':<22} {'ours s':>9} {'buildah s':>10} {'ours/buildah':>13} "
          f"{'ours cpu':>9} {'buildah cpu':>12}")
    rows = []
    for phase in ("cold", "cached"):
        for step in STEPS:
            rows.append((f"{phase} {step}", med("ours", phase, step), med("buildah", phase, step),
                         med("ours", phase, step, 1), med("buildah", phase, step, 1)))
        rows.append((f"{phase} total", total("ours", phase), total("buildah", phase),
                     total("ours", phase, 1), total("buildah", phase, 1)))
    rows.append(("push pytorch-cpu", push("ours"), push("buildah"), push("ours", 1),
                 push("buildah", 1)))
    for name, ours_s, peer_s, ours_cpu, peer_cpu in rows:
        print(f"{name:<22} {ours_s:>9.2f} {peer_s:>10.2f} {ours_s / peer_s:>13.3f} "
              f"{ours_cpu:>9.2f} {peer_cpu:>12.2f}")
    for tool, (compressed, unpacked, layers) in sizes.items():
        print(f"pytorch-cpu by {tool}: {layers} layers, {compressed / 1e6:.1f} MB compressed, "
              f"{unpacked / 1e6:.1f} MB unpacked")
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"rounds": rounds, "rootfs": rootfs, "isolation": args.isolation,
                       "sizes": {t: {"compressed": c, "unpacked": u, "layers": n}
                                 for t, (c, u, n) in sizes.items()},
                       "table": [{"row": n, "ours_s": a, "buildah_s": b, "ratio": a / b,
                                  "ours_cpu_s": c, "buildah_cpu_s": d}
                                 for n, a, b, c, d in rows],
                       "load_average": loads}, out, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
