// Device memory shared with another process (gpulabs_sim_ipc_export/import/release): the way a
// trusted test program hands its buffers to a lab worker on the CPU backend. Simulator only,
// plain C++ (no kernels: imported memory is a pointer like any other to them).
//
// The processes are real: a forked child that gets the descriptor over a socketpair
// (SCM_RIGHTS), and this program re-executed as a worker (GPULABS_SIM_IPC_TEST_WORKER), which
// must see the one allocation it was given and nothing else of its parent's.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gpulabs_sim.h"
#include "sim_test.h"

namespace {

constexpr char kWorkerVariable[] = "GPULABS_SIM_IPC_TEST_WORKER";

// ---- descriptors over a Unix socket ------------------------------------------------------

// Sends `bytes` of `data` with `fd` attached (none when fd < 0).
bool SendWithFd(int sock, const void *data, size_t bytes, int fd) {
  struct iovec iov = {const_cast<void *>(data), bytes};
  struct msghdr msg = {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(struct cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  if (fd >= 0) {
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof(int));
  }
  return sendmsg(sock, &msg, MSG_NOSIGNAL) == (ssize_t)bytes;
}

// Receives exactly `bytes` into `data` and the descriptor sent with them (-1 if none).
bool ReceiveWithFd(int sock, void *data, size_t bytes, int *fd) {
  *fd = -1;
  struct iovec iov = {data, bytes};
  struct msghdr msg = {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(struct cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != (ssize_t)bytes) return false;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
      memcpy(fd, CMSG_DATA(c), sizeof(int));
  }
  return true;
}

// What the test program tells its worker along with the descriptor.
struct Handover {
  uint64_t size;             // of the allocation sent
  uint64_t other_exported;   // the parent's address of an exported allocation not sent
  uint64_t other_private;    // the parent's address of an allocation never exported
  unsigned char expect;      // the byte the sent allocation holds
  unsigned char write;       // the byte the worker writes over it
};

// Lines of /proc/self/maps, and entries of /proc/self/fd, naming the simulator's memory files.
int CountMemoryFileMappings() {
  FILE *f = fopen("/proc/self/maps", "r");
  if (f == nullptr) return -1;
  int n = 0;
  char line[4096];
  while (fgets(line, sizeof line, f) != nullptr)
    n += strstr(line, "memfd:gpulabs-device") != nullptr;
  fclose(f);
  return n;
}
int CountMemoryFileDescriptors() {
  DIR *d = opendir("/proc/self/fd");
  if (d == nullptr) return -1;
  int n = 0;
  while (struct dirent *e = readdir(d)) {
    char path[512], target[256];
    snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
    ssize_t len = readlink(path, target, sizeof target - 1);
    if (len <= 0) continue;
    target[len] = '\0';
    n += strstr(target, "memfd:gpulabs-device") != nullptr;
  }
  closedir(d);
  return n;
}
int CountDescriptors() {
  DIR *d = opendir("/proc/self/fd");
  if (d == nullptr) return -1;
  int n = 0;
  while (readdir(d) != nullptr) ++n;
  closedir(d);
  return n;
}

// ---- the worker: this program, re-executed ------------------------------------------------

// Exit codes of the worker: 0, or the step that failed (named on stderr).
int WorkerFails(int code, const char *what) {
  fprintf(stderr, "ipc worker: %s\n", what);
  return code;
}

int RunWorker(int sock) {
  Handover h;
  int fd = -1;
  if (!ReceiveWithFd(sock, &h, sizeof h, &fd) || fd < 0) return WorkerFails(10, "no handover");
  // Only the descriptor it was sent: the parent's memory files are close-on-exec.
  if (CountMemoryFileDescriptors() != 1) return WorkerFails(11, "inherited a memory file");
  if (CountMemoryFileMappings() != 0) return WorkerFails(12, "inherited a mapping");
  void *base = nullptr;
  if (gpulabs_sim_ipc_import(fd, h.size, &base) != cudaSuccess) return WorkerFails(13, "import");
  if (CountMemoryFileMappings() != 1) return WorkerFails(14, "not one mapping after import");
  std::vector<unsigned char> host(h.size);
  if (cudaMemcpy(host.data(), base, h.size, cudaMemcpyDeviceToHost) != cudaSuccess)
    return WorkerFails(15, "copy from the import");
  for (unsigned char b : host)
    if (b != h.expect) return WorkerFails(16, "the import does not hold the parent's bytes");
  // The parent's other buffers are nothing here, exported or not.
  unsigned char probe[8];
  if (cudaMemcpy(probe, (void *)(uintptr_t)h.other_exported, sizeof probe,
                 cudaMemcpyDeviceToHost) != cudaErrorInvalidValue ||
      cudaMemcpy(probe, (void *)(uintptr_t)h.other_private, sizeof probe,
                 cudaMemcpyDeviceToHost) != cudaErrorInvalidValue)
    return WorkerFails(17, "the parent's other pointers are accepted");
  int other_fd = 0;
  if (gpulabs_sim_ipc_export((void *)(uintptr_t)h.other_exported, &other_fd, nullptr, nullptr) !=
          cudaErrorInvalidValue ||
      other_fd != -1)
    return WorkerFails(18, "the parent's other allocation exports here");
  cudaGetLastError();
  if (cudaMemset(base, h.write, h.size) != cudaSuccess) return WorkerFails(19, "memset");
  if (cudaMemcpy(host.data(), (char *)base + 1, h.size, cudaMemcpyDeviceToHost) !=
      cudaErrorInvalidValue)
    return WorkerFails(20, "a copy past the end is accepted");
  cudaGetLastError();
  if (gpulabs_sim_ipc_release(base) != cudaSuccess) return WorkerFails(21, "release");
  if (CountMemoryFileMappings() != 0 || CountMemoryFileDescriptors() != 0)
    return WorkerFails(22, "release left the file mapped or open");
  char done = 'k';
  if (write(sock, &done, 1) != 1) return WorkerFails(23, "no reply");
  return 0;
}

// Runs before main (and before Google Test) when this program is started as the worker.
const bool kIsWorker = [] {
  const char *v = getenv(kWorkerVariable);
  if (v == nullptr) return false;
  _exit(RunWorker(atoi(v)));
}();

// ---- helpers for the test program ---------------------------------------------------------

std::vector<unsigned char> Download(const void *dev, size_t bytes) {
  std::vector<unsigned char> host(bytes);
  EXPECT_EQ(cudaSuccess, cudaMemcpy(host.data(), dev, bytes, cudaMemcpyDeviceToHost));
  return host;
}

bool AllAre(const std::vector<unsigned char> &v, unsigned char b) {
  for (unsigned char x : v)
    if (x != b) return false;
  return true;
}

// Waits for a child: its exit status, or 128 + the signal that ended it.
int Wait(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// ---- tests --------------------------------------------------------------------------------

TEST(Ipc, FreshMemoryIsGarbageAndPageAligned) {
  void *p = nullptr;
  ASSERT_EQ(cudaSuccess, cudaMalloc(&p, 1000));
  EXPECT_EQ(0u, reinterpret_cast<uintptr_t>(p) % (uintptr_t)sysconf(_SC_PAGESIZE));
  EXPECT_TRUE(AllAre(Download(p, 1000), 0xCB));
  // Exporting moves it onto a file at the same address with what it held.
  int fd = -1;
  void *base = nullptr;
  size_t size = 0;
  ASSERT_EQ(cudaSuccess, gpulabs_sim_ipc_export(p, &fd, &base, &size));
  EXPECT_EQ(p, base);
  EXPECT_EQ(1000u, size);
  EXPECT_TRUE(AllAre(Download(p, 1000), 0xCB));
  EXPECT_EQ(cudaSuccess, cudaFree(p));
}

TEST(Ipc, ExportNamesTheWholeAllocationAndItsFile) {
  char *p = nullptr;
  ASSERT_EQ(cudaSuccess, cudaMalloc(&p, 12345));
  int fd = -1, again = -1;
  void *base = nullptr;
  size_t size = 0;
  ASSERT_EQ(cudaSuccess, gpulabs_sim_ipc_export(p + 4321, &fd, &base, &size));
  EXPECT_EQ((void *)p, base);
  EXPECT_EQ(12345u, size);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(cudaSuccess, gpulabs_sim_ipc_export(p + 12344, &again, nullptr, nullptr));
  EXPECT_EQ(fd, again);  // one file per allocation, kept
  struct stat st;
  ASSERT_EQ(0, fstat(fd, &st));
  EXPECT_EQ(12345, st.st_size);
  EXPECT_TRUE(fcntl(fd, F_GETFD) & FD_CLOEXEC);  // an exec'd child inherits none
  const int seals = fcntl(fd, F_GET_SEALS);
  EXPECT_EQ(F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL,
            seals & (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL));
  EXPECT_NE(0, ftruncate(fd, 0));  // nobody can pull the memory from under a mapping
  EXPECT_EQ(cudaSuccess, cudaFree(p));
  EXPECT_EQ(-1, fcntl(fd, F_GETFD));  // cudaFree closed it
}

TEST(Ipc, ExportOfAnythingButDeviceMemoryFails) {
  int on_stack = 0;
  std::vector<int> on_heap(16);
  char *dev = nullptr;
  ASSERT_EQ(cudaSuccess, cudaMalloc(&dev, 64));
  char *freed = nullptr;
  ASSERT_EQ(cudaSuccess, cudaMalloc(&freed, 64));
  ASSERT_EQ(cudaSuccess, cudaFree(freed));
  const void *not_device[] = {&on_stack, on_heap.data(), nullptr, dev + 64, dev - 1, freed};
  for (const void *ptr : not_device) {
    int fd = 7;
    void *base = (void *)1;
    size_t size = 1;
    EXPECT_EQ(cudaErrorInvalidValue, gpulabs_sim_ipc_export(ptr, &fd, &base, &size)) << ptr;
    EXPECT_EQ(-1, fd);
    EXPECT_EQ(nullptr, base);
    EXPECT_EQ(0u, size);
  }
  EXPECT_EQ(cudaErrorInvalidValue, gpulabs_sim_ipc_export(dev, nullptr, nullptr, nullptr));
  // Not CUDA calls: a failed export leaves no error behind.
  EXPECT_EQ(cudaSuccess, cudaGetLastError());
  EXPECT_EQ(cudaSuccess, cudaFree(dev));
}

// An allocation that is never exported costs no descriptor.
TEST(Ipc, AllocationsHoldNoDescriptorUntilExported) {
  const int before = CountDescriptors();
  std::vector<void *> ptrs(2000);
  for (void *&p : ptrs) ASSERT_EQ(cudaSuccess, cudaMalloc(&p, 100));
  EXPECT_EQ(before, CountDescriptors());
  EXPECT_EQ(0, CountMemoryFileMappings());
  for (void *p : ptrs) ASSERT_EQ(cudaSuccess, cudaFree(p));
}

TEST(Ipc, ImportIsDeviceMemoryWithItsOwnBounds) {
  char *p = nullptr;
  const size_t n = 5000;
  ASSERT_EQ(cudaSuccess, cudaMalloc(&p, n));
  ASSERT_EQ(cudaSuccess, cudaMemset(p, 0x11, n));
  int fd = -1;
  ASSERT_EQ(cudaSuccess, gpulabs_sim_ipc_export(p, &fd, nullptr, nullptr));
  void *base = nullptr;
  ASSERT_EQ(cudaSuccess, gpulabs_sim_ipc_import(dup(fd), n, &base));
  ASSERT_NE(nullptr, base);
  EXPECT_NE((void *)p, base);  // a mapping of its own
  char *q = static_cast<char *>(base);
  EXPECT_TRUE(AllAre(Download(q, n), 0x11));
  // The same memory: a write on either side shows on the other.
  ASSERT_EQ(cudaSuccess, cudaMemset(q + 100, 0x22, 10));
  EXPECT_EQ(0x22, Download(p + 105, 1)[0]);
  p[7] = 0x33;
  EXPECT_EQ(0x33, Download(q + 7, 1)[0]);
  // Copies are checked against the import's bounds.
  unsigned char host[16] = {};
  EXPECT_EQ(cudaSuccess, cudaMemcpy(q + n - 16, host, 16, cudaMemcpyHostToDevice));
  EXPECT_EQ(cudaSuccess, cudaMemcpy(q, p, n, cudaMemcpyDeviceToDevice));
  EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpy(q + n - 8, host, 16, cudaMemcpyHostToDevice));
  EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpy(host, q + n, 1, cudaMemcpyDeviceToHost));
  EXPECT_EQ(cudaErrorInvalidValue, cudaMemset(q, 0, n + 1));
  EXPECT_EQ(cudaErrorInvalidValue, cudaGetLastError());
  // It exports too (the same file), e.g. to hand it on.
  int fd2 = -1;
  void *base2 = nullptr;
  size_t size2 = 0;
  ASSERT_EQ(cudaSuccess, gpulabs_sim_ipc_export(q + 9, &fd2, &base2, &size2));
  EXPECT_EQ(base, base2);
  EXPECT_EQ(n, size2);
  // Released, it is no device memory; releasing twice, or what cudaMalloc gave, fails.
  EXPECT_EQ(cudaSuccess, gpulabs_sim_ipc_release(base));
  EXPECT_EQ(-1, fcntl(fd2, F_GETFD));
  EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpy(host, q, 1, cudaMemcpyDeviceToHost));
  EXPECT_EQ(cudaErrorInvalidValue, gpulabs_sim_ipc_release(base));
  EXPECT_EQ(cudaErrorInvalidValue, gpulabs_sim_ipc_release(p));
  EXPECT_EQ(0x33, Download(p + 7, 1)[0]);  // the original is untouched by all that
  // cudaFree releases an import as well; a smaller size maps a prefix.
  ASSERT_EQ(cudaSuccess, gpulabs_sim_ipc_import(dup(fd), 100, &base));
  EXPECT_EQ(cudaSuccess, cudaMemcpy(host, base, 16, cudaMemcpyDeviceToHost));
  EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpy(host, (char *)base + 90, 16, cudaMemcpyDeviceToHost));
  EXPECT_EQ(cudaSuccess, cudaFree(base));
  EXPECT_EQ(cudaSuccess, cudaFree(p));
  cudaGetLastError();
}

