// libFuzzer target: every function of <fl/find.hpp>, on every kernel set the
// machine runs, must agree with std::string_view's member of the same name.
//
// Input layout: byte 0 and 1 give the needle length (mod the input size),
// bytes 2-3 the start position (with values near and past the end); the rest
// is split into needle and haystack. The haystack and needle are copied into
// exact-size heap blocks so AddressSanitizer sees any read past either.
#include <fl/find.hpp>

#include "simd/isa.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>

namespace {

void check_all(std::string_view hay, std::string_view needle, std::size_t pos) {
  if (fl::find(hay, needle, pos) != hay.find(needle, pos)) std::abort();
  if (fl::rfind(hay, needle, pos) != hay.rfind(needle, pos)) std::abort();
  if (fl::find_first_of(hay, needle, pos) != hay.find_first_of(needle, pos)) std::abort();
  if (fl::find_last_of(hay, needle, pos) != hay.find_last_of(needle, pos)) std::abort();
  if (fl::find_first_not_of(hay, needle, pos) != hay.find_first_not_of(needle, pos)) std::abort();
  if (fl::find_last_not_of(hay, needle, pos) != hay.find_last_not_of(needle, pos)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 4) return 0;
  const std::size_t rest = size - 4;
  const std::size_t m =
      rest == 0 ? 0 : (std::size_t{data[0]} | std::size_t{data[1]} << 8) % (rest + 1);
  const std::size_t n = rest - m;
  const std::size_t pos_raw = std::size_t{data[2]} | std::size_t{data[3]} << 8;
  auto needle = std::make_unique<char[]>(m);
  auto hay = std::make_unique<char[]>(n);
  std::memcpy(needle.get(), data + 4, m);
  std::memcpy(hay.get(), data + 4 + m, n);
  const std::string_view hv(hay.get(), n), nv(needle.get(), m);
  const std::size_t positions[] = {0, pos_raw % (n + 2), fl::npos};
  // Each level whose search kernels differ from the level below's.
  int previous = -1;
  for (std::size_t i = 0; i < fl::detail::isa_count; ++i) {
    const auto level = static_cast<fl::detail::isa>(i);
    if (!fl::detail::force_isa(level)) continue;
    const int kernels = static_cast<int>(fl::detail::install_find_kernels(level));
    if (kernels == previous) continue;
    previous = kernels;
    for (std::size_t pos : positions) check_all(hv, nv, pos);
  }
  return 0;
}
