// Where the test buffers go inside one slab (test_buffers.cpp): the slab's free space as a list
// of blocks, taken first fit and joined again when given back. No CUDA here, so that the
// placement can be tested on any machine (grader/tests/shim_test.cpp); the slabs themselves
// are device memory and only ever exercised on a GPU.
#ifndef GPULABS_SLAB_SPACE_H
#define GPULABS_SLAB_SPACE_H

#include <cstddef>
#include <iterator>
#include <map>

namespace gl {

class SlabSpace {
 public:
  static constexpr size_t kNone = ~(size_t)0;

  explicit SlabSpace(size_t bytes) : bytes_(bytes) {
    if (bytes > 0) free_[0] = bytes;
  }

  size_t bytes() const { return bytes_; }
  bool Holds(size_t offset) const { return offset < bytes_; }
  // offset -> length, in order; never two that touch (Give joins them).
  const std::map<size_t, size_t> &free_blocks() const { return free_; }

  // The offset of `span` bytes from the lowest free block that holds them, or kNone.
  size_t Take(size_t span) {
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      if (it->second < span) continue;
      const size_t offset = it->first, rest = it->second - span;
      free_.erase(it);
      if (rest > 0) free_[offset + span] = rest;
      return offset;
    }
    return kNone;
  }

  // Gives [offset, offset + span) back, joined with the free blocks just before and after it.
  // The caller knows it was taken (test_buffers.cpp keeps the live buffers).
  void Give(size_t offset, size_t span) {
    auto next = free_.lower_bound(offset);
    if (next != free_.end() && offset + span == next->first) {
      span += next->second;
      next = free_.erase(next);
    }
    if (next != free_.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second == offset) {
        prev->second += span;
        return;
      }
    }
    free_[offset] = span;
  }

 private:
  size_t bytes_;
  std::map<size_t, size_t> free_;
};

}  // namespace gl

#endif  // GPULABS_SLAB_SPACE_H
