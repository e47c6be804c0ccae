// libFuzzer target: random edit sequences on three fl::ropes, mirrored on
// std::string, must agree after every step, and every rope must keep its
// tree invariants (detail::check_invariants). Built with the rope of 16-byte
// leaves (fl_rope_small, rope_fuzz.cmake), so short inputs already
// make deep trees with shared chunks.
//
// Input layout: a sequence of steps; each takes an opcode byte, two slot
// bytes, two position bytes, a length byte, and then `length` bytes of text
// from the input (fewer at its end). Texts are kept under 64 KiB.
#include <fl/detail/rope_debug.hpp>
#include <fl/rope.hpp>

#include "fuzz_input.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>

namespace {

constexpr std::size_t max_text = 1 << 16;

using fl_fuzz::check;
using fl_fuzz::reader;

void agree(const fl::rope& r, const std::string& s) {
  fl::detail::check_invariants(r);
  check(r.size() == s.size());
  check(r == std::string_view(s));
  std::string walked;
  for (std::string_view c : r.chunks()) walked += c;
  check(walked == s);
  std::size_t i = 0;
  for (char c : r) check(c == s[i++]);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fl::rope r[3];
  std::string s[3];
  fl_fuzz::for_each_step(data, size, [&](std::uint8_t op, reader& in) {
    const unsigned a = in.byte() % 3, b = in.byte() % 3;
    const std::size_t raw_pos = in.u16();
    const std::size_t len = in.byte();
    const std::size_t pos = s[a].empty() ? 0 : raw_pos % (s[a].size() + 1);
    switch (op % 14) {
      case 0: {
        const std::string_view t = in.text(len);
        if (s[a].size() + t.size() > max_text) break;
        r[a].append(t);
        s[a].append(t);
        break;
      }
      case 1: {
        const std::string_view t = in.text(len);
        if (s[a].size() + t.size() > max_text) break;
        r[a].prepend(t);
        s[a].insert(0, t);
        break;
      }
      case 2: {
        const std::string_view t = in.text(len);
        if (s[a].size() + t.size() > max_text) break;
        r[a].insert(pos, t);
        s[a].insert(pos, t);
        break;
      }
      case 3:
        r[a].erase(pos, len);
        s[a].erase(pos, len);
        break;
      case 4: {
        const std::string_view t = in.text(len);
        if (s[a].size() + t.size() > max_text) break;
        r[a].replace(pos, len % 32, t);
        s[a].replace(pos, len % 32, t);
        break;
      }
      case 5:  // share: an O(1) copy that later edits must not disturb
        r[b] = r[a];
        s[b] = s[a];
        break;
      case 6:
        if (s[a].size() + s[b].size() > max_text) break;
        r[a].append(r[b]);  // may be the same rope
        s[a] += std::string(s[b]);
        break;
      case 7:
        if (s[a].size() + s[b].size() > max_text) break;
        r[a].insert(pos, r[b]);
        s[a].insert(pos, std::string(s[b]));
        break;
      case 8:
        r[b] = r[a].substr(pos, len * 4);
        s[b] = s[a].substr(pos, len * 4);
        break;
      case 9: {
        const std::string_view needle = in.text(len % 48);
        check(r[a].find(needle, raw_pos % (s[a].size() + 2)) ==
              s[a].find(needle, raw_pos % (s[a].size() + 2)));
        break;
      }
      case 10: {
        const int c = r[a].compare(r[b]), want = s[a].compare(s[b]);
        check((c > 0) == (want > 0) && (c < 0) == (want < 0));
        break;
      }
      case 11: {  // flatten by value, then hand the rope's buffer over
        check(std::string_view(r[a].flatten()) == s[a]);
        fl::rope moved = r[a];
        const fl::string flat = std::move(moved).flatten();
        check(std::string_view(flat) == s[a]);
        break;
      }
      case 12: {  // a byte, and the text metrics at pos against scans of the mirror
        if (!s[a].empty()) check(r[a][pos % s[a].size()] == s[a][pos % s[a].size()]);
        std::size_t lines = 0, chars = 0;
        for (std::size_t k = 0; k < pos; ++k) {
          lines += s[a][k] == '\n';
          chars += (static_cast<unsigned char>(s[a][k]) & 0xC0) != 0x80;
        }
        check(r[a].byte_to_line(pos) == lines && r[a].byte_to_char(pos) == chars);
        check(r[a].line_to_byte(lines) <= pos && r[a].char_to_byte(chars) >= pos);
        break;
      }
      default:
        if (s[a].size() + len > max_text) break;
        r[a].append(len, static_cast<char>(raw_pos));
        s[a].append(len, static_cast<char>(raw_pos));
        break;
    }
    for (int k = 0; k < 3; ++k) agree(r[k], s[k]);
  });
  return 0;
}
