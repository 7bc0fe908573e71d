#define _POSIX_C_SOURCE 200809L
#include "batch_one.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gradebook.h"
#include "reaper.h"
#include "shard.h"

int batch_list_submissions(const char *submissions_dir, const char *out_dir, strlist *names,
                           strbuf *err) {
  DIR *dir = opendir(submissions_dir);
  if (dir == NULL) {
    sb_printf(err, "cannot read %s: %s", submissions_dir, strerror(errno));
    return -1;
  }
  struct dirent *entry;
  while ((entry = readdir(dir)) != NULL) {
    if (entry->d_name[0] == '.') continue;
    char *path = path_join(submissions_dir, entry->d_name);
    char *resolved = real_path(path);
    /* The output folder may sit inside the submissions folder: it is no submission. */
    if (dir_exists(path) && resolved && !path_is_inside(resolved, out_dir) &&
        !path_is_inside(out_dir, resolved)) {
      sl_push(names, entry->d_name);
    }
    free(resolved);
    free(path);
  }
  closedir(dir);
  sl_sort(names);
  return 0;
}

/* ---- the batch ---- */

/* Writes the three gradebook files and the manifest; 0, or 1 after saying what failed. */
static int write_outputs(const char *out_dir, strbuf files[GRADEBOOK_FILES],
                         const batch_manifest *manifest) {
  int rc = 0;
  for (int f = 0; f < GRADEBOOK_FILES; f++) {
    char *path = path_join(out_dir, gradebook_file_name((gradebook_file)f));
    if (write_file_atomic(path, files[f].data, files[f].len) != 0) {
      fprintf(stderr, "grade: cannot write %s: %s\n", path, strerror(errno));
      rc = 1;
    }
    free(path);
  }
  if (manifest_write(manifest, out_dir) != 0) {
    fprintf(stderr, "grade: cannot write %s/%s: %s\n", out_dir, BATCH_MANIFEST, strerror(errno));
    rc = 1;
  }
  return rc;
}

/* The gradebook files and manifest from the submissions graded so far, in the batch's order
 * (the header lines from the first of them, as one run in order writes them). */
static int write_graded(const char *out_dir, const strlist *mine, const graded_one *results,
                        batch_manifest *manifest) {
  strbuf files[GRADEBOOK_FILES];
  for (int f = 0; f < GRADEBOOK_FILES; f++) sb_init(&files[f]);
  sl_free(&manifest->graded);
  sl_init(&manifest->graded);
  sl_free(&manifest->gpus);
  sl_init(&manifest->gpus);
  int header_written = 0;
  for (size_t i = 0; i < mine->count; i++) {
    const graded_one *g = &results[i];
    if (!g->done) continue;
    for (int f = 0; f < GRADEBOOK_FILES; f++) {
      if (!header_written) sb_append_n(&files[f], g->header[f].data, g->header[f].len);
      sb_append_n(&files[f], g->rows[f].data, g->rows[f].len);
    }
    header_written = 1;
    if (!sl_contains(&manifest->gpus, g->gpu)) sl_push(&manifest->gpus, g->gpu);
    sl_push(&manifest->graded, mine->items[i]);
  }
  manifest->complete = manifest->graded.count == mine->count;
  int rc = write_outputs(out_dir, files, manifest);
  for (int f = 0; f < GRADEBOOK_FILES; f++) sb_free(&files[f]);
  return rc;
}

/* Points as the gradebook writes them: "540", "12.5". */
static char *points_text(double points) {
  char *text = xasprintf("%.2f", points);
  size_t n = strlen(text);
  while (n > 0 && text[n - 1] == '0') text[--n] = '\0';
  if (n > 0 && text[n - 1] == '.') text[--n] = '\0';
  if (strcmp(text, "-0") == 0) strcpy(text, "0");
  return text;
}

