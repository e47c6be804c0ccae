// src/rope/cursor_edit.cpp: the keystroke at the root's cursor
// (rope_engine::type_at_cursor): an edit by char or by byte inside the leaf
// where the last in-leaf edit landed, made there without a descent. Every
// keystroke of a typing run but the first comes here; what it declines
// goes to the descents of leaf_edit.cpp, which set the cursor anew.
#include "rope/rope_impl.hpp"

#include "rope/metrics.hpp"

#include <cstring>
#include <string_view>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {
inline namespace FL_ROPE_NS {

namespace {
// The counts of the few bytes a keystroke inserts or removes: one ASCII
// byte, the usual keystroke, without the word count.
[[gnu::always_inline]] inline text_counts count_keystroke(const char* p, std::size_t n) noexcept {
  if (n == 1 && static_cast<unsigned char>(*p) < 0x80) return {1, *p == '\n' ? 1u : 0u, 0};
  return n ? count_text(p, n) : text_counts{};
}

inline std::uint64_t load2(const unsigned char* p) noexcept {
  std::uint16_t w;
  std::memcpy(&w, p, 2);
  return w;
}
inline void store2(char* p, std::uint64_t w) noexcept {
  const auto h = static_cast<std::uint16_t>(w);
  std::memcpy(p, &h, 2);
}

}  // namespace

// Items [x, x + n) of a tree (chars when ByChar, else bytes; x + n within
// the text, lf mode, a short text) become `text` at the root's cursor: when
// the range lies in the cursor's leaf (an insert at its first item only at
// the text's start, as an insert at a leaf boundary goes to the left leaf),
// every node on the way to it and its chunk are unique, and the leaf is
// rewritten in place without a cut at the cursor. Then there is no
// descent: the child indexes are the cursor's, a char's place in the leaf
// steps from the leaf's hint (leaf_nth_char), and the edit is edit_leaf's
// in-place one, its counts shifted on the leaf and each edge above it. The
// cursor stays true, since nothing before the leaf moved. False, with
// nothing changed, otherwise (replace_chars_in_leaf or edit_in_leaf then
// descends and, when it rewrites a leaf in place, makes that leaf the
// cursor). O(height), with no load of a sibling.
template <bool ByChar>
bool rope_engine::type_at_cursor(rope& self, size_type x, size_type n, std::string_view text) {
  edge& root = self.root_;
  rope_cursor& cu = static_cast<inner*>(root.p)->cursor;
  const unsigned depth = root.p->height;
  // (A cursor left by an edit by byte has no char_lo: npos.)
  const std::size_t base_x = ByChar ? cu.char_lo : cu.byte_lo;
  if (cu.depth != depth || x < base_x) return false;
  // rope::replace_chars calls first and checks nothing (edit checks the
  // rest for an edit by byte): lf mode, a short text, not a no-op.
  if (ByChar &&
      (self.mode_ != line_break::lf || text.size() > leaf_max_bytes / 4 || (n | text.size()) == 0))
    return false;
  const std::size_t k = x - base_x;
  edge* up[cursor_max_depth];  // up[d]: the edge to the node of level d
  edge* e = &root;
  for (unsigned d = 0; d < depth; ++d) {
    if (!unique(e->p)) return false;
    up[d] = e;
    e = &static_cast<inner*>(e->p)->child[cu.idx[d]];
  }
  edge& leaf = *e;
  // (n may be npos: a count to the end of the text.)
  const std::size_t items = ByChar ? leaf.chars : leaf.len;
  if (k > items || n > items - k) return false;
  chunk* c = static_cast<chunk*>(leaf.p);
  if (!unique(c)) return false;
  const char* old = c->data + leaf.off;
  std::size_t r, r2;
  if constexpr (!ByChar) {
    r = k;
    r2 = k + n;
  } else {
    if (leaf.chars == leaf.len) {
      r = k;
      r2 = k + n;
    } else if (k == cu.hint_k && n == 0) {
      // Typing on: the char where the last edit ended (the cursor's hint;
      // at the leaf's end too, where the hint then is).
      r = r2 = cu.hint_r;
    } else if (k + 1 == cu.hint_k && n == 1) {
      // A backspace: the char before it, which ends there.
      r2 = cu.hint_r;
      r = r2 - 1;
      while (r > 0 && continuation(old[r])) --r;
    } else {
      // Else a step or a search, and a short erase steps over its chars.
      const bool to_end = k + n == leaf.chars;
      r = n == 0 && to_end ? leaf.len : leaf_nth_char(leaf, k);
      if (to_end) {
        r2 = leaf.len;
      } else if (n <= hint_reach) {
        r2 = r;
        for (std::size_t d = n; d > 0; --d) {
          ++r2;
          while (continuation(old[r2])) ++r2;
        }
      } else {
        r2 = leaf_nth_from(leaf, text_metric::chars, r, n);
      }
    }
    // A range that reaches the leaf's last char (it ends where the leaf's
    // bytes do) is the leaf's only when no continuation byte of that char
    // lies in the next leaf (as ends_at_leaf_end checks; the text's last
    // leaf: yes).
    if (r2 == leaf.len && cu.next != 1) {
      if (cu.next == 0) cu.next = next_leaf_starts_char(root, cu.idx, depth) ? 1 : 2;
      if (cu.next != 1) return false;
    }
  }
  if (n == 0 && r == 0 && cu.byte_lo > 0) return false;
  const std::size_t del = r2 - r, ins = text.size();
  const std::size_t out = leaf.len - del + ins;
  if (out == 0 || out > leaf_edit_max || leaf.off + out > c->cap || overlaps(text, c) ||
      cut_at_cursor(leaf, c, old, r, del, text) != cursor_cut::none)
    return false;

  // The counts first, then the bytes: what is live across the memmove is
  // only what the text's copy needs. By byte, the text is counted by
  // count_keystroke and copied by a store or memcpy; by char, below, a
  // keystroke of a code point beyond ASCII has its own path. (Apart: the
  // code by byte written as one with the code by char compiled to 0.5% more
  // instructions per replay by byte.)
  if constexpr (!ByChar) {
    const text_counts add = count_keystroke(text.data(), ins);
    const text_counts sub = count_keystroke(old + r, del);
    const std::size_t grow = ins - del, dc = add.chars - sub.chars,
                      dn = add.newlines - sub.newlines, da = add.astral - sub.astral;
    // Every edge on the path is known (a tree's edges are, after settle).
    const auto shift = [&](edge& y) {
      y.len += grow;
      y.chars += dc;
      y.newlines += dn;
      y.astral += da;
    };
    const std::size_t tail = leaf.len - r2;
    shift(leaf);
    for (unsigned d = depth; d-- > 0;) shift(*up[d]);
    note_rewrite(c, leaf.off, r, r + ins, static_cast<std::size_t>(-1), add);
    cu.hint_r = static_cast<std::uint16_t>(r + ins);
    cu.hint_k = cursor_no_hint;
    c->used = leaf.off + out;
    char* base = c->data + leaf.off;
    if (del != ins && tail) std::memmove(base + r + ins, base + r2, tail);
    if (ins == 1)
      base[r] = text[0];
    else if (ins)
      std::memcpy(base + r, text.data(), ins);
    if (self.anchors_) [[unlikely]]
      move_anchors(self, cu.byte_lo + r, del, ins);
    return true;
  } else {
    // A text of 2..4 bytes (one key in twenty of a text that is not ASCII,
    // none of one that is) is held in a word, counted and stored from it,
    // with no call and no branch on its length.
    const auto* t = reinterpret_cast<const unsigned char*>(text.data());
    text_counts add, sub;
    std::uint64_t word = 0;
    if (ins == 1 && t[0] < 0x80) {
      add = {1, t[0] == '\n' ? 1u : 0u, 0};
    } else if (ins - 2 <= 2) {
      word = load2(t) | load2(t + ins - 2) << (8 * (ins - 2));
      add = count_word(word, 0x80808080u >> (8 * (4 - ins)));
    } else {
      add = ins ? count_text(text.data(), ins) : text_counts{};
    }
    // [r, r2) holds n chars. One char is a byte that is not a continuation
    // byte and the continuation bytes after it, so its counts are that
    // byte's, whatever its length.
    if (n == 1) {
      const auto b = static_cast<unsigned char>(old[r]);
      sub = {1, b == '\n' ? 1u : 0u, b >= 0xF0 ? 1u : 0u};
    } else {
      sub = n ? count_text(old + r, del) : text_counts{};
    }
    const std::size_t grow = ins - del, dc = add.chars - sub.chars,
                      dn = add.newlines - sub.newlines, da = add.astral - sub.astral;
    const auto shift = [&](edge& y) {
      y.len += grow;
      y.chars += dc;
      y.newlines += dn;
      y.astral += da;
    };
    const std::size_t tail = leaf.len - r2;
    shift(leaf);
    for (unsigned d = depth; d-- > 0;) shift(*up[d]);
    note_rewrite(c, leaf.off, r, r + ins, k, add);
    cu.hint_r = static_cast<std::uint16_t>(r + ins);
    cu.hint_k = static_cast<std::uint16_t>(k + add.chars);
    c->used = leaf.off + out;
    char* base = c->data + leaf.off;
    if (del != ins && tail) std::memmove(base + r + ins, base + r2, tail);
    if (ins == 1) {
      base[r] = text[0];
    } else if (ins - 2 <= 2) {
      store2(base + r, word);
      store2(base + r + ins - 2, word >> (8 * (ins - 2)));
    } else if (ins) {
      std::memcpy(base + r, text.data(), ins);
    }
    if (self.anchors_) [[unlikely]]
      move_anchors(self, cu.byte_lo + r, del, ins);
    return true;
  }
}
template bool rope_engine::type_at_cursor<true>(rope&, size_type, size_type, std::string_view);
template bool rope_engine::type_at_cursor<false>(rope&, size_type, size_type, std::string_view);

}  // namespace FL_ROPE_NS
}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
