#define _POSIX_C_SOURCE 200809L
#include "batch.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gradebook.h"
#include "proc.h"
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

/* ---- --gpus: the slots ---- */

void gpu_slots_init(gpu_slots *slots) {
  memset(slots, 0, sizeof *slots);
  sl_init(&slots->ids);
  sl_init(&slots->devices);
}

void gpu_slots_free(gpu_slots *slots) {
  sl_free(&slots->ids);
  sl_free(&slots->devices);
  memset(slots, 0, sizeof *slots);
}

#define GPU_NUMBER_MAX 4095

int gpu_slots_parse(const char *text, gpu_slots *slots, strbuf *err) {
  gpu_slots_free(slots);
  gpu_slots_init(slots);
  const char *usage = "--gpus takes all, or GPU numbers separated by commas (0,1; a number may "
                      "repeat: 0,0 puts two graders on GPU 0)";
  if (strcmp(text, "all") == 0) {
    slots->all = 1;
    return 0;
  }
  if (text[0] == '\0') {
    sb_printf(err, "%s, not an empty value", usage);
    return -1;
  }
  size_t count = 0;
  for (const char *p = text;; p++) {
    size_t n = strcspn(p, ",");
    count++;
    if (n == 0) {
      sb_printf(err, "%s, not '%s': a number is missing %s", usage, text,
                p == text ? "before the first comma" : p[0] == '\0' ? "after the last comma"
                                                                     : "between two commas");
      return -1;
    }
    size_t digits = strspn(p, "0123456789");
    if (digits != n || n > 4 || strtol(p, NULL, 10) > GPU_NUMBER_MAX) {
      sb_printf(err, "%s, not '%s': '%.*s' is not a GPU number (0 to %d)", usage, text, (int)n, p,
                GPU_NUMBER_MAX);
      return -1;
    }
    if (count > GPU_SLOTS_MAX) {
      sb_printf(err, "--gpus names more than %d graders ('%s')", GPU_SLOTS_MAX, text);
      return -1;
    }
    char number[8];
    snprintf(number, sizeof number, "%ld", strtol(p, NULL, 10)); /* "007" is GPU 7 */
    sl_push(&slots->ids, number);
    p += n;
    if (*p == '\0') break;
  }
  return 0;
}

/* The GPUs `nvidia-smi -L` lists ("GPU 0: NVIDIA H200 (UUID: ...)"; MIG instances, indented,
 * are not GPUs of their own here); -1 when it does not run. */
static long count_nvidia_smi(const char *nvidia_smi) {
  char *argv[] = {(char *)nvidia_smi, "-L", NULL};
  char *text = run_capture(argv, NULL);
  if (text == NULL) return -1;
  long count = 0;
  for (const char *line = text; line && *line;) {
    if (starts_with(line, "GPU ")) count++;
    line = strchr(line, '\n');
    if (line) line++;
  }
  free(text);
  return count;
}

/* The count of /dev/nvidia<N> (the driver's device files; nvidiactl and the like are not GPUs). */
static long count_dev_nvidia(const char *dev_dir) {
  DIR *dir = opendir(dev_dir);
  if (dir == NULL) return 0;
  long count = 0;
  struct dirent *entry;
  while ((entry = readdir(dir)) != NULL) {
    const char *rest = entry->d_name + 6;
    if (strncmp(entry->d_name, "nvidia", 6) == 0 && rest[0] != '\0' &&
        strspn(rest, "0123456789") == strlen(rest)) {
      count++;
    }
  }
  closedir(dir);
  return count;
}

