// src/rope/seam_edit.cpp: an erase across the seams between leaves of one
// node, made on their edges. Selecting a few lines and deleting them, or a
// backspace held down, removes a range that starts in one leaf and ends in
// a later sibling; split and join rebuilt the path for it (about 7,000
// instructions on the editing traces, where a keystroke costs 300). Here the
// first leaf's edge ends where the range starts, the last one's starts
// where it ends, the leaves between are dropped from the node, and the
// counts of the removed bytes come off every edge above: no byte moves and
// no chunk is written, so the chunks may be shared.
#include "rope/rope_impl.hpp"

#include "rope/metrics.hpp"

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {
inline namespace FL_ROPE_NS {

bool erase_across_leaves(edge& root, std::size_t pos, std::size_t n, rope_cursor* cursor) {
  const unsigned depth = root.p->height;
  unsigned idx[max_depth];
  const auto [first, lo] = descend(root, pos, idx);
  const std::size_t p = pos - lo;  // the first leaf keeps bytes [0, p)
  if (p == 0 || p + n <= first->len) return false;
  // The range's end, in a later sibling under the same node: `last` keeps
  // its bytes from b on (and at least one).
  const inner* node = static_cast<const inner*>(root.p);
  for (unsigned d = 1; d < depth; ++d) node = static_cast<const inner*>(node->child[idx[d - 1]].p);
  const unsigned at = idx[depth - 1];
  unsigned last = at + 1;
  std::size_t b = p + n - first->len;
  while (last < node->count && b >= node->child[last].len) b -= node->child[last++].len;
  const unsigned dropped = last - at - 1;
  if (last == node->count || node->count - dropped < (depth == 1 ? 2u : min_children)) return false;
  for (unsigned j = at; j <= last; ++j)
    if (!node->child[j].known()) return false;

  // The counts removed: the first leaf's tail, the leaves between (their
  // edges know theirs) and the last one's head.
  const auto bytes_of = [](const edge& e) { return static_cast<const chunk*>(e.p)->data + e.off; };
  text_counts gone = count_text(bytes_of(*first) + p, first->len - p);
  const text_counts first_gone = gone;
  for (unsigned j = at + 1; j < last; ++j) gone = gone + counts_of(node->child[j]);
  const text_counts last_gone = b ? count_text(bytes_of(node->child[last]), b) : text_counts{};
  gone = gone + last_gone;

  // The path made writable (copies of shared nodes are equal to them, so a
  // throw here changes nothing), then the edges.
  edge* up[max_depth];
  edge* cur = &root;
  inner* parent = nullptr;
  for (unsigned d = 0; d < depth; ++d) {
    up[d] = cur;
    parent = writable(*cur);
    cur = &parent->child[idx[d]];
  }
  edge& head = parent->child[at];
  edge& tail = parent->child[last];
  set_counts(head, counts_of(head) - first_gone);
  head.len = p;
  set_counts(tail, counts_of(tail) - last_gone);
  tail.off += b;
  tail.len -= b;
  for (unsigned j = at + 1; j < last; ++j) release(parent->child[j].p);
  for (unsigned j = last; j < parent->count; ++j) parent->child[j - dropped] = parent->child[j];
  parent->count = static_cast<std::uint16_t>(parent->count - dropped);
  shift_path(up, depth, n, 0, text_counts{}, gone);
  // Typing goes on where the range was: at the first leaf's end, which a
  // unique chunk records as its last edit's end (see cut_at_cursor).
  if (chunk* c = static_cast<chunk*>(head.p); unique(c))
    set_hint(c, head.off, p, static_cast<std::size_t>(-1), text_counts{});
  if (cursor)
    *cursor = depth <= cursor_max_depth
                  ? cursor_at(idx, depth, static_cast<std::size_t>(-1), lo, p, cursor_no_hint)
                  : rope_cursor{};
  return true;
}

}  // namespace FL_ROPE_NS
}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
