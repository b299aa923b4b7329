"""The capstone's lesson, measured: both runs trained in CPython, their figures printed.

For each seed (and each kind of positions) it trains the causal and the
bidirectional decoder from the same weights on the same minibatches
(lab_core/decoder_run.py) and prints what the issue asks of them: the
causal model's held-out loss against the grammar's own entropy + 0,1 nats,
the share of held-out prompts each model continues into a sentence of the
grammar, and the bidirectional training loss against half the causal's.

    .venv/bin/python scripts/model_figures.py [--seeds 0 1 2] [--steps 1000] [--positions rope sinusoidal]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lab_core import decoder_run as R  # noqa: E402
from lab_core import grammar as G  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[R.DEFAULT_SEED])
    parser.add_argument("--steps", type=int, default=R.DEFAULT_STEPS)
    parser.add_argument("--lr", type=float, default=R.DEFAULT_LR)
    parser.add_argument("--positions", nargs="+", default=["rope"], choices=["rope", "sinusoidal"])
    args = parser.parse_args()
    bound = G.entropy_per_word(G.HELD_OUT) + 0.1
    print("grammar: %d sentences (%d training, %d held out), %d words; entropy on the held-out "
          "sentences %.3f nats/word, so the bound is %.3f" % (
              len(G.SENTENCES), len(G.TRAIN), len(G.HELD_OUT), len(G.VOCABULARY), bound - 0.1, bound))
    print("model: %d parameters; batch %d, %d steps, lr %g" % (
        R.D.count_params(R.CONFIG), R.BATCH, args.steps, args.lr))
    header = ("positions", "seed", "causal held", "≤ bound", "causal right", "≥ 90 %",
              "bidir train / causal train", "≤ 0,5", "bidir right", "≤ 30 %", "s")
    print(" | ".join(header))
    ok_all = True
    for positions in args.positions:
        for seed in args.seeds:
            start = time.perf_counter()
            figures = R.lesson(R.train_both(args.lr, seed, args.steps, positions))
            c, b = figures["causal"], figures["bidirectional"]
            ratio = b["train_loss"] / c["train_loss"]
            checks = (c["held_loss"] <= bound, c["correct"] >= 0.9, ratio <= 0.5, b["correct"] <= 0.3)
            ok_all &= all(checks)
            print(" | ".join((positions, str(seed), "%.3f" % c["held_loss"], "yes" if checks[0] else "NO",
                              "%.0f %%" % (100 * c["correct"]), "yes" if checks[1] else "NO",
                              "%.4f" % ratio, "yes" if checks[2] else "NO",
                              "%.0f %%" % (100 * b["correct"]), "yes" if checks[3] else "NO",
                              "%.0f" % (time.perf_counter() - start))), flush=True)
    print("every target met" if ok_all else "some target missed")


if __name__ == "__main__":
    main()
