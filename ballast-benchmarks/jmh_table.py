#!/usr/bin/env python3
"""Turns PickerBenchmark's JMH JSON results into the tables of docs/benchmarks.md.

Usage: python3 ballast-benchmarks/jmh_table.py results-t1.json [results-t2.json ...]
Each Ballast policy is compared with the gRPC picker that does the same job.
"""
import json
import sys

PEER = {
    "round_robin": "round_robin",
    "weighted_round_robin": "weighted_round_robin",
    "interleaved_weighted_round_robin": "weighted_round_robin",
    "least_loaded_round_robin": "least_request_experimental",
    "power_of_two_choices": "least_request_experimental",
    "fair_share": "least_request_experimental",
}


def load(path):
    rows = {}
    for r in json.load(open(path)):
        if not r["benchmark"].endswith("pickAndComplete"):
            continue
        p = r["params"]
        key = (p["policy"], int(p["backends"]))
        # Without -prof gc there is no allocation figure: shown as "nan B".
        alloc = r.get("secondaryMetrics", {}).get("gc.alloc.rate.norm", {}).get("score", float("nan"))
        rows[key] = (r["primaryMetric"]["score"], r["primaryMetric"]["scoreError"], alloc, r["threads"])
    return rows


def table(rows):
    threads = next(iter(rows.values()))[3]
    sizes = sorted({k[1] for k in rows})
    print(f"\n**{threads} thread{'s' if threads > 1 else ''}** (ns per pick and complete, lower is better; B = bytes allocated per pick)\n")
    header = "| policy | gRPC peer |" + "".join(f" {n} backends |" for n in sizes)
    print(header)
    print("| --- | --- |" + " ---: |" * len(sizes))
    for name, peer in PEER.items():
        cells = []
        for n in sizes:
            mine = rows.get(("ballast:" + name, n))
            theirs = rows.get(("grpc:" + peer, n))
            if not mine or not theirs:
                cells.append(" n/a |")
                continue
            ratio = mine[0] / theirs[0]
            cells.append(
                f" {mine[0]:.1f} ± {mine[1]:.1f} ns, {mine[2]:.0f} B vs {theirs[0]:.1f} ns, {theirs[2]:.0f} B: **{ratio:.2f}x** |")
        print(f"| `{name}` | `{peer}` |" + "".join(cells))
    print()
    print("| gRPC picker |" + "".join(f" {n} backends |" for n in sizes))
    print("| --- |" + " ---: |" * len(sizes))
    for peer in ["round_robin", "weighted_round_robin", "least_request_experimental"]:
        cells = []
        for n in sizes:
            r = rows.get(("grpc:" + peer, n))
            cells.append(f" {r[0]:.1f} ± {r[1]:.1f} ns, {r[2]:.0f} B |" if r else " n/a |")
        print(f"| `{peer}` |" + "".join(cells))


if __name__ == "__main__":
    for path in sys.argv[1:]:
        table(load(path))
