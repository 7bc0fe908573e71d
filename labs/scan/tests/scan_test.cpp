// GPU tests of the scan lab: every step of the ladder, every block size, exclusive and
// inclusive, out of place and in place, against the CPU reference.
//
// Sizes: the standard edges (0, 1, odd, warp and block edges, non-powers of two) plus, for the
// block-scan steps, the sizes around tile, tile^2 and tile^3, where the recursion over block
// sums gains a level (n <= tile: 1 level, n <= tile^2: 2, n <= tile^3: 3). The tile is the
// handout's design (steps 4 and 5: 2 elements a thread, step 6: 1, step 7: 16); a solution with
// other tiles is tested just as strictly, only the level boundaries move.
//
// Names: ScanStep<N>.<case>, one case per block size (the rubric selects a step's tests by
// ScanStep<N>.*), ScanExclusive.* for the function the later labs use, ScanApi.* for the
// argument checks (no points).
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "gltest.h"

extern "C" {
#include "scan_reference.h"
#include "scan.h"
}

namespace {

// Elements after n that the scan must leave alone (they hold the poison value).
const size_t kGuard = 37;

const scan_kind kKinds[] = {SCAN_EXCLUSIVE, SCAN_INCLUSIVE};

const char *KindName(scan_kind kind) { return kind == SCAN_EXCLUSIVE ? "exclusive" : "inclusive"; }

std::vector<int> Reference(const std::vector<int> &in, scan_kind kind) {
  std::vector<int> out(in.size());
  if (kind == SCAN_EXCLUSIVE) {
    gl_ref_scan_exclusive(in.data(), out.data(), in.size());
  } else {
    gl_ref_scan_inclusive(in.data(), out.data(), in.size());
  }
  return out;
}

// Elements one block scans in the handout's design; 0 for the steps without tiles.
size_t DesignTile(scan_step step, int block_size) {
  switch (step) {
    case SCAN_STEP_BLELLOCH_SHARED:
    case SCAN_STEP_BLELLOCH_PADDED: return 2 * (size_t)block_size;
    case SCAN_STEP_WARP_SHUFFLE: return (size_t)block_size;
    case SCAN_STEP_SINGLE_PASS:
    case SCAN_STEP_PREFETCH: return 16 * (size_t)block_size;
    default: return 0;
  }
}

// The largest size of a per-block-size case (the three-level sizes of step 4 with 1024
// threads, tile 2048, need 2^22 + 1).
const size_t kCaseMax = ((size_t)1 << 22) + 1;

std::vector<size_t> SizesFor(scan_step step, int block_size) {
  std::vector<size_t> sizes = gl::StandardSizes(100003);
  if (block_size == 0) block_size = scan_default_block_size(step);
  size_t tile = DesignTile(step, block_size);
  std::vector<size_t> extra;
  if (tile == 0) {
    // Steps 2 and 3 work level by level over the whole array: powers of two and their
    // neighbours (step 3 pads to the next power of two).
    extra = {((size_t)1 << 17) - 1, (size_t)1 << 17, ((size_t)1 << 17) + 1, ((size_t)1 << 20) + 3};
  } else if (step == SCAN_STEP_SINGLE_PASS || step == SCAN_STEP_PREFETCH) {
    // One tile, two tiles, and enough tiles that the look-back must move its 32-tile window.
    extra = {tile - 1, tile, tile + 1, 2 * tile + 3, 33 * tile + 5, 100 * tile + 7};
  } else {
    // Around each level boundary tile^k, while it is within kCaseMax.
    for (size_t bound = tile; bound < kCaseMax; bound *= tile) {
      extra.push_back(bound - 1);
      extra.push_back(bound);
      extra.push_back(bound + 1);
      extra.push_back(bound + tile / 2 + 3); // a partial last tile at the next level
    }
  }
  // A boundary beyond $GPULABS_MAX_N (the CPU backend, the sanitizers) is left out, not moved:
  // a capped boundary would be just another size.
  for (size_t n : extra) {
    if (n <= kCaseMax && gl::CapSize(n) == n) sizes.push_back(n);
  }
  return sizes;
}

uint64_t Label(scan_step step, int block_size, size_t n, int salt) {
  return ((uint64_t)step << 56) ^ ((uint64_t)block_size << 40) ^ ((uint64_t)salt << 36) ^ n;
}

// Describes one call, for failure messages.
std::string Describe(scan_step step, scan_kind kind, size_t n, int block_size, bool in_place) {
  return std::string("scan_run(") + scan_step_name(step) + ", " + KindName(kind) +
         ", n = " + std::to_string(n) + ", block_size = " + std::to_string(block_size) + ", " +
         (in_place ? "in place" : "out of place") + ")";
}

::testing::AssertionResult GuardUntouched(const std::vector<int> &got, size_t n) {
  for (size_t i = n; i < got.size(); ++i) {
    if (got[i] != GL_POISON_I32) {
      return ::testing::AssertionFailure()
             << "wrote past the end: element n + " << (i - n) << " (n = " << n
             << ") changed from the poison value to " << got[i] << "; seed 0x" << std::hex
             << gl::Seed();
    }
  }
  return ::testing::AssertionSuccess();
}

std::vector<int> Head(const std::vector<int> &v, size_t n) {
  return std::vector<int>(v.begin(), v.begin() + n);
}

// Runs one step on `in`, both kinds, out of place and in place, and compares with the CPU
// reference: every element, nothing written past n, the input of an out-of-place scan intact.
void CheckInput(scan_step step, int block_size, const std::vector<int> &in) {
  const size_t n = in.size();
  std::vector<int> padded = in;
  padded.resize(n + kGuard, GL_POISON_I32);
  for (scan_kind kind : kKinds) {
    const std::vector<int> expected = Reference(in, kind);
    {
      SCOPED_TRACE(Describe(step, kind, n, block_size, false));
      gl::DeviceBuffer<int> d_in(padded);
      gl::DeviceBuffer<int> d_out(n + kGuard);  // poisoned
      GL_ASSERT_OK(scan_run(step, kind, d_in.get(), d_out.get(), n, block_size));
      GL_ASSERT_DEVICE_OK(Describe(step, kind, n, block_size, false).c_str());
      std::vector<int> got = d_out.Download();
      ASSERT_TRUE(gl::ArraysEqual(expected, Head(got, n)));
      ASSERT_TRUE(GuardUntouched(got, n));
      ASSERT_TRUE(gl::ArraysEqual(padded, d_in.Download())) << "the input array was changed";
    }
    {
      SCOPED_TRACE(Describe(step, kind, n, block_size, true));
      gl::DeviceBuffer<int> d_data(padded);
      GL_ASSERT_OK(scan_run(step, kind, d_data.get(), d_data.get(), n, block_size));
      GL_ASSERT_DEVICE_OK(Describe(step, kind, n, block_size, true).c_str());
      std::vector<int> got = d_data.Download();
      ASSERT_TRUE(gl::ArraysEqual(expected, Head(got, n)));
      ASSERT_TRUE(GuardUntouched(got, n));
    }
  }
}

// Values in [-1000, 1000]: positive and negative, small enough that the sums of the tested sizes
// stay within int (the wrap-around cases test the rest).
std::vector<int> SmallValues(size_t n, uint64_t label) {
  std::vector<int> in(n);
  gl_fill_int(in.data(), n, -1000, 1000, GL_DIST_UNIFORM, gl::SeedFor(label));
  return in;
}

// One test case: one step and one block size over all of its sizes.
void CheckStep(scan_step step, int block_size) {
  for (size_t n : SizesFor(step, block_size)) {
    ASSERT_NO_FATAL_FAILURE(CheckInput(step, block_size, SmallValues(n, Label(step, block_size, n, 0))));
  }
}

// Sums that overflow int many times over: the results must wrap like the reference.
void CheckWrapAround(scan_step step) {
  std::vector<int> edge = {INT_MAX, 1, INT_MAX, INT_MAX, INT_MIN, -1, INT_MIN, 0, 5};
  ASSERT_NO_FATAL_FAILURE(CheckInput(step, 0, edge));
  for (size_t n : {(size_t)1025, (size_t)100003}) {
    std::vector<int> in(n);
    gl_fill_int(in.data(), n, INT_MIN, INT_MAX, GL_DIST_UNIFORM, gl::SeedFor(Label(step, 0, n, 1)));
    ASSERT_NO_FATAL_FAILURE(CheckInput(step, 0, in));
  }
}

// The large sizes, with the step's default block size.
void CheckLarge(scan_step step) {
  for (size_t n : gl::CapSizes({((size_t)1 << 22) + 17, ((size_t)1 << 24) - 5})) {
    ASSERT_NO_FATAL_FAILURE(CheckInput(step, 0, SmallValues(n, Label(step, 0, n, 2))));
  }
}

// Arrays that do not start at the beginning of an allocation (d_in + 1, d_out + 3): only 4-byte
// alignment is guaranteed, so 16-byte vector accesses need a fallback.
void CheckOffsetPointers(scan_step step, size_t n = 100003) {
  const std::vector<int> in = SmallValues(n, Label(step, 0, n, 3));
  std::vector<int> host_in(n + 1, 0);
  std::copy(in.begin(), in.end(), host_in.begin() + 1);
  for (scan_kind kind : kKinds) {
    SCOPED_TRACE(std::string(scan_step_name(step)) + ", " + KindName(kind) +
                 ", d_in = start + 1, d_out = start + 3, n = " + std::to_string(n));
    gl::DeviceBuffer<int> d_in(host_in);
    gl::DeviceBuffer<int> d_out(n + 3 + kGuard);
    GL_ASSERT_OK(scan_run(step, kind, d_in.get() + 1, d_out.get() + 3, n, 0));
    GL_ASSERT_DEVICE_OK("scan_run with offset pointers");
    std::vector<int> got = d_out.Download();
    ASSERT_TRUE(gl::ArraysEqual(Reference(in, kind), std::vector<int>(got.begin() + 3, got.begin() + 3 + n)));
    ASSERT_TRUE(GuardUntouched(std::vector<int>(got.begin() + 3, got.end()), n));
  }
}

}  // namespace

