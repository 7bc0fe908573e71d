/* No process a submission's tests start outlives them. The grader adopts every orphan among its
 * descendants (a subreaper: a process that left its session or whose parent died comes back to
 * it, not to init), and ends whatever is still alive after each CTest run and before any report
 * is written. The lab worker's sandbox forbids new processes; this holds even where a test
 * program, or a sandbox that the kernel only partly provides, lets one through. */
#ifndef GRADE_REAPER_H
#define GRADE_REAPER_H

#include "util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Makes this process the subreaper of its descendants (not inherited across fork: each grader
 * process calls it). 0, or -1 with errno. */
int reaper_adopt(void);

/* Waits up to 3 s for the descendants still alive to end on their own (a lab worker dies with
 * its test program, a moment later), then ends (SIGKILL) and reaps the rest; for each of those
 * a line "<pid> <command>" is added to `ended` (may be NULL). Call it when this process has no
 * child of its own running. Returns how many were ended. */
int reaper_sweep(strlist *ended);

#ifdef __cplusplus
}
#endif
#endif
