// GPU tests of common/'s trusted device code for the performance tests (gpulabs_yardstick): the
// check that lets CUB's sort serve as the expected output of the radix sort's timed calls.
// Built on the CUDA backend only, like the yardstick; skipped without a GPU.
#include <cstdint>
#include <numeric>
#include <vector>

#include "gltest.h"

extern "C" {
#include "gpulabs/data.h"
#include "gpulabs/yardstick/radix_sort.h"
}

class YardstickRadixCheck : public GpuTest {};

namespace {

size_t FirstWrong(const std::vector<uint32_t> &in, const std::vector<uint32_t> &keys,
                  const std::vector<uint32_t> *values) {
  gl::DeviceBuffer<uint32_t> d_in(in), d_keys(keys), d_values(values ? *values : in);
  size_t first_wrong = 0;
  EXPECT_EQ(gl_yardstick_check_radix_sort(d_in.get(), d_keys.get(),
                                          values ? d_values.get() : nullptr, in.size(),
                                          &first_wrong),
            GL_OK)
      << gl_last_error();
  return first_wrong;
}

}  // namespace

TEST_F(YardstickRadixCheck, PassesCubsSortAndCatchesEachKindOfWrongOne) {
  const size_t n = 100003;  // odd, several blocks of the check's grid
  std::vector<uint32_t> in(n), iota(n);
  gl_fill_u32(in.data(), n, GL_DIST_FEW_UNIQUE, gl::SeedFor(1));  // many equal keys: stability
  std::iota(iota.begin(), iota.end(), 0u);
  gl::DeviceBuffer<uint32_t> d_in(in), d_iota(iota), d_keys(n), d_values(n);
  GL_ASSERT_OK(gl_yardstick_radix_sort_pairs(d_in.get(), d_keys.get(), d_iota.get(),
                                             d_values.get(), n, 0, 32));
  GL_ASSERT_DEVICE_OK("CUB's sort");
  std::vector<uint32_t> keys = d_keys.Download(), values = d_values.Download();
  EXPECT_EQ(FirstWrong(in, keys, nullptr), SIZE_MAX);
  EXPECT_EQ(FirstWrong(in, keys, &values), SIZE_MAX);

  // Keys out of order.
  size_t i = 1;
  while (keys[i - 1] == keys[i]) ++i;
  std::vector<uint32_t> swapped = keys;
  std::swap(swapped[i - 1], swapped[i]);
  EXPECT_EQ(FirstWrong(in, swapped, nullptr), i);
  // In order, but not the input's keys: only the sums tell.
  std::vector<uint32_t> other = keys;
  other[n - 1] += other[n - 1] < UINT32_MAX ? 1 : 0;
  if (other[n - 1] != keys[n - 1]) {
    EXPECT_EQ(FirstWrong(in, other, nullptr), n);
  }
  // A value used twice, and equal keys out of input order.
  std::vector<uint32_t> twice = values;
  twice[n / 2] = twice[n / 2 - 1];
  EXPECT_LE(FirstWrong(in, keys, &twice), n / 2);
  size_t j = 1;
  while (keys[j - 1] != keys[j]) ++j;
  std::vector<uint32_t> unstable = values;
  std::swap(unstable[j - 1], unstable[j]);
  EXPECT_EQ(FirstWrong(in, keys, &unstable), j);
  // Nothing to check.
  size_t none = 0;
  GL_EXPECT_OK(gl_yardstick_check_radix_sort(nullptr, nullptr, nullptr, 0, &none));
  EXPECT_EQ(none, SIZE_MAX);
}
