/* CPU reference for the scan lab (filled in by the lab's issue). */
#ifndef GPULABS_REFERENCE_SCAN_H
#define GPULABS_REFERENCE_SCAN_H

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif
