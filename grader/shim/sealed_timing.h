// Sealed timing: how every performance test times the lab's function and its yardstick, so
// that the lab's code cannot influence the measurement. Include it in performance tests only
// (they link gpulabs_yardstick, which holds the trusted device code: gpulabs/yardstick/sealed.h);
// it is built on the CUDA backend only, like the performance tests.
//
// Each call, the lab's and the yardstick's alike, so the ratio stays fair:
//   1. has its outputs poisoned first, each output's whole buffer: the elements it must write
//      and a guard region past them (at least kSealedGuardBytes) that it must leave alone;
//   2. gets an input nobody has seen: SealedSide::draw refills the input on the GPU from a seed
//      of the call's own (SealedCallSeed: a keyed hash of the run's seed, the test, the side and
//      the call's number, under a key drawn when the test program starts, sealed_seed.h: no two
//      calls share an input, and none can be foreseen from the ones before), and computes the expected
//      outputs with the course's code on the GPU (CUB, or a course kernel of the yardstick
//      library), never the lab's. Nothing the lab kept from an earlier call matches it: no
//      cache of any kind, keyed on buffers or on contents, can answer it;
//   3. starts with a flushed L2 cache (gl_sealed_flush_l2): nothing an earlier call or the draw
//      left there;
//   4. is timed on the host's clock between two cudaDeviceSynchronize calls: all the work the
//      call started, on every stream, blocking or not, is inside the interval, and nothing else
//      is (steps 1, 2, 3 and 6 are outside it). The lab's calls run in its worker process
//      (grader/worker/proxy.h), which waits for the GPU before it answers; before each, outside
//      the interval, the worker is primed, so the GPU's switch from this process's context to
//      the worker's (about 0.1 ms on an H100) is not timed. The yardstick runs here, and each of
//      its intervals holds one round trip to the same worker that runs nothing there
//      (gl_worker_ping): both sides pay the few microseconds of running apart, so a ratio
//      compares the two functions and not the two processes;
//   5. is told apart from work on a stream of its own: an event recorded on the default stream
//      right after the call, waited for on the host, shows when its default-stream work ended
//      (for the lab's side, the lab worker does the same and reports both times: the work runs
//      in that process). The labs' API promises
//      results in default-stream order (the next kernel on the default stream may read them), so
//      a side that, in most of its calls, leaves work running after that point fails;
//   6. is checked on the GPU against the expected output of its input (gl_sealed_compare): every
//      element it must write, and the guard region, which must still hold the poison. Any
//      mismatch fails the test, naming the side, the call, the index, the run's seed and the
//      call's input seed.
// The median of the timed calls counts; warm-up calls are untimed and drawn and checked the same
// way (a side cut short by SealedSide::give_up_ms counts the median of its warm-ups instead).
// And the median must not beat physics: a side that must move at least B bytes per call
// (SealedSide::floor_bytes) cannot take less than B / the device-to-device copy bandwidth
// measured in the same process (SealedCopyGbps). Below that, less kCopyLimitSlack for
// measurement spread, the test fails with "rate above the copy limit" instead of reporting a
// ratio; for a yardstick this means the measurement itself is broken.
//
// The per-call synchronisation and the round trip cost a few microseconds per call on both
// sides, added to the time of each: against calls of 0.1 ms and more (every performance test's
// size) they move a ratio by a percent or less. The draw is never timed: it runs before the
// interval, on the GPU (a fill of 2^26 ints takes about 0.1 ms on an H100, and CUB's answer
// about as long as the yardstick's own call), so it adds little to a test's running time.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "gltest.h"
#include "sealed_seed.h"

extern "C" {
#include "worker/proxy.h"
#include "gpulabs/check.h"  // GL_TRY, for the tests' draws
#include "gpulabs/device.h"
#include "gpulabs/timer.h"
#include "gpulabs/yardstick/sealed.h"
}

