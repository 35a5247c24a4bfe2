#!/usr/bin/env python3
"""Writes the graph and starting levels of bfs.launch.json (raw little-endian int32 files).

    examples/cuda/bfs_graph.py

An undirected random graph of 1024 vertices in CSR form: every vertex picks 1 to 6 random
neighbours (most pick few, some many), edges are made symmetric, duplicates and self loops
dropped, and each row is sorted. The levels file holds a BFS from vertex 0 after its first three
level expansions (levels 0 to 3 set, -1 elsewhere), so the launch expands level 3: many
threads active, uneven degrees, data-dependent loops. Deterministic (fixed seed).
"""
import random
import struct
from collections import deque
from pathlib import Path

VERTICES = 1024
SEED = 2024
START_LEVEL = 3


def graph(vertices=VERTICES):
    """The graph in CSR form: (row offsets, columns). Other sizes (scripts/speed uses 65,536
    vertices) draw the same degree distribution."""
    rnd = random.Random(SEED)
    adj = [set() for _ in range(vertices)]
    for v in range(vertices):
        degree = min(6, 1 + int(rnd.expovariate(0.6)))
        for _ in range(degree):
            u = rnd.randrange(vertices)
            if u != v:
                adj[v].add(u)
                adj[u].add(v)
    rows = [0]
    cols = []
    for v in range(vertices):
        cols.extend(sorted(adj[v]))
        rows.append(len(cols))
    return rows, cols


def levels_after(rows, cols, expansions):
    level = [-1] * (len(rows) - 1)
    level[0] = 0
    frontier = deque([0])
    while frontier:
        v = frontier.popleft()
        if level[v] >= expansions:
            continue
        for u in cols[rows[v]:rows[v + 1]]:
            if level[u] == -1:
                level[u] = level[v] + 1
                frontier.append(u)
    return level


def write(path, values):
    path.write_bytes(struct.pack("<%di" % len(values), *values))


def main():
    here = Path(__file__).resolve().parent
    rows, cols = graph()
    levels = levels_after(rows, cols, START_LEVEL)
    write(here / "bfs_row_offsets.bin", rows)
    write(here / "bfs_columns.bin", cols)
    write(here / "bfs_levels.bin", levels)
    full = levels_after(rows, cols, VERTICES)
    print("vertices %d, edges %d (directed), BFS depth %d, reached %d; start level %d has %d vertices"
          % (VERTICES, len(cols), max(full), sum(1 for x in full if x >= 0), START_LEVEL,
             levels.count(START_LEVEL)))


if __name__ == "__main__":
    main()
