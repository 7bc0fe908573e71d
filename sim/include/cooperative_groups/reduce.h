// gpulabs-sim: cooperative_groups::reduce over a thread_block_tile (any size) or a
// coalesced_group, with plus, less, greater, bit_and, bit_or, bit_xor or any function object.
// (A tile of one warp reduces with shuffles; a wider tile through its barrier.)
#ifndef GPULABS_SIM_CG_REDUCE_H
#define GPULABS_SIM_CG_REDUCE_H

#include <cooperative_groups.h>
#include <cooperative_groups/details/functional.h>

namespace cooperative_groups {

template <class G, class T, class Op>
inline auto reduce(const G &g, T &&value, Op &&op, GPULABS_SIM_CG_SITE)
    -> typename std::decay<decltype(op(value, value))>::type {
  using R = typename std::decay<decltype(op(value, value))>::type;
  static_assert(details::is_collective_group<G>::value,
                "This group does not exclusively represent a tile (reduce takes a "
                "thread_block_tile or a coalesced_group)");
  if constexpr (details::is_wide_tile<G>::value) {
    return g.exchange(R(value), [&](auto at) { return details::fold_ranks<R>(at, G::size(), op); },
                      file, line);
  } else {
    const R scanned = details::warp_inclusive_scan(g, R(value), op, file, line);
    return g.shfl(scanned, (int)g.size() - 1, file, line);
  }
}

}  // namespace cooperative_groups

#endif
