// gpulabs-sim: what device code sees (C++ only; cuda_runtime.h includes it). Built-in
// variables, barriers, warp functions, atomics, bit and math intrinsics, and the entry points
// the rewriting step calls for <<<...>>> launches and __shared__ variables.
//
// Each simulated thread is a fiber; the scheduler (sim/src/scheduler.h and its parts) points
// gpulabs_sim_tls_thread at the one running and copies its indices into threadIdx & co.
#ifndef GPULABS_SIM_DEVICE_H
#define GPULABS_SIM_DEVICE_H

#ifndef __cplusplus
#error "gpulabs_sim_device.h is C++: include cuda_runtime_api.h from C"
#endif

#include <cmath>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <type_traits>

#include "cuda_runtime_api.h"

namespace gpulabs_sim {

// The running thread, as device code sees it.
struct ThreadState {
  uint3 thread_idx;
  uint3 block_idx;
  unsigned lane;   // linear thread index % 32
  unsigned spins;  // atomics since it last let the others run (see spin_point)
  unsigned branches_left;  // branch conditions until it may let the others run (branch_point)
};

}  // namespace gpulabs_sim

// Null outside kernels. initial-exec: no call to reach it, even from position-independent code.
extern __thread gpulabs_sim::ThreadState *gpulabs_sim_tls_thread
    __attribute__((tls_model("initial-exec")));

namespace gpulabs_sim {

[[noreturn]] void outside_kernel(const char *what);

inline ThreadState &thread_state(const char *what) {
  ThreadState *t = gpulabs_sim_tls_thread;
  if (__builtin_expect(t == nullptr, 0)) outside_kernel(what);
  return *t;
}

// Lets the other threads of the block run (see README: a thread that spins waiting for
// another thread of its own block must pass through atomics, fences or __nanosleep).
void yield_now();
constexpr unsigned kAtomicsPerYield = 4;
inline void spin_point() {
  ThreadState *t = gpulabs_sim_tls_thread;
  if (t != nullptr && ++t->spins >= kAtomicsPerYield) yield_now();
}

// The rewriting step wraps each `if` and `while` condition of device code:
//   if (cond)  ->  if (::gpulabs_sim::branch_point(static_cast<bool>(cond)))
// Every so many branches (a count drawn from the schedule's seed, kBranchesPerYield on
// average) the thread lets the others of its block run right after evaluating the condition:
// between a load and the store that depends on it, where a check-then-write without an atomic
// (`if (slot == EMPTY) slot = key;`) loses an update on a GPU. The countdown costs a decrement
// a branch; the switch itself is rare. In constant evaluation (a constexpr __host__ __device__
// function computing a constant) it does nothing.
constexpr unsigned kBranchesPerYield = 16;
void branch_yield();
inline void branch_step() {
  ThreadState *t = gpulabs_sim_tls_thread;
  if (t != nullptr && __builtin_expect(--t->branches_left == 0, 0)) branch_yield();
}
constexpr bool branch_point(bool condition) {
  if (!__builtin_is_constant_evaluated()) branch_step();
  return condition;
}

// Warp-wide operations: every participating lane blocks until all have arrived.
enum class WarpOp : unsigned char {
  kSync,
  kShflIdx,
  kShflUp,
  kShflDown,
  kShflXor,
  kBallot,
  kAny,
  kAll,
  kMatchAny,
  kMatchAll,
  kReduceAdd,
  kReduceMinU,
  kReduceMinS,
  kReduceMaxU,
  kReduceMaxS,
  kReduceAnd,
  kReduceOr,
  kReduceXor
};

struct WarpCall {
  WarpOp op;
  unsigned mask;
  uint64_t value;  // the lane's operand, as bits
  unsigned size;   // bytes of the operand
  int64_t arg;     // srcLane, delta or laneMask
  int width;
  const char *file;
  int line;
};

// Returns the lane's result as bits; *pred receives __match_all_sync's predicate.
uint64_t warp_collective(const WarpCall &call, int *pred);

template <class T>
inline uint64_t to_bits(T value) {
  static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value, "a 1-8 byte scalar");
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof value);
  return bits;
}
template <class T>
inline T from_bits(uint64_t bits) {
  T value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}
