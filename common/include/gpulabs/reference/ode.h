/* CPU reference for the ode lab (filled in by the lab's issue). */
#ifndef GPULABS_REFERENCE_ODE_H
#define GPULABS_REFERENCE_ODE_H

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif
