// src/rope/check.cpp: detail::check_invariants, the checker the rope tests
// call after every edit (depth, balance, sizes, offsets, reference counts,
// metrics and block indexes), and detail::rope_height.
#include "rope/rope_impl.hpp"

#include <fl/detail/rope_debug.hpp>

#include "rope/line_break.hpp"
#include "rope/metrics.hpp"

#include <stdexcept>
#include <string>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {
inline namespace FL_ROPE_NS {

const edge& rope_engine::root(const rope& r) noexcept { return r.root_; }

unsigned rope_height(const rope& r) noexcept {
  const edge& root = rope_engine::root(r);
  return root.p ? root.p->height : 0;
}

namespace {
[[noreturn]] void broken(const char* what) {
  throw std::logic_error(std::string("fl::rope invariant: ") + what);
}

// Returns the subtree's byte count; checks everything below e.
std::size_t check_edge(const edge& e, unsigned expect_height, bool is_root) {
  if (!e.p) broken("null child");
  if (e.p->refs.load(std::memory_order_acquire) == 0) broken("live node with zero count");
  if (e.p->height != expect_height) broken("leaves at different depths");
  if (e.len == 0) broken("empty edge");
  if (e.p->height == 0) {
    if (e.p->kind != node_kind::chunk_inline && e.p->kind != node_kind::chunk_adopted)
      broken("leaf is not a chunk");
    const chunk* c = static_cast<const chunk*>(e.p);
    if (c->used > c->cap) broken("chunk used > cap");
    if (e.off + e.len > c->used) broken("edge beyond chunk bytes");
    if (c->kind == node_kind::chunk_inline && c->cap > flat_edit_max && c->cap != c->used)
      broken("oversized chunk with spare room");
    if (!is_root && !e.known()) broken("leaf metrics not computed");
    if (e.known()) {
      const text_counts t = count_text(c->data + e.off, e.len);
      if (t.chars != e.chars || t.newlines != e.newlines || t.astral != e.astral)
        broken("leaf metrics wrong");
    }
    if (!index_ok(c, e.off, e.len)) broken("chunk index disagrees with its bytes");
    if (!leaf_index_ok(c)) broken("leaf index disagrees with its bytes");
    return e.len;
  }
  if (e.p->kind != node_kind::inner) broken("inner height on a chunk");
  if (e.off != 0) broken("offset into an inner node");
  const inner* n = static_cast<const inner*>(e.p);
  if (n->count > max_children) broken("too many children");
  if (is_root ? n->count < 2 : n->count < min_children) broken("underfull node");
  std::size_t sum = 0;
  for (unsigned i = 0; i < n->count; ++i) sum += check_edge(n->child[i], expect_height - 1, false);
  if (sum != e.len) broken("edge length != sum of children");
  if (!e.known()) broken("inner metrics not computed");
  text_counts t;
  for (unsigned i = 0; i < n->count; ++i) {
    t.chars += n->child[i].chars;
    t.newlines += n->child[i].newlines;
    t.astral += n->child[i].astral;
  }
  if (t.chars != e.chars || t.newlines != e.newlines || t.astral != e.astral)
    broken("inner metrics != sum of children");
  return sum;
}
}  // namespace

void check_tree(const edge& root) {
  if (!root.p) {
    if (root.len != 0 || root.off != 0) broken("empty rope with a size");
    return;
  }
  if (root.len == 0) broken("non-empty root of size 0");
  // Depth bound: a tree of height h has >= 2 * min^(h-1) leaves, each >= 1 byte.
  if (root.p->height >= max_depth) broken("too deep");
  check_edge(root, root.p->height, true);
}

namespace {
// A root's kept cursor (rope_cursor) names a leaf of the tree and the chars
// and bytes before it.
void check_cursor(const edge& root) {
  if (!root.p || root.p->height == 0) return;
  const rope_cursor& cu = static_cast<const inner*>(root.p)->cursor;
  if (cu.depth == 0) return;
  if (cu.depth != root.p->height || cu.depth > cursor_max_depth) broken("cursor of another depth");
  const edge* e = &root;
  std::size_t chars = 0, bytes = 0;
  for (unsigned d = 0; d < cu.depth; ++d) {
    const inner* n = static_cast<const inner*>(e->p);
    if (cu.idx[d] >= n->count) broken("cursor index past the node's children");
    for (unsigned i = 0; i < cu.idx[d]; ++i) {
      chars += n->child[i].chars;
      bytes += n->child[i].len;
    }
    e = &n->child[cu.idx[d]];
  }
  // (char_lo npos: a cursor left by an edit by byte, which did not count.)
  if ((cu.char_lo != static_cast<std::size_t>(-1) && chars != cu.char_lo) || bytes != cu.byte_lo)
    broken("cursor position stale");
  if (cu.hint_k != cursor_no_hint) {
    const std::string_view t = leaf_text(*e);
    if (cu.hint_r > t.size() || count_text(t.data(), cu.hint_r).chars != cu.hint_k ||
        (cu.hint_r < t.size() && continuation(t[cu.hint_r])))
      broken("cursor's hint stale");
  }
  if (cu.next != 0) {
    const bool starts = next_leaf_starts_char(root, cu.idx, cu.depth);
    if (cu.next != (starts ? 1 : 2)) broken("cursor's next leaf stale");
  }
}
}  // namespace

void check_invariants(const rope& r) {
  const edge& root = rope_engine::root(r);
  check_tree(root);
  check_cursor(root);
  if (r.line_break_mode() == line_break::lf_crlf) check_line_breaks(root);
}

}  // namespace FL_ROPE_NS
}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
