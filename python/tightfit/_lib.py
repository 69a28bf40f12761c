# Loads libtightfit.so through ctypes and declares the C API of tasks/vec_env.h: every
# function's argument and result types, and the two structs Python reads (tf_metrics of
# probes/metrics.h, tf_vec_env_settings). Nothing here allocates or wraps; vec_env.py does.
#
# Where the library is: $TIGHTFIT_LIB when set, else build/libtightfit.so of the checkout this
# package sits in (python/tightfit -> ../../build/libtightfit.so), which `make python` builds.
# The CLI (run(), sweep()) is looked up the same way: $TIGHTFIT_BIN, else `tightfit` beside
# the library.
import ctypes
import os
from ctypes import (
    POINTER,
    Structure,
    c_char,
    c_char_p,
    c_double,
    c_int,
    c_long,
    c_size_t,
    c_uint8,
    c_uint64,
    c_void_p,
)

_HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_BUILD = os.path.normpath(os.path.join(_HERE, "..", "..", "build"))

# probes/metrics.h: fixed-size storage, mirrored field by field (tests/test_lib.py checks
# these numbers against the header when the source tree is present)
TF_METRICS_MAX = 160
TF_METRIC_NAME = 48
TF_METRIC_TEXT_LEN = 192
TF_METRIC_NUMBER, TF_METRIC_INT, TF_METRIC_BOOL, TF_METRIC_TEXT = 0, 1, 2, 3
# tasks/vec_env.h
TF_VEC_ENV_MAX_ENVS = 65536
ERR_LEN = 512  # the err buffer handed to every call that can fail


class TfMetric(Structure):
    _fields_ = [
        ("name", c_char * TF_METRIC_NAME),
        ("kind", c_int),  # tf_metric_kind, an enum: an int
        ("value", c_double),
        ("text", c_char * TF_METRIC_TEXT_LEN),
    ]


class TfMetrics(Structure):
    _fields_ = [
        ("n", c_int),
        ("overflow", c_int),
        ("item", TfMetric * TF_METRICS_MAX),
    ]


class TfVecEnvSettings(Structure):
    _fields_ = [
        ("decimation", c_int),
        ("autoreset", c_int),
        ("terminate_on_success", c_int),
        ("max_speed", c_double),
        ("max_rot_speed", c_double),
        ("success_bonus", c_double),
        ("overlap_weight", c_double),
    ]


def library_path():
    """The shared library's path: $TIGHTFIT_LIB, else <checkout>/build/libtightfit.so."""
    env = os.environ.get("TIGHTFIT_LIB")
    if env:
        return os.path.abspath(env)
    return os.path.join(DEFAULT_BUILD, "libtightfit.so")


def cli_path():
    """The CLI's path: $TIGHTFIT_BIN, else `tightfit` in the library's folder."""
    env = os.environ.get("TIGHTFIT_BIN")
    if env:
        return os.path.abspath(env)
    return os.path.join(os.path.dirname(library_path()), "tightfit")


_P = c_void_p  # the batch: an opaque pointer
_ERR = (c_char_p, c_size_t)  # err, errlen
# name: (restype, argtypes), in the header's order
_API = {
    "tf_vec_env_settings_default": (None, (POINTER(TfVecEnvSettings),)),
    # tf_run_options is not mirrored (Python goes through key=value strings): opaque
    "tf_vec_env_parse_settings": (
        c_int,
        (c_char_p, POINTER(c_char_p), POINTER(c_char_p), c_int, c_void_p,
         POINTER(TfVecEnvSettings)) + _ERR,
    ),
    "tf_vec_env_create": (
        _P, (c_char_p, c_int, POINTER(c_char_p), POINTER(c_char_p), c_int) + _ERR
    ),
    "tf_vec_env_create_run": (_P, (c_void_p, c_int, POINTER(TfVecEnvSettings)) + _ERR),
    "tf_vec_env_destroy": (None, (_P,)),
    "tf_vec_env_num_envs": (c_int, (_P,)),
    "tf_vec_env_action_dim": (c_int, (_P,)),
    "tf_vec_env_obs_dim": (c_int, (_P,)),
    "tf_vec_env_threads": (c_int, (_P,)),
    "tf_vec_env_decimation": (c_int, (_P,)),
    "tf_vec_env_policy_dt": (c_double, (_P,)),
    "tf_vec_env_max_steps": (c_long, (_P,)),
    "tf_vec_env_action_names": (c_char_p, (_P,)),
    "tf_vec_env_obs_names": (c_char_p, (_P,)),
    "tf_vec_env_task": (c_char_p, (_P,)),
    "tf_vec_env_mode": (c_char_p, (_P,)),
    "tf_vec_env_has_script": (c_int, (_P,)),
    "tf_vec_env_reset": (c_int, (_P, c_uint64) + _ERR),
    # arrays go in as plain addresses (c_void_p): an ndarray's .ctypes.data, no conversion
    "tf_vec_env_reset_seeds": (c_int, (_P, c_void_p, c_void_p) + _ERR),
    "tf_vec_env_step": (c_int, (_P, c_void_p) + _ERR),
    "tf_vec_env_scripted_actions": (c_int, (_P, c_void_p) + _ERR),
    "tf_vec_env_obs": (POINTER(c_double), (_P,)),
    "tf_vec_env_rewards": (POINTER(c_double), (_P,)),
    "tf_vec_env_terminated": (POINTER(c_uint8), (_P,)),
    "tf_vec_env_truncated": (POINTER(c_uint8), (_P,)),
    "tf_vec_env_success": (POINTER(c_uint8), (_P,)),
    "tf_vec_env_seed": (c_uint64, (_P, c_int)),
    "tf_vec_env_index": (c_int, (_P, c_int)),
    "tf_vec_env_episode_steps": (c_long, (_P, c_int)),
    "tf_vec_env_metrics": (c_int, (_P, c_int, POINTER(TfMetrics))),
    "tf_vec_env_metric": (c_int, (_P, c_char_p, c_void_p) + _ERR),
    "tf_vec_env_metric_name": (c_char_p, (_P, c_int, c_int)),
}

_lib = None


def load():
    """The loaded library with every tf_vec_env function declared (loaded once)."""
    global _lib
    if _lib is not None:
        return _lib
    path = library_path()
    if not os.path.exists(path):
        raise OSError(
            f"tightfit: no shared library at {path}: run `make python` in the checkout, "
            "or set TIGHTFIT_LIB to libtightfit.so"
        )
    lib = ctypes.CDLL(path)
    for name, (restype, argtypes) in _API.items():
        try:
            fn = getattr(lib, name)
        except AttributeError:
            raise OSError(f"tightfit: {path} lacks {name}: rebuild it (`make python`)") from None
        fn.restype = restype
        fn.argtypes = list(argtypes)
    _lib = lib
    return lib
