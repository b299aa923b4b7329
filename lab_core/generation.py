"""Generating words one after another with the toy model and a KV cache.

The model of panel 2 (three heads, W_O, residual, W_U), run as a generator:
the prompt fills each head's cache (prefill), then every step feeds the last
word, projects only that word, attends over its head's cache, and turns the
result into next-word probabilities. The chosen word is the next input.

Choosing: greedy takes the most probable word (on a tie, the first in the
vocabulary's order, so the choice never depends on round-off); sampling
draws from softmax(logits / temperature) with NumPy's legacy RandomState,
whose stream is the same in the page (NumPy 1.17) and in the tests.
"""
from __future__ import annotations

import numpy as np

from .attention import softmax
from .didactic import VOCABULARY, W_O, W_U
from .heads import embed, head_qkv
from .kvcache import cache_step, empty_cache

TIE_TOLERANCE = 1e-9


def decode_step(caches, words, heads):
    # {head id: cache}, the words so far, {head id: head} -> logits [vocab], new caches
    """One step: project only the last word (at its position), extend each
    head's cache, attend, concatenate, W_O, add the residual, unembed with W_U."""
    x = embed(words[-1:])[0]  # [d_model]
    outs, new = [], {}
    for head_id, head in heads.items():
        q, k, v = (m[0] for m in head_qkv(words, head, first=len(words) - 1))
        out, _, new[head_id] = cache_step(caches[head_id], q, k, v)
        outs.append(out)  # [d_v]
    residual = x + np.concatenate(outs) @ np.array(W_O, dtype=float)  # [d_model]
    return residual @ np.array(W_U, dtype=float), new  # [vocab]


def choose(logits, temperature, rng):
    # logits [vocab], float (0: greedy), RandomState -> (index, probs [vocab])
    """The next word's index and the distribution it was chosen from."""
    if temperature == 0:
        probs = softmax(logits)
        top = probs.max()
        return int(np.flatnonzero(probs >= top - TIE_TOLERANCE)[0]), probs
    probs = softmax(logits / temperature)
    return int(rng.choice(len(probs), p=probs)), probs


def generate(prompt, heads, n_new, temperature=0.0, seed=0):
    """Continue `prompt` by n_new words. Returns (tokens, steps): every step
    {"input", "probs" [vocab], "chosen", "cache_rows", "logits"}."""
    rng = np.random.RandomState(seed)
    caches = {}
    for head_id, head in heads.items():
        _, k, v = head_qkv(prompt[:1], head)
        caches[head_id] = empty_cache(k.shape[1], v.shape[1])
    for t in range(1, len(prompt)):  # prefill: the prompt's keys and values go in the cache
        _, caches = decode_step(caches, prompt[:t], heads)
    tokens, steps = list(prompt), []
    for _ in range(n_new):
        logits, caches = decode_step(caches, tokens, heads)
        index, probs = choose(logits, temperature, rng)
        steps.append({"input": tokens[-1], "logits": logits, "probs": probs,
                      "chosen": VOCABULARY[index],
                      "cache_rows": int(next(iter(caches.values()))["k"].shape[0])})
        tokens.append(VOCABULARY[index])
    return tokens, steps
