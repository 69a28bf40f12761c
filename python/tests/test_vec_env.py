# tightfit.make_vec / VecEnv: shapes and dtypes, views without copies, determinism across
# thread counts and resets, refused arguments, a random and the scripted policy's rollouts.
import ctypes
import gc

import numpy as np
import pytest

import tightfit
from tightfit import _lib


def rollout(env, seed, steps, policy_seed=7):
    # obs, rewards and flags of `steps` steps of a fixed random policy, copied
    rng = np.random.default_rng(policy_seed)
    obs, _ = env.reset(seed=seed)
    out = [obs.copy()]
    for _ in range(steps):
        o, r, te, tr, _ = env.step(rng.uniform(-1, 1, env.action_space.shape))
        out += [o.copy(), r.copy(), te.copy(), tr.copy()]
    return out


def same(a, b):
    return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))


def test_reset_and_step_shapes_and_dtypes(make):
    env = make(4)
    assert env.num_envs == 4 and env.mode == "robot" and env.task == "peg"
    assert env.action_dim == 7 and env.obs_dim == 49
    assert env.single_action_space.shape == (7,)
    assert env.action_space.shape == (4, 7) and env.action_space.dtype == np.float64
    assert np.all(env.action_space.low == -1) and np.all(env.action_space.high == 1)
    assert env.observation_space.shape == (4, 49)
    assert len(env.obs_names) == 49 and env.obs_names[0] == "q[0]" and env.obs_names[-1] == "time"
    assert env.obs_groups["tcp_pos"] == slice(14, 17)
    assert env.action_names == ["dx", "dy", "dz", "rx", "ry", "rz", "gripper"]
    assert env.decimation == 8 and env.policy_dt == pytest.approx(0.016)
    assert env.max_episode_steps == 7  # 0.1 s / 2 ms = 50 control steps, 8 a policy step
    assert env.metadata["autoreset_mode"] == "NextStep"

    obs, info = env.reset(seed=0)
    assert obs.shape == (4, 49) and obs.dtype == np.float64
    assert list(info["seed"]) == [0, 0, 0, 0] and list(info["env_index"]) == [0, 1, 2, 3]
    assert np.all(obs[:, env.obs_groups["time"]] == 0)
    obs, rewards, terminated, truncated, info = env.step(np.zeros((4, 7)))
    assert obs.shape == (4, 49) and obs.dtype == np.float64
    assert rewards.shape == (4,) and rewards.dtype == np.float64
    assert terminated.shape == (4,) and terminated.dtype == np.bool_
    assert truncated.shape == (4,) and truncated.dtype == np.bool_
    assert info["success"].dtype == np.bool_ and info["_success"].all()
    assert np.all(np.isfinite(obs)) and np.all(np.isfinite(rewards))
    assert np.allclose(obs[:, env.obs_groups["time"]], env.policy_dt)
    assert list(env.episode_steps()) == [1, 1, 1, 1]
    # a list of lists is an action batch too
    env.step([[0.0] * 7] * 4)


def test_rig_mode_shapes(make):
    env = make(2, mode="rig", controller=None)
    assert env.mode == "rig" and env.action_dim == 1 and env.obs_dim == 15
    obs, _ = env.reset(seed=1)
    assert obs.shape == (2, 15)
    obs, *_ = env.step(env.scripted_actions())
    assert np.all(np.isfinite(obs))


def test_outputs_are_views_of_the_batch_buffers(make):
    env = make(3)
    lib, ptr = _lib.load(), env._ptr

    def address(p):
        return ctypes.cast(p, ctypes.c_void_p).value

    obs, _ = env.reset(seed=0)
    o, r, te, tr, info = env.step(np.zeros((3, 7)))
    assert o is obs  # the same array every call: overwritten in place
    assert o.ctypes.data == address(lib.tf_vec_env_obs(ptr))
    assert r.ctypes.data == address(lib.tf_vec_env_rewards(ptr))
    assert te.ctypes.data == address(lib.tf_vec_env_terminated(ptr))
    assert tr.ctypes.data == address(lib.tf_vec_env_truncated(ptr))
    assert info["success"].ctypes.data == address(lib.tf_vec_env_success(ptr))
    assert not o.flags.owndata and not o.flags.writeable
    before = o.copy()
    env.step(np.zeros((3, 7)))
    assert not np.array_equal(before, o)  # the next step wrote into the same memory


def test_view_kept_past_close_stays_valid():
    env = tightfit.make_vec("peg", 2, mode="robot", duration=0.05)
    obs, _ = env.reset(seed=0)
    kept = obs[0].copy()
    env.close()
    gc.collect()
    assert np.array_equal(obs[0], kept)  # the batch lives as long as a view of it
    with pytest.raises(RuntimeError, match="closed"):
        env.step(np.zeros((2, 7)))
    env.close()  # idempotent
    del obs


