// Device memory as mappings of its own, and the sharing of it with another process.
//
// Each allocation is a private anonymous mapping of whole pages between two guard ranges
// (PROT_NONE): [guard][data pages][guard]. Under AddressSanitizer the guards and the tail of the
// last page carry the shadow of a heap redzone, so an access past either end is reported as a
// heap-buffer-overflow, as when device memory came from the heap; freed memory is kept in a
// quarantine (PROT_NONE, shadow of freed heap memory) for a while, so a use after cudaFree is a
// heap-use-after-free (or, without AddressSanitizer, a crash) rather than a silent access to a
// newer allocation.
//
// Sharing: the first gpulabs_sim_ipc_export of an allocation moves it, at the same address, onto
// a shared-memory file (memfd_create, sealed against shrinking and growing) with its contents,
// and keeps the file's descriptor; another process maps that file (gpulabs_sim_ipc_import).
// Allocations that are never exported stay private memory: no descriptor each (no limit on
// their number), no file (a process under RLIMIT_FSIZE 0, like the sandboxed lab worker, can
// still allocate; ftruncate there would raise SIGXFSZ), and a fork's child gets a copy of them,
// not the memory itself.
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <deque>
#include <mutex>
#include <vector>

#include "internal.h"

#if defined(__SANITIZE_ADDRESS__) && !defined(GPULABS_SIM_ASAN)
#define GPULABS_SIM_ASAN 1
#endif
#if defined(GPULABS_SIM_ASAN)
#include <sanitizer/asan_interface.h>
#endif

#ifndef MFD_ALLOW_SEALING
#define MFD_ALLOW_SEALING 0x0002U
#endif
#ifndef F_ADD_SEALS
#define F_ADD_SEALS 1033
#define F_GET_SEALS 1034
#define F_SEAL_SEAL 0x0001
#define F_SEAL_SHRINK 0x0002
#define F_SEAL_GROW 0x0004
#endif

