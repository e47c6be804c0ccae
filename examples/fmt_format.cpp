// <fl/fmt.hpp>: fl's strings in {fmt} (and std::format where the standard
// library has it), and formatting straight into an fl::string.
#include <fl/fmt.hpp>

#include <cstdio>

int main() {
  const fl::string name = "disk";
  fl::rope log("first line\n");
  log.append("second line\n");
  fl::string report = fl::format("{:>8}|{:.3}|", name, 0.125);        // fl::string, inline here
  fl::format_to(report, "{} bytes of log: {:.10}", log.size(), log);  // appends in place
  std::printf("%s\n", report.c_str());
  return report == "    disk|0.125|23 bytes of log: first line" ? 0 : 1;
}