int gpu_slots_resolve(gpu_slots *slots, const char *visible, const char *nvidia_smi,
                      const char *dev_dir, strbuf *note, strbuf *err) {
  sl_free(&slots->devices);
  sl_init(&slots->devices);
  slots->pinned = 1;
  strlist listed; /* the GPUs there are, as CUDA_VISIBLE_DEVICES would name each */
  sl_init(&listed);
  const char *found_by;
  if (visible != NULL) {
    /* Already narrowed (a Slurm job's GPUs, or by hand): number k is its k-th entry. */
    for (const char *p = visible; *p;) {
      size_t n = strcspn(p, ",");
      char *entry = trim_copy(p, n);
      if (entry[0] != '\0') sl_push_owned(&listed, entry);
      else free(entry);
      p += n;
      if (*p == ',') p++;
    }
    found_by = "CUDA_VISIBLE_DEVICES";
  } else {
    long count = count_nvidia_smi(nvidia_smi);
    found_by = "nvidia-smi -L";
    if (count <= 0) {
      long devices = count_dev_nvidia(dev_dir);
      if (devices > 0 || count < 0) {
        count = devices;
        found_by = "the device files";
      }
    }
    for (long k = 0; k < count && k < GPU_SLOTS_MAX; k++) sl_push_owned(&listed, xasprintf("%ld", k));
  }

  int rc = 0;
  if (slots->all) {
    sl_free(&slots->ids);
    sl_init(&slots->ids);
    if (listed.count == 0) {
      slots->pinned = 0;
      sl_push(&slots->ids, "-");
      sl_push(&slots->devices, "");
      if (visible != NULL) {
        sb_printf(note, "--gpus all: CUDA_VISIBLE_DEVICES='%s' names no GPU: grading one "
                        "submission at a time, pinned to no GPU", visible);
      } else {
        sb_printf(note, "--gpus all: no GPU found (no nvidia-smi -L that lists one, and %s has no "
                        "nvidia0, nvidia1, ...): grading one submission at a time, pinned to no "
                        "GPU", dev_dir);
      }
    } else {
      for (size_t k = 0; k < listed.count; k++) {
        sl_push_owned(&slots->ids, xasprintf("%zu", k));
        sl_push(&slots->devices, listed.items[k]);
      }
      sb_printf(note, "--gpus all: %zu GPUs (%s)", listed.count, found_by);
    }
  } else {
    for (size_t k = 0; rc == 0 && k < slots->ids.count; k++) {
      const char *id = slots->ids.items[k];
      size_t number = (size_t)strtoul(id, NULL, 10);
      if (visible != NULL) {
        if (number >= listed.count) {
          sb_printf(err, "--gpus names GPU %s, but CUDA_VISIBLE_DEVICES='%s' leaves the grader "
                         "%zu GPU%s (numbered from 0, in its order)", id, visible, listed.count,
                    listed.count == 1 ? "" : "s");
          rc = -1;
        } else {
          sl_push(&slots->devices, listed.items[number]);
        }
      } else if (listed.count > 0 && number >= listed.count) {
        sb_printf(err, "--gpus names GPU %s, but %s finds %zu GPU%s here (0 to %zu)", id, found_by,
                  listed.count, listed.count == 1 ? "" : "s", listed.count - 1);
        rc = -1;
      } else {
        sl_push(&slots->devices, id);
      }
    }
    if (rc == 0 && visible == NULL && listed.count == 0) {
      sb_printf(note, "--gpus: no GPU found here to check the numbers against (no nvidia-smi -L "
                      "that lists one, and %s has no nvidia0, ...): each grader gets "
                      "CUDA_VISIBLE_DEVICES as given", dev_dir);
    }
  }
  sl_free(&listed);
  return rc;
}

char *gpu_slots_text(const gpu_slots *slots) {
  strbuf sb;
  sb_init(&sb);
  strlist seen;
  sl_init(&seen);
  for (size_t k = 0; k < slots->ids.count; k++) {
    if (sl_contains(&seen, slots->ids.items[k])) continue;
    sl_push(&seen, slots->ids.items[k]);
    sb_printf(&sb, "%sGPU %s", sb.len ? ", " : "", slots->ids.items[k]);
  }
  sl_free(&seen);
  return sb_steal(&sb);
}

/* ---- one submission ---- */

/* What a report says it ran on, for the manifest (shards merged from different GPUs get a
 * warning: performance ratios are measured on each shard's own GPU). */
static char *graded_on(const grade_report *report) {
  if (report->backend && strcmp(report->backend, "sim") == 0) return xstrdup("CPU backend");
  if (report->gpu_present) return xstrdup(report->gpu_name ? report->gpu_name : "a CUDA device");
  return xstrdup("no GPU");
}

/* What a batch keeps of one graded submission: its gradebook lines (and the files' header
 * lines, the same for every submission of a batch), where it ran, its totals. */
typedef struct graded_one {
  int done;
  strbuf header[GRADEBOOK_FILES];
  strbuf rows[GRADEBOOK_FILES];
  char *gpu;
  report_totals totals;
  int rc; /* 1: something kept it from being graded fully */
  double seconds;
} graded_one;

static void graded_init(graded_one *g) {
  memset(g, 0, sizeof *g);
  for (int f = 0; f < GRADEBOOK_FILES; f++) {
    sb_init(&g->header[f]);
    sb_init(&g->rows[f]);
  }
}

static void graded_free(graded_one *g) {
  for (int f = 0; f < GRADEBOOK_FILES; f++) {
    sb_free(&g->header[f]);
    sb_free(&g->rows[f]);
  }
  free(g->gpu);
  memset(g, 0, sizeof *g);
}

/* Grades one submission into <out_dir>/<name>/ and fills `g`. `work_dir` and `gpu_lock`
 * replace the base options' (NULL: keep them). */
static void grade_one(const grade_options *base, const char *submissions_dir, const char *out_dir,
                      const char *name, const char *label, const char *work_dir,
                      const char *gpu_lock, graded_one *g) {
  double start = now_seconds();
  char *submission = path_join(submissions_dir, name);
  char *sub_out = path_join(out_dir, name);
  grade_options opt = *base;
  opt.submission = submission;
  opt.out_dir = sub_out;
  opt.progress = label;
  if (work_dir) opt.work_dir = work_dir;
  if (gpu_lock) opt.gpu_lock = gpu_lock;
  grade_report report;
  report_init(&report);
  g->rc = grade_run(&opt, &report) != 0;
  strbuf err;
  sb_init(&err);
  if (grade_write_reports(&report, sub_out, &err) != 0) {
    fprintf(stderr, "grade: %s", err.data);
    g->rc = 1;
  }
  sb_free(&err);
  for (int f = 0; f < GRADEBOOK_FILES; f++) {
    gradebook_file_header((gradebook_file)f, &report, &g->header[f]);
    gradebook_file_rows((gradebook_file)f, name, &report, &g->rows[f]);
  }
  g->gpu = graded_on(&report);
  report_totals_of(&report, &g->totals);
  report_free(&report);
  free(sub_out);
  free(submission);
  g->seconds = now_seconds() - start;
  g->done = 1;
}

/* A slot's result travels to the batch in a file: fields "<key> <length>\n<bytes>\n". */
static void put_field(strbuf *sb, const char *key, const char *data, size_t length) {
  sb_printf(sb, "%s %zu\n", key, length);
  sb_append_n(sb, data, length);
  sb_append_char(sb, '\n');
}

static char *graded_format(const graded_one *g) {
  strbuf sb;
  sb_init(&sb);
  for (int f = 0; f < GRADEBOOK_FILES; f++) {
    char key[16];
    snprintf(key, sizeof key, "header%d", f);
    put_field(&sb, key, g->header[f].data, g->header[f].len);
    snprintf(key, sizeof key, "rows%d", f);
    put_field(&sb, key, g->rows[f].data, g->rows[f].len);
  }
  put_field(&sb, "gpu", g->gpu, strlen(g->gpu));
  char *numbers = xasprintf("%.17g %.17g %.17g %d %.17g", g->totals.score, g->totals.max_score,
                            g->totals.not_scored, g->rc, g->seconds);
  put_field(&sb, "numbers", numbers, strlen(numbers));
  free(numbers);
  return sb_steal(&sb);
}

