// gpulabs-sim: cooperative groups at block and warp level, with the toolkit's names and
// semantics (CUDA Programming Guide, "Cooperative Groups"; the CUDA 12/13 headers).
//
//   thread_block        this_thread_block(): sync, thread_rank, size/num_threads,
//                       group_index, thread_index, group_dim/dim_threads
//   thread_block_tile<N> tiled_partition<N>(block or tile): N = 1..32 on the warp functions
//                       (sync, shfl, shfl_up/down/xor, any, all, ballot, match_any/all);
//                       N = 64..1024 on a barrier over the tile's threads (sync, shfl, any, all)
//   thread_group        tiled_partition(group, n), n = 1..32: sync, thread_rank, size
//   coalesced_group     coalesced_threads(), tiled_partition(coalesced, n)
//   sync(g), thread_rank(g), group_size(g), this_thread(), block_tile_memory
//   reduce (cooperative_groups/reduce.h), inclusive_scan/exclusive_scan (scan.h)
//
// coalesced_threads() is the set of lanes of the caller's warp that reached the same call in
// the same round of the shuffled schedule: always the caller, often every lane that took the
// branch, sometimes fewer (as on a GPU, where it is whatever lanes happen to be converged).
// Code that is correct on a GPU makes no assumption about it, and is correct here.
//
// Grid-wide groups are not simulated (a launch runs its blocks one after another on each host
// thread, so a grid barrier cannot be kept): this_grid() works for its indices, but
// grid_group::sync() fails the launch with a report naming the call; this_multi_grid() fails
// at once. Run such kernels on a GPU.
#ifndef GPULABS_SIM_COOPERATIVE_GROUPS_H
#define GPULABS_SIM_COOPERATIVE_GROUPS_H

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "cuda_runtime.h"

#define GPULABS_SIM_CG_SITE const char *file = __builtin_FILE(), int line = __builtin_LINE()

namespace cooperative_groups {

namespace details {

enum : unsigned { kBlockSync = 4, kTileSync = 5, kTileCollective = 6 };
enum : unsigned { coalesced_group_id = 1, thread_block_id = 4, grid_group_id = 5, multi_tile_group_id = 7 };

inline unsigned cta_rank() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
inline unsigned cta_size() { return blockDim.x * blockDim.y * blockDim.z; }
inline unsigned laneid() { return ::gpulabs_sim::thread_state("cooperative_groups").lane; }
inline unsigned lanemask32_lt() { return (1u << laneid()) - 1u; }

// The lane of the n-th (from 0) set bit of mask, or 32.
inline unsigned nth_lane(unsigned mask, unsigned n) {
  for (unsigned l = 0; l < 32; ++l) {
    if (mask & (1u << l)) {
      if (n == 0) return l;
      --n;
    }
  }
  return 32;
}

// Bits of `mask`'s lanes that are in `lanes`, packed by rank (the toolkit's _packLanes).
inline unsigned pack_lanes(unsigned mask, unsigned lanes) {
  unsigned pack = 0, rank = 0;
  for (unsigned l = 0; l < 32; ++l) {
    if (mask & (1u << l)) {
      if (lanes & (1u << l)) pack |= 1u << rank;
      ++rank;
    }
  }
  return pack;
}

[[noreturn]] inline void misuse(const char *what, const char *file, int line) {
  ::gpulabs_sim::kernel_trap(what, file, line);
}

// A warp shuffle of any trivially copyable value (in 8-byte pieces above 8 bytes).
template <class T>
inline T shuffle(::gpulabs_sim::WarpOp op, unsigned mask, const T &value, int64_t arg, int width,
                 const char *file, int line) {
  static_assert(std::is_trivially_copyable<T>::value, "shuffles need a trivially copyable type");
  if constexpr (sizeof(T) <= 8) {
    return ::gpulabs_sim::warp_value_op(op, mask, value, arg, width, file, line);
  } else {
    constexpr size_t kPieces = (sizeof(T) + 7) / 8;
    uint64_t in[kPieces] = {}, out[kPieces];
    std::memcpy(in, &value, sizeof(T));
    for (size_t i = 0; i < kPieces; ++i)
      out[i] = ::gpulabs_sim::warp_value_op(op, mask, in[i], arg, width, file, line);
    T result;
    std::memcpy(static_cast<void *>(&result), out, sizeof(T));
    return result;
  }
}

template <class T>
inline unsigned match(::gpulabs_sim::WarpOp op, unsigned mask, const T &value, int *pred,
                      const char *file, int line) {
  static_assert(std::is_arithmetic<T>::value, "match_any/match_all need an arithmetic type");
  return (unsigned)::gpulabs_sim::warp_collective(
      ::gpulabs_sim::WarpCall{op, mask, ::gpulabs_sim::to_bits(value), sizeof(T), 0, 32, file, line},
      pred);
}

inline unsigned ballot(unsigned mask, int predicate, const char *file, int line) {
  return (unsigned)::gpulabs_sim::warp_u32_op(::gpulabs_sim::WarpOp::kBallot, mask, predicate != 0,
                                              file, line);
}

struct tile_tag {};

}  // namespace details

// ---- thread_group: a block or a group of lanes of one warp, its kind known at run time ----
class thread_group {
 protected:
  unsigned type_;
  unsigned mask_ = 0;  // the lanes (coalesced kinds)
  unsigned size_ = 0;
  unsigned meta_rank_ = 0;
  unsigned meta_size_ = 1;
  bool tiled_ = false;

