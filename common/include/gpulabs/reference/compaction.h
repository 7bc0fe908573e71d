/* CPU reference for the compaction lab (filled in by the lab's issue). */
#ifndef GPULABS_REFERENCE_COMPACTION_H
#define GPULABS_REFERENCE_COMPACTION_H

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif
