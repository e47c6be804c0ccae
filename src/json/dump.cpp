// src/json/dump.cpp: RFC 8259 text out of a json_store: a stored value's
// text (dump()), indented text (dump(indent)), and the number and string
// output that json_text's escaping shares.
#include "json/store_file.hpp"

#include "simd/vec.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <ostream>
#include <stdexcept>
#include <string>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {
namespace json {

namespace {
// Appends the n <= N bytes of `text`, a buffer of N bytes, with one copy of
// all N: a short number's text costs two stores, not a call to memcpy for
// a length known only at run time.
template <std::size_t N>
void append_short(byte_buffer& out, const char (&text)[N], std::size_t n) {
  unsigned char* w = out.extend(N);
  std::memcpy(w, text, N);
  out.truncate(out.size() - N + n);
}
}  // namespace

namespace {
// The shortest text that reads back as `d` (finite), an integral one with
// ".0" so that it reads back as a double; returns its length.
std::size_t double_text(double d, char (&buf)[32]) {
  const auto r = std::to_chars(buf, buf + sizeof buf, d);
  std::size_t n = static_cast<std::size_t>(r.ptr - buf);
  bool integral = true;
  for (std::size_t i = 0; i < n; ++i) {
    if (buf[i] == '.' || buf[i] == 'e') integral = false;
  }
  if (integral) {
    buf[n++] = '.';
    buf[n++] = '0';
  }
  return n;
}
}  // namespace

void dump_double(double d, byte_buffer& out) {
  char buf[32];
  append_short(out, buf, double_text(d, buf));
}

namespace {
// 0: copy; otherwise the character after '\' ('u' for \u00XX).
constexpr auto escape_table = [] {
  std::array<char, 256> t{};
  for (int c = 0; c < 0x20; ++c) t[static_cast<std::size_t>(c)] = 'u';
  t['\b'] = 'b';
  t['\f'] = 'f';
  t['\n'] = 'n';
  t['\r'] = 'r';
  t['\t'] = 't';
  t['"'] = '"';
  t['\\'] = '\\';
  return t;
}();

// The first of the eight bytes of `v` (in memory order) that needs an
// escape: below 0x20, '"' or '\\'; 8 when none does. (Per byte: x - k borrows
// into the top bit when x < k, and ~x keeps bytes of 0x80 and above out. A
// borrow only runs towards later bytes, so the first flag set is exact.)
constexpr unsigned first_escape8(std::uint64_t v) noexcept {
  constexpr std::uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
  const auto has_zero = [](std::uint64_t x) { return (x - ones) & ~x & highs; };
  const std::uint64_t below_space = (v - ones * 0x20) & ~v & highs;
  const std::uint64_t flags =
      below_space | has_zero(v ^ (ones * '"')) | has_zero(v ^ (ones * '\\'));
  return static_cast<unsigned>(std::countr_zero(flags)) / 8;  // 64 / 8 when none
}
static_assert(first_escape8(0x6867666564636261u) == 8 && first_escape8(0x68676665646322a1u) == 1 &&
              first_escape8(0x1f67666564636261u) == 7 && first_escape8(0x68676665645c6261u) == 2 &&
              first_escape8(0xffe0a0807f7e2120u) == 8 && first_escape8(0x2200000000000000u) == 0);

// The bytes of the sixteen at `p` that need an escape, a bit each (bit i
// for p[i]), on the SSE2 vector the parser scans strings with; the sixteen
// bytes in `v`.
using vec = fl::detail::v128;
inline std::uint32_t escapes16(const unsigned char* p, vec::reg& v) noexcept {
  v = vec::load(p);
  const vec::reg control = vec::eq(vec::max_u(v, vec::splat(0x1f)), vec::splat(0x1f));  // <= 0x1f
  return vec::mask(
      vec::or_(control, vec::or_(vec::eq(v, vec::splat('"')), vec::eq(v, vec::splat('\\')))));
}

// `s` as a JSON string (quoted, escaped) at `w`, which has room for the
// worst case, s.size() * 6 + 2 bytes (every byte as \u00XX); returns its
// end. The bytes before the next escape are found and copied a vector (or a
// word) at a time: most text needs no escape at all. A tail shorter than the
// vector is read as the string's last sixteen (or eight) bytes when the ones
// before it were copied as they are, so that they can be copied again: no
// read or write outside the string and its output, and short strings (keys)
// are not copied byte by byte.
unsigned char* write_string(std::string_view s, unsigned char* w) noexcept {
  *w++ = '"';
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* const e = p + s.size();
  // Bytes just before p copied as they are: the output just before w is
  // the input just before p.
  std::size_t verbatim = 0;
  while (p != e) {
    const std::size_t left = static_cast<std::size_t>(e - p);
    std::size_t run;   // bytes at p that need no escape, copied below
    std::size_t seen;  // bytes at p looked at: run < seen means p[run] needs one
    if (left >= vec::width || verbatim >= vec::width - left) {
      // Sixteen at p, or the last sixteen (then `back` of them again).
      const std::size_t back = left >= vec::width ? 0 : vec::width - left;
      vec::reg v;
      const std::uint32_t m = escapes16(p - back, v) >> back;
      std::memcpy(w - back, &v, sizeof v);
      seen = std::min(left, vec::width);
      run = m == 0 ? seen : static_cast<std::size_t>(std::countr_zero(m));
    } else if (left >= 8 || verbatim >= 8 - left) {
      const std::size_t back = left >= 8 ? 0 : 8 - left;
      std::uint64_t v;
      std::memcpy(&v, p - back, sizeof v);
      std::memcpy(w - back, &v, sizeof v);
      seen = std::min<std::size_t>(left, 8);
      // Bytes before p (the ones copied again) need no escape.
      run = std::min<std::size_t>(first_escape8(v) - back, seen);
    } else {
      seen = 1;
      run = escape_table[*p] == 0 ? 1 : 0;
      if (run) *w = *p;
    }
    p += run;
    w += run;
    verbatim += run;
    if (run == seen) continue;
    const unsigned char c = *p++;
    const char esc = escape_table[c];
    verbatim = 0;
    if (esc != 'u') {
      *w++ = '\\';
      *w++ = static_cast<unsigned char>(esc);
    } else {
      static constexpr char hex[] = "0123456789abcdef";
      *w++ = '\\';
      *w++ = 'u';
      *w++ = '0';
      *w++ = '0';
      *w++ = static_cast<unsigned char>(hex[c >> 4]);
      *w++ = static_cast<unsigned char>(hex[c & 15]);
    }
  }
  *w++ = '"';
  return w;
}
}  // namespace

void dump_string(std::string_view s, byte_buffer& out) {
  const std::size_t room = s.size() * 6 + 2;
  unsigned char* const w = out.extend(room);
  out.truncate(out.size() - room + static_cast<std::size_t>(write_string(s, w) - w));
}

void append_escaped(std::string& out, std::string_view s) {
  // Straight into `out`: a feed record escapes every edit's pointer, and a
  // json_text every string it is given (a scratch buffer here cost a 4 KiB
  // allocation each).
  const std::size_t at = out.size();
  out.resize(at + s.size() * 6 + 2);
  auto* const w = reinterpret_cast<unsigned char*>(out.data() + at);
  out.resize(at + static_cast<std::size_t>(write_string(s, w) - w));
}

void append_double(std::string& out, double d) {
  if (!std::isfinite(d)) throw std::domain_error("fl::json_text: JSON has no NaN or infinity");
  char buf[32];
  out.append(buf, double_text(d, buf));
}

namespace {

struct dumper {
  const store_file& f;
  byte_buffer& out;
  std::uint64_t budget;  // output bound of a tree (8 bytes of text per stored byte)