namespace gl {

// The least guard region past each output's elements, in bytes: a tile of the largest block
// (1024 threads of 16 ints) that runs on past the end lands in it.
constexpr size_t kSealedGuardBytes = 64 << 10;
// A time may fall this far below the copy floor (bytes / copy bandwidth) before it fails: the
// copy bandwidth and the time are each a median of noisy measurements, and they differ by a
// percent or two from run to run on an H100; 5% is well beyond that spread.
constexpr double kCopyLimitSlack = 0.05;
// A call is "not in default-stream order" when its work runs on for at least this long, and
// for at least this share of its time, after its default-stream work has ended; the side fails
// when more than half of its calls are. (An honest call's lag is the few microseconds between
// the GPU finishing and the host waking up.)
constexpr double kStrayMinMs = 0.05;
constexpr double kStrayShare = 0.25;

// The elements to allocate for an output of n elements of T: n and the guard region.
template <class T>
constexpr size_t WithGuard(size_t n) {
  return n + kSealedGuardBytes / sizeof(T);
}

// A device array a timed call writes: its whole buffer poisoned (every byte GL_POISON_BYTE)
// before each call, then compared on the GPU, bit for bit, with the call's expected array; what
// lies past the `count` elements is the guard region, which must keep the poison.
struct SealedOutput {
  std::string what;                 // "the scan", "the count": for the failure message
  void *device = nullptr;           // what the call writes
  size_t bytes = 0;                 // the whole buffer: count elements, then the guard region
  size_t elem_bytes = 4;            // 4 or 8
  bool is_signed = true;            // how a failure message prints the values
  const void *expected = nullptr;   // device array of count elements, refilled by each draw
  size_t count = 0;                 // the elements compared, from index 0
};

// One side of a comparison: the lab's function or a yardstick, as the helper times it.
struct SealedSide {
  std::string name;                           // "scan_exclusive", "CUB DeviceScan::ExclusiveSum"
  bool yardstick = false;                     // the course's code: a failure means a broken measurement
  // Before each call, outside the interval, after the poison: refills the call's input from
  // `seed` on the GPU (gl_sealed_fill_*) and its expected outputs with the course's code. Only
  // the course's code runs here, never the lab's. Required: every call needs a fresh input.
  std::function<gl_status(uint64_t seed)> draw;
  std::function<gl_status()> run;             // one call, on the input the draw left
  std::vector<SealedOutput> outputs;          // checked on the GPU after each call
  std::function<void()> host_poison;          // optional: poisons what outputs do not cover
  std::function<std::string()> host_check;    // optional: "" when right, else what is wrong
  double floor_bytes = 0;                     // the least bytes one call must move; 0: no floor
  long calls = 0;                             // calls so far: the next call's number
  // Optional, for a step that may not be the fastest: when every warm-up call took longer than
  // this, the timed calls are skipped (they could not make it the fastest), the warm-ups' median
  // stands for its time and cut_short is set. The warm-ups are checked as every call is.
  double give_up_ms = 0;
  bool cut_short = false;
};

// The seed of call number `call` of `side` in the running test (sealed_seed.h): every call of a
// run gets an input of its own (the yardstick's never equal the lab's, nor one test's
// another's), and none can be told from the inputs before it. A failure names the call's input
// seed, which draws the same input again; the run's seed alone does not.
inline uint64_t SealedCallSeed(const SealedSide &side, long call) {
  const ::testing::TestInfo *info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = info != nullptr
                         ? std::string(info->test_suite_name()) + "." + info->name() + "/"
                         : std::string("/");
  name += side.name;
  return SealedSeed(Seed(), name, call);
}

namespace sealed_detail {

inline std::string Printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
inline std::string Printf(const char *fmt, ...) {
  char text[512];
  va_list args;
  va_start(args, fmt);
  vsnprintf(text, sizeof text, fmt, args);
  va_end(args);
  return text;
}

inline std::string SeedText() { return Printf("seed 0x%" PRIx64, Seed()); }

// The run's seed and the call's input seed (what gl_sealed_fill_* drew the input from).
inline std::string SeedText(uint64_t input_seed) {
  return Printf("seed 0x%" PRIx64 ", input seed 0x%" PRIx64, Seed(), input_seed);
}

inline std::string Who(const SealedSide &side) {
  return side.yardstick ? "the yardstick " + side.name : side.name;
}

inline std::string Blame(const SealedSide &side) {
  return side.yardstick ? " (the yardstick, the course's own code: the measurement is broken)"
                        : "";
}

inline std::string CudaText(cudaError_t err) {
  return Printf("%s (%s)", cudaGetErrorName(err), cudaGetErrorString(err));
}

inline std::string ValueText(unsigned long long bits, size_t elem_bytes, bool is_signed) {
  if (elem_bytes == 4) {
    uint32_t v = (uint32_t)bits;
    return is_signed ? Printf("%" PRId32, (int32_t)v) : Printf("%" PRIu32, v);
  }
  return is_signed ? Printf("%" PRId64, (int64_t)bits) : Printf("%" PRIu64, (uint64_t)bits);
}

inline bool IsPoison(unsigned long long bits, size_t elem_bytes) {
  unsigned long long poison = 0;
  memset(&poison, GL_POISON_BYTE, elem_bytes);
  return bits == poison;
}

// The event that marks the end of a call's default-stream work (no timing: the host clock
// times the interval), destroyed with the object.
class Events {
 public:
  Events() { ok_ = cudaEventCreateWithFlags(&done, cudaEventDisableTiming) == cudaSuccess; }
  ~Events() {
    if (done) cudaEventDestroy(done);
  }
  Events(const Events &) = delete;
  Events &operator=(const Events &) = delete;
  bool ok() const { return ok_; }
  cudaEvent_t done = nullptr;

