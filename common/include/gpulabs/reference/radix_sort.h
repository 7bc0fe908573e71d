/* CPU reference for the radix_sort lab (filled in by the lab's issue). */
#ifndef GPULABS_REFERENCE_RADIX_SORT_H
#define GPULABS_REFERENCE_RADIX_SORT_H

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif
