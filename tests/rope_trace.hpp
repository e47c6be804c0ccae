// tests/rope_trace.hpp: editing traces for fl::rope's replay tests and the
// rope/trace rows of fl_bench (header-only; the bench includes it too).
//
// A trace is what an editor did to a text, keystroke by keystroke: a list of
// transactions, each a list of patches (pos, del, ins) applied in order:
// delete `del` code points at code point `pos`, then insert `ins` there.
// Two sources:
//   - the public editing-traces corpus (gzipped JSON, read with zlib at run
//     time from FL_TRACE_DATA, else ../shared/data/traces beside the source
//     tree): load_trace(dir, name) and its ascii_only/ variant;
//   - generated_typing(): a keystroke trace made here from a fixed seed by a
//     typing model (runs of typed characters, backspaces, jumps of the
//     cursor, pastes, selections deleted, multi-cursor transactions), with
//     code points of one to four UTF-8 bytes, so that it runs everywhere.
//
// Threads: pure functions; nothing is shared.
#pragma once

#include "support/utf8.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fl_trace {

// One patch. The inserted text lives in the trace's `text` buffer, so a
// replay reads the patches as one dense array.
struct patch {
  std::uint32_t pos;   // code points (bytes in an ascii_only trace)
  std::uint32_t del;   // code points
  std::uint32_t ins_off;
  std::uint32_t ins_len;  // bytes of UTF-8
};

struct trace {
  std::string start, end;            // startContent, endContent (UTF-8)
  std::vector<patch> patches;        // in order
  std::vector<std::size_t> txn_end;  // transaction t is patches [txn_end[t-1], txn_end[t])
  std::string text;                  // every patch's inserted bytes
  std::string_view ins(const patch& p) const { return std::string_view(text).substr(p.ins_off, p.ins_len); }
};

// The directory of the real traces: FL_TRACE_DATA when set, else
// <source tree>/../shared/data/traces (source_dir is the project root);
// nullopt when it holds no automerge-paper.json.gz.
inline std::optional<std::filesystem::path> data_dir(const std::filesystem::path& source_dir) {
  std::filesystem::path d;
  if (const char* env = std::getenv("FL_TRACE_DATA"); env && *env) {
    d = env;
  } else {
    d = source_dir / ".." / "shared" / "data" / "traces";
  }
  std::error_code ec;
  if (!std::filesystem::exists(d / "automerge-paper.json.gz", ec)) return std::nullopt;
  return d;
}

// The four traces of the corpus, by file name without .json.gz.
inline constexpr std::string_view real_traces[] = {"automerge-paper", "seph-blog1", "rustcode",
                                                   "sveltecomponent"};

namespace detail {

inline std::string gunzip(const std::filesystem::path& file) {
  gzFile f = gzopen(file.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot open " + file.string());
  std::string out;
  char buf[1 << 16];
  for (;;) {
    const int n = gzread(f, buf, sizeof buf);
    if (n < 0) {
      gzclose(f);
      throw std::runtime_error("cannot decompress " + file.string());
    }
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  gzclose(f);
  return out;
}

using fl_test::put_utf8;

// Just enough JSON for the corpus's files: objects, arrays, strings (all
// escapes, surrogate pairs joined), non-negative integers, and any other
// member skipped by value.
class reader {
 public:
  reader(std::string_view s, std::string what) : s_(s), what_(std::move(what)) {}

  trace parse() {
    trace t;
    object([&](const std::string& key) {
      if (key == "startContent") {
        t.start = string();
      } else if (key == "endContent") {
        t.end = string();
      } else if (key == "txns") {
        txns(t);
      } else {
        skip();
      }
    });
    return t;
  }

 private:
  // Reads an object: member(key) reads each member's value.
  template <class F>
  void object(F&& member) {
    expect('{');
    if (peek() != '}') {
      do {
        const std::string key = string();
        expect(':');
        member(key);
      } while (eat(','));
    }
    expect('}');
  }
  // Reads an array: element() reads each element.
  template <class F>
  void array(F&& element) {
    expect('[');
    if (eat(']')) return;
    do {
      element();
    } while (eat(','));
    expect(']');
  }
  void txns(trace& t) {
    array([&] {
      object([&](const std::string& key) { key == "patches" ? patches(t) : skip(); });
      t.txn_end.push_back(t.patches.size());
    });
  }
  // Each patch: [position, deleted, inserted text (optional)].
  void patches(trace& t) {
    array([&] {
      expect('[');
      patch p{};
      p.pos = static_cast<std::uint32_t>(number());
      expect(',');
      p.del = static_cast<std::uint32_t>(number());
      p.ins_off = static_cast<std::uint32_t>(t.text.size());
      if (eat(',')) t.text += string();
      p.ins_len = static_cast<std::uint32_t>(t.text.size() - p.ins_off);
      expect(']');
      t.patches.push_back(p);
    });
  }
  void skip() {
    const char c = peek();
    if (c == '"') {
      string();
    } else if (c == '{') {
      object([&](const std::string&) { skip(); });
    } else if (c == '[') {
      array([&] { skip(); });
    } else {
      while (i_ < s_.size() && s_[i_] != ',' && s_[i_] != '}' && s_[i_] != ']') ++i_;
    }
  }
  std::uint64_t number() {
    ws();
    if (i_ >= s_.size() || s_[i_] < '0' || s_[i_] > '9') fail("a number");
    std::uint64_t v = 0;
    while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') v = v * 10 + (s_[i_++] - '0');
    return v;
  }
  std::uint32_t hex4() {
    if (i_ + 4 > s_.size()) fail("four hex digits");
    std::uint32_t v = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = s_[i_++];
      v <<= 4;
      if (c >= '0' && c <= '9') {
        v |= static_cast<std::uint32_t>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        v |= static_cast<std::uint32_t>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        v |= static_cast<std::uint32_t>(c - 'A' + 10);
      } else {
        fail("a hex digit");
      }
    }
    return v;
  }
  std::string string() {
    expect('"');
    std::string out;
    for (;;) {
      if (i_ >= s_.size()) fail("the end of a string");
      const char c = s_[i_++];
      if (c == '"') return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i_ >= s_.size()) fail("an escape");
      switch (const char e = s_[i_++]) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u': {
          std::uint32_t cp = hex4();
          if (cp >= 0xD800 && cp < 0xDC00 && i_ + 1 < s_.size() && s_[i_] == '\\' &&
              s_[i_ + 1] == 'u') {
            const std::size_t save = i_;
            i_ += 2;
            const std::uint32_t lo = hex4();
            if (lo >= 0xDC00 && lo < 0xE000) {
              cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else {
              i_ = save;
            }
          }
          put_utf8(out, cp);
          break;
        }
        default: out += e; break;  // \" \\ \/
      }
    }
  }
  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t'))
      ++i_;
  }
  char peek() {
    ws();
    return i_ < s_.size() ? s_[i_] : '\0';
  }
  bool eat(char c) {
    if (peek() != c) return false;
    ++i_;
    return true;
  }
  void expect(char c) {
    if (!eat(c)) fail(std::string("'") + c + "'");
  }
  [[noreturn]] void fail(const std::string& wanted) {
    throw std::runtime_error(what_ + ": expected " + wanted + " at byte " + std::to_string(i_));
  }

  std::string_view s_;
  std::string what_;
  std::size_t i_ = 0;
};

}  // namespace detail

