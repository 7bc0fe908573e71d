// Runs kernel grids: blocks spread over host threads ("workers"), each block's threads as
// fibers that one worker interleaves.
//
// Within a block, the threads run in rounds. A round is a shuffled list of the threads that
// can run; each runs until it blocks (at __syncthreads, a warp function, a fence or a
// spinning atomic) or returns. Threads released by a barrier or a warp function join the
// next round, which is shuffled again. The shuffles are drawn from (seed, launch, block), so
// a schedule can be replayed, and code that forgets a barrier reads values that are not
// there yet: the bug shows as a wrong result, not as luck.
//
// Blocks are handed out in increasing order from one counter and each worker runs its block
// to the end, so a block that waits for an earlier block (decoupled look-back) always waits
// for one that is running or done.
#include <atomic>
#include <condition_variable>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <sched.h>
#include <unistd.h>

#include "fiber.h"
#include "internal.h"

#if defined(GPULABS_SIM_ASAN)  // (defined by fiber.h)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

__thread gpulabs_sim::ThreadState *gpulabs_sim_tls_thread
    __attribute__((tls_model("initial-exec"))) = nullptr;
__thread uint3 threadIdx __attribute__((tls_model("initial-exec")));
__thread uint3 blockIdx __attribute__((tls_model("initial-exec")));
__thread uint3 blockDim __attribute__((tls_model("initial-exec")));
__thread uint3 gridDim __attribute__((tls_model("initial-exec")));

namespace gpulabs_sim {
namespace {

// ---- Settings -----------------------------------------------------------------------------

// Uninitialised shared memory reads as this byte, and so does a shuffle from a lane that did
// not take part (an undefined value on a GPU).
constexpr unsigned char kSharedPoison = 0xCB;
constexpr uint64_t kUndefinedBits = 0xCBCBCBCBCBCBCBCBull;
// Between shared allocations (and after the dynamic ones) AddressSanitizer sees a redzone.
constexpr size_t kSharedRedzone = 64;
constexpr size_t kArenaBytes = 512 * 1024;  // >= 227 KiB + 48 KiB + redzones, whole pages
static_assert(kArenaBytes >= kSharedPerBlockOptin + kStaticSharedPerBlock + 64 * 1024, "room");

uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

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
Settings &settings() {
  static Settings *s = new Settings;  // never destroyed: pool threads may outlive main()
  return *s;
}

bool parse_u64(const char *text, uint64_t *value) {
  if (text == nullptr || text[0] == '\0') return false;
  char *end = nullptr;
  unsigned long long v = strtoull(text, &end, 0);
  if (end == text || *end != '\0') return false;
  *value = v;
  return true;
}

void init_settings_locked(Settings &s) {
  if (s.ready) return;
  uint64_t value = 0;
  if (parse_u64(getenv("GPULABS_SIM_SEED"), &value)) {
    s.seed = value;
    s.seed_source = "GPULABS_SIM_SEED";
  } else if (parse_u64(getenv("GPULABS_SEED"), &value)) {
    s.seed = value;
    s.seed_source = "GPULABS_SEED";
  } else {
    timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    uint64_t state =
        (uint64_t)now.tv_sec * 1000000007ull ^ (uint64_t)now.tv_nsec ^ ((uint64_t)getpid() << 32);
    s.seed = splitmix64(&state) & 0xFFFFFFFFFFull;  // short enough to type back in
    s.seed_source = "fresh";
  }
  unsigned cpus = std::thread::hardware_concurrency();
  s.workers = cpus > 0 ? (int)cpus : 2;
  if (parse_u64(getenv("GPULABS_SIM_THREADS"), &value) && value >= 1 && value <= 256) {
    s.workers = (int)value;
  }
  if (parse_u64(getenv("GPULABS_SIM_STACK_KIB"), &value) && value >= 16 && value <= 65536) {
    s.stack_bytes = (size_t)value * 1024;
  }
  s.quiet = getenv("GPULABS_SIM_QUIET") != nullptr && strcmp(getenv("GPULABS_SIM_QUIET"), "0") != 0;
  s.ready = true;
}

Settings &ready_settings() {
  Settings &s = settings();
  std::lock_guard<std::mutex> lock(s.mutex);
  init_settings_locked(s);
  return s;
}

// ---- Launches, workers, threads, stacks ---------------------------------------------------

enum class RunState : unsigned char { kRunnable, kAtBarrier, kAtWarp, kDone };

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
  int barrier_predicate = 0;
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

Thread *thread_of(ThreadState *t) { return reinterpret_cast<Thread *>(t); }

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
};

__thread Worker *tls_worker __attribute__((tls_model("initial-exec"))) = nullptr;

void check_warp(Worker *w, unsigned warp);

Worker *this_worker() {
  if (tls_worker == nullptr) {
    tls_worker = new Worker;  // lives as long as its thread, which lives until exit
    tls_worker->arena = static_cast<unsigned char *>(aligned_alloc(4096, kArenaBytes));
    if (tls_worker->arena == nullptr) {
      note("out of memory for a block's shared memory");
      abort();
    }
#if defined(GPULABS_SIM_ASAN)
    __asan_poison_memory_region(tls_worker->arena, kArenaBytes);
#endif
    tls_worker->arena_high_water = kArenaBytes;
  }
  return tls_worker;
}

// wyrand: one multiplication per number, which matters at one shuffle per barrier.
uint32_t next_random(Worker *w) {
  w->rng += 0xA0761D6478BD642Full;
  const unsigned __int128 t = (unsigned __int128)w->rng * (w->rng ^ 0xE7037ED1A0B428DBull);
  return (uint32_t)((uint64_t)(t >> 64) ^ (uint64_t)t);
}

void shuffle(Worker *w, std::vector<unsigned short> &items) {
  for (size_t i = items.size(); i > 1; --i) {
    size_t j = (size_t)(((uint64_t)next_random(w) * i) >> 32);
    std::swap(items[i - 1], items[j]);
  }
}

// ---- Reports ------------------------------------------------------------------------------

std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char *fmt, ...) {
  char buf[1024];
  va_list args;
  va_start(args, fmt);
  vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  return buf;
}

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

