# run(), sweep() and catalog(): the CLI (build/tightfit, or $TIGHTFIT_BIN) called as a
# subprocess, its JSON read back. The CLI is the reference: a row here is the row `tightfit
# run --json` prints and a sweep's results.jsonl holds, bit for bit (docs/cli.md).
#
# Exit status 2 (bad usage or input, one line on stderr naming it) raises ValueError; any
# other failure RuntimeError (CliError) carrying the CLI's message and what it wrote.
import json
import os
import subprocess
import tempfile

from . import _lib
from .vec_env import _setting_text

__all__ = ["CliError", "run", "sweep", "catalog"]

# keys that are `tightfit run` options (--key, '_' as '-'); every other key is --set key=value
_RUN_OPTIONS = {
    "mode", "controller", "solver", "dt", "substeps", "duration", "envs", "threads", "seed",
    "iterations", "relinearize", "persist_tol", "integrator", "record",
}


class CliError(RuntimeError):
    """The CLI failed: message is its stderr's last line; row / rows what it wrote."""

    def __init__(self, message, returncode, row=None, rows=None):
        super().__init__(message)
        self.returncode = returncode
        self.row = row
        self.rows = rows


def _cli(args):
    path = _lib.cli_path()
    if not os.path.exists(path):
        raise OSError(
            f"tightfit: no CLI at {path}: run `make python` in the checkout, or set TIGHTFIT_BIN"
        )
    return subprocess.run([path] + args, capture_output=True, text=True)


def _message(stderr, returncode):
    # the CLI's own lines, progress lines ("[sweep] 3/9 done ...") left out
    lines = [
        ln.strip()
        for chunk in stderr.splitlines()
        for ln in chunk.split("\r")
        if ln.strip() and not ln.lstrip().startswith("[sweep]")
    ]
    return "\n".join(lines) or f"tightfit exited with status {returncode}"


def _fail(p, **what):
    msg = _message(p.stderr, p.returncode)
    if p.returncode == 2:
        raise ValueError(msg)
    raise CliError(msg, p.returncode, **what)


def run(task=None, *, scene=None, **settings):
    """One run, `tightfit run --task TASK ... --json`: its row as a dict.

    settings: the run's options by name (mode, controller, solver, dt, substeps, duration,
    envs, threads, seed, iterations, relinearize, persist_tol, record) and task parameters
    (clearance_um=50: --set clearance_um=50). scene='chain7' runs a reference scene instead.
    A bad option raises ValueError (the CLI's one line); a run whose task could not build it
    (exit 1) raises CliError with the row (status failed, its error) in .row.
    """
    if (task is None) == (scene is None):
        raise ValueError("run: give a task or a scene (one of them)")
    args = ["run", "--task", task] if scene is None else ["run", "--scene", scene]
    for key, value in settings.items():
        text = _setting_text(key, value)
        if key in _RUN_OPTIONS:
            args += ["--" + key.replace("_", "-"), text]
        else:
            args += ["--set", f"{key}={text}"]
    p = _cli(args + ["--json"])
    row = None
    try:
        row = json.loads(p.stdout) if p.stdout.strip() else None
    except json.JSONDecodeError:
        pass
    if p.returncode != 0:
        _fail(p, row=row)
    if row is None:
        raise CliError("tightfit run printed no JSON row", p.returncode)
    return row


def _read_rows(path):
    rows = []
    try:
        with open(path) as f:
            for line in f:
                if line.strip():
                    rows.append(json.loads(line))
    except FileNotFoundError:
        pass
    return rows


def sweep(config, out_dir, *, jobs=None, resume=False, force=False):
    """A sweep, `tightfit sweep CONFIG --out OUT_DIR`: results.jsonl's rows as a list of dicts.

    config: a config file's path or the config itself as a dict (docs/cli.md); out_dir gets
    results.jsonl / .csv, report.html and the rest. Rows come in the order the runs finished
    (each has its run_id and command). A bad config raises ValueError (every problem, one per
    line); a failed run or an unwritable file CliError, with the rows written in .rows.
    """
    out_dir = os.fspath(out_dir)
    tmp = None
    if isinstance(config, dict):
        try:
            text = json.dumps(config, allow_nan=False)
        except (TypeError, ValueError) as e:
            raise ValueError(f"config: not JSON ({e})") from None
        fd, tmp = tempfile.mkstemp(prefix="tightfit-sweep-", suffix=".json")
        with os.fdopen(fd, "w") as f:
            f.write(text)
        path = tmp
    else:
        path = os.fspath(config)
    args = ["sweep", path, "--out", out_dir]
    if jobs is not None:
        args += ["--jobs", _setting_text("jobs", jobs)]
    if resume:
        args.append("--resume")
    if force:
        args.append("--force")
    try:
        p = _cli(args)
    finally:
        if tmp:
            os.unlink(tmp)
    rows = _read_rows(os.path.join(out_dir, "results.jsonl"))
    if p.returncode != 0:
        _fail(p, rows=rows)
    return rows


def catalog():
    """`tightfit list --json`: tasks and their parameters, scenes, gates, solvers, ..."""
    p = _cli(["list", "--json"])
    if p.returncode != 0:
        _fail(p)
    return json.loads(p.stdout)