template <class To, class From>
inline To to_bits_as(From value) {
  static_assert(sizeof(To) == sizeof(From), "same size");
  To out;
  std::memcpy(&out, &value, sizeof out);
  return out;
}
template <class T>
inline T warp_value_op(WarpOp op, unsigned mask, T var, int64_t arg, int width, const char *file,
                       int line) {
  return from_bits<T>(warp_collective(
      WarpCall{op, mask, to_bits(var), sizeof(T), arg, width, file, line}, nullptr));
}

// Barriers: kind 0 plain, 1 count, 2 and, 3 or, 4 cooperative_groups::thread_block::sync.
int block_barrier(int kind, int predicate, const char *file, int line);

// Cooperative groups (cooperative_groups.h). The barrier of a thread_block_tile wider than a
// warp (kind 5: its sync(), 6: its collectives): the calling thread waits until every thread
// of its tile (`size` consecutive threads) has arrived at the same call.
void tile_barrier(int kind, unsigned size, const char *file, int line);
// The slots (one per thread of the block) through which such a tile's threads exchange values.
uint64_t *tile_slots();
// coalesced_threads(): the lanes of the calling thread's warp that reached this call in the
// same round of the schedule (always the caller, often more).
unsigned coalesced_lanes(const char *file, int line);

// Shared memory of the running block.
void *block_dynamic_shared();
void *block_static_shared(const void *key, size_t size, size_t align);

// extern __shared__ T name[];  becomes  T *const name = dynamic_shared<T>();
template <class T>
inline T *dynamic_shared() {
  return static_cast<T *>(block_dynamic_shared());
}

// __shared__ T name[N];  becomes  T (&name)[N] = static_shared<T[N]>([] {});
// The lambda gives each declaration a type, hence a key, of its own.
template <class T, class Key>
inline T &static_shared(Key) {
  static char key;
  return *static_cast<T *>(block_static_shared(&key, sizeof(T), alignof(T)));
}

// Namespace-scope __shared__ arrays become one of these views, which index the running
// block's memory. They convert to a pointer and support [], like the array they replace.
template <class T>
struct dynamic_shared_view {
  operator T *() const { return dynamic_shared<T>(); }
  T &operator[](size_t i) const { return dynamic_shared<T>()[i]; }
};
template <class A>
struct static_shared_view {
  using Element = typename std::remove_extent<A>::type;
  Element *get() const {
    return *static_cast<A *>(block_static_shared(this, sizeof(A), alignof(A)));
  }
  operator Element *() const { return get(); }
  Element &operator[](size_t i) const { return get()[i]; }
};

// Kernel launches: kernel<<<grid, block, shared, stream>>>(args) becomes
//   launch(config(grid, block, shared, stream), "kernel", __FILE__, __LINE__,
//          [&]() { kernel(args); });
struct LaunchConfig {
  dim3 grid;
  dim3 block;
  size_t shared_bytes;
  cudaStream_t stream;
};
inline LaunchConfig config(dim3 grid, dim3 block, size_t shared_bytes = 0,
                           cudaStream_t stream = 0) {
  return LaunchConfig{grid, block, shared_bytes, stream};
}
using KernelBody = void (*)(const void *body);
void launch_kernel(const LaunchConfig &config, const char *kernel, const char *file, int line,
                   KernelBody run, const void *body);
template <class Body>
inline void launch(const LaunchConfig &config, const char *kernel, const char *file, int line,
                   const Body &body) {
  launch_kernel(
      config, kernel, file, line, [](const void *b) { (*static_cast<const Body *>(b))(); }, &body);
}

[[noreturn]] void kernel_trap(const char *what, const char *file, int line);

// Records `error` as the calling thread's last CUDA error (unless cudaSuccess); returns it.
cudaError_t record_error(cudaError_t error);

// Checks a cudaMemcpy{To,From}Symbol against the variable's size, then copies.
cudaError_t copy_symbol(void *symbol, size_t symbol_size, size_t offset, void *host, size_t count,
                        bool to_symbol, cudaMemcpyKind kind, const char *api);

}  // namespace gpulabs_sim

