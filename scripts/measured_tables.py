#!/usr/bin/env python3
"""Writes the speed tables of docs/measured.md from `make bench`'s JSON (bench/results/).

`make bench` keeps each benchmark's JSON in bench/results/<bench>.json; this renders the
task rigs' and robot modes' runs (bench_tasks, bench_robot_tasks) as markdown and puts them
between the markers <!-- bench:tasks --> and <!-- /bench:tasks --> in docs/measured.md,
leaving the rest of the file as it is. Usage: scripts/measured_tables.py [RESULTS_DIR [DOC]]
(make measured). Exit 2 with one line when a file is missing or malformed.
"""
import json
import os
import sys

BEGIN, END = "<!-- bench:tasks -->", "<!-- /bench:tasks -->"
STAGES = ("collision", "search", "solve")


def fail(msg):
    print(f"measured_tables: {msg}", file=sys.stderr)
    sys.exit(2)


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        fail(f"{path}: {e.strerror} (run `make bench` first)")
    except json.JSONDecodeError as e:
        fail(f"{path}: not JSON ({e.msg} at line {e.lineno})")


def number(x):
    """x with three significant digits and thousands separators, as the tables write them"""
    if x is None:
        return "-"
    if x >= 100:
        return f"{round(x):,}"
    return f"{x:.3g}"


def row(r):
    label = f"{r['task']} {r['mode']}"
    if r.get("controller"):
        label += f" {r['controller']}"
    if r.get("mount"):
        label += f", {r['mount']}"
    label += f" ({r['dt'] * 1e3:g} ms)"
    stage = r.get("stage_us", {})
    cells = [label, number(r.get("steps_per_s")), number(r.get("realtime_factor")),
             number(r.get("steps_per_s_end_to_end"))]
    cells += [number(stage.get(s)) for s in STAGES]
    cells.append(r.get("status", "?"))
    return "| " + " | ".join(cells) + " |"


def table(results):
    lines = ["| run | steps/s | x real time | end to end steps/s | collision us | search us | "
             "solve us | status |", "|---|---|---|---|---|---|---|---|"]
    for name in ("bench_tasks", "bench_robot_tasks"):
        doc = load(os.path.join(results, name + ".json"))
        runs = doc.get("runs")
        if not isinstance(runs, list):
            fail(f"{name}.json: no 'runs' list")
        lines += [row(r) for r in runs]
    return "\n".join(lines)


def main():
    results = sys.argv[1] if len(sys.argv) > 1 else "bench/results"
    doc_path = sys.argv[2] if len(sys.argv) > 2 else "docs/measured.md"
    try:
        with open(doc_path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        fail(f"{doc_path}: {e.strerror}")
    i, j = text.find(BEGIN), text.find(END)
    if i < 0 or j < i:
        fail(f"{doc_path}: no {BEGIN} ... {END} markers")
    new = text[: i + len(BEGIN)] + "\n" + table(results) + "\n" + text[j:]
    tmp = doc_path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(new)
    os.replace(tmp, doc_path)
    print(f"wrote the speed table of {doc_path} from {results}")


if __name__ == "__main__":
    main()
