// src/rope/edit.cpp: fl::rope's edits: appends (in place along the right
// spine, or a flat chunk that grows like a string), splice, the one edit
// behind insert, erase, replace and prepend (flat ropes edited like a
// string, one-leaf edits by edit_in_leaf in leaf_edit.cpp, the rest split,
// split, join, join), and the edits by char and UTF-16 unit, which find
// their byte range and edit inside a leaf where they can
// (rope_engine::replace_chars_in_leaf, also in leaf_edit.cpp).
#include "rope/rope_impl.hpp"

#include "rope/metrics.hpp"

#include <cstdio>
#include <stdexcept>
#include <tuple>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {
inline namespace FL_ROPE_NS {

bool append_in_place(edge& root, std::string_view text) noexcept {
  if (!root.p) return false;
  edge* path[max_depth];
  unsigned depth = 0;
  edge* e = &root;
  while (e->p->height > 0) {
    if (!unique(e->p)) return false;
    path[depth++] = e;
    inner* n = static_cast<inner*>(e->p);
    e = &n->child[n->count - 1];
  }
  // The metrics change by those of `text` (all edges on the spine, when
  // they are known; unknown ones are computed by rope_engine::settle).
  const edge before = *e;
  if (!leaf_append_in_place(*e, text)) return false;
  const text_counts add = count_text(text.data(), text.size());
  if (before.known()) {
    e->chars = before.chars + add.chars;
    e->newlines = before.newlines + add.newlines;
    e->astral = before.astral + add.astral;
  }
  for (unsigned i = 0; i < depth; ++i) {
    edge& x = *path[i];
    x.len += text.size();
    if (x.known()) {
      x.chars += add.chars;
      x.newlines += add.newlines;
      x.astral += add.astral;
    }
  }
  return true;
}

namespace {

// Grows the chunk of a flat, unique rope geometrically, like a string, and
// appends `text`. Up to leaf_max_bytes the bytes stay inline (one copy per
// doubling); past that they live in a separate pool block of cap + 1 bytes
// (chunk_adopted: the layout of an fl::string heap block), which
// pool_reallocate extends in place when it can (realloc remaps the pages of
// a large block instead of copying them), and which flatten() && hands to an
// fl::string without a copy. So a rope built by appends alone stays one
// flat chunk of any size until it is copied or edited elsewhere than at its
// end.
bool append_flat_grow(edge& root, std::string_view text) {
  chunk* c = static_cast<chunk*>(root.p);
  // The longest flat chunk: its capacity + 1 still fits a size_t with room.
  constexpr std::size_t flat_max = std::size_t{1} << 62;
  const std::size_t need = root.len + text.size();
  if (need < root.len || need > flat_max) throw std::length_error("fl::rope: too long");
  // Growth is fl::string's policy (grown_capacity), capped at a leaf while
  // the rope is small.
  if (need <= leaf_max_bytes) {
    const std::size_t cap =
        std::min(leaf_max_bytes,
                 std::max(grown_capacity(root.len, need, leaf_max_bytes), append_cap(need, 0)));
    chunk* f = new_chunk(cap);
    std::memcpy(f->data, leaf_text(root).data(), root.len);
    std::memcpy(f->data + root.len, text.data(), text.size());
    f->used = need;
    release(root.p);
    root = edge{f, 0, need};
    return true;
  }
  const std::size_t cap = grown_capacity(root.len, need, flat_max);
  if (c->kind == node_kind::chunk_adopted && root.off == 0 && !overlaps(text, c)) {
    // The chunk may hold bytes past the edge (a shared substr released
    // since) that its block index covers: those are about to be rewritten.
    index_truncate(c, root.len);
    c->data = static_cast<char*>(rope_reallocate(c->data, c->cap + 1, cap + 1));
    c->cap = cap;
    std::memcpy(c->data + root.len, text.data(), text.size());
    c->used = need;
    root.len = need;
    root.forget();
    return true;
  }
  chunk* f = new_block_chunk(cap);
  f->used = need;
  std::memcpy(f->data, leaf_text(root).data(), root.len);
  std::memcpy(f->data + root.len, text.data(), text.size());
  release(root.p);
  root = edge{f, 0, need};
  return true;
}

}  // namespace

rope& rope_engine::append_slow(rope& r, std::string_view text) {
  if (text.empty()) return r;
  const size_type at = r.size();
  [&] {
    // A '\n' after a '\r' in line_break::lf_crlf mode: the edit that keeps
    // them in one chunk (a flat rope took the inline path: one chunk).
    if (r.mode_ != line_break::lf && text.front() == '\n' && !r.empty() && r.back() == '\r')
        [[unlikely]] {
      splice(r, r.size(), 0, text, nullptr);
      return;
    }
    // A flat rope without anchors already failed the inline in-place path;
    // a tree may still have room at the end of its right spine.
    if (r.root_.p && r.root_.p->height > 0 && append_in_place(r.root_, text)) {
      settle(r);
      return;
    }
    if (r.anchors_ && r.root_.p && r.root_.p->height == 0 && leaf_append_in_place(r.root_, text))
      return;  // the inline path, which a rope with anchors skips
    if (unique_flat(r) && append_flat_grow(r.root_, text)) return;
    const edge piece = build(text, append_cap(text.size(), r.root_.len + text.size()));
    r.root_ = join_piece(r.root_, piece, true);
    settle(r);
  }();
  if (r.anchors_) [[unlikely]]
    move_anchors(r, at, 0, text.size());
  return r;
}

bool rope_engine::unique_flat(const rope& r) noexcept {
  return r.root_.p && r.root_.p->height == 0 && unique(r.root_.p);
}

// The one edit: bytes [pos, pos + n) become `text` (or *other). Flat ropes
// whose result has at most flat_edit_max bytes are edited like a string (in
// place when unique and roomy, else one new chunk); a small edit inside one
// leaf of a tree rewrites that leaf (edit_in_leaf); everything else is
// split, split, join, join: O(log n) nodes, chunks shared.
void rope_engine::splice(rope& r, size_type pos, size_type n, std::string_view text,
                         const rope* other) {
  const size_type sz = r.size();
  n = std::min(n, sz - pos);
  const size_type ins = other ? other->size() : text.size();
  if (n == 0 && ins == 0) return;
  if (r.mode_ != line_break::lf && splice_crlf(r, pos, n, text, other)) [[unlikely]]
    return;
  if (other && other->root_.p && other->root_.p->height == 0 && ins <= merge_max_bytes) {
    text = leaf_text(other->root_);
    other = nullptr;
  }
  const size_type out = sz - n + ins;
  if (!other && out > 0 && out <= flat_edit_max && (!r.root_.p || r.root_.p->height == 0)) {
    const size_type tail = sz - pos - n;
    // The flat root keeps its metrics when they are known, as a tree's
    // edges do: shifted by those of the bytes removed and inserted. Unknown
    // ones stay unknown (an edit by byte does not pay for counts nobody
    // asked for); an edit by char or UTF-16 unit makes them known first
    // (know_flat_metrics), so its queries never recount the chunk.
    const edge before = r.root_;
    const auto settle_flat = [&] {
      if (!before.known()) return;
      const text_counts add = ins ? count_text(text.data(), ins) : text_counts{};
      const text_counts sub = n ? count_text(leaf_text(before).data() + pos, n) : text_counts{};
      r.root_.chars = before.chars + add.chars - sub.chars;
      r.root_.newlines = before.newlines + add.newlines - sub.newlines;
      r.root_.astral = before.astral + add.astral - sub.astral;
    };
    if (r.root_.p && unique(r.root_.p)) {
      auto* c = static_cast<chunk*>(r.root_.p);
      if (c->cap >= out + r.root_.off && !overlaps(text, c)) {
        // (A cut needs the counts: an edit by char keeps them known.)
        if (before.known() && cut_flat(r.root_, pos, n, text)) {
          settle(r);
          return;
        }
        index_truncate(c, r.root_.off + pos);
        char* base = c->data + r.root_.off;
        // The removed bytes are counted before the memmove overwrites them.
        const text_counts sub = before.known() && n ? count_text(base + pos, n) : text_counts{};
        std::memmove(base + pos + ins, base + pos + n, tail);
        if (ins) std::memcpy(base + pos, text.data(), ins);
        c->used = r.root_.off + out;
        r.root_.len = out;
        if (before.known()) {
          // Where this edit ended, so that typing on there cuts the chunk
          // (cut_flat); no char hint (an edit by char leaves its own).
          set_hint(c, r.root_.off, pos + ins, static_cast<std::size_t>(-1), text_counts{});
          const text_counts add = ins ? count_text(text.data(), ins) : text_counts{};
          r.root_.chars = before.chars + add.chars - sub.chars;
          r.root_.newlines = before.newlines + add.newlines - sub.newlines;
          r.root_.astral = before.astral + add.astral - sub.astral;
        } else {
          r.root_.forget();
        }
        return;
      }
    }
    const std::size_t cap = std::min(flat_edit_max, out + std::max<std::size_t>(out / 2, 32));
    chunk* c = new_chunk(cap);
    const char* old =
        r.root_.p ? static_cast<const chunk*>(r.root_.p)->data + r.root_.off : nullptr;
    if (pos) std::memcpy(c->data, old, pos);
    if (ins) std::memcpy(c->data + pos, text.data(), ins);
    if (tail) std::memcpy(c->data + pos + ins, old + pos + n, tail);
    c->used = out;
    r.root_ = edge{c, 0, out};
    settle_flat();
    release(before.p);
    return;
  }
  if (rope_cursor cursor; !other && r.root_.p &&
                          (edit_in_leaf(r.root_, pos, n, text, &cursor) ||
                           (ins == 0 && r.mode_ == line_break::lf && r.root_.p->height > 0 &&
                            erase_across_leaves(r.root_, pos, n, &cursor)))) {
    settle(r);
    // Typing on by byte where this edit wrote finds the leaf from there.
    if (cursor.depth) static_cast<inner*>(r.root_.p)->cursor = cursor;
    return;
  }
  edge mid{};
  if (other) {
    mid = other->root_;
    acquire(mid.p);
  } else {
    mid = build(text, text.size());
  }
  // The splits work on a second reference to the tree, so root_ stays
  // intact until everything the joins need is reserved; then the old tree
  // is dropped (its unique nodes now belong to the pieces alone, and the
  // joins edit them in place) and the joins cannot fail.
  edge whole = r.root_;
  acquire(whole.p);
  edge left{}, rest{}, cut{}, right{};
  join_reserve res;
  try {
    std::tie(left, rest) = split(whole, pos);
    whole = edge{};
    std::tie(cut, right) = split(rest, n);
    rest = edge{};
    res.add_join3(left, mid, right);
  } catch (...) {
    for (edge e : {whole, left, rest, cut, right, mid}) release(e.p);
    throw;
  }
  release(cut.p);
  release(r.root_.p);
  r.root_ = join(join(left, mid), right);
  settle(r);
}

// The edits of the public calls: the text's part (splice), then the
// anchors' (rope.hpp "anchors"), once the text changed without a throw.
void rope_engine::edit(rope& r, size_type pos, size_type n, std::string_view text,
                       const rope* other) {
  n = std::min(n, r.size() - pos);
  const size_type ins = other ? other->size() : text.size();
  // The usual keystroke by byte: at the tree's cursor (anchors moved there).
  if (!other && r.root_.p && r.root_.p->height > 0 &&
      static_cast<const inner*>(r.root_.p)->cursor.depth != 0 && r.mode_ == line_break::lf &&
      ins <= leaf_max_bytes / 4 && (n | ins) != 0 && type_at_cursor<false>(r, pos, n, text))
    return;
  splice(r, pos, n, text, other);
  if (r.anchors_) [[unlikely]]
    move_anchors(r, pos, n, ins);
}

// A flat root whose metrics are unknown gets them now, once (an edit by
// char or UTF-16 unit queries them, and the flat edits keep known ones).
void rope_engine::know_flat_metrics(rope& r) noexcept {
  if (r.root_.p && r.root_.p->height == 0 && !r.root_.known())
    set_counts(r.root_,
               chunk_counts(static_cast<const chunk*>(r.root_.p), r.root_.off, r.root_.len));
}

namespace {
// The cursor that an edit by char made through the edits by byte left in
// the tree `root` (theirs: char_lo npos, no hint, since they do not count
// chars) learns the chars before its leaf (the path's edges, known after
// settle) and its hint: the edit's text ends at char `text_end` of the
// rope and at the cursor's hint_r, as every path that sets a cursor
// records it. Without them every keystroke after such an edit (typing at
// the first byte of a node's first leaf goes to the end of the leaf
// before it, under another node: replace_chars_in_leaf declines that
// insert) took this path again instead of type_at_cursor. Only after an
// edit that changed the text: a no-op leaves an older cursor, whose hint_r
// is not this text's end.
void learn_cursor_chars(edge& root, std::size_t text_end) noexcept {
  if (!root.p || root.p->height == 0 || !unique(root.p)) return;
  rope_cursor& cu = static_cast<inner*>(root.p)->cursor;
  if (cu.depth != root.p->height) return;
  const edge* e = &root;
  std::size_t chars = 0;
  for (unsigned d = 0; d < cu.depth; ++d) {
    const inner* n = static_cast<const inner*>(e->p);
    for (unsigned j = 0; j < cu.idx[d]; ++j) chars += n->child[j].chars;
    e = &n->child[cu.idx[d]];
  }
  cu.char_lo = chars;
  cu.hint_k = static_cast<std::uint16_t>(text_end - chars);
}
}  // namespace

// Items [i, i + n) of metric m (chars or UTF-16 units) become `text`: the
// byte range is resolved (rope_nth_pair: one descent, the end looked for in
// the same leaf first) and spliced. (An edit by char inside one leaf of a
// tree took replace_chars_in_leaf first.)
rope& rope_engine::replace_by(rope& r, text_metric m, size_type i, size_type n,
                              std::string_view text) {
  const bool by_char = m == text_metric::chars;
  know_flat_metrics(r);
  const size_type total = by_char ? r.char_count() : r.utf16_count();
  if (i > total)
    throw_out_of_range(by_char ? "fl::rope::replace_chars" : "fl::rope::replace_utf16",
                       by_char ? "i" : "u", i, ">", by_char ? "char_count()" : "utf16_count()",
                       total);
  n = std::min(n, total - i);
  if (i == total) {
    r.replace(r.size(), 0, text);
  } else {
    const auto [b, e] = rope_nth_pair(r.root_, m, i, n);
    size_type end = e == npos ? r.size() : e;
    // A count of units ending inside a surrogate pair takes the whole pair.
    if (!by_char && end < r.size() && r.byte_to_utf16(end) < i + n) end = r.chars_after(end, 1);
    r.replace(b, end - b, text);
  }
  if (by_char && r.mode_ == line_break::lf && (n | text.size()) != 0 &&
      text.size() <= leaf_max_bytes / 4)
    learn_cursor_chars(r.root_, i + count_text(text.data(), text.size()).chars);
  return r;
}

// replace_chars of a flat root in lf mode that stays within flat_edit_max:
// the byte range found from the chunk's hint (the next keystroke steps over
// a char or two) or its leaf index, the edit made as one by byte, and the
// hint left where the text ends, as edits inside a tree's leaf leave it.
// False, with nothing changed, when i is past the end.
bool rope_engine::replace_chars_flat(rope& self, size_type i, size_type n, std::string_view text) {
  know_flat_metrics(self);
  const size_type chars = self.root_.chars;
  if (i > chars) return false;
  n = std::min(n, chars - i);
  if (n == 0 && text.empty()) return true;
  const std::size_t r = i == chars ? self.root_.len : leaf_nth_char(self.root_, i);
  const std::size_t r2 = n ? leaf_nth_from(self.root_, text_metric::chars, r, n) : r;
  edit(self, r, r2 - r, text, nullptr);
  // A flat root after the edit keeps its counts (splice shifts known
  // ones): the text's chars are the new count minus the chars left.
  if (self.root_.p && self.root_.p->height == 0 && self.root_.known())
    set_hint(static_cast<chunk*>(self.root_.p), self.root_.off, r + text.size(), i,
             text_counts{self.root_.chars - (chars - n), 0, 0});
  return true;
}

}  // namespace FL_ROPE_NS
}  // namespace detail