std::string lane_list(unsigned mask) {
  std::vector<unsigned> lanes;
  for (unsigned l = 0; l < 32; ++l)
    if (mask & (1u << l)) lanes.push_back(l);
  return ranges(lanes);
}

const char *warp_op_name(WarpOp op) {
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

const char *barrier_name(int kind) {
  static const char *const names[] = {"__syncthreads", "__syncthreads_count", "__syncthreads_and",
                                      "__syncthreads_or"};
  return names[kind];
}

const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

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

std::string describe_wait(const Thread *th) {
  if (th->state == RunState::kAtBarrier) {
    return format("wait at %s() (%s:%d)", barrier_name(th->barrier_kind), base_name(th->file),
                  th->line);
  }
  return format("wait at %s(mask 0x%08x) (%s:%d)", warp_op_name(th->call.op), th->call.mask,
                base_name(th->file), th->line);
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
      "\n  Every thread of a block must reach each __syncthreads(), and every lane named in a "
      "warp function's mask must call it; on a GPU this kernel hangs or computes garbage.";
  fail_block(w, text);
}

#if defined(GPULABS_SIM_ASAN)
// AddressSanitizer calls this after its report, before it ends the process: when the bad
// access came from a kernel, say which block and thread made it.
void on_sanitizer_death() {
  ThreadState *t = gpulabs_sim_tls_thread;
  if (t == nullptr) return;
  const Thread *th = thread_of(t);
  fprintf(stderr, "gpulabs-sim: the access above was made by %s, thread (%u,%u,%u)\n  %s\n",
          launch_header(th->worker).c_str(), t->thread_idx.x, t->thread_idx.y, t->thread_idx.z,
          seed_line(th->worker).c_str());
}
#endif

// ---- Scheduling ---------------------------------------------------------------------------

// The next thread to run, or null when the block is finished or has failed.
Thread *pick_next(Worker *w) {
  if (w->aborting) return nullptr;
  if (w->launch->failed.load(std::memory_order_relaxed)) {
    w->aborting = true;  // another block failed: stop this one too
    return nullptr;
  }
  for (;;) {
    if (w->queue_pos < w->queue.size()) return w->threads[w->queue[w->queue_pos++]].get();
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

void fiber_main(void *arg);

// A free stack for a thread about to start (a new one when every stack is taken).
Stack *take_stack(Worker *w) {
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

void give_back(Worker *w, Stack *stack) {
  stack->thread = nullptr;
  stack->free = true;
  w->free_stacks.push_back(stack);
}

void bind(Thread *th, Stack *stack) {
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

void make_runnable(Worker *w, Thread *th) {
  th->state = RunState::kRunnable;
  w->next_round.push_back((unsigned short)th->index);
}

Thread *running_thread(const char *what) {
  ThreadState *t = gpulabs_sim_tls_thread;
  if (t == nullptr) outside_kernel(what);
  return thread_of(t);
}

// A misuse found by the running thread: report it and leave the block for good. (printf-style,
// so that no string lives in the frames the thread abandons.)
[[noreturn]] void fail_here(Thread *th, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
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

// ---- Warp functions -----------------------------------------------------------------------

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

bool same_value(const Thread *a, const Thread *b) {
  return memcmp(&a->call.value, &b->call.value, a->call.size) == 0;
}

void complete_warp_call(Worker *w, unsigned warp, unsigned members) {
  Thread *lanes[32] = {};
  for (unsigned l = 0; l < 32; ++l)
    if (members & (1u << l)) lanes[l] = w->threads[warp * 32 + l].get();
  const Thread *first = lanes[__builtin_ctz(members)];
  const WarpOp op = first->call.op;
  const uint64_t size_mask = first->call.size >= 8 ? ~0ull : ((1ull << (8 * first->call.size)) - 1);

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
        unsigned src = shuffle_source(op, l, th->call.arg, th->call.width);
        r = lanes[src] ? lanes[src]->call.value : (kUndefinedBits & size_mask);
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
    ws.waiting &= ~members;
    pending &= ~members;
  }
}

// ---- Blocks -------------------------------------------------------------------------------

void prepare_threads(Worker *w, Launch &L) {
  const unsigned n = L.threads_per_block;
  while (w->threads.size() < n) {
    auto th = std::make_unique<Thread>();
    th->worker = w;
    th->index = (unsigned)w->threads.size();
    w->threads.push_back(std::move(th));
  }
  const dim3 b = L.config.block;
  const dim3 &p = w->prepared_block;
  if (p.x != b.x || p.y != b.y || p.z != b.z) {
    for (unsigned i = 0; i < n; ++i) {
      ThreadState &ts = w->threads[i]->ts;
      ts.thread_idx = uint3{i % b.x, (i / b.x) % b.y, i / (b.x * b.y)};
      ts.lane = i % 32;
    }
    w->prepared_block = b;
  }
}

void prepare_shared(Worker *w, size_t dynamic_bytes) {
#if defined(GPULABS_SIM_ASAN)
  __asan_poison_memory_region(w->arena, w->arena_high_water);
  __asan_unpoison_memory_region(w->arena, dynamic_bytes);
#endif
  memset(w->arena, kSharedPoison, dynamic_bytes);
  w->arena_used = (dynamic_bytes + kSharedRedzone + 15) & ~(size_t)15;
  w->arena_high_water = w->arena_used;
  w->static_bytes = 0;
  w->statics.clear();
}

void run_block(Worker *w, Launch &L, uint64_t linear) {
  const dim3 g = L.config.grid;
  w->launch = &L;
  w->block_idx = uint3{(unsigned)(linear % g.x), (unsigned)((linear / g.x) % g.y),
                       (unsigned)(linear / ((uint64_t)g.x * g.y))};
  prepare_threads(w, L);
  const unsigned n = L.threads_per_block;
  w->n = n;
  w->queue.resize(n);
  for (unsigned i = 0; i < n; ++i) {
    Thread *th = w->threads[i].get();
    th->stack = nullptr;
    th->ts.block_idx = w->block_idx;
    th->ts.spins = 0;
    th->state = RunState::kRunnable;
    w->queue[i] = (unsigned short)i;
  }
  const unsigned warp_count = (n + 31) / 32;
  w->warps.assign(warp_count, WarpState{0, 0, 0});
  for (unsigned k = 0; k < warp_count; ++k) {
    const unsigned lanes = n - k * 32 >= 32 ? 32 : n - k * 32;
    w->warps[k].exists = lanes == 32 ? ~0u : ((1u << lanes) - 1);
    w->warps[k].done = ~w->warps[k].exists;
  }
  w->queue_pos = 0;
  w->next_round.clear();
  w->done_count = 0;
  w->barrier_count = 0;
  w->aborting = false;
  uint64_t state = L.seed ^ (L.id * 0xD1B54A32D192ED03ull);
  state = splitmix64(&state) ^ (linear * 0x9E3779B97F4A7C15ull);
  w->rng = splitmix64(&state);
  shuffle(w, w->queue);
  prepare_shared(w, L.config.shared_bytes);

  Thread *first = pick_next(w);
  if (first != nullptr) {
    blockIdx = w->block_idx;
    blockDim = L.config.block;
    gridDim = L.config.grid;
    bind(first, take_stack(w));
    enter(first);
    fiber_switch(&w->home, &first->stack->ctx);
    gpulabs_sim_tls_thread = nullptr;
  }
  if (w->aborting) {
    // The stacks still taken hold threads stopped mid-kernel: start them afresh.
    for (const std::unique_ptr<Stack> &stack : w->stacks) {
      if (stack->free) continue;
      fiber_stack_clean(&stack->ctx);
      fiber_prepare(&stack->ctx, fiber_main, stack.get());
      give_back(w, stack.get());
    }
  }
}

void worker_loop(Worker *w, Launch &L) {
  for (;;) {
    if (L.failed.load(std::memory_order_relaxed)) return;
    const uint64_t block = L.next_block.fetch_add(1);
    if (block >= L.total_blocks) return;
    run_block(w, L, block);
  }
}

// Host threads that help the launching thread run blocks.
class Pool {
 public:
  void run(Launch *launch, unsigned helpers) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      while (threads_ < helpers) {
        const unsigned index = threads_++;
        std::thread([this, index] { thread_main(index); }).detach();
      }
      launch_ = launch;
      wanted_ = helpers;
      running_ = helpers;
      ++generation_;
    }
    work_.notify_all();
  }
  void wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return running_ == 0; });
  }

 private:
  void thread_main(unsigned index) {
    uint64_t seen = 0;
    for (;;) {
      Launch *launch = nullptr;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        work_.wait(lock, [&] { return generation_ != seen; });
        seen = generation_;
        if (index >= wanted_) continue;
        launch = launch_;
      }
      worker_loop(this_worker(), *launch);
      std::lock_guard<std::mutex> lock(mutex_);
      if (--running_ == 0) done_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable work_, done_;
  unsigned threads_ = 0;
  Launch *launch_ = nullptr;
  unsigned wanted_ = 0;
  unsigned running_ = 0;
  uint64_t generation_ = 0;
};

Pool &pool() {
  static Pool *p = new Pool;  // never destroyed: its threads wait on it until exit
  return *p;
}

std::string check_config(const LaunchConfig &c) {
  const unsigned b[3] = {c.block.x, c.block.y, c.block.z};
  const unsigned g[3] = {c.grid.x, c.grid.y, c.grid.z};
  const char *axis = "xyz";
  for (int i = 0; i < 3; ++i) {
    if (b[i] == 0 || b[i] > kMaxBlockDim[i]) {
      return format("blockDim.%c = %u is outside [1, %u]", axis[i], b[i], kMaxBlockDim[i]);
    }
    if (g[i] == 0 || g[i] > kMaxGridDim[i]) {
      return format("gridDim.%c = %u is outside [1, %u]", axis[i], g[i], kMaxGridDim[i]);
    }
  }
  const uint64_t threads = (uint64_t)b[0] * b[1] * b[2];
  if (threads > kMaxThreadsPerBlock) {
    return format("a block of %u x %u x %u = %llu threads exceeds %u", b[0], b[1], b[2],
                  (unsigned long long)threads, kMaxThreadsPerBlock);
  }
  return "";
}

}  // namespace

