// libFuzzer target: the rope's code points, checked edits and anchors
// against a model (a std::string, a plain decoder and a list of anchor
// positions). After every step the chars read every way (chars() forward
// and backward, chars_at, char_at) must be the model's, is_char_boundary
// must agree with the model's lead bytes, and every anchor must sit where
// the rules of rope.hpp "anchors" put it. A checked edit must be refused
// exactly when an end of its range splits a char or its text is not
// well-formed UTF-8 (std::invalid_argument; pos > size(): out_of_range),
// and a refused edit must change nothing. Built with the rope of 16-byte
// leaves (rope_chars_fuzz.cmake), so short texts already make deep trees.
//
// Input layout: a sequence of steps; each takes an opcode byte, two
// position bytes, a length byte, a bias/kind byte, and then `length` bytes
// that make the text (raw bytes, or one UTF-8 piece per byte, a few of them
// ill-formed). Texts are kept under 4 KiB.
#include <fl/detail/rope_debug.hpp>
#include <fl/rope.hpp>

#include "fuzz_input.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr std::size_t max_text = 1 << 12;
constexpr std::size_t max_anchors = 24;

using fl_fuzz::check;
using fl_fuzz::reader;

bool continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// The model's decoder: the value of the char whose bytes are s[i, j) (a
// lead byte and the continuation bytes after it), or U+FFFD when they are
// not exactly one well-formed sequence (RFC 3629).
char32_t decode(std::string_view s, std::size_t i, std::size_t j) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char lead = b(i);
  std::size_t len = 0;
  char32_t cp = 0;
  if (lead < 0x80) return j - i == 1 ? lead : 0xFFFD;  // an ASCII byte is a whole char
  if (lead >= 0xC2 && lead <= 0xDF)
    len = 2, cp = lead & 0x1Fu;
  else if (lead >= 0xE0 && lead <= 0xEF)
    len = 3, cp = lead & 0x0Fu;
  else if (lead >= 0xF0 && lead <= 0xF4)
    len = 4, cp = lead & 0x07u;
  else
    return 0xFFFD;
  if (j - i != len) return 0xFFFD;
  for (std::size_t k = i + 1; k < j; ++k) cp = cp << 6 | (b(k) & 0x3Fu);
  const char32_t least = len == 2 ? 0x80 : len == 3 ? 0x800 : 0x10000;
  if (cp < least || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0xFFFD;
  return cp;
}

struct model_char {
  std::size_t at;  // its first byte
  char32_t cp;
};

// Every char of s in order: each byte that is not a continuation byte
// starts one; continuation bytes before the first start none.
std::vector<model_char> model_chars(std::string_view s) {
  std::vector<model_char> out;
  std::size_t i = 0;
  while (i < s.size() && continuation(s[i])) ++i;
  while (i < s.size()) {
    std::size_t j = i + 1;
    while (j < s.size() && continuation(s[j])) ++j;
    out.push_back({i, decode(s, i, j)});
    i = j;
  }
  return out;
}

// Whether text is well-formed UTF-8: no stray continuation byte first, and
// every char decodes to itself (an encoded U+FFFD is three bytes long).
bool well_formed(std::string_view t) {
  if (!t.empty() && continuation(t.front())) return false;
  for (const model_char& c : model_chars(t)) {
    std::size_t j = c.at + 1;
    while (j < t.size() && continuation(t[j])) ++j;
    if (c.cp == 0xFFFD && t.substr(c.at, j - c.at) != "\xEF\xBF\xBD") return false;
  }
  return true;
}

bool model_boundary(std::string_view s, std::size_t pos) {
  return pos == 0 || pos == s.size() || (pos < s.size() && !continuation(s[pos]));
}

// Pieces a text is made of in the UTF-8 mode: mostly well-formed chars of
// each length, then a stray continuation byte, a truncated sequence, a
// surrogate, an overlong form and a code point past U+10FFFF.
constexpr std::string_view pieces[] = {
    "a",
    "\n",
    "\xC3\xA9",
    "\xE2\x82\xAC",
    "\xF0\x9F\x98\x80",
    "\xEF\xBF\xBD",
    "z",
    "\xE4\xB8\xAD",
    "\x80",
    "\xE2\x82",
    "\xED\xA0\x80",
    "\xC0\xAF",
    "\xF4\x90\x80\x80",
};
constexpr std::size_t valid_pieces = 8;

std::string make_text(reader& in, std::size_t len, unsigned kind) {
  const std::string_view raw = in.text(len);
  if (kind % 2 == 0) return std::string(raw);
  std::string t;
  for (char c : raw) {
    const auto v = static_cast<unsigned char>(c);
    // One byte in eight may pick an ill-formed piece; the others pick valid ones.
    const std::size_t k = v % 8 == 0 ? valid_pieces + (v >> 3) % (std::size(pieces) - valid_pieces)
                                     : (v >> 3) % valid_pieces;
    t += pieces[k];
  }
  return t;
}

struct model_anchor {
  fl::rope::anchor handle;
  std::size_t pos;
  fl::rope::bias bias;
};

// The model's edit: bytes [pos, pos + n) of s become t; the anchors move.
void model_edit(std::string& s, std::vector<model_anchor>& anchors, std::size_t pos, std::size_t n,
                std::string_view t) {
  n = std::min(n, s.size() - pos);
  s.replace(pos, n, t);
  for (model_anchor& a : anchors) {
    if (a.pos < pos) continue;
    if (a.pos <= pos + n)
      a.pos = a.bias == fl::rope::bias::before ? pos : pos + t.size();
    else
      a.pos = a.pos - n + t.size();
  }
}

