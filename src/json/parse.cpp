// src/json/parse.cpp: JSON text into the store: json_error, the builder that
// lays parse events out as blocks, the strict RFC 8259 parser and the
// simdjson fast path.
//
// Two parsers accept the same language. simdjson (when found at build time)
// parses import() texts at several GB/s but reports an error only as a code;
// parse_strict is the reference: it names the byte offset and the reason of
// every error, and keeps numbers simdjson refuses (integers beyond 64 bits,
// doubles beyond DBL_MAX) as their text. Any text simdjson rejects is parsed
// again by parse_strict, which either throws the precise json_error or builds
// the document. tests/json_parse_test.cpp checks that both agree.
#include "json/json_internal.hpp"
#include "json/store_file.hpp"
#include "simd/vec.hpp"

#include <bit>
#include <charconv>
#include <cstdio>
#include <stdexcept>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <system_error>
#include <utility>

#if defined(FL_JSON_HAVE_SIMDJSON)
#include <simdjson.h>
#endif

namespace fl {
inline namespace FL_ABI_NS {

namespace {
std::string json_error_what(std::size_t offset, std::size_t line, std::size_t column,
                            const std::string& reason) {
  std::string w = "fl::json_error: at line ";
  w += std::to_string(line);
  w += ", column ";
  w += std::to_string(column);
  w += " (byte ";
  w += std::to_string(offset);
  w += "): ";
  w += reason;
  return w;
}
}  // namespace

json_error::json_error(std::size_t offset, std::size_t line, std::size_t column,
                       const std::string& reason)
    : std::runtime_error(json_error_what(offset, line, column, reason)),
      offset_(offset),
      line_(line),
      column_(column),
      reason_(reason) {}

namespace detail::json {

// ---- builder ---------------------------------------------------------------

unsigned char* add_block(byte_buffer& out, std::uint64_t base, std::vector<tail_block>& blocks,
                         std::uint64_t bytes, kind k, std::uint32_t n, std::uint64_t& at,
                         node_form node) {
  // The space's layout rule decides the block's size (persist_format.hpp).
  const std::uint64_t cs = fl::detail::class_size(fl::detail::payload_class(bytes));
  const std::size_t start = out.size();
  unsigned char* h = out.extend(static_cast<std::size_t>(cs));
  fl::detail::lay_live_block(h, bytes);
  at = base + start + 8;
  blocks.push_back({at, bytes, k, n, node});
  return h + 8;
}

void builder::spill() {
  const std::size_t bytes = out_.size(), count = own_blocks_ + blocks_.size();
  spill_(out_.data(), bytes, count);
  base_ += bytes;
  out_.clear();
  blocks_.clear();
  own_blocks_ = 0;
}

void builder::bytes(kind k, std::string_view s) {
  if (s.size() > std::numeric_limits<std::uint32_t>::max())
    throw std::length_error("fl::json_store: a string of 4 GiB or more");
  const auto n = static_cast<std::uint32_t>(s.size());
  std::uint64_t at = 0;
  if (n != 0) std::memcpy(block(n, k, n, at), s.data(), n);
  put(k, n, at);
}

void builder::uint64(std::uint64_t v) {
  if (v <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    int64(static_cast<std::int64_t>(v));
  } else {
    put(kind::uint64, 0, v);
  }
}

void builder::real(double d) {
  std::uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  put(kind::real, 0, bits);
}

void builder::number_text(std::string_view text) { bytes(kind::number_text, text); }

void builder::key(std::string_view k) {
  if (k.size() > std::numeric_limits<std::uint32_t>::max())
    throw std::length_error("fl::json_store: a key of 4 GiB or more");
  static_assert(offsetof(json_member, key) == 0 && offsetof(json_member, key_len) == 8 &&
                offsetof(json_member, pad) == 12);
  store_halves(&scratch_.emplace_back(), keys_.size(), k.size());  // key, key_len, pad 0
  keys_.append(k);
}

void builder::end_array() {
  // The frame's fields read one by one: a copy of the whole frame, loaded
  // wider than the stores that pushed it, stalls (the stores cannot forward
  // to it) when the array is small and begin_array() was just before.
  const frame& top = frames_.back();
  const std::size_t first = top.first;
  const bool tree = top.tree;
  const std::size_t n = scratch_.size() - first;
  json_ref r{static_cast<std::uint8_t>(kind::array), {}, static_cast<std::uint32_t>(n), 0};
  if (tree || (rules_.trees && n > shape_.leaf_max)) {
    flush_entries();  // the elements not yet in the tree (the tree itself, if none yet)
    tree_loader& t = std::get<tree_loader>(open_trees_.back());
    if (t.size() > std::numeric_limits<std::uint32_t>::max())
      throw std::length_error("fl::json_store: an array of 2^32 elements or more");
    r = {static_cast<std::uint8_t>(kind::array), {}, static_cast<std::uint32_t>(t.size()),
         t.finish(sink())};
    r.set_tree(true);
    open_trees_.pop_back();
  } else if (n != 0) {
    unsigned char* dst =
        block(n * sizeof(json_ref), kind::array, static_cast<std::uint32_t>(n), r.x);
    for (std::size_t i = 0; i < n; ++i)
      std::memcpy(dst + i * sizeof(json_ref), &scratch_[first + i].value, sizeof(json_ref));
  }
  scratch_.resize(first);
  frames_.pop_back();
  put(r);
}

void builder::flush_entries() {
  frame& f = frames_.back();
  if (!f.tree) {
    f.tree = true;
    if (f.object)
      open_trees_.emplace_back(std::in_place_type<object_loader>, shape_,
                               spill_ ? &scratch_dir_ : nullptr, rules_);
    else
      open_trees_.emplace_back(std::in_place_type<tree_loader>, store_file::array_tree, shape_);
  }
  open_tree& t = open_trees_.back();
  const json_member* m = scratch_.data() + f.first;
  const std::size_t n = scratch_.size() - f.first;
  if (f.object) {
    std::get<object_loader>(t).add(sink(), m, n, keys_);
    keys_.resize(f.keys);  // the loader has them
  } else {
    // The elements' refs, out of their scratch entries, a node's worth at a time.
    json_ref batch[256];
    for (std::size_t done = 0; done < n;) {
      const std::size_t b = std::min<std::size_t>(n - done, std::size(batch));
      for (std::size_t i = 0; i < b; ++i) batch[i] = m[done + i].value;
      std::get<tree_loader>(t).add(sink(), batch, b);
      done += b;
    }
  }
  scratch_.resize(f.first);
}

void builder::write_index(std::uint32_t* index, const json_member* m, std::uint32_t n,
                          std::string_view keys, std::size_t first_key) {
  // Equal concatenations with equal lengths are equal keys.
  const auto same = [&](const index_shape& s) {
    if (s.index.size() != n || s.keys != keys) return false;
    for (std::uint32_t i = 0; i < n; ++i)
      if (s.lens[i] != m[i].key_len) return false;
    return true;
  };
  for (const index_shape& s : shapes_) {
    if (same(s)) {
      std::memcpy(index, s.index.data(), n * sizeof(std::uint32_t));
      return;
    }
  }
  write_member_index(index, n, [&](std::uint32_t i) {
    return std::string_view(keys.data() + (m[i].key - first_key), m[i].key_len);
  });
  index_shape& s = shapes_[next_shape_++ % shapes_.size()];
  s.keys.assign(keys);
  s.lens.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) s.lens[i] = m[i].key_len;
  s.index.assign(index, index + n);
}

void builder::end_object() {
  // Read field by field, as in end_array().
  const frame& top = frames_.back();
  const std::size_t first = top.first, first_key = top.keys;
  const bool tree = top.tree;
  const auto n = static_cast<std::uint32_t>(scratch_.size() - first);
  json_ref r{static_cast<std::uint8_t>(kind::object), {}, n, 0};
  if (tree || (rules_.object_trees && n > shape_.leaf_max)) {
    flush_entries();  // the members not yet in the tree (the tree itself, if none yet)
    r = std::get<object_loader>(open_trees_.back()).finish([&] {
      spill_if_full();
      return sink();
    });
    open_trees_.pop_back();
  } else if (n != 0) {
    const std::size_t table = n * sizeof(json_member);
    const std::size_t index_bytes = n >= index_min_members ? n * sizeof(std::uint32_t) : 0;
    const std::size_t key_bytes = keys_.size() - first_key;
    unsigned char* dst = block(table + index_bytes + key_bytes, kind::object, n, r.x);
    json_member* m = scratch_.data() + first;
    const char* keys = keys_.data() + first_key;
    if (index_bytes)
      write_index(reinterpret_cast<std::uint32_t*>(dst + table), m, n,
                  std::string_view(keys, key_bytes), first_key);
    if (key_bytes) std::memcpy(dst + table + index_bytes, keys, key_bytes);
    // Each member copied whole, then its key offset rebased in place: a copy
    // edited on the stack first made the compiler store it in halves and
    // load it whole (a store-forwarding stall per member, 44% of this
    // function's samples on twitter.json).
    const std::uint64_t rebase = r.x + table + index_bytes - first_key;
    for (std::uint32_t i = 0; i < n; ++i) {
      unsigned char* d = dst + i * sizeof(json_member);
      std::memcpy(d, &m[i], sizeof(json_member));
      const std::uint64_t key = m[i].key + rebase;
      std::memcpy(d + offsetof(json_member, key), &key, sizeof key);
    }
  }
  keys_.resize(first_key);
  scratch_.resize(first);
  frames_.pop_back();
  put(r);
}

// ---- the strict parser ------------------------------------------------------

namespace {

// `Sink` takes the values as they are read: a builder, or check_json's
// sink that keeps nothing.
template <class Sink>
class strict_parser {
 public:
  strict_parser(std::string_view text, Sink& out) noexcept
      : b_(reinterpret_cast<const unsigned char*>(text.data())),
        p_(b_),
        e_(b_ + text.size()),
        out_(out) {}

  void run() {
    if (e_ - b_ >= 3 && b_[0] == 0xEF && b_[1] == 0xBB && b_[2] == 0xBF)
      fail(b_, "byte order mark (U+FEFF) is not allowed");
    ws();
    if (p_ == e_) fail(p_, "expected a JSON value, found the end of the text");
    value();
    ws();
    if (p_ != e_) fail(p_, "unexpected text after the JSON value");
  }

 private:
  // The error path only, so the line is found by scanning the text before
  // `at` rather than by counting newlines on every ws() (which would tax
  // every valid parse for the sake of the invalid ones).
  [[noreturn]] void fail(const unsigned char* at, const std::string& reason) const {
    std::size_t line = 1;
    const unsigned char* line_start = b_;
    for (const unsigned char* q = b_; q != at; ++q) {
      if (*q == '\n') {
        ++line;
        line_start = q + 1;
      }
    }
    throw json_error(static_cast<std::size_t>(at - b_), line,
                     static_cast<std::size_t>(at - line_start) + 1, reason);
  }
  static bool is_ws(unsigned char c) noexcept {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
  }
  // Most values follow no white space, or one byte of it; indentation
  // runs longer and is skipped 16 bytes at a time.
  void ws() noexcept {
    if (p_ == e_ || !is_ws(*p_)) return;
    ++p_;
    using V = fl::detail::v128;
    while (e_ - p_ >= static_cast<std::ptrdiff_t>(V::width)) {
      const V::reg v = V::load(p_);
      const V::reg blank = V::or_(V::or_(V::eq(v, V::splat(' ')), V::eq(v, V::splat('\n'))),
                                  V::or_(V::eq(v, V::splat('\r')), V::eq(v, V::splat('\t'))));
      const std::uint32_t other = ~V::mask(blank) & V::full;
      if (other != 0) {
        p_ += std::countr_zero(other);
        return;
      }
      p_ += V::width;
    }
    while (p_ != e_ && is_ws(*p_)) ++p_;
  }
  void expect_more(const char* what) const {
    if (p_ == e_) fail(p_, std::string("unexpected end of the text: expected ") + what);
  }

  void value() {
    expect_more("a value");
    switch (*p_) {
      case '{': object(); return;
      case '[': array(); return;
      case '"': out_.string(string_body()); return;
      case 't':
        literal("true");
        out_.boolean(true);
        return;
      case 'f':
        literal("false");
        out_.boolean(false);
        return;
      case 'n':
        literal("null");
        out_.null_value();
        return;
      default:
        if (*p_ == '-' || (*p_ >= '0' && *p_ <= '9')) {
          number();
          return;
        }
        fail(p_, describe("expected a value, found"));
    }
  }

  std::string describe(const char* what) const {
    std::string s = what;
    const unsigned c = *p_;
    if (c >= 0x20 && c < 0x7F) {
      s += " '";
      s += static_cast<char>(c);
      s += '\'';
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, " 0x%02X", c);
      s += hex;
    }
    return s;
  }

  void enter() {
    if (++depth_ > max_depth)
      fail(p_, "nesting deeper than " + std::to_string(max_depth) + " levels");
  }

  // Steps over the opening '{' or '[' and the white space after it; true,
  // past `close` too, when the container is empty. `expected` names what may
  // come next, for the error at the end of the text.
  bool open_is_empty(char close, const char* expected) {
    ++p_;
    ws();
    expect_more(expected);
    if (*p_ != close) return false;
    ++p_;
    return true;
  }

  // After a member or an element: true past a ',' and the white space after
  // it (another one follows), false past `close`. `expected` and `found` are
  // the two errors: the end of the text, and any other byte.
  bool next_item(char close, const char* expected, const char* found) {
    ws();
    expect_more(expected);
    if (*p_ == ',') {
      ++p_;
      ws();
      return true;
    }
    if (*p_ != close) fail(p_, describe(found));
    ++p_;
    return false;
  }

  void object() {
    enter();
    out_.begin_object();
    if (!open_is_empty('}', "'}' or a member name")) {
      do {
        expect_more("a member name");
        if (*p_ != '"') fail(p_, describe("expected a member name (a string), found"));
        out_.key(string_body());
        ws();
        expect_more("':'");
        if (*p_ != ':') fail(p_, describe("expected ':' after a member name, found"));
        ++p_;
        ws();
        value();
      } while (next_item('}', "',' or '}'", "expected ',' or '}' in an object, found"));
    }
    out_.end_object();
    --depth_;
  }

  void array() {
    enter();
    out_.begin_array();
    if (!open_is_empty(']', "']' or a value")) {
      do {
        value();
      } while (next_item(']', "',' or ']'", "expected ',' or ']' in an array, found"));
    }
    out_.end_array();
    --depth_;
  }

  void literal(std::string_view word) {
    if (static_cast<std::size_t>(e_ - p_) < word.size() ||
        std::memcmp(p_, word.data(), word.size()) != 0) {
      // Point at the first byte that differs.
      std::size_t i = 0;
      while (p_ + i < e_ && i < word.size() && p_[i] == static_cast<unsigned char>(word[i])) ++i;
      fail(p_ + i, "invalid literal: expected '" + std::string(word) + "'");
    }
    p_ += word.size();
  }

  static std::uint32_t hex4(const unsigned char* q) noexcept {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const unsigned c = q[i];
      std::uint32_t d;
      if (c >= '0' && c <= '9')
        d = c - '0';
      else if (c >= 'a' && c <= 'f')
        d = c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        d = c - 'A' + 10;
      else
        return ~std::uint32_t{0};
      v = v * 16 + d;
    }
    return v;
  }

  std::uint32_t unicode_escape(const unsigned char* at) {
    // at points at '\\', at[1] == 'u'
    if (e_ - at < 6) fail(at, "invalid \\u escape: expected 4 hex digits");
    const std::uint32_t v = hex4(at + 2);
    if (v > 0xFFFF) fail(at, "invalid \\u escape: expected 4 hex digits");
    return v;
  }

  // The first byte at or after p that a string's plain run stops at: '"',
  // '\\', a control byte or a non-ASCII one (which leads a sequence to
  // validate), or e. 16 bytes at a time: as signed bytes, the controls and
  // every byte from 0x80 up are the ones below 0x20.
  static const unsigned char* plain_ascii_end(const unsigned char* p,
                                              const unsigned char* e) noexcept {
    using V = fl::detail::v128;
    while (e - p >= static_cast<std::ptrdiff_t>(V::width)) {
      const V::reg v = V::load(p);
      const V::reg stop = V::or_(V::or_(V::eq(v, V::splat('"')), V::eq(v, V::splat('\\'))),
                                 V::gt(V::splat(0x20), v));
      if (const std::uint32_t m = V::mask(stop)) return p + std::countr_zero(m);
      p += V::width;
    }
    while (p != e && *p != '"' && *p != '\\' && *p >= 0x20 && *p < 0x80) ++p;
    return p;
  }

  // Steps p_ over string bytes that need no decoding (printable ASCII and
  // well-formed UTF-8), to the first '"', '\\' or control byte, or the end
  // of the text; throws at the first byte that is not UTF-8.
  void skip_plain() {
    for (;;) {
      p_ = plain_ascii_end(p_, e_);
      if (p_ == e_ || *p_ < 0x80) return;
      do {
        const std::size_t n = utf8_sequence(p_, e_);
        if (n == 0) fail(p_, "invalid UTF-8 in a string");
        p_ += n;
      } while (p_ != e_ && *p_ >= 0x80);
    }
  }

  // The string starting at p_ (a '"'), decoded; p_ ends past the closing '"'.
  std::string_view string_body() {
    const unsigned char* start = ++p_;
    skip_plain();
    if (p_ != e_ && *p_ == '"') {
      // No escapes: the text's own bytes.
      std::string_view s(reinterpret_cast<const char*>(start),
                         static_cast<std::size_t>(p_ - start));
      ++p_;
      return s;
    }
    scratch_.assign(reinterpret_cast<const char*>(start), static_cast<std::size_t>(p_ - start));
    for (;;) {
      if (p_ == e_) fail(start - 1, "unterminated string");
      const unsigned c = *p_;
      if (c == '"') {
        ++p_;
        return scratch_;
      }
      if (c != '\\') fail(p_, "control character in a string (U+0000 to U+001F must be escaped)");
      if (e_ - p_ < 2) fail(p_, "unterminated escape");
      const unsigned char* at = p_;
      if (p_[1] == 'u') {
        std::uint32_t cp = unicode_escape(at);
        if (is_low_surrogate(cp)) fail(at, "lone low surrogate \\u escape");
        if (is_high_surrogate(cp)) {
          if (e_ - at < 12 || at[6] != '\\' || at[7] != 'u')
            fail(at, "high surrogate \\u escape not followed by a low one");
          const std::uint32_t lo = unicode_escape(at + 6);
          if (!is_low_surrogate(lo))
            fail(at + 6, "high surrogate \\u escape not followed by a low one");
          cp = join_surrogates(cp, lo);
          p_ += 6;
        }
        append_utf8(scratch_, cp);
        p_ += 4;
      } else if (const char plain = unescape(static_cast<char>(p_[1]))) {
        scratch_ += plain;
      } else {
        fail(p_, "invalid escape (allowed: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
      }
      p_ += 2;
      const unsigned char* run = p_;
      skip_plain();
      scratch_.append(reinterpret_cast<const char*>(run), static_cast<std::size_t>(p_ - run));
    }
  }

  static bool digit(unsigned char c) noexcept { return c >= '0' && c <= '9'; }

  void number() {
    const unsigned char* start = p_;
    const bool negative = *p_ == '-';
    if (negative) ++p_;
    if (p_ == e_ || !digit(*p_)) fail(p_, "invalid number: expected a digit");
    const unsigned char* int_start = p_;
    // The integer part's value, accumulated as it is scanned: exact up to 19
    // digits (below 10^19 < 2^64), checked again below past that.
    std::uint64_t mag = 0;
    if (*p_ == '0') {
      ++p_;
      if (p_ != e_ && digit(*p_)) fail(p_, "invalid number: leading zero");
    } else {
      while (p_ != e_ && digit(*p_)) mag = mag * 10 + (*p_++ - '0');
    }
    const unsigned char* int_end = p_;
    bool integral = true;
    if (p_ != e_ && *p_ == '.') {
      ++p_;
      if (p_ == e_ || !digit(*p_)) fail(p_, "invalid number: expected a digit after '.'");
      while (p_ != e_ && digit(*p_)) ++p_;
      integral = false;
    }
    if (p_ != e_ && (*p_ == 'e' || *p_ == 'E')) {
      ++p_;
      if (p_ != e_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (p_ == e_ || !digit(*p_)) fail(p_, "invalid number: expected a digit in the exponent");
      while (p_ != e_ && digit(*p_)) ++p_;
      integral = false;
    }
    const std::string_view text(reinterpret_cast<const char*>(start),
                                static_cast<std::size_t>(p_ - start));
    if (integral) {
      // Up to 19 digits cannot overflow uint64; 20 may, and are added again
      // with the check.
      bool fits = int_end - int_start <= 19;
      if (int_end - int_start == 20) {
        fits = true;
        mag = 0;
        for (const unsigned char* q = int_start; fits && q != int_end; ++q) {
          const std::uint64_t d = *q - '0';
          if (mag > (std::numeric_limits<std::uint64_t>::max() - d) / 10)
            fits = false;
          else
            mag = mag * 10 + d;
        }
      }
      if (fits && !negative) {
        out_.uint64(mag);
        return;
      }
      if (fits && mag <= std::uint64_t{1} << 63) {
        out_.int64(static_cast<std::int64_t>(0 - mag));
        return;
      }
      out_.number_text(text);
      return;
    }
    double d = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), d);
    if (r.ec == std::errc() && std::isfinite(d)) {
      out_.real(d);
      return;
    }
    // Out of range: an underflow is the nearest double (0 or a subnormal); an
    // overflow is kept as text.
    const std::string z(text);
    d = std::strtod(z.c_str(), nullptr);
    if (std::isfinite(d))
      out_.real(d);
    else
      out_.number_text(text);
  }

  const unsigned char* b_;
  const unsigned char* p_;
  const unsigned char* e_;
  Sink& out_;
  std::uint32_t depth_ = 0;
  std::string scratch_;
};

#if defined(FL_JSON_HAVE_SIMDJSON)
// The document's tape, walked in order into `b`. simdjson's DOM is this
// array of 64-bit words (its doc/tape.md; dom::element reads it through the
// same fields): the top byte names the entry; '{' and '[' hold in their low
// 32 bits the index just past their closing entry; '"' the offset in the
// string buffer of a 32-bit length and the bytes; 'l', 'u' and 'd' are
// followed by a word holding the value. Read directly, a value costs a
// switch, where the element API's iterators, type queries and checked
// getters cost about twice the instructions (a sixth of an import's).
class tape_walker {
 public:
  tape_walker(const simdjson::dom::document& doc, builder& b) noexcept
      : tape_(doc.tape.get()), strings_(doc.string_buf.get()), b_(b) {}
  // The root value (the tape's first word is the root entry).
  void run() { value(1); }

 private:
  std::string_view string_at(std::uint64_t w) const noexcept {
    const std::uint8_t* p = strings_ + (w & payload_mask);
    std::uint32_t len;
    std::memcpy(&len, p, sizeof len);
    return {reinterpret_cast<const char*>(p + sizeof len), len};
  }
  // The value at tape index i; returns the index past it.
  std::size_t value(std::size_t i) {
    const std::uint64_t w = tape_[i];
    switch (static_cast<char>(w >> 56)) {
      case '{': {
        const std::size_t close = static_cast<std::uint32_t>(w) - 1;
        b_.begin_object();
        for (++i; i < close;) {
          b_.key(string_at(tape_[i]));
          i = value(i + 1);
        }
        b_.end_object();
        return close + 1;
      }
      case '[': {
        const std::size_t close = static_cast<std::uint32_t>(w) - 1;
        b_.begin_array();
        for (++i; i < close;) i = value(i);
        b_.end_array();
        return close + 1;
      }
      case '"': b_.string(string_at(w)); return i + 1;
      case 'l': b_.int64(static_cast<std::int64_t>(tape_[i + 1])); return i + 2;
      case 'u': b_.uint64(tape_[i + 1]); return i + 2;
      case 'd': b_.real(std::bit_cast<double>(tape_[i + 1])); return i + 2;
      case 't': b_.boolean(true); return i + 1;
      case 'f': b_.boolean(false); return i + 1;
      case 'n': b_.null_value(); return i + 1;
      default: throw std::logic_error("fl::json_store: simdjson's tape holds an unknown entry");
    }
  }
  static constexpr std::uint64_t payload_mask = (std::uint64_t{1} << 56) - 1;
  const std::uint64_t* tape_;
  const std::uint8_t* strings_;
  builder& b_;
};
#endif

}  // namespace

