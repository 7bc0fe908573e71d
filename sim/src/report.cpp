// How the scheduler reports a failed block: the message helpers, the failure that stops a
// launch (fail_block, or fail_here from the misbehaving thread), the deadlock report that says
// which threads wait where, and the note added to AddressSanitizer's reports. Apart from the
// rest because none of it runs unless something went wrong.
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "scheduler.h"

namespace gpulabs_sim {

std::string format(const char *fmt, ...) {
  char buf[1024];
  va_list args;
  va_start(args, fmt);
  vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  return buf;
}

namespace {

// "0-199, 256, 300-301"
std::string ranges(const std::vector<unsigned> &sorted) {
  std::string out;
  for (size_t i = 0; i < sorted.size();) {
    size_t j = i;
    while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1) ++j;
    if (!out.empty()) out += ", ";
    out += sorted[i] == sorted[j] ? format("%u", sorted[i]) : format("%u-%u", sorted[i], sorted[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace

std::string lane_list(unsigned mask) {
  std::vector<unsigned> lanes;
  for (unsigned l = 0; l < 32; ++l)
    if (mask & (1u << l)) lanes.push_back(l);
  return ranges(lanes);
}

namespace {

std::string dim_text(dim3 d) { return format("(%u,%u,%u)", d.x, d.y, d.z); }

std::string launch_header(const Worker *w) {
  const Launch &L = *w->launch;
  return format("kernel %s<<<%s, %s, %zu>>> (launched at %s:%d), block (%u,%u,%u)", L.kernel,
                dim_text(L.config.grid).c_str(), dim_text(L.config.block).c_str(),
                L.config.shared_bytes, base_name(L.file), L.line, w->block_idx.x, w->block_idx.y,
                w->block_idx.z);
}

std::string seed_line(const Worker *w) {
  const Launch &L = *w->launch;
  return format(
      "schedule seed 0x%llx, launch #%llu; GPULABS_SIM_SEED=0x%llx "
      "replays this schedule",
      (unsigned long long)L.seed, (unsigned long long)L.id + 1, (unsigned long long)L.seed);
}

std::string describe_wait(const Thread *th) {
  if (th->state == RunState::kAtBarrier && th->barrier_kind >= 5) {
    return format("wait at %s() of a thread_block_tile<%d> (%s:%d)", barrier_name(th->barrier_kind),
                  th->barrier_predicate, base_name(th->file), th->line);
  }
  if (th->state == RunState::kAtCoalesce) {
    return format("wait in coalesced_threads() (%s:%d)", base_name(th->file), th->line);
  }
  if (th->state == RunState::kAtBarrier) {
    return format("wait at %s() (%s:%d)", barrier_name(th->barrier_kind), base_name(th->file),
                  th->line);
  }
  return format("wait at %s(mask 0x%08x) (%s:%d)", warp_op_name(th->call.op), th->call.mask,
                base_name(th->file), th->line);
}

}  // namespace

// Marks the block (and its launch) failed. The first failure of a launch is the one reported.
void fail_block(Worker *w, const std::string &what) {
  w->aborting = true;
  Launch &L = *w->launch;
  std::lock_guard<std::mutex> lock(L.failure_mutex);
  if (L.failed.load()) return;
  L.failure = "gpulabs-sim: " + launch_header(w) + ": " + what + "\n  " + seed_line(w);
  L.failed.store(true);
  fprintf(stderr, "%s\n", L.failure.c_str());
  fflush(stderr);
}

[[noreturn]] void fail_here(Thread *th, const char *fmt, ...) {
  Worker *w = th->worker;
  char what[1024];
  va_list args;
  va_start(args, fmt);
  vsnprintf(what, sizeof what, fmt, args);
  va_end(args);
  fail_block(w, format("thread (%u,%u,%u): %s", th->ts.thread_idx.x, th->ts.thread_idx.y,
                       th->ts.thread_idx.z, what));
  switch_away(w, th);  // the block is aborting: back to the worker, and this stack is reset
  note("internal error: a failed thread was resumed");
  abort();
}

void report_deadlock(Worker *w) {
  // Group the threads that are not done by what they wait at.
  std::vector<std::pair<std::string, std::vector<unsigned>>> groups;
  std::vector<unsigned> returned;
  for (unsigned i = 0; i < w->n; ++i) {
    const Thread *th = w->threads[i].get();
    if (th->state == RunState::kDone) {
      returned.push_back(i);
      continue;
    }
    std::string key = describe_wait(th);
    if (th->state == RunState::kAtWarp) {
      const WarpState &ws = w->warps[i / 32];
      unsigned missing = th->call.mask & ws.exists & ~ws.done & ~ws.waiting;
      if (missing != 0) {
        key += format(" for lanes %s of warp %u, which wait elsewhere", lane_list(missing).c_str(),
                      i / 32);
      }
    }
    bool found = false;
    for (auto &g : groups) {
      if (g.first == key) {
        g.second.push_back(i);
        found = true;
        break;
      }
    }
    if (!found) groups.push_back({key, {i}});
  }
  std::string text = "deadlock: no thread of the block can go on.";
  for (const auto &g : groups) {
    text += format("\n  threads %s %s", ranges(g.second).c_str(), g.first.c_str());
  }
  if (!returned.empty()) {
    text += format("\n  threads %s have returned", ranges(returned).c_str());
  }
  const dim3 &b = w->launch->config.block;
  if (b.y > 1 || b.z > 1)
    text += "\n  (thread numbers are linear: x + y*blockDim.x + z*blockDim.x*blockDim.y)";
  text +=
      "\n  Every thread of a block must reach each __syncthreads() (and thread_block::sync()), "
      "every thread of a tile its sync(), and every lane named in a warp function's mask must "
      "call it; on a GPU this kernel hangs or computes garbage.";
  fail_block(w, text);
}

#if defined(GPULABS_SIM_ASAN)
void on_sanitizer_death() {
  ThreadState *t = gpulabs_sim_tls_thread;
  if (t == nullptr) return;
  const Thread *th = thread_of(t);
  fprintf(stderr, "gpulabs-sim: the access above was made by %s, thread (%u,%u,%u)\n  %s\n",
          launch_header(th->worker).c_str(), t->thread_idx.x, t->thread_idx.y, t->thread_idx.z,
          seed_line(th->worker).c_str());
}
#endif

}  // namespace gpulabs_sim
