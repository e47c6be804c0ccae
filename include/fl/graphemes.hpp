// fl/graphemes.hpp: extended grapheme clusters (Unicode UAX #29), what a
// reader sees as one character ("e" + U+0301, a flag, a family emoji joined
// by U+200D, "\r\n"), over an fl::rope: the boundary after or before a byte,
// and the number of clusters in a range. The Unicode rules and tables come
// from libutf8proc (Debian: libutf8proc-dev); this part is built only when
// it is found, as target fl::graphemes (fl_graphemes), and fl::fl never
// needs it. For code points alone, rope::chars() and rope::char_at are
// enough and cost no dependency.
//
// Text: the rope's chars (rope.hpp, "code points"): a char that is not
// well-formed UTF-8 is U+FFFD, which forms a cluster of its own like any
// other symbol. Boundaries lie at char starts, 0 and size(); continuation
// bytes before the first char (no char holds them) belong to the first
// cluster.
//
// Cost: the rules look back (a run of regional indicators, an emoji joined
// by ZWJ), so each call first steps back from pos, char by char, to a char
// before which a break holds whatever precedes it (after a control or line
// break, or before a plain letter, digit or symbol that follows anything
// but a prepend, extend or ZWJ char), then reads forward to its answer:
// O(log n + k), k the chars between that point and the answer. In ordinary
// text k is the length of one or two clusters; a long run of combining
// marks or regional indicators makes it that run's length.
//
// Threads: these only read the rope; as for any read, never while another
// thread changes the same rope object.
#pragma once

#include <fl/rope.hpp>

#include <cstddef>

namespace fl {
inline namespace FL_ABI_NS {
inline namespace FL_ROPE_NS {

// The first grapheme boundary after byte pos; size() when pos == size().
// A pos inside a char means that char. Throws std::out_of_range if pos >
// size().
std::size_t next_grapheme_boundary(const rope& r, std::size_t pos);
// The last grapheme boundary before byte pos; 0 when pos == 0. Throws
// std::out_of_range if pos > size().
std::size_t prev_grapheme_boundary(const rope& r, std::size_t pos);
// Whether byte pos is a grapheme boundary (0 and size() are). Throws
// std::out_of_range if pos > size().
bool is_grapheme_boundary(const rope& r, std::size_t pos);
// The number of grapheme clusters that overlap bytes [pos, pos + min(n,
// size() - pos)): when both ends are boundaries, the clusters in the range
// (grapheme_count(r) is the text's cluster count); 0 for an empty range.
// O(log n + k), k the chars of the range and of the context before it.
// Throws std::out_of_range if pos > size().
std::size_t grapheme_count(const rope& r, std::size_t pos = 0, std::size_t n = rope::npos);

}  // namespace FL_ROPE_NS
}  // namespace FL_ABI_NS
}  // namespace fl
