// The lab worker against a hostile submission (grader/selftest/hostile/reduction_hostile.c):
// each attack a student could write into a lab's file is tried from inside the worker, and each
// must fail without touching the test program: no forged verdict or metric in its output, no
// file written, no file outside the system's read, no process left behind, no signal, trace or read of the test program, no
// network. Runs on the CPU (the attacks need no GPU), on both backends.
#include <dirent.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "gltest.h"

extern "C" {
#include "reduction.h"
#include "worker/proxy.h"
}

namespace {

volatile sig_atomic_t usr1_seen = 0;
void OnUsr1(int) { usr1_seen = 1; }

class WorkerHostile : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/gpulabs-hostile-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
    // Writable by anyone, so that only the sandbox can stop a write (the worker may run as
    // another user when the tests run as root).
    chmod(dir_.c_str(), 0777);
    file_ = dir_ + "/written-by-the-worker";
    setenv("GPULABS_LAB_WORKER", HOSTILE_WORKER, 1);
    setenv("GPULABS_HOSTILE_FILE", file_.c_str(), 1);
    gl_worker_stop();
  }
  void TearDown() override {
    gl_worker_stop();
    unlink(file_.c_str());
    rmdir(dir_.c_str());
    unsetenv("GPULABS_HOSTILE");
    unsetenv("GPULABS_HOSTILE_HANDLES");
  }

  // Runs the attack in a fresh worker; what the test program printed meanwhile goes to *output.
  gl_status Attack(const char *name, std::string *output = nullptr, int64_t *d_sum = nullptr) {
    setenv("GPULABS_HOSTILE", name, 1);
    gl_worker_stop();
    std::string capture = dir_ + "/stdout";
    fflush(stdout);
    int saved = dup(1);
    int fd = open(capture.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 1);
    close(fd);
    gl_clear_error();
    gl_status status = reduce_sum_int(REDUCE_STEP_INTERLEAVED_DIVERGENT, nullptr, 0, 0, d_sum);
    message_ = gl_last_error();
    gl_worker_stop();  // its last words are forwarded now
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    std::ifstream in(capture);
    std::stringstream text;
    text << in.rdbuf();
    unlink(capture.c_str());
    if (output != nullptr) *output = text.str();
    return status;
  }

  bool FileWritten() const { return access(file_.c_str(), F_OK) == 0; }

  std::string dir_, file_, message_;
};

// Whether process `pid`'s environment holds `entry` (the test's own GPULABS_HOSTILE_FILE):
// CTest runs the other tests of this program, with workers of the same program, at once.
bool EnvironmentHolds(const char *pid, const std::string &entry) {
  std::ifstream in(std::string("/proc/") + pid + "/environ", std::ios::binary);
  std::string env((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return env.find(entry + '\0') != std::string::npos;  // each entry ends in a NUL
}

// Processes running the hostile worker's program started by this test (its environment names
// this test's file), other than through this test's own worker (stopped by now): what a process
// left behind by the lab's code would be.
int ProcessesOfTheWorker() {
  const char *file = getenv("GPULABS_HOSTILE_FILE");
  const std::string mine = std::string("GPULABS_HOSTILE_FILE=") + (file != nullptr ? file : "");
  char want[4096];
  if (realpath(HOSTILE_WORKER, want) == nullptr) return -1;
  int count = 0;
  for (int pass = 0; pass < 20; ++pass) {  // a child the worker just forked may still be exec'ing
    count = 0;
    std::unique_ptr<DIR, int (*)(DIR *)> proc(opendir("/proc"), closedir);
    if (!proc) return -1;
    while (struct dirent *e = readdir(proc.get())) {
      if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
      char exe[4096];
      std::string link = std::string("/proc/") + e->d_name + "/exe";
      ssize_t n = readlink(link.c_str(), exe, sizeof exe - 1);
      if (n <= 0) continue;
      exe[n] = '\0';
      if (strcmp(exe, want) == 0 && EnvironmentHolds(e->d_name, mine)) ++count;
    }
    if (count == 0) break;
    usleep(50000);
  }
  return count;
}

// True when a line of `text` starts with `prefix`: what a parser of the test's output would read.
bool SomeLineStartsWith(const std::string &text, const std::string &prefix) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.compare(0, prefix.size(), prefix) == 0) return true;
  }
  return false;
}

TEST_F(WorkerHostile, AForgedVerdictAndExitFailTheCall) {
  std::string out;
  EXPECT_EQ(Attack("forge-verdict", &out), GL_ERR_WORKER);
  EXPECT_NE(message_.find("exited with status 0"), std::string::npos) << message_;
  EXPECT_NE(message_.find("reduce_sum_int"), std::string::npos) << message_;
  // What it printed arrived, prefixed: no line of it reads as a verdict or a metric.
  EXPECT_NE(out.find("[lab worker] [       OK ] WorkerHostile.ForgedVerdict"), std::string::npos)
      << out;
  EXPECT_FALSE(SomeLineStartsWith(out, "[       OK ]")) << out;
  EXPECT_FALSE(SomeLineStartsWith(out, "[  PASSED  ]")) << out;
  EXPECT_FALSE(SomeLineStartsWith(out, "GPULABS_METRIC")) << out;
}

// The mailbox is the worker's memory too: an answer it shows before it has read the call (the
// last one again) must not end the call, which a timed call would take for a fast one.
TEST_F(WorkerHostile, AnAnswerWrittenAheadFailsTheCall) {
  setenv("GPULABS_HOSTILE", "answer-ahead", 1);
  gl_worker_stop();
  EXPECT_EQ(reduce_sum_int(REDUCE_STEP_INTERLEAVED_DIVERGENT, nullptr, 0, 0, nullptr), GL_OK)
      << gl_last_error();
  EXPECT_EQ(reduce_sum_int(REDUCE_STEP_INTERLEAVED_DIVERGENT, nullptr, 0, 0, nullptr),
            GL_ERR_WORKER);
  EXPECT_NE(std::string(gl_last_error()).find("answered before it had read the call"),
            std::string::npos) << gl_last_error();
  gl_worker_stop();
}

TEST_F(WorkerHostile, FileWritesAreRefused) {
  EXPECT_NE(Attack("write-file"), GL_OK) << "the worker wrote " << file_;
  EXPECT_FALSE(FileWritten());
}

TEST_F(WorkerHostile, FilesOutsideTheSystemAreNotRead) {
  const long abi = syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  if (abi < 1) GTEST_SKIP() << "this kernel has no Landlock: only permissions protect files";
  // A classmate's file, readable by anyone: only the sandbox can keep it from the worker.
  const std::string secret = dir_ + "/classmate.cu";
  {
    std::ofstream out(secret);
    out << "a classmate's kernel\n";
  }
  chmod(secret.c_str(), 0644);
  setenv("GPULABS_HOSTILE_SECRET", secret.c_str(), 1);
  std::string out;
  gl_status status = Attack("read-file", &out);
  unsetenv("GPULABS_HOSTILE_SECRET");
  unlink(secret.c_str());
  EXPECT_NE(status, GL_OK) << out;
  EXPECT_NE(message_.find("open(O_RDONLY) refused: Permission denied"), std::string::npos)
      << message_;
  EXPECT_EQ(out.find("a classmate's kernel"), std::string::npos) << out;
}

// Code that runs before main, wherever it is put: each attempt (a file written, a process
// started in a session of its own, another program run) is refused, because the launcher
// entered the sandbox before the worker's first instruction.
TEST_F(WorkerHostile, CodeBeforeMainRunsInsideTheSandbox) {
  for (const char *when : {"constructor", "constructor-100", "preinit", "ifunc"}) {
    SCOPED_TRACE(when);
    EXPECT_EQ(Attack(when), GL_ERR_INVALID_ARGUMENT) << message_;
    EXPECT_NE(message_.find(std::string(when) + " write: "), std::string::npos) << message_;
    EXPECT_NE(access("/tmp/gpulabs-hostile-exec", F_OK), 0) << "code before main ran a shell";
    EXPECT_FALSE(FileWritten()) << "code before main wrote " << file_;
    EXPECT_EQ(ProcessesOfTheWorker(), 0) << "code before main left a process behind";
  }
}

