/* The fast path between the test program and its lab worker: a shared page pair in which each
 * side writes its message and bumps a counter the other side spins on. A socket round trip
 * costs about 10 us on an H100's host, a call timed at 0.1 ms would carry it; spinning on shared
 * memory costs about one cache line each way. A side that has spun long enough sleeps on the
 * counter (futex) and is woken by the next message. File descriptors still go over the socket,
 * which also tells the test program when the worker is gone. The worker can write this memory
 * as it likes: the test program copies each answer out before reading it. */
#ifndef GPULABS_WORKER_MAILBOX_H
#define GPULABS_WORKER_MAILBOX_H

#include <stddef.h>
#include <stdint.h>

#include "wire.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gl_mailbox_slot {
  volatile uint32_t seq;      /* bumped after each message */
  volatile uint32_t sleeping; /* the reader waits on seq in the kernel: wake it */
  volatile uint32_t size;
  volatile uint32_t nfds;     /* descriptors sent on the socket with this message */
  volatile uint64_t call;     /* the message's gl_wire.call */
  unsigned char data[GL_WIRE_MAX];
} gl_mailbox_slot;

typedef struct gl_mailbox {
  gl_mailbox_slot request, reply;
} gl_mailbox;

/* Test program: a new mailbox, mapped here; *fd its memory file (for the worker). */
gl_mailbox *gl_mailbox_create(int *fd);
/* Worker: maps the mailbox of fd. NULL on failure. */
gl_mailbox *gl_mailbox_open(int fd);

/* Writes the message into the slot (its descriptors go on sock first) and wakes the reader.
 * 0, or -1 with errno. */
int gl_mailbox_send(gl_mailbox_slot *slot, int sock, const gl_wire *w);
/* Whether a message newer than *seen is there; if so copies it into w (descriptors received
 * from sock), sets *seen, and returns 1; 0 if none; -1 on a broken message or socket. */
int gl_mailbox_take(gl_mailbox_slot *slot, uint32_t *seen, int sock, gl_wire *w);
/* Sleeps until the slot moves past `seen` or timeout_us passes (whichever first). */
void gl_mailbox_sleep(gl_mailbox_slot *slot, uint32_t seen, unsigned timeout_us);

#ifdef __cplusplus
}
#endif
#endif
