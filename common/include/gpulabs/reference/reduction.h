/* CPU reference for the reduction lab (filled in by the lab's issue). */
#ifndef GPULABS_REFERENCE_REDUCTION_H
#define GPULABS_REFERENCE_REDUCTION_H

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif
