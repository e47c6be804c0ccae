// fl::find: substring search with a linear worst case (SIMD where the CPU
// has it), std::string_view semantics, any bytes including '\0'.
#include <fl/find.hpp>

#include <cstdio>
#include <string>
#include <string_view>

int main() {
  std::string log;
  for (int i = 0; i < 1000; ++i) log += i == 777 ? "GET /admin 403\n" : "GET /index 200\n";

  std::size_t count = 0;
  for (std::size_t at = fl::find(log, " 403"); at != fl::npos; at = fl::find(log, " 403", at + 1))
    ++count;
  const std::size_t line_start = fl::rfind(log, "\n", fl::find(log, "/admin")) + 1;
  const std::size_t first_digit = fl::find_first_of(log, "0123456789");

  std::printf("%zu match, line at %zu, first digit at %zu\n", count, line_start, first_digit);
  return count == 1 && line_start == 777 * 15 && first_digit == 11 ? 0 : 1;
}
