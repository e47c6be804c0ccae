// src/string/string.cpp
// The compiled parts of fl::basic_string: the throws, kept out of line so that
// the inline hot paths carry only a call; fl::string's one instantiation (its
// members that are not inline: the cold paths), and the stream extractors of
// fl::string and fl::pmr::string, all declared extern in fl/string.hpp.
#include <fl/string.hpp>
#include <fl/string_stream.hpp>

#include <cstdio>
#include <stdexcept>

namespace fl {
inline namespace FL_ABI_NS {

static_assert(sizeof(string) == 24, "fl::string is 24 bytes: the representation and nothing else");
static_assert(alignof(string) == 8);
static_assert(std::is_standard_layout_v<string>,
              "the C API views fl_str as an fl::string in place");
static_assert(std::is_nothrow_move_constructible_v<string> &&
              std::is_nothrow_move_assignable_v<string>);
static_assert(std::is_nothrow_default_constructible_v<string>);

namespace detail {
void throw_out_of_range(const char* fn, const char* what, std::size_t value, const char* relation,
                        const char* limit_name, std::size_t limit) {
  char msg[256];
  std::snprintf(msg, sizeof msg, "%s: %s (which is %zu) %s %s (which is %zu)", fn, what, value,
                relation, limit_name, limit);
  throw std::out_of_range(msg);
}
void throw_string_length_error(const char* what) { throw std::length_error(what); }
}  // namespace detail

template class basic_string<
    pool_allocator<char>>;  // every member; the cold ones are declared extern
FL_STRING_STREAM_INSTANCES_(string, )
FL_STRING_STREAM_INSTANCES_(pmr::string, )

}  // namespace FL_ABI_NS
}  // namespace fl