/* "40 s", "9 min", "2.5 h". */
static char *duration_text(double seconds) {
  if (seconds < 90) return xasprintf("%.0f s", seconds);
  if (seconds < 90 * 60) return xasprintf("%.0f min", seconds / 60);
  return xasprintf("%.1f h", seconds / 3600);
}

/* The slots' signal: SIGINT or SIGTERM, once one has come. */
static volatile sig_atomic_t stop_signal = 0;
static void on_stop_signal(int sig) { stop_signal = sig; }

/* The graders of a --gpus batch: a slot each, each a child process grading one submission at a
 * time into a result file of state_dir. */
typedef struct slot_pool {
  const grade_options *base;
  const char *submissions_dir, *out_dir;
  const strlist *mine;
  const gpu_slots *slots;
  size_t n_slots;
  char *state_dir;
  strlist work_dirs, locks, names; /* per slot: its work folder, its GPU's lock, its label */
  pid_t *pids;                     /* per slot: its grader, 0 when free */
  size_t *position;                /* per slot: the position in mine of what it grades */
  graded_one *results;             /* per position in mine */
  size_t next, finished, running;
  double start, graded_seconds;
} slot_pool;

/* Per slot: its work folder, its GPU's lock (one a physical GPU, by its CUDA_VISIBLE_DEVICES
 * value made safe for a file name) and the prefix of its progress lines. */
static void slot_pool_name(slot_pool *p) {
  const gpu_slots *slots = p->slots;
  for (size_t k = 0; k < p->n_slots; k++) {
    char *slot_name = xasprintf("slot-%zu", k);
    sl_push_owned(&p->work_dirs, path_join(p->base->work_dir, slot_name));
    free(slot_name);
    char *device = xstrdup(slots->devices.items[k]);
    for (char *c = device; *c; c++) {
      if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
            *c == '-' || *c == '_')) {
        *c = '_';
      }
    }
    char *lock_name = xasprintf("gpu-%s.lock", device);
    sl_push_owned(&p->locks, path_join(p->state_dir, lock_name));
    free(lock_name);
    free(device);
    size_t same = 0;
    for (size_t j = 0; j < p->n_slots; j++) {
      same += strcmp(slots->ids.items[j], slots->ids.items[k]) == 0;
    }
    if (!slots->pinned) sl_push_owned(&p->names, xstrdup("one grader"));
    else if (same > 1) sl_push_owned(&p->names, xasprintf("GPU %s, slot %zu", slots->ids.items[k], k));
    else sl_push_owned(&p->names, xasprintf("GPU %s", slots->ids.items[k]));
  }
}

/* The batch's first lines: how many at a time, on which GPUs, and where. */
static void slot_pool_announce(const slot_pool *p) {
  const gpu_slots *slots = p->slots;
  strbuf who;
  sb_init(&who);
  int shared = 0;
  for (size_t k = 0; k < p->n_slots; k++) {
    if (slots->pinned) sb_printf(&who, "%sGPU %s", k ? ", " : "", slots->ids.items[k]);
    for (size_t j = 0; j < k; j++) shared |= strcmp(slots->ids.items[j], slots->ids.items[k]) == 0;
  }
  char *last_slot = p->n_slots > 1 ? xasprintf(" to slot-%zu", p->n_slots - 1) : xstrdup("");
  fprintf(stderr, "grade: %zu submissions, %zu at a time: %s; work folders %s/slot-0%s\n",
          p->mine->count, p->n_slots, slots->pinned ? who.data : "one grader, pinned to no GPU",
          p->base->work_dir, last_slot);
  free(last_slot);
  if (shared) {
    fprintf(stderr, "grade: graders that share a GPU overlap their correctness tests and time "
                    "their performance tests one at a time (locks in %s)\n", p->state_dir);
  }
  sb_free(&who);
}

static char *result_path_of(const slot_pool *p, size_t position) {
  char *result_name = xasprintf("result-%zu", position);
  char *path = path_join(p->state_dir, result_name);
  free(result_name);
  return path;
}