TEST(Ipc, ImportRefusesWhatItCannotMapSafely) {
  void *base = (void *)1;
  EXPECT_EQ(cudaErrorInvalidValue, gpulabs_sim_ipc_import(-1, 100, &base));
  EXPECT_EQ(nullptr, base);
  char *p = nullptr;
  ASSERT_EQ(cudaSuccess, cudaMalloc(&p, 4096));
  int fd = -1;
  ASSERT_EQ(cudaSuccess, gpulabs_sim_ipc_export(p, &fd, nullptr, nullptr));
  // More than the file holds (the rest would fault), or nothing.
  int mine = dup(fd);
  EXPECT_EQ(cudaErrorInvalidValue, gpulabs_sim_ipc_import(mine, 4097, &base));
  EXPECT_EQ(-1, fcntl(mine, F_GETFD));  // taken over even when refused
  EXPECT_EQ(cudaErrorInvalidValue, gpulabs_sim_ipc_import(dup(fd), 0, &base));
  // Not a file.
  int pipe_fds[2];
  ASSERT_EQ(0, pipe(pipe_fds));
  close(pipe_fds[1]);
  EXPECT_EQ(cudaErrorInvalidValue, gpulabs_sim_ipc_import(pipe_fds[0], 16, &base));
  // A file its sender could still shrink (here: one that does not allow seals).
  int unsealable = memfd_create("not-sealable", MFD_CLOEXEC);
  ASSERT_GE(unsealable, 0);
  ASSERT_EQ(0, ftruncate(unsealable, 4096));
  EXPECT_EQ(cudaErrorInvalidValue, gpulabs_sim_ipc_import(unsealable, 4096, &base));
  EXPECT_EQ(nullptr, base);
  // A sealable one is sealed against shrinking by the import, then mapped.
  int sealable = memfd_create("sealable", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  ASSERT_GE(sealable, 0);
  ASSERT_EQ(0, ftruncate(sealable, 4096));
  int watch = dup(sealable);
  ASSERT_EQ(cudaSuccess, gpulabs_sim_ipc_import(sealable, 4096, &base));
  EXPECT_TRUE(fcntl(watch, F_GET_SEALS) & F_SEAL_SHRINK);
  EXPECT_NE(0, ftruncate(watch, 0));
  close(watch);
  EXPECT_EQ(cudaSuccess, gpulabs_sim_ipc_release(base));
  EXPECT_EQ(cudaSuccess, cudaFree(p));
  cudaGetLastError();
}

// The test program's side of a worker: it allocates, exports and sends; a forked child takes
// the descriptor from the socket, imports it, reads and writes through the runtime, and exits.
TEST(Ipc, ForkedChildWritesThroughTheImportedFile) {
  const size_t n = 3 * 4096 + 17;
  char *shared = nullptr, *kept = nullptr;
  ASSERT_EQ(cudaSuccess, cudaMalloc(&shared, n));
  ASSERT_EQ(cudaSuccess, cudaMalloc(&kept, n));
  ASSERT_EQ(cudaSuccess, cudaMemset(shared, 0x5A, n));
  ASSERT_EQ(cudaSuccess, cudaMemset(kept, 0x77, n));
  int fd = -1;
  size_t size = 0;
  ASSERT_EQ(cudaSuccess, gpulabs_sim_ipc_export(shared, &fd, nullptr, &size));
  int sv[2];
  ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
  fflush(nullptr);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(sv[0]);
    uint64_t got_size = 0;
    int got_fd = -1;
    if (!ReceiveWithFd(sv[1], &got_size, sizeof got_size, &got_fd) || got_fd < 0) _exit(10);
    void *base = nullptr;
    if (gpulabs_sim_ipc_import(got_fd, got_size, &base) != cudaSuccess) _exit(11);
    std::vector<unsigned char> host(got_size);
    if (cudaMemcpy(host.data(), base, got_size, cudaMemcpyDeviceToHost) != cudaSuccess) _exit(12);
    if (!AllAre(host, 0x5A)) _exit(13);
    for (size_t i = 0; i < got_size; ++i) host[i] = (unsigned char)(i * 7);
    if (cudaMemcpy(base, host.data(), got_size, cudaMemcpyHostToDevice) != cudaSuccess) _exit(14);
    if (cudaMemset((char *)base + 4096, 0xEE, 100) != cudaSuccess) _exit(15);
    if (cudaMemcpy(base, host.data(), got_size + 1, cudaMemcpyHostToDevice) !=
        cudaErrorInvalidValue)
      _exit(16);
    // What it was not sent it has only as a fork's private copy: writes stay here.
    if (cudaMemset(kept, 0x00, n) != cudaSuccess) _exit(17);
    if (gpulabs_sim_ipc_release(base) != cudaSuccess) _exit(18);
    _exit(0);
  }
  close(sv[1]);
  const uint64_t size64 = size;
  ASSERT_TRUE(SendWithFd(sv[0], &size64, sizeof size64, fd));
  close(sv[0]);
  ASSERT_EQ(0, Wait(pid));
  std::vector<unsigned char> seen = Download(shared, n);
  size_t wrong = 0;
  for (size_t i = 0; i < n; ++i) {
    const unsigned char want = i >= 4096 && i < 4196 ? 0xEE : (unsigned char)(i * 7);
    wrong += seen[i] != want;
  }
  EXPECT_EQ(0u, wrong);
  EXPECT_TRUE(AllAre(Download(kept, n), 0x77));
  EXPECT_EQ(cudaSuccess, cudaFree(shared));
  EXPECT_EQ(cudaSuccess, cudaFree(kept));
}

