/* The lab worker's wire format (wire.h). */
#define _GNU_SOURCE
#include "wire.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

void gl_wire_reset(gl_wire *w) {
  w->size = 0;
  w->pos = 0;
  w->bad = 0;
  w->nfds = 0;
  w->call = 0;
}

void gl_wire_put(gl_wire *w, const void *bytes, size_t n) {
  if (w->bad || n > GL_WIRE_MAX - w->size) {
    w->bad = 1;
    return;
  }
  if (n > 0) memcpy(w->data + w->size, bytes, n);
  w->size += n;
}

const void *gl_wire_take(gl_wire *w, size_t n) {
  if (w->bad || n > w->size - w->pos) {
    w->bad = 1;
    return NULL;
  }
  const void *p = w->data + w->pos;
  w->pos += n;
  return p;
}

void gl_wire_get(gl_wire *w, void *bytes, size_t n) {
  const void *p = gl_wire_take(w, n);
  if (p == NULL) {
    memset(bytes, 0, n);
  } else if (n > 0) {
    memcpy(bytes, p, n);
  }
}

void gl_wire_put_u32(gl_wire *w, uint32_t v) { gl_wire_put(w, &v, sizeof v); }
uint32_t gl_wire_get_u32(gl_wire *w) {
  uint32_t v;
  gl_wire_get(w, &v, sizeof v);
  return v;
}
void gl_wire_put_u64(gl_wire *w, uint64_t v) { gl_wire_put(w, &v, sizeof v); }
uint64_t gl_wire_get_u64(gl_wire *w) {
  uint64_t v;
  gl_wire_get(w, &v, sizeof v);
  return v;
}

void gl_wire_put_str(gl_wire *w, const char *s) {
  size_t n = s == NULL ? 0 : strlen(s);
  if (n > 4096) n = 4096;
  gl_wire_put_u32(w, (uint32_t)n);
  gl_wire_put(w, s, n);
}

void gl_wire_get_str(gl_wire *w, char *s, size_t size) {
  uint32_t n = gl_wire_get_u32(w);
  const char *p = gl_wire_take(w, n);
  size_t keep = p == NULL ? 0 : (n < size - 1 ? n : size - 1);
  if (keep > 0) memcpy(s, p, keep);
  s[keep] = '\0';
}

void gl_wire_put_fd(gl_wire *w, int fd) {
  if (w->nfds >= GL_WIRE_MAX_FDS) {
    w->bad = 1;
    return;
  }
  w->fds[w->nfds++] = fd;
}

int gl_wire_get_fd(gl_wire *w) {
  for (int i = 0; i < w->nfds; ++i) {
    if (w->fds[i] >= 0) {
      int fd = w->fds[i];
      w->fds[i] = -1;
      return fd;
    }
  }
  return -1;
}

void gl_wire_close_fds(gl_wire *w) {
  for (int i = 0; i < w->nfds; ++i) {
    if (w->fds[i] >= 0) close(w->fds[i]);
    w->fds[i] = -1;
  }
  w->nfds = 0;
}

int gl_wire_send(int sock, const gl_wire *w) {
  if (w->bad) {
    errno = EMSGSIZE;
    return -1;
  }
  struct iovec iov = {(void *)w->data, w->size};
  union {
    char buf[CMSG_SPACE(sizeof(int) * GL_WIRE_MAX_FDS)];
    struct cmsghdr align;
  } control;
  struct msghdr msg;
  memset(&msg, 0, sizeof msg);
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  if (w->nfds > 0) {
    memset(&control, 0, sizeof control);
    msg.msg_control = control.buf;
    msg.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)w->nfds);
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)w->nfds);
    memcpy(CMSG_DATA(c), w->fds, sizeof(int) * (size_t)w->nfds);
  }
  for (;;) {
    ssize_t sent = sendmsg(sock, &msg, MSG_NOSIGNAL);
    if (sent >= 0) return 0;
    if (errno != EINTR) return -1;
  }
}

int gl_wire_recv(int sock, gl_wire *w, int flags) {
  gl_wire_reset(w);
  struct iovec iov = {w->data, GL_WIRE_MAX};
  union {
    char buf[CMSG_SPACE(sizeof(int) * GL_WIRE_MAX_FDS)];
    struct cmsghdr align;
  } control;
  struct msghdr msg;
  memset(&msg, 0, sizeof msg);
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.buf;
  msg.msg_controllen = sizeof control.buf;
  ssize_t got;
  do {
    got = recvmsg(sock, &msg, flags | MSG_CMSG_CLOEXEC);
  } while (got < 0 && errno == EINTR);
  if (got < 0) return -1;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < n; ++i) {
      int fd;
      memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
      if (w->nfds < GL_WIRE_MAX_FDS) {
        w->fds[w->nfds++] = fd;
      } else {
        close(fd);
        w->bad = 1;
      }
    }
  }
  if (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) w->bad = 1;
  if (got == 0 && w->nfds == 0) return 0;
  w->size = (size_t)got;
  return 1;
}
