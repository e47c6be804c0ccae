// tests/rope_check.hpp: what the rope tests share whatever their leaf size:
// random text (UTF-8 and invalid bytes), positions, reading a rope every
// way, the five basic edits on a rope and its std::string mirror, trees of
// given leaves, and every text metric checked against plain scans. The
// small-leaf programs include it through rope_support.hpp.
#pragma once

#include <fl/detail/rope_debug.hpp>
#include <fl/rope.hpp>

#include <gtest/gtest.h>
#include "test_support.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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

// ---------------------------------------------------------------- text metrics

inline bool is_char_byte(char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }
inline std::size_t units_of(char c) {
  return is_char_byte(c) ? (static_cast<unsigned char>(c) >= 0xF0 ? 2u : 1u) : 0u;
}

// The metrics of a std::string by plain scans: the definitions of SPEC.
struct naive_metrics {
  std::vector<std::size_t> chars, lines, units;        // prefix counts, size() + 1 entries
  std::vector<std::size_t> char_at, line_at, unit_at;  // char_to_byte, line_to_byte, utf16_to_byte
  explicit naive_metrics(const std::string& s) {
    chars.assign(1, 0);
    lines.assign(1, 0);
    units.assign(1, 0);
    line_at.assign(1, 0);
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (is_char_byte(s[i])) {
        char_at.push_back(i);
        for (std::size_t u = 0; u < units_of(s[i]); ++u) unit_at.push_back(i);
      }
      if (s[i] == '\n') line_at.push_back(i + 1);
      chars.push_back(chars.back() + (is_char_byte(s[i]) ? 1 : 0));
      lines.push_back(lines.back() + (s[i] == '\n' ? 1 : 0));
      units.push_back(units.back() + units_of(s[i]));
    }
    char_at.push_back(s.size());
    unit_at.push_back(s.size());
    line_at.push_back(s.size());
  }
};