// ---- Entry points -------------------------------------------------------------------------

[[noreturn]] void outside_kernel(const char *what) {
  note("%s used outside a kernel (host code cannot call device functions)", what);
  abort();
}

void launch_kernel(const LaunchConfig &config, const char *kernel, const char *file, int line,
                   KernelBody run, const void *body) {
  if (gpulabs_sim_tls_thread != nullptr) {
    note("%s:%d: launching %s from inside a kernel (dynamic parallelism) is not supported",
         base_name(file), line, kernel);
    record_error(cudaErrorNotSupported);
    return;
  }
  const std::string bad = check_config(config);
  if (!bad.empty()) {
    // CUDA 13 answers a bad configuration with cudaErrorInvalidValue (measured on an H100).
    note("%s:%d: launch of %s: %s (cudaErrorInvalidValue)", base_name(file), line, kernel,
         bad.c_str());
    record_error(cudaErrorInvalidValue);
    return;
  }
  if (config.shared_bytes > dynamic_shared_limit()) {
    note(
        "%s:%d: launch of %s asks for %zu bytes of dynamic shared memory, more than the %zu "
        "allowed%s (cudaErrorInvalidValue)",
        base_name(file), line, kernel, config.shared_bytes, dynamic_shared_limit(),
        dynamic_shared_limit() < kSharedPerBlockOptin
            ? "; above 48 KiB, call cudaFuncSetAttribute(kernel, "
              "cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) first"
            : "");
    record_error(cudaErrorInvalidValue);
    return;
  }
  if (!is_valid_stream(config.stream)) {
    note("%s:%d: launch of %s on a stream that does not exist (cudaErrorInvalidResourceHandle)",
         base_name(file), line, kernel);
    record_error(cudaErrorInvalidResourceHandle);
    return;
  }
  // One launch at a time: the workers serve one grid.
  static std::mutex *launch_mutex = new std::mutex;
  std::lock_guard<std::mutex> launch_lock(*launch_mutex);
  Settings &s = settings();
  Launch L;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    init_settings_locked(s);
    if (!s.announced) {  // the process's first launch
      s.announced = true;
#if defined(GPULABS_SIM_ASAN)
      __sanitizer_set_death_callback(on_sanitizer_death);
#endif
      if (!s.quiet) {
        fprintf(stderr,
                "gpulabs-sim: schedule seed 0x%llx (%s; GPULABS_SIM_SEED=0x%llx replays it), "
                "%d host threads\n",
                (unsigned long long)s.seed, s.seed_source, (unsigned long long)s.seed, s.workers);
      }
    }
    L.seed = s.seed;
    L.id = s.launches.fetch_add(1);
  }
  L.config = config;
  L.kernel = kernel;
  L.file = file;
  L.line = line;
  L.run = run;
  L.body = body;
  L.threads_per_block = config.block.x * config.block.y * config.block.z;
  L.total_blocks = (uint64_t)config.grid.x * config.grid.y * config.grid.z;

  const uint64_t workers =
      (uint64_t)s.workers < L.total_blocks ? (uint64_t)s.workers : L.total_blocks;
  const unsigned helpers = (unsigned)workers - 1;
  if (helpers > 0) pool().run(&L, helpers);
  worker_loop(this_worker(), L);
  if (helpers > 0) pool().wait();
  if (L.failed.load()) report_kernel_failure(cudaErrorLaunchFailure, L.failure);
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

