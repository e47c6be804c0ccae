// fl/detail/concat_fwd.hpp: the protocol between fl::basic_string and the lazy
// concatenation expressions of <fl/concat.hpp>, so that string.hpp can accept
// an expression (constructor, operator=, operator+=, append) with exactly one
// allocation, without knowing how expressions are built.
#pragma once

#include <fl/detail/config.hpp>

#include <concepts>
#include <cstddef>
#include <type_traits>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

// Specialized to true_type by each expression type.
template <class T>
struct is_concat_expr : std::false_type {};

template <class T>
inline constexpr bool is_concat_expr_v = is_concat_expr<std::remove_cvref_t<T>>::value;

// An expression knows its length and writes exactly that many bytes to `out`
// (no terminator), returning out + size(). write() only reads its operands, so
// it is safe to call while the destination string's old buffer is still alive.
template <class E>
concept concat_expr = is_concat_expr_v<E> && requires(const E& e, char* out) {
  { e.size() }
  noexcept->std::convertible_to<std::size_t>;
  { e.write(out) }
  noexcept->std::same_as<char*>;
};

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
