/* CPU reference for the compaction lab (step 1 of the handout): compaction with one loop and
 * with map -> scan -> scatter, and the stable split of the thesis's kd-tree example. */
#ifndef GPULABS_REFERENCE_COMPACTION_H
#define GPULABS_REFERENCE_COMPACTION_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Which elements are kept: the same two rules as the lab (labs/compaction/compaction.h). */
typedef enum gl_keep_rule {
  GL_KEEP_NONZERO = 0, /* keep x != 0 (threshold is ignored) */
  GL_KEEP_BELOW = 1    /* keep x < threshold */
} gl_keep_rule;

/* 1 when the rule keeps x, else 0. */
int gl_ref_keeps(gl_keep_rule rule, int threshold, int x);

/* Step 1a: one loop that appends each kept element. Writes out[0, count), returns count. */
size_t gl_ref_compact_loop(const int *in, size_t n, gl_keep_rule rule, int threshold, int *out);

/* Step 1b: the GPU algorithm run on the CPU: flags[i] = keeps(in[i]), offsets = exclusive scan
 * of flags, then out[offsets[i]] = in[i] where flags[i] is set. flags and offsets are the
 * caller's scratch arrays of n ints (they hold the map and the scan afterwards). Returns the
 * count; the result equals gl_ref_compact_loop's. */
size_t gl_ref_compact_scan(const int *in, size_t n, gl_keep_rule rule, int threshold, int *out,
                           int *flags, int *offsets);

/* The thesis's split addresses for a 0/1 side array (1 = goes first, "l"; 0 = after, "r"):
 * prefix = exclusive scan of side, nf = number of ones, and
 *   address[i] = side[i] ? prefix[i] : i - prefix[i] + nf.
 * Writes prefix[0, n) and address[0, n); returns nf. */
size_t gl_ref_split_addresses(const int *side, size_t n, int *prefix, int *address);

/* Stable split: out = the kept elements in order, then the others in order. Returns the
 * number kept. */
size_t gl_ref_split(const int *in, size_t n, gl_keep_rule rule, int threshold, int *out);

/* Stable split of pairs: the rule looks at the keys, each value moves with its key. */
size_t gl_ref_split_pairs(const int *keys, const int *values, size_t n, gl_keep_rule rule,
                          int threshold, int *keys_out, int *values_out);

#ifdef __cplusplus
}
#endif
#endif
