// The test shim's own logic that needs no GPU: where test buffers go inside a slab
// (grader/shim/slab_space.h), and the sealed calls' input seeds (grader/shim/sealed_seed.h). On a
// GPU every lab's tests exercise them; here they are checked alone.
#include <cstddef>
#include <map>
#include <utility>
#include <vector>

#include <set>
#include <string>

#include "gltest.h"
#include "sealed_seed.h"
#include "slab_space.h"

namespace {

using Blocks = std::map<size_t, size_t>;

// No two free blocks touch or overlap, and all lie inside the slab.
void ExpectWellFormed(const gl::SlabSpace &space) {
  size_t end = 0;
  bool first = true;
  for (const auto &block : space.free_blocks()) {
    EXPECT_GT(block.second, 0u) << "an empty free block at " << block.first;
    if (!first) {
      EXPECT_GT(block.first, end) << "free blocks touch or overlap at " << block.first;
    }
    end = block.first + block.second;
    first = false;
  }
  EXPECT_LE(end, space.bytes());
}

TEST(SlabSpace, TakesFromTheLowestBlockThatFits) {
  gl::SlabSpace space(1000);
  EXPECT_EQ(space.Take(100), 0u);
  EXPECT_EQ(space.Take(200), 100u);
  EXPECT_EQ(space.Take(300), 300u);
  EXPECT_EQ(space.free_blocks(), (Blocks{{600, 400}}));
  space.Give(100, 200);  // a hole of 200 below the free tail of 400
  EXPECT_EQ(space.Take(250), 600u) << "the hole is too small: the tail serves";
  EXPECT_EQ(space.Take(150), 100u) << "the lowest block that fits, not the best fit";
  EXPECT_EQ(space.free_blocks(), (Blocks{{250, 50}, {850, 150}}));
  ExpectWellFormed(space);
}

TEST(SlabSpace, RefusesWhatNoBlockHolds) {
  gl::SlabSpace space(1000);
  EXPECT_EQ(space.Take(1001), gl::SlabSpace::kNone);
  EXPECT_EQ(space.Take(400), 0u);
  EXPECT_EQ(space.Take(400), 400u);
  EXPECT_EQ(space.Take(201), gl::SlabSpace::kNone) << "200 bytes are left";
  EXPECT_EQ(space.Take(200), 800u);
  EXPECT_TRUE(space.free_blocks().empty());
  EXPECT_EQ(space.Take(1), gl::SlabSpace::kNone);
  gl::SlabSpace none(0);
  EXPECT_EQ(none.Take(1), gl::SlabSpace::kNone);
}

TEST(SlabSpace, JoinsWhatIsGivenBackWithItsNeighbours) {
  gl::SlabSpace space(500);
  for (size_t i = 0; i < 5; ++i) ASSERT_EQ(space.Take(100), 100 * i);
  space.Give(100, 100);  // alone
  space.Give(300, 100);  // alone
  EXPECT_EQ(space.free_blocks(), (Blocks{{100, 100}, {300, 100}}));
  space.Give(200, 100);  // joins both
  EXPECT_EQ(space.free_blocks(), (Blocks{{100, 300}}));
  space.Give(0, 100);  // joins the one after
  EXPECT_EQ(space.free_blocks(), (Blocks{{0, 400}}));
  space.Give(400, 100);  // joins the one before: the whole slab again
  EXPECT_EQ(space.free_blocks(), (Blocks{{0, 500}}));
  EXPECT_EQ(space.Take(500), 0u) << "one block again holds the whole slab";
}

TEST(SlabSpace, HoldsOnlyOffsetsInsideTheSlab) {
  gl::SlabSpace space(256);
  EXPECT_TRUE(space.Holds(0));
  EXPECT_TRUE(space.Holds(255));
  EXPECT_FALSE(space.Holds(256));
}

// The offset first fit gives: the lowest free block of at least `span` bytes.
size_t FirstFit(const gl::SlabSpace &space, size_t span) {
  for (const auto &block : space.free_blocks()) {
    if (block.second >= span) return block.first;
  }
  return gl::SlabSpace::kNone;
}

// Random takes and gives against a byte map of what is taken: each take is first fit, no byte
// is handed out twice, every byte comes back, and the free list stays well formed.
TEST(SlabSpace, RandomTakesAndGivesNeverOverlap) {
  const size_t bytes = 1 << 16;
  gl::SlabSpace space(bytes);
  std::vector<char> taken(bytes, 0);
  std::vector<std::pair<size_t, size_t>> live;
  gl_rng rng;
  gl_rng_seed(&rng, gl::SeedFor(17));
  for (int round = 0; round < 4000; ++round) {
    if (live.empty() || gl_rng_below(&rng, 2) == 0) {
      const size_t span = 1 + (size_t)gl_rng_below(&rng, 2048);
      const size_t want = FirstFit(space, span);
      const size_t offset = space.Take(span);
      ASSERT_EQ(offset, want) << "not first fit for " << span << " bytes, round " << round;
      if (offset == gl::SlabSpace::kNone) continue;
      ASSERT_LE(offset + span, bytes) << "round " << round;
      for (size_t i = offset; i < offset + span; ++i) {
        ASSERT_EQ(taken[i], 0) << "byte " << i << " handed out twice, round " << round;
        taken[i] = 1;
      }
      live.emplace_back(offset, span);
    } else {
      const size_t k = (size_t)gl_rng_below(&rng, live.size());
      for (size_t i = live[k].first; i < live[k].first + live[k].second; ++i) taken[i] = 0;
      space.Give(live[k].first, live[k].second);
      live.erase(live.begin() + (long)k);
    }
    if (round % 100 == 0) ExpectWellFormed(space);
  }
  for (const auto &block : live) space.Give(block.first, block.second);
  EXPECT_EQ(space.free_blocks(), (Blocks{{0, bytes}})) << "every byte back, in one block";
}

}  // namespace

// SipHash-2-4 against its authors' test vectors: key 00 01 .. 0f, messages 00 01 .. (n - 1).
TEST(SealedSeed, SipHashMatchesItsReferenceVectors) {
  const uint64_t key[2] = {0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull};
  std::string message;
  EXPECT_EQ(gl::sealed_detail::SipHash24(key, message), 0x726fdb47dd0e0e31ull);
  for (int i = 0; i < 15; ++i) message += (char)i;
  EXPECT_EQ(gl::sealed_detail::SipHash24(key, message), 0xa129ca6149be45e5ull);
}

// Each call of each stream gets its own seed, under a key of this program's: the same run seed
// in another program (another key) gives other seeds, so a run's inputs cannot be foreseen.
TEST(SealedSeed, EveryCallHasASeedOfItsOwn) {
  std::set<uint64_t> seeds;
  for (long call = 0; call < 100; ++call) {
    seeds.insert(gl::SealedSeed(42, "Suite.Test/lab", call));
    seeds.insert(gl::SealedSeed(42, "Suite.Test/cub", call));
  }
  EXPECT_EQ(seeds.size(), 200u);
  EXPECT_EQ(gl::SealedSeed(42, "Suite.Test/lab", 7), gl::SealedSeed(42, "Suite.Test/lab", 7));
  const uint64_t *key = gl::sealed_detail::SealedKey();
  EXPECT_FALSE(key[0] == 0 && key[1] == 0) << "the key was not drawn";
}
