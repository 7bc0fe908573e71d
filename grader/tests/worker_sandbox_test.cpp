// The lab worker's sandbox (grader/worker/sandbox/): each test forks a child that enters the
// sandbox and tries something; the child reports through its exit status, and says why through
// a pipe it inherited (which is itself something the sandbox must leave working). Safe to run
// as root (the child drops to uid 65534) or as a normal user; layers the kernel lacks are
// skipped, saying so.
#include "sandbox.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

extern char **environ;

namespace {

// The child's exit codes.
constexpr int kPass = 0;
constexpr int kFail = 1;
constexpr int kSkip = 77;
constexpr int kEnterFailed = 99;

int g_log_fd = -1;         // in the child: the pipe to the parent
char g_layers[1024] = "";  // in the child: what gl_sandbox_enter reported

void Log(const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  ssize_t ignored = write(g_log_fd, buf, strlen(buf));
  (void)ignored;
}

// In the child: a condition that must hold, or a call that must fail with a given errno.
#define CHILD_EXPECT(cond)                                                                  \
  do {                                                                                      \
    if (!(cond)) {                                                                          \
      int e_ = errno;                                                                       \
      Log("%s:%d: expected %s (errno %d: %s)\n", __FILE__, __LINE__, #cond, e_, strerror(e_)); \
      return kFail;                                                                         \
    }                                                                                       \
  } while (0)
#define CHILD_EXPECT_ERRNO(call, err)                                                       \
  do {                                                                                      \
    errno = 0;                                                                              \
    long r_ = (long)(call);                                                                 \
    int e_ = errno;                                                                         \
    if (r_ != -1 || e_ != (err)) {                                                          \
      Log("%s:%d: %s returned %ld (errno %d: %s), expected -1 with " #err "\n", __FILE__,   \
          __LINE__, #call, r_, e_, strerror(e_));                                           \
      return kFail;                                                                         \
    }                                                                                       \
  } while (0)

// In the child: skip unless seccomp took effect (a kernel without seccomp filters).
#define CHILD_NEEDS_SECCOMP()                                                               \
  do {                                                                                      \
    if (strstr(g_layers, "seccomp (") == nullptr) {                                         \
      Log("seccomp did not take effect here: %s\n", g_layers);                              \
      return kSkip;                                                                         \
    }                                                                                       \
  } while (0)

struct Outcome {
  int status = -1;
  std::string log;
};

std::string Describe(int status) {
  char text[96];
  if (WIFEXITED(status)) {
    snprintf(text, sizeof text, "the child exited with %d", WEXITSTATUS(status));
  } else if (WIFSIGNALED(status)) {
    snprintf(text, sizeof text, "the child was killed by signal %d (%s)", WTERMSIG(status),
             strsignal(WTERMSIG(status)));
  } else {
    snprintf(text, sizeof text, "the child's wait status was 0x%x", (unsigned)status);
  }
  return text;
}

// Runs `body` in a forked child; its return value is the child's exit code.
Outcome RunChild(const std::function<int()> &body) {
  Outcome out;
  int fds[2];
  if (pipe(fds) != 0) {
    out.log = std::string("pipe: ") + strerror(errno);
    return out;
  }
  fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    out.log = std::string("fork: ") + strerror(errno);
    close(fds[0]);
    close(fds[1]);
    return out;
  }
  if (pid == 0) {
    close(fds[0]);
    g_log_fd = fds[1];
    _exit(body());
  }
  close(fds[1]);
  char buf[4096];
  for (;;) {
    ssize_t n = read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.log.append(buf, (size_t)n);
  }
  close(fds[0]);
  while (waitpid(pid, &out.status, 0) < 0 && errno == EINTR) {
  }
  return out;
}

// Runs `before` (unsandboxed), enters the sandbox, then runs `body`, in a forked child.
Outcome RunSandboxed(const gl_sandbox_limits *limits, const std::function<int()> &body,
                     const std::function<int()> &before = nullptr) {
  return RunChild([&]() {
    if (before) {
      int rc = before();
      if (rc != kPass) return rc;
    }
    if (gl_sandbox_enter(limits, g_layers, sizeof g_layers) != 0) {
      Log("gl_sandbox_enter failed: %s\n", g_layers);
      return kEnterFailed;
    }
    return body();
  });
}

#define EXPECT_CHILD_PASSED(outcome)                                                        \
  do {                                                                                      \
    const Outcome &o_ = (outcome);                                                          \
    if (WIFEXITED(o_.status) && WEXITSTATUS(o_.status) == kSkip) GTEST_SKIP() << o_.log;    \
    ASSERT_TRUE(WIFEXITED(o_.status) && WEXITSTATUS(o_.status) == kPass)                    \
        << Describe(o_.status) << "\n"                                                      \
        << o_.log;                                                                          \
  } while (0)

int LandlockAbi() {
#ifdef SYS_landlock_create_ruleset
  long abi = syscall(SYS_landlock_create_ruleset, nullptr, 0, 1U);
#else
  long abi = syscall(444, nullptr, 0, 1U);
#endif
  return abi < 0 ? 0 : (int)abi;
}

bool IsRoot() { return getuid() == 0 || geteuid() == 0; }

// A folder and files anyone may write (0777, 0666): what stops the sandboxed child is then the
// sandbox, not the permissions of a uid it no longer has.
class TempDir {
 public:
  TempDir() {
    const char *tmp = getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr && tmp[0] != '\0' ? tmp : "/tmp") +
                          "/gpulabs-sandbox-XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data()) != nullptr) {
      path_ = buf.data();
      chmod(path_.c_str(), 0777);
    }
  }
  ~TempDir() { Remove(path_); }
  bool ok() const { return !path_.empty(); }
  const std::string &path() const { return path_; }
  std::string File(const char *name) const { return path_ + "/" + name; }
  bool Write(const char *name, const std::string &text) const {
    FILE *f = fopen(File(name).c_str(), "w");
    if (f == nullptr) return false;
    fwrite(text.data(), 1, text.size(), f);
    fclose(f);
    return chmod(File(name).c_str(), 0666) == 0;
  }
  std::string Read(const char *name) const {
    std::string text;
    FILE *f = fopen(File(name).c_str(), "r");
    if (f == nullptr) return "(missing)";
    char buf[256];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
    fclose(f);
    return text;
  }
  int Entries() const {
    int count = 0;
    if (DIR *d = opendir(path_.c_str())) {
      while (struct dirent *e = readdir(d)) {
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) count++;
      }
      closedir(d);
    }
    return count;
  }

 private:
  static void Remove(const std::string &path) {
    if (path.empty()) return;
    if (DIR *d = opendir(path.c_str())) {
      while (struct dirent *e = readdir(d)) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        std::string child = path + "/" + e->d_name;
        struct stat st;
        if (lstat(child.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
          Remove(child);
        } else {
          unlink(child.c_str());
        }
      }
      closedir(d);
    }
    rmdir(path.c_str());
  }
  std::string path_;
};