/* Slot k's grader for the next submission. 0, or -1 when it could not be started. */
static int slot_start(slot_pool *p, size_t k) {
  size_t position = p->next++;
  const char *name = p->mine->items[position];
  char *label = xasprintf("[%s] %s", p->names.items[k], name);
  char *result_path = result_path_of(p, position);
  remove(result_path);
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    /* The slot's grader: its own process group (the batch stops it whole), the GPU in the
     * environment of all it runs. */
    setpgid(0, 0);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    if (p->slots->pinned) {
      setenv("CUDA_VISIBLE_DEVICES", p->slots->devices.items[k], 1);
      /* Numbers as nvidia-smi counts them (CUDA's own default order puts the fastest first). */
      setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 0);
    }
    graded_one g;
    graded_init(&g);
    grade_one(p->base, p->submissions_dir, p->out_dir, name, label, p->work_dirs.items[k],
              p->slots->pinned ? p->locks.items[k] : NULL, &g);
    char *text = graded_format(&g);
    int written = write_file_atomic(result_path, text, strlen(text)) == 0;
    if (!written) fprintf(stderr, "grade: cannot write %s: %s\n", result_path, strerror(errno));
    fflush(NULL);
    _exit(written ? 0 : 3);
  }
  int rc = 0;
  if (pid < 0) {
    fprintf(stderr, "grade: cannot start a grader for %s: %s\n", name, strerror(errno));
    p->next--;
    rc = -1;
  } else {
    setpgid(pid, pid); /* the child does the same: whichever comes first */
    p->pids[k] = pid;
    p->position[k] = position;
    p->running++;
    fprintf(stderr, "grade: %s: started (%zu of %zu)\n", label, position + 1, p->mine->count);
  }
  free(result_path);
  free(label);
  return rc;
}

/* Sends `sig` to every grader at work (each process group whole). */
static void slot_signal_all(const slot_pool *p, int sig) {
  for (size_t k = 0; k < p->n_slots; k++) {
    if (p->pids[k] != 0) kill(-p->pids[k], sig);
  }
}

/* A finished grade's progress line: its score, its time, and what is left. */
static void slot_report(const slot_pool *p, size_t k, const graded_one *g, const char *name) {
  char *score = points_text(g->totals.score), *max = points_text(g->totals.max_score);
  char *not_scored = points_text(g->totals.not_scored);
  char *took = duration_text(g->seconds);
  size_t left_count = p->mine->count - p->finished;
  char *left;
  if (left_count == 0) {
    char *all = duration_text(now_seconds() - p->start);
    left = xasprintf("all %zu graded in %s", p->mine->count, all);
    free(all);
  } else {
    char *estimate = duration_text(p->graded_seconds / (double)p->finished *
                                   (double)left_count / (double)p->n_slots);
    left = xasprintf("about %s left", estimate);
    free(estimate);
  }
  char *on = p->slots->pinned ? xasprintf(" on GPU %s", p->slots->ids.items[k]) : xstrdup("");
  char *unscored = g->totals.not_scored > 0 ? xasprintf(" (%s not scored)", not_scored)
                                            : xstrdup("");
  int width = (int)snprintf(NULL, 0, "%zu", p->mine->count);
  fprintf(stderr, "grade: [%*zu/%zu] %s: %s/%s%s%s (%s); %s\n", width, p->finished,
          p->mine->count, name, score, max, unscored, on, took, left);
  free(unscored);
  free(on);
  free(left);
  free(took);
  free(not_scored);
  free(max);
  free(score);
}

/* Slot k's grader ended with `status`: its result read into results (and the gradebook written
 * again), or the submission left out. 0, or 1 when the batch is not whole or a grade failed. */