void agree(const fl::rope& r, const std::string& s, const std::vector<model_anchor>& anchors) {
  fl::detail::check_invariants(r);
  check(r == std::string_view(s));
  const std::vector<model_char> want = model_chars(s);
  check(r.char_count() == want.size());
  // Forward, with each char's first byte.
  std::size_t k = 0;
  const fl::rope::char_range chars = r.chars();
  for (auto it = chars.begin(); it != chars.end(); ++it, ++k) {
    check(k < want.size());
    check(*it == want[k].cp && it.index() == want[k].at);
  }
  check(k == want.size());
  // Backward.
  for (auto it = chars.rbegin(); it != chars.rend(); ++it) {
    check(k > 0);
    --k;
    check(*it == want[k].cp);
  }
  check(k == 0);
  check(r.anchor_count() == anchors.size());
  for (const model_anchor& a : anchors) {
    check(r.holds(a.handle) && a.handle.bias() == a.bias);
    check(r.position(a.handle) == a.pos);
  }
}

// Reads around one place: char_at, chars_at(i) forward and back past its
// start, is_char_boundary at pos (also past the end).
void probe(const fl::rope& r, const std::string& s, std::size_t raw, unsigned steps) {
  const std::vector<model_char> want = model_chars(s);
  const std::size_t i = want.empty() ? 0 : raw % (want.size() + 1);
  if (i < want.size()) check(r.char_at(i) == want[i].cp);
  bool threw = false;
  try {
    (void)r.char_at(want.size());
  } catch (const std::out_of_range&) { threw = true; }
  check(threw);
  const fl::rope::char_range from = r.chars_at(i);
  auto it = from.begin();
  std::size_t k = i;
  for (unsigned n = 0; n < steps && it != from.end(); ++n, ++it, ++k)
    check(*it == want[k].cp && it.index() == want[k].at);
  for (unsigned n = 0; n < 2 * steps && k > 0; ++n) {
    --it;
    --k;
    check(*it == want[k].cp && it.index() == want[k].at);
  }
  const std::size_t pos = raw % (s.size() + 3);  // a few past the end too
  check(r.is_char_boundary(pos) == model_boundary(s, pos));
}

enum class outcome { done, refused, out_of_range };

// A checked edit on the rope; what the model says it must do.
outcome expected(const std::string& s, std::size_t pos, std::size_t n, std::string_view t) {
  if (pos > s.size()) return outcome::out_of_range;
  const std::size_t end = pos + std::min(n, s.size() - pos);
  if (!model_boundary(s, pos) || !model_boundary(s, end) || !well_formed(t))
    return outcome::refused;
  return outcome::done;
}

template <class Edit>
outcome attempt(Edit edit) {
  try {
    edit();
  } catch (const std::invalid_argument&) {
    return outcome::refused;
  } catch (const std::out_of_range&) { return outcome::out_of_range; }
  return outcome::done;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fl::rope r;
  std::string s;
  std::vector<model_anchor> anchors;
  fl_fuzz::for_each_step(data, size, [&](std::uint8_t op, reader& in) {
    const std::size_t raw = in.u16();
    const std::size_t len = in.byte();
    const unsigned kind = in.byte();
    const std::string t = make_text(in, len, kind);
    // Mostly inside the text; one position in 16 up to 4 bytes past it.
    const std::size_t pos = raw % 16 == 15 ? s.size() + raw % 5 : raw % (s.size() + 1);
    const std::size_t n = kind >> 1 & 0x1F;
    if (s.size() + t.size() > max_text) return;
    const unsigned o = op % 10u;
    switch (o) {
      case 0:  // unchecked edits: any bytes, any place (pos <= size())
      case 1: {
        const std::size_t at = std::min(pos, s.size());
        if (o == 0)
          r.insert(at, t);
        else
          r.replace(at, n, t);
        model_edit(s, anchors, at, o == 0 ? 0 : n, t);
        break;
      }
      case 2: {
        const std::size_t at = std::min(pos, s.size());
        r.erase(at, n);
        model_edit(s, anchors, at, n, {});
        break;
      }
      case 3:  // the checked edits, anywhere (pos may be past the end)
      case 4:
      case 5: {
        const std::size_t cut = o == 3 ? 0 : n;
        const std::string_view text = o == 4 ? std::string_view() : std::string_view(t);
        const outcome want = expected(s, pos, cut, text);
        const outcome got = attempt([&] {
          if (o == 3)
            r.insert_checked(pos, text);
          else if (o == 4)
            r.erase_checked(pos, cut);
          else
            r.replace_checked(pos, cut, text);
        });
        check(got == want);
        if (got == outcome::done) model_edit(s, anchors, pos, cut, text);
        break;
      }
      case 6:
        if (anchors.size() < max_anchors && pos <= s.size()) {
          const auto b = kind >> 6 & 1 ? fl::rope::bias::after : fl::rope::bias::before;
          anchors.push_back({r.anchor_at(pos, b), pos, b});
        }
        break;
      case 7:
        if (!anchors.empty())
          anchors.erase(anchors.begin() + static_cast<std::ptrdiff_t>(raw % anchors.size()));
        break;
      case 8:  // a whole new text: each anchor keeps its offset, clamped
        r = std::string_view(t);
        s = t;
        for (model_anchor& a : anchors) a.pos = std::min(a.pos, s.size());
        break;
      default: probe(r, s, raw, kind % 8 + 1);
    }
    agree(r, s, anchors);
  });
  return 0;
}
