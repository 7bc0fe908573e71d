/* grade --batch DIR --gpus all|0,1,...: one grader per GPU (batch.h, grade_batch).
 *
 * Each slot is a grader of its own, pinned to one GPU (CUDA_VISIBLE_DEVICES in the environment
 * of all it runs), with its own work folder (<work>/slot-<k>); the slots take the batch's
 * submissions one at a time, in order, each the next one not yet taken, and the results are
 * joined in the batch's order into the very gradebook files a plain --batch writes. A GPU
 * number may repeat (--gpus 0,0: two graders on GPU 0); graders sharing a GPU take its lock
 * (<out>/.gpus/gpu-<id>.lock) around their tests, shared for correctness tests and exclusive
 * for performance tests (grade.h, gpu_lock). */
#ifndef GRADE_GPU_SLOTS_H
#define GRADE_GPU_SLOTS_H

#include "util.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GPU_SLOTS_MAX 64

typedef struct gpu_slots {
  int all;         /* --gpus all: gpu_slots_resolve finds the GPUs */
  strlist ids;     /* per slot, the GPU's number as the grader counts them ("0", "1", "0") */
  strlist devices; /* per slot, CUDA_VISIBLE_DEVICES for it (gpu_slots_resolve) */
  int pinned;      /* 0: no GPU was found for --gpus all: one slot, nothing set, no lock */
} gpu_slots;

void gpu_slots_init(gpu_slots *slots);
void gpu_slots_free(gpu_slots *slots);
/* Reads --gpus's value: "all", or GPU numbers separated by commas ("0,1", "0,0"; at most
 * GPU_SLOTS_MAX). 0, or -1 with what is wrong in `err` (a sentence, no "grade: "). */
int gpu_slots_parse(const char *text, gpu_slots *slots, strbuf *err);
/* Fills `devices` (and `ids` for all). `visible` is the grader's own CUDA_VISIBLE_DEVICES
 * (NULL: not set): when set, the GPUs are the ones it lists and number k is its k-th entry (as
 * CUDA numbers them: under Slurm, the job's GPUs); else all = every GPU `nvidia_smi -L` lists,
 * or as many as `dev_dir` has nvidia<N> devices, and a number is passed on as it is (checked
 * against the count when one is known). With no GPU found, all becomes one slot that pins
 * nothing. What it found, for the terminal, goes to `note`. 0, or -1 with the reason in `err`. */
int gpu_slots_resolve(gpu_slots *slots, const char *visible, const char *nvidia_smi,
                      const char *dev_dir, strbuf *note, strbuf *err);
/* "GPU 0, GPU 1" (each GPU once, in slot order). */
char *gpu_slots_text(const gpu_slots *slots);

#ifdef __cplusplus
}
#endif
#endif