// A worker started with exec (as the lab worker is) has exactly what it was sent: the parent's
// other memory files are close-on-exec and its mappings are gone, so its other buffers are no
// device memory there, exported or not (RunWorker checks).
TEST(Ipc, ExecutedWorkerSeesOnlyTheAllocationItWasGiven) {
  const size_t n = 70000;
  char *given = nullptr, *exported = nullptr, *private_ = nullptr;
  ASSERT_EQ(cudaSuccess, cudaMalloc(&given, n));
  ASSERT_EQ(cudaSuccess, cudaMalloc(&exported, n));
  ASSERT_EQ(cudaSuccess, cudaMalloc(&private_, n));
  ASSERT_EQ(cudaSuccess, cudaMemset(given, 0x3C, n));
  int fd = -1, other_fd = -1;
  ASSERT_EQ(cudaSuccess, gpulabs_sim_ipc_export(given, &fd, nullptr, nullptr));
  ASSERT_EQ(cudaSuccess, gpulabs_sim_ipc_export(exported, &other_fd, nullptr, nullptr));
  int sv[2];
  ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
  const std::string setting = std::string(kWorkerVariable) + "=" + std::to_string(sv[1]);
  std::vector<char *> env;
  for (char **e = environ; *e != nullptr; ++e)
    if (strncmp(*e, kWorkerVariable, sizeof kWorkerVariable - 1) != 0) env.push_back(*e);
  env.push_back(const_cast<char *>(setting.c_str()));
  env.push_back(nullptr);
  char arg0[] = "ipc_worker";
  char *argv[] = {arg0, nullptr};
  fflush(nullptr);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    fcntl(sv[1], F_SETFD, 0);  // the worker's end survives exec; nothing else of ours does
    execve("/proc/self/exe", argv, env.data());
    _exit(127);
  }
  close(sv[1]);
  Handover h = {n, reinterpret_cast<uintptr_t>(exported), reinterpret_cast<uintptr_t>(private_),
                0x3C, 0xA5};
  ASSERT_TRUE(SendWithFd(sv[0], &h, sizeof h, fd));
  char reply = 0;
  EXPECT_EQ(1, read(sv[0], &reply, 1));
  close(sv[0]);
  ASSERT_EQ(0, Wait(pid)) << "the worker's exit code names the step that failed (stderr)";
  EXPECT_TRUE(AllAre(Download(given, n), 0xA5));
  EXPECT_EQ(cudaSuccess, cudaFree(given));
  EXPECT_EQ(cudaSuccess, cudaFree(exported));
  EXPECT_EQ(cudaSuccess, cudaFree(private_));
}

