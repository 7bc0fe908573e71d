// A simulated thread's life on its fiber: the built-in variables device code reads, what every
// stack runs (a thread, then the next ones that have not started), and where a thread stops to
// let others run: __syncthreads*, yields (fences, __nanosleep, spinning atomics, branch
// conditions), __trap. The hot path of every barrier is here; the steps of a switch it shares
// are in scheduler.h.
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include <sched.h>

#include "scheduler.h"

__thread gpulabs_sim::ThreadState *gpulabs_sim_tls_thread
    __attribute__((tls_model("initial-exec"))) = nullptr;
__thread uint3 threadIdx __attribute__((tls_model("initial-exec")));
__thread uint3 blockIdx __attribute__((tls_model("initial-exec")));
__thread uint3 blockDim __attribute__((tls_model("initial-exec")));
__thread uint3 gridDim __attribute__((tls_model("initial-exec")));

namespace gpulabs_sim {

// What every stack runs: the thread bound to it, then, as long as the next thread to run has
// not started, that one too, right here; then it parks in the free list until a thread is
// bound to it again (in this block or a later one).
void fiber_main(void *arg) {
  Stack *stack = static_cast<Stack *>(arg);
  Worker *w = stack->worker;
  for (;;) {
    Thread *th = stack->thread;
    w->launch->run(w->launch->body);
    // th returned from the kernel.
    th->state = RunState::kDone;
    th->stack = nullptr;
    ++w->done_count;
    WarpState &ws = w->warps[th->index / 32];
    ws.done |= 1u << (th->index % 32);
    if (ws.waiting != 0) check_warp(w, th->index / 32);  // it may be the lane others await
    Thread *next = pick_next(w);
    if (next != nullptr && next->stack == nullptr) {
      bind(next, stack);
      enter(next);
      continue;
    }
    give_back(w, stack);
    if (next != nullptr) {
      enter(next);
      fiber_switch(&stack->ctx, &next->stack->ctx);
    } else {
      gpulabs_sim_tls_thread = nullptr;
      fiber_switch(&stack->ctx, &w->home);
    }
  }
}

// ---- Barriers -----------------------------------------------------------------------------

namespace {

void release_barrier(Worker *w) {
  const Thread *first = w->threads[0].get();
  int count = 0;
  for (unsigned i = 0; i < w->n; ++i) {
    const Thread *th = w->threads[i].get();
    if (th->line != first->line || th->barrier_kind != first->barrier_kind ||
        (th->file != first->file && strcmp(th->file, first->file) != 0)) {
      fail_block(w, format("threads reached different barriers: thread 0 at %s() (%s:%d), "
                           "thread %u at %s() (%s:%d). A barrier must be reached by every "
                           "thread of the block at the same place.",
                           barrier_name(first->barrier_kind), base_name(first->file), first->line,
                           i, barrier_name(th->barrier_kind), base_name(th->file), th->line));
      return;
    }
    count += th->barrier_predicate != 0;
  }
  int result = 0;
  switch (first->barrier_kind) {
    case 1: result = count; break;
    case 2: result = count == (int)w->n; break;
    case 3: result = count != 0; break;
    default: break;
  }
  w->barrier_count = 0;
  for (unsigned i = 0; i < w->n; ++i) {
    Thread *th = w->threads[i].get();
    th->barrier_result = result;
    make_runnable(w, th);
  }
}

// A tile wider than a warp: every thread of it has arrived at its barrier.
void release_tile(Worker *w, unsigned base, unsigned size) {
  const Thread *first = w->threads[base].get();
  for (unsigned i = base; i < base + size; ++i) {
    const Thread *th = w->threads[i].get();
    if (th->line != first->line || th->barrier_kind != first->barrier_kind ||
        (th->file != first->file && strcmp(th->file, first->file) != 0)) {
      fail_block(w, format("the threads of a thread_block_tile<%u> (threads %u-%u) reached different "
                           "barriers: thread %u at %s() (%s:%d), thread %u at %s() (%s:%d). Every "
                           "thread of a tile must call its sync() and collectives at the same place.",
                           size, base, base + size - 1, base, barrier_name(first->barrier_kind),
                           base_name(first->file), first->line, i, barrier_name(th->barrier_kind),
                           base_name(th->file), th->line));
      return;
    }
  }
  for (unsigned i = base; i < base + size; ++i) make_runnable(w, w->threads[i].get());
}

}  // namespace

// The lanes of each warp that wait in coalesced_threads() at the same place form one group.
void resolve_coalesced(Worker *w) {
  std::vector<unsigned short> &c = w->coalescing;
  std::sort(c.begin(), c.end());  // by warp
  for (size_t i = 0; i < c.size();) {
    size_t j = i;
    while (j < c.size() && c[j] / 32 == c[i] / 32) ++j;
    for (size_t a = i; a < j; ++a) {
      Thread *th = w->threads[c[a]].get();
      unsigned mask = 0;
      for (size_t b = i; b < j; ++b) {
        const Thread *o = w->threads[c[b]].get();
        if (o->line == th->line && (o->file == th->file || strcmp(o->file, th->file) == 0))
          mask |= 1u << o->ts.lane;
      }
      th->result = mask;
      make_runnable(w, th);
    }
    i = j;
  }
  c.clear();
}

// ---- Entry points (gpulabs_sim_device.h) --------------------------------------------------

[[noreturn]] void outside_kernel(const char *what) {
  note("%s used outside a kernel (host code cannot call device functions)", what);
  abort();
}

int block_barrier(int kind, int predicate, const char *file, int line) {
  Thread *th = running_thread(barrier_name(kind));
  Worker *w = th->worker;
  th->state = RunState::kAtBarrier;
  th->file = file;
  th->line = line;
  th->barrier_kind = kind;
  th->barrier_predicate = predicate;
  th->ts.spins = 0;
  if (++w->barrier_count == w->n) release_barrier(w);
  switch_away(w, th);
  return th->barrier_result;
}

void tile_barrier(int kind, unsigned size, const char *file, int line) {
  Thread *th = running_thread(barrier_name(kind));
  Worker *w = th->worker;
  if (size < 64 || size > 1024 || (size & (size - 1)) != 0 || w->n % size != 0) {
    fail_here(th,
              "%s() at %s:%d: a thread_block_tile<%u> needs a size of 64, 128, 256, 512 or 1024 "
              "that divides the block's %u threads",
              barrier_name(kind), base_name(file), line, size, w->n);
  }
  th->state = RunState::kAtBarrier;
  th->file = file;
  th->line = line;
  th->barrier_kind = kind;
  th->barrier_predicate = (int)size;
  th->ts.spins = 0;
  const unsigned base = th->index & ~(size - 1);
  unsigned short &arrived = w->tile_arrivals[__builtin_ctz(size) - 6][base / size];
  if (++arrived == size) {
    arrived = 0;
    release_tile(w, base, size);
  }
  switch_away(w, th);
}

uint64_t *tile_slots() { return running_thread("a thread_block_tile collective")->worker->tile_slots; }

unsigned coalesced_lanes(const char *file, int line) {
  Thread *th = running_thread("cooperative_groups::coalesced_threads");
  Worker *w = th->worker;
  th->state = RunState::kAtCoalesce;
  th->file = file;
  th->line = line;
  th->ts.spins = 0;
  w->coalescing.push_back((unsigned short)th->index);
  switch_away(w, th);
  return (unsigned)th->result;
}

void yield_now() {
  ThreadState *t = gpulabs_sim_tls_thread;
  if (t == nullptr) return;  // host code: nothing to let run
  Thread *th = thread_of(t);
  Worker *w = th->worker;
  t->spins = 0;
  if (w->queue_pos >= w->queue.size() && w->next_round.empty()) {
    // Nothing else in this block can run: it waits for another block (or the host), which
    // runs on another host thread. Give that thread the CPU.
    sched_yield();
    return;
  }
  w->next_round.push_back((unsigned short)th->index);
  switch_away(w, th);
}

// A branch condition's turn to let the others run (branch_point). Unlike yield_now it never
// gives up the host thread: when nothing else of the block can run there is nobody to
// interleave with, and the countdown restarts without a draw, so that a thread spinning on
// another block does not shift the block's later draws (its shuffles) by how long it spins.
void branch_yield() {
  Thread *th = thread_of(gpulabs_sim_tls_thread);
  Worker *w = th->worker;
  if (w->queue_pos >= w->queue.size() && w->next_round.empty()) {
    th->ts.branches_left = kBranchesPerYield;
    return;
  }
  th->ts.branches_left = draw_branch_countdown(w);
  w->next_round.push_back((unsigned short)th->index);
  switch_away(w, th);
}

[[noreturn]] void kernel_trap(const char *what, const char *file, int line) {
  Thread *th = running_thread(what);
  fail_here(th, "%s at %s:%d", what, base_name(file), line);
}

}  // namespace gpulabs_sim
