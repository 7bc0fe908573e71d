// What the parts of the scheduler share: its settings, the types a running block is made of
// (Thread, Stack, Launch, Worker), the functions one part calls in another, and the few steps
// of a thread switch that every part which blocks or resumes a thread needs inlined.
//
// The scheduler runs kernel grids: blocks spread over host threads ("workers"), each block's
// threads as fibers that one worker interleaves.
//
// Within a block, the threads run in rounds. A round is a shuffled list of the threads that
// can run; each runs until it blocks (at __syncthreads, a warp function, a fence or a
// spinning atomic), yields at a branch condition (every so many, a seeded count) or returns. Threads released by a barrier or a warp function join the
// next round, which is shuffled again. The shuffles are drawn from (seed, launch, block), so
// a schedule can be replayed, and code that forgets a barrier reads values that are not
// there yet, or a check-then-write without an atomic loses an update: the bug shows as a
// wrong result, not as luck.
//
// Blocks are handed out in increasing order from one counter and each worker runs its block
// to the end, so a block that waits for an earlier block (decoupled look-back) always waits
// for one that is running or done.
//
// The parts:
//   settings.cpp  seed, worker count, stack size (environment), gpulabs_sim.h's controls
//   workers.cpp   launch_kernel, the pool of host threads, running one block
//   threads.cpp   what each fiber runs, __syncthreads*, yields, __trap
//   warp.cpp      the warp functions (shuffles, votes, matches, reductions, __syncwarp)
//   shared.cpp    a block's shared memory (the worker's arena)
//   report.cpp    failures: the messages, the deadlock report, AddressSanitizer's note
#ifndef GPULABS_SIM_SCHEDULER_H
#define GPULABS_SIM_SCHEDULER_H

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "fiber.h"
#include "internal.h"

