// Performance test of the compaction lab: the student's best stable compaction (step 2 or step
// 5, whichever is faster) against CUB's DeviceSelect::If in the same process, on the issue's
// input: n = 2^26 ints in [0, 3], kept when non-zero (75% kept). The test asserts correctness
// only; the grader scores the ratio best_vs_cub = cub_ms / student_ms against the rubric.
#include <cstdio>
#include <string>
#include <vector>

#include "gltest.h"

extern "C" {
#include "compaction.h"
#include "gpulabs/reference/compaction.h"
#include "gpulabs/timer.h"
#include "gpulabs/yardstick/compaction.h"
}

namespace {

const int kWarmup = 3;
const int kReps = 20;

struct CompactCall {
  compaction_step step;
  compaction_pred pred;
  const int *in;
  int *out;
  int *count;
  size_t n;
  void *scratch;
  size_t scratch_bytes;
};

gl_status RunStudent(void *context) {
  const CompactCall *c = static_cast<const CompactCall *>(context);
  return compaction_compact(c->step, c->pred, c->in, c->out, c->count, c->n, 0, c->scratch,
                            c->scratch_bytes);
}

gl_status RunCub(void *context) {
  const CompactCall *c = static_cast<const CompactCall *>(context);
  return gl_yardstick_select_if(c->in, c->out, c->count, c->n, GL_KEEP_NONZERO, 0);
}

std::string Ms(double ms) {
  char text[32];
  snprintf(text, sizeof text, "%.4f", ms);
  return text;
}

}  // namespace

class CompactionPerf : public GpuTest {};

TEST_F(CompactionPerf, BestVsCub) {
  const size_t n = (size_t)1 << 26;
  std::vector<int> host(n);
  gl_fill_int(host.data(), n, 0, 3, GL_DIST_UNIFORM, gl::SeedFor(1));
  std::vector<int> expected(n, GL_POISON_I32);
  size_t kept = gl_ref_compact_loop(host.data(), n, GL_KEEP_NONZERO, 0, expected.data());

  size_t scratch_bytes = compaction_scratch_bytes(COMPACTION_STEP_MAP_SCAN_SCATTER, n);
  if (compaction_scratch_bytes(COMPACTION_STEP_SINGLE_PASS, n) > scratch_bytes) {
    scratch_bytes = compaction_scratch_bytes(COMPACTION_STEP_SINGLE_PASS, n);
  }
  gl::DeviceBuffer<int> in(host), out(n), count(1);
  gl::DeviceBuffer<unsigned char> scratch(scratch_bytes);
  CompactCall call = {COMPACTION_STEP_SINGLE_PASS, {COMPACTION_KEEP_NONZERO, 0},
                      in.get(), out.get(), count.get(), n, scratch.get(), scratch_bytes};

  double cub_ms = 0;
  GL_ASSERT_OK(gl_time_median_ms(GL_CLOCK_GPU, RunCub, &call, kWarmup, kReps, &cub_ms));
  GL_ASSERT_DEVICE_OK("cub::DeviceSelect::If");
  ASSERT_EQ(count.Download()[0], (int)kept) << "the yardstick itself is wrong";

  std::string detail = "n=" + std::to_string(n) + " kept=" + std::to_string(kept) +
                       " cub_ms=" + Ms(cub_ms);
  double best_ms = 0;
  std::string best_step, skipped;
  for (compaction_step step : {COMPACTION_STEP_MAP_SCAN_SCATTER, COMPACTION_STEP_SINGLE_PASS}) {
    const char *name = compaction_step_name(step);
    call.step = step;
    out.Poison();
    count.Poison();
    gl_clear_error();
    gl_status status = RunStudent(&call);
    if (status == GL_ERR_NOT_IMPLEMENTED) {
      skipped += std::string(" ") + name + " (" + gl_last_error() + ")";
      continue;
    }
    ASSERT_TRUE(gl::StatusIs(GL_OK, status, name));
    GL_ASSERT_DEVICE_OK(name);
    ASSERT_EQ(count.Download()[0], (int)kept) << name << ": the count";
    ASSERT_TRUE(gl::ArraysEqual(expected, out.Download())) << name;

    double ms = 0;
    GL_ASSERT_OK(gl_time_median_ms(GL_CLOCK_GPU, RunStudent, &call, kWarmup, kReps, &ms));
    GL_ASSERT_DEVICE_OK(name);
    ASSERT_EQ(count.Download()[0], (int)kept) << name << ": the count after the timed runs";
    detail += std::string(" ") + name + "_ms=" + Ms(ms);
    if (best_step.empty() || ms < best_ms) {
      best_ms = ms;
      best_step = name;
    }
  }
  ASSERT_FALSE(best_step.empty()) << "no stable compaction is written yet:" << skipped;
  gl::ReportRatio("best_vs_cub", cub_ms / best_ms, detail + " best=" + best_step);
}
