"""The bitonic sort lab's goal (.ci/gpu-check goals): step 5 at 2^24 reaches 0.90x CUB's merge
sort (a step's row carries its yardstick's time, measured in the same run)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import goals  # noqa: E402

labbench, out = goals.args()
rows = goals.measure(labbench, out, "bitonic_sort", "--step", "5", "--n", "2^24")
r = goals.best(rows, "5-windows", 1 << 24)
ratio = float(r["yardstick_ms"]) / float(r["ms"]) if r and float(r["yardstick_ms"]) > 0 else None
goals.line("bitonic sort step 5, 2^24", ratio, (0.90, "0.90x"), ratio and
           "%.3fx CUB's merge sort (%.4f ms against %.4f ms)" % (
               ratio, float(r["ms"]), float(r["yardstick_ms"])))
