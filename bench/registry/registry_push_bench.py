#!/usr/bin/env python3
"""Push benchmark: trainpkg push vs skopeo copy vs a raw curl upload.

One run, a local docker-registry (started here on 127.0.0.1, plain HTTP; a fresh
one each round), one generated image: a --size-mb layer of random bytes plus a config, in an
OCI layout. Measured, each tool pushing into its own repositories:

  first push   trainpkg push oci:DIR:v1 / skopeo copy oci:DIR:v1, against the
               blob's raw upload with curl (POST, then one monolithic PUT
               ?digest= of the file: the registry's own limit); the three take
               turns going first, each after os.sync() so none pays for the
               writeback of another's upload
  re-push      the same push again (every blob already there)
  mount        a push to a second repository of the same registry (trainpkg
               mounts what its blob location cache saw; skopeo what its
               blob-info cache saw)
  start        `trainpkg --version` / `skopeo --version`: process start alone

Prints a table (median of --rounds) with ratios, the CPU seconds (user + system)
of each tool's process, and the 1-minute load average seen during the run, and
writes --json.
  python3 bench/registry/registry_push_bench.py --trainpkg build/bin/trainpkg
"""
import argparse
import hashlib
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


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_blob(layout, data):
    digest = hashlib.sha256(data).hexdigest()
    path = os.path.join(layout, "blobs", "sha256", digest)
    with open(path, "wb") as f:
        f.write(data)
    return {"digest": "sha256:" + digest, "size": len(data)}


def write_image(layout, size_mb, layers):
    """An OCI layout tagged v1: `layers` random layers totalling size_mb."""
    os.makedirs(os.path.join(layout, "blobs", "sha256"))
    with open(os.path.join(layout, "oci-layout"), "w") as f:
        json.dump({"imageLayoutVersion": "1.0.0"}, f)
    descs, diff_ids = [], []
    per_layer = size_mb * 1024 * 1024 // layers
    for _ in range(layers):
        d = write_blob(layout, os.urandom(per_layer))
        d["mediaType"] = "application/vnd.oci.image.layer.v1.tar"
        descs.append(d)
        diff_ids.append(d["digest"])
    config = json.dumps({"architecture": "amd64", "os": "linux",
                         "rootfs": {"type": "layers", "diff_ids": diff_ids},
                         "config": {}}).encode()
    cfg = write_blob(layout, config)
    cfg["mediaType"] = "application/vnd.oci.image.config.v1+json"
    manifest = json.dumps({"schemaVersion": 2,
                           "mediaType": "application/vnd.oci.image.manifest.v1+json",
                           "config": cfg, "layers": descs}).encode()
    m = write_blob(layout, manifest)
    m["mediaType"] = "application/vnd.oci.image.manifest.v1+json"
    m["annotations"] = {"org.opencontainers.image.ref.name": "v1"}
    with open(os.path.join(layout, "index.json"), "w") as f:
        json.dump({"schemaVersion": 2, "manifests": [m]}, f)
    return [os.path.join(layout, "blobs", "sha256", d["digest"][7:]) for d in descs], descs