  explicit thread_group(unsigned type) : type_(type) {}

 public:
  // (The simulator's own: what tiled_partition & co. build groups with.)
  thread_group(details::tile_tag, unsigned type, unsigned mask, unsigned meta_rank,
               unsigned meta_size, bool tiled)
      : type_(type), mask_(mask), size_((unsigned)__builtin_popcount(mask)), meta_rank_(meta_rank),
        meta_size_(meta_size), tiled_(tiled) {}
  unsigned _lanes() const { return mask_; }
  bool _tiled() const { return tiled_; }

  unsigned get_type() const { return type_; }
  unsigned long long num_threads() const {
    return type_ == details::thread_block_id ? details::cta_size() : size_;
  }
  unsigned long long size() const { return num_threads(); }
  unsigned long long thread_rank() const {
    return type_ == details::thread_block_id ? details::cta_rank()
                                             : (unsigned)__builtin_popcount(mask_ & details::lanemask32_lt());
  }
  void sync(GPULABS_SIM_CG_SITE) const {
    if (type_ == details::thread_block_id) {
      ::gpulabs_sim::block_barrier(details::kBlockSync, 0, file, line);
    } else {
      __syncwarp(mask_, file, line);
    }
  }
};

// ---- thread_block ------------------------------------------------------------------------
template <unsigned MaxBlockSize = 1024>
struct block_tile_memory {
  // The toolkit's scratch for tiles wider than a warp (sm_80 and later keep it in reserved
  // shared memory); here tiles exchange values through the simulator's own slots.
  alignas(8) unsigned char unused[8];
};

class thread_block : public thread_group {
  friend thread_block this_thread_block();
  template <unsigned M>
  friend thread_block this_thread_block(block_tile_memory<M> &);
  thread_block() : thread_group(details::thread_block_id) {}

 public:
  static void sync(GPULABS_SIM_CG_SITE) {
    ::gpulabs_sim::block_barrier(details::kBlockSync, 0, file, line);
  }
  static unsigned size() { return details::cta_size(); }
  static unsigned num_threads() { return details::cta_size(); }
  static unsigned thread_rank() { return details::cta_rank(); }
  static dim3 group_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  static dim3 thread_index() { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  static dim3 group_dim() { return dim3(blockDim.x, blockDim.y, blockDim.z); }
  static dim3 dim_threads() { return group_dim(); }
};

inline thread_block this_thread_block() { return thread_block(); }
template <unsigned MaxBlockSize>
inline thread_block this_thread_block(block_tile_memory<MaxBlockSize> &) {
  return thread_block();
}

// ---- coalesced_group ---------------------------------------------------------------------
class coalesced_group : public thread_group {
 public:
  coalesced_group(details::tile_tag tag, unsigned mask, unsigned meta_rank = 0,
                  unsigned meta_size = 1, bool tiled = false)
      : thread_group(tag, details::coalesced_group_id, mask, meta_rank, meta_size, tiled) {}

  unsigned get_mask() const { return mask_; }
  unsigned num_threads() const { return size_; }
  unsigned size() const { return size_; }
  unsigned thread_rank() const { return (unsigned)__builtin_popcount(mask_ & details::lanemask32_lt()); }
  unsigned meta_group_rank() const { return meta_rank_; }
  unsigned meta_group_size() const { return meta_size_; }
  void sync(GPULABS_SIM_CG_SITE) const { __syncwarp(mask_, file, line); }

  template <class T>
  T shfl(T value, unsigned src_rank, GPULABS_SIM_CG_SITE) const {
    const unsigned lane = size_ == 32 ? src_rank : details::nth_lane(mask_, src_rank);
    return details::shuffle(::gpulabs_sim::WarpOp::kShflIdx, mask_, value,
                            lane >= 32 ? (int64_t)details::laneid() : (int64_t)lane, 32, file, line);
  }
  template <class T>
  T shfl_down(T value, unsigned delta, GPULABS_SIM_CG_SITE) const {
    if (size_ == 32)
      return details::shuffle(::gpulabs_sim::WarpOp::kShflDown, mask_, value, delta, 32, file, line);
    unsigned lane = details::nth_lane(mask_, thread_rank() + delta);
    if (lane >= 32) lane = details::laneid();
    return details::shuffle(::gpulabs_sim::WarpOp::kShflIdx, mask_, value, lane, 32, file, line);
  }
  template <class T>
  T shfl_up(T value, unsigned delta, GPULABS_SIM_CG_SITE) const {
    if (size_ == 32)
      return details::shuffle(::gpulabs_sim::WarpOp::kShflUp, mask_, value, delta, 32, file, line);
    const unsigned rank = thread_rank();
    unsigned lane = rank >= delta ? details::nth_lane(mask_, rank - delta) : 32;
    if (lane >= 32) lane = details::laneid();
    return details::shuffle(::gpulabs_sim::WarpOp::kShflIdx, mask_, value, lane, 32, file, line);
  }
  int any(int predicate, GPULABS_SIM_CG_SITE) const {
    return details::ballot(mask_, predicate, file, line) != 0;
  }
  int all(int predicate, GPULABS_SIM_CG_SITE) const {
    return details::ballot(mask_, predicate, file, line) == mask_;
  }
  unsigned ballot(int predicate, GPULABS_SIM_CG_SITE) const {
    return details::pack_lanes(mask_, details::ballot(mask_, predicate, file, line));
  }
  template <class T>
  unsigned match_any(T value, GPULABS_SIM_CG_SITE) const {
    return details::pack_lanes(
        mask_, details::match(::gpulabs_sim::WarpOp::kMatchAny, mask_, value, nullptr, file, line));
  }
  template <class T>
  unsigned match_all(T value, int &pred, GPULABS_SIM_CG_SITE) const {
    return details::pack_lanes(
        mask_, details::match(::gpulabs_sim::WarpOp::kMatchAll, mask_, value, &pred, file, line));
  }
};

inline coalesced_group coalesced_threads(GPULABS_SIM_CG_SITE) {
  return coalesced_group(details::tile_tag{}, ::gpulabs_sim::coalesced_lanes(file, line));
}

// ---- thread_block_tile<Size, ParentT> ----------------------------------------------------
namespace details {

// Sizes 1..32: a group of lanes of one warp, on the warp functions.
template <unsigned Size>
class warp_tile : public thread_group {
  static_assert(Size >= 1 && Size <= 32 && (Size & (Size - 1)) == 0,
                "Size must be one of 1/2/4/8/16/32");

 public:
  warp_tile(tile_tag tag, unsigned meta_rank, unsigned meta_size)
      : thread_group(tag, coalesced_group_id, build_mask(), meta_rank, meta_size, true) {}
  unsigned get_mask() const { return mask_; }
  static unsigned build_mask() {
    if (Size == 32) return 0xffffffffu;
    return ((1u << (Size & 31)) - 1u) << (laneid() & ~(Size - 1));
  }
  static constexpr unsigned num_threads() { return Size; }
  static constexpr unsigned size() { return Size; }
  static unsigned thread_rank() { return cta_rank() & (Size - 1); }
  unsigned meta_group_rank() const { return meta_rank_; }
  unsigned meta_group_size() const { return meta_size_; }
  void sync(GPULABS_SIM_CG_SITE) const { __syncwarp(mask_, file, line); }

