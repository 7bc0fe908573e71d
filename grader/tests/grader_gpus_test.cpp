// Tests of grade --batch --gpus (grader/src/class/batch.c and gpu_slots.c, the lock in util.c and
// run.c): reading --gpus, finding the GPUs (a fake nvidia-smi, fake device files,
// CUDA_VISIBLE_DEVICES), the GPU lock (shared sections overlap, exclusive ones run alone, a waiting
// exclusive taker goes before later shared ones: processes and their timestamps), and the grade
// program on the fake course: --gpus 0,0 writes the gradebook one plain --batch writes, each grader
// gets its GPU in CUDA_VISIBLE_DEVICES, and SIGTERM stops every grader and leaves no process
// behind.
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gltest.h"
#include "grader_test_files.h"

extern "C" {
#include "batch.h"
#include "util.h"
}

namespace {

using namespace grader_test;

// Whether a line of `text` holds these pieces, in this order.
bool LineHas(const std::string &text, const std::vector<std::string> &pieces) {
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) {
    size_t at = 0;
    bool all = true;
    for (const std::string &piece : pieces) {
      at = line.find(piece, at);
      if (at == std::string::npos) {
        all = false;
        break;
      }
      at += piece.size();
    }
    if (all) return true;
  }
  return false;
}

std::vector<std::string> Strings(const strlist &list) {
  return std::vector<std::string>(list.items, list.items + list.count);
}

class GraderGpus : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/grader-gpus-test-XXXXXX";
    tmp_ = mkdtemp(pattern);
  }
  void TearDown() override { std::system(("rm -rf '" + tmp_ + "'").c_str()); }
  std::string tmp_;
};

// gpu_slots_parse: 0 and the slots' ids, or -1 and the message.
struct Parsed {
  int rc;
  int all;
  std::vector<std::string> ids;
  std::string error;
};

Parsed Parse(const std::string &text) {
  gpu_slots slots;
  gpu_slots_init(&slots);
  strbuf err;
  sb_init(&err);
  Parsed p;
  p.rc = gpu_slots_parse(text.c_str(), &slots, &err);
  p.all = slots.all;
  p.ids = Strings(slots.ids);
  p.error = err.data;
  sb_free(&err);
  gpu_slots_free(&slots);
  return p;
}

// gpu_slots_resolve after parsing `text`.
struct Resolved {
  int rc;
  int pinned;
  std::vector<std::string> ids, devices;
  std::string note, error;
};

Resolved Resolve(const std::string &text, const char *visible, const std::string &nvidia_smi,
                 const std::string &dev_dir) {
  gpu_slots slots;
  gpu_slots_init(&slots);
  strbuf note, err;
  sb_init(&note);
  sb_init(&err);
  Resolved r;
  EXPECT_EQ(gpu_slots_parse(text.c_str(), &slots, &err), 0) << err.data;
  r.rc = gpu_slots_resolve(&slots, visible, nvidia_smi.c_str(), dev_dir.c_str(), &note, &err);
  r.pinned = slots.pinned;
  r.ids = Strings(slots.ids);
  r.devices = Strings(slots.devices);
  r.note = note.data;
  r.error = err.data;
  sb_free(&note);
  sb_free(&err);
  gpu_slots_free(&slots);
  return r;
}

// A stand-in for nvidia-smi: -L lists `count` GPUs (and a MIG instance, which is no GPU of its
// own); the name query answers "Fake GPU <i>" for -i <i>, "Fake GPU" without.
std::string FakeNvidiaSmi(const std::string &dir, int count) {
  std::string script = "#!/bin/sh\ncase \"$1\" in\n-L)\n";
  for (int i = 0; i < count; i++) {
    script += "  echo 'GPU " + std::to_string(i) + ": Fake GPU (UUID: GPU-fake-" +
              std::to_string(i) + ")'\n";
  }
  script += "  echo '  MIG 1g.10gb     Device  0: (UUID: MIG-fake)'\n  ;;\n"
            "--query-gpu=name)\n  if [ \"$3\" = -i ]; then echo \"Fake GPU $4\"; else echo 'Fake "
            "GPU'; fi\n  ;;\n*) exit 1 ;;\nesac\n";
  WriteText(dir + "/nvidia-smi", script, 0755);
  return dir + "/nvidia-smi";
}

}  // namespace

// ---- --gpus's value ----

TEST(GpuSlotsParse, AllAListAndRepeats) {
  Parsed p = Parse("all");
  EXPECT_EQ(p.rc, 0);
  EXPECT_EQ(p.all, 1);
  EXPECT_TRUE(p.ids.empty());
  p = Parse("0,1");
  EXPECT_EQ(p.rc, 0) << p.error;
  EXPECT_EQ(p.all, 0);
  EXPECT_EQ(p.ids, (std::vector<std::string>{"0", "1"}));
  p = Parse("0,0");
  EXPECT_EQ(p.rc, 0) << p.error;
  EXPECT_EQ(p.ids, (std::vector<std::string>{"0", "0"})) << "two graders on GPU 0";
  p = Parse("3");
  EXPECT_EQ(p.ids, std::vector<std::string>{"3"});
  p = Parse("07,1,07");
  EXPECT_EQ(p.ids, (std::vector<std::string>{"7", "1", "7"})) << "07 is GPU 7";
  std::string many = "0";
  for (int i = 1; i < GPU_SLOTS_MAX; i++) many += ",0";
  EXPECT_EQ(Parse(many).rc, 0) << GPU_SLOTS_MAX << " graders are allowed";
}

TEST(GpuSlotsParse, BadValuesSayWhatIsWrong) {
  const std::string usage = "--gpus takes all, or GPU numbers separated by commas (0,1; a number "
                            "may repeat: 0,0 puts two graders on GPU 0)";
  struct Case {
    std::string text, message;
  } cases[] = {
      {"", usage + ", not an empty value"},
      {",", "not ',': a number is missing before the first comma"},
      {",1", "not ',1': a number is missing before the first comma"},
      {"0,", "not '0,': a number is missing after the last comma"},
      {"0,,1", "not '0,,1': a number is missing between two commas"},
      {"a", usage + ", not 'a': 'a' is not a GPU number (0 to 4095)"},
      {"0,x", "not '0,x': 'x' is not a GPU number"},
      {"-1", "'-1' is not a GPU number"},
      {"1.5", "'1.5' is not a GPU number"},
      {" 0", "' 0' is not a GPU number"},
      {"0 ,1", "'0 ' is not a GPU number"},
      {"ALL", "'ALL' is not a GPU number"},
      {"all,0", "'all' is not a GPU number"},
      {"4096", "'4096' is not a GPU number (0 to 4095)"},
      {"123456", "'123456' is not a GPU number"},
      {"0;1", "'0;1' is not a GPU number"},
  };
  for (const Case &c : cases) {
    Parsed p = Parse(c.text);
    EXPECT_EQ(p.rc, -1) << "'" << c.text << "'";
    EXPECT_NE(p.error.find(c.message), std::string::npos) << "'" << c.text << "': " << p.error;
  }
  std::string many = "0";
  for (int i = 0; i < GPU_SLOTS_MAX; i++) many += ",1";
  Parsed p = Parse(many);
  EXPECT_EQ(p.rc, -1);
  EXPECT_NE(p.error.find("--gpus names more than 64 graders"), std::string::npos) << p.error;
}

// ---- finding the GPUs ----

