/* Running the tools the grader drives (cmake, ctest), with their output in a log file. */
#ifndef GRADE_PROC_H
#define GRADE_PROC_H

#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Waits for the child `pid` to end: its exit status, 128 + n when signal n ended it, or -1. */
int wait_exit_status(pid_t pid);

/* Runs argv (argv[0] looked up on PATH) with stdin from /dev/null and stdout and stderr
 * appended to `log_path` (after a line naming the command). Returns the exit status, 128 + n
 * for a process ended by signal n, or -1 when it could not be started (the log says why). */
int run_logged(char *const argv[], const char *log_path);

/* Runs argv and returns all it wrote on stdout (stderr is dropped), or NULL when it could not
 * run or exited with a non-zero status. */
char *run_capture(char *const argv[], size_t *length);

/* Runs argv and returns its first line of output (stdout), or NULL. For short queries. */
char *run_first_line(char *const argv[]);

/* The environment a grade runs in, whatever the caller's. Gone: the variables make uses to talk
 * to its children (MAKEFLAGS, MFLAGS, MAKELEVEL), so the cmake and ctest started from inside a
 * build (the grade_labs target) behave as if started by hand; the lab worker's debugging
 * switches (GPULABS_SANDBOX, GPULABS_LAB_WORKER, GPULABS_WORKER_EARLY), so the worker is always
 * sealed and the course's own. Set: GPULABS_EXACT_BUFFERS=0, so the test programs carve their
 * buffers out of slabs even when the grader runs under a tool (exact buffers are for the tools:
 * a kept one may be freed while the worker still maps it, and a private one placed there). */
void grade_environment(void);

#ifdef __cplusplus
}
#endif
#endif
