"""The compaction lab's goal (.ci/gpu-check goals): step 6 at 2^26, 75% kept, reaches 90% of the
copy."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import goals  # noqa: E402

labbench, out = goals.args()
rows = goals.measure(labbench, out, "compaction", "--step", "6", "--n", "2^26",
                     "--block", "128,256,512,1024")
r = goals.best(rows, "6-prefetch@75", 1 << 26)
share = float(r["gb_per_s"]) / float(r["copy_gb_per_s"]) if r else None
goals.line("compaction step 6, 2^26, 75% kept", share, (0.90, "90%"), r and
           "%.1f%% of the copy (%.1f of %.1f GB/s, block %s, %.4f ms; CUB %.4f ms)" % (
               100 * share, float(r["gb_per_s"]), float(r["copy_gb_per_s"]), r["block_size"],
               float(r["ms"]), float(r["yardstick_ms"])))
