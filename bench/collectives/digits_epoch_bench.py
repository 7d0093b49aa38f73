#!/usr/bin/env python3
"""Epoch time of the digits MLP (issue 5's reference configuration): trainpkg's
samples/digits_multiworker against PyTorch 1.13 CPU (digits_torch.py), same
model, global batch and epochs, one BLAS/OpenMP thread per process, on 1 rank
and on 2 ranks (trainpkg: chief + worker over Gloo on 127.0.0.1; PyTorch: DDP
over gloo on 127.0.0.1), in one run. Each of --repeats rounds runs both
peers on 1 and on 2 ranks, alternating which goes first, so a change in
machine load hits them alike. Prints a table (the median over rounds, the
range beside it; ratio = ours / PyTorch of the medians: < 1 means ours is
faster) and writes JSON with every run. Run it with the Python that has
Debian's python3-torch (the peer runs under the same interpreter).

  /usr/bin/python3 bench/collectives/digits_epoch_bench.py [--build=build] [--data=PATH]
      [--epochs=30] [--repeats=3] [--json=digits_epoch_bench.json]
"""
import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def parse(text, who):
    seconds = re.search(r"mean_epoch_seconds=([0-9.]+)", text)
    accuracy = re.search(r"test_accuracy=([0-9.]+)", text)
    if not seconds or not accuracy:
        sys.exit(f"{who}: no mean_epoch_seconds / test_accuracy in its output:\n{text}")
    return float(seconds.group(1)), float(accuracy.group(1))


def ours(binary, data, epochs, ranks, scratch):
    args = [binary, f"--data={data}", f"--epochs={epochs}"]
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
               CLOUD_ML_HP_METRIC_FILE=os.path.join(scratch, "hypertune", "output.metrics"))
    if ranks == 1:
        out = subprocess.run(args + [f"--model_dir={scratch}/model1"], env=env, check=True,
                             capture_output=True, text=True).stdout
        return parse(out, "trainpkg 1 rank")
    addresses = [f"127.0.0.1:{free_port()}" for _ in range(ranks)]
    cluster = {"chief": addresses[:1], "worker": addresses[1:]}
    procs = []
    for rank in range(ranks):
        task = {"type": "chief", "index": 0} if rank == 0 else {"type": "worker",
                                                                 "index": rank - 1}
        rank_env = dict(env, TF_CONFIG=json.dumps({"cluster": cluster, "task": task}))
        procs.append(subprocess.Popen(args + [f"--model_dir={scratch}/model{ranks}"],
                                      env=rank_env, stdout=subprocess.PIPE, text=True))
    outputs = [p.communicate()[0] for p in procs]
    if any(p.returncode != 0 for p in procs):
        sys.exit(f"trainpkg {ranks} ranks failed:\n" + "\n".join(outputs))
    return parse(outputs[0], f"trainpkg {ranks} ranks")


def torch_peer(data, epochs, ranks):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    out = subprocess.run([sys.executable, os.path.join(HERE, "digits_torch.py"), f"--data={data}",
                          f"--ranks={ranks}", f"--epochs={epochs}"], env=env, check=True,
                         capture_output=True, text=True).stdout
    return parse(out, f"pytorch {ranks} ranks")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--data", default=os.environ.get("TRAINPKG_DATA_DIR", "") and
                        os.path.join(os.environ["TRAINPKG_DATA_DIR"], "digits.csv.gz") or
                        os.path.join(ROOT, "build", "data", "digits.csv.gz"))
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", default="digits_epoch_bench.json")
    args = parser.parse_args()
    candidates = [os.path.join(args.build, "bin", "digits_multiworker"),
                  os.path.join(args.build, "samples", "digits_multiworker", "digits_multiworker")]
    binary = next((c for c in candidates if os.path.exists(c)), None)
    if binary is None:
        sys.exit(f"digits_multiworker not found in {args.build}: build its target there")
    if not os.path.exists(args.data):
        sys.exit(f"{args.data} not found: run scripts/fetch-digits.sh")
    runs = {(who, ranks): [] for who in ("trainpkg", "pytorch") for ranks in (1, 2)}
    accuracy = {}
    with tempfile.TemporaryDirectory(prefix="trainpkg-digits-bench-") as scratch:
        for repeat in range(max(args.repeats, 1)):
            for ranks in (1, 2):
                peers = [("trainpkg", lambda: ours(binary, args.data, args.epochs, ranks, scratch)),
                         ("pytorch", lambda: torch_peer(args.data, args.epochs, ranks))]
                for who, run in peers if repeat % 2 == 0 else reversed(peers):
                    seconds, acc = run()
                    runs[(who, ranks)].append(seconds * 1e3)
                    accuracy[(who, ranks)] = acc
    rows = []
    for ranks in (1, 2):
        ours_ms, torch_ms = runs[("trainpkg", ranks)], runs[("pytorch", ranks)]
        rows.append({"ranks": ranks, "trainpkg_epoch_ms": statistics.median(ours_ms),
                     "pytorch_epoch_ms": statistics.median(torch_ms),
                     "ours_over_pytorch": statistics.median(ours_ms) / statistics.median(torch_ms),
                     "trainpkg_runs_ms": ours_ms, "pytorch_runs_ms": torch_ms,
                     "trainpkg_accuracy": accuracy[("trainpkg", ranks)],
                     "pytorch_accuracy": accuracy[("pytorch", ranks)]})
    print(f"digits MLP 64-256-128-10, Adam, global batch 64, {args.epochs} epochs, "
          "1 thread per process; mean epoch time of epochs 2..N, median of "
          f"{max(args.repeats, 1)} runs [range]")
    print(f"{'ranks':>5} {'trainpkg ms':>24} {'pytorch ms':>24} {'ours / pytorch':>15} "
          f"{'trainpkg acc':>13} {'pytorch acc':>12}")
    for r in rows:
        ours_range = f"[{min(r['trainpkg_runs_ms']):.1f}-{max(r['trainpkg_runs_ms']):.1f}]"
        torch_range = f"[{min(r['pytorch_runs_ms']):.1f}-{max(r['pytorch_runs_ms']):.1f}]"
        print(f"{r['ranks']:>5} {r['trainpkg_epoch_ms']:>8.2f} {ours_range:>15} "
              f"{r['pytorch_epoch_ms']:>8.2f} {torch_range:>15} "
              f"{r['ours_over_pytorch']:>15.3f} {r['trainpkg_accuracy']:>13.4f} "
              f"{r['pytorch_accuracy']:>12.4f}")
    with open(args.json, "w") as f:
        json.dump({"epochs": args.epochs, "global_batch_size": 64, "repeats": max(args.repeats, 1),
                   "results": rows}, f, indent=1)
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
