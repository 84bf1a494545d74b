"""Friendships: an Erdős–Rényi graph G(n, p) with p = degree / n (average degree about `degree`)."""

from __future__ import annotations

import math

from ..rng import stream


def generate_friendships(size: int, degree: float, seed: int) -> list[tuple[int, int]]:
    """Every pair is linked independently with probability degree/size; pairs (a, b) with a > b.

    Geometric skipping (Batagelj & Brandes 2005) visits only the edges, so this is O(n + m).
    """
    if size < 2 or degree <= 0:
        return []
    p = min(degree / size, 1.0)
    if p >= 1.0:
        return [(v, w) for v in range(size) for w in range(v)]
    rng = stream(seed, "friends")
    log_q = math.log(1.0 - p)
    edges = []
    v, w = 1, -1
    while v < size:
        w += 1 + int(math.log(1.0 - rng.random()) / log_q)
        while w >= v and v < size:
            w -= v
            v += 1
        if v < size:
            edges.append((v, w))
    return edges