// Checks every metric of r against s: the totals, the queries at `probes`
// random arguments (every argument when all is set), and the throws just
// past each end.
inline void expect_metrics(const fl::rope& r, const std::string& s, std::mt19937_64& rng,
                           int probes, bool all, const std::string& ctx) {
  const naive_metrics m(s);
  ASSERT_EQ(r.char_count(), m.chars.back()) << ctx;
  ASSERT_EQ(r.line_count(), m.lines.back() + 1) << ctx;
  ASSERT_EQ(r.utf16_count(), m.units.back()) << ctx;
  auto by_pos = [&](std::size_t pos) {
    ASSERT_EQ(r.byte_to_char(pos), m.chars[pos]) << ctx << " pos " << pos;
    ASSERT_EQ(r.byte_to_line(pos), m.lines[pos]) << ctx << " pos " << pos;
    ASSERT_EQ(r.byte_to_utf16(pos), m.units[pos]) << ctx << " pos " << pos;
  };
  auto by_char = [&](std::size_t i) {
    ASSERT_EQ(r.char_to_byte(i), m.char_at[i]) << ctx << " char " << i;
  };
  auto by_line = [&](std::size_t i) {
    ASSERT_EQ(r.line_to_byte(i), m.line_at[i]) << ctx << " line " << i;
  };
  auto by_unit = [&](std::size_t i) {
    ASSERT_EQ(r.utf16_to_byte(i), m.unit_at[i]) << ctx << " unit " << i;
  };
  // The relative and line/column conversions, from their definitions on
  // the prefix counts: the char holding pos is the last one starting at or
  // before it (the first char when none does).
  const std::size_t total_chars = m.char_at.size() - 1, total_units = m.unit_at.size() - 1;
  const std::size_t lines = m.line_at.size() - 1;
  auto holder = [&](std::size_t pos) { return m.chars[pos + 1] ? m.chars[pos + 1] - 1 : 0; };
  auto chars_after = [&](std::size_t pos, std::size_t n) -> std::size_t {
    if (pos == s.size()) return s.size();
    return m.char_at[std::min(holder(pos) + n, total_chars)];
  };
  auto utf16_after = [&](std::size_t pos, std::size_t n) -> std::size_t {
    if (pos == s.size()) return s.size();
    const std::size_t k = m.chars[pos + 1] ? m.units[m.char_at[holder(pos)]] : 0;
    return m.unit_at[std::min(k + n, total_units)];
  };
  auto by_relative = [&](std::size_t pos, std::size_t n) {
    ASSERT_EQ(r.chars_after(pos, n), chars_after(pos, n)) << ctx << " pos " << pos << " n " << n;
    ASSERT_EQ(r.utf16_after(pos, n), utf16_after(pos, n)) << ctx << " pos " << pos << " n " << n;
    const fl::rope::line_column lc = r.byte_to_line_column(pos);
    ASSERT_EQ(lc.line, m.lines[pos]) << ctx << " pos " << pos;
    ASSERT_EQ(lc.column, m.units[pos] - m.units[m.line_at[lc.line]]) << ctx << " pos " << pos;
  };
  auto by_line_column = [&](std::size_t line, std::size_t col) {
    const std::size_t start = m.line_at[line];
    const std::size_t eol = line + 1 < lines ? m.line_at[line + 1] - 1 : s.size();
    const std::size_t want =
        col == 0 || start == eol ? start : std::min(utf16_after(start, col), eol);
    ASSERT_EQ(r.line_column_to_byte({line, col}), want) << ctx << " line " << line << " col " << col;
    ASSERT_EQ(r.line_to_char(line), m.chars[start]) << ctx << " line " << line;
  };
  auto by_char_line = [&](std::size_t i) {
    ASSERT_EQ(r.char_to_line(i), m.lines[m.char_at[i]]) << ctx << " char " << i;
  };
  for (int k = 0; k < (all ? 16 : (probes + 3) / 4); ++k) {
    by_relative(pick(rng, s.size() + 1), pick(rng, 2) ? pick(rng, 4) : pick(rng, 64));
    by_line_column(pick(rng, lines), pick(rng, 2) ? pick(rng, 6) : pick(rng, 80));
    by_char_line(pick(rng, total_chars + 1));
    if (::testing::Test::HasFatalFailure()) return;
  }
  ASSERT_THROW((void)r.chars_after(s.size() + 1, 0), std::out_of_range) << ctx;
  ASSERT_THROW((void)r.byte_to_line_column(s.size() + 1), std::out_of_range) << ctx;
  ASSERT_THROW((void)r.line_column_to_byte({lines, 0}), std::out_of_range) << ctx;
  ASSERT_THROW((void)r.char_to_line(total_chars + 1), std::out_of_range) << ctx;
  ASSERT_THROW((void)r.line_to_char(lines + 1), std::out_of_range) << ctx;
  if (all) {
    for (std::size_t i = 0; i <= s.size(); ++i) by_pos(i);
    for (std::size_t i = 0; i < m.char_at.size(); ++i) by_char(i);
    for (std::size_t i = 0; i < m.line_at.size(); ++i) by_line(i);
    for (std::size_t i = 0; i < m.unit_at.size(); ++i) by_unit(i);
  } else {
    for (int k = 0; k < probes; ++k) {
      by_pos(pick(rng, s.size() + 1));
      by_char(pick(rng, m.char_at.size()));
      by_line(pick(rng, m.line_at.size()));
      by_unit(pick(rng, m.unit_at.size()));
    }
    by_pos(s.size());
  }
  ASSERT_THROW((void)r.byte_to_char(s.size() + 1), std::out_of_range) << ctx;
  ASSERT_THROW((void)r.byte_to_line(s.size() + 1), std::out_of_range) << ctx;
  ASSERT_THROW((void)r.byte_to_utf16(s.size() + 1), std::out_of_range) << ctx;
  ASSERT_THROW((void)r.char_to_byte(m.char_at.size()), std::out_of_range) << ctx;
  ASSERT_THROW((void)r.line_to_byte(m.line_at.size()), std::out_of_range) << ctx;
  ASSERT_THROW((void)r.utf16_to_byte(m.unit_at.size()), std::out_of_range) << ctx;
}

// A flat rope cut down by substr to the front of its own chunk, then grown
// past the chunk by an append: the chunk's storage is extended in place and
// the bytes after the cut rewritten, so the block index a query built over
// the old bytes must stop covering them (it did not, and the next queries
// counted the old text's newlines and chars: line_count() 797 for 683).
inline void expect_append_past_a_cut_chunk(std::mt19937_64& rng, const std::string& ctx) {
  std::string s = random_utf8(rng, 20000);
  fl::rope r(s);
  expect_metrics(r, s, rng, 50, false, ctx + " whole");  // builds the index
  r = r.substr(0, 3001);
  s.resize(3001);
  const std::string more = random_utf8(rng, 30000);
  r.append(more);
  s += more;
  ASSERT_NO_THROW(fl::detail::check_invariants(r)) << ctx;
  expect_metrics(r, s, rng, 200, false, ctx + " grown");
}

