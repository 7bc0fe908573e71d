/* The fast path between the test program and its lab worker (mailbox.h). */
#define _GNU_SOURCE
#include "mailbox.h"

#include <errno.h>
#include <linux/futex.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

gl_mailbox *gl_mailbox_create(int *fd) {
  *fd = memfd_create("gpulabs-worker-mailbox", MFD_CLOEXEC);
  if (*fd < 0) return NULL;
  if (ftruncate(*fd, sizeof(gl_mailbox)) != 0) {
    close(*fd);
    *fd = -1;
    return NULL;
  }
  gl_mailbox *box = gl_mailbox_open(*fd);
  if (box == NULL) {
    close(*fd);
    *fd = -1;
  }
  return box;
}

gl_mailbox *gl_mailbox_open(int fd) {
  void *p = mmap(NULL, sizeof(gl_mailbox), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  return p == MAP_FAILED ? NULL : (gl_mailbox *)p;
}

static void wake(volatile uint32_t *word) {
  syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE, 1, NULL, NULL, 0);
}

int gl_mailbox_send(gl_mailbox_slot *slot, int sock, const gl_wire *w) {
  if (w->bad) {
    errno = EMSGSIZE;
    return -1;
  }
  if (w->nfds > 0) { /* the descriptors first, on the socket: the reader fetches them */
    gl_wire carrier;
    gl_wire_reset(&carrier);
    gl_wire_put_u32(&carrier, (uint32_t)w->nfds);
    for (int i = 0; i < w->nfds; ++i) gl_wire_put_fd(&carrier, w->fds[i]);
    if (gl_wire_send(sock, &carrier) != 0) return -1;
  }
  memcpy(slot->data, w->data, w->size);
  slot->size = (uint32_t)w->size;
  slot->nfds = (uint32_t)w->nfds;
  slot->call = w->call;
  __atomic_add_fetch(&slot->seq, 1, __ATOMIC_SEQ_CST);
  if (__atomic_load_n(&slot->sleeping, __ATOMIC_SEQ_CST)) wake(&slot->seq);
  return 0;
}

int gl_mailbox_take(gl_mailbox_slot *slot, uint32_t *seen, int sock, gl_wire *w) {
  uint32_t seq = __atomic_load_n(&slot->seq, __ATOMIC_ACQUIRE);
  if (seq == *seen) return 0;
  *seen = seq;
  gl_wire_reset(w);
  uint32_t size = slot->size, nfds = slot->nfds;
  w->call = slot->call;
  if (size > GL_WIRE_MAX || nfds > GL_WIRE_MAX_FDS) return -1;
  memcpy(w->data, slot->data, size); /* copied once: the other side may change the slot */
  w->size = size;
  if (nfds > 0) {
    gl_wire carrier;
    if (gl_wire_recv(sock, &carrier, 0) != 1 || carrier.bad || carrier.nfds != (int)nfds) {
      gl_wire_close_fds(&carrier);
      return -1;
    }
    memcpy(w->fds, carrier.fds, sizeof(int) * nfds);
    w->nfds = (int)nfds;
  }
  return 1;
}

void gl_mailbox_sleep(gl_mailbox_slot *slot, uint32_t seen, unsigned timeout_us) {
  struct timespec ts = {timeout_us / 1000000, (long)(timeout_us % 1000000) * 1000};
  __atomic_store_n(&slot->sleeping, 1, __ATOMIC_SEQ_CST);
  if (__atomic_load_n(&slot->seq, __ATOMIC_SEQ_CST) == seen) {
    syscall(SYS_futex, (uint32_t *)&slot->seq, FUTEX_WAIT, seen, &ts, NULL, 0);
  }
  __atomic_store_n(&slot->sleeping, 0, __ATOMIC_SEQ_CST);
}
