// gpulabs-sim: the operators of cg::reduce and cg::inclusive_scan/exclusive_scan (the toolkit's
// cooperative_groups/details/functional.h).
#ifndef GPULABS_SIM_CG_FUNCTIONAL_H
#define GPULABS_SIM_CG_FUNCTIONAL_H

namespace cooperative_groups {

template <class T>
struct plus {
  T operator()(T a, T b) const { return a + b; }
};
template <class T>
struct less {  // the smaller of the two
  T operator()(T a, T b) const { return b < a ? b : a; }
};
template <class T>
struct greater {  // the larger of the two
  T operator()(T a, T b) const { return a < b ? b : a; }
};
template <class T>
struct bit_and {
  T operator()(T a, T b) const { return a & b; }
};
template <class T>
struct bit_or {
  T operator()(T a, T b) const { return a | b; }
};
template <class T>
struct bit_xor {
  T operator()(T a, T b) const { return a ^ b; }
};

namespace details {

// The groups reduce and the scans take: tiles and coalesced groups (not a thread_block).
template <class G>
struct is_collective_group : std::false_type {};
template <unsigned Size, class P>
struct is_collective_group<thread_block_tile<Size, P>> : std::true_type {};
template <>
struct is_collective_group<coalesced_group> : std::true_type {};

template <class G>
struct is_wide_tile : std::false_type {};
template <unsigned Size, class P>
struct is_wide_tile<thread_block_tile<Size, P>> : std::integral_constant<bool, (Size > 32)> {};

// Inclusive scan over a group of one warp: log2(size) shuffles up by rank.
template <class G, class T, class Op>
inline T warp_inclusive_scan(const G &g, T value, Op &op, const char *file, int line) {
  const unsigned rank = g.thread_rank(), n = g.size();
  for (unsigned d = 1; d < n; d <<= 1) {
    T other = g.shfl_up(value, d, file, line);
    if (rank >= d) value = op(value, other);
  }
  return value;
}

// Folds the values of ranks [0, end) of a wide tile, in rank order.
template <class T, class Op, class At>
inline T fold_ranks(At &at, unsigned end, Op &op) {
  T acc = at(0);
  for (unsigned r = 1; r < end; ++r) acc = op(acc, at(r));
  return acc;
}

}  // namespace details
}  // namespace cooperative_groups

#endif
