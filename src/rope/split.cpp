// src/rope/split.cpp: cutting a rope in two (split), building a tree from a
// text (build), the constructors, and substr, which shares the chunks of the
// range it returns.
#include "rope/rope_impl.hpp"

#include "rope/metrics.hpp"

#include <fl/detail/string_access.hpp>

#include <stdexcept>
#include <tuple>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {
inline namespace FL_ROPE_NS {

// Splits the owned edge t at pos (0 <= pos <= t.len) into owned halves.
// Consumes t only on success: if an allocation fails, t is still the
// caller's, unchanged, and every node made so far has been released. That
// holds because nothing under t is written here: while t is alive its
// children have a second owner, so the joins below copy them, and only the
// fresh nodes of this split are edited in place.
std::pair<edge, edge> split(edge t, std::size_t pos) {
  if (pos == 0) return {edge{}, t};
  if (pos == t.len) return {t, edge{}};
  if (t.p->height == 0) {
    // Both halves view the same chunk: no byte is copied. When t's metrics
    // are known, only the shorter half is counted.
    acquire(t.p);
    edge l{t.p, t.off, pos}, r{t.p, t.off + pos, t.len - pos};
    if (t.known()) {
      const chunk* c = static_cast<const chunk*>(t.p);
      const bool left_short = pos <= t.len - pos;
      edge& a = left_short ? l : r;
      edge& b = left_short ? r : l;
      const text_counts ta = chunk_counts(c, a.off, a.len);
      a.chars = ta.chars;
      a.newlines = ta.newlines;
      a.astral = ta.astral;
      b.chars = t.chars - ta.chars;
      b.newlines = t.newlines - ta.newlines;
      b.astral = t.astral - ta.astral;
    }
    return {l, r};
  }
  const inner* n = static_cast<const inner*>(t.p);
  unsigned i = 0;
  std::size_t start = 0;
  while (pos >= start + n->child[i].len) start += n->child[i++].len;
  edge left{}, right{}, ml{}, mr{};
  try {
    if (pos == start) {
      left = sub_node(n, 0, i);
      right = sub_node(n, i, n->count);
    } else {
      left = sub_node(n, 0, i);
      right = sub_node(n, i + 1, n->count);
      edge mid = n->child[i];
      acquire(mid.p);
      try {
        std::tie(ml, mr) = split(mid, pos - start);
      } catch (...) {
        release(mid.p);
        throw;
      }
      // One reservation per join: the first join may free ml's share of
      // the chunk mr also views, after which mr takes right in place.
      {
        join_reserve res;
        res.add(left, ml);
        left = join(left, ml);
        ml = edge{};
      }
      join_reserve res;
      res.add(mr, right);
      right = join(mr, right);
      mr = edge{};
    }
  } catch (...) {
    release(left.p);
    release(right.p);
    release(ml.p);
    release(mr.p);
    throw;
  }
  release(t.p);
  return {left, right};
}

// One half of split(t, pos) (the left one if keep_left), the other
// released; consumes t, also when the split throws.
edge split_keep(edge t, std::size_t pos, bool keep_left) {
  std::pair<edge, edge> halves;
  try {
    halves = split(t, pos);
  } catch (...) {
    release(t.p);
    throw;
  }
  release(keep_left ? halves.second.p : halves.first.p);
  return keep_left ? halves.first : halves.second;
}

// An owned tree holding `text`: one chunk when it fits, else full leaves
// grouped bottom-up into evenly filled nodes. Every leaf and node is
// allocated before the first is linked, so a failure frees them all.
edge build(std::string_view text, std::size_t cap_hint) {
  if (text.empty()) return edge{};
  if (text.size() <= leaf_max_bytes) return make_leaf(text, std::max(cap_hint, text.size()));
  const std::size_t leaves = (text.size() + leaf_max_bytes - 1) / leaf_max_bytes;
  std::size_t nodes = 0;
  for (std::size_t n = leaves; n > 1; n = (n + max_children - 1) / max_children)
    nodes += (n + max_children - 1) / max_children;
  // level[0, leaves): the current level; level[leaves, leaves + nodes): the
  // blocks of the inner nodes, taken in order as the levels are grouped.
  const std::size_t slots = leaves + nodes;
  edge* level = static_cast<edge*>(rope_allocate(sizeof(edge) * slots));
  std::size_t made = 0;
  try {
    // Leaves of equal size (within one byte), each <= leaf_max_bytes, but
    // a cut that would fall inside a "\r\n" moves one byte on, so that no
    // leaf ends with the '\r' of a line break whose '\n' starts the next
    // (line_break::lf_crlf's invariant; that leaf holds one byte more).
    std::size_t off = 0, planned = 0;
    for (; made < leaves; ++made) {
      planned += text.size() / leaves + (made < text.size() % leaves ? 1 : 0);
      std::size_t end = planned;
      if (end < text.size() && text[end - 1] == '\r' && text[end] == '\n') ++end;
      level[made] = make_leaf(text.substr(off, end - off), end - off);
      off = end;
    }
    for (; made < slots; ++made) level[made].p = new_inner(0);
  } catch (...) {
    for (std::size_t j = 0; j < made; ++j) {
      if (j < leaves) {
        release(level[j].p);
      } else {
        rope_deallocate(level[j].p, sizeof(inner));
      }
    }
    rope_deallocate(level, sizeof(edge) * slots);
    throw;
  }
  std::size_t level_n = leaves;
  std::size_t next_node = leaves;
  std::uint8_t height = 0;
  while (level_n > 1) {
    ++height;
    const std::size_t groups = (level_n + max_children - 1) / max_children;
    std::size_t k = 0;
    for (std::size_t g = 0; g < groups; ++g) {
      const std::size_t cnt = level_n / groups + (g < level_n % groups ? 1 : 0);
      inner* m = static_cast<inner*>(level[next_node++].p);
      m->height = height;
      std::size_t len = 0;
      for (std::size_t j = 0; j < cnt; ++j) {
        m->child[m->count++] = level[k];
        len += level[k++].len;
      }
      level[g] = edge{m, 0, len};
    }
    level_n = groups;
  }
  edge root = level[0];
  rope_deallocate(level, sizeof(edge) * slots);
  return root;
}

// Appends in place along the right spine when every node on it is unique

}  // namespace FL_ROPE_NS
}  // namespace detail

