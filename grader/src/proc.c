#define _POSIX_C_SOURCE 200809L
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

static void log_command(int fd, char *const argv[]) {
  strbuf sb;
  sb_init(&sb);
  sb_append(&sb, "$");
  for (size_t i = 0; argv[i] != NULL; i++) {
    sb_append_char(&sb, ' ');
    int quote = argv[i][0] == '\0' || strpbrk(argv[i], " \t'\"$*?[]|&;<>()") != NULL;
    if (quote) sb_append_char(&sb, '\'');
    sb_append(&sb, argv[i]);
    if (quote) sb_append_char(&sb, '\'');
  }
  sb_append_char(&sb, '\n');
  ssize_t ignored = write(fd, sb.data, sb.len);
  (void)ignored;
  sb_free(&sb);
}

int wait_exit_status(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

int run_logged(char *const argv[], const char *log_path) {
  int fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND, 0666);
  if (fd < 0) return -1;
  log_command(fd, argv);
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    dprintf(fd, "grade: cannot start %s: %s\n", argv[0], strerror(errno));
    close(fd);
    return -1;
  }
  if (pid == 0) {
    int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0) dup2(null_fd, 0);
    dup2(fd, 1);
    dup2(fd, 2);
    execvp(argv[0], argv);
    dprintf(2, "grade: cannot start %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  close(fd);
  return wait_exit_status(pid);
}

char *run_capture(char *const argv[], size_t *length) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return NULL;
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    return NULL;
  }
  if (pid == 0) {
    int null_fd = open("/dev/null", O_RDWR);
    if (null_fd >= 0) {
      dup2(null_fd, 0);
      dup2(null_fd, 2);
    }
    dup2(pipe_fds[1], 1);
    close(pipe_fds[0]);
    execvp(argv[0], argv);
    _exit(127);
  }
  close(pipe_fds[1]);
  strbuf sb;
  sb_init(&sb);
  char chunk[4096];
  ssize_t got;
  while ((got = read(pipe_fds[0], chunk, sizeof chunk)) > 0 || (got < 0 && errno == EINTR)) {
    if (got > 0) sb_append_n(&sb, chunk, (size_t)got);
  }
  close(pipe_fds[0]);
  if (wait_exit_status(pid) != 0) {
    sb_free(&sb);
    return NULL;
  }
  if (length) *length = sb.len;
  return sb_steal(&sb);
}

char *run_first_line(char *const argv[]) {
  char *text = run_capture(argv, NULL);
  if (text == NULL) return NULL;
  char *eol = strchr(text, '\n');
  if (eol) *eol = '\0';
  char *line = trim_copy(text, strlen(text));
  free(text);
  if (line[0] == '\0') {
    free(line);
    return NULL;
  }
  return line;
}

void grade_environment(void) {
  static const char *const gone[] = {"MAKEFLAGS", "MFLAGS", "MAKELEVEL", "GPULABS_SANDBOX",
                                     "GPULABS_LAB_WORKER", "GPULABS_WORKER_EARLY"};
  for (size_t i = 0; i < sizeof gone / sizeof gone[0]; ++i) unsetenv(gone[i]);
  setenv("GPULABS_EXACT_BUFFERS", "0", 1);
}
