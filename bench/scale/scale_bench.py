#!/usr/bin/env python3
"""bench/scale (issue 24): how trainpkg's costs grow with the work.

  /usr/bin/python3 bench/scale/scale_bench.py --build build [--json scale.json]

1. Job stores of 1,000 and 10,000 finished jobs, written through the job store
   API (`scale_bench generate`): latency of `trainpkg jobs list` (default,
   `--limit 50`, `--filter ...`), `trainpkg jobs describe ID`, and of
   `trainpkg serve`'s REST list (default page, a filter, and paging through
   the first pages with nextPageToken): p50 / p99 of --repeats runs.
2. `trainpkg serve` under --clients concurrent clients (loopback), each doing
   at most --ops operations (1 in 10 a create of a `local:/bin/true` job, 3 in
   10 a list, the rest gets) within --load-seconds: throughput, p99, errors,
   the server's peak RSS.
3. Process-mode jobs of 4, 16, 64 replicas (`scale_bench replicas`): submit ->
   all running, and the replicas' end -> the store's record final.
4. Latency and peak RSS of one suggestion of the default (Bayesian) algorithm
   after 50, 100, 300, 1000 completed trials in 6-D (`scale_bench suggest`).

Prints markdown tables with the 1-minute load average; nothing is asserted.
"""
import argparse
import http.client
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse


def load_average():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def percentile(values, p):
    values = sorted(values)
    if not values:
        return float("nan")
    k = (len(values) - 1) * p / 100.0
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def ms(seconds):
    return f"{seconds * 1e3:.1f}"


def timed_runs(argv, env, repeats):
    times = []
    for _ in range(repeats):
        start = time.monotonic()
        done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE)
        times.append(time.monotonic() - start)
        if done.returncode != 0:
            sys.exit(f"{' '.join(argv)} failed: {done.stderr.decode()}")
    return times


