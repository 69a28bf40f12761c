# Shared settings of the suite: the cheapest configurations that still exercise the robot
# (the peg under osc, short episodes, a few environments), so that the whole suite runs in
# well under a minute on two cores. The library and the CLI are found as the package finds
# them ($TIGHTFIT_LIB / $TIGHTFIT_BIN, else the checkout's build/), which `make test` sets.
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import tightfit  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
# a robot peg whose episodes last 0.1 s (50 control steps, 7 policy steps at decimation 8)
ROBOT = dict(mode="robot", controller="osc", duration=0.1)


@pytest.fixture
def make():
    """tightfit.make_vec with the cheap robot settings, closed after the test."""
    made = []

    def make(num_envs=4, task="peg", **settings):
        # a setting given None is left out (controller=None for a rig)
        settings = {k: v for k, v in {**ROBOT, **settings}.items() if v is not None}
        env = tightfit.make_vec(task, num_envs, **settings)
        made.append(env)
        return env

    yield make
    for env in made:
        env.close()