TEST_F(GraderGpus, AllIsEveryGpuNvidiaSmiListsElseTheDeviceFilesElseOneUnpinnedSlot) {
  std::string smi = FakeNvidiaSmi(tmp_ + "/bin", 2);
  ASSERT_EQ(mkdir_p((tmp_ + "/dev").c_str()), 0);
  Resolved r = Resolve("all", nullptr, smi, tmp_ + "/dev");
  ASSERT_EQ(r.rc, 0) << r.error;
  EXPECT_EQ(r.pinned, 1);
  EXPECT_EQ(r.ids, (std::vector<std::string>{"0", "1"}));
  EXPECT_EQ(r.devices, (std::vector<std::string>{"0", "1"})) << "the MIG line is no GPU";
  EXPECT_EQ(r.note, "--gpus all: 2 GPUs (nvidia-smi -L)");

  // No nvidia-smi: the device files count, not nvidiactl, nvidia-uvm and the like.
  for (const char *name : {"nvidia0", "nvidia1", "nvidia2", "nvidiactl", "nvidia-uvm",
                           "nvidia-modeset", "nvidia-caps"}) {
    WriteText(tmp_ + "/dev/" + name, "");
  }
  r = Resolve("all", nullptr, tmp_ + "/no-such/nvidia-smi", tmp_ + "/dev");
  ASSERT_EQ(r.rc, 0) << r.error;
  EXPECT_EQ(r.devices, (std::vector<std::string>{"0", "1", "2"}));
  EXPECT_EQ(r.note, "--gpus all: 3 GPUs (the device files)");

  // Nothing at all: one slot, pinned to no GPU, and the note says so.
  std::string empty = tmp_ + "/empty-dev";
  ASSERT_EQ(mkdir_p(empty.c_str()), 0);
  r = Resolve("all", nullptr, tmp_ + "/no-such/nvidia-smi", empty);
  ASSERT_EQ(r.rc, 0) << r.error;
  EXPECT_EQ(r.pinned, 0);
  EXPECT_EQ(r.ids.size(), 1u);
  EXPECT_NE(r.note.find("--gpus all: no GPU found (no nvidia-smi -L that lists one, and " + empty +
                        " has no nvidia0, nvidia1, ...): grading one submission at a time, "
                        "pinned to no GPU"), std::string::npos) << r.note;
  // An nvidia-smi that lists none (a driver without devices) and no device files: the same.
  std::string none = FakeNvidiaSmi(tmp_ + "/bin0", 0);
  r = Resolve("all", nullptr, none, empty);
  EXPECT_EQ(r.pinned, 0);
}

TEST_F(GraderGpus, NumbersAreCheckedAgainstTheGpusThereAndPassedOnAsGiven) {
  std::string smi = FakeNvidiaSmi(tmp_ + "/bin", 2);
  Resolved r = Resolve("1,0,1", nullptr, smi, tmp_);
  ASSERT_EQ(r.rc, 0) << r.error;
  EXPECT_EQ(r.devices, (std::vector<std::string>{"1", "0", "1"}));
  EXPECT_EQ(r.note, "");
  r = Resolve("0,2", nullptr, smi, tmp_);
  EXPECT_EQ(r.rc, -1);
  EXPECT_EQ(r.error, "--gpus names GPU 2, but nvidia-smi -L finds 2 GPUs here (0 to 1)");
  // No GPU to check against (a CPU-only machine, the fake course): taken as given.
  r = Resolve("0,0", nullptr, tmp_ + "/no-such/nvidia-smi", tmp_ + "/no-such-dev");
  ASSERT_EQ(r.rc, 0) << r.error;
  EXPECT_EQ(r.pinned, 1);
  EXPECT_EQ(r.devices, (std::vector<std::string>{"0", "0"}));
  EXPECT_NE(r.note.find("no GPU found here to check the numbers against"), std::string::npos) << r.note;
}

TEST_F(GraderGpus, UnderCudaVisibleDevicesNumberKIsItsKthEntry) {
  // A Slurm job given GPUs 5 and 7: the grader's GPU 0 is 5, its GPU 1 is 7; nvidia-smi, which
  // lists every GPU of the node, is not asked.
  std::string smi = FakeNvidiaSmi(tmp_ + "/bin", 8);
  Resolved r = Resolve("all", "5,7", smi, tmp_);
  ASSERT_EQ(r.rc, 0) << r.error;
  EXPECT_EQ(r.ids, (std::vector<std::string>{"0", "1"}));
  EXPECT_EQ(r.devices, (std::vector<std::string>{"5", "7"}));
  EXPECT_EQ(r.note, "--gpus all: 2 GPUs (CUDA_VISIBLE_DEVICES)");
  r = Resolve("1,1,0", "5,7", smi, tmp_);
  ASSERT_EQ(r.rc, 0) << r.error;
  EXPECT_EQ(r.devices, (std::vector<std::string>{"7", "7", "5"}));
  r = Resolve("2", "5,7", smi, tmp_);
  EXPECT_EQ(r.rc, -1);
  EXPECT_EQ(r.error, "--gpus names GPU 2, but CUDA_VISIBLE_DEVICES='5,7' leaves the grader 2 GPUs "
                     "(numbered from 0, in its order)");
  r = Resolve("all", " GPU-aaa , MIG-bbb", smi, tmp_);
  ASSERT_EQ(r.rc, 0) << r.error;
  EXPECT_EQ(r.devices, (std::vector<std::string>{"GPU-aaa", "MIG-bbb"})) << "UUIDs work as well";
  r = Resolve("all", "", smi, tmp_);
  ASSERT_EQ(r.rc, 0) << r.error;
  EXPECT_EQ(r.pinned, 0) << "an empty CUDA_VISIBLE_DEVICES hides every GPU";
  EXPECT_NE(r.note.find("CUDA_VISIBLE_DEVICES='' names no GPU"), std::string::npos) << r.note;
}

// ---- the lock ----

namespace {

struct Section {
  double asked, start, end;
};

// Starts a process that waits `delay` s, takes the lock, holds it `hold` s and writes when it
// asked, got and dropped it into `record`. Returns its pid.
pid_t LockHolder(const std::string &lock, bool exclusive, double delay, double hold,
                 const std::string &record) {
  fflush(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    usleep((useconds_t)(delay * 1e6));
    double asked = now_seconds();
    int fd = gpu_lock_acquire(lock.c_str(), exclusive);
    if (fd < 0) _exit(2);
    double start = now_seconds();
    usleep((useconds_t)(hold * 1e6));
    double end = now_seconds();
    gpu_lock_release(fd);
    char text[128];
    snprintf(text, sizeof text, "%.6f %.6f %.6f\n", asked, start, end);
    _exit(write_file_atomic(record.c_str(), text, strlen(text)) == 0 ? 0 : 3);
  }
  return pid;
}

Section ReadSection(const std::string &record) {
  Section s{0, 0, 0};
  std::stringstream in(ReadText(record));
  in >> s.asked >> s.start >> s.end;
  return s;
}

bool Overlap(const Section &a, const Section &b) { return a.start < b.end && b.start < a.end; }

struct Holder {
  bool exclusive;
  double delay, hold;
};

std::vector<Section> RunHolders(const std::string &dir, const std::vector<Holder> &holders) {
  std::string lock = dir + "/gpu-0.lock";
  std::vector<pid_t> pids;
  for (size_t i = 0; i < holders.size(); i++) {
    pids.push_back(LockHolder(lock, holders[i].exclusive, holders[i].delay, holders[i].hold,
                              dir + "/section-" + std::to_string(i)));
  }
  std::vector<Section> sections;
  for (size_t i = 0; i < pids.size(); i++) {
    int status = 0;
    waitpid(pids[i], &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "holder " << i;
    sections.push_back(ReadSection(dir + "/section-" + std::to_string(i)));
  }
  return sections;
}

}  // namespace

TEST_F(GraderGpus, ExclusiveSectionsRunAloneAndSharedOnesOverlap) {
  // Two performance runs on one GPU: one after the other, whichever asked first.
  std::vector<Section> s = RunHolders(tmp_, {{true, 0, 0.4}, {true, 0, 0.4}});
  EXPECT_FALSE(Overlap(s[0], s[1])) << s[0].start << "-" << s[0].end << " and " << s[1].start
                                    << "-" << s[1].end;
  EXPECT_GE(std::max(s[0].end, s[1].end) - std::min(s[0].start, s[1].start), 0.8);

  // Two correctness runs: side by side.
  s = RunHolders(tmp_, {{false, 0, 0.5}, {false, 0, 0.5}});
  EXPECT_TRUE(Overlap(s[0], s[1])) << s[0].start << "-" << s[0].end << " and " << s[1].start
                                   << "-" << s[1].end;

  // A performance run asked for while a correctness run holds the GPU waits for its end; a
  // correctness run asked for after that waits for the performance run, though the GPU is
  // only shared when it asks (the queue: timing is never starved).
  s = RunHolders(tmp_, {{false, 0, 0.8}, {true, 0.2, 0.4}, {false, 0.45, 0.3}});
  EXPECT_FALSE(Overlap(s[0], s[1]));
  EXPECT_FALSE(Overlap(s[1], s[2]));
  EXPECT_GE(s[1].start, s[0].end - 1e-3) << "the exclusive section waited for the shared one";
  EXPECT_GE(s[2].start, s[1].end - 1e-3) << "the later shared section waited for the exclusive one";
  EXPECT_LT(s[1].asked, s[2].asked);
  EXPECT_TRUE(Exists(tmp_ + "/gpu-0.lock"));
  EXPECT_TRUE(Exists(tmp_ + "/gpu-0.lock.queue"));

  // A lock that cannot be made: -1 and errno, never a wait.
  errno = 0;
  EXPECT_EQ(gpu_lock_acquire((tmp_ + "/no-such-folder/gpu-0.lock").c_str(), 1), -1);
  EXPECT_EQ(errno, ENOENT);
}

// ---- the grade program ----

namespace {

const char *kGoodLab =
    "#include \"reduction.h\"\n"
    "int fake_add(int a, int b) { return a + b; }\n"
    "int fake_mul(int a, int b) { return a * b; }\n"
    "int fake_wait(void) { return 0; }\n"
    "int fake_touch(int *cell) { return *cell; }\n"
    "double fake_speed(void) { return 0.75; }\n";

// The fake lab's speed reports the GPU its grader was given: 0.6 + 0.1 x CUDA_VISIBLE_DEVICES
// when CUDA_DEVICE_ORDER is PCI_BUS_ID (as the grader sets it for a pinned grader), else 0.55.
const char *kGpuReportingLab =
    "#include <stdlib.h>\n"
    "#include <string.h>\n"
    "#include \"reduction.h\"\n"
    "int fake_add(int a, int b) { return a + b; }\n"
    "int fake_mul(int a, int b) { return a * b; }\n"
    "int fake_wait(void) { return 0; }\n"
    "int fake_touch(int *cell) { return *cell; }\n"
    "double fake_speed(void) {\n"
    "  const char *gpu = getenv(\"CUDA_VISIBLE_DEVICES\");\n"
    "  const char *order = getenv(\"CUDA_DEVICE_ORDER\");\n"
    "  if (gpu == NULL || order == NULL || strcmp(order, \"PCI_BUS_ID\") != 0) return 0.55;\n"
    "  return 0.6 + 0.1 * atoi(gpu);\n"
    "}\n";

struct Outcome {
  int status;
  std::string output;
};

// The processes whose command line mentions `text` (the test's folder), but this one.
std::vector<std::string> ProcessesMentioning(const std::string &text) {
  std::vector<std::string> found;
  DIR *proc = opendir("/proc");
  if (proc == nullptr) return found;
  struct dirent *entry;
  while ((entry = readdir(proc)) != nullptr) {
    if (strspn(entry->d_name, "0123456789") != strlen(entry->d_name)) continue;
    if (atoi(entry->d_name) == getpid()) continue;
    std::string cmdline = ReadText(std::string("/proc/") + entry->d_name + "/cmdline");
    for (char &c : cmdline) {
      if (c == '\0') c = ' ';
    }
    std::string stat = ReadText(std::string("/proc/") + entry->d_name + "/stat");
    bool zombie = stat.find(") Z ") != std::string::npos;
    if (!zombie && cmdline.find(text) != std::string::npos) {
      found.push_back(std::string(entry->d_name) + ": " + cmdline);
    }
  }
  closedir(proc);
  return found;
}

}  // namespace

class GraderGpusProgram : public GraderGpus {
 protected:
  // The grade command, with no CUDA_VISIBLE_DEVICES of the machine's and, with `fake_smi`, the
  // fake nvidia-smi first on PATH.
  std::string Command(const std::string &args, const std::string &log, bool fake_smi = false) {
    std::string path = fake_smi ? "PATH='" + tmp_ + "/bin':\"$PATH\" " : "";
    return "env -u CUDA_VISIBLE_DEVICES -u CUDA_DEVICE_ORDER " + path + "'" + GRADE_EXE + "' " +
           args + " >'" + log + "' 2>&1";
  }
  Outcome Grade(const std::string &args, bool fake_smi = false) {
    std::string log = tmp_ + "/grade.log";
    int status = std::system(Command(args, log, fake_smi).c_str());
    return Outcome{WIFEXITED(status) ? WEXITSTATUS(status) : -1, ReadText(log)};
  }
  std::string Course() {
    return "--course '" + std::string(GRADER_TEST_DATA) +
           "/fake-course' --lab reduction --jobs 1 --quiet --cmake-arg -DLAB_BACKEND=cuda ";
  }
};

TEST_F(GraderGpusProgram, UsageOfGpus) {
  struct Case {
    const char *args, *message;
  } cases[] = {
      {"--batch . --gpus 0,x", "grade: --gpus takes all, or GPU numbers separated by commas (0,1; "
                               "a number may repeat: 0,0 puts two graders on GPU 0), not '0,x': "
                               "'x' is not a GPU number"},
      {"--batch . --gpus=", "not an empty value"},
      {"--batch . --gpus", "grade: --gpus needs a value"},
      {"--gpus 0", "grade: --gpus 0 grades the submissions of a batch side by side: use it with "
                   "--batch DIR"},
      {"--merge out --gpus 0 a", "grade: --merge joins the folders of finished shards and grades "
                                 "nothing: no --batch, --shard, --gpus or --export-release"},
  };
  for (const Case &c : cases) {
    Outcome run = Grade(c.args);
    EXPECT_EQ(run.status, 2) << c.args << ": " << run.output;
    EXPECT_NE(run.output.find(c.message), std::string::npos) << c.args << ": " << run.output;
  }
  // A number the machine does not have (the fake nvidia-smi lists two).
  FakeNvidiaSmi(tmp_ + "/bin", 2);
  ASSERT_EQ(mkdir_p((tmp_ + "/subs/alice").c_str()), 0);
  Outcome run = Grade("--batch '" + tmp_ + "/subs' --out '" + tmp_ + "/out' --gpus 1,2", true);
  EXPECT_EQ(run.status, 2) << run.output;
  EXPECT_NE(run.output.find("grade: --gpus names GPU 2, but nvidia-smi -L finds 2 GPUs here"),
            std::string::npos) << run.output;
  EXPECT_FALSE(Exists(tmp_ + "/out/gradebook.csv"));
  Outcome help = Grade("--help");
  EXPECT_NE(help.output.find("--gpus all|0,1,..."), std::string::npos) << help.output;
}

// One test for the three runs that grade, so that they share the graders' builds of the fake
// course (each grader builds it once in its own work folder, and later runs rebuild only what
// a submission changes).
TEST_F(GraderGpusProgram, GradesSideBySideIntoThePlainGradebookPinnedAndStoppable) {
  // 1. --gpus 0,0: two graders share GPU 0; the gradebook is the plain --batch one.
  std::string subs = tmp_ + "/subs";
  WriteText(subs + "/alice/labs/reduction/reduction.c", kGoodLab);
  std::string bob = kGoodLab;
  bob.replace(bob.find("a * b"), 5, "a + b");  // step 2 fails
  WriteText(subs + "/bob/reduction.c", bob);
  std::string gpus = tmp_ + "/gpus", work = gpus + "/work";
  Outcome run = Grade(Course() + "--batch '" + subs + "' --gpus 0,0 --out '" + gpus + "'");
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("grade: 2 submissions, 2 at a time: GPU 0, GPU 0; work folders " +
                            work + "/slot-0 to slot-1"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("grade: graders that share a GPU overlap their correctness tests"),
            std::string::npos) << run.output;
  // Each grader built in its own work folder, and each took the GPU's lock.
  EXPECT_TRUE(Exists(work + "/slot-0/build/CMakeCache.txt")) << run.output;
  EXPECT_TRUE(Exists(work + "/slot-1/build/CMakeCache.txt")) << run.output;
  EXPECT_FALSE(Exists(work + "/build")) << "no grader builds in the shared work folder";
  EXPECT_TRUE(Exists(gpus + "/.gpus/gpu-0.lock"));
  EXPECT_TRUE(Exists(gpus + "/.gpus/gpu-0.lock.queue"));
  // Progress: "[1/2] alice: 65/100 on GPU 0 (12 s); about 12 s left", then "all 2 graded".
  EXPECT_TRUE(LineHas(run.output, {"grade: [", "/2] alice: 65/100 on GPU 0 (", "); "})) << run.output;
  EXPECT_TRUE(LineHas(run.output, {"grade: [", "/2] bob: 55/100 on GPU 0 (", "); "})) << run.output;
  EXPECT_TRUE(LineHas(run.output, {"grade: [1/2] ", "/100 on GPU 0 (", "); about ", " left"}))
      << run.output;
  EXPECT_TRUE(LineHas(run.output, {"grade: [2/2] ", "/100 on GPU 0 (", "); all 2 graded in "}))
      << run.output;
  EXPECT_NE(run.output.find("gradebook: " + gpus + "/gradebook.csv (2 submissions, graded 2 at a "
                            "time on GPU 0 in "), std::string::npos) << run.output;

  // The same batch graded plainly, in slot 0's work folder (only what differs is rebuilt):
  // the same gradebook files, manifest and items, byte for byte (nothing in them is a time).
  std::string plain = tmp_ + "/plain";
  Outcome one = Grade(Course() + "--batch '" + subs + "' --work-dir '" + work + "/slot-0' --out '" +
                      plain + "'");
  ASSERT_EQ(one.status, 0) << one.output;
  for (const char *f : {"gradebook.csv", "lms.csv", "items.csv", "batch-manifest.txt",
                        "alice/items.tsv", "bob/items.tsv"}) {
    EXPECT_EQ(ReadText(gpus + "/" + f), ReadText(plain + "/" + f)) << f;
  }
  EXPECT_EQ(ReadText(gpus + "/lms.csv"), "id,total,reduction\nalice,65,65\nbob,55,55\n");
  EXPECT_NE(ReadText(gpus + "/batch-manifest.txt").find("complete\tyes\n"), std::string::npos);
  EXPECT_FALSE(Exists(gpus + "/.gpus/result-0")) << "the graders' results are read and removed";
  EXPECT_FALSE(Exists(plain + "/.gpus")) << "a plain batch takes no lock";
  // And it merges like any batch output.
  Outcome merge = Grade("--merge '" + tmp_ + "/merged' '" + gpus + "'");
  ASSERT_EQ(merge.status, 0) << merge.output;
  EXPECT_EQ(ReadText(tmp_ + "/merged/gradebook.csv"), ReadText(plain + "/gradebook.csv"));

  // 2. --gpus all on a machine with two GPUs (the fake nvidia-smi), for shard 0 of 2 (alice and
  // carol; bob is shard 1's): grader k gets GPU k in CUDA_VISIBLE_DEVICES (with
  // CUDA_DEVICE_ORDER=PCI_BUS_ID), which the lab reports as its ratio; alice, the shard's first
  // submission, goes to the first grader, carol to the second.
  FakeNvidiaSmi(tmp_ + "/bin", 2);
  std::string pinned = tmp_ + "/pinned-subs";
  for (const char *who : {"alice", "bob", "carol"}) {
    WriteText(pinned + "/" + who + "/reduction.c", kGpuReportingLab);
  }
  std::string all = tmp_ + "/all";
  run = Grade(Course() + "--batch '" + pinned + "' --gpus all --shard 0/2 --work-dir '" + work +
                  "' --out '" + all + "'",
              true);
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("grade: --gpus all: 2 GPUs (nvidia-smi -L)"), std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("grade: shard 0/2: 2 of the batch's 3 submissions"), std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("grade: 2 submissions, 2 at a time: GPU 0, GPU 1;"), std::string::npos)
      << run.output;
  EXPECT_TRUE(LineHas(run.output, {"] alice: 50/100 on GPU 0 ("})) << run.output;
  EXPECT_TRUE(LineHas(run.output, {"] carol: 60/100 on GPU 1 ("})) << run.output;
  EXPECT_TRUE(LineHas(run.output, {"gradebook: " + all + "/gradebook.csv (shard 0/2: 2 of 3 "
                                   "submissions, graded 2 at a time on GPU 0, GPU 1 in "}))
      << run.output;
  std::string items = ReadText(all + "/items.csv");
  EXPECT_NE(items.find("\nalice,reduction,speed,10,50,ratio 0.60 is below the target 1.00"),
            std::string::npos) << items;
  EXPECT_NE(items.find("\ncarol,reduction,speed,20,50,ratio 0.70 is below the target 1.00"),
            std::string::npos) << items;
  EXPECT_EQ(items.find("\nbob,"), std::string::npos) << items;
  EXPECT_FALSE(Exists(all + "/bob"));
  EXPECT_NE(ReadText(all + "/batch-manifest.txt").find("shard_count\t2\nshards\t0\ncomplete\tyes\n"),
            std::string::npos) << ReadText(all + "/batch-manifest.txt");
  // The GPU's name is asked for the grader's own GPU (nvidia-smi -i).
  EXPECT_NE(ReadText(all + "/carol/results.json").find("\"name\": \"Fake GPU 1\""),
            std::string::npos);
  EXPECT_TRUE(Exists(all + "/.gpus/gpu-0.lock"));
  EXPECT_TRUE(Exists(all + "/.gpus/gpu-1.lock"));

  // 3. SIGTERM while both graders run tests (carol's step 3 hangs until CTest's timeout):
  // every grader stops at once, no process of theirs is left, and the batch is not complete.
  std::string stop_subs = tmp_ + "/stop-subs";
  std::string carol = kGoodLab;
  carol.replace(carol.find("int fake_wait(void) { return 0; }"), 33,
                "int fake_wait(void) { for (volatile int i = 1; i;) {} return 0; }");
  WriteText(stop_subs + "/carol/reduction.c", carol);
  WriteText(stop_subs + "/dave/reduction.c", carol);
  std::string stopped = tmp_ + "/stopped", log = tmp_ + "/stopped.log";
  std::string command = "exec " + Command(Course() + "--batch '" + stop_subs + "' --gpus 0,0 " +
                                              "--work-dir '" + work + "' --out '" + stopped + "'",
                                          log);
  fflush(nullptr);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", command.c_str(), (char *)nullptr);
    _exit(127);
  }
  // Until both graders run carol's and dave's correctness tests (two minutes at most).
  double start = now_seconds();
  auto running = [&](const std::string &who) {
    return ReadText(log).find("] " + who + ": running the correctness tests of reduction") !=
           std::string::npos;
  };
  while (!(running("carol") && running("dave")) && now_seconds() - start < 120) usleep(100000);
  ASSERT_TRUE(running("carol") && running("dave")) << ReadText(log);
  usleep(500000);
  double sent = now_seconds();
  kill(pid, SIGTERM);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  double took = now_seconds() - sent;
  std::string output = ReadText(log);
  ASSERT_TRUE(WIFEXITED(status)) << output;
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGTERM) << output;
  EXPECT_LT(took, 3.0) << "the hung tests were stopped, not waited for (CTest's timeout is 4 s)";
  EXPECT_NE(output.find("grade: stopped (SIGTERM): stopping the 2 graders at work"),
            std::string::npos) << output;
  // (carol's grader may have finished, dave's cannot have: his hang lasts 4 s)
  EXPECT_TRUE(LineHas(output, {"grade: stopped: ", " of 2 submissions graded (in " + stopped +
                               "/gradebook.csv); the batch is not complete"})) << output;
  EXPECT_NE(ReadText(stopped + "/batch-manifest.txt").find("complete\tno\n"), std::string::npos);
  std::vector<std::string> left = ProcessesMentioning(tmp_);
  for (int i = 0; i < 30 && !left.empty(); i++) {  // those that got SIGTERM may take a moment
    usleep(100000);
    left = ProcessesMentioning(tmp_);
  }
  EXPECT_TRUE(left.empty()) << left.size() << " processes left, the first: " << left[0];
  // A merge refuses the stopped batch.
  merge = Grade("--merge '" + tmp_ + "/merged2' '" + stopped + "'");
  EXPECT_EQ(merge.status, 1) << merge.output;
}