// Reads <dir>/<name>.json.gz (ascii: <dir>/ascii_only/<name>.json.gz).
// Throws std::runtime_error naming the file when it cannot be read.
inline trace load_trace(const std::filesystem::path& dir, std::string_view name, bool ascii) {
  const std::filesystem::path file =
      (ascii ? dir / "ascii_only" : dir) / (std::string(name) + ".json.gz");
  const std::string json = detail::gunzip(file);
  return detail::reader(json, file.string()).parse();
}

// Applies patches by code point to UTF-8 text held as code points in a gap
// buffer (the gap follows the edits, so typing costs O(1) and a jump the
// distance moved): the reference every replay is checked against,
// independent of fl::rope.
class reference_text {
 public:
  explicit reference_text(std::string_view utf8) {
    append_utf8(buf_, utf8);
    gap_ = buf_.size();
    gap_end_ = buf_.size();
  }
  std::size_t size() const { return buf_.size() - (gap_end_ - gap_); }
  void apply(std::size_t pos, std::size_t del, std::string_view ins) {
    if (pos > size() || del > size() - pos)
      throw std::out_of_range("reference_text: patch past the end");
    move_gap(pos);
    gap_end_ += del;
    std::u32string add;
    append_utf8(add, ins);
    if (gap_end_ - gap_ < add.size()) grow(add.size());
    std::copy(add.begin(), add.end(), buf_.begin() + static_cast<std::ptrdiff_t>(gap_));
    gap_ += add.size();
  }
  std::string utf8() const {
    std::string out;
    for (std::size_t i = 0; i < buf_.size(); ++i)
      if (i < gap_ || i >= gap_end_) detail::put_utf8(out, buf_[i]);
    return out;
  }

 private:
  void move_gap(std::size_t pos) {
    auto b = buf_.begin();
    const auto d = [](std::size_t x) { return static_cast<std::ptrdiff_t>(x); };
    if (pos < gap_) {
      std::copy_backward(b + d(pos), b + d(gap_), b + d(gap_end_));
      gap_end_ -= gap_ - pos;
      gap_ = pos;
    } else if (pos > gap_) {
      const std::size_t n = pos - gap_;
      std::copy(b + d(gap_end_), b + d(gap_end_ + n), b + d(gap_));
      gap_ += n;
      gap_end_ += n;
    }
  }
  void grow(std::size_t need) {
    const std::size_t tail = buf_.size() - gap_end_;
    const std::size_t more = std::max(need, buf_.size() / 2 + 64);
    buf_.resize(buf_.size() + more);
    std::copy_backward(buf_.begin() + static_cast<std::ptrdiff_t>(gap_end_),
                       buf_.begin() + static_cast<std::ptrdiff_t>(gap_end_ + tail), buf_.end());
    gap_end_ += more;
  }
  static void append_utf8(std::u32string& out, std::string_view s) {
    for (std::size_t i = 0; i < s.size();) {
      const auto b = static_cast<unsigned char>(s[i]);
      const std::size_t n = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
      char32_t cp = n == 1 ? b : n == 2 ? (b & 0x1F) : n == 3 ? (b & 0x0F) : (b & 0x07);
      for (std::size_t k = 1; k < n && i + k < s.size(); ++k)
        cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
      out += cp;
      i += n;
    }
  }
  std::u32string buf_;
  std::size_t gap_ = 0, gap_end_ = 0;  // buf_[gap_, gap_end_) is free
};

