// gpulabs-sim: cooperative_groups::inclusive_scan and exclusive_scan over a thread_block_tile
// (any size) or a coalesced_group; plus by default. As in the toolkit, the exclusive scan gives
// rank 0 a value-initialised T (0 for numbers).
#ifndef GPULABS_SIM_CG_SCAN_H
#define GPULABS_SIM_CG_SCAN_H

#include <cooperative_groups.h>
#include <cooperative_groups/details/functional.h>

namespace cooperative_groups {

template <class G, class T, class Op>
inline auto inclusive_scan(const G &g, T &&value, Op &&op, GPULABS_SIM_CG_SITE)
    -> typename std::decay<decltype(op(value, value))>::type {
  using R = typename std::decay<decltype(op(value, value))>::type;
  static_assert(details::is_collective_group<G>::value,
                "This group does not exclusively represent a tile (scans take a "
                "thread_block_tile or a coalesced_group)");
  if constexpr (details::is_wide_tile<G>::value) {
    const unsigned rank = g.thread_rank();
    return g.exchange(R(value), [&](auto at) { return details::fold_ranks<R>(at, rank + 1, op); },
                      file, line);
  } else {
    return details::warp_inclusive_scan(g, R(value), op, file, line);
  }
}

template <class G, class T>
inline typename std::decay<T>::type inclusive_scan(const G &g, T &&value, GPULABS_SIM_CG_SITE) {
  return inclusive_scan(g, std::forward<T>(value), plus<typename std::decay<T>::type>(), file, line);
}

template <class G, class T, class Op>
inline auto exclusive_scan(const G &g, T &&value, Op &&op, GPULABS_SIM_CG_SITE)
    -> typename std::decay<decltype(op(value, value))>::type {
  using R = typename std::decay<decltype(op(value, value))>::type;
  static_assert(details::is_collective_group<G>::value,
                "This group does not exclusively represent a tile (scans take a "
                "thread_block_tile or a coalesced_group)");
  const unsigned rank = g.thread_rank();
  if constexpr (details::is_wide_tile<G>::value) {
    return g.exchange(R(value), [&](auto at) {
      return rank == 0 ? R{} : details::fold_ranks<R>(at, rank, op);
    }, file, line);
  } else {
    const R inclusive = details::warp_inclusive_scan(g, R(value), op, file, line);
    const R before = g.shfl_up(inclusive, 1, file, line);
    return rank == 0 ? R{} : before;
  }
}

template <class G, class T>
inline typename std::decay<T>::type exclusive_scan(const G &g, T &&value, GPULABS_SIM_CG_SITE) {
  return exclusive_scan(g, std::forward<T>(value), plus<typename std::decay<T>::type>(), file, line);
}

}  // namespace cooperative_groups

#endif