void *block_dynamic_shared() { return running_thread("extern __shared__")->worker->arena; }

void *block_static_shared(const void *key, size_t size, size_t align) {
  Thread *th = running_thread("__shared__");
  Worker *w = th->worker;
  for (const SharedAllocation &a : w->statics)
    if (a.key == key) return a.memory;
  if (align < 16) align = 16;
  const size_t offset = (w->arena_used + align - 1) & ~(align - 1);
  if (w->static_bytes + size > kStaticSharedPerBlock) {
    fail_here(th,
              "the block's __shared__ variables need more than %zu bytes (48 KiB), the "
              "limit for static shared memory; use dynamic shared memory beyond it",
              kStaticSharedPerBlock);
  }
  if (w->launch->config.shared_bytes + w->static_bytes + size > kSharedPerBlockOptin ||
      offset + size + kSharedRedzone > kArenaBytes) {
    fail_here(th,
              "the block's static (%zu + %zu bytes) and dynamic (%zu bytes) shared "
              "memory exceed %zu bytes, the most a block can have",
              w->static_bytes, size, w->launch->config.shared_bytes, kSharedPerBlockOptin);
  }
  unsigned char *memory = w->arena + offset;
#if defined(GPULABS_SIM_ASAN)
  __asan_unpoison_memory_region(memory, size);
#endif
  memset(memory, kSharedPoison, size);
  w->arena_used = offset + size + kSharedRedzone;
  if (w->arena_used > w->arena_high_water) w->arena_high_water = w->arena_used;
  w->static_bytes += size;
  w->statics.push_back(SharedAllocation{key, memory});
  return memory;
}

