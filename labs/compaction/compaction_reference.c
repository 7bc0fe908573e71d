/* CPU reference for the compaction lab. Plain loops, written to be obviously right. */
#include "compaction_reference.h"

int gl_ref_keeps(gl_keep_rule rule, int threshold, int x) {
  return rule == GL_KEEP_BELOW ? x < threshold : x != 0;
}

size_t gl_ref_compact_loop(const int *in, size_t n, gl_keep_rule rule, int threshold, int *out) {
  size_t count = 0;
  for (size_t i = 0; i < n; ++i) {
    if (gl_ref_keeps(rule, threshold, in[i])) out[count++] = in[i];
  }
  return count;
}

size_t gl_ref_compact_scan(const int *in, size_t n, gl_keep_rule rule, int threshold, int *out,
                           int *flags, int *offsets) {
  /* Map: one flag per element. */
  for (size_t i = 0; i < n; ++i) flags[i] = gl_ref_keeps(rule, threshold, in[i]);
  /* Scan: offsets[i] = number of kept elements before i, which is where in[i] goes. */
  int running = 0;
  for (size_t i = 0; i < n; ++i) {
    offsets[i] = running;
    running += flags[i];
  }
  /* Scatter: every kept element to its offset. */
  for (size_t i = 0; i < n; ++i) {
    if (flags[i]) out[offsets[i]] = in[i];
  }
  return (size_t)running;
}

size_t gl_ref_split_addresses(const int *side, size_t n, int *prefix, int *address) {
  size_t nf = 0;
  for (size_t i = 0; i < n; ++i) {
    prefix[i] = (int)nf;
    nf += side[i] != 0;
  }
  for (size_t i = 0; i < n; ++i) {
    /* Element i has i - prefix[i] "after" elements before it; they start at nf. */
    address[i] = side[i] ? prefix[i] : (int)(i - (size_t)prefix[i] + nf);
  }
  return nf;
}

size_t gl_ref_split(const int *in, size_t n, gl_keep_rule rule, int threshold, int *out) {
  size_t kept = 0;
  for (size_t i = 0; i < n; ++i) kept += (size_t)gl_ref_keeps(rule, threshold, in[i]);
  size_t first = 0, second = kept;
  for (size_t i = 0; i < n; ++i) {
    if (gl_ref_keeps(rule, threshold, in[i])) {
      out[first++] = in[i];
    } else {
      out[second++] = in[i];
    }
  }
  return kept;
}

size_t gl_ref_split_pairs(const int *keys, const int *values, size_t n, gl_keep_rule rule,
                          int threshold, int *keys_out, int *values_out) {
  size_t kept = 0;
  for (size_t i = 0; i < n; ++i) kept += (size_t)gl_ref_keeps(rule, threshold, keys[i]);
  size_t first = 0, second = kept;
  for (size_t i = 0; i < n; ++i) {
    size_t to = gl_ref_keeps(rule, threshold, keys[i]) ? first++ : second++;
    keys_out[to] = keys[i];
    values_out[to] = values[i];
  }
  return kept;
}