class Serve:
    """`trainpkg serve --port 0` on a home, stopped with SIGINT."""

    def __init__(self, trainpkg, env, extra=()):
        self.proc = subprocess.Popen(
            [trainpkg, "serve", "--port", "0", *extra], env=env,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        lines = []
        self.token = None
        for line in self.proc.stdout:
            lines.append(line)
            m = re.search(r"at (http://[0-9.]+:(\d+))/v1", line)
            if m and not hasattr(self, "port"):
                self.host, self.port = "127.0.0.1", int(m.group(2))
            m = re.search(r"Authorization: Bearer ([A-Za-z0-9_-]+)", line)
            if m:
                self.token = m.group(1)
            if "Press Ctrl-C" in line:
                break
        if self.token is None:
            sys.exit("trainpkg serve did not start: " + "".join(lines) +
                     self.proc.stderr.read())
        threading.Thread(target=self.proc.stdout.read, daemon=True).start()

    def request(self, method, path, body=None):
        conn = http.client.HTTPConnection(self.host, self.port, timeout=120)
        headers = {"Authorization": "Bearer " + self.token}
        if body is not None:
            headers["Content-Type"] = "application/json"
        conn.request(method, path, body=body, headers=headers)
        reply = conn.getresponse()
        data = reply.read()
        conn.close()
        return reply.status, data

    def rss_mib(self):
        try:
            with open(f"/proc/{self.proc.pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) / 1024.0
        except OSError:
            pass
        return 0.0

    def stop(self):
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


JOBS = "/v1/projects/local/locations/local/customJobs"
FILTER = 'state=JOB_STATE_CANCELLED AND labels.team=a'


def list_path(filter_text="", page_size=None, token=None):
    query = {}
    if filter_text:
        query["filter"] = filter_text
    if page_size:
        query["pageSize"] = str(page_size)
    if token:
        query["pageToken"] = token
    return JOBS + ("?" + urllib.parse.urlencode(query) if query else "")


def timed_requests(serve, paths):
    times = []
    for path in paths:
        start = time.monotonic()
        status, body = serve.request("GET", path)
        times.append(time.monotonic() - start)
        if status != 200:
            sys.exit(f"GET {path}: {status} {body[:300]}")
    return times


def store_section(args, trainpkg, scale_bench, tmp, size, results):
    home = os.path.join(tmp, f"home-{size}")
    env = dict(os.environ, TRAINPKG_HOME=home)
    generated = json.loads(subprocess.run(
        [scale_bench, "generate", "--home", home, "--jobs", str(size)],
        check=True, stdout=subprocess.PIPE).stdout)
    ids = sorted(os.listdir(os.path.join(home, "jobs")))
    rows = {}
    load_before = load_average()
    commands = {
        "jobs list": [trainpkg, "jobs", "list"],
        "jobs list --limit 50": [trainpkg, "jobs", "list", "--limit", "50"],
        f"jobs list --filter '{FILTER}'": [trainpkg, "jobs", "list", "--filter", FILTER],
        "jobs describe ID": [trainpkg, "jobs", "describe", ids[len(ids) // 2]],
    }
    for name, argv in commands.items():
        rows[name] = timed_runs(argv, env, args.repeats)
    serve = Serve(trainpkg, env)
    try:
        rows["REST list (default page, 100)"] = timed_requests(
            serve, [list_path()] * args.repeats)
        rows[f"REST list filter '{FILTER}'"] = timed_requests(
            serve, [list_path(FILTER)] * args.repeats)
        # Paging: follow nextPageToken through the first --pages pages of 100.
        page_times, token = [], None
        for _ in range(args.pages):
            start = time.monotonic()
            status, body = serve.request("GET", list_path(page_size=100, token=token))
            page_times.append(time.monotonic() - start)
            if status != 200:
                sys.exit(f"paging: {status} {body[:300]}")
            token = json.loads(body).get("nextPageToken")
            if not token:
                break
        rows[f"REST list paging (pageSize 100, {len(page_times)} pages)"] = page_times
    finally:
        serve.stop()
    results["store"][str(size)] = {
        "generate_s": generated["seconds"], "load_before": load_before,
        "load_after": load_average(), "runs_s": rows}
    print(f"\n### job store, {size} jobs (generated in {generated['seconds']:.1f} s); "
          f"load average {load_before} before, {load_average()} after\n")
    print("| operation | runs | p50 ms | p99 ms | max ms |")
    print("|---|---:|---:|---:|---:|")
    for name, times in rows.items():
        print(f"| `{name}` | {len(times)} | {ms(percentile(times, 50))} | "
              f"{ms(percentile(times, 99))} | {ms(max(times))} |")
    sys.stdout.flush()
    return home


def load_section(args, trainpkg, home, results):
    env = dict(os.environ, TRAINPKG_HOME=home)
    serve = Serve(trainpkg, env, ["--allow-local-executables", "--max-running-jobs",
                                  str(args.max_running_jobs)])
    body = json.dumps({"displayName": "scale-load", "jobSpec": {"workerPoolSpecs": [
        {"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": 1,
         "containerSpec": {"imageUri": "local:/bin/true"}}]}})
    ids = sorted(os.listdir(os.path.join(home, "jobs")))[-200:]
    lock = threading.Lock()
    latencies = {"create": [], "get": [], "list": []}
    statuses = {}
    rss = [serve.rss_mib()]
    deadline = time.monotonic() + args.load_seconds
    stop_sampling = threading.Event()

    def sample():
        while not stop_sampling.is_set():
            rss.append(serve.rss_mib())
            time.sleep(0.1)

    def client(k):
        rng = random.Random(k)
        for i in range(args.ops):
            if time.monotonic() > deadline:
                return
            kind = "create" if (i + k) % 10 == 0 else "list" if (i + k) % 10 in (1, 4, 7) else "get"
            if kind == "create":
                method, path, data = "POST", JOBS, body
            elif kind == "list":
                method, path, data = "GET", list_path(page_size=50), None
            else:
                method, path, data = "GET", f"{JOBS}/{rng.choice(ids)}", None
            start = time.monotonic()
            try:
                status, reply = serve.request(method, path, data)
            except (OSError, http.client.HTTPException) as e:
                status, reply = type(e).__name__, b""
            elapsed = time.monotonic() - start
            with lock:
                latencies[kind].append(elapsed)
                statuses[str(status)] = statuses.get(str(status), 0) + 1

    sampler = threading.Thread(target=sample)
    sampler.start()
    load_before = load_average()
    start = time.monotonic()
    threads = [threading.Thread(target=client, args=(k,)) for k in range(args.clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.monotonic() - start
    stop_sampling.set()
    sampler.join()
    load_after = load_average()
    serve.stop()
    every = [x for v in latencies.values() for x in v]
    errors = sum(n for s, n in statuses.items() if s not in ("200", "429"))
    results["serve_load"] = {
        "clients": args.clients, "ops_per_client": args.ops, "wall_s": wall,
        "requests": len(every), "statuses": statuses, "errors": errors,
        "peak_rss_mib": max(rss), "start_rss_mib": rss[0], "latencies_s": latencies,
        "load_before": load_before, "load_after": load_after,
        "max_running_jobs": args.max_running_jobs}
    print(f"\n### serve under {args.clients} clients (store of {len(os.listdir(os.path.join(home, 'jobs')))} "
          f"jobs at the end), load average {load_before} before, {load_after} after\n")
    print(f"{len(every)} requests in {wall:.1f} s = {len(every) / wall:.1f} req/s; "
          f"replies {statuses}; errors (not 200, not 429) {errors}; "
          f"server RSS {rss[0]:.1f} MiB at start, peak {max(rss):.1f} MiB\n")
    print("| request | count | p50 ms | p99 ms | max ms |")
    print("|---|---:|---:|---:|---:|")
    for kind, times in list(latencies.items()) + [("all", every)]:
        print(f"| {kind} | {len(times)} | {ms(percentile(times, 50))} | "
              f"{ms(percentile(times, 99))} | {ms(max(times)) if times else '-'} |")
    sys.stdout.flush()


def replicas_section(args, scale_bench, results):
    load_before = load_average()
    out = json.loads(subprocess.run(
        [scale_bench, "replicas", "--runs", str(args.replica_runs), "--replicas",
         *[str(n) for n in args.replicas]], check=True, stdout=subprocess.PIPE).stdout)
    results["replicas"] = {"runs": out, "load_before": load_before, "load_after": load_average()}
    print(f"\n### process-mode launches ({args.replica_runs} interleaved runs), load average "
          f"{load_before} before, {load_average()} after\n")
    print("| replicas | submit -> all running, median ms [min–max] | vs 4 | "
          "end -> store final, median ms [min–max] |")
    print("|---:|---:|---:|---:|")
    base = statistics.median(r["to_running_s"] for r in out[str(args.replicas[0])])
    for n in args.replicas:
        up = [r["to_running_s"] for r in out[str(n)]]
        down = [r["end_to_final_s"] for r in out[str(n)]]
        print(f"| {n} | {ms(statistics.median(up))} [{ms(min(up))}–{ms(max(up))}] | "
              f"{statistics.median(up) / base:.2f} | {ms(statistics.median(down))} "
              f"[{ms(min(down))}–{ms(max(down))}] |")
    sys.stdout.flush()


def suggest_section(args, scale_bench, results):
    results["suggest"] = {}
    print("\n### suggestion latency, default algorithm, Hartmann6 (6-D)\n")
    print("| completed trials | runs | median s | min–max s | peak RSS MiB | load average |")
    print("|---:|---:|---:|---:|---:|---|")
    for n in args.trials:
        repeats = args.suggest_repeats if n <= 300 else 1
        load = load_average()
        try:
            done = subprocess.run(
                [scale_bench, "suggest", "--trials", str(n), "--repeats", str(repeats)],
                check=True, stdout=subprocess.PIPE, timeout=args.suggest_timeout)
        except subprocess.TimeoutExpired:
            results["suggest"][str(n)] = {"timeout_s": args.suggest_timeout, "load": load}
            print(f"| {n} | 1 | > {args.suggest_timeout} (stopped) | | | {load} |")
            continue
        out = json.loads(done.stdout)
        out["load"] = load
        results["suggest"][str(n)] = out
        print(f"| {n} | {repeats} | {out['median_s']:.3f} | {min(out['seconds']):.3f}–"
              f"{max(out['seconds']):.3f} | {out['peak_rss_mib']:.1f} | {load} |")
        sys.stdout.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build")
    parser.add_argument("--json", default="")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--pages", type=int, default=20)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--ops", type=int, default=20, help="operations per client, at most")
    parser.add_argument("--load-seconds", type=float, default=120)
    parser.add_argument("--max-running-jobs", type=int, default=100)
    parser.add_argument("--replicas", type=int, nargs="+", default=[4, 16, 64])
    parser.add_argument("--replica-runs", type=int, default=3)
    parser.add_argument("--trials", type=int, nargs="+", default=[50, 100, 300, 1000])
    parser.add_argument("--suggest-repeats", type=int, default=3)
    parser.add_argument("--suggest-timeout", type=int, default=600)
    parser.add_argument("--only", nargs="+", default=["store", "load", "replicas", "suggest"],
                        choices=["store", "load", "replicas", "suggest"])
    args = parser.parse_args()
    trainpkg = os.path.abspath(os.path.join(args.build, "bin/trainpkg"))
    scale_bench = os.path.abspath(os.path.join(args.build, "bench/scale/scale_bench"))
    for path in (trainpkg, scale_bench):
        if not os.access(path, os.X_OK):
            sys.exit(f"{path} is missing: cmake --build {args.build} --target trainpkg scale_bench")
    results = {"store": {}, "load_average_start": load_average()}
    tmp = tempfile.mkdtemp(prefix="scale-bench.")
    try:
        homes = {}
        if "store" in args.only or "load" in args.only:
            for size in args.sizes:
                if "store" in args.only:
                    homes[size] = store_section(args, trainpkg, scale_bench, tmp, size, results)
                else:
                    homes[size] = os.path.join(tmp, f"home-{size}")
                    subprocess.run([scale_bench, "generate", "--home", homes[size], "--jobs",
                                    str(size)], check=True, stdout=subprocess.DEVNULL)
        if "load" in args.only:
            load_section(args, trainpkg, homes[min(homes)], results)
        if "replicas" in args.only:
            replicas_section(args, scale_bench, results)
        if "suggest" in args.only:
            suggest_section(args, scale_bench, results)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
