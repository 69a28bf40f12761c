# The batched environments of tasks/vec_env.h as a Gymnasium-style vector environment
# (Gymnasium's conventions, without depending on it): make_vec(task, num_envs, **settings)
# -> VecEnv with reset(seed) -> (obs, info) and step(actions) -> (obs, rewards, terminated,
# truncated, info), auto-reset in Gymnasium 1.x's "next step" mode.
#
# No copies: obs, rewards, terminated, truncated and info["success"] are read-only NumPy arrays
# over the batch's own output buffers, which stay at one address from create to destroy and
# which every reset and step overwrites in place. The arrays hold a reference to the batch, so
# a view kept past close() keeps the C memory alive (the batch is destroyed once the last view
# is gone) instead of pointing at freed memory.
import ctypes
import math
import numbers

import numpy as np

from . import _lib
from ._lib import ERR_LEN, TF_VEC_ENV_MAX_ENVS

__all__ = ["Box", "VecEnv", "make_vec", "default_settings"]

_U64 = 1 << 64


class Box:
    """A box of real vectors: low <= x <= high elementwise (Gymnasium's Box, simply)."""

    def __init__(self, low, high, shape, dtype=np.float64):
        self.shape = tuple(int(n) for n in shape)
        self.dtype = np.dtype(dtype)
        self.low = np.full(self.shape, low, dtype=self.dtype)
        self.high = np.full(self.shape, high, dtype=self.dtype)

    def sample(self, rng=None):
        """A uniform sample (a normal one along unbounded axes); rng: a numpy Generator."""
        rng = np.random.default_rng() if rng is None else rng
        bounded = np.isfinite(self.low) & np.isfinite(self.high)
        x = rng.standard_normal(self.shape)
        u = rng.uniform(np.where(bounded, self.low, 0), np.where(bounded, self.high, 1))
        return np.where(bounded, u, x).astype(self.dtype)

    def contains(self, x):
        x = np.asarray(x)
        return (
            x.shape == self.shape
            and bool(np.all(x >= self.low))
            and bool(np.all(x <= self.high))
        )

    def __contains__(self, x):
        return self.contains(x)

    def __eq__(self, other):
        return (
            isinstance(other, Box)
            and self.shape == other.shape
            and self.dtype == other.dtype
            and np.array_equal(self.low, other.low)
            and np.array_equal(self.high, other.high)
        )

    def __repr__(self):
        lo = np.unique(self.low)
        hi = np.unique(self.high)
        lo = lo[0] if lo.size == 1 else "..."
        hi = hi[0] if hi.size == 1 else "..."
        return f"Box({lo}, {hi}, {self.shape}, {self.dtype})"


class _Batch:
    # owns the C batch: destroyed when the last reference (the VecEnv or an array view) goes
    __slots__ = ("ptr", "destroy")

    def __init__(self, lib, ptr):
        self.ptr = ptr
        self.destroy = lib.tf_vec_env_destroy

    def __del__(self):
        ptr, self.ptr = self.ptr, None
        if ptr:
            self.destroy(ptr)


class _View:
    # a C buffer for np.asarray: read-only, no copy, and the batch kept alive by the array
    def __init__(self, batch, address, shape, typestr):
        self.batch = batch
        self.__array_interface__ = {
            "version": 3,
            "data": (address, True),
            "shape": shape,
            "typestr": typestr,
        }


def _view(batch, pointer, shape, typestr):
    address = ctypes.cast(pointer, ctypes.c_void_p).value
    if not address:
        raise RuntimeError("tightfit: the batch has no output buffer")
    return np.asarray(_View(batch, address, shape, typestr))


def _setting_text(key, value):
    # a Python value as the key=value string the C side parses
    if isinstance(value, (bool, np.bool_)):
        return "1" if value else "0"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return repr(float(value))  # the shortest text that reads back as the same double
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple, np.ndarray)):
        return ",".join(_setting_text(key, x) for x in np.asarray(value).ravel().tolist())
    kind = type(value).__name__
    raise ValueError(f"{key}: a number, a string, a bool or a list of numbers (got {kind})")


def _seed_int(key, s):
    if isinstance(s, (bool, np.bool_)) or not isinstance(s, numbers.Integral):
        raise ValueError(f"{key}: a seed is an integer in [0, 2^64) (got {s!r})")
    s = int(s)
    if not 0 <= s < _U64:
        raise ValueError(f"{key}: a seed is an integer in [0, 2^64) (got {s})")
    return s