// What the rewriting step puts before a namespace-scope __device__ or __constant__ definition.
#define GPULABS_SIM_TU_LOCAL static __attribute__((unused))

// __shared__ is rewritten wherever it is declared; one left over (in a macro, say) stops the
// build here rather than becoming one variable shared by every block.
#define __shared__                                                                         \
  _Pragma("GCC error \"gpulabs-sim: a __shared__ declaration was not rewritten (inside a " \
          "macro?)\"")

// ---- Built-in variables ------------------------------------------------------------------
// Real variables, one set per host thread, which the scheduler sets to the running thread's
// values at every switch: so a debugger knows them too (break k if threadIdx.x == 5).
// blockDim and gridDim are uint3 here (dim3 on a GPU); they convert to dim3 as needed.
extern __thread uint3 threadIdx __attribute__((tls_model("initial-exec")));
extern __thread uint3 blockIdx __attribute__((tls_model("initial-exec")));
extern __thread uint3 blockDim __attribute__((tls_model("initial-exec")));
extern __thread uint3 gridDim __attribute__((tls_model("initial-exec")));
constexpr int warpSize = 32;

// ---- Barriers and fences -----------------------------------------------------------------
inline void __syncthreads(const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
  ::gpulabs_sim::block_barrier(0, 0, file, line);
}
inline int __syncthreads_count(int predicate, const char *file = __builtin_FILE(),
                               int line = __builtin_LINE()) {
  return ::gpulabs_sim::block_barrier(1, predicate, file, line);
}
inline int __syncthreads_and(int predicate, const char *file = __builtin_FILE(),
                             int line = __builtin_LINE()) {
  return ::gpulabs_sim::block_barrier(2, predicate, file, line);
}
inline int __syncthreads_or(int predicate, const char *file = __builtin_FILE(),
                            int line = __builtin_LINE()) {
  return ::gpulabs_sim::block_barrier(3, predicate, file, line);
}
inline void __syncwarp(unsigned mask = 0xffffffffu, const char *file = __builtin_FILE(),
                       int line = __builtin_LINE()) {
  ::gpulabs_sim::warp_collective(
      ::gpulabs_sim::WarpCall{::gpulabs_sim::WarpOp::kSync, mask, 0, 0, 0, 32, file, line},
      nullptr);
}
inline void __threadfence() {
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  ::gpulabs_sim::yield_now();
}
inline void __threadfence_block() { __threadfence(); }
inline void __threadfence_system() { __threadfence(); }
inline void __nanosleep(unsigned) { ::gpulabs_sim::yield_now(); }
// Nanoseconds of the host's monotonic clock.
inline long long clock64() {
  ::gpulabs_sim::spin_point();
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (long long)now.tv_sec * 1000000000ll + now.tv_nsec;
}
inline void __trap(const char *file = __builtin_FILE(), int line = __builtin_LINE()) {
  ::gpulabs_sim::kernel_trap("__trap()", file, line);
}

// ---- Warp functions ----------------------------------------------------------------------
// Each lane's own bit: threads are not guaranteed to run converged, so this is all a lane
// can count on (and code that uses __activemask() correctly still works).
inline unsigned __activemask() { return 1u << ::gpulabs_sim::thread_state("__activemask").lane; }

