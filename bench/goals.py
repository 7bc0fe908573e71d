"""What the labs' goal scripts (labs/<lab>/<lab>_goals.py) share: running labbench into a CSV,
reading its rows, picking a step's best row, and printing one line a goal, "met" or "NOT met".

A goal script is run by `.ci/gpu-check goals` as
    python3 labs/<lab>/<lab>_goals.py LABBENCH OUT_DIR
and prints lines that start with "goal ".
"""
import csv
import os
import subprocess
import sys


def args():
    """(labbench, out_dir) from the command line."""
    if len(sys.argv) != 3:
        sys.exit("usage: %s LABBENCH OUT_DIR" % sys.argv[0])
    return sys.argv[1], sys.argv[2]


def measure(labbench, out_dir, lab, *options):
    """Runs `labbench <lab> <options> --csv OUT_DIR/<lab>.csv` (its log beside it) and returns
    the CSV's rows (none when it failed)."""
    path = os.path.join(out_dir, lab + ".csv")
    with open(os.path.join(out_dir, lab + ".log"), "w") as log:
        subprocess.run([labbench, lab, *options, "--csv", path], stdout=log, stderr=log)
    try:
        with open(path) as f:
            return list(csv.DictReader(f))
    except OSError:
        return []


def best(rows, step, n):
    """The fastest row of `step` at size n, or None."""
    rows = [r for r in rows if r["step"] == step and int(r["n"]) == n and float(r["ms"]) > 0]
    return min(rows, key=lambda r: float(r["ms"])) if rows else None


def line(what, value, goal, text):
    """One goal's line: `goal` is (threshold, how the handout writes it)."""
    if value is None:
        print("goal %-34s no measurement (see goals/*.log)" % what)
    else:
        print("goal %-34s %s: %s (goal %s)" % (what, "met" if value >= goal[0] else "NOT met",
                                               text, goal[1]))
