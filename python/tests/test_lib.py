# The ctypes declarations against the C headers: the mirrored constants and structs, and every
# function of tasks/vec_env.h declared (when the source tree is beside the package).
import ctypes
import os
import re

import pytest

from tightfit import _lib
from conftest import ROOT


def header(path):
    full = os.path.join(ROOT, path)
    if not os.path.exists(full):
        pytest.skip(f"{path}: not in this tree")
    with open(full) as f:
        return f.read()


def define(text, name):
    return int(re.search(rf"#define {name} (\d+)", text).group(1))


def test_metrics_struct_mirrors_the_header():
    h = header("probes/metrics.h")
    assert define(h, "TF_METRICS_MAX") == _lib.TF_METRICS_MAX
    assert define(h, "TF_METRIC_NAME") == _lib.TF_METRIC_NAME
    assert define(h, "TF_METRIC_TEXT_LEN") == _lib.TF_METRIC_TEXT_LEN
    # name, kind, value (8-aligned), text; then n, overflow, items
    assert ctypes.sizeof(_lib.TfMetric) == 48 + 4 + 4 + 8 + 192
    assert _lib.TfMetrics.item.offset == 8


def test_every_vec_env_function_is_declared():
    h = header("tasks/vec_env.h")
    assert define(h, "TF_VEC_ENV_MAX_ENVS") == _lib.TF_VEC_ENV_MAX_ENVS
    names = set(re.findall(r"\b(tf_vec_env_\w+)\(", h))
    assert names == set(_lib._API)
    lib = _lib.load()
    for name in names:
        assert getattr(lib, name).argtypes is not None


def test_settings_struct_mirrors_the_header():
    h = header("tasks/vec_env.h")
    body = re.search(r"typedef struct tf_vec_env_settings \{(.*?)\}", h, re.S).group(1)
    fields = re.findall(r"^\s*(int|double)\s+(\w+);", body, re.M)
    fields_ = _lib.TfVecEnvSettings._fields_
    ours = [("int" if t is ctypes.c_int else "double", n) for n, t in fields_]
    assert fields == ours
