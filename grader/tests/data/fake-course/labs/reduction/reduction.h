/* The fake lab's API: one function per rubric item. */
#ifndef FAKE_REDUCTION_H
#define FAKE_REDUCTION_H
#ifdef __cplusplus
extern "C" {
#endif
int fake_add(int a, int b);      /* step 1; the stub returns -1 */
int fake_mul(int a, int b);      /* step 2; the stub returns -1 */
int fake_wait(void);             /* step 3; the stub never returns */
int fake_touch(int *cell);       /* step 4; the stub writes through NULL */
double fake_speed(void);         /* the perf item's ratio */
#ifdef __cplusplus
}
#endif
#endif
