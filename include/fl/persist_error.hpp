// fl/persist_error.hpp: the one exception of the persistence layer
// (fl::persist<T>, fl::mapped_space, fl::pstring). Its what() reads
// "fl::persist: \"<path>\": <reason>", e.g.
//   fl::persist: "/var/lib/app/count": checksum mismatch (file damaged)
// and path() / reason() give the two parts separately.
//
// Threads: an immutable value; copies may be read anywhere.
#pragma once

#include <fl/detail/config.hpp>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace fl {
inline namespace FL_ABI_NS {

class persist_error : public std::runtime_error {
 public:
  persist_error(const std::filesystem::path& path, const std::string& reason);

  const std::filesystem::path& path() const noexcept { return path_; }
  const std::string& reason() const noexcept { return reason_; }

 private:
  std::filesystem::path path_;
  std::string reason_;
};

}  // namespace FL_ABI_NS
}  // namespace fl