// The lab worker runs under RLIMIT_FSIZE 0: it can still allocate, and an export there fails
// cleanly instead of raising SIGXFSZ.
TEST(Ipc, AllocationAndExportUnderAFileSizeLimit) {
  fflush(nullptr);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    struct rlimit none = {0, 0};
    if (setrlimit(RLIMIT_FSIZE, &none) != 0) _exit(10);
    void *p = nullptr;
    if (cudaMalloc(&p, 100000) != cudaSuccess) _exit(11);
    if (cudaMemset(p, 1, 100000) != cudaSuccess) _exit(12);
    int fd = 0;
    if (gpulabs_sim_ipc_export(p, &fd, nullptr, nullptr) != cudaErrorMemoryAllocation) _exit(13);
    if (fd != -1) _exit(14);
    if (cudaMemset(p, 2, 100000) != cudaSuccess) _exit(15);
    if (cudaFree(p) != cudaSuccess) _exit(16);
    _exit(0);
  }
  EXPECT_EQ(0, Wait(pid));
}

TEST(Ipc, CudaIpcHandlesPointToTheDescriptorCalls) {
  void *p = nullptr;
  ASSERT_EQ(cudaSuccess, cudaMalloc(&p, 256));
  cudaIpcMemHandle_t handle;
  EXPECT_EQ(cudaErrorNotSupported, cudaIpcGetMemHandle(&handle, p));
  void *opened = (void *)1;
  EXPECT_EQ(cudaErrorNotSupported,
            cudaIpcOpenMemHandle(&opened, handle, cudaIpcMemLazyEnablePeerAccess));
  EXPECT_EQ(nullptr, opened);
  EXPECT_EQ(cudaErrorNotSupported, cudaGetLastError());
  // Closing works on what the descriptor calls opened.
  int fd = -1;
  ASSERT_EQ(cudaSuccess, gpulabs_sim_ipc_export(p, &fd, nullptr, nullptr));
  void *base = nullptr;
  ASSERT_EQ(cudaSuccess, gpulabs_sim_ipc_import(dup(fd), 256, &base));
  EXPECT_EQ(cudaSuccess, cudaIpcCloseMemHandle(base));
  EXPECT_EQ(cudaErrorInvalidValue, cudaIpcCloseMemHandle(base));
  EXPECT_EQ(cudaErrorInvalidValue, cudaGetLastError());
  EXPECT_EQ(cudaSuccess, cudaFree(p));
}

