"""The hashing lab's goals (.ci/gpu-check goals), for its best step on 2^27 slots: at load 0.5,
inserts at 85% of the random-CAS rate and finds of present keys at 75% of the random-gather rate;
at load 0.9, inserts at 50%, hits at 45% and misses at 20%; and every find at least 3 times the
sorted table's binary-search lookups. The limits are measured in the same labbench run."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import goals  # noqa: E402

labbench, out = goals.args()
rows = goals.measure(labbench, out, "hashing", "--step", "5")


def rate(step):
    """The row's keys a second (G/s), and the row, or (None, None)."""
    r = [r for r in rows if r["step"] == step]
    return (float(r[0]["gelem_per_s"]), r[0]) if r else (None, None)


cas, _ = rate("cas")
gather, _ = rate("gather")
sorted_find, _ = rate("sorted-find")
goal_list = [("insert", 0.50, "cas", 0.85), ("hit", 0.50, "gather", 0.75),
             ("insert", 0.90, "cas", 0.50), ("hit", 0.90, "gather", 0.45),
             ("miss", 0.90, "gather", 0.20)]
for kind, load, limit_name, goal in goal_list:
    got, _ = rate("5-double %s@%.2f" % (kind, load))
    limit = cas if limit_name == "cas" else gather
    share = got / limit if got is not None and limit else None
    goals.line("hashing %s@%.2f, share of %s" % (kind, load, limit_name), share,
               (goal, "%d%%" % round(100 * goal)),
               share is not None and "%.1f%% (%.2f of %.2f G/s)" % (100 * share, got, limit))
for load in (0.50, 0.80, 0.90, 0.95):
    for kind in ("hit", "miss"):
        got, _ = rate("5-double %s@%.2f" % (kind, load))
        times = got / sorted_find if got is not None and sorted_find else None
        goals.line("hashing %s@%.2f vs sorted lookups" % (kind, load), times, (3.0, "3x"),
                   times is not None and "%.2fx (%.2f of %.2f G/s)" % (times, got, sorted_find))