def test_context_manager_closes():
    with tightfit.make_vec("peg", 1, mode="robot", duration=0.05) as env:
        env.reset(seed=0)
    with pytest.raises(RuntimeError, match="closed"):
        env.reset(seed=0)


def test_same_bits_on_one_and_two_threads(make):
    one = rollout(make(4, threads=1), seed=3, steps=6)
    two = make(4, threads=2)
    assert two.threads == 2
    assert same(one, rollout(two, seed=3, steps=6))


def test_reset_with_the_same_seed_reproduces(make):
    env = make(3)
    a = rollout(env, seed=11, steps=4)
    b = rollout(env, seed=12, steps=4)
    c = rollout(env, seed=11, steps=4)
    assert same(a, c)
    assert not np.array_equal(a[0], b[0])


def test_per_environment_seeds_and_masked_reset(make):
    env = make(2)
    obs, info = env.reset(seed=[5, 6])
    first = obs.copy()
    assert list(info["seed"]) == [5, 6] and list(info["env_index"]) == [0, 0]
    obs, _ = env.reset(seed=[6, 5])
    assert np.array_equal(obs[0], first[1]) and np.array_equal(obs[1], first[0])
    env.step(np.zeros((2, 7)))
    stepped = obs[1].copy()
    obs, info = env.reset(seed=[5, 0], options={"reset_mask": [True, False]})
    assert np.array_equal(obs[0], first[0]) and np.array_equal(obs[1], stepped)
    assert list(info["_seed"]) == [True, False]
    # seed=None draws fresh seeds
    _, info = env.reset()
    assert info["seed"].dtype == np.uint64


@pytest.mark.parametrize(
    "task, num_envs, settings, named",
    [
        ("pegg", 2, {}, "pegg"),
        ("peg", 2, {"clearence_um": 50}, "clearence_um"),
        ("peg", 2, {"dt": "fast"}, "dt"),
        ("peg", 2, {"decimation": 0}, "decimation"),
        ("peg", 2, {"mode": "robt"}, "mode"),
        ("peg", 2, {"clearance_um": 1e9}, "clearance_um"),
        ("peg", 2, {"mu": object()}, "mu"),
        ("peg", 0, {}, "num_envs"),
        ("peg", 2.5, {}, "num_envs"),
        ("peg", 10**6, {}, "num_envs"),
    ],
)
def test_bad_settings_raise_value_error_naming_the_key(task, num_envs, settings, named):
    with pytest.raises(ValueError, match=named):
        tightfit.make_vec(task, num_envs, **{"mode": "robot", **settings})


def test_bad_step_and_reset_arguments(make):
    env = make(2)
    env.reset(seed=0)
    actions = np.zeros((2, 7))
    actions[1, 2] = np.nan
    with pytest.raises(ValueError, match=r"action\[1\]\[2\] is NaN"):
        env.step(actions)
    with pytest.raises(ValueError, match="actions: shape"):
        env.step(np.zeros((2, 6)))
    with pytest.raises(ValueError, match="actions: shape"):
        env.step(np.zeros(14))
    with pytest.raises(ValueError, match="actions"):
        env.step([["a"] * 7] * 2)
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=-1)
    with pytest.raises(ValueError, match=r"seed\[1\]"):
        env.reset(seed=[0, 2**64])
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=[0, 1, 2])
    with pytest.raises(ValueError, match="reset_mask"):
        env.reset(seed=[0, 1], options={"reset_mask": [True]})
    with pytest.raises(ValueError, match="options"):
        env.reset(seed=0, options={"mask": [True, True]})
    with pytest.raises(ValueError, match="unknown metric 'nope'"):
        env.metric("nope")
    with pytest.raises(IndexError):
        env.metrics(2)
    # a refused step ran nothing: the batch still steps
    env.step(np.zeros((2, 7)))
    assert list(env.episode_steps()) == [1, 1]


def test_step_before_reset_is_refused(make):
    env = make(1)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros((1, 7)))


def test_metrics_per_environment(make):
    env = make(3)
    env.reset(seed=0)
    env.step(np.zeros((3, 7)))
    m = env.metrics(1)
    assert m["status"] == "ok" and isinstance(m["overlap.peak_m"], float)
    assert "tunnel.travel_m" in env.metric_names(0)
    travel = env.metric("tunnel.travel_m")
    assert travel.shape == (3,) and travel.dtype == np.float64
    assert [env.metrics(i)["tunnel.travel_m"] for i in range(3)] == list(travel)
    assert np.isnan(env.metric("status")).all()  # a text reads NaN