def _names(text):
    return [] if not text else text.decode().split(",")


def default_settings():
    """The batch's own settings and their defaults (tf_vec_env_settings_default)."""
    lib = _lib.load()
    s = _lib.TfVecEnvSettings()
    lib.tf_vec_env_settings_default(s)
    return {name: getattr(s, name) for name, _ in _lib.TfVecEnvSettings._fields_}


class VecEnv:
    """N environments of one task configuration, stepped together (see make_vec)."""

    def __init__(self, task, num_envs, **settings):
        if not isinstance(task, str):
            raise ValueError(f"task: a task name (got {task!r})")
        if isinstance(num_envs, (bool, np.bool_)) or not isinstance(num_envs, numbers.Integral):
            raise ValueError(f"num_envs must be an integer (got {num_envs!r})")
        num_envs = int(num_envs)
        if not 1 <= num_envs <= TF_VEC_ENV_MAX_ENVS:
            raise ValueError(f"num_envs must be in [1, {TF_VEC_ENV_MAX_ENVS}] (got {num_envs})")
        lib = self._lib = _lib.load()
        self._batch = None
        keys = [k.encode() for k in settings]
        values = [_setting_text(k, v).encode() for k, v in settings.items()]
        n = len(keys)
        ckeys = (ctypes.c_char_p * max(n, 1))(*keys)
        cvalues = (ctypes.c_char_p * max(n, 1))(*values)
        self._err = ctypes.create_string_buffer(ERR_LEN)
        ptr = lib.tf_vec_env_create(task.encode(), num_envs, ckeys, cvalues, n, self._err, ERR_LEN)
        if not ptr:
            raise ValueError(self._error())
        batch = self._batch = _Batch(lib, ptr)
        self.settings = dict(settings)
        self.num_envs = lib.tf_vec_env_num_envs(ptr)
        self.action_dim = lib.tf_vec_env_action_dim(ptr)
        self.obs_dim = lib.tf_vec_env_obs_dim(ptr)
        self.threads = lib.tf_vec_env_threads(ptr)
        self.decimation = lib.tf_vec_env_decimation(ptr)
        self.policy_dt = lib.tf_vec_env_policy_dt(ptr)
        self.max_episode_steps = lib.tf_vec_env_max_steps(ptr)
        self.task = lib.tf_vec_env_task(ptr).decode()
        self.mode = lib.tf_vec_env_mode(ptr).decode()
        self.has_script = bool(lib.tf_vec_env_has_script(ptr))
        self.action_names = _names(lib.tf_vec_env_action_names(ptr))
        # "name:count" groups -> name -> slice, and one name per component
        self.obs_groups = {}
        self.obs_names = []
        at = 0
        for group in _names(lib.tf_vec_env_obs_names(ptr)):
            name, _, count = group.partition(":")
            count = int(count or 1)
            self.obs_groups[name] = slice(at, at + count)
            self.obs_names += [name] if count == 1 else [f"{name}[{k}]" for k in range(count)]
            at += count
        if at != self.obs_dim:  # groups that do not add up: plain indices
            self.obs_groups, self.obs_names = {}, [f"obs[{k}]" for k in range(self.obs_dim)]
        N = self.num_envs
        self.single_action_space = Box(-1.0, 1.0, (self.action_dim,))
        self.action_space = Box(-1.0, 1.0, (N, self.action_dim))
        self.single_observation_space = Box(-np.inf, np.inf, (self.obs_dim,))
        self.observation_space = Box(-np.inf, np.inf, (N, self.obs_dim))
        self.metadata = {
            "autoreset_mode": (
                "Disabled"
                if _setting_text("autoreset", settings.get("autoreset", 1)) in ("0", "false")
                else "NextStep"
            ),
            "render_modes": [],
            "task": self.task,
            "mode": self.mode,
            "policy_dt": self.policy_dt,
            "decimation": self.decimation,
            "max_episode_steps": self.max_episode_steps,
        }
        # the outputs: views of the batch's buffers (one address for the batch's life)
        self._obs = _view(batch, lib.tf_vec_env_obs(ptr), (N, self.obs_dim), "<f8")
        self._rewards = _view(batch, lib.tf_vec_env_rewards(ptr), (N,), "<f8")
        # uint8 0 / 1 in C, read as NumPy bools (one byte each): the same memory
        self._terminated = _view(batch, lib.tf_vec_env_terminated(ptr), (N,), "|b1")
        self._truncated = _view(batch, lib.tf_vec_env_truncated(ptr), (N,), "|b1")
        self._success = _view(batch, lib.tf_vec_env_success(ptr), (N,), "|b1")
        self._all = np.ones(N, dtype=bool)
        self._all.flags.writeable = False
        self._action_shape = (N, self.action_dim)
        self._metrics = _lib.TfMetrics()
        # the calls of a step, looked up once
        self._ptr = ptr
        self._c_step = lib.tf_vec_env_step

    # ---------------------------------------------------------------- helpers

    def _error(self):
        return self._err.value.decode(errors="replace") or "tightfit: failed (no message)"

    def _live(self):
        if self._batch is None:
            raise RuntimeError("tightfit: the VecEnv is closed")
        return self._ptr

    # ---------------------------------------------------------------- Gymnasium's calls

    def reset(self, *, seed=None, options=None):
        """Builds the environments; returns (obs, info).

        seed: None (a fresh random seed), an int (environment i is environment i of `tightfit
        run --seed seed --envs N`), or a sequence of N ints (environment i is environment 0 of
        `tightfit run --seed seed[i]`). options={"reset_mask": N bools} rebuilds only those
        environments (seed then None or a sequence: the masked ones' seeds are read).
        """
        ptr = self._live()
        lib, N = self._lib, self.num_envs
        mask = None
        for key in options or {}:
            if key != "reset_mask":
                raise ValueError(f"options: unknown key '{key}' (valid: reset_mask)")
        if options and options.get("reset_mask") is not None:
            mask = np.ascontiguousarray(options["reset_mask"])
            if mask.shape != (N,) or mask.dtype.kind not in "bui":
                raise ValueError(f"reset_mask: {N} bools (got shape {mask.shape}, {mask.dtype})")
            mask = (mask != 0).astype(np.uint8)
            if seed is not None and not isinstance(seed, (list, tuple, np.ndarray)):
                raise ValueError("seed: a masked reset takes a sequence of per-environment seeds")
        if seed is not None and not isinstance(seed, (list, tuple, np.ndarray)):
            rc = lib.tf_vec_env_reset(ptr, _seed_int("seed", seed), self._err, ERR_LEN)
        else:
            if seed is None:
                rng = np.random.default_rng()
                seeds = rng.integers(0, _U64, size=N, dtype=np.uint64)
            else:
                if len(seed) != N:
                    raise ValueError(f"seed: {N} per-environment seeds (got {len(seed)})")
                seeds = np.array(
                    [_seed_int(f"seed[{i}]", s) for i, s in enumerate(seed)], dtype=np.uint64
                )
            at_mask = None if mask is None else mask.ctypes.data
            rc = lib.tf_vec_env_reset_seeds(ptr, seeds.ctypes.data, at_mask, self._err, ERR_LEN)
        if rc:
            raise RuntimeError(self._error())
        info = {
            "seed": self.seeds(),
            "env_index": self.env_indices(),
        }
        info["_seed"] = info["_env_index"] = self._all if mask is None else mask.astype(bool)
        return self._obs, info

    def step(self, actions):
        """One policy step; returns (obs, rewards, terminated, truncated, info).

        actions: (num_envs, action_dim), each component clipped to [-1, 1]. The arrays returned
        are views of the batch's buffers that the next reset or step overwrites: copy what you
        keep. info["success"]: the task's success rule after the step.
        """
        ptr = self._live()
        try:
            a = np.ascontiguousarray(actions, dtype=np.float64)
        except (TypeError, ValueError) as e:
            raise ValueError(f"actions: not an array of numbers ({e})") from None
        if a.shape != self._action_shape:
            raise ValueError(
                f"actions: shape {a.shape}, the batch takes {self._action_shape} "
                "(num_envs x action_dim)"
            )
        if self._c_step(ptr, a.ctypes.data, self._err, ERR_LEN):
            msg = self._error()
            # a NaN or infinite action is refused before anything ran; the rest is the batch's
            raise (ValueError if msg.startswith("action[") else RuntimeError)(msg)
        info = {"success": self._success, "_success": self._all}
        return self._obs, self._rewards, self._terminated, self._truncated, info

    def close(self):
        """Releases the batch (its threads and environments) once no array view of it is
        left; idempotent."""
        batch = getattr(self, "_batch", None)
        if batch is None:
            return
        self._batch = None
        self._ptr = None
        self._obs = self._rewards = self._terminated = self._truncated = self._success = None
        del batch  # the last reference unless a caller still holds an output array

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self):
        state = "closed" if self._batch is None else f"{self.threads} threads"
        return (
            f"<tightfit.VecEnv {self.task} ({self.mode}) x {self.num_envs}: obs {self.obs_dim}, "
            f"action {self.action_dim}, policy_dt {self.policy_dt:g} s, {state}>"
        )

    # ---------------------------------------------------------------- the rest of the API

    @property
    def observations(self):
        """The last reset's or step's observations (num_envs x obs_dim), a view."""
        self._live()
        return self._obs

    def scripted_actions(self, out=None):
        """The actions the task's script would take now (num_envs x action_dim): stepping with
        them runs the scripted robot mode (or a rig's own drive) as a policy."""
        ptr = self._live()
        if out is None:
            out = np.empty(self._action_shape, dtype=np.float64)
        elif (
            not isinstance(out, np.ndarray)
            or out.shape != self._action_shape
            or out.dtype != np.float64
            or not out.flags.c_contiguous
            or not out.flags.writeable
        ):
            raise ValueError(
                f"out: a writable C-contiguous float64 array of shape {self._action_shape}"
            )
        if self._lib.tf_vec_env_scripted_actions(ptr, out.ctypes.data, self._err, ERR_LEN):
            raise RuntimeError(self._error())
        return out

    def metrics(self, i):
        """Environment i's metrics now, as `tightfit run` reports an environment: a dict of
        floats, ints, bools and strings (status, every probe's metrics, the task's own)."""
        ptr = self._live()
        if isinstance(i, (bool, np.bool_)) or not isinstance(i, numbers.Integral):
            raise ValueError(f"i: an environment index (got {i!r})")
        i = int(i)
        if not 0 <= i < self.num_envs:
            raise IndexError(f"i: environment {i} out of range [0, {self.num_envs})")
        m = self._metrics
        if self._lib.tf_vec_env_metrics(ptr, i, m):
            raise RuntimeError(f"env {i} is not built: reset the batch first")
        out = {}
        for k in range(m.n):
            item = m.item[k]
            kind, value = item.kind, item.value
            if kind == _lib.TF_METRIC_TEXT:
                value = item.text.decode(errors="replace")
            elif kind == _lib.TF_METRIC_BOOL:
                value = bool(value)
            elif kind == _lib.TF_METRIC_INT and math.isfinite(value):
                value = int(value)
            out[item.name.decode(errors="replace")] = value
        return out

    def metric(self, name):
        """One metric of every environment: (num_envs,) float64, NaN where an environment
        lacks it (texts read NaN; bools and counts as numbers)."""
        ptr = self._live()
        if not isinstance(name, str):
            raise ValueError(f"name: a metric name (got {name!r})")
        out = np.empty(self.num_envs, dtype=np.float64)
        if self._lib.tf_vec_env_metric(ptr, name.encode(), out.ctypes.data, self._err, ERR_LEN):
            raise ValueError(self._error())
        return out

    def metric_names(self, i=0):
        """The names metrics(i) holds, in its order."""
        return list(self.metrics(i))

    def seeds(self):
        """(num_envs,) uint64: each environment's episode is `tightfit run --seed <seed>`..."""
        ptr = self._live()
        f = self._lib.tf_vec_env_seed
        return np.array([f(ptr, i) for i in range(self.num_envs)], dtype=np.uint64)

    def env_indices(self):
        """(num_envs,) int: ... environment <index> of that run."""
        ptr = self._live()
        f = self._lib.tf_vec_env_index
        return np.array([f(ptr, i) for i in range(self.num_envs)], dtype=np.int64)

    def episode_steps(self):
        """(num_envs,) int: the policy steps each environment has taken in its episode."""
        ptr = self._live()
        f = self._lib.tf_vec_env_episode_steps
        return np.array([f(ptr, i) for i in range(self.num_envs)], dtype=np.int64)


def make_vec(task, num_envs, **settings):
    """N environments of one task configuration (tasks/vec_env.h, docs/train.md).

    settings: the keys `tightfit run` and a sweep use, as Python values (numbers, strings,
    bools, lists of numbers): mode ('rig' | 'robot'), controller, solver, dt, substeps,
    duration, threads, decimation, autoreset, terminate_on_success, max_speed,
    max_rot_speed, success_bonus, overlap_weight, and any task parameter (clearance_um, ...).
    A bad task, key or value raises ValueError with the C side's one line naming it.
    """
    return VecEnv(task, num_envs, **settings)
