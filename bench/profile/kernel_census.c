/* The sanitizer phase's launch recorder (.ci/gpu-check sanitize), loaded by the CUDA driver
 * through CUDA_INJECTION64_PATH: appends each kernel's (mangled) name to $GPULABS_KERNEL_LOG,
 * once per process; child processes (the lab worker) inherit it. Built by gpu-check with the
 * toolkit's CUPTI; the launches it sees are common's list (gpulabs/launch_callbacks.h). */
#include <cupti.h>
#include "gpulabs/launch_callbacks.h"
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int log_fd = -1;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const char *seen[1024];
static int n_seen;

static void CUPTIAPI on_launch(void *user, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                               const void *data) {
  const CUpti_CallbackData *cb = (const CUpti_CallbackData *)data;
  int i;
  (void)user;
  (void)domain;
  (void)id;
  if (cb->callbackSite != CUPTI_API_ENTER || cb->symbolName == NULL || log_fd < 0) return;
  pthread_mutex_lock(&lock);
  for (i = 0; i < n_seen && strcmp(seen[i], cb->symbolName) != 0; i++) {
  }
  if (i == n_seen) {
    if (n_seen < 1024) seen[n_seen++] = strdup(cb->symbolName);
    if (write(log_fd, cb->symbolName, strlen(cb->symbolName)) < 0 || write(log_fd, "\n", 1) < 0) {
    }
  }
  pthread_mutex_unlock(&lock);
}

int InitializeInjection(void) {
  CUpti_SubscriberHandle subscriber;
  const char *path = getenv("GPULABS_KERNEL_LOG");
  if (path == NULL) return 1;
  log_fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (log_fd < 0) return 1;
  if (cuptiSubscribe(&subscriber, (CUpti_CallbackFunc)on_launch, NULL) != CUPTI_SUCCESS) return 1;
  gl_enable_launch_callbacks(subscriber);
  return 1;
}
