/* --gpus: the slots graders run in side by side, a GPU each or several to one GPU
 * (gpu_slots.h): the option's text, and how many GPUs this machine has when it says "all". */
#define _POSIX_C_SOURCE 200809L
#include "gpu_slots.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc.h"

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