#define GPULABS_SIM_SITE const char *file = __builtin_FILE(), int line = __builtin_LINE()
#define GPULABS_SIM_WARP_SHUFFLES(T)                                                               \
  inline T __shfl_sync(unsigned mask, T var, int src_lane, int width = 32, GPULABS_SIM_SITE) {     \
    return ::gpulabs_sim::warp_value_op(::gpulabs_sim::WarpOp::kShflIdx, mask, var, src_lane,      \
                                        width, file, line);                                        \
  }                                                                                                \
  inline T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = 32,                    \
                          GPULABS_SIM_SITE) {                                                      \
    return ::gpulabs_sim::warp_value_op(::gpulabs_sim::WarpOp::kShflUp, mask, var, delta, width,   \
                                        file, line);                                               \
  }                                                                                                \
  inline T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = 32,                  \
                            GPULABS_SIM_SITE) {                                                    \
    return ::gpulabs_sim::warp_value_op(::gpulabs_sim::WarpOp::kShflDown, mask, var, delta, width, \
                                        file, line);                                               \
  }                                                                                                \
  inline T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = 32,                    \
                           GPULABS_SIM_SITE) {                                                     \
    return ::gpulabs_sim::warp_value_op(::gpulabs_sim::WarpOp::kShflXor, mask, var, lane_mask,     \
                                        width, file, line);                                        \
  }                                                                                                \
  inline unsigned __match_any_sync(unsigned mask, T value, GPULABS_SIM_SITE) {                     \
    return (unsigned)::gpulabs_sim::warp_collective(                                               \
        ::gpulabs_sim::WarpCall{::gpulabs_sim::WarpOp::kMatchAny, mask,                            \
                                ::gpulabs_sim::to_bits(value), sizeof(T), 0, 32, file, line},      \
        nullptr);                                                                                  \
  }                                                                                                \
  inline unsigned __match_all_sync(unsigned mask, T value, int *pred, GPULABS_SIM_SITE) {          \
    return (unsigned)::gpulabs_sim::warp_collective(                                               \
        ::gpulabs_sim::WarpCall{::gpulabs_sim::WarpOp::kMatchAll, mask,                            \
                                ::gpulabs_sim::to_bits(value), sizeof(T), 0, 32, file, line},      \
        pred);                                                                                     \
  }
GPULABS_SIM_WARP_SHUFFLES(int)
GPULABS_SIM_WARP_SHUFFLES(unsigned int)
GPULABS_SIM_WARP_SHUFFLES(long)
GPULABS_SIM_WARP_SHUFFLES(unsigned long)
GPULABS_SIM_WARP_SHUFFLES(long long)
GPULABS_SIM_WARP_SHUFFLES(unsigned long long)
GPULABS_SIM_WARP_SHUFFLES(float)
GPULABS_SIM_WARP_SHUFFLES(double)
#undef GPULABS_SIM_WARP_SHUFFLES

namespace gpulabs_sim {
inline uint64_t warp_u32_op(WarpOp op, unsigned mask, unsigned value, const char *file, int line) {
  return warp_collective(WarpCall{op, mask, value, 4, 0, 32, file, line}, nullptr);
}
}  // namespace gpulabs_sim

