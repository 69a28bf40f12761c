# run() and sweep(): the CLI's rows as dicts, its refusals as ValueError naming the problem.
import json
import os

import pytest

import tightfit


def test_run_returns_the_row():
    row = tightfit.run("peg", duration=0.02, seed=1, clearance_um=50, solver="pgs")
    assert row["task"] == "peg" and row["mode"] == "rig" and row["status"] == "ok"
    assert row["seed"] == 1 and row["clearance_um"] == 50 and row["solver"] == "pgs"
    assert isinstance(row["overlap.peak_m"], (int, float))  # JSON writes 0 as an integer


def test_run_is_the_cli_row_bit_for_bit():
    a = tightfit.run("peg", duration=0.02, tilt_deg=1.0)
    b = tightfit.run("peg", duration=0.02, tilt_deg=1.0)
    timing = {"steps_per_s", "realtime_factor"} | {k for k in a if k.startswith("throughput.")}
    assert {k: v for k, v in a.items() if k not in timing} == {
        k: v for k, v in b.items() if k not in timing
    }


def test_run_scene():
    row = tightfit.run(scene="chain7", duration=0.01)
    assert row["status"] == "ok"


@pytest.mark.parametrize(
    "task, settings, named",
    [
        ("peg", {"clearence_um": 50}, "clearence_um"),
        ("peg", {"solver": "fast"}, "fast"),
        ("pegg", {}, "pegg"),
        ("peg", {"dt": -1}, "dt"),
    ],
)
def test_run_refusals_raise_value_error(task, settings, named):
    with pytest.raises(ValueError, match=named):
        tightfit.run(task, duration=0.01, **settings)


def test_sweep_from_a_dict(tmp_path):
    config = {"task": "peg", "duration": 0.02, "grid": {"solver": ["al", "pgs"]}}
    rows = tightfit.sweep(config, tmp_path / "out", jobs=2)
    assert sorted(r["solver"] for r in rows) == ["al", "pgs"]
    assert all(r["status"] == "ok" and r["run_id"] and r["command"] for r in rows)
    with open(tmp_path / "out" / "config.json") as f:
        assert json.load(f)["grid"] == config["grid"]
    # a second sweep into the same folder: refused without --resume / --force
    with pytest.raises(ValueError):
        tightfit.sweep(config, tmp_path / "out")
    assert len(tightfit.sweep(config, tmp_path / "out", resume=True)) == 2


def test_sweep_from_a_file(tmp_path):
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"task": "peg", "duration": 0.02, "seeds": 2}))
    rows = tightfit.sweep(str(path), str(tmp_path / "out"), jobs=1)
    assert sorted(r["seed"] for r in rows) == [0, 1]
    assert os.path.exists(tmp_path / "out" / "report.html")


def test_sweep_bad_config_names_its_path(tmp_path):
    with pytest.raises(ValueError, match=r"grid\.solvr"):
        tightfit.sweep({"task": "peg", "grid": {"solvr": ["al"]}}, tmp_path / "out")
    with pytest.raises(ValueError, match="config"):
        tightfit.sweep({"task": "peg", "duration": float("nan")}, tmp_path / "out")


def test_catalog_lists_the_tasks():
    names = [t["name"] for t in tightfit.catalog()["tasks"]]
    assert names == ["peg", "boltnut", "gears", "connectors", "assembly"]
