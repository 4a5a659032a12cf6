#!/usr/bin/env python3
"""The build figures the README and docs/benchmarks.md give, measured and written in place.

    python3 scripts/build-figures.py            # counts and binary size; prints them
    python3 scripts/build-figures.py --write    # ... and writes them into README.md and docs/benchmarks.md
    python3 scripts/build-figures.py --build --write   # also a clean release build, timed
    python3 scripts/build-figures.py --check    # exit 1 when a written figure differs from the measured one
    python3 scripts/build-figures.py --log FILE --write   # build times from a saved clean build:
        # /usr/bin/time -v cargo build --release --locked >FILE 2>&1   (with target/release empty)

Figures:
  - crates compiled: the packages `cargo build --release --locked` compiles for
    this machine (`cargo tree -e normal,build`, this package included; with
    --build, the `Compiling` lines of the clean build, which must agree);
  - crates in Cargo.lock: its `[[package]]` entries (every platform's);
  - binary size: target/release/prompt-receipt (built if missing), in MB (10^6 bytes);
  - with --build: wall and CPU seconds of `cargo build --release --locked` in an
    empty target folder (a temporary one), and the load average meanwhile; with
    --log, the same read from GNU time's report in a saved log of such a build.

Each figure sits in the Markdown between `<!-- fig:NAME -->` and `<!-- /fig -->`
(invisible when rendered); --write replaces what is between them and leaves
figures it did not measure (the build times, without --build) as they are.
"""
import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FILES = [ROOT / "README.md", ROOT / "docs/benchmarks.md"]
MARK = re.compile(r"(<!-- fig:([a-z-]+) -->)(.*?)(<!-- /fig -->)")


def compiled_crates():
    """The packages a release build of this package compiles for the host."""
    out = subprocess.run(["cargo", "tree", "--locked", "-e", "normal,build", "--prefix", "none", "-f", "{p}"],
                         cwd=ROOT, check=True, capture_output=True, text=True).stdout
    # `name vX.Y.Z`, then ` (proc-macro)` and ` (*)` (seen before) as they apply.
    return len({re.sub(r"( \((\*|proc-macro)\))+$", "", line) for line in out.splitlines() if line.strip()})


def locked_crates():
    return sum(1 for line in (ROOT / "Cargo.lock").read_text().splitlines() if line == "[[package]]")


def binary_mb():
    path = ROOT / "target/release/prompt-receipt"
    if not path.exists():
        subprocess.run(["cargo", "build", "--release", "--locked"], cwd=ROOT, check=True)
    return path.stat().st_size / 1e6


def clean_build():
    """A release build in an empty target folder: (wall s, CPU s, `Compiling` lines)."""
    target = tempfile.mkdtemp(prefix="prompt-receipt-build-")
    try:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run(["cargo", "build", "--release", "--locked"], cwd=ROOT, capture_output=True, text=True,
                              env=dict(os.environ, CARGO_TARGET_DIR=target, CARGO_TERM_COLOR="never"))
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode != 0:
            sys.exit(f"cargo build failed:\n{proc.stderr[-3000:]}")
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        return wall, cpu, sum(1 for line in proc.stderr.splitlines() if line.strip().startswith("Compiling "))
    finally:
        shutil.rmtree(target, ignore_errors=True)


def from_log(path):
    """(wall s, CPU s, `Compiling` lines) of a saved `/usr/bin/time -v cargo build` log."""
    text = Path(path).read_text()
    compiling = sum(1 for line in text.splitlines() if line.strip().startswith("Compiling "))
    user = float(re.search(r"User time \(seconds\): ([\d.]+)", text).group(1))
    system = float(re.search(r"System time \(seconds\): ([\d.]+)", text).group(1))
    clock = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", text).group(1)
    wall = 0.0
    for part in clock.split(":"):
        wall = wall * 60 + float(part)
    return wall, user + system, compiling


def measure(build, log=None):
    figures = {
        "crates-compiled": str(compiled_crates()),
        "crates-locked": str(locked_crates()),
        "binary-mb": f"{binary_mb():.1f}",
    }
    if build or log:
        load = os.getloadavg()[0]
        wall, cpu, compiling = from_log(log) if log else clean_build()
        if str(compiling) != figures["crates-compiled"]:
            sys.exit(f"the clean build compiled {compiling} crates, `cargo tree` says {figures['crates-compiled']}")
        figures |= {"build-wall": f"{wall:.0f}", "build-cpu": f"{cpu:.0f}"}
        if build:
            figures["build-load"] = f"{(load + os.getloadavg()[0]) / 2:.1f}"
    return figures


def rewrite(text, figures):
    """`text` with each measured figure put between its markers."""
    return MARK.sub(lambda m: m.group(1) + figures.get(m.group(2), m.group(3)) + m.group(4), text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", action="store_true", help="also time a clean release build (minutes)")
    ap.add_argument("--log", help="a saved `/usr/bin/time -v cargo build --release --locked` log of a clean build")
    ap.add_argument("--write", action="store_true", help="write the figures into README.md and docs/benchmarks.md")
    ap.add_argument("--check", action="store_true", help="exit 1 when a written figure is stale")
    args = ap.parse_args()
    figures = measure(args.build, args.log)
    for name, value in figures.items():
        print(f"{name}: {value}")
    stale = False
    for path in FILES:
        text = path.read_text()
        new = rewrite(text, figures)
        if new != text:
            stale = True
            print(f"{path.relative_to(ROOT)}: {'written' if args.write else 'stale'}")
            if args.write:
                path.write_text(new)
    if args.check and stale:
        sys.exit(1)


if __name__ == "__main__":
    main()