inline unsigned __ballot_sync(unsigned mask, int predicate, GPULABS_SIM_SITE) {
  return (unsigned)::gpulabs_sim::warp_u32_op(::gpulabs_sim::WarpOp::kBallot, mask, predicate != 0,
                                              file, line);
}
inline int __any_sync(unsigned mask, int predicate, GPULABS_SIM_SITE) {
  return (int)::gpulabs_sim::warp_u32_op(::gpulabs_sim::WarpOp::kAny, mask, predicate != 0, file,
                                         line);
}
inline int __all_sync(unsigned mask, int predicate, GPULABS_SIM_SITE) {
  return (int)::gpulabs_sim::warp_u32_op(::gpulabs_sim::WarpOp::kAll, mask, predicate != 0, file,
                                         line);
}
inline unsigned __reduce_add_sync(unsigned mask, unsigned value, GPULABS_SIM_SITE) {
  return (unsigned)::gpulabs_sim::warp_u32_op(::gpulabs_sim::WarpOp::kReduceAdd, mask, value, file,
                                              line);
}
inline int __reduce_add_sync(unsigned mask, int value, GPULABS_SIM_SITE) {
  return (int)::gpulabs_sim::warp_u32_op(::gpulabs_sim::WarpOp::kReduceAdd, mask, (unsigned)value,
                                         file, line);
}
inline unsigned __reduce_min_sync(unsigned mask, unsigned value, GPULABS_SIM_SITE) {
  return (unsigned)::gpulabs_sim::warp_u32_op(::gpulabs_sim::WarpOp::kReduceMinU, mask, value, file,
                                              line);
}
inline int __reduce_min_sync(unsigned mask, int value, GPULABS_SIM_SITE) {
  return (int)::gpulabs_sim::warp_u32_op(::gpulabs_sim::WarpOp::kReduceMinS, mask, (unsigned)value,
                                         file, line);
}
inline unsigned __reduce_max_sync(unsigned mask, unsigned value, GPULABS_SIM_SITE) {
  return (unsigned)::gpulabs_sim::warp_u32_op(::gpulabs_sim::WarpOp::kReduceMaxU, mask, value, file,
                                              line);
}
inline int __reduce_max_sync(unsigned mask, int value, GPULABS_SIM_SITE) {
  return (int)::gpulabs_sim::warp_u32_op(::gpulabs_sim::WarpOp::kReduceMaxS, mask, (unsigned)value,
                                         file, line);
}
inline unsigned __reduce_and_sync(unsigned mask, unsigned value, GPULABS_SIM_SITE) {
  return (unsigned)::gpulabs_sim::warp_u32_op(::gpulabs_sim::WarpOp::kReduceAnd, mask, value, file,
                                              line);
}
inline unsigned __reduce_or_sync(unsigned mask, unsigned value, GPULABS_SIM_SITE) {
  return (unsigned)::gpulabs_sim::warp_u32_op(::gpulabs_sim::WarpOp::kReduceOr, mask, value, file,
                                              line);
}
inline unsigned __reduce_xor_sync(unsigned mask, unsigned value, GPULABS_SIM_SITE) {
  return (unsigned)::gpulabs_sim::warp_u32_op(::gpulabs_sim::WarpOp::kReduceXor, mask, value, file,
                                              line);
}
#undef GPULABS_SIM_SITE

// ---- Atomics -----------------------------------------------------------------------------
// Relaxed, as on the GPU (order them with __threadfence()). Each one is also a point where a
// spinning thread lets the rest of its block run.
namespace gpulabs_sim {
template <class T>
inline T atomic_add(T *address, T value) {
  spin_point();
  return __atomic_fetch_add(address, value, __ATOMIC_RELAXED);
}
// Floating-point and min/max/inc/dec: a compare-and-swap loop over the new value.
template <class T, class Update>
inline T atomic_update(T *address, Update update) {
  spin_point();
  T old = __atomic_load_n(address, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(address, &old, update(old), true, __ATOMIC_RELAXED,
                                      __ATOMIC_RELAXED)) {
  }
  return old;
}
}  // namespace gpulabs_sim

#define GPULABS_SIM_INTEGER_ATOMICS(T)                                                          \
  inline T atomicAdd(T *address, T value) { return ::gpulabs_sim::atomic_add(address, value); } \
  inline T atomicSub(T *address, T value) {                                                     \
    ::gpulabs_sim::spin_point();                                                                \
    return __atomic_fetch_sub(address, value, __ATOMIC_RELAXED);                                \
  }                                                                                             \
  inline T atomicExch(T *address, T value) {                                                    \
    ::gpulabs_sim::spin_point();                                                                \
    return __atomic_exchange_n(address, value, __ATOMIC_RELAXED);                               \
  }                                                                                             \
  inline T atomicMin(T *address, T value) {                                                     \
    return ::gpulabs_sim::atomic_update(address,                                                \
                                        [value](T old) { return old < value ? old : value; });  \
  }                                                                                             \
  inline T atomicMax(T *address, T value) {                                                     \
    return ::gpulabs_sim::atomic_update(address,                                                \
                                        [value](T old) { return old > value ? old : value; });  \
  }                                                                                             \
  inline T atomicCAS(T *address, T compare, T value) {                                          \
    ::gpulabs_sim::spin_point();                                                                \
    __atomic_compare_exchange_n(address, &compare, value, false, __ATOMIC_RELAXED,              \
                                __ATOMIC_RELAXED);                                              \
    return compare;                                                                             \
  }                                                                                             \
  inline T atomicAnd(T *address, T value) {                                                     \
    ::gpulabs_sim::spin_point();                                                                \
    return __atomic_fetch_and(address, value, __ATOMIC_RELAXED);                                \
  }                                                                                             \
  inline T atomicOr(T *address, T value) {                                                      \
    ::gpulabs_sim::spin_point();                                                                \
    return __atomic_fetch_or(address, value, __ATOMIC_RELAXED);                                 \
  }                                                                                             \
  inline T atomicXor(T *address, T value) {                                                     \
    ::gpulabs_sim::spin_point();                                                                \
    return __atomic_fetch_xor(address, value, __ATOMIC_RELAXED);                                \
  }
