/* gpulabs-sim: make_int4(...) and friends for the types of vector_types.h. */
#ifndef GPULABS_SIM_VECTOR_FUNCTIONS_H
#define GPULABS_SIM_VECTOR_FUNCTIONS_H

#include "vector_types.h"

#define GPULABS_SIM_MAKE(name, T)                                                             \
  static inline name##1 make_##name##1(T x) { name##1 v; v.x = x; return v; }                  \
  static inline name##2 make_##name##2(T x, T y) { name##2 v; v.x = x; v.y = y; return v; }    \
  static inline name##3 make_##name##3(T x, T y, T z) {                                        \
    name##3 v; v.x = x; v.y = y; v.z = z; return v;                                            \
  }                                                                                            \
  static inline name##4 make_##name##4(T x, T y, T z, T w) {                                   \
    name##4 v; v.x = x; v.y = y; v.z = z; v.w = w; return v;                                   \
  }

GPULABS_SIM_MAKE(char, signed char)
GPULABS_SIM_MAKE(uchar, unsigned char)
GPULABS_SIM_MAKE(short, short)
GPULABS_SIM_MAKE(ushort, unsigned short)
GPULABS_SIM_MAKE(int, int)
GPULABS_SIM_MAKE(uint, unsigned int)
GPULABS_SIM_MAKE(long, long)
GPULABS_SIM_MAKE(ulong, unsigned long)
GPULABS_SIM_MAKE(longlong, long long)
GPULABS_SIM_MAKE(ulonglong, unsigned long long)
GPULABS_SIM_MAKE(float, float)
GPULABS_SIM_MAKE(double, double)

#undef GPULABS_SIM_MAKE

#endif
