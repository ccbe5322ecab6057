"""How fast `np2jax check` proves the corpus migration: cold, then warm.

    python benchmarks/bench_check.py [--jobs N]

Migrates corpus/modules into a temporary tree, then checks it against the
original with corpus/examples twice: cold (an empty JAX persistent compilation
cache) and warm (the same cache, filled by the cold run). Prints functions,
inputs compared, seconds and functions per second for each.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from np2jax.check import run_check  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=None, help="worker lanes (default: the cores, at most 4)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="np2jax-bench-check-") as tmp:
        migrated = Path(tmp) / "migrated"
        subprocess.run([sys.executable, "-m", "np2jax", "migrate", "corpus/modules", "--out", str(migrated), "-q"],
                       cwd=ROOT, check=False, capture_output=True, env=dict(os.environ, NP2JAX_CACHE_DIR=str(Path(tmp) / "c")))
        cache = str(Path(tmp) / "jax-cache")
        print(f"{'run':<6} {'functions':>9} {'equivalent':>10} {'inputs':>7} {'seconds':>8} {'functions/s':>12}")
        for label in ("cold", "warm"):
            report = run_check(ROOT / "corpus/modules", migrated, examples=ROOT / "corpus/examples",
                               jobs=args.jobs, jax_cache=cache)
            functions = len(report.functions)
            inputs = sum(f.inputs_tried for f in report.functions)
            equivalent = report.counts()["equivalent"]
            print(f"{label:<6} {functions:>9} {equivalent:>10} {inputs:>7} {report.seconds:>8.2f} "
                  f"{functions / report.seconds:>12.1f}")


if __name__ == "__main__":
    main()