// A generated keystroke trace of `n_patches` patches (fixed seed: the same
// trace on every machine). The model: a cursor that types runs of
// characters (words of ASCII letters, with accented letters, CJK and emoji
// mixed in, and newlines), erases runs with backspace, jumps elsewhere now and
// then, pastes a few lines, deletes a selection, and sometimes types at two
// cursors in one transaction (patches in descending position order, as the
// corpus has them). endContent is computed by reference_text. With `ascii`,
// every character beyond ASCII is typed as '_' instead (the same patches,
// positions and all, like the corpus's ascii_only variants), so that byte
// positions equal code point positions.
inline trace generated_typing(std::size_t n_patches, bool ascii = false) {
  std::uint64_t state = 0x5eed'cafe'f00d'0001ULL;
  auto next = [&state] {  // splitmix64
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  };
  auto below = [&](std::uint64_t n) { return n ? static_cast<std::size_t>(next() % n) : 0; };
  static constexpr char32_t wide[] = {U'é', U'ü', U'ß', U'ñ', U'Ω', U'ж', U'→', U'€',
                                      U'中', U'文', U'字', U'😀', U'🚀', U'𝔸'};
  auto typed = [&]() -> char32_t {
    const std::size_t r = below(100);
    if (r < 3) return U'\n';
    if (r < 17) return U' ';
    if (r < 22) {
      const char32_t w = wide[below(std::size(wide))];
      return ascii ? U'_' : w;
    }
    if (r < 24) return U'\t';
    return static_cast<char32_t>(U'a' + below(26));
  };
  trace t;
  reference_text doc("");
  std::size_t cursor = 0;
  auto emit = [&](std::size_t pos, std::size_t del, const std::u32string& ins) {
    patch p{};
    p.pos = static_cast<std::uint32_t>(pos);
    p.del = static_cast<std::uint32_t>(del);
    p.ins_off = static_cast<std::uint32_t>(t.text.size());
    for (char32_t c : ins) detail::put_utf8(t.text, c);
    p.ins_len = static_cast<std::uint32_t>(t.text.size() - p.ins_off);
    doc.apply(pos, del, std::string_view(t.text).substr(p.ins_off, p.ins_len));
    t.patches.push_back(p);
  };
  auto end_txn = [&] { t.txn_end.push_back(t.patches.size()); };
  while (t.patches.size() < n_patches) {
    const std::size_t what = below(100);
    if (what < 70) {  // a run of typing
      for (std::size_t k = 1 + below(40); k-- && t.patches.size() < n_patches;) {
        emit(cursor, 0, std::u32string(1, typed()));
        ++cursor;
        end_txn();
      }
    } else if (what < 85) {  // a run of backspaces
      for (std::size_t k = 1 + below(30); k-- && cursor > 0 && t.patches.size() < n_patches;) {
        --cursor;
        emit(cursor, 1, {});
        end_txn();
      }
    } else if (what < 95) {  // the cursor jumps (no patch)
      cursor = below(doc.size() + 1);
    } else if (what < 97) {  // a paste of a few lines
      std::u32string paste;
      for (std::size_t k = 20 + below(300); k--;) paste += typed();
      emit(cursor, 0, paste);
      cursor += paste.size();
      end_txn();
    } else if (what < 99) {  // a selection deleted (sometimes typed over)
      const std::size_t del = below(std::min<std::size_t>(doc.size() - cursor, 200) + 1);
      std::u32string over;
      if (below(2)) over = std::u32string(1, typed());
      emit(cursor, del, over);
      cursor += over.size();
      end_txn();
    } else {  // two cursors type the same characters: one transaction
      const std::size_t other = below(doc.size() + 1);
      const std::size_t hi = std::max(other, cursor), lo = std::min(other, cursor);
      const std::u32string s(1, typed());
      emit(hi, 0, s);
      if (lo != hi) emit(lo, 0, s);
      end_txn();
      cursor += 1;
      if (cursor > doc.size()) cursor = doc.size();
    }
  }
  if (t.txn_end.empty() || t.txn_end.back() != t.patches.size()) end_txn();
  t.end = doc.utf8();
  return t;
}

// Number of patches of the generated trace in the benchmark and the
// release-build tests.
inline constexpr std::size_t gen_typing_patches = 150'000;

}  // namespace fl_trace
