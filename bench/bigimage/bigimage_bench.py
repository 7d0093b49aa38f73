#!/usr/bin/env python3
"""Real-size image benchmark (issue 20): the cold path of a ~1 GB image, each step against its peer.

The image: FROM scratch, busybox (Debian's busybox-static) as /bin, then --layers
COPY layers of real files taken from this machine's /usr/lib (shared libraries,
Python packages: what framework images are made of) adding up to --mb, a RUN
layer that copies part of one of them, and ENTRYPOINT busybox true. Everything
runs on this machine; the registry is Debian's docker-registry on 127.0.0.1 (a
fresh one per run). Rows, each tool on the same input, one process per step:

  build, cold     trainpkg build -t (empty TRAINPKG_HOME) vs buildah bud
                  --storage-driver vfs --isolation chroot (empty storage)
  build, cached   the same build again, nothing changed
  push            trainpkg push of what it built vs skopeo copy of what buildah
                  built (containers-storage:), each compressing as it goes, into
                  its own repository; floor: curl uploading the compressed
                  blobs trainpkg pushed (POST + one monolithic PUT each)
  pull            trainpkg pull (empty home) vs skopeo copy docker:// oci:;
                  floor: curl downloading every blob to a file
  unpack          packager/unpack (bigimage_unpack_image) vs umoci unpack vs
                  tar -xzf of each layer in order (the floor), into empty dirs
  cold start      trainpkg run of 1 chief + 2 workers whose image is in the
                  registry but not local, until the job ends, vs by hand:
                  skopeo copy + umoci unpack + 3 x runc run (in parallel)

With --zstd, the same image is also pushed with `trainpkg push --compression zstd`
(OCI tar+zstd layers) to another repository, then pulled and cold-started from
there: push, pull and cold start with zstd next to gzip, and the layers' size.

For each of ours: peak RSS and bytes written (getrusage of that process and
the children it waited for: ru_maxrss, ru_oublock). Prints a table (seconds,
ours / peer, ours / floor) and writes --json. Needs root (buildah chroot
isolation, runc) and the peers from scripts/install-deps.sh --bench.

  python3 bench/bigimage/bigimage_bench.py --trainpkg build/bin/trainpkg \\
      --unpack build/bench/bigimage/bigimage_unpack_image
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "registry"))
from registry_push_bench import Registry, curl_upload  # noqa: E402

PEERS = ("buildah", "skopeo", "umoci", "runc", "docker-registry", "curl", "tar", "busybox")
RESULTS = {}  # row -> {"ours": s, "peer": s, "floor": s, "rss_mb": MB, "written_mb": MB}
BASELINE = {}  # --baseline-trainpkg: best cold start of each binary, seconds
ZSTD = {}  # --zstd: step -> {"gzip": s, "zstd": s}, plus compressed MB of each


def run(argv, env=None, cwd=None):
    """Runs argv to the end; returns (seconds, peak RSS MB, MB written)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    # wait4: the rusage of this process and the children it reaped, alone.
    out_chunks = []
    while True:
        chunk = proc.stdout.read(65536)
        if not chunk:
            break
        out_chunks.append(chunk)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        out = b"".join(out_chunks).decode(errors="replace")
        raise RuntimeError(f"{' '.join(argv)} failed ({proc.returncode}):\n{out[-3000:]}")
    return elapsed, usage.ru_maxrss / 1024, usage.ru_oublock * 512 / 1e6


def record(row, ours=None, peer=None, floor=None):
    entry = RESULTS.setdefault(row, {})
    if ours is not None:
        entry["ours"], entry["rss_mb"], entry["written_mb"] = ours
    if peer is not None:
        entry["peer"] = peer[0] if isinstance(peer, tuple) else peer
    if floor is not None:
        entry["floor"] = floor


def du_mb(path):
    out = subprocess.run(["du", "-sm", path], stdout=subprocess.PIPE, text=True, check=True)
    return int(out.stdout.split()[0])


def pick_sources(total_mb, layers):
    """Directories under /usr/lib (largest first, whole), greedily split into
    `layers` groups of about total_mb / layers each."""
    roots = ["/usr/lib/x86_64-linux-gnu", "/usr/lib/python3", "/usr/lib/python3.11",
             "/usr/lib/gcc", "/usr/lib/llvm-14", "/usr/lib/jvm", "/usr/lib"]
    candidates, seen = [], set()
    for root in roots:
        if not os.path.isdir(root):
            continue
        for name in sorted(os.listdir(root)):
            path = os.path.join(root, name)
            if path in seen or path in roots or os.path.islink(path) or not os.path.isdir(path):
                continue
            seen.add(path)
            candidates.append((du_mb(path), path))
    candidates.sort(reverse=True)
    groups = [[] for _ in range(layers)]
    sizes = [0] * layers
    per_layer = total_mb / layers
    for size, path in candidates:
        if sum(sizes) >= total_mb:
            break
        i = sizes.index(min(sizes))
        if size > per_layer * 1.5 or sizes[i] + size > per_layer * 1.2:
            continue
        groups[i].append(path)
        sizes[i] += size
    return groups, sizes


