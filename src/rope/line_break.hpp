// src/rope/line_break.hpp: what src/rope/ shares about fl::rope's
// line-break modes (private to src/rope/): finding a "\r\n" split between
// two leaves, which a rope in line_break::lf_crlf mode never holds. The
// mode's rules are in include/fl/rope.hpp (fl::line_break) and
// docs/rope.md; the code is in line_break.cpp.
#pragma once

#include <fl/detail/rope_node.hpp>

#include <cstddef>
#include <vector>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {
inline namespace FL_ROPE_NS {

// The positions b (ascending) at which a leaf ending with '\r' meets a leaf
// starting with '\n' in the tree under `root` (empty allowed): the line
// breaks that lf_crlf mode must move into one leaf. O(leaves).
std::vector<std::size_t> split_line_breaks(const edge& root);

// Throws std::logic_error ("fl::rope invariant: ...") if the tree under
// `root` splits a "\r\n" between two leaves (check_invariants of a rope in
// lf_crlf mode). O(leaves).
void check_line_breaks(const edge& root);

}  // namespace FL_ROPE_NS
}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
