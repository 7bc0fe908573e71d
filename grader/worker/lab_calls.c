/* A lab's API across the worker boundary, expanded from the lab's own declaration of it,
 * labs/<lab>/<lab>_api.def: built once as the proxies (in the test programs: each function
 * sends its arguments and waits for the answer) and once as the dispatch (in the lab worker,
 * with GL_WORKER_SIDE: each case reads the arguments in the same order and calls the lab).
 * The build names the lab's header and declaration (GL_LAB_HEADER, GL_LAB_API).
 *
 * A declaration is one line a function:
 *   GL_TEXT(fn, args...)                a host-only function returning a const char *
 *   GL_NUMBER(type, fn, failed, args...) a host-only function returning a number (`failed`
 *                                       when the worker failed)
 *   GL_GPU(fn, needs_kernel, args...)   a GPU function returning gl_status; when it succeeds
 *                                       where `needs_kernel` holds, it must have launched a
 *                                       kernel of its own (worker.h, gl_on_gpu)
 *   GL_RELEASE(type, fn)                a GPU function of no arguments (freeing scratch memory);
 *                                       `type` is void or gl_status
 * and each argument, in the order of the prototype:
 *   (VALUE, type, name)                 passed by value
 *   (DEVICE, type, name)                a device pointer (the buffer is shared with the worker)
 *   (IN, type, name, bytes)             a host input of `bytes` bytes, copied to the worker
 *   (OUT, type, name, bytes)            a host output of `bytes` bytes, copied back
 * `bytes` and `needs_kernel` may use the arguments before them (and on the worker's side the
 * copies it received). Up to ten arguments, with any names but the glue's own (gl_wire_args,
 * gl_wire_call). The compiler checks each proxy against the lab's
 * header, so a declaration that does not match the API does not build. */
#include <stdint.h>
#include <string.h>

#include GL_LAB_HEADER
#include "worker/calls.h"

/* ---- the argument lists, one macro a use ---------------------------------------------------- */

#define GL_CAT_(a, b) a##b
#define GL_CAT(a, b) GL_CAT_(a, b)
#define GL_COUNT_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, n, ...) n
#define GL_COUNT(...) GL_COUNT_(__VA_ARGS__, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define GL_COMMA() ,
#define GL_NONE()
/* GL_EACH(m, sep, (kind, ...), ...): m(kind, ...) for each argument, sep() between them. */
#define GL_EACH(m, sep, ...) GL_CAT(GL_EACH_, GL_COUNT(__VA_ARGS__))(m, sep, __VA_ARGS__)
#define GL_EACH_1(m, s, x) m x
#define GL_EACH_2(m, s, x, ...) m x s() GL_EACH_1(m, s, __VA_ARGS__)
#define GL_EACH_3(m, s, x, ...) m x s() GL_EACH_2(m, s, __VA_ARGS__)
#define GL_EACH_4(m, s, x, ...) m x s() GL_EACH_3(m, s, __VA_ARGS__)
#define GL_EACH_5(m, s, x, ...) m x s() GL_EACH_4(m, s, __VA_ARGS__)
#define GL_EACH_6(m, s, x, ...) m x s() GL_EACH_5(m, s, __VA_ARGS__)
#define GL_EACH_7(m, s, x, ...) m x s() GL_EACH_6(m, s, __VA_ARGS__)
#define GL_EACH_8(m, s, x, ...) m x s() GL_EACH_7(m, s, __VA_ARGS__)
#define GL_EACH_9(m, s, x, ...) m x s() GL_EACH_8(m, s, __VA_ARGS__)
#define GL_EACH_10(m, s, x, ...) m x s() GL_EACH_9(m, s, __VA_ARGS__)

/* The prototype's parameter, and the name a call passes. */
#define GL_PARAM(kind, type, name, ...) type name
#define GL_NAME(kind, type, name, ...) name
#define GL_PARAMS(...) GL_EACH(GL_PARAM, GL_COMMA, __VA_ARGS__)
#define GL_NAMES(...) GL_EACH(GL_NAME, GL_COMMA, __VA_ARGS__)

/* ---- the function numbers: the declaration's order, host-only ones marked --------------------- */

enum {
  GL_FN_NONE_ = 0,
#define GL_TEXT(fn, ...) GL_FN_##fn,
#define GL_NUMBER(type, fn, failed, ...) GL_FN_##fn,
#define GL_GPU(fn, needs_kernel, ...) GL_FN_##fn,
#define GL_RELEASE(type, fn) GL_FN_##fn,
#include GL_LAB_API
#undef GL_TEXT
#undef GL_NUMBER
#undef GL_GPU
#undef GL_RELEASE
};

#ifdef GL_WORKER_SIDE

