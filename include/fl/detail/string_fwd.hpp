// fl/detail/string_fwd.hpp: the declaration of fl::basic_string and the
// traits, concepts and out-of-line helpers its interface is written with
// (included by fl/string.hpp only).
#pragma once

#include <fl/detail/concat_fwd.hpp>
#include <fl/detail/out_of_range.hpp>
#include <fl/find.hpp>
#include <fl/pool.hpp>

#include <cstddef>
#include <iterator>
#include <memory_resource>
#include <ranges>
#include <string>
#include <string_view>
#include <type_traits>

namespace fl {
inline namespace FL_ABI_NS {

template <class Allocator = pool_allocator<char>>
class basic_string;

using string = basic_string<>;
namespace pmr {
using string = basic_string<std::pmr::polymorphic_allocator<char>>;
}

namespace detail {

struct string_access;

// Out of line (src/string/string.cpp) so the throwing code stays off hot paths.
[[noreturn]] void throw_string_length_error(const char* what);

template <class T>
struct is_fl_string : std::false_type {};
template <class A>
struct is_fl_string<basic_string<A>> : std::true_type {};
template <class T>
inline constexpr bool is_fl_string_v = is_fl_string<std::remove_cvref_t<T>>::value;

// The standard's "string_view-like" parameter: converts to std::string_view
// but not to const char*; concatenation expressions have their own overloads.
template <class T>
concept string_view_like = std::is_convertible_v<const T&, std::string_view> &&
                           !std::is_convertible_v<const T&, const char*> &&
                           !is_concat_expr_v<T>;

// std::string, or a class publicly derived from it: what the implicit interop
// constructor takes. A template parameter, never a plain `const std::string&`,
// since a braced list can only reach a non-template parameter.
template <class T>
concept std_string_based = std::is_convertible_v<const T*, const std::string*>;

// The (t, pos, n) overloads only require the conversion to std::string_view.
template <class T>
concept string_view_convertible =
    std::is_convertible_v<const T&, std::string_view> && !is_concat_expr_v<T>;

template <class A>
inline constexpr bool is_pool_allocator_v = false;
template <>
inline constexpr bool is_pool_allocator_v<pool_allocator<char>> = true;

// LegacyInputIterator, as the standard's iterator-pair overloads require.
template <class It>
concept legacy_input_iterator = requires {
  typename std::iterator_traits<It>::iterator_category;
}
&&std::is_convertible_v<typename std::iterator_traits<It>::iterator_category,
                        std::input_iterator_tag>;

// A range of chars the container-compatible-range members accept.
template <class R>
concept char_range =
    std::ranges::input_range<R> && std::is_convertible_v < std::ranges::range_reference_t<R>,
char > ;

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
