// bench/rope_edits.hpp: the five edits of the rope/ edit rows, one sequence
// for every section file that times them (rope_bench.cpp's edit_mix*,
// rope_line_break_bench.cpp's crlf_edit_mix_tree), so their rows stay
// comparable: an insert at the start and in the middle, an append, and a
// replace at the start and in the middle of a text of `b` bytes.
//
// Threads: none of its own; `v` is the caller's.
#pragma once

#include <cstddef>

namespace fl_bench {

// Works for every peer with std::string's insert/append/replace by position
// (std::string, fl::rope, __gnu_cxx::crope).
template <class R>
void edit_mix(R& v, std::size_t b) {
  v.insert(0, "qwerty");
  v.insert(b / 2, "zxcvb");
  v.append("rtyui");
  v.replace(0, 20, "ghfjhfjf");
  v.replace(b / 2, 20, "abcdefg");
}

}  // namespace fl_bench
