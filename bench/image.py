#!/usr/bin/env python3
"""What the image costs a job: its size, the time to get it, and the start overhead.

Needs root and podman set up by tests/image/engine.sh (CONTAINERS_CONF), and an
image built by tests/image/build.sh. Measures, in the same run:

  - size: uncompressed (`podman image inspect`), and compressed
    (`podman save | gzip -6`), which is about what a job pulls;
  - getting it: `gunzip | podman load` of that compressed archive into an
    empty store (a stand-in for a pull from a registry, minus the network), against a clean `podman build` of the
    Dockerfile without any cache (what `image: Dockerfile` makes every job do;
    only with --build, it takes minutes);
  - start overhead: `podman run --rm IMAGE --version` against the bare binary
    (`target/release/prompt-receipt --version`), alternating, median and best.

    sudo -E python3 bench/image.py [--image prompt-receipt:test] [--runs 15] [--build]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


def timed(cmd, **kw):
    start = time.perf_counter()
    sh(cmd, **kw)
    return time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--image", default="prompt-receipt:test")
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--build", action="store_true", help="also time a clean build (minutes)")
    args = ap.parse_args()
    if "CONTAINERS_CONF" not in os.environ:
        sys.exit("set up podman first: source tests/image/engine.sh (as .ci/run does)")
    binary = ROOT / "target/release/prompt-receipt"
    if not binary.exists():
        sh(["cargo", "build", "--release", "--locked"], cwd=ROOT)

    size = int(sh(["podman", "image", "inspect", args.image, "--format", "{{.Size}}"]).stdout)
    work = Path(tempfile.mkdtemp(prefix="prompt-receipt-image-bench-"))
    try:
        archive = work / "image.tar.gz"
        with open(archive, "wb") as out:
            save = subprocess.Popen(["podman", "save", args.image], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            subprocess.run(["gzip", "-6"], stdin=save.stdout, stdout=out, check=True)
            save.wait()
        compressed = archive.stat().st_size
        # Into a store of its own, as a runner that has never seen the image.
        store = work / "store"
        fresh = ["podman", "--root", str(store / "root"), "--runroot", str(store / "run"), "--storage-driver", "overlay"]
        load = timed(["sh", "-c", f"gunzip -c '{archive}' | {' '.join(fresh)} load -q"])
        subprocess.run(fresh + ["system", "reset", "--force"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        subprocess.run(["umount", str(store / "root" / "overlay")], stderr=subprocess.DEVNULL)

        bare, container = [], []
        for _ in range(args.runs):
            bare.append(timed([str(binary), "--version"]))
            container.append(timed(["podman", "run", "--rm", "--network", "none", args.image, "--version"]))
        print(f"image {args.image}")
        print(f"  size: {size / 1e6:.1f} MB uncompressed, {compressed / 1e6:.1f} MB compressed (podman save | gzip -6)")
        print(f"  podman load of the compressed image: {load:.1f} s (a pull, without the network)")
        print(f"  start, median of {args.runs}: bare binary {statistics.median(bare) * 1000:.1f} ms, "
              f"container {statistics.median(container) * 1000:.0f} ms "
              f"(overhead {(statistics.median(container) - statistics.median(bare)) * 1000:.0f} ms, "
              f"{statistics.median(container) / statistics.median(bare):.0f}x the bare start)")
        print(f"  start, best: bare {min(bare) * 1000:.1f} ms, container {min(container) * 1000:.0f} ms")
        if args.build:
            context = work / "context"
            context.mkdir()
            sh(["sh", "-c", f"git -C '{ROOT}' archive HEAD | tar -x -C '{context}'"])
            seconds = timed(["podman", "build", "--pull=never", "--no-cache", "-t", "prompt-receipt-bench-clean", str(context)])
            sh(["podman", "rmi", "prompt-receipt-bench-clean"])
            print(f"  clean build of the Dockerfile (no cache): {seconds:.0f} s, "
                  f"{seconds / load:.0f}x the load")
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
