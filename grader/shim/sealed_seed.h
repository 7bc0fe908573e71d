// The seed of each sealed call's input (sealed_timing.h): a keyed one-way function, SipHash-2-4,
// of the run's seed, the test, the side and the call's number, under a 128-bit key drawn from
// the kernel when the test program starts, which never leaves it. The fills of the inputs can
// be run backwards (a lab that sees an input may find the seed it was drawn from), but the next
// call's seed cannot be had from this one's without the key: no input can be foreseen.
#ifndef GPULABS_SHIM_SEALED_SEED_H
#define GPULABS_SHIM_SEALED_SEED_H

#include <sys/random.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace gl {
namespace sealed_detail {

inline uint64_t Rotl(uint64_t x, int b) { return (x << b) | (x >> (64 - b)); }

inline void SipRound(uint64_t v[4]) {
  v[0] += v[1]; v[1] = Rotl(v[1], 13); v[1] ^= v[0]; v[0] = Rotl(v[0], 32);
  v[2] += v[3]; v[3] = Rotl(v[3], 16); v[3] ^= v[2];
  v[0] += v[3]; v[3] = Rotl(v[3], 21); v[3] ^= v[0];
  v[2] += v[1]; v[1] = Rotl(v[1], 17); v[1] ^= v[2]; v[2] = Rotl(v[2], 32);
}

// SipHash-2-4 of `data` under the key k[0], k[1] (Aumasson and Bernstein's definition).
inline uint64_t SipHash24(const uint64_t k[2], const std::string &data) {
  uint64_t v[4] = {k[0] ^ 0x736f6d6570736575ull, k[1] ^ 0x646f72616e646f6dull,
                   k[0] ^ 0x6c7967656e657261ull, k[1] ^ 0x7465646279746573ull};
  const size_t n = data.size(), whole = n - n % 8;
  for (size_t i = 0; i < whole; i += 8) {
    uint64_t m = 0;
    for (int b = 0; b < 8; ++b) m |= (uint64_t)(unsigned char)data[i + b] << (8 * b);
    v[3] ^= m;
    SipRound(v);
    SipRound(v);
    v[0] ^= m;
  }
  uint64_t last = (uint64_t)(n & 0xff) << 56;
  for (size_t b = 0; whole + b < n; ++b) last |= (uint64_t)(unsigned char)data[whole + b] << (8 * b);
  v[3] ^= last;
  SipRound(v);
  SipRound(v);
  v[0] ^= last;
  v[2] ^= 0xff;
  for (int r = 0; r < 4; ++r) SipRound(v);
  return v[0] ^ v[1] ^ v[2] ^ v[3];
}

// The test program's key, drawn once. Without one no input could be trusted: the program stops.
inline const uint64_t *SealedKey() {
  static uint64_t key[2];
  static bool drawn = false;
  if (!drawn) {
    if (getrandom(key, sizeof key, 0) != (ssize_t)sizeof key) {
      std::fprintf(stderr, "sealed timing: no random key from the kernel (getrandom)\n");
      std::abort();
    }
    drawn = true;
  }
  return key;
}

}  // namespace sealed_detail

// The input seed of call `call` in the stream named `name` (the test and the side) of a run
// with seed `run_seed`.
inline uint64_t SealedSeed(uint64_t run_seed, const std::string &name, long call) {
  std::string data(16, '\0');
  std::memcpy(&data[0], &run_seed, 8);
  std::memcpy(&data[8], &call, sizeof call < 8 ? sizeof call : 8);
  data += name;
  return sealed_detail::SipHash24(sealed_detail::SealedKey(), data);
}

}  // namespace gl

#endif