TEST(Ipc, DeviceResetUnmapsEverything) {
  void *a = nullptr, *b = nullptr;
  ASSERT_EQ(cudaSuccess, cudaMalloc(&a, 1000));
  int fd = -1;
  ASSERT_EQ(cudaSuccess, gpulabs_sim_ipc_export(a, &fd, nullptr, nullptr));
  ASSERT_EQ(cudaSuccess, gpulabs_sim_ipc_import(dup(fd), 1000, &b));
  ASSERT_EQ(cudaSuccess, cudaDeviceReset());
  EXPECT_EQ(-1, fcntl(fd, F_GETFD));
  EXPECT_EQ(0, CountMemoryFileDescriptors());
  EXPECT_EQ(0, CountMemoryFileMappings());
  unsigned char host[4];
  EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpy(host, a, 4, cudaMemcpyDeviceToHost));
  EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpy(host, b, 4, cudaMemcpyDeviceToHost));
  cudaGetLastError();
}

// Many allocations and frees go through the quarantine of freed address ranges without using
// up the address space or the mappings.
TEST(Ipc, ManyAllocationsComeAndGo) {
  for (int round = 0; round < 3000; ++round) {
    void *p = nullptr;
    ASSERT_EQ(cudaSuccess, cudaMalloc(&p, 1 + (size_t)round * 37 % 200000));
    ASSERT_EQ(cudaSuccess, cudaFree(p));
  }
  void *big = nullptr;  // larger than the quarantine: unmapped at once
  ASSERT_EQ(cudaSuccess, cudaMalloc(&big, (size_t)300 << 20));
  ASSERT_EQ(cudaSuccess, cudaMemset(big, 0, 4096));
  ASSERT_EQ(cudaSuccess, cudaFree(big));
}

