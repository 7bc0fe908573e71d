// The tests' device memory (gltest.h: DeviceAllocPoisoned, DeviceAllocPrivate, DeviceFree).
//
// Two kinds of buffer. A test hands *shared* buffers to the lab, whose code runs in the lab
// worker and maps them (grader/worker/share.h). *Private* buffers hold what the verdict rests
// on and the lab must never see: the expected arrays a sealed timing checks each call against
// on the GPU, the pristine inputs it restores. The proxy never hands a private buffer to the
// worker (gl_test_buffer_private), and no private buffer may lie in memory the worker has
// mapped: that is what decides how buffers are placed.
//
// On the GPU (the grader's way): buffers are carved out of slabs of 128 MiB or more, shared
// and private ones from slabs of their own, 256-byte aligned (as cudaMalloc's) with a 256-byte
// gap after each; one larger than a slab gets whole pages of a slab its size. The worker maps a
// shared slab once for the life of the test program: mapping an allocation
// (cudaIpcOpenMemHandle) costs tens of milliseconds a call while the grader's some 50 processes
// share the GPU, and buffers of a new size would each need one. Slabs are never freed while the
// program runs, so a private buffer can never be placed in memory that the worker still maps
// from a buffer freed earlier.
//
// Exact allocations instead, one cudaMalloc per buffer (a shared one kept for the next of the
// same size): under a tool (compute-sanitizer, a profiler), where a read or write past a
// buffer's end must be past its allocation to be reported; on the CPU backend, whose
// AddressSanitizer needs the same; and with GPULABS_EXACT_BUFFERS=1 (=0: slabs even under a
// tool, as the profile of the grader's run wants). That mode is for the tools, not for sealed
// grading on the GPU: a kept buffer may be freed while the worker still maps it, and a private
// buffer could then be placed in its memory.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "gltest.h"
#include "slab_space.h"