static int slot_collect(slot_pool *p, size_t k, int status, int stopping,
                        batch_manifest *manifest) {
  p->pids[k] = 0;
  p->running--;
  size_t position = p->position[k];
  const char *name = p->mine->items[position];
  char *result_path = result_path_of(p, position);
  size_t length = 0;
  char *text = WIFEXITED(status) && WEXITSTATUS(status) == 0 ? read_file(result_path, &length)
                                                             : NULL;
  graded_one *g = &p->results[position];
  int rc = 0;
  if (text == NULL || graded_parse(text, length, g) != 0) {
    graded_free(g);
    graded_init(g);
    rc = 1;
    if (!stopping) {
      fprintf(stderr, "grade: %s: its grader ended without a result (%s %d); it is not in the "
                      "gradebook and the batch is not complete\n", name,
              WIFSIGNALED(status) ? "signal" : "exit status",
              WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    }
  } else {
    p->finished++;
    p->graded_seconds += g->seconds;
    if (g->rc) rc = 1;
    if (write_graded(p->out_dir, p->mine, p->results, manifest) != 0) rc = 1;
    slot_report(p, k, g, name);
  }
  free(text);
  remove(result_path);
  free(result_path);
  return rc;
}

static void slot_pool_free(slot_pool *p) {
  for (size_t i = 0; i < p->mine->count; i++) graded_free(&p->results[i]);
  free(p->results);
  free(p->pids);
  free(p->position);
  sl_free(&p->work_dirs);
  sl_free(&p->locks);
  sl_free(&p->names);
  free(p->state_dir);
}

/* The submissions of `mine` graded by the slots, each in a child process of its own. */
static int grade_in_slots(const grade_options *base, const char *submissions_dir,
                          const char *out_dir, const strlist *mine, const gpu_slots *slots,
                          batch_manifest *manifest) {
  slot_pool p;
  memset(&p, 0, sizeof p);
  p.base = base;
  p.submissions_dir = submissions_dir;
  p.out_dir = out_dir;
  p.mine = mine;
  p.slots = slots;
  p.n_slots = slots->ids.count;
  p.state_dir = path_join(out_dir, ".gpus");
  if (mkdir_p(p.state_dir) != 0) {
    fprintf(stderr, "grade: cannot make %s: %s\n", p.state_dir, strerror(errno));
    free(p.state_dir);
    return 1;
  }
  sl_init(&p.work_dirs);
  sl_init(&p.locks);
  sl_init(&p.names);
  slot_pool_name(&p);
  slot_pool_announce(&p);
  p.results = xcalloc(mine->count, sizeof *p.results);
  for (size_t i = 0; i < mine->count; i++) graded_init(&p.results[i]);
  p.pids = xcalloc(p.n_slots, sizeof *p.pids);
  p.position = xcalloc(p.n_slots, sizeof *p.position);

  struct sigaction action, old_int, old_term;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  stop_signal = 0;
  sigaction(SIGINT, &action, &old_int);
  sigaction(SIGTERM, &action, &old_term);

  int rc = 0, dispatch_failed = 0, stopping = 0, killed = 0;
  double stop_deadline = 0;
  p.start = now_seconds();
  for (;;) {
    /* Each free slot takes the next submission. */
    for (size_t k = 0; k < p.n_slots && !stop_signal && !dispatch_failed && p.next < mine->count;
         k++) {
      if (p.pids[k] != 0) continue;
      if (slot_start(&p, k) != 0) dispatch_failed = rc = 1;
    }
    if (stop_signal && !stopping) {
      stopping = 1;
      stop_deadline = now_seconds() + 10;
      fprintf(stderr, "grade: %s: stopping the %zu grader%s at work\n",
              stop_signal == SIGINT ? "interrupted (SIGINT)" : "stopped (SIGTERM)", p.running,
              p.running == 1 ? "" : "s");
      slot_signal_all(&p, SIGTERM);
    }
    if (stopping && !killed && p.running > 0 && now_seconds() > stop_deadline) {
      killed = 1;
      slot_signal_all(&p, SIGKILL);
    }
    if (p.running == 0) break;
    int status = 0;
    pid_t got = waitpid(-1, &status, WNOHANG);
    if (got == 0 || (got < 0 && errno == EINTR)) {
      struct timespec pause = {0, 100 * 1000 * 1000};
      nanosleep(&pause, NULL);
      continue;
    }
    if (got < 0) break; /* no child left */
    size_t k = 0;
    while (k < p.n_slots && p.pids[k] != got) k++;
    if (k < p.n_slots && slot_collect(&p, k, status, stopping, manifest) != 0) rc = 1;
  }
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  /* Once more, for a batch that was stopped or lost a submission (and for an empty one). */
  if (write_graded(out_dir, mine, p.results, manifest) != 0) rc = 1;
  if (stopping) {
    fprintf(stderr, "grade: stopped: %zu of %zu submissions graded (in %s/gradebook.csv); the "
                    "batch is not complete: grade it again to finish\n", p.finished, mine->count,
            out_dir);
    rc = 128 + stop_signal;
  }
  slot_pool_free(&p);
  return rc;
}

/* The batch's manifest: this shard, the course, the labs and their rubrics' fingerprint, the
 * configure arguments, every submission's name. */
static void batch_manifest_for(const grade_options *base, const char *submissions_dir,
                               const strlist *names, size_t shard_index, size_t shard_count,
                               batch_manifest *manifest) {
  manifest_init(manifest, shard_count);
  manifest->holds[shard_index] = 1;
  manifest->course = xstrdup(base->source_dir);
  manifest->submissions_dir = xstrdup(submissions_dir);
  const strlist *labs = base->labs.count ? &base->labs : &base->all_labs;
  strbuf labs_text;
  sb_init(&labs_text);
  for (size_t i = 0; i < labs->count; i++) sb_printf(&labs_text, "%s%s", i ? " " : "", labs->items[i]);
  manifest->labs = sb_steal(&labs_text);
  sb_free(&labs_text);
  manifest->rubrics = rubric_fingerprint(base->source_dir, labs);
  for (size_t i = 0; i < base->configure_args.count; i++) {
    sl_push(&manifest->cmake_args, base->configure_args.items[i]);
  }
  for (size_t i = 0; i < names->count; i++) sl_push(&manifest->submissions, names->items[i]);
}

/* The child's result, read to its end (the pipe closes when the child exits: the descendants it
 * starts do not inherit the pipe). */
static void read_result(int fd, strbuf *into) {
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) sb_append_n(into, buf, (size_t)n);
    else if (n == 0 || errno != EINTR) break;
  }
}

