#!/usr/bin/env python3
"""The Optuna side of hptune_bench (bench/README.md, "hptune"): seeded studies of
Optuna 3.1 (Debian's python3-optuna) on the bench's test functions, run the way
hptune_bench runs trainpkg's: `--parallel` trials pending at once, the oldest
finishing first, then the free slot refilled (ask/tell). Prints one JSON object:
{"regrets": [...one per seed...], "seconds": s, "probe": f(centre of the box)}.
hptune_bench compares the probe with its own function, so both sides evaluate
the same function.

  /usr/bin/python3 bench/hptune/optuna_peer.py --function hartmann6 --budget 60 \
      --parallel 2 --sampler tpe --seeds 30 --first-seed 1
Samplers: tpe (TPESampler), mtpe (TPESampler(multivariate=True)), cmaes (CmaEsSampler).
"""
import argparse
import collections
import json
import math
import time
import warnings

import optuna


def branin(x):
    b, c, t = 5.1 / (4 * math.pi ** 2), 5 / math.pi, 1 / (8 * math.pi)
    term = x[1] - b * x[0] ** 2 + c * x[0] - 6
    return term * term + 10 * (1 - t) * math.cos(x[0]) + 10


ALPHA = [1.0, 1.2, 3.0, 3.2]
A = [[10, 3, 17, 3.5, 1.7, 8], [0.05, 10, 17, 0.1, 8, 14], [3, 3.5, 1.7, 10, 17, 8],
     [17, 8, 0.05, 10, 0.1, 14]]
P = [[1312, 1696, 5569, 124, 8283, 5886], [2329, 4135, 8307, 3736, 1004, 9991],
     [2348, 1451, 3522, 2883, 3047, 6650], [4047, 8828, 8732, 5743, 1091, 381]]


def hartmann6(x):
    total = 0.0
    for i in range(4):
        inner = sum(A[i][j] * (x[j] - P[i][j] * 1e-4) ** 2 for j in range(6))
        total += ALPHA[i] * math.exp(-inner)
    return -total


def conditional_decoy(y):
    return -3 + (branin(y) - 0.397887357729738) / 10


FUNCTIONS = {
    "branin": (branin, [-5.0, 0.0], [10.0, 15.0], 0.397887357729738),
    "hartmann6": (hartmann6, [0.0] * 6, [1.0] * 6, -3.32236801141551),
    # categorical `model`; its "hartmann6" branch is this entry's box and
    # function (the probe), its "branin" branch the decoy (test_functions.h)
    "conditional": (hartmann6, [0.0] * 6, [1.0] * 6, -3.32236801141551),
}


def make_sampler(name, seed):
    if name == "tpe":
        return optuna.samplers.TPESampler(seed=seed)
    if name == "mtpe":
        return optuna.samplers.TPESampler(seed=seed, multivariate=True)
    if name == "cmaes":
        return optuna.samplers.CmaEsSampler(seed=seed)
    raise SystemExit(f"unknown sampler {name}: tpe, mtpe or cmaes")


def run_study(function, sampler, budget, parallel, seed):
    evaluate, lower, upper, minimum = FUNCTIONS[function]
    study = optuna.create_study(direction="minimize", sampler=make_sampler(sampler, seed))
    running = collections.deque()
    started, best = 0, math.inf
    while started < budget or running:
        while len(running) < parallel and started < budget:
            trial = study.ask()
            if function == "conditional":  # define-by-run: the children of the chosen model
                model = trial.suggest_categorical("model", ["hartmann6", "branin"])
                if model == "hartmann6":
                    x = [trial.suggest_float(f"x{i + 1}", 0.0, 1.0) for i in range(6)]
                else:
                    y = [trial.suggest_float("y1", -5.0, 10.0), trial.suggest_float("y2", 0.0, 15.0)]
                running.append((trial, (model, x if model == "hartmann6" else y)))
            else:
                x = [trial.suggest_float(f"x{i + 1}", lower[i], upper[i])
                     for i in range(len(lower))]
                running.append((trial, x))
            started += 1
        trial, x = running.popleft()
        if function == "conditional":
            model, children = x
            value = hartmann6(children) if model == "hartmann6" else conditional_decoy(children)
        else:
            value = evaluate(x)
        study.tell(trial, value)
        best = min(best, value)
    return best - minimum


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--function", choices=sorted(FUNCTIONS), required=True)
    parser.add_argument("--budget", type=int, required=True)
    parser.add_argument("--parallel", type=int, default=1)
    parser.add_argument("--sampler", choices=["tpe", "mtpe", "cmaes"], required=True)
    parser.add_argument("--seeds", type=int, default=30)
    parser.add_argument("--first-seed", type=int, default=1)
    args = parser.parse_args()
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.filterwarnings("ignore")
    evaluate, lower, upper, _ = FUNCTIONS[args.function]
    start = time.monotonic()
    regrets = [run_study(args.function, args.sampler, args.budget, args.parallel, seed)
               for seed in range(args.first_seed, args.first_seed + args.seeds)]
    print(json.dumps({"regrets": regrets, "seconds": time.monotonic() - start,
                      "probe": evaluate([(lo + hi) / 2 for lo, hi in zip(lower, upper)]),
                      "optuna": optuna.__version__}))


if __name__ == "__main__":
    main()
