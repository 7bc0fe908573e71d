/* A profiler for the grader's test programs, loaded by the CUDA driver (CUDA_INJECTION64_PATH):
 * at each process's exit it writes to $GL_PROFILE_DIR/<comm>-<pid>.txt
 *   - the process's wall, user and system seconds;
 *   - the seconds spent in each CUDA runtime and driver API function (outermost calls);
 *   - with GL_PROFILE_SAMPLES=1, a stack every 2 ms of CPU time (SIGPROF), as "<module> <offset>"
 *     pairs, one stack a line, into <comm>-<pid>.stacks for summarise.py to name.
 * Used by .ci/profile-correctness (where a submission's correctness phase spends its time). */
#define _GNU_SOURCE
#include <cupti.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define MAX_ID 2048
#define MAX_SAMPLES 200000
#define DEPTH 12

static double api_seconds[2][MAX_ID];
static long api_calls[2][MAX_ID];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static __thread double entered[2];
static __thread int depth[2];
static double started;
static char dir[512];
static void *samples[MAX_SAMPLES][DEPTH];
static unsigned char sample_depth[MAX_SAMPLES];
static int sample_count;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static FILE *open_output(const char *suffix) {
  char comm[64] = "?", path[700];
  FILE *f = fopen("/proc/self/comm", "r");
  if (f) {
    if (fgets(comm, sizeof comm, f)) comm[strcspn(comm, "\n")] = 0;
    fclose(f);
  }
  snprintf(path, sizeof path, "%s/%s-%d.%s", dir, comm, (int)getpid(), suffix);
  return fopen(path, "w");
}

static void CUPTIAPI on_api(void *user, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                            const void *data) {
  const CUpti_CallbackData *cb = (const CUpti_CallbackData *)data;
  const int d = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? 0 : 1;
  (void)user;
  if (id >= MAX_ID) return;
  if (cb->callbackSite == CUPTI_API_ENTER) {
    if (depth[d]++ == 0) entered[d] = now();
  } else if (depth[d] > 0 && --depth[d] == 0) {
    const double seconds = now() - entered[d];
    pthread_mutex_lock(&lock);
    api_seconds[d][id] += seconds;
    api_calls[d][id]++;
    pthread_mutex_unlock(&lock);
  }
}

static void write_times(void) {
  FILE *f = open_output("txt");
  struct rusage ru;
  if (f == NULL) return;
  getrusage(RUSAGE_SELF, &ru);
  fprintf(f, "wall %.3f user %.3f sys %.3f\n", now() - started,
          ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6,
          ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6);
  for (int d = 0; d < 2; d++) {
    for (int i = 0; i < MAX_ID; i++) {
      const char *name = "?";
      if (api_calls[d][i] == 0) continue;
      cuptiGetCallbackName(d ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API, i, &name);
      fprintf(f, "%s %s %ld %.6f\n", d ? "driver" : "runtime", name, api_calls[d][i],
              api_seconds[d][i]);
    }
  }
  fclose(f);
}

static void on_sample(int sig) {
  const int i = __atomic_fetch_add(&sample_count, 1, __ATOMIC_RELAXED);
  (void)sig;
  if (i < MAX_SAMPLES) sample_depth[i] = (unsigned char)backtrace(samples[i], DEPTH);
}

static void write_stacks(void) {
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_PROF, &off, NULL);
  FILE *f = open_output("stacks");
  if (f == NULL) return;
  const int n = sample_count < MAX_SAMPLES ? sample_count : MAX_SAMPLES;
  for (int i = 0; i < n; i++) {
    /* Frame 0 is the handler, 1 the signal trampoline; then the interrupted code. Return
     * addresses (frames past 2) are moved back into their call instruction. */
    for (int k = 2; k < sample_depth[i]; k++) {
      Dl_info info;
      const char *module = "?";
      unsigned long offset = 0;
      if (dladdr(samples[i][k], &info) && info.dli_fname) {
        module = info.dli_fname;
        offset = (unsigned long)((char *)samples[i][k] - (char *)info.dli_fbase) - (k > 2);
      }
      fprintf(f, "%s %lx%c", module, offset, k + 1 < sample_depth[i] ? ' ' : '\n');
    }
  }
  fclose(f);
}

int InitializeInjection(void) {
  CUpti_SubscriberHandle subscriber;
  const char *d = getenv("GL_PROFILE_DIR");
  if (d == NULL) return 1;
  snprintf(dir, sizeof dir, "%s", d);
  started = now();
  if (cuptiSubscribe(&subscriber, (CUpti_CallbackFunc)on_api, NULL) != CUPTI_SUCCESS) return 1;
  cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
  cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
  atexit(write_times);
  return 1;
}

/* Sampling starts when the driver loads this library: at the process's first CUDA call. */
__attribute__((constructor)) static void start_sampling(void) {
  const char *d = getenv("GL_PROFILE_DIR"), *on = getenv("GL_PROFILE_SAMPLES");
  if (d == NULL || on == NULL || strcmp(on, "1") != 0) return;
  snprintf(dir, sizeof dir, "%s", d);
  void *warm[2];
  backtrace(warm, 2); /* loads the unwinder outside the signal handler */
  signal(SIGPROF, on_sample);
  struct itimerval every = {{0, 2000}, {0, 2000}};
  setitimer(ITIMER_PROF, &every, NULL);
  atexit(write_stacks);
}
