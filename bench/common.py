"""Shared helpers for the benchmarks: a git copy of the example, timing, peak memory."""
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TIME = shutil.which("time", path="/usr/bin:/bin") or sys.exit("needs GNU time: apt-get install time")


def binary(path=None):
    """The release binary, built if missing."""
    path = Path(path or ROOT / "target/release/prompt-receipt")
    if not path.exists():
        subprocess.run(["cargo", "build", "--release", "--locked"], cwd=ROOT, check=True)
    return str(path)


def example_repo():
    """A committed, tagged copy of examples/agent-review in a temporary folder, and its env."""
    work = Path(tempfile.mkdtemp(prefix="prompt-receipt-bench-"))
    shutil.copytree(ROOT / "examples/agent-review", work, dirs_exist_ok=True)
    git = ["git", "-c", "user.name=b", "-c", "user.email=b@example.com"]
    env = dict(os.environ, HOME=str(work), GIT_CONFIG_NOSYSTEM="1")
    for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "bench"], ["tag", "v1.0.0"]):
        subprocess.run(git + cmd, cwd=work, env=env, check=True)
    return work, env


def split(cmd, env):
    """A command is its argv, or (argv, variables added to `env` for it alone)."""
    if isinstance(cmd, tuple):
        return cmd[0], dict(env, **cmd[1])
    return cmd, env


def wall(cmd, cwd, env, ok=(0,)):
    """Wall seconds of one command, spawned directly."""
    cmd, env = split(cmd, env)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if proc.returncode not in ok:
        sys.exit(f"failed ({proc.returncode}): {cmd}: {proc.stderr.decode()[-2000:]}")
    return elapsed


def peak_kib(cmd, cwd, env):
    """Peak RSS (KiB) of one command and its children, from GNU time.

    Not from os.wait4 here: Linux carries the spawning process's high-water mark
    across fork and exec, so a child of this Python process would report Python's
    own ~13 MiB as its peak. GNU time is a small parent.
    """
    cmd, env = split(cmd, env)
    with tempfile.NamedTemporaryFile("r") as rss:
        subprocess.run([TIME, "-f", "%M", "-o", rss.name, *cmd], cwd=cwd, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return int(rss.read().split()[-1])


def measure(sides, runs, cwd, env, before=lambda: None, ok=(0,), peak_runs=5):
    """Times each side (a list of commands run in sequence), alternating sides
    so machine noise hits both; `before` runs ahead of every side's turn.
    Returns {name: (wall seconds per run, peak RSS KiB)}."""
    walls = {name: [] for name in sides}
    peaks = {name: 0 for name in sides}
    for i in range(runs):
        for name, cmds in sides.items():
            before()
            walls[name].append(sum(wall(cmd, cwd, env, ok) for cmd in cmds))
            if i < peak_runs:
                before()
                peaks[name] = max([peaks[name]] + [peak_kib(cmd, cwd, env) for cmd in cmds])
    return {name: (walls[name], peaks[name]) for name in sides}


def table(title, rows, baseline):
    """Prints median and best wall, each as a ratio to `baseline`, and peak memory.

    Both: the median is the typical run; the best is the run least disturbed by
    the rest of the machine, which matters on a shared host where a short run
    is hit by a burst of other work far harder than a long one.
    """
    import statistics
    base_med = statistics.median(rows[baseline][0])
    base_min = min(rows[baseline][0])
    print(title)
    print(f"{'':30} {'median wall':>12} {'ratio':>6} {'best wall':>11} {'ratio':>6} {'peak RSS':>10}")
    for name, (walls, peak) in rows.items():
        med, best = statistics.median(walls), min(walls)
        print(f"{name:30} {med * 1000:9.2f} ms {med / base_med:6.3f} {best * 1000:8.2f} ms "
              f"{best / base_min:6.3f} {peak / 1024:7.2f} MiB")
