/* Ending what the tests left behind (reaper.h). */
#define _GNU_SOURCE
#include "reaper.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int reaper_adopt(void) { return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); }

/* The state, the parent and the command of process `pid`, from /proc/<pid>/stat ("pid (comm)
 * state ppid ..."; comm may hold spaces and parentheses, so it ends at the last ')'). 0, or -1. */
static int stat_of(const char *pid, char *state, pid_t *ppid, char *comm, size_t size) {
  char path[300], text[512];
  snprintf(path, sizeof path, "/proc/%s/stat", pid);
  FILE *f = fopen(path, "re");
  if (f == NULL) return -1;
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  char *open = strchr(text, '('), *close = strrchr(text, ')');
  if (open == NULL || close == NULL || close < open) return -1;
  snprintf(comm, size, "%.*s", (int)(close - open - 1), open + 1);
  int parent = 0;
  if (sscanf(close + 1, " %c %d", state, &parent) != 2) return -1;
  *ppid = (pid_t)parent;
  return 0;
}

#define MAX_ENDED 4096

typedef struct sweep {
  pid_t killed[MAX_ENDED];
  int count;
} sweep;

static int already_killed(const sweep *s, pid_t pid) {
  for (int i = 0; i < s->count; ++i) {
    if (s->killed[i] == pid) return 1;
  }
  return 0;
}

/* One pass over this process's children. Returns how many have not ended yet (zombies aside);
 * with a sweep, each of those not yet killed is killed (its own children then come back here)
 * and named in `ended`. */
static int children(sweep *s, strlist *ended) {
  DIR *proc = opendir("/proc");
  if (proc == NULL) return 0;
  const pid_t self = getpid();
  int live = 0;
  struct dirent *e;
  while ((e = readdir(proc)) != NULL) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    pid_t ppid = 0;
    char state = 0, comm[256];
    if (stat_of(e->d_name, &state, &ppid, comm, sizeof comm) != 0 || ppid != self) continue;
    if (state == 'Z') continue;
    ++live;
    pid_t pid = (pid_t)atol(e->d_name);
    if (s == NULL || already_killed(s, pid) || kill(pid, SIGKILL) != 0) continue;
    if (s->count < MAX_ENDED) s->killed[s->count++] = pid;
    if (ended != NULL) sl_push_owned(ended, xasprintf("%d %s", (int)pid, comm));
  }
  closedir(proc);
  return live;
}

static void reap_zombies(void) {
  while (waitpid(-1, NULL, WNOHANG) > 0) {
  }
}

int reaper_sweep(strlist *ended) {
  /* A lab worker dies with its test program (PR_SET_PDEATHSIG), but not in the same instant:
   * orphaned, it comes here first and may take a moment to end (a GPU context to tear down).
   * Only what is still running after a grace of 3 s was left running. */
  for (int wait = 0; wait < 300; ++wait) {
    reap_zombies();
    if (children(NULL, NULL) == 0) return 0;
    struct timespec pause = {0, 10000000};
    nanosleep(&pause, NULL);
  }
  sweep s;
  s.count = 0;
  /* Until no child is left, for 10 s at most: the sandbox forbids new processes, so a handful
   * at most is ever expected, and a killed process is gone within milliseconds. */
  for (int round = 0; round < 5000; ++round) {
    int live = children(&s, ended);
    reap_zombies();
    if (live == 0) break;
    struct timespec pause = {0, 2000000};
    nanosleep(&pause, NULL);
  }
  reap_zombies();
  return s.count;
}