TEST(WorkerSandbox, ReportsEveryLayer) {
  gl_sandbox_limits limits = {60, (size_t)8 << 30, nullptr, nullptr, nullptr, -1};
  Outcome o = RunSandboxed(&limits, [] {
    Log("%s", g_layers);
    return kPass;
  });
  EXPECT_CHILD_PASSED(o);
  printf("[ sandbox  ] layers: %s\n", o.log.c_str());
  EXPECT_EQ(o.log.find("FAILED"), std::string::npos) << o.log;
  EXPECT_NE(o.log.find("no_new_privs"), std::string::npos) << o.log;
  EXPECT_NE(o.log.find("pdeathsig SIGKILL"), std::string::npos) << o.log;
  EXPECT_NE(o.log.find("rlimits (cpu 60 s, fsize 0, core 0, data 8 GiB beyond the "),
            std::string::npos)
      << o.log;
  if (IsRoot()) {
    EXPECT_NE(o.log.find("uid 65534 gid 65534 (root dropped)"), std::string::npos) << o.log;
  } else {
    EXPECT_NE(o.log.find("kept (not root)"), std::string::npos) << o.log;
  }
  const int abi = LandlockAbi();
  if (abi > 0) {
    EXPECT_NE(o.log.find("landlock abi " + std::to_string(abi) + " (reads the system's paths and "),
              std::string::npos)
        << o.log;
    if (abi >= 4) {
      EXPECT_NE(o.log.find("tcp denied"), std::string::npos) << o.log;
    }
    if (abi >= 6) {
      EXPECT_NE(o.log.find("signals and abstract sockets scoped"), std::string::npos) << o.log;
    }
  } else {
    EXPECT_NE(o.log.find("landlock skipped"), std::string::npos) << o.log;
  }
  EXPECT_NE(o.log.find("seccomp"), std::string::npos) << o.log;
}

TEST(WorkerSandbox, AcceptsNoLimitsAndNoReport) {
  EXPECT_CHILD_PASSED(RunChild([] {
    CHILD_EXPECT(gl_sandbox_enter(nullptr, nullptr, 0) == 0);
    CHILD_EXPECT(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1);
    return kPass;
  }));
}

TEST(WorkerSandbox, ReadsFilesAndTalksOverInheritedDescriptors) {
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  ASSERT_TRUE(dir.Write("input.txt", "sandbox input"));
  // The worker's channel to its parent: a socketpair made before it starts.
  int channel[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, channel), 0);
  const std::string input = dir.File("input.txt");
  const char *readable[] = {dir.path().c_str(), nullptr};
  gl_sandbox_limits limits = {0, 0, nullptr, readable, nullptr, -1};
  Outcome o = RunSandboxed(&limits, [&] {
    close(channel[0]);
    char buf[64] = "";
    int fd = open(input.c_str(), O_RDONLY | O_CLOEXEC);
    CHILD_EXPECT(fd >= 0);
    CHILD_EXPECT(read(fd, buf, sizeof buf - 1) == 13);
    close(fd);
    CHILD_EXPECT(strcmp(buf, "sandbox input") == 0);
    std::string reply = std::string("read: ") + buf;
    CHILD_EXPECT(write(channel[1], reply.data(), reply.size()) == (ssize_t)reply.size());
    // The nodes every process (and CUDA) uses.
    int null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    CHILD_EXPECT(null_fd >= 0);
    CHILD_EXPECT(write(null_fd, "x", 1) == 1);
    close(null_fd);
    int zero_fd = open("/dev/zero", O_RDWR | O_CLOEXEC);
    CHILD_EXPECT(zero_fd >= 0);
    CHILD_EXPECT(read(zero_fd, buf, 8) == 8 && buf[0] == 0);
    close(zero_fd);
    CHILD_EXPECT(access("/proc/self/status", R_OK) == 0);
    return kPass;
  });
  close(channel[1]);
  char got[64] = "";
  ssize_t n = read(channel[0], got, sizeof got - 1);
  close(channel[0]);
  EXPECT_CHILD_PASSED(o);
  ASSERT_GT(n, 0);
  EXPECT_STREQ(got, "read: sandbox input");
}

// A classmate's submission, the batch's grades, the instructor's files: none is readable.
TEST(WorkerSandbox, ReadsOnlyTheSystemItsProgramAndLibrariesAndWhatItIsGiven) {
  const int abi = LandlockAbi();
  if (abi == 0) GTEST_SKIP() << "this kernel has no Landlock: only permissions protect files";
  TempDir hidden, given, library;
  ASSERT_TRUE(hidden.ok() && given.ok() && library.ok());
  ASSERT_TRUE(hidden.Write("classmate.cu", "someone else's kernel"));
  ASSERT_TRUE(given.Write("allowed.txt", "allowed"));
  ASSERT_TRUE(library.Write("libcuda.so.1", "a library loaded later"));
  TempDir tool;
  ASSERT_TRUE(tool.ok() && tool.Write("libinjection.so", "a tool's injection library"));
  const std::string injection = tool.File("libinjection.so");
  const std::string secret = hidden.File("classmate.cu"), folder = hidden.path();
  const std::string allowed = given.File("allowed.txt"), lib = library.File("libcuda.so.1");
  // A cluster's CUDA: a folder of LD_LIBRARY_PATH, after one of the system's and an empty one.
  const std::string lib_path = "/usr/local/nvidia/lib64::" + library.path();
  char self[4096];
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  ASSERT_GT(len, 0);
  self[len] = '\0';
  const std::string program = self;
  const std::string program_folder = program.substr(0, program.rfind('/'));
  const char *readable[] = {given.path().c_str(), nullptr};
  gl_sandbox_limits limits = {0, 0, nullptr, readable, nullptr, -1};
  Outcome o = RunSandboxed(&limits, [&] {
    CHILD_EXPECT_ERRNO(open(secret.c_str(), O_RDONLY | O_CLOEXEC), EACCES);
    CHILD_EXPECT_ERRNO(open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC), EACCES);
    // Through /proc the file is still the file: Landlock checks where the path leads.
    std::string via_root = "/proc/self/root" + secret;
    CHILD_EXPECT_ERRNO(open(via_root.c_str(), O_RDONLY | O_CLOEXEC), EACCES);
    int fd = open(allowed.c_str(), O_RDONLY | O_CLOEXEC);
    CHILD_EXPECT(fd >= 0);
    close(fd);
    // The system's files, and its own program, but not the program's folder (a batch's build
    // tree).
    CHILD_EXPECT(access("/etc/passwd", R_OK) == 0 || errno == ENOENT);
    CHILD_EXPECT(opendir("/usr") != nullptr);
    fd = open(program.c_str(), O_RDONLY | O_CLOEXEC);
    CHILD_EXPECT(fd >= 0);
    close(fd);
    CHILD_EXPECT_ERRNO(open(program_folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC), EACCES);
    fd = open(lib.c_str(), O_RDONLY | O_CLOEXEC);
    CHILD_EXPECT(fd >= 0);
    close(fd);
    fd = open(injection.c_str(), O_RDONLY | O_CLOEXEC);
    CHILD_EXPECT(fd >= 0);
    close(fd);
    return kPass;
  }, [&] {
    return setenv("LD_LIBRARY_PATH", lib_path.c_str(), 1) == 0 &&
                   setenv("CUDA_INJECTION64_PATH", injection.c_str(), 1) == 0
               ? kPass
               : kEnterFailed;
  });
  EXPECT_CHILD_PASSED(o);
}