/* 0, or -1 when the text is not a whole result. */
static int graded_parse(const char *text, size_t length, graded_one *g) {
  int have = 0;
  size_t at = 0;
  while (at < length) {
    const char *eol = memchr(text + at, '\n', length - at);
    if (eol == NULL) return -1;
    char key[16];
    size_t n = 0;
    char *line = xstrndup(text + at, (size_t)(eol - (text + at)));
    int fields = sscanf(line, "%15s %zu", key, &n);
    free(line);
    at = (size_t)(eol - text) + 1;
    if (fields != 2 || n > length - at || at + n >= length || text[at + n] != '\n') return -1;
    const char *data = text + at;
    at += n + 1;
    if (strncmp(key, "header", 6) == 0 || strncmp(key, "rows", 4) == 0) {
      int f = key[strlen(key) - 1] - '0';
      if (f < 0 || f >= GRADEBOOK_FILES) return -1;
      strbuf *into = key[0] == 'h' ? &g->header[f] : &g->rows[f];
      sb_clear(into);
      sb_append_n(into, data, n);
      have |= 1 << (key[0] == 'h' ? f : GRADEBOOK_FILES + f);
    } else if (strcmp(key, "gpu") == 0) {
      free(g->gpu);
      g->gpu = xstrndup(data, n);
      have |= 1 << 6;
    } else if (strcmp(key, "numbers") == 0) {
      char *numbers = xstrndup(data, n);
      if (sscanf(numbers, "%lf %lf %lf %d %lf", &g->totals.score, &g->totals.max_score,
                 &g->totals.not_scored, &g->rc, &g->seconds) == 5) {
        have |= 1 << 7;
      }
      free(numbers);
    }
  }
  if (have != 0xff) return -1;
  g->done = 1;
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

/* The submissions of `mine` graded by the slots, each in a child process of its own. */
static int grade_in_slots(const grade_options *base, const char *submissions_dir,
                          const char *out_dir, const strlist *mine, const gpu_slots *slots,
                          batch_manifest *manifest) {
  size_t n_slots = slots->ids.count;
  const char *work_root = base->work_dir;
  char *state_dir = path_join(out_dir, ".gpus");
  if (mkdir_p(state_dir) != 0) {
    fprintf(stderr, "grade: cannot make %s: %s\n", state_dir, strerror(errno));
    free(state_dir);
    return 1;
  }
  /* Per slot: its work folder, its GPU's lock, the prefix of its progress lines. */
  strlist work_dirs, locks, names;
  sl_init(&work_dirs);
  sl_init(&locks);
  sl_init(&names);
  for (size_t k = 0; k < n_slots; k++) {
    char *slot_name = xasprintf("slot-%zu", k);
    sl_push_owned(&work_dirs, path_join(work_root, slot_name));
    free(slot_name);
    /* One lock per physical GPU: its CUDA_VISIBLE_DEVICES value, made safe for a file name. */
    char *device = xstrdup(slots->devices.items[k]);
    for (char *c = device; *c; c++) {
      if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
            *c == '-' || *c == '_')) {
        *c = '_';
      }
    }
    char *lock_name = xasprintf("gpu-%s.lock", device);
    sl_push_owned(&locks, path_join(state_dir, lock_name));
    free(lock_name);
    free(device);
    size_t same = 0;
    for (size_t j = 0; j < n_slots; j++) same += strcmp(slots->ids.items[j], slots->ids.items[k]) == 0;
    if (!slots->pinned) sl_push_owned(&names, xstrdup("one grader"));
    else if (same > 1) sl_push_owned(&names, xasprintf("GPU %s, slot %zu", slots->ids.items[k], k));
    else sl_push_owned(&names, xasprintf("GPU %s", slots->ids.items[k]));
  }
  strbuf who;
  sb_init(&who);
  int shared = 0;
  for (size_t k = 0; k < n_slots; k++) {
    if (slots->pinned) sb_printf(&who, "%sGPU %s", k ? ", " : "", slots->ids.items[k]);
    for (size_t j = 0; j < k; j++) shared |= strcmp(slots->ids.items[j], slots->ids.items[k]) == 0;
  }
  char *last_slot = n_slots > 1 ? xasprintf(" to slot-%zu", n_slots - 1) : xstrdup("");
  fprintf(stderr, "grade: %zu submissions, %zu at a time: %s; work folders %s/slot-0%s\n",
          mine->count, n_slots, slots->pinned ? who.data : "one grader, pinned to no GPU",
          work_root, last_slot);
  free(last_slot);
  if (shared) {
    fprintf(stderr, "grade: graders that share a GPU overlap their correctness tests and time "
                    "their performance tests one at a time (locks in %s)\n", state_dir);
  }
  sb_free(&who);

  graded_one *results = xcalloc(mine->count, sizeof *results);
  for (size_t i = 0; i < mine->count; i++) graded_init(&results[i]);
  pid_t *pids = xcalloc(n_slots, sizeof *pids);
  size_t *slot_position = xcalloc(n_slots, sizeof *slot_position);

  struct sigaction action, old_int, old_term;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  stop_signal = 0;
  sigaction(SIGINT, &action, &old_int);
  sigaction(SIGTERM, &action, &old_term);

  int rc = 0, dispatch_failed = 0, stopping = 0, killed = 0;
  size_t next = 0, finished = 0, running = 0;
  double start = now_seconds(), stop_deadline = 0, graded_seconds = 0;
  int width = (int)snprintf(NULL, 0, "%zu", mine->count);
  for (;;) {
    /* Each free slot takes the next submission. */
    for (size_t k = 0; k < n_slots && !stop_signal && !dispatch_failed && next < mine->count; k++) {
      if (pids[k] != 0) continue;
      size_t position = next++;
      const char *name = mine->items[position];
      char *label = xasprintf("[%s] %s", names.items[k], name);
      char *result_name = xasprintf("result-%zu", position);
      char *result_path = path_join(state_dir, result_name);
      free(result_name);
      remove(result_path);
      fflush(NULL);
      pid_t pid = fork();
      if (pid == 0) {
        /* The slot's grader: its own process group (the batch stops it whole), the GPU in the
         * environment of all it runs. */
        setpgid(0, 0);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        if (slots->pinned) {
          setenv("CUDA_VISIBLE_DEVICES", slots->devices.items[k], 1);
          /* Numbers as nvidia-smi counts them (CUDA's own default order puts the fastest
           * first). */
          setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 0);
        }
        graded_one g;
        graded_init(&g);
        grade_one(base, submissions_dir, out_dir, name, label, work_dirs.items[k],
                  slots->pinned ? locks.items[k] : NULL, &g);
        char *text = graded_format(&g);
        int written = write_file_atomic(result_path, text, strlen(text)) == 0;
        if (!written) fprintf(stderr, "grade: cannot write %s: %s\n", result_path, strerror(errno));
        fflush(NULL);
        _exit(written ? 0 : 3);
      }
      if (pid < 0) {
        fprintf(stderr, "grade: cannot start a grader for %s: %s\n", name, strerror(errno));
        next--;
        dispatch_failed = 1;
        rc = 1;
      } else {
        setpgid(pid, pid); /* the child does the same: whichever comes first */
        pids[k] = pid;
        slot_position[k] = position;
        running++;
        fprintf(stderr, "grade: %s: started (%zu of %zu)\n", label, position + 1, mine->count);
      }
      free(result_path);
      free(label);
    }
    if (stop_signal && !stopping) {
      stopping = 1;
      stop_deadline = now_seconds() + 10;
      fprintf(stderr, "grade: %s: stopping the %zu grader%s at work\n",
              stop_signal == SIGINT ? "interrupted (SIGINT)" : "stopped (SIGTERM)", running,
              running == 1 ? "" : "s");
      for (size_t k = 0; k < n_slots; k++) {
        if (pids[k] != 0) kill(-pids[k], SIGTERM);
      }
    }
    if (stopping && !killed && running > 0 && now_seconds() > stop_deadline) {
      killed = 1;
      for (size_t k = 0; k < n_slots; k++) {
        if (pids[k] != 0) kill(-pids[k], SIGKILL);
      }
    }
    if (running == 0) break;
    int status = 0;
    pid_t got = waitpid(-1, &status, WNOHANG);
    if (got == 0 || (got < 0 && errno == EINTR)) {
      struct timespec pause = {0, 100 * 1000 * 1000};
      nanosleep(&pause, NULL);
      continue;
    }
    if (got < 0) break; /* no child left */
    size_t k = 0;
    while (k < n_slots && pids[k] != got) k++;
    if (k == n_slots) continue;
    pids[k] = 0;
    running--;
    size_t position = slot_position[k];
    const char *name = mine->items[position];
    char *result_name = xasprintf("result-%zu", position);
    char *result_path = path_join(state_dir, result_name);
    free(result_name);
    size_t length = 0;
    char *text = WIFEXITED(status) && WEXITSTATUS(status) == 0 ? read_file(result_path, &length) : NULL;
    graded_one *g = &results[position];
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
      finished++;
      graded_seconds += g->seconds;
      if (g->rc) rc = 1;
      if (write_graded(out_dir, mine, results, manifest) != 0) rc = 1;
      char *score = points_text(g->totals.score), *max = points_text(g->totals.max_score);
      char *not_scored = points_text(g->totals.not_scored);
      char *took = duration_text(g->seconds);
      size_t left_count = mine->count - finished;
      char *left;
      if (left_count == 0) {
        char *all = duration_text(now_seconds() - start);
        left = xasprintf("all %zu graded in %s", mine->count, all);
        free(all);
      } else {
        char *estimate = duration_text(graded_seconds / (double)finished * (double)left_count /
                                       (double)n_slots);
        left = xasprintf("about %s left", estimate);
        free(estimate);
      }
      char *on = slots->pinned ? xasprintf(" on GPU %s", slots->ids.items[k]) : xstrdup("");
      char *unscored = g->totals.not_scored > 0 ? xasprintf(" (%s not scored)", not_scored)
                                                : xstrdup("");
      fprintf(stderr, "grade: [%*zu/%zu] %s: %s/%s%s%s (%s); %s\n", width, finished, mine->count,
              name, score, max, unscored, on, took, left);
      free(unscored);
      free(on);
      free(left);
      free(took);
      free(not_scored);
      free(max);
      free(score);
    }
    free(text);
    remove(result_path);
    free(result_path);
  }
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  /* Once more, for a batch that was stopped or lost a submission (and for an empty one). */
  if (write_graded(out_dir, mine, results, manifest) != 0) rc = 1;
  if (stopping) {
    fprintf(stderr, "grade: stopped: %zu of %zu submissions graded (in %s/gradebook.csv); the "
                    "batch is not complete: grade it again to finish\n", finished, mine->count,
            out_dir);
    rc = 128 + stop_signal;
  }
  for (size_t i = 0; i < mine->count; i++) graded_free(&results[i]);
  free(results);
  free(pids);
  free(slot_position);
  sl_free(&work_dirs);
  sl_free(&locks);
  sl_free(&names);
  free(state_dir);
  return rc;
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
  manifest_init(&manifest, shard_count);
  manifest.holds[shard_index] = 1;
  manifest.course = xstrdup(base->source_dir);
  manifest.submissions_dir = xstrdup(submissions_dir);
  const strlist *labs = base->labs.count ? &base->labs : &base->all_labs;
  strbuf labs_text;
  sb_init(&labs_text);
  for (size_t i = 0; i < labs->count; i++) sb_printf(&labs_text, "%s%s", i ? " " : "", labs->items[i]);
  manifest.labs = sb_steal(&labs_text);
  sb_free(&labs_text);
  manifest.rubrics = rubric_fingerprint(base->source_dir, labs);
  for (size_t i = 0; i < base->configure_args.count; i++) {
    sl_push(&manifest.cmake_args, base->configure_args.items[i]);
  }
  for (size_t i = 0; i < names.count; i++) sl_push(&manifest.submissions, names.items[i]);

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

  int header_written = 0;
  double start = now_seconds();
  if (slots != NULL && mine.count > 0) {
    int slots_rc = grade_in_slots(base, submissions_dir, out_dir, &mine, slots, &manifest);
    if (slots_rc > rc) rc = slots_rc;
  }
  for (size_t i = 0; slots == NULL && i < mine.count; i++) {
    const char *name = mine.items[i];
    char *label = xasprintf("[%*zu/%zu] %s", (int)snprintf(NULL, 0, "%zu", mine.count), i + 1,
                            mine.count, name);
    graded_one g;
    graded_init(&g);
    grade_one(base, submissions_dir, out_dir, name, label, NULL, NULL, &g);
    if (g.rc) rc = 1;
    for (int f = 0; f < GRADEBOOK_FILES; f++) {
      if (!header_written) sb_append_n(&files[f], g.header[f].data, g.header[f].len);
      sb_append_n(&files[f], g.rows[f].data, g.rows[f].len);
    }
    header_written = 1;
    if (!sl_contains(&manifest.gpus, g.gpu)) sl_push(&manifest.gpus, g.gpu);
    sl_push(&manifest.graded, name);
    manifest.complete = i + 1 == mine.count;
    /* Rewritten after each submission, so an interrupted batch keeps what it graded. */
    if (write_outputs(out_dir, files, &manifest) != 0) rc = 1;
    double elapsed = now_seconds() - start;
    double left = elapsed / (double)(i + 1) * (double)(mine.count - i - 1);
    fprintf(stderr, "grade: %s: %.2f of %.2f points%s; %.0f s so far, about %.0f s to go\n",
            label, g.totals.score, g.totals.max_score,
            g.totals.not_scored > 0 ? " (some items not scored)" : "", elapsed, left);
    graded_free(&g);
    free(label);
  }
  if (mine.count > 0 && rc < 128) {
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
             "grade --merge)\n", gradebook, shard_index, shard_count, mine.count, names.count, how);
    } else {
      printf("gradebook: %s (%zu submissions%s); lms.csv and items.csv beside it\n", gradebook,
             mine.count, how);
    }
    free(how);
    free(gradebook);
  }
  for (int f = 0; f < GRADEBOOK_FILES; f++) sb_free(&files[f]);
  manifest_free(&manifest);
  sl_free(&mine);
  sl_free(&names);
  return rc;
}