// The byte range [b, e) of r's chars [i, i + n) (n clipped at the end), and
// of its UTF-16 units [u, u + n) (a unit inside a surrogate pair takes its
// whole char, at either end), from plain scans of s: what replace_chars and
// replace_utf16 must edit.
inline std::pair<std::size_t, std::size_t> naive_char_range(const std::string& s, std::size_t i,
                                                            std::size_t n) {
  const naive_metrics m(s);
  const std::size_t total = m.char_at.size() - 1;
  return {m.char_at[i], m.char_at[std::min(n, total - i) + i]};
}
inline std::pair<std::size_t, std::size_t> naive_utf16_range(const std::string& s, std::size_t u,
                                                             std::size_t n) {
  const naive_metrics m(s);
  const std::size_t total = m.unit_at.size() - 1;
  std::size_t e = m.unit_at[std::min(n, total - u) + u];
  if (e < s.size() && m.units[e] < std::min(n, total - u) + u) e = m.char_at[m.chars[e] + 1];
  return {m.unit_at[u], e};
}

// ---------------------------------------------------------------- code points

// A reference decoder over std::string, written from the definitions and not
// from the library: a char starts at every byte that is not a continuation
// byte (10xxxxxx) and runs to the next such byte (SPEC: the char metric);
// its value is the code point its bytes encode when they are exactly one
// well-formed UTF-8 sequence (The Unicode Standard, 3.9, D92 and Table 3-7:
// lead 0xxxxxxx, 110xxxxx, 1110xxxx or 11110xxx followed by that many
// 10xxxxxx, the value in its shortest form, no surrogate, at most U+10FFFF),
// and U+FFFD otherwise.
struct ref_char {
  std::size_t byte;  // where the char starts
  std::size_t len;   // its bytes
  char32_t cp;
};
inline char32_t ref_value(std::string_view bytes) {
  const auto b = [&](std::size_t i) { return static_cast<unsigned char>(bytes[i]); };
  std::size_t want;
  char32_t cp;
  if (b(0) < 0x80) {
    want = 1;
    cp = b(0);
  } else if ((b(0) >> 5) == 0x6) {
    want = 2;
    cp = b(0) & 0x1F;
  } else if ((b(0) >> 4) == 0xE) {
    want = 3;
    cp = b(0) & 0x0F;
  } else if ((b(0) >> 3) == 0x1E) {
    want = 4;
    cp = b(0) & 0x07;
  } else {
    return 0xFFFD;
  }
  if (bytes.size() != want) return 0xFFFD;
  for (std::size_t i = 1; i < want; ++i) {
    if ((b(i) >> 6) != 0x2) return 0xFFFD;
    cp = (cp << 6) | (b(i) & 0x3F);
  }
  const std::size_t shortest = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
  if (shortest != want || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return 0xFFFD;
  return cp;
}
inline std::vector<ref_char> reference_chars(std::string_view s) {
  std::vector<ref_char> out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (!is_char_byte(s[i])) {
      if (!out.empty()) ++out.back().len;  // continuation bytes before the first char start none
      continue;
    }
    out.push_back({i, 1, 0});
  }
  for (ref_char& c : out) c.cp = ref_value(s.substr(c.byte, c.len));
  return out;
}
// Whether s is well-formed UTF-8 as a whole: no byte before the first char,
// every char a valid value (a U+FFFD written out is valid).
inline bool reference_valid(std::string_view s) {
  if (!s.empty() && !is_char_byte(s[0])) return false;
  for (const ref_char& c : reference_chars(s))
    if (c.cp == 0xFFFD && s.substr(c.byte, c.len) != "\xEF\xBF\xBD") return false;
  return true;
}
// A position that splits no char: 0, s.size(), or the start of a char.
inline bool reference_boundary(std::string_view s, std::size_t pos) {
  return pos == 0 || pos >= s.size() || is_char_byte(s[pos]);
}