TEST(WorkerSandbox, NoFileCanBeCreatedOrOpenedForWriting) {
  const int abi = LandlockAbi();
  if (abi == 0) GTEST_SKIP() << "this kernel has no Landlock: only permissions protect files";
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  ASSERT_TRUE(dir.Write("existing.txt", "original"));
  const std::string existing = dir.File("existing.txt");
  const std::string fresh = dir.File("new.txt");
  const std::string sub = dir.File("sub");
  const std::string link = dir.File("link");
  const std::string renamed = dir.File("renamed.txt");
  const char *readable[] = {dir.path().c_str(), nullptr};
  gl_sandbox_limits limits = {0, 0, nullptr, readable, nullptr, -1};
  Outcome o = RunSandboxed(&limits, [&] {
    CHILD_EXPECT_ERRNO(open(fresh.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0666), EACCES);
    CHILD_EXPECT_ERRNO(open(existing.c_str(), O_WRONLY | O_CLOEXEC), EACCES);
    CHILD_EXPECT_ERRNO(open(existing.c_str(), O_RDWR | O_APPEND | O_CLOEXEC), EACCES);
    // (EACCES from Landlock, or EPERM from seccomp, which refuses these calls first.)
    CHILD_EXPECT(mkdir(sub.c_str(), 0777) == -1);
    CHILD_EXPECT(symlink(existing.c_str(), link.c_str()) == -1);
    CHILD_EXPECT(unlink(existing.c_str()) == -1);
    CHILD_EXPECT(rename(existing.c_str(), renamed.c_str()) == -1);
    if (abi >= 3) CHILD_EXPECT(truncate(existing.c_str(), 0) == -1);
    // Reading is fine; reopening a read-only descriptor for writing through /proc (writable
    // itself) is not: Landlock checks the file it leads to.
    int fd = open(existing.c_str(), O_RDONLY | O_CLOEXEC);
    CHILD_EXPECT(fd >= 0);
    char proc_path[64];
    snprintf(proc_path, sizeof proc_path, "/proc/self/fd/%d", fd);
    CHILD_EXPECT_ERRNO(open(proc_path, O_WRONLY | O_CLOEXEC), EACCES);
    close(fd);
    return kPass;
  });
  EXPECT_CHILD_PASSED(o);
  EXPECT_EQ(dir.Read("existing.txt"), "original");
  EXPECT_EQ(dir.Entries(), 1);
}

TEST(WorkerSandbox, WritesOnlyItsOwnProcEntries) {
  if (LandlockAbi() == 0) GTEST_SKIP() << "this kernel has no Landlock: only permissions protect /proc";
  // Run as root, the worker leaves uid 0, which makes its own /proc entries root's (it is no
  // longer dumpable): then permissions refuse them, whatever Landlock allows.
  const bool own_writable = geteuid() != 0;
  Outcome o = RunSandboxed(nullptr, [&] {
    // Its own entries, as the driver and the C library write them (a thread's name).
    if (own_writable) {
      int own = open("/proc/self/comm", O_WRONLY | O_CLOEXEC);
      CHILD_EXPECT(own >= 0);
      CHILD_EXPECT(write(own, "sandboxed", 9) == 9);
      close(own);
    }
    // Not its parent's, though the parent is of the same user.
    char parent[64];
    snprintf(parent, sizeof parent, "/proc/%d/oom_score_adj", (int)getppid());
    CHILD_EXPECT_ERRNO(open(parent, O_WRONLY | O_CLOEXEC), EACCES);
    CHILD_EXPECT(access(parent, R_OK) == 0);
    return kPass;
  });
  EXPECT_CHILD_PASSED(o);
}

TEST(WorkerSandbox, InheritedFilesRefuseWritesButNotSharedMappings) {
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  ASSERT_TRUE(dir.Write("log.txt", "abc"));
  int fd = open(dir.File("log.txt").c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  Outcome o = RunSandboxed(nullptr, [&] {
    // RLIMIT_FSIZE 0: no write to a regular file, at its end or within it, and no growth; it
    // fails (SIGXFSZ is ignored) rather than killing the worker.
    CHILD_EXPECT(lseek(fd, 0, SEEK_END) == 3);
    CHILD_EXPECT_ERRNO(write(fd, "more", 4), EFBIG);
    CHILD_EXPECT_ERRNO(pwrite(fd, "X", 1, 0), EFBIG);
    CHILD_EXPECT(ftruncate(fd, 100) == -1);
    // What the design does not promise: a descriptor opened for writing before the sandbox
    // keeps its access (that is how the worker's channels work), and a shared mapping of it
    // writes the file. The parent must hand over pipes and sockets, never writable files.
    void *map = mmap(nullptr, 3, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    CHILD_EXPECT(map != MAP_FAILED);
    ((char *)map)[0] = 'X';
    munmap(map, 3);
    return kPass;
  });
  close(fd);
  EXPECT_CHILD_PASSED(o);
  EXPECT_EQ(dir.Read("log.txt"), "Xbc");
}

TEST(WorkerSandbox, NoMemoryFileCanBeSized) {
  // What a shared-memory allocator inside the worker would do (memfd_create, then ftruncate):
  // RLIMIT_FSIZE 0 refuses it. Memory files the parent sizes and sends still map and write.
  int sent = memfd_create("gpulabs-sandbox-test", MFD_CLOEXEC);
  ASSERT_GE(sent, 0);
  ASSERT_EQ(ftruncate(sent, 4096), 0);
  Outcome o = RunSandboxed(nullptr, [&] {
    int fd = memfd_create("inside", MFD_CLOEXEC);
    CHILD_EXPECT(fd >= 0);
    CHILD_EXPECT(ftruncate(fd, 4096) == -1);
    close(fd);
    char *map = (char *)mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, sent, 0);
    CHILD_EXPECT(map != MAP_FAILED);
    strcpy(map, "from the worker");
    munmap(map, 4096);
    return kPass;
  });
  char got[32] = "";
  ASSERT_EQ(pread(sent, got, sizeof got - 1, 0), (ssize_t)sizeof got - 1);
  close(sent);
  EXPECT_CHILD_PASSED(o);
  EXPECT_STREQ(got, "from the worker");
}

TEST(WorkerSandbox, WritablePathsAllowCreatingFilesThatCannotGrow) {
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  const char *writable[] = {dir.path().c_str(), "/nonexistent/gpulabs-sandbox", nullptr};
  gl_sandbox_limits limits = {0, 0, writable, nullptr, nullptr, -1};
  const std::string fresh = dir.File("new.txt");
  Outcome o = RunSandboxed(&limits, [&] {
    int fd = open(fresh.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0666);
    CHILD_EXPECT(fd >= 0);
    CHILD_EXPECT_ERRNO(write(fd, "x", 1), EFBIG);
    close(fd);
    Log("%s", g_layers);
    return kPass;
  });
  EXPECT_CHILD_PASSED(o);
  struct stat st;
  ASSERT_EQ(stat(fresh.c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 0);
  if (LandlockAbi() > 0) {
    EXPECT_NE(o.log.find("skipped as missing: /nonexistent/gpulabs-sandbox"), std::string::npos)
        << o.log;
  }
}

// Where Landlock is missing and the worker runs as the grader's user, the grader's files are
// guarded by seccomp: no file is renamed, linked over, truncated by size or given another mode,
// even in a folder the worker may write. (unlink and open with O_TRUNC stay: CUDA's IPC needs
// them, and seccomp cannot see a path.)
TEST(WorkerSandbox, NoFileIsRenamedLinkedOrTruncated) {
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  ASSERT_TRUE(dir.Write("results.json", "verdict"));
  const char *writable[] = {dir.path().c_str(), nullptr};
  gl_sandbox_limits limits = {0, 0, writable, nullptr, nullptr, -1};
  const std::string file = dir.File("results.json"), other = dir.File("other");
  Outcome o = RunSandboxed(&limits, [&] {
    CHILD_NEEDS_SECCOMP();
    CHILD_EXPECT_ERRNO(rename(file.c_str(), other.c_str()), EPERM);
    CHILD_EXPECT_ERRNO(link(file.c_str(), other.c_str()), EPERM);
    CHILD_EXPECT_ERRNO(symlink(file.c_str(), other.c_str()), EPERM);
    CHILD_EXPECT_ERRNO(chmod(file.c_str(), 0777), EPERM);
    CHILD_EXPECT_ERRNO(truncate(file.c_str(), 0), EPERM);
    CHILD_EXPECT_ERRNO(mkdir(other.c_str(), 0777), EPERM);
    int fd = open(file.c_str(), O_RDONLY | O_CLOEXEC);
    CHILD_EXPECT(fd >= 0);
    CHILD_EXPECT_ERRNO(ftruncate(fd, 0), EPERM);
    CHILD_EXPECT_ERRNO(fchmod(fd, 0777), EPERM);
    close(fd);
    return kPass;
  });
  EXPECT_CHILD_PASSED(o);
  EXPECT_EQ(dir.Read("results.json"), "verdict");
  EXPECT_EQ(dir.Entries(), 1);
}

TEST(WorkerSandbox, NoNewProcessesOrPrograms) {
  Outcome o = RunSandboxed(nullptr, [] {
    CHILD_NEEDS_SECCOMP();
    pid_t pid = fork();
    if (pid == 0) _exit(0);
    CHILD_EXPECT(pid == -1 && errno == EPERM);
    // clone as fork does it (no CLONE_THREAD).
    long rc = syscall(SYS_clone, (long)SIGCHLD, 0L, 0L, 0L, 0L);
    if (rc == 0) _exit(0);
    CHILD_EXPECT(rc == -1 && errno == EPERM);
#ifdef SYS_clone3
    // clone3's flags are out of a filter's reach: ENOSYS, so that glibc falls back to clone.
    uint64_t args[8] = {0, 0, 0, 0, (uint64_t)SIGCHLD, 0, 0, 0};
    rc = syscall(SYS_clone3, args, sizeof args);
    if (rc == 0) _exit(0);
    CHILD_EXPECT(rc == -1 && errno == ENOSYS);
#endif
    char arg0[] = "true";
    char *argv[] = {arg0, nullptr};
    CHILD_EXPECT_ERRNO(execve("/bin/true", argv, environ), EPERM);
    pid_t spawned = -1;
    CHILD_EXPECT(posix_spawn(&spawned, "/bin/true", nullptr, nullptr, argv, environ) != 0);
    // Other processes, the machine, namespaces, mounts.
    CHILD_EXPECT_ERRNO(ptrace(PTRACE_TRACEME, 0, nullptr, nullptr), EPERM);
    char buf[8];
    struct iovec local = {buf, sizeof buf}, remote = {buf, sizeof buf};
    CHILD_EXPECT_ERRNO(process_vm_readv(getppid(), &local, 1, &remote, 1, 0), EPERM);
    CHILD_EXPECT_ERRNO(unshare(CLONE_NEWUSER), EPERM);
    CHILD_EXPECT_ERRNO(mount("none", "/tmp", "tmpfs", 0, nullptr), EPERM);
    CHILD_EXPECT_ERRNO(chroot("/"), EPERM);
    char params[120] = {0};
    CHILD_EXPECT_ERRNO(syscall(425 /* io_uring_setup */, 4, params), EPERM);
    return kPass;
  });
  EXPECT_CHILD_PASSED(o);
}

std::atomic<int> g_thread_sum{0};

void *AddOne(void *arg) {
  g_thread_sum += *(int *)arg;
  return arg;
}

TEST(WorkerSandbox, ThreadsStillWork) {
  Outcome o = RunSandboxed(nullptr, [] {
    // What CUDA's runtime and the CPU backend do: start threads, join them.
    pthread_t threads[8];
    int values[8];
    for (int i = 0; i < 8; i++) {
      values[i] = i + 1;
      errno = pthread_create(&threads[i], nullptr, AddOne, &values[i]);
      CHILD_EXPECT(errno == 0);
    }
    for (int i = 0; i < 8; i++) {
      void *ret = nullptr;
      CHILD_EXPECT(pthread_join(threads[i], &ret) == 0 && ret == &values[i]);
    }
    CHILD_EXPECT(g_thread_sum == 36);
    return kPass;
  });
  EXPECT_CHILD_PASSED(o);
}

TEST(WorkerSandbox, NoNetworkSockets) {
  Outcome o = RunSandboxed(nullptr, [] {
    CHILD_NEEDS_SECCOMP();
    CHILD_EXPECT_ERRNO(socket(AF_INET, SOCK_STREAM, 0), EPERM);
    CHILD_EXPECT_ERRNO(socket(AF_INET, SOCK_DGRAM, 0), EPERM);
    CHILD_EXPECT_ERRNO(socket(AF_INET6, SOCK_STREAM, 0), EPERM);
    CHILD_EXPECT_ERRNO(socket(AF_NETLINK, SOCK_RAW, 0), EPERM);
    CHILD_EXPECT_ERRNO(socket(AF_PACKET, SOCK_RAW, 0), EPERM);
    int pair[2];
    CHILD_EXPECT_ERRNO(socketpair(AF_INET, SOCK_STREAM, 0, pair), EPERM);
    // Unix sockets stay: CUDA may use them, and the worker's channel is one.
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHILD_EXPECT(fd >= 0);
    close(fd);
    CHILD_EXPECT(socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0);
    return kPass;
  });
  EXPECT_CHILD_PASSED(o);
}

TEST(WorkerSandbox, TcpDeniedEvenOnASocketMadeBefore) {
  if (LandlockAbi() < 4) GTEST_SKIP() << "Landlock ABI " << LandlockAbi() << " < 4: no TCP rules";
  int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(listener, 0);
  struct sockaddr_in addr;
  memset(&addr, 0, sizeof addr);
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(listener, (struct sockaddr *)&addr, sizeof addr), 0);
  ASSERT_EQ(listen(listener, 1), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(getsockname(listener, (struct sockaddr *)&addr, &len), 0);
  // seccomp refuses new inet sockets; Landlock is what stops one the worker somehow holds.
  static int early = -1;
  Outcome o = RunSandboxed(
      nullptr,
      [&] {
        struct sockaddr_in any = addr;
        any.sin_port = 0;
        CHILD_EXPECT_ERRNO(bind(early, (struct sockaddr *)&any, sizeof any), EACCES);
        CHILD_EXPECT_ERRNO(connect(early, (struct sockaddr *)&addr, sizeof addr), EACCES);
        return kPass;
      },
      [] {
        early = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        CHILD_EXPECT(early >= 0);
        return kPass;
      });
  close(listener);
  EXPECT_CHILD_PASSED(o);
}

TEST(WorkerSandbox, SignalsAndAbstractSocketsAreScoped) {
  const int abi = LandlockAbi();
  if (abi < 6) GTEST_SKIP() << "Landlock ABI " << abi << " < 6: signals and abstract sockets are not scoped";
  // A process outside the sandbox that the sandboxed child could signal by its uid alone: uid
  // 65534 when we are root (the child's uid too), else ours.
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  fflush(nullptr);
  pid_t target = fork();
  ASSERT_GE(target, 0);
  if (target == 0) {
    close(ready[0]);
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (IsRoot() && (setresgid(65534, 65534, 65534) != 0 || setresuid(65534, 65534, 65534) != 0))
      _exit(1);
    ssize_t ignored = write(ready[1], "r", 1);
    (void)ignored;
    close(ready[1]);
    for (;;) pause();
  }
  close(ready[1]);
  char byte = 0;
  ASSERT_EQ(read(ready[0], &byte, 1), 1);
  close(ready[0]);

  int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(listener, 0);
  struct sockaddr_un addr;
  memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  int name_len = snprintf(addr.sun_path + 1, sizeof addr.sun_path - 1, "gpulabs-sandbox-test-%d",
                          (int)getpid());
  socklen_t addr_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + name_len);
  ASSERT_EQ(bind(listener, (struct sockaddr *)&addr, addr_len), 0);
  ASSERT_EQ(listen(listener, 1), 0);

  // (seccomp refuses these signals too, SignalsOnlyToItself; the abstract socket is Landlock's
  // alone.)
  Outcome o = RunSandboxed(nullptr, [&] {
    CHILD_EXPECT_ERRNO(kill(target, SIGUSR1), EPERM);
    CHILD_EXPECT_ERRNO(kill(target, 0), EPERM);
    CHILD_EXPECT_ERRNO(kill(getppid(), 0), EPERM);
    CHILD_EXPECT(kill(getpid(), 0) == 0);  // itself: inside the sandbox
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHILD_EXPECT(fd >= 0);
    CHILD_EXPECT_ERRNO(connect(fd, (struct sockaddr *)&addr, addr_len), EPERM);
    close(fd);
    return kPass;
  });
  close(listener);
  int status = 0;
  EXPECT_EQ(waitpid(target, &status, WNOHANG), 0) << "the process outside was signalled";
  kill(target, SIGKILL);
  waitpid(target, &status, 0);
  EXPECT_CHILD_PASSED(o);
}

volatile sig_atomic_t g_got_signal = 0;

void OnSignal(int) { g_got_signal = 1; }

TEST(WorkerSandbox, SignalsOnlyToItself) {
  // seccomp's part, for kernels whose Landlock does not scope signals (ABI < 6). Signal 0
  // everywhere outside: a check of permission that delivers nothing, should the check pass.
  Outcome o = RunSandboxed(nullptr, [] {
    CHILD_NEEDS_SECCOMP();
    CHILD_EXPECT_ERRNO(kill(getppid(), 0), EPERM);
    CHILD_EXPECT_ERRNO(kill(0, 0), EPERM);   // the process group, the parent's too
    CHILD_EXPECT_ERRNO(kill(-1, 0), EPERM);  // every process the uid may signal
    CHILD_EXPECT_ERRNO(syscall(SYS_tkill, (long)getppid(), 0L), EPERM);
    // Itself and its threads: raise, abort and pthread_kill go through tgkill.
    signal(SIGUSR1, OnSignal);
    CHILD_EXPECT(raise(SIGUSR1) == 0 && g_got_signal == 1);
    g_got_signal = 0;
    CHILD_EXPECT(kill(getpid(), SIGUSR1) == 0 && g_got_signal == 1);
    CHILD_EXPECT(pthread_kill(pthread_self(), 0) == 0);
    return kPass;
  });
  EXPECT_CHILD_PASSED(o);
}

TEST(WorkerSandbox, LimitsMemory) {
  gl_sandbox_limits limits = {0, (size_t)256 << 20, nullptr, nullptr, nullptr, -1};
  Outcome o = RunSandboxed(&limits, [] {
    // Counted beyond what the process held at entry (AddressSanitizer's shadow, in this
    // build, is terabytes of it).
    struct rlimit lim;
    CHILD_EXPECT(getrlimit(RLIMIT_DATA, &lim) == 0 && lim.rlim_cur >= (rlim_t)256 << 20 &&
                 lim.rlim_cur != RLIM_INFINITY);
    void *fits = malloc((size_t)16 << 20);
    CHILD_EXPECT(fits != nullptr);
    memset(fits, 1, (size_t)16 << 20);
    free(fits);
    // (mmap rather than malloc: AddressSanitizer's malloc aborts where it cannot map.)
    void *big = mmap(nullptr, (size_t)512 << 20, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHILD_EXPECT(big == MAP_FAILED && errno == ENOMEM);
    // Why RLIMIT_DATA and not RLIMIT_AS: reserving address space, as CUDA does for its unified
    // address space, is not counted.
    void *reserved = mmap(nullptr, (size_t)64 << 30, PROT_NONE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    CHILD_EXPECT(reserved != MAP_FAILED);
    munmap(reserved, (size_t)64 << 30);
    return kPass;
  });
  EXPECT_CHILD_PASSED(o);
}

TEST(WorkerSandbox, LimitsCpuTime) {
  gl_sandbox_limits limits = {0.5, 0, nullptr, nullptr, nullptr, -1};  // rounded up: 1 s, SIGKILL at 2 s
  Outcome o = RunSandboxed(&limits, [] {
    struct rlimit lim;
    if (getrlimit(RLIMIT_CPU, &lim) != 0 || lim.rlim_cur != 1 || lim.rlim_max != 2) {
      Log("RLIMIT_CPU is %llu/%llu, expected 1/2\n", (unsigned long long)lim.rlim_cur,
          (unsigned long long)lim.rlim_max);
      return kFail;
    }
    const time_t start = time(nullptr);
    volatile unsigned long spin = 0;
    while (time(nullptr) - start < 60) spin = spin + 1;
    Log("still running after 60 s of wall time\n");
    return kFail;
  });
  ASSERT_TRUE(WIFSIGNALED(o.status) &&
              (WTERMSIG(o.status) == SIGXCPU || WTERMSIG(o.status) == SIGKILL))
      << Describe(o.status) << "\n"
      << o.log;
}

TEST(WorkerSandbox, DropsRootForGood) {
  if (!IsRoot()) GTEST_SKIP() << "not running as root: there is no root to drop";
  Outcome o = RunSandboxed(nullptr, [] {
    CHILD_EXPECT(getuid() == 65534 && geteuid() == 65534);
    CHILD_EXPECT(getgid() == 65534 && getegid() == 65534);
    CHILD_EXPECT(getgroups(0, nullptr) == 0);
    CHILD_EXPECT_ERRNO(setuid(0), EPERM);
    CHILD_EXPECT_ERRNO(setgid(0), EPERM);
    FILE *f = fopen("/proc/self/status", "r");
    CHILD_EXPECT(f != nullptr);
    char line[256];
    int zero_sets = 0;
    while (fgets(line, sizeof line, f) != nullptr) {
      if (strcmp(line, "CapEff:\t0000000000000000\n") == 0) zero_sets++;
      if (strcmp(line, "CapPrm:\t0000000000000000\n") == 0) zero_sets++;
    }
    fclose(f);
    CHILD_EXPECT(zero_sets == 2);
    return kPass;
  });
  EXPECT_CHILD_PASSED(o);
}

TEST(WorkerSandbox, SetsProcessFlagsAndFileLimits) {
  Outcome o = RunSandboxed(nullptr, [] {
    CHILD_EXPECT(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1);
    int signal = 0;
    CHILD_EXPECT(prctl(PR_GET_PDEATHSIG, &signal, 0, 0, 0) == 0 && signal == SIGKILL);
    struct rlimit lim;
    CHILD_EXPECT(getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur == 0 && lim.rlim_max == 0);
    CHILD_EXPECT(getrlimit(RLIMIT_CORE, &lim) == 0 && lim.rlim_cur == 0 && lim.rlim_max == 0);
    if (strstr(g_layers, "seccomp (") != nullptr) {
      FILE *f = fopen("/proc/self/status", "r");
      CHILD_EXPECT(f != nullptr);
      char line[256];
      bool filtered = false;
      while (fgets(line, sizeof line, f) != nullptr) {
        if (strcmp(line, "Seccomp:\t2\n") == 0) filtered = true;
      }
      fclose(f);
      CHILD_EXPECT(filtered);
    }
    return kPass;
  });
  EXPECT_CHILD_PASSED(o);
}

void *WaitOnPipe(void *arg) {
  char byte;
  ssize_t ignored = read(*(int *)arg, &byte, 1);
  (void)ignored;
  return nullptr;
}

TEST(WorkerSandbox, RefusesToEnterWithThreads) {
  Outcome o = RunChild([] {
    int fds[2];
    CHILD_EXPECT(pipe(fds) == 0);
    pthread_t thread;
    CHILD_EXPECT(pthread_create(&thread, nullptr, WaitOnPipe, &fds[0]) == 0);
    char layers[256];
    const int no_new_privs = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
    const uid_t uid = getuid();
    int rc = gl_sandbox_enter(nullptr, layers, sizeof layers);
    close(fds[1]);
    pthread_join(thread, nullptr);
    CHILD_EXPECT(rc == -1);
    CHILD_EXPECT(strstr(layers, "FAILED: called with 2 threads") != nullptr);
    // Nothing was applied.
    CHILD_EXPECT(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == no_new_privs && getuid() == uid);
    return kPass;
  });
  EXPECT_CHILD_PASSED(o);
}

}  // namespace