GPULABS_SIM_INTEGER_ATOMICS(int)
GPULABS_SIM_INTEGER_ATOMICS(unsigned int)
GPULABS_SIM_INTEGER_ATOMICS(unsigned long long)
#undef GPULABS_SIM_INTEGER_ATOMICS

// CUDA also has min and max on long long, and CAS on unsigned short.
inline long long atomicMin(long long *address, long long value) {
  return ::gpulabs_sim::atomic_update(address,
                                      [value](long long old) { return old < value ? old : value; });
}
inline long long atomicMax(long long *address, long long value) {
  return ::gpulabs_sim::atomic_update(address,
                                      [value](long long old) { return old > value ? old : value; });
}
inline unsigned short atomicCAS(unsigned short *address, unsigned short compare,
                                unsigned short value) {
  ::gpulabs_sim::spin_point();
  __atomic_compare_exchange_n(address, &compare, value, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return compare;
}
// ((old >= limit) ? 0 : old + 1) and (((old == 0) || (old > limit)) ? limit : old - 1)
inline unsigned atomicInc(unsigned *address, unsigned limit) {
  return ::gpulabs_sim::atomic_update(
      address, [limit](unsigned old) { return old >= limit ? 0u : old + 1u; });
}
inline unsigned atomicDec(unsigned *address, unsigned limit) {
  return ::gpulabs_sim::atomic_update(
      address, [limit](unsigned old) { return (old == 0u || old > limit) ? limit : old - 1u; });
}
inline float atomicAdd(float *address, float value) {
  ::gpulabs_sim::spin_point();
  uint32_t *bits = reinterpret_cast<uint32_t *>(address);
  uint32_t old = __atomic_load_n(bits, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(
      bits, &old,
      ::gpulabs_sim::to_bits_as<uint32_t>(::gpulabs_sim::to_bits_as<float>(old) + value), true,
      __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
  return ::gpulabs_sim::to_bits_as<float>(old);
}
inline double atomicAdd(double *address, double value) {
  ::gpulabs_sim::spin_point();
  uint64_t *bits = reinterpret_cast<uint64_t *>(address);
  uint64_t old = __atomic_load_n(bits, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(
      bits, &old,
      ::gpulabs_sim::to_bits_as<uint64_t>(::gpulabs_sim::to_bits_as<double>(old) + value), true,
      __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
  return ::gpulabs_sim::to_bits_as<double>(old);
}
inline float atomicExch(float *address, float value) {
  ::gpulabs_sim::spin_point();
  uint32_t old = __atomic_exchange_n(reinterpret_cast<uint32_t *>(address),
                                     ::gpulabs_sim::to_bits_as<uint32_t>(value), __ATOMIC_RELAXED);
  return ::gpulabs_sim::to_bits_as<float>(old);
}

// The _block and _system scopes are the same thing on one CPU.
#define GPULABS_SIM_SCOPED_ATOMIC(name)                              \
  template <class... Args>                                           \
  inline auto name##_block(Args... args)->decltype(name(args...)) {  \
    return name(args...);                                            \
  }                                                                  \
  template <class... Args>                                           \
  inline auto name##_system(Args... args)->decltype(name(args...)) { \
    return name(args...);                                            \
  }
GPULABS_SIM_SCOPED_ATOMIC(atomicAdd)
GPULABS_SIM_SCOPED_ATOMIC(atomicSub)
GPULABS_SIM_SCOPED_ATOMIC(atomicExch)
GPULABS_SIM_SCOPED_ATOMIC(atomicMin)
GPULABS_SIM_SCOPED_ATOMIC(atomicMax)
GPULABS_SIM_SCOPED_ATOMIC(atomicInc)
GPULABS_SIM_SCOPED_ATOMIC(atomicDec)
GPULABS_SIM_SCOPED_ATOMIC(atomicCAS)
GPULABS_SIM_SCOPED_ATOMIC(atomicAnd)
GPULABS_SIM_SCOPED_ATOMIC(atomicOr)
GPULABS_SIM_SCOPED_ATOMIC(atomicXor)
#undef GPULABS_SIM_SCOPED_ATOMIC

// ---- Integer intrinsics ------------------------------------------------------------------
inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned int __brev(unsigned int x) {
  unsigned int r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
inline unsigned long long __brevll(unsigned long long x) {
  return ((unsigned long long)__brev((unsigned)x) << 32) | __brev((unsigned)(x >> 32));
}
// Byte i of the result is byte (selector >> 4i) & 7 of the eight bytes {x, y} (x lowest);
// the fourth bit of each nibble is ignored (as an H100 does).
inline unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int selector) {
  const unsigned long long bytes = ((unsigned long long)y << 32) | x;
  unsigned int r = 0;
  for (int i = 0; i < 4; ++i) {
    const unsigned pick = (selector >> (4 * i)) & 7u;
    r |= (unsigned)((bytes >> (8 * pick)) & 0xffu) << (8 * i);
  }
  return r;
}
inline unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int shift) {
  return (unsigned)(((((unsigned long long)hi << 32) | lo) << (shift & 31u)) >> 32);
}
inline unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi, unsigned int shift) {
  return shift >= 32 ? lo : __funnelshift_l(lo, hi, shift);
}
inline unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int shift) {
  return (unsigned)((((unsigned long long)hi << 32) | lo) >> (shift & 31u));
}
inline unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi, unsigned int shift) {
  return shift >= 32 ? hi : __funnelshift_r(lo, hi, shift);
}
inline unsigned int __umulhi(unsigned int a, unsigned int b) {
  return (unsigned)(((unsigned long long)a * b) >> 32);
}
inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
// The low 32 bits of the product of the low 24 bits (signed for __mul24).
inline int __mul24(int a, int b) {
  const int a24 = (int)((unsigned)a << 8) >> 8, b24 = (int)((unsigned)b << 8) >> 8;
  return (int)(unsigned)((long long)a24 * b24);
}
inline unsigned int __umul24(unsigned int a, unsigned int b) {
  return (a & 0xffffffu) * (b & 0xffffffu);
}
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
inline long long __mul64hi(long long a, long long b) {
  return (long long)(((__int128)a * b) >> 64);
}

