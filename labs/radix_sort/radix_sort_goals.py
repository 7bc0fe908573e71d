"""The radix sort lab's goals (.ci/gpu-check goals): step 5 at 2^26 reaches 0.90x CUB's sort, keys
and pairs."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import goals  # noqa: E402

labbench, out = goals.args()
rows = goals.measure(labbench, out, "radix_sort", "--step", "5", "--n", "2^26")
for kind, step, cub in (("keys", "5-onesweep-tuned", "cub-keys"),
                        ("pairs", "5-onesweep-tuned-pairs", "cub-pairs")):
    r, c = goals.best(rows, step, 1 << 26), goals.best(rows, cub, 1 << 26)
    ratio = float(c["ms"]) / float(r["ms"]) if r and c else None
    goals.line("radix sort step 5, 2^26, " + kind, ratio, (0.90, "0.90x"), r and c and
               "%.3fx CUB (%.4f ms against %.4f ms; %.0f%% of its passes at copy speed)" % (
                   ratio, float(r["ms"]), float(c["ms"]),
                   100 * float(r["limit_ms"]) / float(r["ms"])))