void append_utf8(std::string& out, std::uint32_t cp) {
  char bytes[4];
  out.append(bytes, utf8_encode(cp, bytes));
}

void parse_strict(std::string_view text, builder& b) { strict_parser<builder>(text, b).run(); }

void check_json(std::string_view text) {
  // The parser's events, each dropped.
  struct no_sink {
    void null_value() noexcept {}
    void boolean(bool) noexcept {}
    void int64(std::int64_t) noexcept {}
    void uint64(std::uint64_t) noexcept {}
    void real(double) noexcept {}
    void number_text(std::string_view) noexcept {}
    void string(std::string_view) noexcept {}
    void key(std::string_view) noexcept {}
    void begin_array() noexcept {}
    void begin_object() noexcept {}
    void end_array() noexcept {}
    void end_object() noexcept {}
  } sink;
  strict_parser<no_sink>(text, sink).run();
}

std::optional<json_ref> small_integer_ref(std::string_view text) noexcept {
  const bool negative = !text.empty() && text[0] == '-';
  const std::size_t first = negative ? 1 : 0, digits = text.size() - first;
  if (digits == 0 || digits > 18 || (text[first] == '0' && digits > 1)) return std::nullopt;
  std::uint64_t mag = 0;
  for (std::size_t i = first; i < text.size(); ++i) {
    const unsigned d = static_cast<unsigned char>(text[i]) - unsigned{'0'};
    if (d > 9) return std::nullopt;
    mag = mag * 10 + d;
  }
  // Below 10^18, so an int64 either way: the strict parser's value for the
  // same text ("-0" is 0, as there).
  return json_ref{static_cast<std::uint8_t>(kind::int64), {}, 0, negative ? 0 - mag : mag};
}