inline namespace FL_ROPE_NS {

using detail::edge;

// A contiguous text becomes one chunk, whatever its size (one allocation,
// one copy): edits later share it piecewise, and reads of it are flat.
rope::rope(std::string_view text) {
  if (text.size() <= detail::leaf_max_bytes) {
    root_ = detail::build(text, text.size());
    return;
  }
  detail::chunk* c = detail::new_block_chunk(text.size());
  std::memcpy(c->data, text.data(), text.size());
  c->used = text.size();
  root_ = edge{c, 0, text.size()};
}

rope::rope(adopt_tag, fl::string&& text) {
  if (text.size() > 0) {
    ::fl::detail::heap_block b = ::fl::detail::string_access::release(text);
    if (b.data) {
      try {
        detail::chunk* c =
            detail::init_chunk(detail::rope_allocate(sizeof(detail::chunk)),
                               detail::node_kind::chunk_adopted, b.data, b.capacity, b.size);
        root_ = edge{c, 0, b.size};
        detail::count_blocks(1);
        if (b.size == 0) clear();
        return;
      } catch (...) {
        text = ::fl::detail::string_access::adopt(b);  // give the buffer back
        throw;
      }
    }
  }
  root_ = detail::build(std::string_view(text), text.size());
  detail::rope_engine::settle(*this);
}

rope::rope(size_type count, char ch) {
  if (count == 0) return;
  if (count <= detail::leaf_max_bytes) {
    detail::chunk* c = detail::new_chunk(count);
    std::memset(c->data, static_cast<unsigned char>(ch), count);
    c->used = count;
    root_ = edge{c, 0, count};
    return;
  }
  // Every full leaf holds the same bytes: build one and share it.
  const std::size_t leaves = (count + detail::leaf_max_bytes - 1) / detail::leaf_max_bytes;
  detail::chunk* c = detail::new_chunk(detail::leaf_max_bytes);
  std::memset(c->data, static_cast<unsigned char>(ch), detail::leaf_max_bytes);
  c->used = detail::leaf_max_bytes;
  edge piece{c, 0, detail::leaf_max_bytes};
  edge acc{};
  try {
    for (std::size_t i = 0; i < leaves; ++i) {
      const std::size_t len =
          i + 1 < leaves ? detail::leaf_max_bytes : count - i * detail::leaf_max_bytes;
      const edge leaf{c, 0, len};
      detail::join_reserve res;
      res.add(acc, leaf);
      detail::acquire(c);
      acc = detail::join(acc, leaf);
    }
  } catch (...) {
    detail::release(acc.p);
    detail::release(piece.p);
    throw;
  }
  detail::release(piece.p);
  root_ = acc;
  detail::rope_engine::settle(*this);
}

rope rope::substr(size_type pos, size_type n) const {
  if (pos > size())
    detail::throw_out_of_range("fl::rope::substr", "pos", pos, ">", "size()", size());
  n = std::min(n, size() - pos);
  if (n == 0) return rope(mode_);
  // Inside one leaf: one edge sharing that leaf's chunk.
  const auto [e, lo] = detail::descend(root_, pos);
  if (pos + n <= lo + e->len) {
    detail::acquire(e->p);
    return rope(edge{e->p, e->off + (pos - lo), n}, mode_);
  }
  // Across leaves but short: one fresh chunk (cheaper than a tree of
  // pieces, and the copy is at most one leaf).
  if (n <= detail::leaf_max_bytes) {
    detail::chunk* c = detail::new_chunk(n);
    c->used = copy(c->data, n, pos);
    return rope(edge{c, 0, n}, mode_);
  }
  detail::acquire(root_.p);
  const edge rest = detail::split_keep(root_, pos, false);
  return rope(detail::split_keep(rest, n, true), mode_);
}

// Linear search over the chunk stream. Matches inside a chunk of at least
// m bytes are found by fl::find on the chunk itself. Matches that cross
// boundaries are found in a small buffer `win` holding the stream's bytes
// since the last position that could still start a match: when a big chunk
// arrives, win gets its first m-1 bytes and is searched (O(m) work paid by
// a chunk of >= m bytes), then restarts as the chunk's last m-1 bytes; small
// chunks are appended to win, which is searched and cut back to its last m-1
// bytes once it reaches 2m + 64 bytes (each search covers >= m + 64 new
// bytes). So every byte is searched O(1) times: O(n + m) overall, however

}  // namespace FL_ROPE_NS
}  // namespace FL_ABI_NS
}  // namespace fl
