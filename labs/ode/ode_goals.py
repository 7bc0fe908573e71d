"""The ODE lab's measurements (.ci/gpu-check goals): step 5 against the whole sequential program
and the OpenMP one on every core, both timed (about a minute; GOALS_ODE=0 leaves them out)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import goals  # noqa: E402

labbench, out = goals.args()
if os.environ.get("GOALS_ODE", "1") == "0":
    sys.exit(0)
rows = goals.measure(labbench, out, "ode", "--step", "5")
gpu = [r for r in rows if r["step"].startswith("5-")]
one = [r for r in rows if r["step"] == "cpu-1-thread"]
omp = [r for r in rows if r["step"].startswith("cpu-openmp-")]
for name, cpu in (("the sequential program", one), ("OpenMP on every core", omp)):
    if gpu and cpu:
        print("goal %-34s measured: %.0fx (%.1f ms against %s, %.1f ms)" % (
            "ODE step 5 against " + ("1 thread" if cpu is one else "OpenMP"),
            float(cpu[0]["ms"]) / float(gpu[0]["ms"]), float(gpu[0]["ms"]), cpu[0]["step"],
            float(cpu[0]["ms"])))
    else:
        print("goal ODE step 5 against %s: no measurement" % name)
