/* The lab worker's wire format: one message per call (passed in the mailbox, mailbox.h; the
 * SOCK_SEQPACKET socket pair carries the file descriptors a message has), written and read
 * field by field in the same order on both sides (the test program's proxy and the
 * worker). Every read is bounds-checked: a message from the worker is untrusted. */
#ifndef GPULABS_WORKER_WIRE_H
#define GPULABS_WORKER_WIRE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GL_WIRE_MAX 65536 /* bytes in one message */
#define GL_WIRE_MAX_FDS 16
#define GL_WIRE_REQUEST 0x71524c47u /* "GLRq" */
#define GL_WIRE_REPLY 0x70524c47u   /* "GLRp" */
#define GL_WIRE_HELLO 0x68524c47u   /* "GLRh": the worker's first message */

typedef struct gl_wire {
  unsigned char data[GL_WIRE_MAX];
  size_t size; /* bytes written, or received */
  size_t pos;  /* the next byte to read */
  int bad;     /* a read past the end or a write past GL_WIRE_MAX happened */
  int fds[GL_WIRE_MAX_FDS];
  int nfds;
  uint64_t call; /* the call a message belongs to: a request's number, which its answer repeats */
} gl_wire;

void gl_wire_reset(gl_wire *w);
void gl_wire_put(gl_wire *w, const void *bytes, size_t n);
/* Copies n bytes out (zeros once the message is exhausted, and sets bad). */
void gl_wire_get(gl_wire *w, void *bytes, size_t n);
/* A pointer to the next n bytes in the message (NULL, and bad, when fewer remain). */
const void *gl_wire_take(gl_wire *w, size_t n);
void gl_wire_put_u32(gl_wire *w, uint32_t v);
uint32_t gl_wire_get_u32(gl_wire *w);
void gl_wire_put_u64(gl_wire *w, uint64_t v);
uint64_t gl_wire_get_u64(gl_wire *w);
/* A length-prefixed string; get copies at most size - 1 bytes and always terminates. */
void gl_wire_put_str(gl_wire *w, const char *s);
void gl_wire_get_str(gl_wire *w, char *s, size_t size);
/* Attaches a file descriptor (sent with SCM_RIGHTS; the caller keeps its own). */
void gl_wire_put_fd(gl_wire *w, int fd);
/* The next attached descriptor, now owned by the caller, or -1. */
int gl_wire_get_fd(gl_wire *w);

/* Sends the message (and its descriptors). 0, or -1 with errno. */
int gl_wire_send(int sock, const gl_wire *w);
/* Receives one message; flags as recvmsg's (MSG_DONTWAIT). 1: a message, 0: the peer closed,
 * -1: errno (EAGAIN with MSG_DONTWAIT and nothing there). Descriptors beyond GL_WIRE_MAX_FDS
 * and truncated messages make it bad. */
int gl_wire_recv(int sock, gl_wire *w, int flags);
/* Closes descriptors received and not taken. */
void gl_wire_close_fds(gl_wire *w);

#ifdef __cplusplus
}
#endif
#endif
