#!/usr/bin/env python3
"""Compares two sweeps' results.jsonl "timings aside": the same runs, each once, with the same
values for every key but the wall-clock ones (throughput.*, steps_per_s, realtime_factor).
Prints one line and exits 0 when equal, 1 with the first difference otherwise."""
import json
import sys

TIMING = ("steps_per_s", "realtime_factor")


def rows(path):
    out = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            row = json.loads(line)
            rid = row["run_id"]
            if rid in out:
                sys.exit(f"{path}:{n}: run {rid} appears twice")
            out[rid] = {k: v for k, v in row.items()
                        if not k.startswith("throughput.") and k not in TIMING}
    return out


def main():
    a, b = rows(sys.argv[1]), rows(sys.argv[2])
    if set(a) != set(b):
        only = sorted(set(a) ^ set(b))
        sys.exit(f"different runs: {len(a)} and {len(b)} rows; {only[0]} is in one only")
    for rid in sorted(a):
        if a[rid] != b[rid]:
            keys = sorted(k for k in set(a[rid]) | set(b[rid]) if a[rid].get(k) != b[rid].get(k))
            sys.exit(f"run {rid}: {keys[0]} differs: {a[rid].get(keys[0])!r} and "
                     f"{b[rid].get(keys[0])!r}")
    print(f"equal: {len(a)} runs, timings aside")


if __name__ == "__main__":
    main()