class Registry:
    def __init__(self, scratch):
        os.makedirs(scratch)
        self.port = free_port()
        self.host = f"127.0.0.1:{self.port}"
        config = os.path.join(scratch, "registry.yml")
        with open(config, "w") as f:
            f.write(f"""version: 0.1
log: {{level: error}}
storage:
  filesystem: {{rootdirectory: {scratch}/data}}
  delete: {{enabled: true}}
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
        raise RuntimeError("docker-registry did not start")

    def stop(self):
        self.proc.terminate()
        self.proc.wait(10)
        self.log.close()


CPU = {}  # case -> CPU seconds (user + system) of the tool's process, per round


def timed(argv, env=None, case=None):
    """Wall seconds of one run; its CPU seconds go to CPU[case] (steadier than
    wall time on a loaded machine)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    r = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        raise RuntimeError(f"{argv[0]} failed ({r.returncode}): {r.stderr[-2000:]}")
    if case is not None:
        CPU.setdefault(case, []).append(after.ru_utime + after.ru_stime
                                        - before.ru_utime - before.ru_stime)
    return elapsed


def curl_upload(host, repo, path, digest):
    """POST an upload session, then PUT the whole file with ?digest=."""
    start = time.perf_counter()
    out = subprocess.run(["curl", "-sS", "-D", "-", "-o", "/dev/null", "-X", "POST",
                          f"http://{host}/v2/{repo}/blobs/uploads/"],
                         check=True, stdout=subprocess.PIPE, text=True).stdout
    location = next(line.split(":", 1)[1].strip() for line in out.splitlines()
                    if line.lower().startswith("location:"))
    if location.startswith("/"):
        location = f"http://{host}{location}"
    sep = "&" if "?" in location else "?"
    code = subprocess.run(["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "-X", "PUT",
                           "-H", "Content-Type: application/octet-stream", "-H", "Expect:",
                           "--upload-file", path, f"{location}{sep}digest={digest}"],
                          check=True, stdout=subprocess.PIPE, text=True).stdout
    elapsed = time.perf_counter() - start
    if code != "201":
        raise RuntimeError(f"curl PUT answered {code}")
    return elapsed


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trainpkg", default="build/bin/trainpkg")
    ap.add_argument("--size-mb", type=int, default=200)
    ap.add_argument("--layers", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", default="registry_push_bench.json")
    args = ap.parse_args()
    for tool in ("docker-registry", "skopeo", "curl"):
        if shutil.which(tool) is None:
            print(f"registry bench: {tool} is not installed; skipping")
            return 0
    trainpkg = os.path.abspath(args.trainpkg)

    scratch = tempfile.mkdtemp(prefix="trainpkg-registry-bench-")
    registry = None
    try:
        layout = os.path.join(scratch, "image")
        paths, descs = write_image(layout, args.size_mb, args.layers)
        src = f"oci:{layout}:v1"
        skopeo = ["skopeo", "copy", "--quiet", "--dest-tls-verify=false"]
        times = {k: [] for k in ("curl", "ours_first", "skopeo_first", "ours_repush",
                                 "skopeo_repush", "ours_mount", "skopeo_mount", "ours_start",
                                 "skopeo_start")}
        load = [os.getloadavg()[0]]
        for r in range(args.rounds):
            # A fresh registry (new port) each round: neither tool's blob cache
            # knows anything on it, so first pushes upload.
            registry = Registry(os.path.join(scratch, f"registry{r}"))
            host = registry.host
            home = os.path.join(scratch, f"home{r}")  # a fresh blob location cache
            env = dict(os.environ, TRAINPKG_HOME=home, DOCKER_CONFIG=os.path.join(home, "docker"))
            ours = lambda repo: [trainpkg, "push", src, f"{host}/{repo}:v1"]
            theirs = lambda repo: skopeo + [src, f"docker://{host}/{repo}:v1"]
            def curl_push():
                t = 0.0
                for p, d in zip(paths, descs):
                    t += curl_upload(host, f"curl{r}/app", p, d["digest"])
                times["curl"].append(t)
            # First pushes: the three take turns going first (a cyclic rotation
            # per round), and each starts after os.sync(), so none pays for the
            # writeback of the 200 MB another one just uploaded.
            firsts = [("curl", None, None), ("ours", ours, env), ("skopeo", theirs, None)]
            firsts = firsts[r % 3:] + firsts[:r % 3]
            for name, cmd, e in firsts:
                os.sync()
                if name == "curl":
                    curl_push()
                else:
                    times[f"{name}_first"].append(timed(cmd(f"{name}{r}/app"), e, f"{name}_first"))
            # Alternate who goes first so page-cache and registry warm-up even out.
            order = [("ours", ours, env), ("skopeo", theirs, None)]
            if r % 2:
                order.reverse()
            for name, cmd, e in order:
                times[f"{name}_repush"].append(timed(cmd(f"{name}{r}/app"), e, f"{name}_repush"))
            for name, cmd, e in order:
                times[f"{name}_mount"].append(timed(cmd(f"{name}{r}/second"), e, f"{name}_mount"))
            # Process start alone: what every push pays before its first request.
            times["ours_start"].append(timed([trainpkg, "--version"], None, "ours_start"))
            times["skopeo_start"].append(timed(["skopeo", "--version"], None, "skopeo_start"))
            load.append(os.getloadavg()[0])
            registry.stop()
            registry = None
        med = {k: statistics.median(v) for k, v in times.items()}
        cpu = {k: statistics.median(v) for k, v in CPU.items()}
        rows = [
            ("first push", "first", med["curl"]),
            ("re-push (blobs present)", "repush", None),
            ("second repository (mount)", "mount", None),
            ("process start (--version)", "start", None),
        ]
        print(f"registry push bench: {args.size_mb} MB in {args.layers} layer(s), a fresh "
              f"docker-registry on 127.0.0.1 per round, median of {args.rounds} rounds (seconds); "
              f"1-min load average {min(load):.2f}-{max(load):.2f} on {os.cpu_count()} CPUs")
        print(f"{'case':<28}{'trainpkg':>10}{'skopeo':>10}{'curl':>10}"
              f"{'ours/skopeo':>13}{'ours/curl':>11}{'cpu ours':>10}{'cpu skopeo':>12}")
        for case, key, c in rows:
            o, s = med[f"ours_{key}"], med[f"skopeo_{key}"]
            cs = f"{c:10.3f}" if c is not None else f"{'-':>10}"
            oc = f"{o / c:11.2f}" if c is not None else f"{'-':>11}"
            print(f"{case:<28}{o:10.3f}{s:10.3f}{cs}{o / s:13.2f}{oc}"
                  f"{cpu[f'ours_{key}']:10.3f}{cpu[f'skopeo_{key}']:12.3f}")
        with open(args.json, "w") as f:
            json.dump({"size_mb": args.size_mb, "layers": args.layers, "rounds": args.rounds,
                       "load_average_1min": load, "cpus": os.cpu_count(),
                       "seconds": times, "median": med, "cpu_seconds": CPU,
                       "cpu_median": cpu}, f, indent=2)
    finally:
        if registry is not None:
            registry.stop()
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
