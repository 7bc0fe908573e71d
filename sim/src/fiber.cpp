// Context switching between fibers (see fiber.h).
#include "fiber.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#if defined(GPULABS_SIM_ASAN)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace gpulabs_sim {

#if defined(GPULABS_SIM_ASAN)
namespace {
// The context that performed the switch we are returning from: the resumed side learns from
// it where the previous stack lies (AddressSanitizer needs both ends of every switch).
__thread FiberContext *tls_switch_from __attribute__((tls_model("initial-exec"))) = nullptr;
}  // namespace
#endif

void asan_before_switch(FiberContext *from, FiberContext *to) {
#if defined(GPULABS_SIM_ASAN)
  tls_switch_from = from;
  __sanitizer_start_switch_fiber(&from->asan_fake_stack, to->stack_lo, to->stack_size);
#else
  (void)from;
  (void)to;
#endif
}

// Runs on the resumed stack right after a switch. fake_stack is null on a fiber's first entry.
void asan_after_switch(void *fake_stack) {
#if defined(GPULABS_SIM_ASAN)
  const void *prev_lo = nullptr;
  size_t prev_size = 0;
  __sanitizer_finish_switch_fiber(fake_stack, &prev_lo, &prev_size);
  FiberContext *prev = tls_switch_from;
  if (prev != nullptr && prev->stack_lo == nullptr) {
    prev->stack_lo = static_cast<char *>(const_cast<void *>(prev_lo));
    prev->stack_size = prev_size;
  }
#else
  (void)fake_stack;
#endif
}

namespace {

// Where every fiber begins: finish the switch that started it, then run its entry.
void fiber_start(FiberContext *ctx) {
  asan_after_switch(nullptr);
  ctx->entry(ctx->arg);
  fprintf(stderr, "gpulabs-sim: internal error: a fiber's entry function returned\n");
  abort();
}

}  // namespace
}  // namespace gpulabs_sim

#if !GPULABS_SIM_UCONTEXT
// gpulabs_sim_switch_stacks(void **save_sp, void *load_sp): pushes the callee-saved registers,
// saves the stack pointer, loads the other one and pops what that fiber pushed when it was
// suspended. The floating-point control words (rounding mode) are not switched: saving and
// restoring them took most of a switch's time, and kernels do not change them. A new fiber's stack
// is laid out by fiber_prepare so the final `ret` lands in the trampoline, which calls
// fiber_start(r12).
#if defined(__APPLE__)
#define GPULABS_SIM_SYM(name) "_" #name
#define GPULABS_SIM_ELF_ONLY(text)
#else
#define GPULABS_SIM_SYM(name) #name
#define GPULABS_SIM_ELF_ONLY(text) text
#endif
extern "C" void gpulabs_sim_fiber_trampoline(void);
asm(".text\n"
    ".p2align 4\n"
    ".globl " GPULABS_SIM_SYM(gpulabs_sim_switch_stacks) "\n"
    GPULABS_SIM_ELF_ONLY(".hidden gpulabs_sim_switch_stacks\n")
    GPULABS_SIM_ELF_ONLY(".type gpulabs_sim_switch_stacks, @function\n")
    GPULABS_SIM_SYM(gpulabs_sim_switch_stacks) ":\n"
    "  pushq %rbp\n"
    "  pushq %rbx\n"
    "  pushq %r12\n"
    "  pushq %r13\n"
    "  pushq %r14\n"
    "  pushq %r15\n"
    "  movq %rsp, (%rdi)\n"
    "  movq %rsi, %rsp\n"
    "  popq %r15\n"
    "  popq %r14\n"
    "  popq %r13\n"
    "  popq %r12\n"
    "  popq %rbx\n"
    "  popq %rbp\n"
    "  ret\n"
    GPULABS_SIM_ELF_ONLY(".size gpulabs_sim_switch_stacks, .-gpulabs_sim_switch_stacks\n")
    ".p2align 4\n"
    ".globl " GPULABS_SIM_SYM(gpulabs_sim_fiber_trampoline) "\n"
    GPULABS_SIM_ELF_ONLY(".hidden gpulabs_sim_fiber_trampoline\n")
    GPULABS_SIM_ELF_ONLY(".type gpulabs_sim_fiber_trampoline, @function\n")
    GPULABS_SIM_SYM(gpulabs_sim_fiber_trampoline) ":\n"
    "  .cfi_startproc\n"
    "  .cfi_undefined rip\n"  // the bottom frame: debuggers stop unwinding here
    "  movq %r12, %rdi\n"
    "  callq *%r13\n"
    "  ud2\n"
    "  .cfi_endproc\n"
    GPULABS_SIM_ELF_ONLY(".size gpulabs_sim_fiber_trampoline, .-gpulabs_sim_fiber_trampoline\n"));