// ---- Type punning and conversions --------------------------------------------------------
inline int __float_as_int(float x) { return ::gpulabs_sim::to_bits_as<int>(x); }
inline unsigned int __float_as_uint(float x) { return ::gpulabs_sim::to_bits_as<unsigned int>(x); }
inline float __int_as_float(int x) { return ::gpulabs_sim::to_bits_as<float>(x); }
inline float __uint_as_float(unsigned int x) { return ::gpulabs_sim::to_bits_as<float>(x); }
inline long long __double_as_longlong(double x) { return ::gpulabs_sim::to_bits_as<long long>(x); }
inline double __longlong_as_double(long long x) { return ::gpulabs_sim::to_bits_as<double>(x); }
inline int __float2int_rn(float x) { return (int)std::nearbyint(x); }
inline int __float2int_rz(float x) { return (int)x; }
inline int __float2int_rd(float x) { return (int)std::floor(x); }
inline int __float2int_ru(float x) { return (int)std::ceil(x); }
inline unsigned int __float2uint_rn(float x) { return (unsigned int)std::nearbyint(x); }
inline unsigned int __float2uint_rz(float x) { return (unsigned int)x; }
inline float __int2float_rn(int x) { return (float)x; }
inline float __uint2float_rn(unsigned int x) { return (float)x; }
inline int __double2int_rn(double x) { return (int)std::nearbyint(x); }
inline int __double2int_rz(double x) { return (int)x; }
inline double __int2double_rn(int x) { return (double)x; }
inline float __double2float_rn(double x) { return (float)x; }