// One fixture per step, so the rubric can select a step's tests by name.
class ScanStep2 : public GpuTest {};
class ScanStep3 : public GpuTest {};
class ScanStep4 : public GpuTest {};
class ScanStep5 : public GpuTest {};
class ScanStep6 : public GpuTest {};
class ScanStep7 : public GpuTest {};
class ScanStep8 : public GpuTest {};

#define SCAN_STEP_CASES(Suite, step)                                    \
  TEST_F(Suite, DefaultBlock) { CheckStep(step, 0); }                   \
  TEST_F(Suite, Block32) { CheckStep(step, 32); }                       \
  TEST_F(Suite, Block64) { CheckStep(step, 64); }                       \
  TEST_F(Suite, Block128) { CheckStep(step, 128); }                     \
  TEST_F(Suite, Block256) { CheckStep(step, 256); }                     \
  TEST_F(Suite, Block512) { CheckStep(step, 512); }                     \
  TEST_F(Suite, Block1024) { CheckStep(step, 1024); }                   \
  TEST_F(Suite, WrapsAround) { CheckWrapAround(step); }                 \
  TEST_F(Suite, LargeArrays) { CheckLarge(step); }                      \
  TEST_F(Suite, OffsetPointers) { CheckOffsetPointers(step); }

SCAN_STEP_CASES(ScanStep2, SCAN_STEP_NAIVE)
SCAN_STEP_CASES(ScanStep3, SCAN_STEP_BLELLOCH_GLOBAL)
SCAN_STEP_CASES(ScanStep4, SCAN_STEP_BLELLOCH_SHARED)
SCAN_STEP_CASES(ScanStep5, SCAN_STEP_BLELLOCH_PADDED)
SCAN_STEP_CASES(ScanStep6, SCAN_STEP_WARP_SHUFFLE)
SCAN_STEP_CASES(ScanStep7, SCAN_STEP_SINGLE_PASS)
SCAN_STEP_CASES(ScanStep8, SCAN_STEP_PREFETCH)