#endif

namespace gpulabs_sim {

bool fiber_stack_allocate(FiberContext *ctx, size_t bytes) {
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  const size_t usable = (bytes + page - 1) / page * page;
  void *base = mmap(nullptr, usable + page, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) return false;
  if (mprotect(base, page, PROT_NONE) != 0) {
    munmap(base, usable + page);
    return false;
  }
  ctx->stack_lo = static_cast<char *>(base) + page;
  ctx->stack_size = usable;
  return true;
}

void fiber_stack_release(FiberContext *ctx) {
  if (ctx->stack_lo == nullptr) return;
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  munmap(ctx->stack_lo - page, ctx->stack_size + page);
  ctx->stack_lo = nullptr;
  ctx->stack_size = 0;
}

void fiber_stack_clean(FiberContext *ctx) {
#if defined(GPULABS_SIM_ASAN)
  __asan_unpoison_memory_region(ctx->stack_lo, ctx->stack_size);
#endif
  ctx->asan_fake_stack = nullptr;
}

#if GPULABS_SIM_UCONTEXT

namespace {
__thread FiberContext *tls_starting __attribute__((tls_model("initial-exec"))) = nullptr;
void ucontext_start() { fiber_start(tls_starting); }
}  // namespace

void fiber_prepare(FiberContext *ctx, void (*entry)(void *), void *arg) {
  ctx->entry = entry;
  ctx->arg = arg;
  ctx->asan_fake_stack = nullptr;
  if (getcontext(&ctx->uc) != 0) {
    perror("gpulabs-sim: getcontext");
    abort();
  }
  ctx->uc.uc_stack.ss_sp = ctx->stack_lo;
  ctx->uc.uc_stack.ss_size = ctx->stack_size - ctx->top_offset;
  ctx->uc.uc_link = nullptr;
  makecontext(&ctx->uc, ucontext_start, 0);
}

void fiber_switch(FiberContext *from, FiberContext *to) {
  asan_before_switch(from, to);
  if (to->entry != nullptr) tls_starting = to;  // read only on a fiber's first entry
  swapcontext(&from->uc, &to->uc);
  asan_after_switch(from->asan_fake_stack);
}

#else

void fiber_prepare(FiberContext *ctx, void (*entry)(void *), void *arg) {
  ctx->entry = entry;
  ctx->arg = arg;
  ctx->asan_fake_stack = nullptr;
  // The frame gpulabs_sim_switch_stacks pops (see the layout above), topped by the trampoline.
  uint64_t *top = reinterpret_cast<uint64_t *>(
      reinterpret_cast<uintptr_t>(ctx->stack_lo + ctx->stack_size - ctx->top_offset) &
      ~(uintptr_t)15);
  top[-1] = reinterpret_cast<uint64_t>(&gpulabs_sim_fiber_trampoline);  // ret
  top[-2] = 0;                                                          // rbp
  top[-3] = 0;                                                          // rbx
  top[-4] = reinterpret_cast<uint64_t>(ctx);           // r12: fiber_start's argument
  top[-5] = reinterpret_cast<uint64_t>(&fiber_start);  // r13: what the trampoline calls
  top[-6] = 0;                                         // r14
  top[-7] = 0;                                         // r15
  ctx->sp = &top[-7];
}


#endif

}  // namespace gpulabs_sim