// ---- Math intrinsics (the fast forms compute the accurate result here) --------------------
inline float __fdividef(float a, float b) { return a / b; }
inline float __expf(float x) { return std::exp(x); }
inline float __exp10f(float x) { return std::pow(10.0f, x); }
inline float __logf(float x) { return std::log(x); }
inline float __log2f(float x) { return std::log2(x); }
inline float __log10f(float x) { return std::log10(x); }
inline float __powf(float a, float b) { return std::pow(a, b); }
inline float __sinf(float x) { return std::sin(x); }
inline float __cosf(float x) { return std::cos(x); }
inline float __tanf(float x) { return std::tan(x); }
inline float __saturatef(float x) { return x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f; }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline float __frsqrt_rn(float x) { return 1.0f / std::sqrt(x); }
inline float __fsqrt_rn(float x) { return std::sqrt(x); }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }

// min and max with CUDA's overloads (mixed signedness compares as unsigned).
#define GPULABS_SIM_MINMAX(R, A, B)                                        \
  inline R min(const A a, const B b) { return (R)a < (R)b ? (R)a : (R)b; } \
  inline R max(const A a, const B b) { return (R)a > (R)b ? (R)a : (R)b; }
GPULABS_SIM_MINMAX(int, int, int)
GPULABS_SIM_MINMAX(unsigned int, unsigned int, unsigned int)
GPULABS_SIM_MINMAX(unsigned int, int, unsigned int)
GPULABS_SIM_MINMAX(unsigned int, unsigned int, int)
GPULABS_SIM_MINMAX(long, long, long)
GPULABS_SIM_MINMAX(unsigned long, unsigned long, unsigned long)
GPULABS_SIM_MINMAX(unsigned long, long, unsigned long)
GPULABS_SIM_MINMAX(unsigned long, unsigned long, long)
GPULABS_SIM_MINMAX(long long, long long, long long)
GPULABS_SIM_MINMAX(unsigned long long, unsigned long long, unsigned long long)
GPULABS_SIM_MINMAX(unsigned long long, long long, unsigned long long)
GPULABS_SIM_MINMAX(unsigned long long, unsigned long long, long long)
#undef GPULABS_SIM_MINMAX
inline float min(const float a, const float b) { return std::fmin(a, b); }
inline float max(const float a, const float b) { return std::fmax(a, b); }
inline double min(const double a, const double b) { return std::fmin(a, b); }
inline double max(const double a, const double b) { return std::fmax(a, b); }
inline double min(const float a, const double b) { return std::fmin((double)a, b); }
inline double max(const float a, const double b) { return std::fmax((double)a, b); }
inline double min(const double a, const float b) { return std::fmin(a, (double)b); }
inline double max(const double a, const float b) { return std::fmax(a, (double)b); }
inline unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
inline unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
inline long long llmin(long long a, long long b) { return a < b ? a : b; }
inline long long llmax(long long a, long long b) { return a > b ? a : b; }
inline unsigned long long ullmin(unsigned long long a, unsigned long long b) {
  return a < b ? a : b;
}
inline unsigned long long ullmax(unsigned long long a, unsigned long long b) {
  return a > b ? a : b;
}

// ---- Cache-hinted loads and stores are plain ones here -----------------------------------
template <class T>
inline T __ldg(const T *p) {
  return *p;
}
template <class T>
inline T __ldcg(const T *p) {
  return *p;
}
template <class T>
inline T __ldca(const T *p) {
  return *p;
}
template <class T>
inline T __ldcs(const T *p) {
  return *p;
}
template <class T>
inline T __ldlu(const T *p) {
  return *p;
}
template <class T>
inline T __ldcv(const T *p) {
  return *p;
}
template <class T>
inline void __stcg(T *p, T v) {
  *p = v;
}
template <class T>
inline void __stcs(T *p, T v) {
  *p = v;
}
template <class T>
inline void __stwb(T *p, T v) {
  *p = v;
}
template <class T>
inline void __stwt(T *p, T v) {
  *p = v;
}

#endif