namespace {

// Steps 7 and 8 again, back to back: the tile counter and the status words must be reset on
// every call (a stale "prefix available" flag from the previous call gives wrong sums, a stale
// counter hands out tile numbers past the end).
void CheckRepeatedCalls(scan_step step, size_t n) {
  n = gl::CapSize(n);
  const std::vector<int> in = SmallValues(n, Label(step, 0, n, 4));
  const std::vector<int> expected = Reference(in, SCAN_EXCLUSIVE);
  gl::DeviceBuffer<int> d_in(in);
  gl::DeviceBuffer<int> d_out(n);
  for (int call = 0; call < 5; ++call) {
    SCOPED_TRACE("call " + std::to_string(call + 1) + " of 5 on the same arrays, " +
                 scan_step_name(step) + ", n = " + std::to_string(n));
    d_out.Poison();
    GL_ASSERT_OK(scan_run(step, SCAN_EXCLUSIVE, d_in.get(), d_out.get(), n, 0));
    GL_ASSERT_DEVICE_OK("scan_run called again");
    ASSERT_TRUE(gl::ArraysEqual(expected, d_out.Download()));
  }
}

}  // namespace

TEST_F(ScanStep7, RepeatedCallsStartAfresh) { CheckRepeatedCalls(SCAN_STEP_SINGLE_PASS, 1000003); }