  void value(const json_ref& r, std::uint64_t limit, std::uint32_t depth) {
    switch (static_cast<kind>(r.k)) {
      case kind::null_v: out.append("null", 4); return;
      case kind::false_v: out.append("false", 5); return;
      case kind::true_v: out.append("true", 4); return;
      case kind::int64:
      case kind::uint64: {
        char buf[48];
        append_short(out, buf,
                     r.k == static_cast<std::uint8_t>(kind::int64)
                         ? integer_text(buf, static_cast<std::int64_t>(r.x))
                         : integer_text(buf, r.x));
        return;
      }
      case kind::real: {
        double d;
        std::memcpy(&d, &r.x, sizeof d);
        if (!std::isfinite(d)) f.damaged("a number that is not finite");
        dump_double(d, out);
        return;
      }
      case kind::number_text: out.append(f.bytes(r.x, r.n, limit), r.n); return;
      case kind::string:
        dump_string(std::string_view(reinterpret_cast<const char*>(f.bytes(r.x, r.n, limit)), r.n),
                    out);
        return;
      case kind::array:
        r.tree() ? tree_items(r, limit, depth) : flat_items(r, limit, depth);
        return;
      case kind::object:
        r.tree() ? tree_members(r, limit, depth) : flat_members(r, limit, depth);
        return;
    }
    f.damaged("a value of unknown kind");
  }
  // The r.n items of an array (Item = json_ref) or an object (json_member)
  // stored at r.x: `open`, the items separated by commas, each written by
  // write_item(its stored bytes), then `close`. Checks the depth before and
  // the output budget after.
  template <class Item, class WriteItem>
  void items(const json_ref& r, std::uint64_t limit, std::uint32_t depth, char open, char close,
             const WriteItem& write_item) {
    if (depth >= max_depth) f.damaged("nesting deeper than the format allows");
    const unsigned char* t = f.bytes(r.x, std::uint64_t{r.n} * sizeof(Item), limit);
    out.append(&open, 1);
    for (std::uint32_t i = 0; i < r.n; ++i) {
      if (i) out.append(",", 1);
      write_item(t + std::size_t{i} * sizeof(Item));
    }
    out.append(&close, 1);
    check_budget();
  }
  // A flat array's elements and a flat object's members, from their tables.
  void flat_items(const json_ref& r, std::uint64_t limit, std::uint32_t depth) {
    items<json_ref>(r, limit, depth, '[', ']',
                    [&](const unsigned char* item) { value(f.read_ref(item), limit, depth + 1); });
  }
  void flat_members(const json_ref& r, std::uint64_t limit, std::uint32_t depth) {
    items<json_member>(r, limit, depth, '{', '}', [&](const unsigned char* item) {
      json_member m;
      std::memcpy(&m, item, sizeof m);
      dump_string(f.key_bytes(m.key, m.key_len, limit), out);
      out.append(":", 1);
      if (!valid_kind(m.value.k)) f.damaged("a value of unknown kind");
      value(m.value, limit, depth + 1);
    });
  }
  // An array tree's elements, in order (as items() writes a table's).
  void tree_items(const json_ref& r, std::uint64_t limit, std::uint32_t depth) {
    tree(depth, '[', ']', [&](const auto& node_seen, const auto& item) {
      f.walk_tree(r, limit, node_seen, [&](const json_ref& e) {
        item();
        value(e, limit, depth + 1);
      });
    });
  }
  // An object tree's members, in document order.
  void tree_members(const json_ref& r, std::uint64_t limit, std::uint32_t depth) {
    tree(depth, '{', '}', [&](const auto& node_seen, const auto& item) {
      f.walk_object(r, limit, false, node_seen, [&](const member_entry& m) {
        item();
        dump_string(f.key_bytes(m.key, m.key_len, limit), out);
        out.append(":", 1);
        value(m.value, limit, depth + 1);
      });
    });
  }
  // What both trees' walks write around their items: `open`, a comma
  // before each item but the first (item()), `close`; the depth checked
  // before and the output budget per node (node_seen) and after. The
  // budget per node matters: nodes a crafted tree shares are walked as
  // often as they are reached, and scalars alone never check it.
  template <class Walk>
  void tree(std::uint32_t depth, char open, char close, const Walk& walk) {
    if (depth >= max_depth) f.damaged("nesting deeper than the format allows");
    out.append(&open, 1);
    bool first = true;
    walk([&](std::uint64_t, std::uint64_t) { check_budget(); },
         [&] {
           if (!first) out.append(",", 1);
           first = false;
         });
    out.append(&close, 1);
    check_budget();
  }
  void check_budget() const {
    if (out.size() > budget) f.damaged("the structure refers to one value twice");
  }
};

// Re-indents compact RFC 8259 text (as dump() writes it: no whitespace
// outside strings) by `indent` spaces a level.
std::string indent_text(std::string_view s, int indent) {
  std::string out;
  out.reserve(s.size() * 2);
  int depth = 0;
  auto newline = [&] {
    out += '\n';
    out.append(static_cast<std::size_t>(depth * indent), ' ');
  };
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    switch (c) {
      case '"': {  // copy the string, escapes included
        const std::size_t start = i++;
        while (s[i] != '"') i += s[i] == '\\' ? 2 : 1;
        out.append(s.substr(start, i - start + 1));
        break;
      }
      case '{':
      case '[':
        out += c;
        if (s[i + 1] == (c == '{' ? '}' : ']')) {  // empty container stays "{}"
          out += s[++i];
          break;
        }
        ++depth;
        newline();
        break;
      case '}':
      case ']':
        --depth;
        newline();
        out += c;
        break;
      case ',':
        out += c;
        newline();
        break;
      case ':': out += indent > 0 ? ": " : ":"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace

fl::string store_file::dump(const json_value& v) const {
  byte_buffer out;
  // The whole document's text is about as long as the blocks it is stored
  // in (strings and keys as they are, numbers and the containers' tables a
  // few bytes each way): room for that at once spares the buffer the copies
  // of growing by doubling. Pages of it that the text does not reach are
  // never touched.
  // (At most 256 MiB ahead: the extent of a big store counts free blocks.)
  if (v.ref_.x == root_.x && v.ref_.k == root_.k)
    out.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(root_limit(), 256u << 20)));
  dumper d{*this, out, 8 * root_limit() + 64};
  d.value(v.ref_, v.limit_, 0);
  return fl::string(std::string_view(reinterpret_cast<const char*>(out.data()), out.size()));
}

}  // namespace json
}  // namespace detail

fl::string json_value::dump() const {
  file_->check(stamp_);
  return file_->dump(*this);
}

fl::string json_value::dump(int indent) const {
  const fl::string compact = dump();
  if (indent < 0) return compact;
  const std::string out = detail::json::indent_text(std::string_view(compact), indent);
  return fl::string(out.data(), out.size());
}

std::ostream& operator<<(std::ostream& os, const json_value& v) {
  const fl::string s = v.dump();
  return os << std::string_view(s);
}

fl::string json_store::dump() const { return file_->dump(file_->root_value()); }

fl::string json_store::dump(int indent) const { return root().dump(indent); }

}  // namespace FL_ABI_NS
}  // namespace fl