/* The child's side: grade the submission, hand the result to the parent, leave. */
static void grade_and_answer(const grade_options *base, const char *submissions_dir,
                             const char *out_dir, const char *name, const char *label, int fd) {
  graded_one g;
  graded_init(&g);
  grade_one(base, submissions_dir, out_dir, name, label, NULL, NULL, &g);
  char *text = graded_format(&g);
  size_t length = strlen(text), sent = 0;
  while (sent < length) {
    ssize_t n = write(fd, text + sent, length - sent);
    if (n > 0) sent += (size_t)n;
    else if (n < 0 && errno != EINTR) break;
  }
  fflush(NULL);
  _exit(sent == length ? 0 : 3);
}

/* One submission graded by a grader process of its own (as a slot's is): whatever that grade
 * leaves behind, a crash included, ends with it and touches no other submission. Fills `g`;
 * a grader that ended without a result leaves g empty with rc 1, and says so. */
static void grade_in_child(const grade_options *base, const char *submissions_dir,
                           const char *out_dir, const char *name, const char *label,
                           graded_one *g) {
  int fds[2];
  if (pipe(fds) != 0) {
    fprintf(stderr, "grade: %s: no pipe to a grader of its own (%s); graded here\n", label,
            strerror(errno));
    grade_one(base, submissions_dir, out_dir, name, label, NULL, NULL, g);
    return;
  }
  fcntl(fds[0], F_SETFD, FD_CLOEXEC);
  fcntl(fds[1], F_SETFD, FD_CLOEXEC);
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    grade_and_answer(base, submissions_dir, out_dir, name, label, fds[1]);
  }
  close(fds[1]);
  strbuf text;
  sb_init(&text);
  if (pid > 0) read_result(fds[0], &text);
  close(fds[0]);
  int status = 0;
  while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  reaper_sweep(NULL); /* what a grader that died left running, before the next submission */
  int ok = pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
           graded_parse(text.data, text.len, g) == 0;
  sb_free(&text);
  if (!ok) {
    graded_free(g);
    graded_init(g);
    g->rc = 1;
    if (pid < 0) {
      fprintf(stderr, "grade: %s: cannot start its grader: %s\n", label, strerror(errno));
    } else {
      fprintf(stderr, "grade: %s: its grader ended without a result (%s %d); it is not in the "
                      "gradebook and the batch is not complete\n", label, WIFSIGNALED(status) ? "signal" : "exit status",
              WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    }
  }
}

