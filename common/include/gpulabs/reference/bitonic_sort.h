/* CPU reference for the bitonic_sort lab (filled in by the lab's issue). */
#ifndef GPULABS_REFERENCE_BITONIC_SORT_H
#define GPULABS_REFERENCE_BITONIC_SORT_H

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif
