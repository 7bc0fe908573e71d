// Fibers: each thread of a simulated CUDA block runs on a stack of its own, and the block's
// scheduler switches between them by hand. That is what makes __syncthreads() a real barrier:
// a thread that reaches it is suspended mid-function until the whole block has arrived.
//
// On x86-64 a switch is a few instructions (fiber.cpp); elsewhere, or with
// GPULABS_SIM_UCONTEXT=1, it goes through <ucontext.h>, which is portable but much slower.
// Under AddressSanitizer every switch is announced to it, so it keeps checking stack accesses.
#ifndef GPULABS_SIM_FIBER_H
#define GPULABS_SIM_FIBER_H

#include <cstddef>

#if !defined(GPULABS_SIM_UCONTEXT)
#if defined(__x86_64__)
#define GPULABS_SIM_UCONTEXT 0
#else
#define GPULABS_SIM_UCONTEXT 1
#endif
#endif

#if GPULABS_SIM_UCONTEXT
#include <ucontext.h>
#endif

#if !GPULABS_SIM_UCONTEXT
// The assembly routine in fiber.cpp.
extern "C" void gpulabs_sim_switch_stacks(void **save_sp, void *load_sp);
#endif

namespace gpulabs_sim {

// One execution context. The OS thread's own stack is a context too (stack_lo stays null
// until the first switch away from it tells AddressSanitizer's bookkeeping where it lies).
struct FiberContext {
#if GPULABS_SIM_UCONTEXT
  ucontext_t uc;
#else
  void *sp = nullptr;  // saved stack pointer while suspended
#endif
  char *stack_lo = nullptr;  // lowest address of the stack
  size_t stack_size = 0;
  // How far below the top of its stack a fiber starts. Stacks are whole pages apart, so
  // without an offset every fiber's busy top lines would fall in the same cache sets.
  size_t top_offset = 0;
  void *asan_fake_stack = nullptr;
  void (*entry)(void *) = nullptr;
  void *arg = nullptr;
};

// Maps a stack of `bytes` (rounded up to pages) with a guard page below it, so an overflow
// faults instead of corrupting the neighbouring fiber. Returns false when out of memory.
bool fiber_stack_allocate(FiberContext *ctx, size_t bytes);
void fiber_stack_release(FiberContext *ctx);

// Makes the next switch to `ctx` start entry(arg) at the top of its stack. entry must never
// return: it ends by switching away for good. Also used to reset an abandoned fiber.
void fiber_prepare(FiberContext *ctx, void (*entry)(void *), void *arg);

// Suspends `from` (the running context) and resumes `to`; returns when something switches
// back to `from`. Inline: every call level between a kernel and the switch costs a
// mispredicted return each time the fiber resumes.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GPULABS_SIM_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define GPULABS_SIM_ASAN 1
#endif
#if GPULABS_SIM_UCONTEXT
void fiber_switch(FiberContext *from, FiberContext *to);
#elif defined(GPULABS_SIM_ASAN)
// Tell AddressSanitizer about the switch on both sides (fiber.cpp).
void asan_before_switch(FiberContext *from, FiberContext *to);
void asan_after_switch(void *fake_stack);
inline void fiber_switch(FiberContext *from, FiberContext *to) {
  asan_before_switch(from, to);
  gpulabs_sim_switch_stacks(&from->sp, to->sp);
  asan_after_switch(from->asan_fake_stack);
}
#else
inline void fiber_switch(FiberContext *from, FiberContext *to) {
  gpulabs_sim_switch_stacks(&from->sp, to->sp);
}
#endif

// Forgets what AddressSanitizer recorded on a stack whose frames were abandoned mid-call
// (a deadlocked block), so the next fiber on it starts clean.
void fiber_stack_clean(FiberContext *ctx);

}  // namespace gpulabs_sim

#endif