/* The submissions of `mine` graded one after another, each by a grader process of its own
 * (grade_in_child), the gradebook files rewritten after each. 0, or 1 when a grade or a write
 * failed. */
static int grade_in_turn(const grade_options *base, const char *submissions_dir,
                         const char *out_dir, const strlist *mine, batch_manifest *manifest,
                         strbuf files[GRADEBOOK_FILES], double start) {
  int rc = 0, header_written = 0;
  reaper_adopt(); /* a grader's orphans come back here, to be swept before the next one */
  for (size_t i = 0; i < mine->count; i++) {
    const char *name = mine->items[i];
    char *label = xasprintf("[%*zu/%zu] %s", (int)snprintf(NULL, 0, "%zu", mine->count), i + 1,
                            mine->count, name);
    graded_one g;
    graded_init(&g);
    grade_in_child(base, submissions_dir, out_dir, name, label, &g);
    if (g.rc) rc = 1;
    if (g.done) { /* a grader that ended without a result leaves its submission out */
      for (int f = 0; f < GRADEBOOK_FILES; f++) {
        if (!header_written) sb_append_n(&files[f], g.header[f].data, g.header[f].len);
        sb_append_n(&files[f], g.rows[f].data, g.rows[f].len);
      }
      header_written = 1;
      if (!sl_contains(&manifest->gpus, g.gpu)) sl_push(&manifest->gpus, g.gpu);
      sl_push(&manifest->graded, name);
    }
    manifest->complete = manifest->graded.count == mine->count;
    /* Rewritten after each submission, so an interrupted batch keeps what it graded. */
    if (write_outputs(out_dir, files, manifest) != 0) rc = 1;
    double elapsed = now_seconds() - start;
    double left = elapsed / (double)(i + 1) * (double)(mine->count - i - 1);
    fprintf(stderr, "grade: %s: %.2f of %.2f points%s; %.0f s so far, about %.0f s to go\n",
            label, g.totals.score, g.totals.max_score,
            g.totals.not_scored > 0 ? " (some items not scored)" : "", elapsed, left);
    graded_free(&g);
    free(label);
  }
  return rc;
}

/* The batch's last line: where the gradebook is, and how it was graded. */
static void print_gradebook_line(const char *out_dir, size_t graded, size_t all,
                                 size_t shard_index, size_t shard_count, const gpu_slots *slots,
                                 double start) {
  char *gradebook = path_join(out_dir, "gradebook.csv");
  char *how = xstrdup("");
  if (slots != NULL && slots->pinned) {
    char *gpus = gpu_slots_text(slots);
    free(how);
    how = xasprintf(", graded %zu at a time on %s in %.0f s", slots->ids.count, gpus,
                    now_seconds() - start);
    free(gpus);
  }
  if (shard_count > 1) {
    printf("gradebook: %s (shard %zu/%zu: %zu of %zu submissions%s; join the shards with "
           "grade --merge)\n", gradebook, shard_index, shard_count, graded, all, how);
  } else {
    printf("gradebook: %s (%zu submissions%s); lms.csv and items.csv beside it\n", gradebook,
           graded, how);
  }
  free(how);
  free(gradebook);
}