// After the worker's first constructor, not even the worker itself may be executed again.
TEST_F(WorkerHostile, NoProgramRunsFromACall) {
  EXPECT_NE(Attack("exec-self"), GL_OK);
  EXPECT_NE(message_.find("Operation not permitted"), std::string::npos) << message_;
}

TEST_F(WorkerHostile, NoProcessIsLeftBehind) {
  EXPECT_NE(Attack("fork"), GL_OK) << "the worker forked";
  EXPECT_NE(message_.find("fork refused"), std::string::npos) << message_;
  EXPECT_NE(Attack("exec"), GL_OK) << "the worker ran /bin/sh";
}

TEST_F(WorkerHostile, TheTestProgramCannotBeTracedOrRead) {
  EXPECT_NE(Attack("ptrace-parent"), GL_OK);
  EXPECT_NE(Attack("read-parent-memory"), GL_OK);
}

TEST_F(WorkerHostile, NoSignalReachesTheTestProgram) {
  const long abi = syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  if (abi < 6) GTEST_SKIP() << "Landlock ABI " << abi << " cannot scope signals (6 can)";
  struct sigaction action = {}, old = {};
  action.sa_handler = OnUsr1;
  sigaction(SIGUSR1, &action, &old);
  usr1_seen = 0;
  EXPECT_NE(Attack("signal-parent"), GL_OK);
  sigaction(SIGUSR1, &old, nullptr);
  EXPECT_EQ(usr1_seen, 0);
}

TEST_F(WorkerHostile, NoNetwork) { EXPECT_NE(Attack("network"), GL_OK); }

// What a sealed timing checks each call against lies in private buffers (gltest.h): handed to a
// lab call, by mistake or not, one reaches the worker only as an address it cannot write
// through. The shared buffer beside it is the control: the same attack does write there.
TEST_F(WorkerHostile, PrivateBuffersAreOutOfReach) {
  GL_SKIP_WITHOUT_GPU();
  int64_t poison;
  memset(&poison, GL_POISON_BYTE, sizeof poison);
  gl::DeviceBuffer<int64_t> shared(1), secret(1, gl::kPrivate);
  EXPECT_EQ(Attack("write-device", nullptr, shared.get()), GL_OK) << message_;
  EXPECT_EQ(shared.Download()[0], 42);
  Attack("write-device", nullptr, secret.get());
  EXPECT_EQ(secret.Download()[0], poison) << "the lab wrote into a private buffer";
}

// A GPU step whose answer is computed on the host (copied out, summed, copied back) fails, however
// right the answer: the worker counts the kernels each call launches. A call too small to need
// a kernel (one element) passes through.
TEST_F(WorkerHostile, AStepComputedOnTheHostFails) {
  GL_SKIP_WITHOUT_GPU();
  gl::DeviceBuffer<int> in(std::vector<int>(1000, 3));
  gl::DeviceBuffer<int64_t> sum(1);
  setenv("GPULABS_HOSTILE", "host-sum", 1);
  gl_worker_stop();
  gl_clear_error();
  EXPECT_EQ(reduce_sum_int(REDUCE_STEP_INTERLEAVED_DIVERGENT, in.get(), 1000, 256, sum.get()),
            GL_ERR_WORKER);
  EXPECT_NE(std::string(gl_last_error()).find("reduce_sum_int launched no kernel"),
            std::string::npos)
      << gl_last_error();
  EXPECT_EQ(reduce_sum_int(REDUCE_STEP_INTERLEAVED_DIVERGENT, in.get(), 1, 256, sum.get()), GL_OK)
      << gl_last_error();
  EXPECT_EQ(sum.Download()[0], 3);
}