namespace gpulabs_sim {
namespace {

size_t page_size() {
  static const size_t page = [] {
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : (size_t)4096;
  }();
  return page;
}

// Each side of an allocation: address space only (PROT_NONE, no memory).
size_t guard_bytes() { return page_size() > 16384 ? page_size() : 16384; }

size_t mapped_bytes(size_t size) { return (size + page_size() - 1) / page_size() * page_size(); }

// The quarantine of freed allocations: at most this many bytes of them, and this many.
constexpr size_t kQuarantineBytes = (size_t)256 << 20;
constexpr size_t kQuarantineEntries = 1024;

#if defined(GPULABS_SIM_ASAN)
// Shadow bytes AddressSanitizer gives a heap redzone and freed heap memory: it names an access
// to them heap-buffer-overflow and heap-use-after-free.
constexpr unsigned char kShadowHeapRedzone = 0xfa;
constexpr unsigned char kShadowHeapFreed = 0xfd;
constexpr uintptr_t kGranule = 8;

uintptr_t shadow_address(uintptr_t addr) {
  static size_t scale = 0, offset = 0;
  static std::once_flag once;
  std::call_once(once, [] { __asan_get_shadow_mapping(&scale, &offset); });
  return (addr >> scale) + offset;
}

// Plain stores (not memset, whose interceptor would check the shadow's own addresses).
void store_bytes(uintptr_t begin, uintptr_t end, unsigned char value) {
  volatile unsigned char *p = reinterpret_cast<volatile unsigned char *>(begin);
  volatile unsigned char *const e = reinterpret_cast<volatile unsigned char *>(end);
  while (p < e && (reinterpret_cast<uintptr_t>(p) & 7) != 0) *p++ = value;
  const uint64_t word = 0x0101010101010101ull * value;
  volatile uint64_t *w = reinterpret_cast<volatile uint64_t *>(const_cast<unsigned char *>(p));
  while (reinterpret_cast<uintptr_t>(w + 1) <= end) *w++ = word;
  p = reinterpret_cast<volatile unsigned char *>(w);
  while (p < e) *p++ = value;
}

// Sets the shadow of [begin, begin + bytes) (multiples of the granule) to `value`. Zeros over
// whole pages of shadow are given back to the system instead (as AddressSanitizer does).
void fill_shadow(uintptr_t begin, size_t bytes, unsigned char value) {
  if (bytes == 0) return;
  const uintptr_t s = shadow_address(begin);
  const uintptr_t e = shadow_address(begin + bytes);
  const uintptr_t page = page_size();
  const uintptr_t s_page = (s + page - 1) & ~(page - 1);
  const uintptr_t e_page = e & ~(page - 1);
  if (value == 0 && e_page > s_page &&
      madvise(reinterpret_cast<void *>(s_page), e_page - s_page, MADV_DONTNEED) == 0) {
    store_bytes(s, s_page, 0);
    store_bytes(e_page, e, 0);
    return;
  }
  store_bytes(s, e, value);
}
#endif

// The shadow of a live allocation at `data`: its `size` bytes addressable, the rest of its last
// page and both guards a heap redzone.
void mark_live(char *data, size_t size) {
#if defined(GPULABS_SIM_ASAN)
  const uintptr_t d = reinterpret_cast<uintptr_t>(data);
  const size_t guard = guard_bytes();
  fill_shadow(d - guard, guard, kShadowHeapRedzone);
  const size_t whole = size & ~(kGranule - 1);
  fill_shadow(d, whole, 0);
  size_t redzone_from = whole;
  if (size != whole) {
    store_bytes(shadow_address(d + whole), shadow_address(d + whole) + 1,
                (unsigned char)(size - whole));
    redzone_from += kGranule;
  }
  fill_shadow(d + redzone_from, mapped_bytes(size) - redzone_from + guard, kShadowHeapRedzone);
#else
  (void)data;
  (void)size;
#endif
}

// The reservation of an allocation: its guards and pages.
char *reservation_start(const DeviceMapping &m) { return m.base - guard_bytes(); }
size_t reservation_bytes(size_t size) { return mapped_bytes(size) + 2 * guard_bytes(); }

// Address space for an allocation of `size` bytes, all PROT_NONE: the data's address, or null.
char *reserve(size_t size) {
  if (size > SIZE_MAX / 2) return nullptr;
  void *r = mmap(nullptr, reservation_bytes(size), PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return r == MAP_FAILED ? nullptr : static_cast<char *>(r) + guard_bytes();
}

void release_reservation(char *start, size_t bytes) {
#if defined(GPULABS_SIM_ASAN)
  fill_shadow(reinterpret_cast<uintptr_t>(start), bytes, 0);
#endif
  munmap(start, bytes);
}

struct Quarantine {
  std::mutex mutex;
  struct Entry {
    char *start;
    size_t bytes;
  };
  std::deque<Entry> entries;
  size_t bytes = 0;
};
Quarantine &quarantine() {
  static Quarantine *q = new Quarantine;  // never destroyed: memory may be freed during exit
  return *q;
}

// Moves the data pages of [data, data + size) onto `fd` (whose first `size` bytes already hold
// them): true on success. On failure the pages are private memory again with their contents.
bool map_file_over(char *data, size_t size, int fd) {
  void *p = mmap(data, mapped_bytes(size), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
  if (p == data) return true;
  // A failed MAP_FIXED may have unmapped the old pages: put private ones back from the file.
  const int saved = errno;
  void *q = mmap(data, mapped_bytes(size), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  if (q == data) {
    for (size_t done = 0; done < size;) {
      ssize_t n = pread(fd, data + done, size - done, (off_t)done);
      if (n <= 0 && errno != EINTR) break;
      if (n > 0) done += (size_t)n;
    }
  }
  errno = saved;
  return false;
}

}  // namespace

bool map_device_memory(size_t size, DeviceMapping *out) {
  char *data = reserve(size);
  if (data == nullptr) return false;
  const size_t bytes = mapped_bytes(size);
  if (mmap(data, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) !=
      data) {
    munmap(data - guard_bytes(), reservation_bytes(size));
    return false;
  }
  mark_live(data, size);
  memset(data, kFreshMemory, size);
  *out = DeviceMapping{data, size, -1, false};
  return true;
}

cudaError_t share_device_memory(DeviceMapping *m) {
  if (m->fd >= 0) return cudaSuccess;
  struct rlimit limit;
  if (getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
      limit.rlim_cur < (rlim_t)m->size) {
    // ftruncate would raise SIGXFSZ.
    note(
        "gpulabs_sim_ipc_export: %zu bytes at %p cannot become a shared-memory file under "
        "RLIMIT_FSIZE %llu (cudaErrorMemoryAllocation)",
        m->size, (void *)m->base, (unsigned long long)limit.rlim_cur);
    return cudaErrorMemoryAllocation;
  }
  const int fd = memfd_create("gpulabs-device", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0) {
    note("gpulabs_sim_ipc_export: memfd_create failed: %s (cudaErrorMemoryAllocation)",
         strerror(errno));
    return cudaErrorMemoryAllocation;
  }
  bool ok = ftruncate(fd, (off_t)m->size) == 0;
  for (size_t done = 0; ok && done < m->size;) {
    ssize_t n = pwrite(fd, m->base + done, m->size - done, (off_t)done);
    if (n > 0) {
      done += (size_t)n;
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      ok = false;
    }
  }
  // Neither side can resize it (a shrunk file would fault the other's accesses with SIGBUS),
  // nor seal it further.
  ok = ok && fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) == 0;
  ok = ok && map_file_over(m->base, m->size, fd);
  if (!ok) {
    note("gpulabs_sim_ipc_export: %zu bytes at %p: no shared-memory file: %s "
         "(cudaErrorMemoryAllocation)",
         m->size, (void *)m->base, strerror(errno));
    close(fd);
    return cudaErrorMemoryAllocation;
  }
  m->fd = fd;
  return cudaSuccess;
}

cudaError_t import_device_memory(int fd, size_t size, DeviceMapping *out) {
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    note(
        "gpulabs_sim_ipc_import: descriptor %d is not a shared-memory file "
        "(cudaErrorInvalidValue)",
        fd);
    return cudaErrorInvalidValue;
  }
  if (size == 0 || st.st_size < 0 || size > (size_t)st.st_size) {
    note("gpulabs_sim_ipc_import: %zu bytes asked of a %lld-byte file (cudaErrorInvalidValue)",
         size, (long long)st.st_size);
    return cudaErrorInvalidValue;
  }
  // A file the other side could still shrink would turn this process's accesses into SIGBUS.
  int seals = fcntl(fd, F_GET_SEALS);
  if (seals >= 0 && !(seals & F_SEAL_SHRINK) && fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK) == 0)
    seals |= F_SEAL_SHRINK;
  if (seals < 0 || !(seals & F_SEAL_SHRINK)) {
    note(
        "gpulabs_sim_ipc_import: descriptor %d is not sealed against shrinking (not from "
        "gpulabs_sim_ipc_export?) (cudaErrorInvalidValue)",
        fd);
    return cudaErrorInvalidValue;
  }
  char *data = reserve(size);
  if (data == nullptr) return cudaErrorMemoryAllocation;
  if (mmap(data, mapped_bytes(size), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) !=
      data) {
    munmap(data - guard_bytes(), reservation_bytes(size));
    return cudaErrorMemoryAllocation;
  }
  fcntl(fd, F_SETFD, FD_CLOEXEC);  // it may have come without: no exec'd child inherits it
  mark_live(data, size);
  *out = DeviceMapping{data, size, fd, true};
  return cudaSuccess;
}

void unmap_device_memory(const DeviceMapping &m) {
  char *const start = reservation_start(m);
  const size_t bytes = reservation_bytes(m.size);
  // The pages go (and with them the file's mapping); the address range stays reserved.
  const bool kept = mmap(m.base, mapped_bytes(m.size), PROT_NONE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1,
                         0) == m.base;
  if (m.fd >= 0) close(m.fd);
  if (!kept || mapped_bytes(m.size) > kQuarantineBytes) {
    release_reservation(start, bytes);
    return;
  }
#if defined(GPULABS_SIM_ASAN)
  fill_shadow(reinterpret_cast<uintptr_t>(m.base), (m.size + kGranule - 1) & ~(kGranule - 1),
              kShadowHeapFreed);
#endif
  std::vector<Quarantine::Entry> evicted;
  {
    Quarantine &q = quarantine();
    std::lock_guard<std::mutex> lock(q.mutex);
    q.entries.push_back({start, bytes});
    q.bytes += bytes;
    while (q.bytes > kQuarantineBytes || q.entries.size() > kQuarantineEntries) {
      evicted.push_back(q.entries.front());
      q.bytes -= q.entries.front().bytes;
      q.entries.pop_front();
    }
  }
  for (const auto &e : evicted) release_reservation(e.start, e.bytes);
}

}  // namespace gpulabs_sim