def test_random_policy_runs_to_truncation(make):
    env = make(4, duration=0.2, threads=2)  # 100 control steps: 13 policy steps
    rng = np.random.default_rng(20)
    env.reset(seed=0)
    for t in range(env.max_episode_steps):
        obs, rewards, terminated, truncated, _ = env.step(env.action_space.sample(rng))
        assert np.all(np.isfinite(obs)) and np.all(np.isfinite(rewards))
        assert not terminated.any()  # a random arm neither seats the peg nor diverges
        last = t == env.max_episode_steps - 1
        assert truncated.all() == last and truncated.any() == last  # all at once, at the end
    assert list(env.metrics(i)["status"] for i in range(4)) == ["ok"] * 4
    # the next step auto-resets every environment: a first observation, reward 0, no flags
    obs, rewards, terminated, truncated, _ = env.step(env.action_space.sample(rng))
    assert np.all(rewards == 0) and not terminated.any() and not truncated.any()
    assert np.all(obs[:, env.obs_groups["time"]] == 0)
    assert list(env.episode_steps()) == [0, 0, 0, 0]


def test_scripted_policy_seats_the_peg_as_the_run_does():
    # `tightfit run --task peg --mode robot --seed 0 --envs 2`: both environments seat
    settings = dict(mode="robot", controller="osc", duration=4.0)
    row = tightfit.run("peg", seed=0, envs=2, threads=2, **settings)
    assert row["status"] == "ok" and row["success_envs"] == 2
    # autoreset off: an environment that seated stays put while the other finishes
    with tightfit.make_vec("peg", 2, threads=2, autoreset=False, **settings) as env:
        assert env.has_script
        env.reset(seed=0)
        success = np.zeros(2, dtype=bool)
        for _ in range(env.max_episode_steps):
            _, _, terminated, truncated, info = env.step(env.scripted_actions())
            success |= info["success"]
            if (terminated | truncated).all():
                break
        assert success.all() and terminated.all()
        seat = env.metric("tunnel.depth_final_m")
        assert np.all(np.abs(seat) < 1e-3)  # the tip on the hole's floor


def test_default_settings_are_the_c_defaults():
    s = tightfit.default_settings()
    assert s["decimation"] == 8 and s["autoreset"] == 1 and s["max_speed"] == 1.7


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def trainer_loop(env, steps, policy_seed=3):
    # the loop a trainer runs: a fixed random policy, returns summed per environment
    rng = np.random.default_rng(policy_seed)
    env.reset(seed=0)
    returns = np.zeros(env.num_envs)
    rss = []
    for t in range(steps):
        _, rewards, _, _, _ = env.step(rng.uniform(-1, 1, env.action_space.shape))
        returns += rewards
        if t in (steps // 3, steps - 1):
            rss.append(rss_bytes())
    return returns, rss


def test_trainer_loop_same_returns_on_one_and_two_threads_without_growth(make):
    # decimation 1 and 0.04 s episodes: an auto-reset every 21 steps, 15 per environment
    settings = dict(decimation=1, duration=0.04)
    r1, _ = trainer_loop(make(8, threads=1, **settings), 300)
    r2, rss = trainer_loop(make(8, threads=2, **settings), 300)
    assert np.array_equal(r1, r2)
    assert rss[1] - rss[0] < 4 << 20  # the rebuilds give back what they take


def test_import_from_the_python_folder(tmp_path):
    # the README's one-liner, run from python/ with nothing on PYTHONPATH
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["TIGHTFIT_LIB"] = tightfit.library_path()
    code = (
        "import tightfit; e = tightfit.make_vec('peg', 8, mode='robot'); "
        "o, i = e.reset(seed=0); print(o.shape)"
    )
    folder = os.path.dirname(os.path.dirname(tightfit.__file__))
    p = subprocess.run(
        [sys.executable, "-c", code], cwd=folder, env=env, capture_output=True, text=True
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "(8, 49)"


def test_rig_scripted_run_gives_the_cli_row_bit_for_bit():
    # the rig's own drive through the shared library against `tightfit run` (the static CLI)
    row = tightfit.run("peg", seed=0, duration=0.3)
    with tightfit.make_vec("peg", 1, duration=0.3, terminate_on_success=False) as env:
        env.reset(seed=0)
        while True:
            _, _, terminated, truncated, _ = env.step(env.scripted_actions())
            if terminated[0] or truncated[0]:
                break
        metrics = env.metrics(0)
    timing = {"steps_per_s", "realtime_factor"}
    compared = 0
    for key, value in metrics.items():
        if key in timing or key.startswith("throughput."):
            continue
        if isinstance(value, float) and value != value:
            assert row[key] is None, key  # NaN is JSON's null
        else:
            assert row[key] == value, key
        compared += 1
    assert compared > 30 and row["success"] is True