  template <class T>
  T shfl(T value, int src_rank, GPULABS_SIM_CG_SITE) const {
    return shuffle(::gpulabs_sim::WarpOp::kShflIdx, mask_, value, src_rank, Size, file, line);
  }
  template <class T>
  T shfl_down(T value, unsigned delta, GPULABS_SIM_CG_SITE) const {
    return shuffle(::gpulabs_sim::WarpOp::kShflDown, mask_, value, delta, Size, file, line);
  }
  template <class T>
  T shfl_up(T value, unsigned delta, GPULABS_SIM_CG_SITE) const {
    return shuffle(::gpulabs_sim::WarpOp::kShflUp, mask_, value, delta, Size, file, line);
  }
  template <class T>
  T shfl_xor(T value, unsigned lane_mask, GPULABS_SIM_CG_SITE) const {
    return shuffle(::gpulabs_sim::WarpOp::kShflXor, mask_, value, lane_mask, Size, file, line);
  }
  int any(int predicate, GPULABS_SIM_CG_SITE) const {
    return ballot_lanes(predicate, file, line) != 0;
  }
  int all(int predicate, GPULABS_SIM_CG_SITE) const {
    return ballot_lanes(predicate, file, line) == mask_;
  }
  unsigned ballot(int predicate, GPULABS_SIM_CG_SITE) const {
    return ballot_lanes(predicate, file, line) >> (laneid() & ~(Size - 1));
  }
  template <class T>
  unsigned match_any(T value, GPULABS_SIM_CG_SITE) const {
    return match(::gpulabs_sim::WarpOp::kMatchAny, mask_, value, nullptr, file, line) >>
           (laneid() & ~(Size - 1));
  }
  template <class T>
  unsigned match_all(T value, int &pred, GPULABS_SIM_CG_SITE) const {
    return match(::gpulabs_sim::WarpOp::kMatchAll, mask_, value, &pred, file, line) >>
           (laneid() & ~(Size - 1));
  }

 private:
  unsigned ballot_lanes(int predicate, const char *file, int line) const {
    return details::ballot(mask_, predicate, file, line);
  }
};

// Sizes 64..1024: consecutive whole warps, on a barrier over the tile's threads. Values are
// exchanged through one slot per thread: write, barrier, read, barrier (so that no thread
// overwrites its slot before every thread of the tile has read it).
template <unsigned Size>
class block_tile {
  static_assert(Size >= 64 && Size <= 1024 && (Size & (Size - 1)) == 0,
                "Size must be one of 64/128/256/512/1024");
  unsigned meta_rank_, meta_size_;

 public:
  block_tile(tile_tag, unsigned meta_rank, unsigned meta_size)
      : meta_rank_(meta_rank), meta_size_(meta_size) {}
  static constexpr unsigned num_threads() { return Size; }
  static constexpr unsigned size() { return Size; }
  static unsigned thread_rank() { return cta_rank() & (Size - 1); }
  unsigned meta_group_rank() const { return meta_rank_; }
  unsigned meta_group_size() const { return meta_size_; }
  void sync(GPULABS_SIM_CG_SITE) const {
    ::gpulabs_sim::tile_barrier(kTileSync, Size, file, line);
  }

  // Every thread's value in rank order -> read(values) for this thread.
  template <class T, class Read>
  auto exchange(const T &value, Read read, const char *file, int line) const {
    static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value,
                  "Collectives with tiles larger than 32 threads are limited to types of 8 bytes "
                  "or less");
    uint64_t *slots = ::gpulabs_sim::tile_slots();
    const unsigned me = cta_rank();
    slots[me] = ::gpulabs_sim::to_bits(value);
    ::gpulabs_sim::tile_barrier(kTileCollective, Size, file, line);
    const uint64_t *tile = slots + (me & ~(Size - 1));
    auto result = read([tile](unsigned rank) { return ::gpulabs_sim::from_bits<T>(tile[rank]); });
    ::gpulabs_sim::tile_barrier(kTileCollective, Size, file, line);
    return result;
  }