void parse_fast(std::string_view text, builder& b, const std::function<void()>& valid) {
  // Past this size a text is parsed in one pass by the strict parser as the
  // store is built: a DOM of it would take more memory than the text (and,
  // made anew for each such text, pay the first touch of every page of it),
  // while the builder streams to the file in bounded memory. `valid` then
  // runs before the text is known to be valid: an invalid one throws
  // json_error with the store's new space created, which its caller removes.
  constexpr std::size_t one_pass_min_bytes = std::size_t{64} << 20;
#if defined(FL_JSON_HAVE_SIMDJSON)
  // Below this size the strict parser is faster than simdjson's padded copy
  // and per-call setup.
  constexpr std::size_t simdjson_min_bytes = 512;
  if (text.size() >= simdjson_min_bytes && text.size() <= one_pass_min_bytes) {
    // The thread keeps its parser: its buffers, a few times the text, are
    // bounded by one_pass_min_bytes.
    thread_local simdjson::dom::parser parser;
    // simdjson reads up to SIMDJSON_PADDING bytes past the text (it never
    // uses them). When they lie in the page of the text's last byte they are
    // readable, and the parse reads the text in place; otherwise it copies
    // the text into a padded buffer of its own first (a pass over the whole
    // text, and memory of its size).
    const auto last = reinterpret_cast<std::uintptr_t>(text.data()) + text.size() - 1;
    constexpr std::uintptr_t min_page = 4096;  // the smallest page of any target
    const bool copy = last / min_page != (last + simdjson::SIMDJSON_PADDING) / min_page;
    simdjson::dom::element root;
    if (parser.parse(text.data(), text.size(), copy).get(root) == simdjson::SUCCESS) {
      if (valid) valid();
      tape_walker(parser.doc, b).run();
      return;
    }
  }
#endif
  // Small texts, and the rare ones simdjson refuses, are checked first,
  // then built for real.
  if (valid && text.size() <= one_pass_min_bytes) check_json(text);
  if (valid) valid();
  parse_strict(text, b);
}

}  // namespace detail::json
}  // namespace FL_ABI_NS
}  // namespace fl