namespace {

// Step 8's sizes scale with the GPU: the reference staggers its first wave over 18,432
// elements an SM at any block size (a wave is 1,024 threads an SM) and does so only for arrays
// more than twice that long (4.87 million elements on an H100's 132 SMs). 40,000 to 48,000
// elements an SM clear that by 8-30% on any GPU, so these cases run the small growing tiles
// first, then full tiles, each prefetching a later one.
size_t PerSm(size_t elements_per_sm) {
  gl_device_info info;
  size_t sms = 132;  // an H100's, when the query fails (the test then fails on its own)
  if (gl_device_query(0, &info) == GL_OK && info.sm_count > 0) sms = (size_t)info.sm_count;
  return sms * elements_per_sm;
}

}  // namespace

// Calls also differ in which tiles are small.
TEST_F(ScanStep8, RepeatedCallsStartAfresh) {
  CheckRepeatedCalls(SCAN_STEP_PREFETCH, PerSm(40000) + 11);
}

TEST_F(ScanStep8, PastTheFirstWave) {
  for (int block : {0, 256, 32}) {
    for (size_t n : gl::CapSizes({PerSm(40000) + 3, PerSm(48000) - 7})) {
      const std::vector<int> in = SmallValues(n, Label(SCAN_STEP_PREFETCH, block, n, 6));
      ASSERT_NO_FATAL_FAILURE(CheckInput(SCAN_STEP_PREFETCH, block, in));
    }
  }
}

// Unaligned arrays past the first wave: the ramp's tiles on the scalar path, no prefetch.
TEST_F(ScanStep8, OffsetPointersPastTheFirstWave) {
  CheckOffsetPointers(SCAN_STEP_PREFETCH, gl::CapSize(PerSm(40000) + 1));
}

// scan_exclusive: what compaction and radix sort call.
class ScanExclusive : public GpuTest {};