int grade_batch(const grade_options *base, const char *submissions_dir, const char *out_dir,
                size_t shard_index, size_t shard_count, const gpu_slots *slots) {
  strlist names;
  sl_init(&names);
  strbuf err;
  sb_init(&err);
  if (batch_list_submissions(submissions_dir, out_dir, &names, &err) != 0) {
    fprintf(stderr, "grade: %s\n", err.data);
    sb_free(&err);
    sl_free(&names);
    return 1;
  }
  sb_free(&err);
  if (names.count == 0) {
    fprintf(stderr, "grade: %s holds no submission folders\n", submissions_dir);
    sl_free(&names);
    return 1;
  }
  if (shard_count < 1 || shard_index >= shard_count) shard_index = 0, shard_count = 1;

  /* This shard's submissions: every shard_count-th of the sorted list, from shard_index. */
  strlist mine;
  sl_init(&mine);
  for (size_t i = 0; i < names.count; i++) {
    if (shard_of(i, shard_count) == shard_index) sl_push(&mine, names.items[i]);
  }
  /* A submission's reports go to OUT/<name>: never into the work folder (OUT/work unless
   * --work-dir says otherwise). */
  for (size_t i = 0; i < mine.count; i++) {
    char *sub_out = path_join(out_dir, mine.items[i]);
    int clash = base->work_dir && (path_is_inside(sub_out, base->work_dir) ||
                                   path_is_inside(base->work_dir, sub_out));
    if (clash) {
      fprintf(stderr, "grade: the submission '%s' would write its reports into the work folder "
                      "%s: give the work folder another place (--work-dir DIR)\n",
              mine.items[i], base->work_dir);
    }
    free(sub_out);
    if (clash) {
      sl_free(&mine);
      sl_free(&names);
      return 1;
    }
  }

  batch_manifest manifest;
  batch_manifest_for(base, submissions_dir, &names, shard_index, shard_count, &manifest);

  strbuf files[GRADEBOOK_FILES];
  for (int f = 0; f < GRADEBOOK_FILES; f++) sb_init(&files[f]);
  int rc = 0;
  if (shard_count > 1) {
    fprintf(stderr, "grade: shard %zu/%zu: %zu of the batch's %zu submissions (in name order, "
                    "counting from 0: numbers %zu, %zu, %zu, ...)\n",
            shard_index, shard_count, mine.count, names.count, shard_index,
            shard_index + shard_count, shard_index + 2 * shard_count);
  }
  if (mine.count == 0) {
    /* More shards than submissions: this one has none, and says so (it still merges). */
    manifest.complete = 1;
    rc = write_outputs(out_dir, files, &manifest);
    printf("shard %zu/%zu: no submission to grade (the batch holds %zu); %s/%s written\n",
           shard_index, shard_count, names.count, out_dir, BATCH_MANIFEST);
  }
  /* Written before the first grade: a merge sees this folder as not complete until the end. */
  if (mine.count > 0 && manifest_write(&manifest, out_dir) != 0) {
    fprintf(stderr, "grade: cannot write %s/%s: %s\n", out_dir, BATCH_MANIFEST, strerror(errno));
    rc = 1;
  }

  double start = now_seconds();
  if (slots != NULL && mine.count > 0) {
    int slots_rc = grade_in_slots(base, submissions_dir, out_dir, &mine, slots, &manifest);
    if (slots_rc > rc) rc = slots_rc;
  }
  if (slots == NULL && mine.count > 0) {
    if (grade_in_turn(base, submissions_dir, out_dir, &mine, &manifest, files, start) != 0) rc = 1;
  }
  if (mine.count > 0 && rc < 128) {
    print_gradebook_line(out_dir, mine.count, names.count, shard_index, shard_count, slots, start);
  }
  for (int f = 0; f < GRADEBOOK_FILES; f++) sb_free(&files[f]);
  manifest_free(&manifest);
  sl_free(&mine);
  sl_free(&names);
  return rc;
}
