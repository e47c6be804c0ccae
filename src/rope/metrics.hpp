// src/rope/metrics.hpp: what the files of src/rope/ share about
// fl::rope's text metrics (private to src/). The metrics are defined in
// src/text_count.hpp; where they are kept, in detail/rope_node.hpp (edge).
#pragma once

#include <fl/detail/rope_node.hpp>

#include "../text_count.hpp"

namespace fl::detail {
inline namespace FL_ROPE_NS {

// Frees the block index chain of a chunk being destroyed.
void free_index(chunk* c) noexcept;

// Whether the valid entries of c's index for the blocks overlapping
// [off, off + len) agree with c's bytes (for check_invariants). O(len).
bool index_ok(const chunk* c, std::size_t off, std::size_t len) noexcept;

// The metrics of bytes [off, off + len) of c: a scan for short ranges, the
// block index (built on first use) for long ones.
text_counts chunk_counts(const chunk* c, std::size_t off, std::size_t len) noexcept;

// The metrics of bytes [off, off + len) of c (whole), of its first a bytes
// (head) and of its last b bytes (tail), for an edit that cuts the range
// into head | window | tail; `whole` may be given when known. Long parts
// take three or four lookups in the block index (one per cut, shared by the
// parts that meet there), short ones a scan.
struct chunk_cut {
  text_counts whole, head, tail;
};
chunk_cut chunk_cut_counts(const chunk* c, std::size_t off, std::size_t len,
                           const text_counts* whole, std::size_t a, std::size_t b) noexcept;

// Stores t as e's metrics.
inline void set_counts(edge& e, const text_counts& t) noexcept {
  e.chars = t.chars;
  e.newlines = t.newlines;
  e.astral = t.astral;
}

// Computes the metrics of e and of every edge below it that is unknown.
// Writes only edges reached through unknown edges: those sit in nodes that
// the running edit made or changed, which no other rope can see.
void fill_metrics(edge& e) noexcept;

}  // namespace FL_ROPE_NS
}  // namespace fl::detail