TEST_F(ScanExclusive, MatchesTheReference) {
  std::vector<size_t> sizes = gl::StandardSizes((size_t)1 << 24);
  for (size_t n : sizes) {
    const std::vector<int> in = SmallValues(n, Label(SCAN_LAST_STEP, 1, n, 5));
    const std::vector<int> expected = Reference(in, SCAN_EXCLUSIVE);
    std::vector<int> padded = in;
    padded.resize(n + kGuard, GL_POISON_I32);
    SCOPED_TRACE("scan_exclusive(n = " + std::to_string(n) + ")");
    gl::DeviceBuffer<int> d_in(padded);
    gl::DeviceBuffer<int> d_out(n + kGuard);
    GL_ASSERT_OK(scan_exclusive(d_in.get(), d_out.get(), n));
    GL_ASSERT_DEVICE_OK("scan_exclusive");
    std::vector<int> got = d_out.Download();
    ASSERT_TRUE(gl::ArraysEqual(expected, Head(got, n)));
    ASSERT_TRUE(GuardUntouched(got, n));
    // In place, as compaction may call it.
    GL_ASSERT_OK(scan_exclusive(d_in.get(), d_in.get(), n));
    GL_ASSERT_DEVICE_OK("scan_exclusive in place");
    got = d_in.Download();
    ASSERT_TRUE(gl::ArraysEqual(expected, Head(got, n))) << "in place";
    ASSERT_TRUE(GuardUntouched(got, n)) << "in place";
  }
}

TEST_F(ScanExclusive, FlagsGiveOutputAddresses) {
  // 0/1 flags, as compaction scans them: the result is each kept element's output index.
  const size_t n = gl::CapSize(((size_t)1 << 20) + 3);
  std::vector<int> flags(n);
  gl_fill_flags(flags.data(), n, 0.3, gl::SeedFor(6));
  gl::DeviceBuffer<int> d_flags(flags);
  gl::DeviceBuffer<int> d_addresses(n);
  GL_ASSERT_OK(scan_exclusive(d_flags.get(), d_addresses.get(), n));
  GL_ASSERT_DEVICE_OK("scan_exclusive of flags");
  EXPECT_TRUE(gl::ArraysEqual(Reference(flags, SCAN_EXCLUSIVE), d_addresses.Download()));
}

// The argument checks: the given plumbing (these pass with the stub too; they earn no points).
class ScanApi : public GpuTest {};

TEST(ScanApiNames, StepNamesAndDefaults) {
  EXPECT_STREQ(scan_step_name(SCAN_STEP_NAIVE), "2-naive");
  EXPECT_STREQ(scan_step_name(SCAN_STEP_BLELLOCH_GLOBAL), "3-blelloch-global");
  EXPECT_STREQ(scan_step_name(SCAN_STEP_BLELLOCH_SHARED), "4-blelloch-shared");
  EXPECT_STREQ(scan_step_name(SCAN_STEP_BLELLOCH_PADDED), "5-blelloch-padded");
  EXPECT_STREQ(scan_step_name(SCAN_STEP_WARP_SHUFFLE), "6-warp-shuffle");
  EXPECT_STREQ(scan_step_name(SCAN_STEP_SINGLE_PASS), "7-single-pass");
  EXPECT_STREQ(scan_step_name(SCAN_STEP_PREFETCH), "8-prefetch");
  EXPECT_STREQ(scan_step_name((scan_step)1), "unknown");
  EXPECT_STREQ(scan_step_name((scan_step)9), "unknown");
  for (int s = SCAN_FIRST_STEP; s <= SCAN_LAST_STEP; ++s) {
    int block = scan_default_block_size((scan_step)s);
    EXPECT_TRUE(block >= 32 && block <= 1024 && (block & (block - 1)) == 0)
        << scan_step_name((scan_step)s) << " default block size " << block;
  }
  EXPECT_EQ(scan_default_block_size((scan_step)9), 0);
}

static bool LastErrorMentions(const char *text) {
  return std::strstr(gl_last_error(), text) != nullptr;
}

TEST_F(ScanApi, RejectsAStepOutsideTheLadder) {
  gl::DeviceBuffer<int> a(16), b(16);
  for (int step : {0, 1, 9}) {
    GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT,
                     scan_run((scan_step)step, SCAN_EXCLUSIVE, a.get(), b.get(), 16, 0));
    EXPECT_TRUE(LastErrorMentions("step")) << gl_last_error();
  }
}

