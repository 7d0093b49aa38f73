#!/usr/bin/env python3
"""The PyTorch peer of digits_epoch_bench.py: the digits MLP of issue 5's
reference configuration (pixels / 16, 80/20 split, 64-256-128-10 with ReLU,
Adam lr 1e-3, global batch 64, 30 epochs, validation after every epoch) on
PyTorch 1.13 CPU with one thread, on 1 rank or as N ranks of DDP over gloo on
127.0.0.1 (each rank takes its consecutive slice of every global batch, as
trainpkg's replicas do). Rank 0 prints

  mean_epoch_seconds=<mean of epochs 2..N> test_accuracy=<after the last epoch>

  digits_torch.py --data=digits.csv.gz [--ranks=1] [--epochs=30]
"""
import argparse
import gzip
import os
import subprocess
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn


def load(path):
    with gzip.open(path, "rt") as f:
        table = np.loadtxt(f, delimiter=",", dtype=np.float32)
    x = table[:, :64] / 16.0
    y = table[:, 64].astype(np.int64)
    # 80/20 split with a fixed permutation (sizes as trainpkg's: 1437 / 360).
    order = np.random.RandomState(0).permutation(len(y))
    test = int(round(len(y) * 0.2))
    return (torch.from_numpy(x[order[test:]]), torch.from_numpy(y[order[test:]]),
            torch.from_numpy(x[order[:test]]), torch.from_numpy(y[order[:test]]))


def slice_of(batch, rank, ranks):
    q, r = divmod(batch, ranks)
    start = rank * q + min(rank, r)
    return start, start + q + (1 if rank < r else 0)


def train(args, rank, ranks):
    torch.set_num_threads(1)
    torch.manual_seed(42)
    x, y, tx, ty = load(args.data)
    model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
                          nn.Linear(128, 10))
    if ranks > 1:
        model = nn.parallel.DistributedDataParallel(model)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    steps = len(y) // args.global_batch_size
    times = []
    accuracy = 0.0
    for epoch in range(args.epochs):
        start = time.perf_counter()
        order = torch.randperm(len(y), generator=torch.Generator().manual_seed(42 + epoch))
        model.train()
        for step in range(steps):
            batch = order[step * args.global_batch_size:(step + 1) * args.global_batch_size]
            lo, hi = slice_of(len(batch), rank, ranks)
            mine = batch[lo:hi]
            optimizer.zero_grad()
            # Mean over the global batch: this rank's share, summed by DDP's
            # averaging times the number of ranks.
            loss = loss_fn(model(x[mine]), y[mine]) * (len(mine) * ranks / len(batch))
            loss.backward()
            optimizer.step()
        model.eval()
        with torch.no_grad():
            lo, hi = slice_of(len(ty), rank, ranks)
            correct = (model(tx[lo:hi]).argmax(1) == ty[lo:hi]).sum().float()
            if ranks > 1:
                dist.all_reduce(correct)
            accuracy = correct.item() / len(ty)
        times.append(time.perf_counter() - start)
    if rank == 0:
        tail = times[1:] if len(times) > 1 else times
        print(f"mean_epoch_seconds={sum(tail) / len(tail):.4f} test_accuracy={accuracy:.4f}",
              flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", required=True)
    parser.add_argument("--ranks", type=int, default=1)
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--global_batch_size", type=int, default=64)
    args = parser.parse_args()
    rank = int(os.environ.get("RANK", "-1"))
    if args.ranks == 1:
        train(args, 0, 1)
        return
    if rank >= 0:  # one DDP rank, started below
        dist.init_process_group("gloo", rank=rank, world_size=args.ranks)
        train(args, rank, args.ranks)
        dist.destroy_process_group()
        return
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    procs = []
    for r in range(args.ranks):
        env = dict(os.environ, RANK=str(r), WORLD_SIZE=str(args.ranks), MASTER_ADDR="127.0.0.1",
                   MASTER_PORT=str(port), GLOO_SOCKET_IFNAME="lo")
        procs.append(subprocess.Popen([sys.executable] + sys.argv, env=env))
    sys.exit(max(p.wait() for p in procs))


if __name__ == "__main__":
    main()