inline namespace FL_ROPE_NS {

using detail::edge;

rope& rope::append(const rope& other) {
  if (other.empty()) return *this;
  if (mode_ != line_break::lf) [[unlikely]]
    return insert(size(), other);  // splice_crlf checks the seam and other's mode
  const size_type at = size(), ins = other.size();
  if (other.root_.p->height == 0 && other.size() <= detail::merge_max_bytes &&
      detail::append_in_place(root_, detail::leaf_text(other.root_))) {
    detail::rope_engine::settle(*this);
  } else {
    // Acquire before join (other may be *this) and before reserving, so
    // that the reservation sees the counts join will see.
    detail::acquire(other.root_.p);
    root_ = detail::join_piece(root_, other.root_, true);
    detail::rope_engine::settle(*this);
  }
  if (anchors_) [[unlikely]]
    detail::rope_engine::move_anchors(*this, at, 0, ins);
  return *this;
}

rope& rope::prepend(std::string_view text) {
  if (text.empty()) return *this;
  detail::rope_engine::edit(*this, 0, 0, text, nullptr);
  return *this;
}

rope& rope::prepend(const rope& other) {
  if (other.empty()) return *this;
  if (mode_ != line_break::lf) [[unlikely]]
    return insert(0, other);
  const size_type ins = other.size();
  detail::acquire(other.root_.p);
  root_ = detail::join_piece(root_, other.root_, false);
  detail::rope_engine::settle(*this);
  if (anchors_) [[unlikely]]
    detail::rope_engine::move_anchors(*this, 0, 0, ins);
  return *this;
}

rope& rope::replace_chars_general(size_type i, size_type n, std::string_view text) {
  // A tree's root edge is known after every edit (settle). (line_break::
  // lf_crlf mode takes the general path: splice checks the edit's ends.)
  // The usual keystroke first: a tree, a short text.
  if (root_.p && root_.p->height > 0) {
    if (root_.chars >= i && text.size() <= detail::leaf_max_bytes / 4 && mode_ == line_break::lf) {
      n = std::min(n, root_.chars - i);
      if (n == 0 && text.empty()) return *this;
      if (detail::rope_engine::replace_chars_in_leaf(*this, i, n, text)) return *this;
    }
  } else if (root_.p) {
    // A flat root whose known counts say every byte is a char (ASCII text,
    // a small document edited like a string) takes chars as bytes.
    if (root_.chars == root_.len && i <= root_.len) {
      detail::rope_engine::edit(*this, i, n, text, nullptr);
      return *this;
    }
    if (mode_ == line_break::lf && root_.len <= detail::flat_edit_max &&
        text.size() <= detail::leaf_max_bytes / 4 &&
        detail::rope_engine::replace_chars_flat(*this, i, n, text))
      return *this;
  }
  return detail::rope_engine::replace_by(*this, detail::text_metric::chars, i, n, text);
}

rope& rope::replace_utf16(size_type u, size_type n, std::string_view text) {
  return detail::rope_engine::replace_by(*this, detail::text_metric::utf16, u, n, text);
}

rope::const_iterator rope::insert(const_iterator it, std::string_view text) {
  const size_type at = it.index();
  insert(at, text);
  return const_iterator(this, at);
}

rope::const_iterator rope::erase(const_iterator it) {
  const size_type at = it.index();
  erase(at, 1);
  return const_iterator(this, at);
}

rope::const_iterator rope::erase(const_iterator first, const_iterator last) {
  const size_type at = first.index();
  erase(at, last.index() - at);
  return const_iterator(this, at);
}

rope& rope::insert(size_type pos, std::string_view text) {
  if (pos > size())
    detail::throw_out_of_range("fl::rope::insert", "pos", pos, ">", "size()", size());
  detail::rope_engine::edit(*this, pos, 0, text, nullptr);
  return *this;
}

rope& rope::insert(size_type pos, const rope& other) {
  if (pos > size())
    detail::throw_out_of_range("fl::rope::insert", "pos", pos, ">", "size()", size());
  const rope keep(other);  // other may be *this
  detail::rope_engine::edit(*this, pos, 0, {}, &keep);
  return *this;
}

rope& rope::erase(size_type pos, size_type n) {
  if (pos > size())
    detail::throw_out_of_range("fl::rope::erase", "pos", pos, ">", "size()", size());
  detail::rope_engine::edit(*this, pos, n, {}, nullptr);
  return *this;
}

rope& rope::replace(size_type pos, size_type n, std::string_view text) {
  if (pos > size())
    detail::throw_out_of_range("fl::rope::replace", "pos", pos, ">", "size()", size());
  detail::rope_engine::edit(*this, pos, n, text, nullptr);
  return *this;
}

rope& rope::replace(size_type pos, size_type n, const rope& other) {
  if (pos > size())
    detail::throw_out_of_range("fl::rope::replace", "pos", pos, ">", "size()", size());
  const rope keep(other);
  detail::rope_engine::edit(*this, pos, n, {}, &keep);
  return *this;
}

}  // namespace FL_ROPE_NS
}  // namespace FL_ABI_NS
}  // namespace fl