// Private buffers stay out of reach only if the driver opens nothing that was never exported.
// The test program makes three allocations, exports the first and the third, and fills the
// second; the attack is given the two handles (a submission can find the ones the worker was
// handed in its own memory) and tries the handles between and around them. On the H100's
// driver 580 the handles differ in two bytes, one of them numbering the allocations, so the
// second's own handle is among those tried. Forged
// handles that land on the exported two open and are written through: the control.
TEST_F(WorkerHostile, ForgedHandlesOpenNothingUnexported) {
  GL_SKIP_WITHOUT_GPU();
  if (gl::OnCpuBackend()) {
    GTEST_SKIP() << "needs a GPU: the CPU backend shares memory by file descriptor, not CUDA IPC";
  }
  // Three allocations of their own, in this order (not the shim's slabs, which hold other
  // tests' buffers); freed however the test ends.
  const size_t bytes = (size_t)2 << 20;
  auto allocate = [bytes]() {
    void *p = nullptr;
    if (cudaMalloc(&p, bytes) != cudaSuccess) p = nullptr;
    return std::unique_ptr<void, cudaError_t (*)(void *)>(p, cudaFree);
  };
  auto first_memory = allocate(), secret_memory = allocate(), third_memory = allocate();
  void *first = first_memory.get(), *secret = secret_memory.get(), *third = third_memory.get();
  ASSERT_TRUE(first != nullptr && secret != nullptr && third != nullptr);
  ASSERT_EQ(cudaMemset(first, 0, bytes), cudaSuccess);
  ASSERT_EQ(cudaMemset(secret, GL_POISON_BYTE, bytes), cudaSuccess);
  ASSERT_EQ(cudaMemset(third, 0, bytes), cudaSuccess);
  cudaIpcMemHandle_t handles[2];
  ASSERT_EQ(cudaIpcGetMemHandle(&handles[0], first), cudaSuccess);
  ASSERT_EQ(cudaIpcGetMemHandle(&handles[1], third), cudaSuccess);
  std::string hex;
  for (const cudaIpcMemHandle_t &h : handles) {
    if (!hex.empty()) hex += ',';
    for (int i = 0; i < 64; ++i) {
      char two[3];
      snprintf(two, sizeof two, "%02x", (unsigned char)h.reserved[i]);
      hex += two;
    }
  }
  setenv("GPULABS_HOSTILE_HANDLES", hex.c_str(), 1);
  gl::DeviceBuffer<int64_t> sum(1);
  std::string out;
  EXPECT_EQ(Attack("forge-handles", &out, sum.get()), GL_OK) << message_ << out;
  int64_t head[2] = {0, 0};
  ASSERT_EQ(cudaMemcpy(&head[0], first, sizeof head[0], cudaMemcpyDeviceToHost), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(&head[1], third, sizeof head[1], cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_TRUE(head[0] == 42 || head[1] == 42) << "no forged handle reached the exported ones";
  std::vector<unsigned char> seen(bytes);
  ASSERT_EQ(cudaMemcpy(seen.data(), secret, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  size_t changed = 0;
  for (unsigned char byte : seen) changed += byte != (unsigned char)GL_POISON_BYTE;
  EXPECT_EQ(changed, 0u) << "a forged handle opened an allocation that was never exported: "
                         << out;
}

// A worker holds a quarter of the GPU's memory at most, whatever it asks for: a submission
// sharing the GPU with another (--gpus 0,0) cannot take the other's memory away.
TEST_F(WorkerHostile, GpuMemoryIsCapped) {
  GL_SKIP_WITHOUT_GPU();
  if (gl::OnCpuBackend()) {
    GTEST_SKIP() << "needs a GPU: on the CPU backend device memory is host memory, which "
                    "WorkerSandbox.LimitsMemory checks is capped";
  }
  EXPECT_NE(Attack("gpu-hog"), GL_OK) << message_;
  EXPECT_NE(message_.find("a quarter of the GPU"), std::string::npos) << message_;
}

TEST_F(WorkerHostile, ACrashFailsTheCallWithItsCause) {
  EXPECT_EQ(Attack("crash"), GL_ERR_WORKER);
  // Killed by SIGSEGV, or (under AddressSanitizer, the CPU backend's default) its report's exit.
  EXPECT_TRUE(message_.find("signal 11") != std::string::npos ||
              message_.find("exited with status") != std::string::npos)
      << message_;
}

TEST_F(WorkerHostile, AFloodOfOutputIsCut) {
  std::string out;
  EXPECT_EQ(Attack("flood", &out), GL_OK) << message_;
  EXPECT_LT(out.size(), (size_t)1200000);
  EXPECT_NE(out.find("more output dropped"), std::string::npos);
}

}  // namespace
