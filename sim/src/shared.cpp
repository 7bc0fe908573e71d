// A block's shared memory: each worker has one arena (workers.cpp allocates it), which a block
// starts with its dynamic shared memory and fills with its static __shared__ declarations in
// the order the threads first reach them, with AddressSanitizer redzones between them and
// garbage (kSharedPoison) in every fresh byte (README, "Memory").
#include <cstring>

#include "scheduler.h"

#if defined(GPULABS_SIM_ASAN)  // (defined by fiber.h)
#include <sanitizer/asan_interface.h>
#endif

namespace gpulabs_sim {

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

}  // namespace gpulabs_sim
