#!/usr/bin/python3
# Python overhead per batched step (issue 20's acceptance: under 5 % of the physics time at 64
# environments). A batch of 64 robot-mode peg environments (osc, al, dt 2 ms, decimation 8)
# is reset to seed 0 and stepped through tightfit.VecEnv.step with a fixed random policy whose
# actions are drawn before the clock starts. Each step's wall time is split in two: the C
# call (tf_vec_env_step, timed around the ctypes call inside the step, its argument
# conversion included) and the rest, the Python wrapper's own work (checking and converting
# the actions, building the returned tuple and info). "overhead_ratio" is the rest over the C
# call's time. A second measure runs the wrapper alone (the C call replaced by a stub that
# returns at once) for the wrapper's cost per step without the physics' noise.
#
# Prints one JSON object (as bench/*.c do; `make bench` keeps it in
# bench/results/bench_python.json); never asserts. Arguments: --envs N, --steps N, --threads
# 1,2. Run from the checkout: `TIGHTFIT_LIB=build/libtightfit.so /usr/bin/python3
# bench/bench_python.py` (the library as the package finds it otherwise).
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import numpy as np  # noqa: E402

import tightfit  # noqa: E402


def bench(envs, steps, threads):
    env = tightfit.make_vec("peg", envs, mode="robot", threads=threads)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    actions = [rng.uniform(-1, 1, env.action_space.shape) for _ in range(steps + 1)]
    real = env._c_step
    c_s = 0.0

    def timed(*args):
        nonlocal c_s
        t0 = time.perf_counter()
        rc = real(*args)
        c_s += time.perf_counter() - t0
        return rc

    env._c_step = timed
    env.step(actions[0])  # warm up (first touches of the buffers)
    c_s = 0.0
    t0 = time.perf_counter()
    for a in actions[1:]:
        env.step(a)
    wall = time.perf_counter() - t0
    # the wrapper alone: the C call stubbed out, many times
    env._c_step = lambda *args: 0
    reps = 2000
    t1 = time.perf_counter()
    for k in range(reps):
        env.step(actions[k % steps])
    stub_s = (time.perf_counter() - t1) / reps
    env.close()
    c_step = c_s / steps
    py_step = (wall - c_s) / steps
    return {
        "task": "peg",
        "mode": "robot",
        "envs": envs,
        "threads": threads,
        "decimation": env.decimation,
        "steps": steps,
        "c_step_ms": round(c_step * 1e3, 4),
        "python_us_per_step": round(py_step * 1e6, 3),
        "overhead_ratio": float(f"{py_step / c_step:.4g}"),
        "wrapper_alone_us_per_step": round(stub_s * 1e6, 3),
        "wrapper_alone_ratio": float(f"{stub_s / c_step:.4g}"),
        "env_steps_per_s": round(envs * env.decimation * steps / wall, 1),
    }


def main():
    ap = argparse.ArgumentParser(description="Python overhead per batched step")
    ap.add_argument("--envs", type=int, default=64)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--threads", default="1,2")
    args = ap.parse_args()
    runs = [bench(args.envs, args.steps, int(t)) for t in args.threads.split(",")]
    doc = {
        "bench": "python",
        "target": "overhead_ratio < 0.05 at 64 environments",
        "library": tightfit.library_path(),
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "runs": runs,
    }
    print(json.dumps(doc, indent=1))


if __name__ == "__main__":
    main()
