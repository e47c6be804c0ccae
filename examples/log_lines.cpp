// A log pipeline in miniature: build lines with one allocation each, keep the
// short ones inline, and search them with fl::find.
#include <fl/fl.hpp>

#include <iostream>
#include <vector>

int main() {
  const fl::string host = "api-7";
  std::vector<fl::string> lines;
  for (int i = 0; i < 5; ++i) {
    // fl::concat formats the numbers and allocates once (or not at all when
    // the line fits the 23 inline chars).
    lines.push_back(
        fl::concat(host, " req=", i, " ms=", 0.25 * i, i % 2 ? " ERROR timeout" : " ok"));
  }
  // `+` chains are lazy: one allocation when the result becomes a string.
  const fl::string header = host + " | " + fl::string("five requests") + '\n';
  std::cout << header;

  int errors = 0;
  for (const fl::string& line : lines) {
    if (fl::find(line, "ERROR") != fl::npos) ++errors;
    std::cout << line << '\n';
  }
  std::cout << errors << " errors\n";
  return errors == 2 ? 0 : 1;
}
