// libFuzzer target: random operation sequences on two fl::strings, mirrored
// on std::string, must agree after every step: contents, size, the
// terminator, and the exceptions std::string throws (std::out_of_range at the
// same calls). Operands may alias the string itself (s.append(s),
// s.insert(0, s.data() + k, n), s.replace(.., s)), the cases that broke the
// older string across the inline/heap switch.
//
// Input layout: a sequence of steps; each takes an opcode byte, a slot byte,
// two position bytes, a length byte, then up to `length` bytes of text.
#include <fl/string.hpp>

#include "fuzz_input.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

namespace {

constexpr std::size_t max_text = 1 << 14;

using fl_fuzz::check;
using fl_fuzz::reader;

// Runs f on both strings; both must throw std::out_of_range, or neither.
template <class F>
void both(fl::string& got, std::string& want, F f) {
  bool got_threw = false, want_threw = false;
  try {
    f(got);
  } catch (const std::out_of_range&) { got_threw = true; }
  try {
    f(want);
  } catch (const std::out_of_range&) { want_threw = true; }
  check(got_threw == want_threw);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fl::string g[2];
  std::string w[2];
  fl_fuzz::for_each_step(data, size, [&](std::uint8_t op, reader& in) {
    const unsigned k = in.byte() & 1;
    // Positions reach a little past the end, so the out_of_range paths run.
    const std::size_t pos = in.u16() % (w[k].size() + 3);
    const std::size_t len = in.byte();
    const std::string_view t = in.text(op & 0x80 ? len : len % 8);
    fl::string& s = g[k];
    std::string& r = w[k];
    if (r.size() + 2 * t.size() + 2 * r.size() > max_text && op % 16 < 12) {
      s.clear();
      r.clear();
    }
    switch (op % 16) {
      case 0: both(s, r, [&](auto& x) { x.append(t.data(), t.size()); }); break;
      case 1: both(s, r, [&](auto& x) { x.insert(pos, t.data(), t.size()); }); break;
      case 2: both(s, r, [&](auto& x) { x.erase(pos, len % 40); }); break;
      case 3: both(s, r, [&](auto& x) { x.replace(pos, len % 40, t.data(), t.size()); }); break;
      case 4: both(s, r, [&](auto& x) { x.append(x); }); break;
      case 5:
        both(s, r, [&](auto& x) {
          x.insert(0, x.data() + pos % (x.size() + 1), (x.size() - pos % (x.size() + 1)) % 9);
        });
        break;
      case 6: both(s, r, [&](auto& x) { x.replace(pos, len % 5, x); }); break;
      case 7: both(s, r, [&](auto& x) { x.resize(len, static_cast<char>(pos)); }); break;
      case 8: both(s, r, [&](auto& x) { x.assign(t.data(), t.size()); }); break;
      case 9: both(s, r, [&](auto& x) { x.push_back(static_cast<char>(len)); }); break;
      case 10: both(s, r, [&](auto& x) { x.insert(pos, len % 30, 'z'); }); break;
      case 11: both(s, r, [&](auto& x) { x.append(x, pos, len % 30); }); break;
      case 12: check(s.find(t, pos) == r.find(t, pos) && s.rfind(t, pos) == r.rfind(t, pos)); break;
      case 13: {
        const int a = g[0].compare(g[1]), b = w[0].compare(w[1]);
        check((a < 0) == (b < 0) && (a > 0) == (b > 0));
        break;
      }
      case 14:
        g[k ^ 1] = s;  // copy across modes
        w[k ^ 1] = r;
        break;
      default:
        if (len & 1)
          s.shrink_to_fit(), r.shrink_to_fit();
        else
          s.reserve(len * 2), r.reserve(len * 2);
        break;
    }
    for (int i = 0; i < 2; ++i) {
      check(std::string_view(g[i]) == w[i]);
      check(g[i].c_str()[g[i].size()] == '\0');
      check(g[i].capacity() >= g[i].size());
    }
  });
  return 0;
}