/* ---- the worker's side: one case a function ---------------------------------------------------- */

#define GL_TAKE(kind, ...) GL_CAT(GL_TAKE_, kind)(__VA_ARGS__)
#define GL_TAKE_VALUE(type, name) \
  type name;                      \
  GL_ARG(gl_wire_args, name);
#define GL_TAKE_DEVICE(type, name) type name = (type)gl_arg_device(gl_wire_args);
#define GL_TAKE_IN(type, name, bytes) type name = (type)gl_arg_in(gl_wire_args, (bytes));
#define GL_TAKE_OUT(type, name, bytes) type name = (type)gl_arg_out(gl_wire_args, (bytes));
#define GL_TAKE_ALL(...) GL_EACH(GL_TAKE, GL_NONE, __VA_ARGS__) GL_ARGS_CHECK(gl_wire_args);

gl_status gl_worker_dispatch(uint32_t fn, gl_args *gl_wire_args) {
  switch (fn) {
#define GL_TEXT(fn, ...)                                     \
  case GL_FN_##fn | GL_HOST_ONLY: {                          \
    GL_TAKE_ALL(__VA_ARGS__)                                 \
    gl_result_text(gl_wire_args, fn(GL_NAMES(__VA_ARGS__))); \
    return GL_OK;                                            \
  }
#define GL_NUMBER(type, fn, failed, ...)                                   \
  case GL_FN_##fn | GL_HOST_ONLY: {                                        \
    GL_TAKE_ALL(__VA_ARGS__)                                               \
    gl_result(gl_wire_args, (uint64_t)(int64_t)fn(GL_NAMES(__VA_ARGS__))); \
    return GL_OK;                                                          \
  }
#define GL_GPU(fn, needs_kernel, ...)                                               \
  case GL_FN_##fn: {                                                                \
    GL_TAKE_ALL(__VA_ARGS__)                                                        \
    return gl_on_gpu(gl_wire_args, #fn, (needs_kernel), fn(GL_NAMES(__VA_ARGS__))); \
  }
#define GL_RELEASE_void(fn) \
  fn();                     \
  return GL_OK;
#define GL_RELEASE_gl_status(fn) return fn();
#define GL_RELEASE(type, fn) \
  case GL_FN_##fn:           \
    GL_RELEASE_##type(fn)
#include GL_LAB_API
  }
  return gl_unknown_call(fn);
}

#else

/* ---- the test program's side: one proxy a function --------------------------------------------- */

#define GL_SEND(kind, ...) GL_CAT(GL_SEND_, kind)(__VA_ARGS__)
#define GL_SEND_VALUE(type, name) GL_PUT(gl_wire_call, name);
#define GL_SEND_DEVICE(type, name) gl_call_device(gl_wire_call, name);
#define GL_SEND_IN(type, name, bytes) gl_call_in(gl_wire_call, name, (bytes));
#define GL_SEND_OUT(type, name, bytes) gl_call_out(gl_wire_call, name, (bytes));
#define GL_SEND_ALL(...) GL_EACH(GL_SEND, GL_NONE, __VA_ARGS__)

#define GL_TEXT(fn, ...)                                              \
  const char *fn(GL_PARAMS(__VA_ARGS__)) {                            \
    gl_call *gl_wire_call = GL_BEGIN(GL_FN_##fn | GL_HOST_ONLY, #fn); \
    GL_SEND_ALL(__VA_ARGS__)                                          \
    return gl_call_text_end(gl_wire_call);                            \
  }
#define GL_NUMBER(type, fn, failed, ...)                                                 \
  type fn(GL_PARAMS(__VA_ARGS__)) {                                                      \
    gl_call *gl_wire_call = GL_BEGIN(GL_FN_##fn | GL_HOST_ONLY, #fn);                    \
    GL_SEND_ALL(__VA_ARGS__)                                                             \
    return (type)(int64_t)gl_call_result_end(gl_wire_call, (uint64_t)(int64_t)(failed)); \
  }
#define GL_GPU(fn, needs_kernel, ...)                  \
  gl_status fn(GL_PARAMS(__VA_ARGS__)) {               \
    gl_call *gl_wire_call = GL_BEGIN(GL_FN_##fn, #fn); \
    GL_SEND_ALL(__VA_ARGS__)                           \
    return gl_call_status(gl_wire_call);               \
  }
#define GL_RELEASED_void(status) (void)(status);
#define GL_RELEASED_gl_status(status) return (status);
#define GL_RELEASE(type, fn)                                       \
  type fn(void) {                                                  \
    gl_status status_ = gl_call_status(GL_BEGIN(GL_FN_##fn, #fn)); \
    GL_RELEASED_##type(status_)                                    \
  }
#include GL_LAB_API

#endif
