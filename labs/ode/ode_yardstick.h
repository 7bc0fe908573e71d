/* The ode lab's yardstick: the course's own GPU code for the model (performance tests and
 * labbench only), so that no ratio divides by a lab's step and no expected value comes from one.
 *
 *   gl_yardstick_ode_middle      the reference: Middle at a range of Outer's points, the values
 *                                every timed call of the ode lab is checked against (the
 *                                performance test checks them against the CPU reference,
 *                                ode_ref_middle, at sample points);
 *   gl_yardstick_ode_middle_par  the report's MiddlePar: the baseline of outerpar_vs_middlepar.
 *
 * Both compute Middle with the model's own functions (ode_model.h, shared
 * with the CPU reference), so they agree with it to rounding: every Middle step's kSum is the
 * same on both, only the order of the sum differs. Parameters are passed by value to the kernels
 * (no constant memory a lab could share). Every call works on the legacy default stream. */
#ifndef GPULABS_YARDSTICK_ODE_H
#define GPULABS_YARDSTICK_ODE_H

#include <stddef.h>

#include "ode_reference.h"
#include "gpulabs/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The course's threads per block for both functions: the lab's default block size, the one the
 * report used. */
#define GL_YARDSTICK_ODE_BLOCK 128

/* d_middle[i] = Middle at Outer's point first + i, for i < count (device array of count
 * doubles). One launch, one block per point: the block computes the point's 2 * 119 * h2 + 1
 * distinct Inner calls once each into shared memory, then adds the steps' kSum with a block
 * reduction. GL_ERR_SIZE when the range goes beyond ode_outer_point_count(params). Does not
 * wait for the GPU. */
gl_status gl_yardstick_ode_middle(const ode_params *params, size_t first, size_t count,
                                  double *d_middle);

/* The same values the report's MiddlePar way: for each point in turn, one launch of one thread
 * per Middle step (three Inner calls each) writing its kSum to global memory, a blocking copy of
 * kSum to the host and its sum there, in step order, as the CPU reference adds them. The Middle
 * values are copied to d_middle at the end. Its buffers are kept between calls (released by
 * gl_yardstick_ode_release), so a timed call allocates nothing once they are large enough. */
gl_status gl_yardstick_ode_middle_par(const ode_params *params, size_t first, size_t count,
                                      double *d_middle);

/* Frees the buffers gl_yardstick_ode_middle_par keeps (the process's exit frees them too). */
void gl_yardstick_ode_release(void);

#ifdef __cplusplus
}
#endif
#endif
