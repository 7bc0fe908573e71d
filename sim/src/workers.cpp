// Runs a grid: launch_kernel checks the launch as a GPU would and hands the blocks out in
// increasing order from one counter to the host threads ("workers": the launching thread and
// a pool of helpers); each worker runs its block to the end (run_block), its threads in
// shuffled rounds drawn from (seed, launch, block), then takes the next.
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "scheduler.h"

#if defined(GPULABS_SIM_ASAN)  // (defined by fiber.h)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace gpulabs_sim {
namespace {

__thread Worker *tls_worker __attribute__((tls_model("initial-exec"))) = nullptr;

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

void run_block(Worker *w, Launch &L, uint64_t linear) {
  const dim3 g = L.config.grid;
  w->launch = &L;
  w->block_idx = uint3{(unsigned)(linear % g.x), (unsigned)((linear / g.x) % g.y),
                       (unsigned)(linear / ((uint64_t)g.x * g.y))};
  prepare_threads(w, L);
  const unsigned n = L.threads_per_block;
  w->n = n;
  w->queue.resize(n);
  // The block's random numbers (each thread's first branch countdown, then the shuffles) come
  // from (seed, launch, block) alone.
  uint64_t state = L.seed ^ (L.id * 0xD1B54A32D192ED03ull);
  state = splitmix64(&state) ^ (linear * 0x9E3779B97F4A7C15ull);
  w->rng = splitmix64(&state);
  for (unsigned i = 0; i < n; ++i) {
    Thread *th = w->threads[i].get();
    th->stack = nullptr;
    th->ts.block_idx = w->block_idx;
    th->ts.spins = 0;
    th->ts.branches_left = draw_branch_countdown(w);
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
  memset(w->tile_arrivals, 0, sizeof w->tile_arrivals);
  w->coalescing.clear();
  w->aborting = false;
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

}  // namespace gpulabs_sim
