// fl/detail/out_of_range.hpp: the one text of every std::out_of_range that fl
// throws for a position or a count past its limit (fl::string, fl::rope,
// fl::immutable_string). The JSON layer's range errors name a JSON pointer
// instead and are written where they are found.
#pragma once

#include <fl/detail/config.hpp>  // FL_ABI_NS

#include <cstddef>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

// Throws std::out_of_range whose what() is libstdc++'s own shape, naming the
// function and both values:
//   "<fn>: <what> (which is <value>) <relation> <limit_name> (which is <limit>)"
// e.g. "fl::string::at: pos (which is 5) >= size() (which is 3)". Out of line
// (src/string/string.cpp), so the throwing code stays off the hot paths.
[[noreturn]] void throw_out_of_range(const char* fn, const char* what, std::size_t value,
                                     const char* relation, const char* limit_name,
                                     std::size_t limit);

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
