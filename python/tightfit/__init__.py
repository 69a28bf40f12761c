"""tightfit from Python: batched environments for training, and the CLI's run and sweep.

    import tightfit
    env = tightfit.make_vec("peg", 8, mode="robot")
    obs, info = env.reset(seed=0)
    obs, rewards, terminated, truncated, info = env.step(env.action_space.sample())

The package is pure Python over the shared library libtightfit.so (ctypes) that `make python`
builds: $TIGHTFIT_LIB names it, else build/libtightfit.so of the checkout the package is in.
run() and sweep() call the CLI: $TIGHTFIT_BIN, else `tightfit` beside the library. Usage and
conventions: docs/train.md, "Python".
"""
from ._lib import cli_path, library_path
from .cli import CliError, catalog, run, sweep
from .vec_env import Box, VecEnv, default_settings, make_vec

__all__ = [
    "Box",
    "CliError",
    "VecEnv",
    "catalog",
    "cli_path",
    "default_settings",
    "library_path",
    "make_vec",
    "run",
    "sweep",
]