def make_context(ctx, total_mb, layers):
    os.makedirs(os.path.join(ctx, "bin"))
    shutil.copy2(shutil.which("busybox"), os.path.join(ctx, "bin", "busybox"))
    groups, sizes = pick_sources(total_mb, layers)
    lines = ["FROM scratch", "COPY bin/ /bin/"]
    for i, paths in enumerate(groups):
        dest = os.path.join(ctx, f"layer{i}")
        os.makedirs(dest)
        for path in paths:
            # Hardlinks where the context is on /usr's filesystem (no copy of
            # a gigabyte), a copy elsewhere; the tools read the same bytes.
            target = os.path.join(dest, path.strip("/").replace("/", "_"))
            if subprocess.run(["cp", "-al", path, target], stderr=subprocess.DEVNULL).returncode:
                subprocess.run(["cp", "-a", path, target], check=True)
        lines.append(f"COPY layer{i}/ /opt/layer{i}/")
    first = sorted(os.listdir(os.path.join(ctx, "layer0")))[0]
    lines.append(f'RUN ["/bin/busybox", "sh", "-c", "/bin/busybox mkdir -p /opt/run && '
                 f'/bin/busybox cp -a /opt/layer0/{first} /opt/run/"]')
    lines.append('ENTRYPOINT ["/bin/busybox", "true"]')
    with open(os.path.join(ctx, "Dockerfile"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return sizes


def manifest_blobs(layout, tag):
    with open(os.path.join(layout, "index.json")) as f:
        index = json.load(f)
    for m in index["manifests"]:
        if m.get("annotations", {}).get("org.opencontainers.image.ref.name") == tag:
            with open(os.path.join(layout, "blobs", "sha256", m["digest"][7:])) as f:
                manifest = json.load(f)
            return manifest["config"], manifest["layers"]
    raise RuntimeError(f"{layout}: no tag {tag}")


def blob_path(layout, digest):
    return os.path.join(layout, "blobs", "sha256", digest[7:])


def curl_download(host, repo, layout, blobs, dest):
    start = time.perf_counter()
    for blob in blobs:
        subprocess.run(["curl", "-sSf", "-o", os.path.join(dest, blob["digest"][7:]),
                        f"http://{host}/v2/{repo}/blobs/{blob['digest']}"], check=True)
    return time.perf_counter() - start


def runc_by_hand(work, image_ref):
    """The peer's cold start: skopeo copy + umoci unpack + 3 x runc run."""
    layout = os.path.join(work, "byhand-layout")
    bundle = os.path.join(work, "byhand-bundle")
    start = time.perf_counter()
    subprocess.run(["skopeo", "copy", "--quiet", "--src-tls-verify=false",
                    f"docker://{image_ref}", f"oci:{layout}:1"], check=True)
    subprocess.run(["umoci", "unpack", "--image", f"{layout}:1", bundle], check=True,
                   stdout=subprocess.DEVNULL)
    config_path = os.path.join(bundle, "config.json")
    with open(config_path) as f:
        config = json.load(f)
    config["process"]["terminal"] = False
    config["root"]["readonly"] = True  # three containers on one rootfs
    with open(config_path, "w") as f:
        json.dump(config, f)
    procs = [subprocess.Popen(["runc", "run", "--bundle", bundle, f"bigimage-{os.getpid()}-{i}"],
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
             for i in range(3)]
    codes = [p.wait() for p in procs]
    elapsed = time.perf_counter() - start
    if any(codes):
        raise RuntimeError(f"runc run exited {codes}")
    return elapsed


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trainpkg", required=True)
    ap.add_argument("--unpack", required=True, help="the bigimage_unpack_image binary")
    ap.add_argument("--mb", type=int, default=1100, help="size of the COPY layers together")
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--workdir", default="", help="where to work (default: a temp dir)")
    ap.add_argument("--json", default="")
    ap.add_argument("--zstd", action="store_true",
                    help="also push, pull and cold-start the image with zstd layers")
    ap.add_argument("--baseline-trainpkg", default="",
                    help="another trainpkg binary (an earlier commit) whose cold start is "
                         "measured in the same run, alternating with ours")
    args = ap.parse_args()
    missing = [tool for tool in PEERS if shutil.which(tool) is None]
    if missing or os.geteuid() != 0:
        print(f"bigimage bench: needs root and {', '.join(missing) or 'nothing else'} "
              "(scripts/install-deps.sh --bench); skipping")
        return 0
    trainpkg, unpacker = os.path.abspath(args.trainpkg), os.path.abspath(args.unpack)
    work = tempfile.mkdtemp(prefix="trainpkg-bigimage-", dir=args.workdir or None)
    storage = ["buildah", "--root", os.path.join(work, "buildah-root"), "--runroot",
               os.path.join(work, "buildah-runroot"), "--storage-driver", "vfs"]
    registry = None
    load = [os.getloadavg()[0]]
    try:
        ctx = os.path.join(work, "ctx")
        sizes = make_context(ctx, args.mb, args.layers)
        print(f"context: {len(sizes)} COPY layers of {', '.join(str(s) for s in sizes)} MB "
              f"from /usr/lib, + busybox and a RUN layer", flush=True)
        home = os.path.join(work, "home")
        env = dict(os.environ, TRAINPKG_HOME=home, DOCKER_CONFIG=os.path.join(work, "docker"))
        registry = Registry(os.path.join(work, "registry"))
        host = registry.host
        # `trainpkg push REF` pushes what `build -t REF` stored.
        build_ours = [trainpkg, "build", "-q", "-t", f"{host}/ours/big:1", ctx]
        build_peer = storage + ["bud", "--quiet", "--isolation", "chroot", "--layers",
                                "-t", "localhost/big:1", ctx]
        for row in ("build, cold", "build, cached"):
            os.sync()
            record(row, ours=run(build_ours, env))
            os.sync()
            record(row, peer=run(build_peer))
            load.append(os.getloadavg()[0])
            print(f"{row}: done", flush=True)

        os.sync()
        record("push", ours=run([trainpkg, "push", f"{host}/ours/big:1"], env))
        os.sync()
        store = (f"containers-storage:[vfs@{work}/buildah-root+{work}/buildah-runroot]"
                 "localhost/big:1")
        record("push", peer=run(["skopeo", "copy", "--quiet", "--dest-tls-verify=false",
                                 "--dest-compress", store, f"docker://{host}/peer/big:1"]))
        load.append(os.getloadavg()[0])

        pulled = os.path.join(work, "pulled-ours")
        pull_env = dict(env, TRAINPKG_HOME=os.path.join(work, "home-pull"))
        os.sync()
        record("pull", ours=run([trainpkg, "pull", f"{host}/ours/big:1", "--output",
                                 f"oci:{pulled}:1"], pull_env))
        os.sync()
        record("pull", peer=run(["skopeo", "copy", "--quiet", "--src-tls-verify=false",
                                 f"docker://{host}/ours/big:1", f"oci:{work}/pulled-peer:1"]))
        config, layers = manifest_blobs(pulled, "1")
        floor_dir = os.path.join(work, "curl-blobs")
        os.makedirs(floor_dir)
        os.sync()
        record("pull", floor=curl_download(host, "ours/big", pulled, [config] + layers, floor_dir))
        os.sync()
        record("push", floor=sum(curl_upload(host, "floor/big", blob_path(pulled, b["digest"]),
                                             b["digest"]) for b in [config] + layers))
        load.append(os.getloadavg()[0])

        os.sync()
        record("unpack", ours=run([unpacker, pulled, "1", os.path.join(work, "rootfs-ours")]))
        os.sync()
        record("unpack", peer=run(["umoci", "unpack", "--image", f"{pulled}:1",
                                   os.path.join(work, "bundle-umoci")]))
        tar_dest = os.path.join(work, "rootfs-tar")
        os.makedirs(tar_dest)
        os.sync()
        start = time.perf_counter()
        for layer in layers:
            subprocess.run(["tar", "-xzf", blob_path(pulled, layer["digest"]), "-C", tar_dest],
                           check=True)
        record("unpack", floor=time.perf_counter() - start)
        load.append(os.getloadavg()[0])

        pool = f"machine-type=n1-standard-4,container-image-uri={host}/ours/big:1"

        def cold_start(binary, name):
            """`trainpkg run` of 1 chief + 2 workers with an empty home: pull, unpack, run."""
            job_env = dict(env, TRAINPKG_HOME=os.path.join(work, name))
            os.sync()
            result = run([binary, "run", "--display-name", "bigimage", "--worker-pool-spec",
                          f"replica-count=1,{pool}", "--worker-pool-spec",
                          f"replica-count=2,{pool}", "--base-output-dir",
                          os.path.join(work, "run-output")], job_env)
            shutil.rmtree(os.path.join(work, name), ignore_errors=True)
            return result

        gzip_cold = cold_start(trainpkg, "home-run")
        record("cold start (3 replicas)", ours=gzip_cold)
        os.sync()
        record("cold start (3 replicas)", peer=runc_by_hand(work, f"{host}/ours/big:1"))
        load.append(os.getloadavg()[0])
        if args.zstd:
            # The same stored image, its layers compressed with zstd (level 3)
            # instead of gzip (level 6), through the same three steps.
            zref = f"{host}/ours/big-zstd:1"
            run([trainpkg, "images", "tag", f"{host}/ours/big:1", zref], env)
            ZSTD["push"] = {"gzip": RESULTS["push"]["ours"],
                            "zstd": run([trainpkg, "push", "--compression", "zstd", zref], env)[0]}
            zpulled = os.path.join(work, "pulled-zstd")
            os.sync()
            ZSTD["pull"] = {"gzip": RESULTS["pull"]["ours"],
                            "zstd": run([trainpkg, "pull", zref, "--output", f"oci:{zpulled}:1"],
                                        dict(env, TRAINPKG_HOME=os.path.join(work, "home-zpull")))[0]}
            _, zlayers = manifest_blobs(zpulled, "1")
            ZSTD["layers MB"] = {"gzip": sum(l["size"] for l in layers) / 1e6,
                                 "zstd": sum(l["size"] for l in zlayers) / 1e6}
            zpool = f"machine-type=n1-standard-4,container-image-uri={zref}"
            os.sync()
            zenv = dict(env, TRAINPKG_HOME=os.path.join(work, "home-zrun"))
            ZSTD["cold start"] = {"gzip": gzip_cold[0], "zstd": run(
                [trainpkg, "run", "--display-name", "bigimage-zstd", "--worker-pool-spec",
                 f"replica-count=1,{zpool}", "--worker-pool-spec", f"replica-count=2,{zpool}",
                 "--base-output-dir", os.path.join(work, "run-output")], zenv)[0]}
            shutil.rmtree(zenv["TRAINPKG_HOME"], ignore_errors=True)
            load.append(os.getloadavg()[0])
        if args.baseline_trainpkg:
            # Alternating, twice each, so load that changes over time falls on both.
            baseline = os.path.abspath(args.baseline_trainpkg)
            times = {"ours": [], "baseline": []}
            # Which goes first alternates too: on this VM's disk a run right
            # after a few GB written is up to 2x slower than one after a pause.
            for i in range(2):
                order = [("baseline", baseline), ("ours", trainpkg)]
                for key, binary in (order if i % 2 == 0 else order[::-1]):
                    times[key].append(cold_start(binary, f"home-{key}-{i}")[0])
            BASELINE.update({k: min(v) for k, v in times.items()})
            load.append(os.getloadavg()[0])
    finally:
        if registry is not None:
            registry.stop()
        subprocess.run(storage + ["rmi", "--all", "--force"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        shutil.rmtree(work, ignore_errors=True)

    print(f"\nbigimage: {sum(sizes)} MB in {len(sizes)} COPY layers; one run; seconds; "
          f"1-min load {min(load):.2f}-{max(load):.2f} on {os.cpu_count()} CPUs")
    print(f"{'step':<26}{'trainpkg':>10}{'peer':>10}{'floor':>10}{'ours/peer':>11}"
          f"{'ours/floor':>12}{'RSS MB':>9}{'written MB':>12}")
    for row, r in RESULTS.items():
        ratio = f"{r['ours'] / r['peer']:.2f}" if r.get("peer") else "-"
        floor_ratio = f"{r['ours'] / r['floor']:.2f}" if r.get("floor") else "-"
        floor = f"{r['floor']:.2f}" if r.get("floor") else "-"
        print(f"{row:<26}{r['ours']:>10.2f}{r.get('peer', 0):>10.2f}{floor:>10}{ratio:>11}"
              f"{floor_ratio:>12}{r['rss_mb']:>9.0f}{r['written_mb']:>12.0f}")
    print("peers: buildah bud (vfs), skopeo copy, umoci unpack, skopeo+umoci+3 x runc run; "
          "floors: curl, tar -xzf")
    if BASELINE:
        print(f"cold start, best of 2 alternating: this trainpkg {BASELINE['ours']:.2f} s, "
              f"baseline {BASELINE['baseline']:.2f} s, ratio "
              f"{BASELINE['ours'] / BASELINE['baseline']:.2f}")
    if ZSTD:
        print(f"{'zstd layers':<26}{'gzip':>10}{'zstd':>10}{'zstd/gzip':>11}")
        for row, r in ZSTD.items():
            print(f"{row:<26}{r['gzip']:>10.2f}{r['zstd']:>10.2f}{r['zstd'] / r['gzip']:>11.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"mb": sum(sizes), "layers": sizes, "load": load, "rows": RESULTS,
                       "baseline": BASELINE, "zstd": ZSTD}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