  template <class T>
  T shfl(T value, unsigned src_rank, GPULABS_SIM_CG_SITE) const {
    return exchange(value, [src_rank](auto at) { return at(src_rank % Size); }, file, line);
  }
  int any(int predicate, GPULABS_SIM_CG_SITE) const {
    return exchange(predicate != 0, [](auto at) {
      for (unsigned r = 0; r < Size; ++r)
        if (at(r)) return 1;
      return 0;
    }, file, line);
  }
  int all(int predicate, GPULABS_SIM_CG_SITE) const {
    return exchange(predicate != 0, [](auto at) {
      for (unsigned r = 0; r < Size; ++r)
        if (!at(r)) return 0;
      return 1;
    }, file, line);
  }
};

template <unsigned Size>
using tile_base = typename std::conditional<(Size <= 32), warp_tile<Size>, block_tile<Size>>::type;

}  // namespace details

template <unsigned Size, class ParentT = void>
class thread_block_tile;

template <unsigned Size>
class thread_block_tile<Size, void> : public details::tile_base<Size> {
 public:
  thread_block_tile(details::tile_tag tag, unsigned meta_rank, unsigned meta_size)
      : details::tile_base<Size>(tag, meta_rank, meta_size) {}
  // tiled_partition<Size>(g) returns a thread_block_tile<Size, ParentT>, which converts to this.
};

template <unsigned Size, class ParentT>
class thread_block_tile : public thread_block_tile<Size, void> {
 public:
  thread_block_tile(details::tile_tag tag, unsigned meta_rank, unsigned meta_size)
      : thread_block_tile<Size, void>(tag, meta_rank, meta_size) {}
};

namespace details {
template <class G>
struct is_tile : std::false_type {};
template <unsigned Size, class P>
struct is_tile<thread_block_tile<Size, P>> : std::true_type {
  static constexpr unsigned size = Size;
};
}  // namespace details

// tiled_partition<Size>(block): Size consecutive threads of the block (by thread_rank).
template <unsigned Size, class ParentT>
inline thread_block_tile<Size, ParentT> tiled_partition(const ParentT &parent, GPULABS_SIM_CG_SITE) {
  if constexpr (std::is_same<ParentT, thread_block>::value) {
    const unsigned n = details::cta_size();
    if (Size > 32 && n % Size != 0) {
      details::misuse("cooperative_groups::tiled_partition<Size>(block): a tile wider than a warp "
                      "needs a block whose size is a multiple of Size",
                      file, line);
    }
    return thread_block_tile<Size, ParentT>(details::tile_tag{}, details::cta_rank() / Size,
                                            (n + Size - 1) / Size);
  } else {
    static_assert(details::is_tile<ParentT>::value,
                  "tiled_partition<Size>(g) takes a thread_block or a thread_block_tile");
    constexpr unsigned kParent = details::is_tile<ParentT>::size;
    static_assert(Size < kParent, "Tile size bigger or equal to the parent group size");
    return thread_block_tile<Size, ParentT>(details::tile_tag{}, parent.thread_rank() / Size,
                                            kParent / Size);
  }
}

// The dynamic form: tiles of 1..32 threads as a thread_group (a block's) or coalesced_group.
inline thread_group tiled_partition(const thread_group &parent, unsigned tilesz,
                                    GPULABS_SIM_CG_SITE);

inline coalesced_group tiled_partition(const coalesced_group &parent, unsigned tilesz,
                                       GPULABS_SIM_CG_SITE) {
  if (tilesz == 0 || tilesz > 32 || (tilesz & (tilesz - 1)) != 0) {
    details::misuse("cooperative_groups::tiled_partition(group, n): n must be 1, 2, 4, 8, 16 or 32",
                    file, line);
  }
  if (parent.size() <= tilesz) return parent;
  const unsigned rank = parent.thread_rank();
  unsigned mask = 0;
  if (parent._tiled()) {
    const unsigned base = rank & ~(tilesz - 1);
    const unsigned length = parent.size() - base < tilesz ? parent.size() - base : tilesz;
    mask = (0xffffffffu >> (32 - length)) << (details::laneid() & ~(tilesz - 1));
  } else {
    const unsigned first = (rank / tilesz) * tilesz;
    for (unsigned r = first; r < first + tilesz && r < parent.size(); ++r)
      mask |= 1u << details::nth_lane(parent.get_mask(), r);
  }
  return coalesced_group(details::tile_tag{}, mask, rank / tilesz,
                         parent._tiled() ? parent.size() / tilesz : (parent.size() + tilesz - 1) / tilesz,
                         parent._tiled());
}

inline thread_group tiled_partition(const thread_group &parent, unsigned tilesz, const char *file,
                                    int line) {
  if (parent.get_type() == details::coalesced_group_id)
    return tiled_partition(static_cast<const coalesced_group &>(parent), tilesz, file, line);
  if (tilesz == 0 || tilesz > 32 || (tilesz & (tilesz - 1)) != 0) {
    details::misuse("cooperative_groups::tiled_partition(block, n): n must be 1, 2, 4, 8, 16 or 32 "
                    "(use tiled_partition<N>(block) for wider tiles)",
                    file, line);
  }
  const unsigned n = details::cta_size();
  const unsigned base = details::cta_rank() & ~(tilesz - 1);
  const unsigned length = n - base < tilesz ? n - base : tilesz;
  const unsigned mask = (0xffffffffu >> (32 - length)) << (details::laneid() & ~(tilesz - 1));
  return thread_group(details::tile_tag{}, details::coalesced_group_id, mask,
                      details::cta_rank() / tilesz, (n + tilesz - 1) / tilesz, true);
}

// Splits a warp-level group by a predicate or a label (the toolkit's partitioning.h).
template <class G>
inline coalesced_group binary_partition(const G &parent, bool pred, GPULABS_SIM_CG_SITE) {
  const unsigned mask = parent.get_mask();
  const unsigned yes = details::ballot(mask, pred, file, line);
  return coalesced_group(details::tile_tag{}, pred ? yes : (mask & ~yes), pred ? 1 : 0, 2);
}
template <class G, class L>
inline coalesced_group labeled_partition(const G &parent, L label, GPULABS_SIM_CG_SITE) {
  const unsigned mask = parent.get_mask();
  return coalesced_group(
      details::tile_tag{}, details::match(::gpulabs_sim::WarpOp::kMatchAny, mask, label, nullptr, file, line));
}

inline thread_block_tile<1, void> this_thread() {
  return thread_block_tile<1, void>(details::tile_tag{}, 0, 1);
}

// ---- Grid-wide groups: indices only --------------------------------------------------------
class grid_group {
 public:
  static void sync(GPULABS_SIM_CG_SITE) {
    details::misuse("cooperative_groups::grid_group::sync() (grid-wide synchronisation) is not "
                    "simulated by the CPU backend: run this kernel on a GPU",
                    file, line);
  }
  static bool is_valid() { return false; }  // not launched with cudaLaunchCooperativeKernel
  static unsigned long long num_blocks() {
    return (unsigned long long)gridDim.x * gridDim.y * gridDim.z;
  }
  static unsigned long long block_rank() {
    return blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
  }
  static unsigned long long num_threads() { return num_blocks() * details::cta_size(); }
  static unsigned long long size() { return num_threads(); }
  static unsigned long long thread_rank() {
    return block_rank() * details::cta_size() + details::cta_rank();
  }
  static dim3 group_dim() { return dim3(blockDim.x, blockDim.y, blockDim.z); }
  static dim3 dim_blocks() { return dim3(gridDim.x, gridDim.y, gridDim.z); }
  static dim3 block_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
};
inline grid_group this_grid() { return grid_group(); }

class multi_grid_group {
 public:
  static void sync(GPULABS_SIM_CG_SITE) { this_multi_grid_fails(file, line); }
  [[noreturn]] static void this_multi_grid_fails(const char *file, int line) {
    details::misuse("cooperative_groups::this_multi_grid() (multi-device launches) is not "
                    "simulated by the CPU backend (and is gone from CUDA 13): run it on GPUs",
                    file, line);
  }
};
inline multi_grid_group this_multi_grid(GPULABS_SIM_CG_SITE) {
  multi_grid_group::this_multi_grid_fails(file, line);
}

// ---- Free functions ----------------------------------------------------------------------
template <class G>
inline void sync(const G &g, GPULABS_SIM_CG_SITE) {
  g.sync(file, line);
}
template <class G>
inline auto thread_rank(const G &g) -> decltype(g.thread_rank()) {
  return g.thread_rank();
}
template <class G>
inline auto group_size(const G &g) -> decltype(g.num_threads()) {
  return g.num_threads();
}

}  // namespace cooperative_groups

#endif