namespace gl {
namespace {

[[noreturn]] void Fatal(const char *what, cudaError_t err) {
  fprintf(stderr, "gpulabs test helper: %s failed: %s (%s)\n", what, cudaGetErrorString(err),
          cudaGetErrorName(err));
  fflush(stderr);
  std::abort();  // the device is unusable: failing loudly beats checking garbage
}

void Check(cudaError_t err, const char *what) {
  if (err != cudaSuccess) Fatal(what, err);
}

bool ExactBuffers() {
#ifdef GPULABS_SIM
  return true;
#else
  const char *exact = getenv("GPULABS_EXACT_BUFFERS");
  if (exact != nullptr && exact[0] != '\0') return strcmp(exact, "0") != 0;
  // compute-sanitizer (13.0) preloads its library and sets NV_SANITIZER_INJECTION_PORT_BASE in
  // the programs it checks; profilers and CUPTI tools set CUDA_INJECTION64_PATH.
  for (const char *tool : {"NV_SANITIZER_INJECTION_PORT_BASE", "CUDA_INJECTION64_PATH"}) {
    const char *value = getenv(tool);
    if (value != nullptr && value[0] != '\0') return true;
  }
  return false;
#endif
}

const size_t kAlign = 256;
const size_t kGap = 256;
const size_t kSlabBytes = (size_t)128 << 20;
const size_t kSlabRound = (size_t)2 << 20;  // the GPU's page: no other allocation in the tail

size_t RoundUp(size_t n, size_t to) { return (n + to - 1) / to * to; }

struct Slab {
  char *base;
  SlabSpace space;
};

// Exact buffers of a size, kept for the next test that asks for it (as a caching allocator
// does): every test walks the same sizes. At most this much is kept per process.
const size_t kPoolBytes = (size_t)1 << 30;
const size_t kPoolBuffers = 96;  // under the worker's 256 mapped buffers

struct Block {
  int slab;      // index into slabs[domain], or -1: an exact allocation
  int domain;    // 0 shared, 1 private
  size_t offset;
  size_t bytes;  // the span in a slab, the size asked for in an exact allocation
};

struct Memory {
  std::mutex lock;
  bool exact = ExactBuffers();
  std::vector<Slab> slabs[2];
  std::unordered_map<void *, Block> live;
  std::vector<std::pair<size_t, void *>> kept;  // exact, free, oldest first
  size_t kept_bytes = 0;
};

Memory &TheMemory() {
  static Memory *memory = new Memory;  // never destroyed: buffers freed after main still find it
  return *memory;
}

// Frees the oldest kept exact buffers until `bytes` more and one more buffer fit. Lock held.
void MakeRoom(Memory &m, size_t bytes) {
  size_t drop = 0;
  size_t kept_bytes = m.kept_bytes;
  while (drop < m.kept.size() &&
         (kept_bytes + bytes > kPoolBytes || m.kept.size() - drop + 1 > kPoolBuffers)) {
    cudaFree(m.kept[drop].second);
    kept_bytes -= m.kept[drop].first;
    ++drop;
  }
  m.kept.erase(m.kept.begin(), m.kept.begin() + drop);
  m.kept_bytes = kept_bytes;
}

void *AllocExact(Memory &m, size_t bytes, int domain) {
  void *ptr = nullptr;
  for (size_t i = m.kept.size(); domain == 0 && i-- > 0;) {  // the newest of that size
    if (m.kept[i].first == bytes) {
      ptr = m.kept[i].second;
      m.kept.erase(m.kept.begin() + i);
      m.kept_bytes -= bytes;
      break;
    }
  }
  if (ptr == nullptr) {
    cudaError_t err = cudaMalloc(&ptr, bytes);
    if (err == cudaErrorMemoryAllocation && !m.kept.empty()) {
      cudaGetLastError();
      MakeRoom(m, kPoolBytes);  // everything kept goes back to the GPU first
      err = cudaMalloc(&ptr, bytes);
    }
    Check(err, "cudaMalloc (test buffer)");
  }
  m.live[ptr] = Block{-1, domain, 0, bytes};
  return ptr;
}

// What a buffer takes in a slab: a large one whole pages and no gap, as cudaMalloc would give
// it (and as a slab of its own holds it).
size_t SpanOf(size_t bytes) {
  const size_t span = RoundUp(bytes, kAlign) + kGap;
  return span > kSlabBytes ? RoundUp(bytes, kSlabRound) : span;
}

// First fit over the slabs of the domain, a new slab when none has room.
void *AllocInSlab(Memory &m, size_t bytes, int domain) {
  const size_t span = SpanOf(bytes);
  std::vector<Slab> &slabs = m.slabs[domain];
  size_t s = 0, offset = SlabSpace::kNone;
  while (s < slabs.size() && (offset = slabs[s].space.Take(span)) == SlabSpace::kNone) ++s;
  if (s == slabs.size()) {
    const size_t slab_bytes = std::max(span, kSlabBytes);
    void *base = nullptr;
    Check(cudaMalloc(&base, slab_bytes),
          domain == 0 ? "cudaMalloc (a slab of test buffers)"
                      : "cudaMalloc (a slab of the test's private buffers)");
    slabs.push_back(Slab{static_cast<char *>(base), SlabSpace(slab_bytes)});
    offset = slabs[s].space.Take(span);  // 0
  }
  char *ptr = slabs[s].base + offset;
  m.live[ptr] = Block{(int)s, domain, offset, span};
  return ptr;
}

// The slab of `domain` that holds p, or nullptr. Lock held.
const Slab *SlabHolding(const Memory &m, int domain, const void *p) {
  const char *c = static_cast<const char *>(p);
  for (const Slab &slab : m.slabs[domain]) {
    if (c >= slab.base && slab.space.Holds((size_t)(c - slab.base))) return &slab;
  }
  return nullptr;
}

void *Alloc(size_t bytes, int domain) {
  Memory &m = TheMemory();
  void *ptr;
  {
    std::lock_guard<std::mutex> hold(m.lock);
    ptr = m.exact ? AllocExact(m, bytes, domain) : AllocInSlab(m, bytes, domain);
  }
  DevicePoison(ptr, bytes);
  return ptr;
}

}  // namespace

void *DeviceAllocPoisoned(size_t bytes) { return Alloc(bytes, 0); }
void *DeviceAllocPrivate(size_t bytes) { return Alloc(bytes, 1); }

void DeviceFree(void *ptr) {
  if (ptr == nullptr) return;
  Memory &m = TheMemory();
  std::lock_guard<std::mutex> hold(m.lock);
  auto it = m.live.find(ptr);
  if (it == m.live.end()) {
    if (SlabHolding(m, 0, ptr) != nullptr || SlabHolding(m, 1, ptr) != nullptr) {
      // Freed twice, or not a buffer's start: freeing the slab would pull memory from under
      // the test's other buffers.
      fprintf(stderr, "gpulabs test helper: DeviceFree(%p): not a live test buffer\n", ptr);
      fflush(stderr);
      std::abort();
    }
    cudaFree(ptr);  // memory of the test's own (cudaMalloc)
    return;
  }
  const Block block = it->second;
  m.live.erase(it);
  if (block.slab >= 0) {
    m.slabs[block.domain][block.slab].space.Give(block.offset, block.bytes);
  } else if (block.domain == 1 || block.bytes > kPoolBytes / 4) {  // a rare giant: not kept
    cudaFree(ptr);
  } else {
    MakeRoom(m, block.bytes);
    m.kept.emplace_back(block.bytes, ptr);
    m.kept_bytes += block.bytes;
  }
}

bool IsPrivate(const void *ptr) {
  Memory &m = TheMemory();
  const char *p = static_cast<const char *>(ptr);
  std::lock_guard<std::mutex> hold(m.lock);
  if (SlabHolding(m, 1, p) != nullptr) return true;
  if (!m.exact) return false;
  for (const auto &entry : m.live) {
    const char *base = static_cast<const char *>(entry.first);
    if (entry.second.domain == 1 && p >= base && p < base + entry.second.bytes) return true;
  }
  return false;
}

// No synchronisation here: this process's copies come after the poison in its stream, and the
// proxy synchronises before every call hands a buffer to the lab worker (gl_call_finish). A
// synchronisation per buffer would cost a trip of the GPU into this context each, while it is
// shared with the other test programs' contexts, and a correctness run poisons tens of
// thousands of buffers.
void DevicePoison(void *ptr, size_t bytes) {
  Check(cudaMemset(ptr, GL_POISON_BYTE, bytes), "cudaMemset (poisoning a test buffer)");
}

void CopyToDevice(void *dst, const void *src, size_t bytes) {
  if (bytes == 0) return;
  Check(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice), "cudaMemcpy host->device");
}

void CopyToHost(void *dst, const void *src, size_t bytes) {
  if (bytes == 0) return;
  Check(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy device->host");
}

}  // namespace gl

// The proxy asks before it hands a device pointer to the lab worker (grader/worker/proxy.c).
extern "C" int gl_test_buffer_private(const void *ptr) { return gl::IsPrivate(ptr) ? 1 : 0; }