TEST_F(ScanApi, RejectsAnUnknownKind) {
  gl::DeviceBuffer<int> a(16), b(16);
  GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT,
                   scan_run(SCAN_STEP_NAIVE, (scan_kind)2, a.get(), b.get(), 16, 0));
  EXPECT_TRUE(LastErrorMentions("kind 2")) << gl_last_error();
}

TEST_F(ScanApi, RejectsBadBlockSizes) {
  gl::DeviceBuffer<int> a(16), b(16);
  for (int step = SCAN_FIRST_STEP; step <= SCAN_LAST_STEP; ++step) {
    for (int block : {-32, 1, 16, 48, 33, 100, 2048}) {
      GL_EXPECT_STATUS(GL_ERR_INVALID_ARGUMENT,
                       scan_run((scan_step)step, SCAN_EXCLUSIVE, a.get(), b.get(), 16, block));
      std::string wanted = "block_size " + std::to_string(block);
      EXPECT_TRUE(LastErrorMentions(wanted.c_str())) << gl_last_error();
    }
  }
}

TEST_F(ScanApi, RejectsNBeyondTheLimit) {
  gl::DeviceBuffer<int> a(16), b(16);
  // Rejected before anything is read: the small buffers are never touched.
  GL_EXPECT_STATUS(GL_ERR_SIZE, scan_run(SCAN_STEP_SINGLE_PASS, SCAN_EXCLUSIVE, a.get(), b.get(),
                                         SCAN_MAX_N + 1, 0));
  EXPECT_TRUE(LastErrorMentions("SCAN_MAX_N")) << gl_last_error();
  GL_EXPECT_STATUS(GL_ERR_SIZE, scan_exclusive(a.get(), b.get(), (size_t)-1));
}

TEST_F(ScanApi, RejectsNullPointers) {
  gl::DeviceBuffer<int> a(16);
  for (int step = SCAN_FIRST_STEP; step <= SCAN_LAST_STEP; ++step) {
    GL_EXPECT_STATUS(GL_ERR_NULL_POINTER,
                     scan_run((scan_step)step, SCAN_EXCLUSIVE, nullptr, a.get(), 16, 0));
    EXPECT_TRUE(LastErrorMentions("d_in")) << gl_last_error();
    GL_EXPECT_STATUS(GL_ERR_NULL_POINTER,
                     scan_run((scan_step)step, SCAN_INCLUSIVE, a.get(), nullptr, 16, 0));
    EXPECT_TRUE(LastErrorMentions("d_out")) << gl_last_error();
  }
  GL_EXPECT_STATUS(GL_ERR_NULL_POINTER, scan_exclusive(nullptr, a.get(), 16));
  GL_EXPECT_STATUS(GL_ERR_NULL_POINTER, scan_exclusive(a.get(), nullptr, 16));
}

TEST_F(ScanApi, ZeroElementsWriteNothing) {
  gl::DeviceBuffer<int> in(std::vector<int>{7});
  gl::DeviceBuffer<int> out(1);  // poisoned
  for (int step = SCAN_FIRST_STEP; step <= SCAN_LAST_STEP; ++step) {
    for (scan_kind kind : kKinds) {
      GL_EXPECT_OK(scan_run((scan_step)step, kind, in.get(), out.get(), 0, 0));
      GL_EXPECT_OK(scan_run((scan_step)step, kind, nullptr, nullptr, 0, 0));  // nothing needed
    }
  }
  GL_EXPECT_OK(scan_exclusive(in.get(), out.get(), 0));
  GL_ASSERT_DEVICE_OK("scans of 0 elements");
  EXPECT_EQ(out.Download()[0], GL_POISON_I32) << "a scan of 0 elements wrote its output";
  EXPECT_EQ(in.Download()[0], 7);
}
