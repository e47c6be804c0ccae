// fl/detail/concat_expr.hpp: the one-allocation plan behind fl::concat,
// fl::append and fl::string_builder::append (<fl/concat.hpp>). Users never
// see these types: operator+ returns plain strings (<fl/string.hpp>).
//
// A call such as fl::concat(a, "/", 42) turns each argument into an operand
// that knows its length and writes its bytes; the operands sit in a
// concat_expression, which basic_string's expression constructor, assignment
// and append read (the protocol of detail/concat_fwd.hpp): size() first, one
// allocation, then write() straight into place.
//
// Lifetime: an expression holds views of its text arguments, and lives only
// inside the call that made it (every argument outlives the call), so nothing
// it refers to can be gone when it is written.
#pragma once

#include <fl/detail/concat_fwd.hpp>
#include <fl/string.hpp>

#include <cstddef>
#include <cstring>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

// const char*, char* and char arrays (which decay to them).
template <class T>
concept c_string_operand = std::is_same_v < std::decay_t<T>,
const char* > || std::is_same_v<std::decay_t<T>, char*>;

// Anything else that converts to std::string_view: std::string, string_view,
// boost strings, immutable_string, ...
template <class T>
concept view_like_operand = !is_fl_string_v<T> && !is_concat_expr_v<T> && !c_string_operand<T> &&
                            !std::is_same_v<std::remove_cvref_t<T>, std::nullptr_t> &&
                            std::is_convertible_v<const std::remove_cvref_t<T>&, std::string_view>;

// GCC 12 inlines write() into basic_string's 24-byte inline buffer and, not
// knowing that the operand lengths sum to at most 23 there, warns about
// out-of-bounds copies that cannot happen (the caller sized the buffer with
// size()). The warnings are silenced for the operand code only.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#pragma GCC diagnostic ignored "-Wstringop-overread"
#pragma GCC diagnostic ignored "-Wrestrict"
#endif

// Operands: each has size() and write(out), which writes exactly size() bytes
// and returns out + size(); text is string.hpp's view_operand.
struct char_operand {
  char ch;
  static constexpr std::size_t size() noexcept { return 1; }
  char* write(char* out) const noexcept {
    *out = ch;
    return out + 1;
  }
};

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

// The operand of a text argument: a view of it. A null C string is written as
// nothing.
template <class T>
view_operand text_operand(const T& x) noexcept {
  if constexpr (c_string_operand<T>) {
    const char* s = x;
    return view_operand{s != nullptr ? std::string_view(s) : std::string_view()};
  } else {
    return view_operand{std::string_view(x)};
  }
}

// A planned concatenation: the operands in order.
template <class... Ops>
class concat_expression {
 public:
  // Each operand made where it lives: `makers` convert to the operands, and
  // each conversion's result initializes its element with no copy. A copied
  // operand is read back by wide loads right after the narrow stores that
  // built it, which the CPU cannot forward to: for a double's plan (48
  // bytes) that stall was a third of fl::concat(name, id, 3.14159, ';').
  template <class... Makers>
  explicit concat_expression(std::in_place_t, Makers&&... makers) noexcept
      : ops_(std::forward<Makers>(makers)...) {}

  // The total length.
  std::size_t size() const noexcept {
    return std::apply([](const Ops&... op) { return (std::size_t{0} + ... + op.size()); }, ops_);
  }
  // Writes exactly size() bytes (no terminator) and returns out + size().
  char* write(char* out) const noexcept {
    std::apply([&out](const Ops&... op) { ((out = op.write(out)), ...); }, ops_);
    return out;
  }

 private:
  std::tuple<Ops...> ops_;
};

template <class... Ops>
struct is_concat_expr<concat_expression<Ops...>> : std::true_type {};

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