[[noreturn]] void kernel_trap(const char *what, const char *file, int line) {
  Thread *th = running_thread(what);
  fail_here(th, "%s at %s:%d", what, base_name(file), line);
}

}  // namespace gpulabs_sim

// ---- gpulabs_sim.h ------------------------------------------------------------------------

extern "C" uint64_t gpulabs_sim_schedule_seed(void) { return gpulabs_sim::ready_settings().seed; }

extern "C" void gpulabs_sim_set_schedule_seed(uint64_t seed) {
  gpulabs_sim::Settings &s = gpulabs_sim::settings();
  std::lock_guard<std::mutex> lock(s.mutex);
  gpulabs_sim::init_settings_locked(s);
  s.seed = seed;
  s.seed_source = "set by the program";
  s.launches.store(0);
}

extern "C" int gpulabs_sim_worker_count(void) { return gpulabs_sim::ready_settings().workers; }

extern "C" void gpulabs_sim_set_worker_count(int count) {
  gpulabs_sim::Settings &s = gpulabs_sim::settings();
  std::lock_guard<std::mutex> lock(s.mutex);
  gpulabs_sim::init_settings_locked(s);
  s.workers = count < 1 ? 1 : (count > 256 ? 256 : count);
}

extern "C" uint64_t gpulabs_sim_launch_count(void) {
  return gpulabs_sim::settings().launches.load();
}

namespace gpulabs_sim {
int worker_count() { return ready_settings().workers; }
}  // namespace gpulabs_sim
