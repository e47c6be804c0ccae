// fl/detail/rope_debug.hpp: the checks that fl's rope tests and fuzzers run
// on a rope's tree (src/rope/check.cpp). Not part of the contract of
// <fl/rope.hpp>; the names may change with the tree.
#pragma once

#include <fl/rope.hpp>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {
inline namespace FL_ROPE_NS {

// Checks depth, balance, sizes, offsets and reference counts of the whole
// tree; throws std::logic_error naming the first broken invariant. O(n nodes).
void check_invariants(const rope& r);
// Height of the tree (0: empty or one flat chunk).
unsigned rope_height(const rope& r) noexcept;

}  // namespace FL_ROPE_NS
}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
