// The warp functions (__shfl*_sync, votes, matches, __reduce_*_sync, __syncwarp): each lane
// that calls one waits until every non-exited lane named in the mask has arrived; then the
// call completes for all of them at once, with the semantics of the CUDA guide and, where it
// is silent, of the PTX instruction as measured on an H100 (README, "Warps").
#include <cstdint>
#include <cstring>

#include "scheduler.h"

namespace gpulabs_sim {
namespace {

// The lane a shuffle reads, as the PTX shfl.sync instruction defines it (CUDA's __shfl_*_sync
// are thin wrappers): only the low 5 bits of srcLane/delta/laneMask count, and a source
// outside the lane's width-sized segment (or, for xor, in a later segment) means the lane's
// own value.
unsigned shuffle_source(WarpOp op, unsigned lane, int64_t arg, int width) {
  const int seg_mask = (32 - width) & 31;  // the segment's base bits
  const int b = (int)(arg & 31);
  const int min_lane = (int)lane & seg_mask;
  const int max_lane = op == WarpOp::kShflUp ? min_lane : (min_lane | (31 & ~seg_mask));
  int j = (int)lane;
  bool ok = true;
  switch (op) {
    case WarpOp::kShflUp:
      j = (int)lane - b;
      ok = j >= max_lane;
      break;
    case WarpOp::kShflDown:
      j = (int)lane + b;
      ok = j <= max_lane;
      break;
    case WarpOp::kShflXor:
      j = (int)lane ^ b;
      ok = j <= max_lane;
      break;
    default:
      j = min_lane | (b & ~seg_mask);
      ok = j <= max_lane;
      break;
  }
  return ok ? (unsigned)j : lane;
}

// A shuffle whose source lane does not take part reads an undefined value on a GPU (the guide:
// "if the target thread is inactive, the retrieved value is undefined"): a bug that a test may
// not see, since the value is often plausible. Reported instead, naming the reader, the lane it
// reads and why that lane is not there. False when every source takes part.
bool check_shuffle_sources(Worker *w, unsigned warp, unsigned members, Thread *const lanes[32]) {
  const WarpState &ws = w->warps[warp];
  for (unsigned l = 0; l < 32; ++l) {
    const Thread *th = lanes[l];
    if (!th) continue;
    const unsigned src = shuffle_source(th->call.op, l, th->call.arg, th->call.width);
    if (lanes[src]) continue;
    const unsigned bit = 1u << src;
    const char *why = !(ws.exists & bit)         ? "which is not a thread of the block"
                      : !(th->call.mask & bit) ? "which the mask leaves out"
                                               : "which has returned from the kernel";
    fail_block(w, format("thread (%u,%u,%u), lane %u of warp %u: %s(mask 0x%08x) at %s:%d reads "
                         "lane %u, %s. On a GPU that value is undefined; a shuffle must read "
                         "only lanes that call it with the same mask (lanes in the call: %s).",
                         th->ts.thread_idx.x, th->ts.thread_idx.y, th->ts.thread_idx.z, l, warp,
                         warp_op_name(th->call.op), th->call.mask, base_name(th->file), th->line,
                         src, why, lane_list(members).c_str()));
    return true;
  }
  return false;
}

bool same_value(const Thread *a, const Thread *b) {
  return memcmp(&a->call.value, &b->call.value, a->call.size) == 0;
}

void complete_warp_call(Worker *w, unsigned warp, unsigned members) {
  Thread *lanes[32] = {};
  for (unsigned l = 0; l < 32; ++l)
    if (members & (1u << l)) lanes[l] = w->threads[warp * 32 + l].get();
  const Thread *first = lanes[__builtin_ctz(members)];
  const WarpOp op = first->call.op;
  const bool shuffle = op == WarpOp::kShflIdx || op == WarpOp::kShflUp ||
                       op == WarpOp::kShflDown || op == WarpOp::kShflXor;
  if (shuffle && check_shuffle_sources(w, warp, members, lanes)) return;

  unsigned ballot = 0;
  uint64_t folded = 0;
  bool folding_started = false;
  for (unsigned l = 0; l < 32; ++l) {
    if (!lanes[l]) continue;
    uint64_t v = lanes[l]->call.value;
    if (v != 0) ballot |= 1u << l;
    if (!folding_started) {
      folded = v;
      folding_started = true;
      continue;
    }
    switch (op) {
      case WarpOp::kReduceAdd: folded = (uint32_t)(folded + v); break;
      case WarpOp::kReduceMinU: folded = (uint32_t)v < (uint32_t)folded ? v : folded; break;
      case WarpOp::kReduceMinS: folded = (int32_t)v < (int32_t)folded ? v : folded; break;
      case WarpOp::kReduceMaxU: folded = (uint32_t)v > (uint32_t)folded ? v : folded; break;
      case WarpOp::kReduceMaxS: folded = (int32_t)v > (int32_t)folded ? v : folded; break;
      case WarpOp::kReduceAnd: folded &= v; break;
      case WarpOp::kReduceOr: folded |= v; break;
      case WarpOp::kReduceXor: folded ^= v; break;
      default: break;
    }
  }
  bool all_equal = true;
  for (unsigned l = 0; l < 32; ++l)
    if (lanes[l] && !same_value(lanes[l], first)) all_equal = false;

  for (unsigned l = 0; l < 32; ++l) {
    Thread *th = lanes[l];
    if (!th) continue;
    uint64_t r = 0;
    int pred = 0;
    switch (op) {
      case WarpOp::kSync: break;
      case WarpOp::kShflIdx:
      case WarpOp::kShflUp:
      case WarpOp::kShflDown:
      case WarpOp::kShflXor: {
        r = lanes[shuffle_source(op, l, th->call.arg, th->call.width)]->call.value;
        break;
      }
      case WarpOp::kBallot: r = ballot; break;
      case WarpOp::kAny: r = ballot != 0; break;
      case WarpOp::kAll: r = ballot == members; break;
      case WarpOp::kMatchAny:
        for (unsigned k = 0; k < 32; ++k)
          if (lanes[k] && same_value(lanes[k], th)) r |= 1ull << k;
        break;
      case WarpOp::kMatchAll:  // the lanes that took part, as an H100 answers (not the mask)
        r = all_equal ? members : 0;
        pred = all_equal;
        break;
      default: r = folded; break;
    }
    th->result = r;
    th->result_predicate = pred;
    make_runnable(w, th);
  }
}

}  // namespace

// Completes every group of waiting lanes whose members have all arrived.
void check_warp(Worker *w, unsigned warp) {
  WarpState &ws = w->warps[warp];
  unsigned pending = ws.waiting;
  while (pending != 0) {
    const unsigned lane = (unsigned)__builtin_ctz(pending);
    pending &= pending - 1;
    const Thread *th = w->threads[warp * 32 + lane].get();
    const unsigned members = th->call.mask & ws.exists & ~ws.done;
    if ((members & ~ws.waiting) != 0) continue;  // some member has not arrived yet
    for (unsigned l = 0; l < 32; ++l) {
      if (!(members & (1u << l))) continue;
      const Thread *g = w->threads[warp * 32 + l].get();
      if (g->call.op != th->call.op || g->call.mask != th->call.mask ||
          g->call.size != th->call.size) {
        fail_block(w, format("warp %u: lane %u called %s(mask 0x%08x) at %s:%d while lane %u "
                             "called %s(mask 0x%08x) at %s:%d. The lanes named in a mask must "
                             "all call the same warp function with the same mask.",
                             warp, lane, warp_op_name(th->call.op), th->call.mask, base_name(th->file),
                             th->line, l, warp_op_name(g->call.op), g->call.mask, base_name(g->file),
                             g->line));
        return;
      }
    }
    complete_warp_call(w, warp, members);
    if (w->aborting) return;  // a shuffle read a lane that is not there
    ws.waiting &= ~members;
    pending &= ~members;
  }
}

uint64_t warp_collective(const WarpCall &call, int *pred) {
  Thread *th = running_thread(warp_op_name(call.op));
  Worker *w = th->worker;
  const unsigned lane = th->ts.lane;
  if ((call.mask & (1u << lane)) == 0) {
    fail_here(th, "%s(mask 0x%08x) at %s:%d: the mask leaves out the calling lane %u",
              warp_op_name(call.op), call.mask, base_name(call.file), call.line, lane);
  }
  if (call.width < 1 || call.width > 32 || (call.width & (call.width - 1)) != 0) {
    fail_here(th, "%s at %s:%d: width %d is not a power of two in [1, 32]", warp_op_name(call.op),
              base_name(call.file), call.line, call.width);
  }
  th->call = call;
  th->file = call.file;
  th->line = call.line;
  th->state = RunState::kAtWarp;
  th->ts.spins = 0;
  const unsigned warp = th->index / 32;
  w->warps[warp].waiting |= 1u << lane;
  check_warp(w, warp);
  switch_away(w, th);
  if (pred != nullptr) *pred = th->result_predicate;
  return th->result;
}

}  // namespace gpulabs_sim
