"""Data-parallel training of the 8x8 digits classifier with PyTorch DDP.

The trainer of a Vertex AI / AI Platform Training job in the seed's shape
(`python -m trainer.task`): every replica joins one process group through
PyTorch's env:// rendezvous (MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK,
which trainpkg sets on the chief and the workers as AI Platform does), over
Gloo on CPU. DistributedSampler gives each rank its share of every epoch;
DistributedDataParallel averages the gradients.

Outputs, as TensorFlow's multi-worker rule has them: the chief (rank 0)
saves the model to AIP_MODEL_DIR (or --model_dir); worker i (rank i + 1)
saves to <model dir>/workertemp_<i> and deletes it. After every epoch the
held-out accuracy goes to the hypertune metric file in cloudml-hypertune's
format, so the same trainer runs under a HyperparameterTuningJob.
"""

import argparse
import gzip
import json
import os
import shutil
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

# cloudml-hypertune's defaults (hypertune/hypertune.py).
DEFAULT_METRIC_PATH = "/tmp/hypertune/output.metrics"
MAX_METRIC_ENTRIES = 100


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data",
        default=os.path.join(os.path.dirname(__file__), "data", "digits.csv.gz"),
        help="the digits file: 64 pixels (0..16) and the label per line")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--global_batch_size", type=int, default=64,
                        help="split evenly among the replicas")
    parser.add_argument("--learning_rate", type=float, default=0.001)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--model_dir", default=os.environ.get("AIP_MODEL_DIR", ""),
                        help="default: AIP_MODEL_DIR; a gs:// path means its /gcs/ mount")
    return parser.parse_args(argv)


def load_digits(path):
    with gzip.open(path, "rt") as f:
        table = np.loadtxt(f, delimiter=",", dtype=np.float32, ndmin=2)
    if table.shape[1] != 65:
        raise ValueError(f"{path}: {table.shape[1]} columns per line; expected 64 pixels and a label")
    return table[:, :64] / 16.0, table[:, 64].astype(np.int64)


def split(features, labels, seed, test_fraction=0.2):
    """The same 80/20 split on every replica (a seeded permutation)."""
    order = np.random.default_rng(seed).permutation(len(labels))
    test_count = int(round(len(labels) * test_fraction))
    test, train = order[:test_count], order[test_count:]

    def subset(rows):
        return TensorDataset(torch.from_numpy(features[rows]), torch.from_numpy(labels[rows]))

    return subset(train), subset(test)


def make_model():
    return nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
                         nn.Linear(128, 10))


def local_path(uri):
    """A model directory as a local path: gs://b/p is Vertex's /gcs/b/p mount."""
    if uri.startswith("gs://"):
        return "/gcs/" + uri[len("gs://"):]
    if uri.startswith("file://"):
        return uri[len("file://"):]
    return uri


def report_metric(tag, value, step):
    """Appends one report to the hypertune file as cloudml-hypertune does:
    the whole file rewritten, the last 100 reports kept, keys sorted."""
    path = os.environ.get("CLOUD_ML_HP_METRIC_FILE", DEFAULT_METRIC_PATH)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    entries = []
    if os.path.exists(path):
        with open(path) as f:
            entries = [line for line in f.read().splitlines() if line]
    entries.append(json.dumps({
        "checkpoint_path": "",
        "global_step": str(int(step)),
        tag: str(float(value)),
        "timestamp": time.time(),
        "trial": str(os.environ.get("CLOUD_ML_TRIAL_ID", 0)),
    }, sort_keys=True))
    with open(path, "w") as f:
        f.write("".join(line + "\n" for line in entries[-MAX_METRIC_ENTRIES:]))


def evaluate(model, test_set, rank, world_size):
    """Held-out loss and accuracy over the whole test set: each rank takes
    every world_size-th example, and the sums are all-reduced."""
    features, labels = test_set.tensors
    features, labels = features[rank::world_size], labels[rank::world_size]
    with torch.no_grad():
        logits = model(features)
        loss = nn.functional.cross_entropy(logits, labels, reduction="sum")
        correct = (logits.argmax(dim=1) == labels).sum()
    totals = torch.tensor([float(loss), float(correct), float(len(labels))], dtype=torch.float64)
    dist.all_reduce(totals)
    return totals[0].item() / totals[2].item(), totals[1].item() / totals[2].item()


def main(argv):
    args = parse_args(argv)
    # env:// reads MASTER_ADDR, MASTER_PORT, WORLD_SIZE and RANK.
    dist.init_process_group("gloo", init_method="env://")
    rank, world_size = dist.get_rank(), dist.get_world_size()
    print(f"rank={rank} world_size={world_size} "
          f"master={os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']}", flush=True)
    if args.global_batch_size < world_size:
        raise SystemExit(f"--global_batch_size={args.global_batch_size} is smaller than the "
                         f"{world_size} replicas")

    torch.manual_seed(args.seed)  # the same initial weights on every rank (DDP broadcasts too)
    train_set, test_set = split(*load_digits(args.data), args.seed)
    sampler = DistributedSampler(train_set, num_replicas=world_size, rank=rank, shuffle=True,
                                 seed=args.seed, drop_last=True)
    loader = DataLoader(train_set, batch_size=args.global_batch_size // world_size,
                        sampler=sampler)
    model = DistributedDataParallel(make_model())
    optimizer = torch.optim.Adam(model.parameters(), lr=args.learning_rate)
    tag = os.environ.get("CLOUD_ML_HP_METRIC_TAG", "accuracy")

    val_accuracy = 0.0
    for epoch in range(args.epochs):
        started = time.monotonic()
        sampler.set_epoch(epoch)
        model.train()
        for features, labels in loader:
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(features), labels).backward()
            optimizer.step()
        model.eval()
        val_loss, val_accuracy = evaluate(model.module, test_set, rank, world_size)
        if rank == 0:
            print(f"epoch {epoch + 1}/{args.epochs} - val_loss {val_loss:.4f} - "
                  f"val_accuracy {val_accuracy:.4f} - {time.monotonic() - started:.3f}s",
                  flush=True)
            report_metric(tag, val_accuracy, epoch + 1)

    if args.model_dir:
        model_dir = local_path(args.model_dir.rstrip("/"))
        write_dir = model_dir if rank == 0 else os.path.join(model_dir, f"workertemp_{rank - 1}")
        os.makedirs(write_dir, exist_ok=True)
        torch.save(model.module.state_dict(), os.path.join(write_dir, "model.pt"))
        if rank == 0:
            print(f"saved {os.path.join(write_dir, 'model.pt')}", flush=True)
        else:
            shutil.rmtree(write_dir)
    dist.barrier()
    dist.destroy_process_group()
    if rank == 0:
        print(f"test_accuracy={val_accuracy:.4f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
