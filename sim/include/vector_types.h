/* gpulabs-sim: CUDA's built-in vector types (int4, float2, uint3, dim3, ...), with the same
 * sizes and alignments as on the GPU, so a 16-byte vector load means the same thing here. */
#ifndef GPULABS_SIM_VECTOR_TYPES_H
#define GPULABS_SIM_VECTOR_TYPES_H

#define GPULABS_SIM_ALIGN(n) __attribute__((aligned(n)))

/* GPULABS_SIM_VEC1..4(name, type, alignment of the 2- and 4-wide forms) */
#define GPULABS_SIM_VEC1(name, T) \
  typedef struct name##1 { T x; } name##1;
#define GPULABS_SIM_VEC2(name, T, a) \
  typedef struct GPULABS_SIM_ALIGN(a) name##2 { T x, y; } name##2;
#define GPULABS_SIM_VEC3(name, T) \
  typedef struct name##3 { T x, y, z; } name##3;
#define GPULABS_SIM_VEC4(name, T, a) \
  typedef struct GPULABS_SIM_ALIGN(a) name##4 { T x, y, z, w; } name##4;
#define GPULABS_SIM_VECS(name, T, a2, a4) \
  GPULABS_SIM_VEC1(name, T) GPULABS_SIM_VEC2(name, T, a2) GPULABS_SIM_VEC3(name, T) \
  GPULABS_SIM_VEC4(name, T, a4)

GPULABS_SIM_VECS(char, signed char, 2, 4)
GPULABS_SIM_VECS(uchar, unsigned char, 2, 4)
GPULABS_SIM_VECS(short, short, 4, 8)
GPULABS_SIM_VECS(ushort, unsigned short, 4, 8)
GPULABS_SIM_VECS(int, int, 8, 16)
GPULABS_SIM_VECS(uint, unsigned int, 8, 16)
GPULABS_SIM_VECS(long, long, 2 * sizeof(long), 16)
GPULABS_SIM_VECS(ulong, unsigned long, 2 * sizeof(unsigned long), 16)
GPULABS_SIM_VECS(longlong, long long, 16, 16)
GPULABS_SIM_VECS(ulonglong, unsigned long long, 16, 16)
GPULABS_SIM_VECS(float, float, 8, 16)
GPULABS_SIM_VECS(double, double, 16, 16)

/* Grid and block sizes: unspecified components are 1. */
struct dim3 {
  unsigned int x, y, z;
#ifdef __cplusplus
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
#endif
};
typedef struct dim3 dim3;

#endif
