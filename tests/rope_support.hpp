// tests/rope_support.hpp: what the small-leaf rope tests share (random
// text, positions, reading a rope every way, trees of small leaves). These
// programs link fl_rope_small (FL_ROPE_LEAF_MAX=16, see CMakeLists.txt), so
// a few hundred bytes already make trees of depth 3-6 and every edit crosses
// leaf boundaries.
#pragma once

#include <fl/rope.hpp>

#include <gtest/gtest.h>
#include "test_support.hpp"

#include <cstddef>
#include <iterator>
#include <random>
#include <string>
#include <string_view>

static_assert(fl::detail::leaf_max_bytes == 16,
              "rope tests must link fl_rope_small (16-byte leaves)");

namespace rope_test {

using fl_test::test_seed;

// Small alphabet so that find() has many partial matches.
inline std::string random_text(std::mt19937_64& rng, std::size_t n, unsigned alphabet = 4) {
  return fl_test::random_text(rng, n, alphabet, 'a');
}

inline std::size_t pick(std::mt19937_64& rng, std::size_t n) {
  return n == 0 ? 0 : static_cast<std::size_t>(rng() % n);
}

// Every way of reading a rope must give `want`.
inline void expect_content(const fl::rope& r, const std::string& want, const std::string& ctx) {
  ASSERT_EQ(r.size(), want.size()) << ctx;
  ASSERT_EQ(r.empty(), want.empty()) << ctx;
  std::string via_chunks;
  for (std::string_view c : r.chunks()) {
    ASSERT_FALSE(c.empty()) << ctx;
    via_chunks.append(c);
  }
  ASSERT_EQ(via_chunks, want) << ctx;
  ASSERT_EQ(std::string(r.begin(), r.end()), want) << ctx;
  ASSERT_EQ(r.to_std(), want) << ctx;
  ASSERT_EQ(std::string_view(r.flatten()), want) << ctx;
}

// Text with everything the metrics must survive: ASCII, '\n', "\r\n", 2-,
// 3- and 4-byte UTF-8 sequences, and invalid bytes (stray continuation
// bytes, lone lead bytes, 0xF8..0xFF).
inline std::string random_utf8(std::mt19937_64& rng, std::size_t n) {
  static const char* const pieces[] = {
      "a",    "b",    "\n",   "\r\n", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80",
      "\x80", "\xBF", "\xC3", "\xF0", "\xFF",     "\xF8\x88",     "x\ny",
      " "};
  std::string s;
  while (s.size() < n) s += pieces[pick(rng, std::size(pieces))];
  s.resize(n);  // may cut a sequence: more invalid bytes
  return s;
}

// The five basic edits, applied alike to a rope and to its std::string
// mirror (n is clamped by both the same way).
enum class basic_edit { append, prepend, insert, erase, replace };
inline void apply_edit(basic_edit e, fl::rope& r, std::string& s, std::size_t pos, std::size_t n,
                       const std::string& piece) {
  switch (e) {
    case basic_edit::append:
      r.append(piece);
      s.append(piece);
      break;
    case basic_edit::prepend:
      r.prepend(piece);
      s.insert(0, piece);
      break;
    case basic_edit::insert:
      r.insert(pos, piece);
      s.insert(pos, piece);
      break;
    case basic_edit::erase:
      r.erase(pos, n);
      s.erase(pos, n);
      break;
    case basic_edit::replace:
      r.replace(pos, n, piece);
      s.replace(pos, n, piece);
      break;
  }
}

// A tree of `text` cut into `piece`-byte leaves: a copy alive during each
// append keeps the rope shared, so each piece joins as a leaf instead of
// growing one flat chunk in place.
inline fl::rope tree_of(std::string_view text, std::size_t piece) {
  fl::rope r;
  for (std::size_t i = 0; i < text.size(); i += piece) {
    const fl::rope before = r;
    r.append(text.substr(i, piece));
  }
  return r;
}

}  // namespace rope_test
