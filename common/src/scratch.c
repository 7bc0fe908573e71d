#include "gpulabs/scratch.h"

#include "gpulabs/check.h"

gl_status gl_scratch_reserve(gl_scratch *scratch, size_t bytes) {
  if (scratch == NULL) return gl_fail(GL_ERR_NULL_POINTER, "gl_scratch_reserve: scratch is NULL");
  if (bytes == 0) bytes = 1;
  if (scratch->ptr != NULL && bytes <= scratch->bytes) return GL_OK;
  gl_scratch_release(scratch);
  LAB_CHECK(cudaMalloc(&scratch->ptr, bytes));
  scratch->bytes = bytes;
  return GL_OK;
}

void gl_scratch_release(gl_scratch *scratch) {
  if (scratch == NULL) return;
  if (scratch->ptr != NULL) cudaFree(scratch->ptr);
  scratch->ptr = NULL;
  scratch->bytes = 0;
}
