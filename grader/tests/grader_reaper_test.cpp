// The grader ends whatever a submission's tests leave running (src/reaper.c): a process that
// left its session, and one whose parent died (a double fork), come back to the grader and are
// ended before any result is read.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

extern "C" {
#include "reaper.h"
}

namespace {

// Starts, through a parent that exits at once, a grandchild in a session of its own that would
// sleep for a minute: what a test could leave behind. Returns the grandchild's pid.
pid_t LeaveAProcessBehind() {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return -1;
  pid_t parent = fork();
  if (parent == 0) {
    pid_t child = fork();
    if (child == 0) {
      setsid();
      sleep(60);
      _exit(0);
    }
    (void)!write(pipe_fds[1], &child, sizeof child);
    _exit(0);
  }
  pid_t grandchild = -1;
  (void)!read(pipe_fds[0], &grandchild, sizeof grandchild);
  close(pipe_fds[0]);
  close(pipe_fds[1]);
  waitpid(parent, nullptr, 0);
  return grandchild;
}

TEST(GraderReaper, EndsWhatTheTestsLeftRunning) {
  ASSERT_EQ(reaper_adopt(), 0);
  pid_t left = LeaveAProcessBehind();
  ASSERT_GT(left, 0);
  ASSERT_EQ(kill(left, 0), 0) << "the grandchild should still be running";
  strlist ended;
  sl_init(&ended);
  EXPECT_EQ(reaper_sweep(&ended), 1);
  ASSERT_EQ(ended.count, 1u);
  EXPECT_EQ(std::string(ended.items[0]).rfind(std::to_string(left) + " ", 0), 0u) << ended.items[0];
  EXPECT_NE(kill(left, 0), 0) << "the grandchild outlived the sweep";
  sl_free(&ended);
  prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
}

TEST(GraderReaper, NothingLeftIsNothingEnded) {
  ASSERT_EQ(reaper_adopt(), 0);
  strlist ended;
  sl_init(&ended);
  EXPECT_EQ(reaper_sweep(&ended), 0);
  EXPECT_EQ(ended.count, 0u);
  sl_free(&ended);
  prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
}

}  // namespace