// chars(), chars_at, char_at, is_char_boundary and the lines both ways,
// against the reference: full walks forward and backward when `all`, else
// `probes` random char indexes (each read and walked a few chars both ways).
inline void expect_chars(const fl::rope& r, const std::string& s, std::mt19937_64& rng, int probes,
                         bool all, const std::string& ctx) {
  const std::vector<ref_char> want = reference_chars(s);
  ASSERT_EQ(r.char_count(), want.size()) << ctx;
  if (all) {
    std::size_t k = 0;
    for (auto it = r.chars().begin(); it != r.chars().end(); ++it, ++k) {
      ASSERT_LT(k, want.size()) << ctx;
      ASSERT_EQ(it.index(), want[k].byte) << ctx << " char " << k;
      ASSERT_EQ(static_cast<std::uint32_t>(*it), static_cast<std::uint32_t>(want[k].cp))
          << ctx << " char " << k;
    }
    ASSERT_EQ(k, want.size()) << ctx;
    const fl::rope::char_range all_chars = r.chars();
    for (auto it = all_chars.end(); it != all_chars.begin();) {
      --it;
      --k;
      ASSERT_EQ(it.index(), want[k].byte) << ctx << " back, char " << k;
      ASSERT_EQ(static_cast<std::uint32_t>(*it), static_cast<std::uint32_t>(want[k].cp))
          << ctx << " back, char " << k;
    }
    ASSERT_EQ(k, 0u) << ctx;
    for (std::size_t i = 0; i < want.size(); ++i)
      ASSERT_EQ(static_cast<std::uint32_t>(r.char_at(i)), static_cast<std::uint32_t>(want[i].cp))
          << ctx << " char_at " << i;
    for (std::size_t pos = 0; pos <= s.size() + 1; ++pos)
      ASSERT_EQ(r.is_char_boundary(pos), pos <= s.size() && reference_boundary(s, pos))
          << ctx << " pos " << pos;
    // Lines: backward (reverse iterators) is forward reversed, and both
    // are the text cut after each '\n'.
    std::vector<std::string> lines(1);
    for (char c : s) {
      lines.back() += c;
      if (c == '\n') lines.emplace_back();
    }
    std::size_t li = 0;
    for (const fl::rope& line : r.lines()) {
      ASSERT_LT(li, lines.size()) << ctx;
      ASSERT_EQ(line.to_std(), lines[li]) << ctx << " line " << li;
      ++li;
    }
    ASSERT_EQ(li, lines.size()) << ctx;
    const fl::rope::line_range rl = r.lines();
    for (auto it = rl.rbegin(); it != rl.rend(); ++it) {
      --li;
      ASSERT_EQ((*it).to_std(), lines[li]) << ctx << " back, line " << li;
    }
    ASSERT_EQ(li, 0u) << ctx;
  }
  for (int p = 0; p < probes && !want.empty(); ++p) {
    const std::size_t i = pick(rng, want.size());
    ASSERT_EQ(static_cast<std::uint32_t>(r.char_at(i)), static_cast<std::uint32_t>(want[i].cp))
        << ctx << " char_at " << i;
    auto it = r.chars_at(i).begin();
    for (std::size_t k = i; k < std::min(i + 4, want.size()); ++k, ++it)
      ASSERT_EQ(static_cast<std::uint32_t>(*it), static_cast<std::uint32_t>(want[k].cp))
          << ctx << " chars_at " << i << " + " << k - i;
    it = r.chars_at(i).begin();
    for (std::size_t k = i; k > 0 && k + 4 > i;) {
      --it;
      --k;
      ASSERT_EQ(it.index(), want[k].byte) << ctx << " chars_at " << i << " back to " << k;
      ASSERT_EQ(static_cast<std::uint32_t>(*it), static_cast<std::uint32_t>(want[k].cp))
          << ctx << " chars_at " << i << " back to " << k;
    }
    const std::size_t pos = pick(rng, s.size() + 1);
    ASSERT_EQ(r.is_char_boundary(pos), reference_boundary(s, pos)) << ctx << " pos " << pos;
  }
  ASSERT_THROW((void)r.char_at(want.size()), std::out_of_range) << ctx;
  ASSERT_THROW((void)r.chars_at(want.size() + 1), std::out_of_range) << ctx;
  ASSERT_TRUE(r.chars_at(want.size()).begin() == r.chars().end()) << ctx;
}

// A checked byte edit (replace_checked, insert_checked or erase_checked by
// `how`) on r and its mirror s: applied to both when both ends of the range
// are char boundaries and the text is well-formed (by the reference), else
// it must throw std::invalid_argument and leave r unchanged.
inline void checked_edit(fl::rope& r, std::string& s, std::size_t pos, std::size_t n,
                         const std::string& text, int how, const std::string& ctx) {
  if (how == 1) n = 0;
  const std::string ins = how == 2 ? std::string() : text;
  const std::size_t end = pos + std::min(n, s.size() - pos);
  const bool ok = reference_boundary(s, pos) && reference_boundary(s, end) && reference_valid(ins);
  const auto edit = [&] {
    if (how == 1) {
      r.insert_checked(pos, ins);
    } else if (how == 2) {
      r.erase_checked(pos, n);
    } else {
      r.replace_checked(pos, n, ins);
    }
  };
  if (ok) {
    ASSERT_NO_THROW(edit()) << ctx << " checked edit " << how << " at " << pos << " n " << n;
    s.replace(pos, end - pos, ins);
  } else {
    ASSERT_THROW(edit(), std::invalid_argument)
        << ctx << " checked edit " << how << " at " << pos << " n " << n;
  }
  ASSERT_EQ(r.to_std(), s) << ctx << " checked edit " << how;
}

// ---------------------------------------------------------------- typing

// Keystrokes at a cursor, as an editor sends them, applied to r and its
// mirror s: runs of chars typed at the cursor (1-4 UTF-8 bytes, newlines),
// backspaces and forward deletes, a selection typed over, by char or by
// UTF-16 unit; now and then a jump of the cursor, an edit by byte at the
// cursor (which drops what an edit by char left for the next one), or a
// copy of the rope kept (its chunks shared: the next edit copies). After
// every step: the invariants, the content and every metric (all positions
// while the text is small).
inline void type_at_cursor(fl::rope& r, std::string& s, std::mt19937_64& rng, int steps,
                           const std::string& ctx) {
  static constexpr std::string_view keys[] = {"a", "b", " ", "\n", "\xC3\xA9", "\xE2\x82\xAC",
                                              "\xF0\x9F\x98\x80", "x", "\r\n", "\t"};
  std::size_t cursor = 0;  // in chars
  fl::rope kept;
  for (int step = 0; step < steps; ++step) {
    const std::string at = ctx + " step " + std::to_string(step);
    const naive_metrics m(s);
    const std::size_t chars = m.char_at.size() - 1;
    cursor = std::min(cursor, chars);
    const bool by_unit = pick(rng, 3) == 0;
    const std::size_t what = pick(rng, 100);
    std::size_t del = 0;
    std::string ins;
    std::size_t from = cursor;
    if (what < 60) {  // typing
      ins = keys[pick(rng, std::size(keys))];
    } else if (what < 78) {  // backspace
      if (cursor == 0) continue;
      from = cursor - 1;
      del = 1;
    } else if (what < 84) {  // forward delete
      del = 1;
    } else if (what < 88) {  // a selection typed over
      del = pick(rng, 8);
      ins = random_utf8(rng, pick(rng, 6));
    } else if (what < 94) {  // the cursor jumps
      cursor = pick(rng, chars + 1);
      continue;
    } else if (what < 97) {  // an edit by byte at the cursor
      const std::string text = random_utf8(rng, pick(rng, 3) + 1);
      r.insert(m.char_at[cursor], text);
      s.insert(m.char_at[cursor], text);
      cursor = naive_metrics(s).chars[m.char_at[cursor] + text.size()];
    } else {  // a copy kept: the next edit meets shared chunks
      kept = r;
      continue;
    }
    if (what < 88) {
      if (by_unit) {
        const std::size_t u = m.units[m.char_at[from]];
        // The units of the chars deleted (a surrogate pair counts two).
        const std::size_t end = m.char_at[std::min(from + del, chars)];
        const std::size_t n = m.units[end] - u;
        r.replace_utf16(u, n, ins);
        s.replace(m.char_at[from], end - m.char_at[from], ins);
      } else {
        const auto [b, e] = naive_char_range(s, from, del);
        r.replace_chars(from, del, ins);
        s.replace(b, e - b, ins);
      }
      cursor = from + naive_metrics(ins).chars.back();
    }
    fl::detail::check_invariants(r);
    expect_content(r, s, at);
    if (::testing::Test::HasFatalFailure()) return;
    expect_metrics(r, s, rng, 4, s.size() < 200, at);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

}  // namespace rope_test