#ifdef SIM_TEST_ASAN
// Accesses outside an allocation, or after it is gone, are named as on heap memory.
TEST(IpcDeathTest, AccessPastAnImportIsAHeapBufferOverflow) {
  ::testing::FLAGS_gtest_death_test_style = "threadsafe";
  EXPECT_DEATH(
      {
        char *p = nullptr;
        cudaMalloc(&p, 100);
        int fd = -1;
        gpulabs_sim_ipc_export(p, &fd, nullptr, nullptr);
        void *base = nullptr;
        gpulabs_sim_ipc_import(dup(fd), 100, &base);
        static_cast<volatile char *>(base)[100] = 1;
      },
      "heap-buffer-overflow");
  EXPECT_DEATH(
      {
        char *p = nullptr;
        cudaMalloc(&p, 64);
        static_cast<volatile char *>(p)[-1] = 1;
      },
      "heap-buffer-overflow");
}

TEST(IpcDeathTest, AccessAfterFreeIsAHeapUseAfterFree) {
  ::testing::FLAGS_gtest_death_test_style = "threadsafe";
  EXPECT_DEATH(
      {
        char *p = nullptr;
        cudaMalloc(&p, 64);
        cudaFree(p);
        static_cast<volatile char *>(p)[3] = 1;
      },
      "heap-use-after-free");
}
#endif

}  // namespace