 private:
  bool ok_ = false;
};

}  // namespace sealed_detail

// The device-to-device copy bandwidth (read + written bytes per second, GB/s), measured once per
// process with gl_measure_copy_gbps on a buffer of max(256 MiB, 4 x L2): memory-bound on every
// GPU the course runs on. Every copy floor of the process uses it.
inline ::testing::AssertionResult SealedCopyGbps(double *gbps) {
  static double measured = 0;
  if (measured <= 0) {
    int device = 0;
    gl_device_info info;
    if (cudaGetDevice(&device) != cudaSuccess || gl_device_query(device, &info) != GL_OK) {
      return ::testing::AssertionFailure() << "the device query failed: " << gl_last_error();
    }
    size_t bytes = std::max((size_t)256 << 20, 4 * info.l2_bytes);
    gl_clear_error();
    if (gl_measure_copy_gbps(bytes, 20, &measured) != GL_OK || !(measured > 0)) {
      measured = 0;
      return ::testing::AssertionFailure()
             << "measuring the copy bandwidth failed: " << gl_last_error();
    }
  }
  *gbps = measured;
  return ::testing::AssertionSuccess();
}

// Fails when a median time beats the copy floor of side.floor_bytes (see the top of this file).
inline ::testing::AssertionResult CheckCopyFloor(const SealedSide &side, double ms, int reps) {
  if (side.floor_bytes <= 0) return ::testing::AssertionSuccess();
  double copy_gbps = 0;
  ::testing::AssertionResult measured = SealedCopyGbps(&copy_gbps);
  if (!measured) return measured;
  const double floor_ms = side.floor_bytes / (copy_gbps * 1e6);
  if (ms >= floor_ms * (1.0 - kCopyLimitSlack)) return ::testing::AssertionSuccess();
  using sealed_detail::Printf;
  return ::testing::AssertionFailure()
         << sealed_detail::Who(side) << ": rate above the copy limit: "
         << Printf("%.4f ms (median of %d calls) for at least %.0f bytes is %.0f GB/s, above the "
                   "%.0f GB/s of a device-to-device copy measured in this run (floor %.4f ms, "
                   "%.0f%% allowed below it)",
                   ms, reps, side.floor_bytes, side.floor_bytes / (ms * 1e6), copy_gbps, floor_ms,
                   kCopyLimitSlack * 100)
         << sealed_detail::Blame(side) << "; " << sealed_detail::SeedText();
}

namespace sealed_detail {

// Fails unless every output's buffer holds its elements and a guard region of at least
// kSealedGuardBytes: a test that forgot WithGuard would have the poison written past its buffer.
inline ::testing::AssertionResult CheckLayout(const SealedSide &side) {
  if (!side.draw) {
    return ::testing::AssertionFailure()
           << Who(side) << " has no draw: every call needs a fresh input (see SealedSide::draw)";
  }
  for (const SealedOutput &out : side.outputs) {
    const size_t need = out.count * out.elem_bytes + kSealedGuardBytes;
    if ((out.elem_bytes != 4 && out.elem_bytes != 8) || out.bytes < need ||
        out.bytes % out.elem_bytes != 0) {
      return ::testing::AssertionFailure()
             << Who(side) << ": " << out.what << " is a buffer of " << out.bytes
             << " bytes for " << out.count << " elements of " << out.elem_bytes
             << " bytes: it needs whole elements and a guard region of " << kSealedGuardBytes
             << " bytes after them (allocate gl::WithGuard<T>(n) elements)";
    }
  }
  return ::testing::AssertionSuccess();
}

// Outside the interval, before a call: poisons the outputs, draws the call's input and expected
// outputs, flushes the L2 (after the draw, which read and wrote the input) and waits for it all.
inline ::testing::AssertionResult Prepare(SealedSide &side, const std::string &call,
                                          uint64_t input_seed) {
  const std::string who = Who(side);
  cudaError_t err = cudaSuccess;
  for (const SealedOutput &out : side.outputs) {
    if (err == cudaSuccess) {
      err = cudaMemsetAsync(out.device, GL_POISON_BYTE, out.bytes, cudaStreamLegacy);
    }
  }
  if (side.host_poison) side.host_poison();
  gl_clear_error();
  if (err == cudaSuccess && side.draw(input_seed) != GL_OK) {
    return ::testing::AssertionFailure()
           << "drawing the input of " << who << "'s " << call
           << " failed (the course's code: the measurement is broken): " << gl_last_error()
           << "; " << SeedText(input_seed);
  }
  gl_clear_error();
  if (err == cudaSuccess && gl_sealed_flush_l2() != GL_OK) {
    return ::testing::AssertionFailure() << "flushing the L2 cache failed: " << gl_last_error();
  }
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err != cudaSuccess) {
    return ::testing::AssertionFailure() << "the GPU reported " << CudaText(err) << " before "
                                         << who << "'s " << call << "; " << SeedText(input_seed);
  }
  return ::testing::AssertionSuccess();
}

// Outside the interval, after a call: every output against the call's expected array, and its
// guard region against the poison, on the GPU; then the side's host check.
inline ::testing::AssertionResult CheckOutputs(const SealedSide &side, const std::string &call,
                                               uint64_t input_seed) {
  const std::string who = Who(side);
  for (const SealedOutput &out : side.outputs) {
    const size_t guard = out.bytes / out.elem_bytes - out.count;
    gl_sealed_mismatch m;
    gl_clear_error();
    if (gl_sealed_compare(out.expected, out.device, out.count, guard, out.elem_bytes, &m) !=
        GL_OK) {
      return ::testing::AssertionFailure()
             << "checking " << who << "'s output failed: " << gl_last_error();
    }
    if (m.count == 0) continue;
    const std::string want = ValueText(m.want, out.elem_bytes, out.is_signed);
    const std::string got = ValueText(m.got, out.elem_bytes, out.is_signed);
    ::testing::AssertionResult failure = ::testing::AssertionFailure();
    if (m.first >= out.count) {
      failure << who << ": " << out.what << " written past its end at index " << m.first
              << " (got " << got << "; the " << guard << " elements after its " << out.count
              << " must keep the poison)";
    } else if (IsPoison(m.got, out.elem_bytes)) {
      failure << who << ": " << out.what << " not written at index " << m.first << " of "
              << out.count << " (still the poison value; expected " << want << ")";
    } else {
      failure << who << ": " << out.what << " wrong at index " << m.first << " of "
              << out.count << ": expected " << want << ", got " << got;
    }
    return failure << " in its " << call << "; " << m.count << " of " << out.count + guard
                   << " elements wrong" << Blame(side) << "; " << SeedText(input_seed);
  }
  if (side.host_check) {
    std::string wrong = side.host_check();
    if (!wrong.empty()) {
      return ::testing::AssertionFailure() << who << ": " << wrong << " in its " << call
                                           << Blame(side) << "; " << SeedText(input_seed);
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace sealed_detail

// Times `reps` calls of side.run after `warmup` untimed ones, each sealed as the top of this file
// says, and stores the median in *median_ms. Fails (with the reason) when a draw fails, a call
// returns an error, the GPU reports one, an output is wrong, the side's work is not in
// default-stream order, or the median beats the copy floor. When not_implemented is given and
// the very first call returns GL_ERR_NOT_IMPLEMENTED, sets it and returns success with nothing
// timed.
inline ::testing::AssertionResult TimeSealed(SealedSide &side, int warmup, int reps,
                                             double *median_ms, bool *not_implemented = nullptr) {
  using sealed_detail::Printf;
  if (not_implemented != nullptr) *not_implemented = false;
  if (warmup < 0) warmup = 0;
  reps = std::min(std::max(reps, 1), 1000);
  ::testing::AssertionResult layout = sealed_detail::CheckLayout(side);
  if (!layout) return layout;
  sealed_detail::Events events;
  if (!events.ok()) return ::testing::AssertionFailure() << "cudaEventCreate failed";
  if (side.floor_bytes > 0) {
    // Measured once per process, before the first side is timed.
    double copy_gbps = 0;
    ::testing::AssertionResult measured = SealedCopyGbps(&copy_gbps);
    if (!measured) return measured;
  }
  const std::string who = sealed_detail::Who(side);
  const int total = warmup + reps;
  // The yardstick's round trip to the lab worker (step 4 at the top): the first one, untimed,
  // starts the worker when the lab's side has not run yet.
  if (side.yardstick && gl_worker_ping() != GL_OK) {
    return ::testing::AssertionFailure()
           << "the lab worker did not answer the round trip timed with " << who << ": "
           << gl_last_error();
  }
  // The lab worker polls for the next call instead of sleeping, so that waking it up is not
  // part of the lab's timed interval (CUB runs in this process and needs no wake-up).
  struct PollWhileTiming {
    PollWhileTiming() { gl_worker_set_timing(1); }
    ~PollWhileTiming() { gl_worker_set_timing(0); }
  } poll_while_timing;
  std::vector<double> times, warm;
  std::vector<double> lags;
  side.cut_short = false;
  int stray = 0;
  for (int c = 0; c < total; ++c) {
    const long number = side.calls++;
    const uint64_t input_seed = SealedCallSeed(side, number);
    const std::string call = c < warmup ? Printf("warm-up call %d of %d", c + 1, warmup)
                                        : Printf("timed call %d of %d", c - warmup + 1, reps);

    // Outside the interval: poison, a fresh input and its expected outputs, a flushed L2.
    ::testing::AssertionResult prepared = sealed_detail::Prepare(side, call, input_seed);
    if (!prepared) return prepared;

    // The lab's side runs in its worker, which waits for the GPU before it answers: the GPU is
    // brought to the worker's context first, outside the interval (gl_worker_prime).
    const bool in_worker = !side.yardstick && gl_worker_running();
    if (in_worker && gl_worker_prime() != GL_OK) {
      return ::testing::AssertionFailure() << "priming the lab worker before " << who << "'s "
                                           << call << " failed: " << gl_last_error();
    }

    // The interval: everything the call starts, on any stream, ends inside it. The lab's
    // worker waits the same two ways before it answers (grader/worker/worker_main.c).
    const double t0 = gl_host_now_ms();
    gl_clear_error();
    if (side.yardstick && gl_worker_ping() != GL_OK) {
      return ::testing::AssertionFailure()
             << "the lab worker did not answer the round trip timed with " << who << "'s "
             << call << ": " << gl_last_error();
    }
    const gl_status status = side.run();
    cudaError_t recorded = cudaSuccess, synced = cudaSuccess;
    double t_stream = 0;
    if (!in_worker) {
      recorded = cudaEventRecord(events.done, cudaStreamLegacy);
      if (recorded == cudaSuccess) recorded = cudaEventSynchronize(events.done);
      t_stream = gl_host_now_ms();
      synced = cudaDeviceSynchronize();
    }
    const double t1 = gl_host_now_ms();

    if (status != GL_OK) {
      if (c == 0 && status == GL_ERR_NOT_IMPLEMENTED && not_implemented != nullptr) {
        *not_implemented = true;
        return ::testing::AssertionSuccess();
      }
      return ::testing::AssertionFailure()
             << who << " returned " << gl_status_name(status) << " in its " << call << ": "
             << gl_last_error() << sealed_detail::Blame(side);
    }
    cudaError_t err = recorded != cudaSuccess ? recorded : synced;
    if (err == cudaSuccess) err = cudaGetLastError();
    if (err != cudaSuccess) {
      return ::testing::AssertionFailure()
             << "the GPU reported " << sealed_detail::CudaText(err) << " after " << who << "'s "
             << call << sealed_detail::Blame(side) << "; " << sealed_detail::SeedText(input_seed);
    }
    const double host_ms = t1 - t0;
    double lag = in_worker ? 0 : t1 - t_stream;
    double worker_stream_ms = 0, worker_host_ms = 0;
    if (!side.yardstick && gl_worker_last_timing(&worker_stream_ms, &worker_host_ms)) {
      lag = worker_host_ms - worker_stream_ms;  // its work ran in the worker's process
    }
    lags.push_back(lag);
    if (lag > kStrayMinMs && lag > kStrayShare * host_ms) ++stray;

    // Outside the interval: the outputs and the guard regions, on the GPU.
    ::testing::AssertionResult checked = sealed_detail::CheckOutputs(side, call, input_seed);
    if (!checked) return checked;
    if (c >= warmup) times.push_back(host_ms);
    if (c < warmup) warm.push_back(host_ms);
    // Not when a warm-up call ran on past its default-stream work: three calls are too few for
    // that verdict, which the timed calls then give.
    if (c == warmup - 1 && side.give_up_ms > 0 && stray == 0 &&
        *std::min_element(warm.begin(), warm.end()) > side.give_up_ms) {
      side.cut_short = true;
      times = warm;
      break;
    }
  }

  const int made = (int)lags.size();
  if (2 * stray > made) {
    const double median_lag = gl_median(lags.data(), (int)lags.size());
    return ::testing::AssertionFailure()
           << who << ": not in default-stream order: in " << stray << " of " << made
           << " calls its GPU work ran on after its default-stream work had ended (median "
           << Printf("%.4f ms", median_lag)
           << "), so the next kernel on the default stream would read unfinished results: work "
              "on a stream of its own must be waited for before returning"
           << sealed_detail::Blame(side) << "; " << sealed_detail::SeedText();
  }
  *median_ms = gl_median(times.data(), (int)times.size());
  return CheckCopyFloor(side, *median_ms, (int)times.size());
}

// The fastest of a lab's steps, given in the ladder's order and timed with TimeSealed the last
// (usually the fastest) first; a step not written yet (GL_ERR_NOT_IMPLEMENTED at its first call)
// is skipped. With give_up > 0, a step whose warm-up calls each take more than give_up times the
// best so far cannot be the fastest and is not timed further (its warm-ups' median stands, and
// cut_short says so). Fails as TimeSealed does; a result with no step written is no failure
// (best is then -1: the caller says what that means). Results are indexed as the steps are.
struct SealedFastest {
  int best = -1;                   // index in the steps of the fastest
  double best_ms = 0;
  std::vector<double> ms;          // each step's time; 0: not written
  std::vector<bool> cut_short;     // timed by its warm-ups only
  std::string not_written;         // " <name> (<the lab's message>)" for each step not written
};

inline ::testing::AssertionResult TimeFastest(std::vector<SealedSide> &steps, int warmup, int reps,
                                              double give_up, SealedFastest *result) {
  *result = SealedFastest();
  result->ms.assign(steps.size(), 0.0);
  result->cut_short.assign(steps.size(), false);
  for (size_t i = steps.size(); i-- > 0;) {
    SealedSide &step = steps[i];
    step.give_up_ms = give_up * result->best_ms;
    double ms = 0;
    bool not_implemented = false;
    ::testing::AssertionResult timed = TimeSealed(step, warmup, reps, &ms, &not_implemented);
    if (!timed) return timed;
    if (not_implemented) {
      result->not_written += " " + step.name + " (" + gl_last_error() + ")";
      continue;
    }
    result->ms[i] = ms;
    result->cut_short[i] = step.cut_short;
    if (result->best < 0 || ms < result->best_ms) {
      result->best = (int)i;
      result->best_ms = ms;
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace gl