namespace gpulabs_sim {

// What the parts call in one another is not exported from the library (as when they were one
// file's local functions), which also lets the compiler treat calls within a part as local.
#pragma GCC visibility push(hidden)

// ---- Settings (settings.cpp) --------------------------------------------------------------

struct Settings {
  std::mutex mutex;
  bool ready = false;
  uint64_t seed = 0;
  const char *seed_source = "";
  int workers = 1;
  size_t stack_bytes = 128 * 1024;
  bool quiet = false;
  bool announced = false;  // the first launch printed the seed and set things up
  std::atomic<uint64_t> launches{0};
};
Settings &settings();
// Reads the environment once (GPULABS_SIM_SEED or GPULABS_SEED, GPULABS_SIM_THREADS,
// GPULABS_SIM_STACK_KIB, GPULABS_SIM_QUIET); call with s.mutex held.
void init_settings_locked(Settings &s);

// ---- Memory (shared.cpp, warp.cpp) ---------------------------------------------------------

// Uninitialised shared memory reads as this byte (garbage on a GPU).
constexpr unsigned char kSharedPoison = 0xCB;
// Between shared allocations (and after the dynamic ones) AddressSanitizer sees a redzone.
constexpr size_t kSharedRedzone = 64;
constexpr size_t kArenaBytes = 512 * 1024;  // >= 227 KiB + 48 KiB + redzones, whole pages
static_assert(kArenaBytes >= kSharedPerBlockOptin + kStaticSharedPerBlock + 64 * 1024, "room");

// ---- Launches, workers, threads, stacks ---------------------------------------------------

enum class RunState : unsigned char { kRunnable, kAtBarrier, kAtWarp, kAtCoalesce, kDone };

struct Worker;
struct Stack;

// One simulated thread. ThreadState comes first: gpulabs_sim_tls_thread points at it.
struct Thread {
  ThreadState ts;
  Worker *worker = nullptr;
  unsigned index = 0;  // linear index in the block
  RunState state = RunState::kDone;
  Stack *stack = nullptr;  // while it runs or waits; none before it starts or once it returns
  // Where it waits, for reports.
  const char *file = nullptr;
  int line = 0;
  int barrier_kind = 0;
  int barrier_predicate = 0;  // for a tile barrier (kinds 5, 6): the tile's size
  int barrier_result = 0;
  WarpCall call{};
  uint64_t result = 0;
  int result_predicate = 0;
};
static_assert(std::is_standard_layout<Thread>::value, "ThreadState* -> Thread* needs it");

// A fiber: a stack and its saved context. A thread takes one when it starts and gives it back
// when it returns, so a block whose threads never wait runs them all, one after the other, on
// one stack without a single switch; a thread that waits keeps its stack until it is resumed.
struct Stack {
  FiberContext ctx;
  Worker *worker = nullptr;
  Thread *thread = nullptr;  // the thread it runs next or is running
  bool free = true;          // in the worker's free list
};

struct Launch {
  LaunchConfig config;
  const char *kernel;
  const char *file;
  int line;
  KernelBody run;
  const void *body;
  uint64_t id;
  uint64_t seed;
  unsigned threads_per_block;
  uint64_t total_blocks;
  std::atomic<uint64_t> next_block{0};
  std::atomic<bool> failed{false};
  std::mutex failure_mutex;
  std::string failure;
};

struct WarpState {
  unsigned exists;   // lanes that are threads of the block
  unsigned done;     // lanes that returned (or do not exist)
  unsigned waiting;  // lanes blocked in a warp function
};

struct SharedAllocation {
  const void *key;
  void *memory;
};

struct Worker {
  FiberContext home;  // this OS thread's own stack: blocks start and end here
  std::vector<std::unique_ptr<Thread>> threads;
  std::vector<std::unique_ptr<Stack>> stacks;
  std::vector<Stack *> free_stacks;
  // The block being run.
  Launch *launch = nullptr;
  dim3 prepared_block{0, 0, 0};  // the block shape whose indices the threads hold
  uint3 block_idx{0, 0, 0};
  unsigned n = 0;
  std::vector<WarpState> warps;
  std::vector<unsigned short> queue;  // this round, shuffled
  size_t queue_pos = 0;
  std::vector<unsigned short> next_round;
  unsigned done_count = 0;
  unsigned barrier_count = 0;
  bool aborting = false;  // this block failed, or another block of the launch did
  uint64_t rng = 0;
  // Shared memory: dynamic at the start, then static allocations in first-use order.
  unsigned char *arena = nullptr;
  size_t arena_used = 0;
  size_t arena_high_water = 0;
  size_t static_bytes = 0;
  std::vector<SharedAllocation> statics;
  // Cooperative groups (threads.cpp), last so that the fields above keep their cache lines:
  // arrivals at the barrier of each tile wider than a warp, by size (64 << k) and tile; the
  // threads waiting in coalesced_threads(); the slots through which the threads of such a
  // tile exchange values.
  unsigned short tile_arrivals[5][16] = {};
  std::vector<unsigned short> coalescing;
  uint64_t tile_slots[1024] = {};
};

// ---- Across the parts ----------------------------------------------------------------------

// report.cpp
std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
// "0-3, 8, 30-31": the lanes of a mask.
std::string lane_list(unsigned mask);
// Marks the block (and its launch) failed. The first failure of a launch is the one reported.
void fail_block(Worker *w, const std::string &what);
// A misuse found by the running thread: report it and leave the block for good. (printf-style,
// so that no string lives in the frames the thread abandons.)
[[noreturn]] void fail_here(Thread *th, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
// No thread of the block can go on: fails the block with a report of who waits where.
void report_deadlock(Worker *w);
#if defined(GPULABS_SIM_ASAN)
// AddressSanitizer calls this after its report, before it ends the process: when the bad
// access came from a kernel, say which block and thread made it.
void on_sanitizer_death();
#endif

// threads.cpp: what every stack runs.
void fiber_main(void *arg);

// threads.cpp: at the end of a round, the lanes of each warp that wait in coalesced_threads()
// at the same call form one group each, and are released into the next round.
void resolve_coalesced(Worker *w);

// warp.cpp: completes every group of waiting lanes whose members have all arrived.
void check_warp(Worker *w, unsigned warp);

// shared.cpp: a block starts with its dynamic shared memory (garbage) and no static ones.
void prepare_shared(Worker *w, size_t dynamic_bytes);

#pragma GCC visibility pop

// ---- The steps of a thread switch ---------------------------------------------------------
// pick_next, take_stack, switch_away & co., which every part that blocks, resumes or fails a
// thread runs on the hot path of every barrier and warp function, and the small helpers the
// entry points call there (the names of the barrier and warp functions, base_name). They are
// defined here, local (an unnamed namespace) to each part that includes this header and marked
// as when the scheduler was one file, so that the compiler inlines them, or calls them knowing
// their bodies, as it did then: block_barrier, yield_now, fiber_main and check_warp compile to
// the same instructions as before the split. ([[maybe_unused]]: a part that does not use one
// of them must not be warned about it.)
namespace {

[[maybe_unused]] uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

[[maybe_unused]] Thread *thread_of(ThreadState *t) { return reinterpret_cast<Thread *>(t); }

// wyrand: one multiplication per number, which matters at one shuffle per barrier.
[[maybe_unused]] uint32_t next_random(Worker *w) {
  w->rng += 0xA0761D6478BD642Full;
  const unsigned __int128 t = (unsigned __int128)w->rng * (w->rng ^ 0xE7037ED1A0B428DBull);
  return (uint32_t)((uint64_t)(t >> 64) ^ (uint64_t)t);
}

// How many branch conditions a thread evaluates before its next branch_yield: uniform in
// [1, 2 * kBranchesPerYield - 1], so the switch falls at any branch, on average every
// kBranchesPerYield-th, and the seed decides where.
[[maybe_unused]] unsigned draw_branch_countdown(Worker *w) {
  return 1 + (unsigned)(((uint64_t)next_random(w) * (2 * kBranchesPerYield - 1)) >> 32);
}

// Not inlined: it runs once a round, and a part that calls it only from pick_next (threads.cpp)
// would inline it there, making every pick_next dearer (3 instructions a switch, measured).
[[maybe_unused]] __attribute__((noinline)) void shuffle(Worker *w,
                                                        std::vector<unsigned short> &items) {
  for (size_t i = items.size(); i > 1; --i) {
    size_t j = (size_t)(((uint64_t)next_random(w) * i) >> 32);
    std::swap(items[i - 1], items[j]);
  }
}

[[maybe_unused]] const char *warp_op_name(WarpOp op) {
  switch (op) {
    case WarpOp::kSync: return "__syncwarp";
    case WarpOp::kShflIdx: return "__shfl_sync";
    case WarpOp::kShflUp: return "__shfl_up_sync";
    case WarpOp::kShflDown: return "__shfl_down_sync";
    case WarpOp::kShflXor: return "__shfl_xor_sync";
    case WarpOp::kBallot: return "__ballot_sync";
    case WarpOp::kAny: return "__any_sync";
    case WarpOp::kAll: return "__all_sync";
    case WarpOp::kMatchAny: return "__match_any_sync";
    case WarpOp::kMatchAll: return "__match_all_sync";
    case WarpOp::kReduceAdd: return "__reduce_add_sync";
    case WarpOp::kReduceMinU:
    case WarpOp::kReduceMinS: return "__reduce_min_sync";
    case WarpOp::kReduceMaxU:
    case WarpOp::kReduceMaxS: return "__reduce_max_sync";
    case WarpOp::kReduceAnd: return "__reduce_and_sync";
    case WarpOp::kReduceOr: return "__reduce_or_sync";
    case WarpOp::kReduceXor: return "__reduce_xor_sync";
  }
  return "a warp function";
}

// Kinds 0-3: __syncthreads*; 4: a cooperative_groups::thread_block's sync; 5 and 6: the
// barrier of a tile wider than a warp (its sync, and the two its collectives use).
[[maybe_unused]] const char *barrier_name(int kind) {
  static const char *const names[] = {"__syncthreads",
                                      "__syncthreads_count",
                                      "__syncthreads_and",
                                      "__syncthreads_or",
                                      "cooperative_groups::thread_block::sync",
                                      "cooperative_groups::thread_block_tile::sync",
                                      "a cooperative_groups::thread_block_tile collective"};
  return names[kind];
}

[[maybe_unused]] const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

// The next thread to run, or null when the block is finished or has failed.
[[maybe_unused]] Thread *pick_next(Worker *w) {
  if (w->aborting) return nullptr;
  if (w->launch->failed.load(std::memory_order_relaxed)) {
    w->aborting = true;  // another block failed: stop this one too
    return nullptr;
  }
  for (;;) {
    if (w->queue_pos < w->queue.size()) return w->threads[w->queue[w->queue_pos++]].get();
    if (!w->coalescing.empty()) resolve_coalesced(w);
    if (w->next_round.empty()) {
      if (w->done_count == w->n) return nullptr;
      report_deadlock(w);
      return nullptr;
    }
    w->queue.swap(w->next_round);
    w->next_round.clear();
    w->queue_pos = 0;
    shuffle(w, w->queue);
  }
}

// Makes `th` the running thread of this host thread (what threadIdx & co. read).
inline void enter(Thread *th) {
  gpulabs_sim_tls_thread = &th->ts;
  threadIdx = th->ts.thread_idx;
}

// A free stack for a thread about to start (a new one when every stack is taken).
[[maybe_unused]] Stack *take_stack(Worker *w) {
  if (w->free_stacks.empty()) {
    auto stack = std::make_unique<Stack>();
    stack->worker = w;
    if (!fiber_stack_allocate(&stack->ctx, settings().stack_bytes)) {
      note("out of memory for the stacks of a block's threads");
      abort();
    }
    stack->ctx.top_offset = (w->stacks.size() * 1088) % 16384;  // a cache set of its own
    fiber_prepare(&stack->ctx, fiber_main, stack.get());
    w->stacks.push_back(std::move(stack));
    w->free_stacks.push_back(w->stacks.back().get());
  }
  Stack *stack = w->free_stacks.back();
  w->free_stacks.pop_back();
  stack->free = false;
  return stack;
}

[[maybe_unused]] void give_back(Worker *w, Stack *stack) {
  stack->thread = nullptr;
  stack->free = true;
  w->free_stacks.push_back(stack);
}

[[maybe_unused]] void bind(Thread *th, Stack *stack) {
  th->stack = stack;
  stack->thread = th;
}

// Suspends `self` (whose state is already set) and runs the next thread; returns when `self`
// is resumed. A next thread that has not started gets a free stack.
inline __attribute__((always_inline)) void switch_away(Worker *w, Thread *self) {
  Thread *next = pick_next(w);
  if (next == self) return;
  if (next == nullptr) {
    gpulabs_sim_tls_thread = nullptr;
    fiber_switch(&self->stack->ctx, &w->home);
    return;
  }
  if (next->stack == nullptr) bind(next, take_stack(w));
  enter(next);
  fiber_switch(&self->stack->ctx, &next->stack->ctx);
}

[[maybe_unused]] void make_runnable(Worker *w, Thread *th) {
  th->state = RunState::kRunnable;
  w->next_round.push_back((unsigned short)th->index);
}

[[maybe_unused]] Thread *running_thread(const char *what) {
  ThreadState *t = gpulabs_sim_tls_thread;
  if (t == nullptr) outside_kernel(what);
  return thread_of(t);
}

}  // namespace
}  // namespace gpulabs_sim

#endif
