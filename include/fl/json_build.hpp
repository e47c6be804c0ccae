// fl/json_build.hpp: JSON values made from C++ values, for json_store::put().
// A json_text holds the RFC 8259 text of one value: strings are quoted and
// escaped, integers are written exactly, doubles as their shortest round-trip
// text (NaN and infinities, which JSON lacks, throw std::domain_error), bool,
// nullptr, and containers: any range of convertible values is an array, a
// range of (string, value) pairs (std::map, std::vector<std::pair<...>>) is an
// object, and json_text::object({{"k", v}, ...}) / json_text::array({...})
// build them in place. json_text::raw(text) takes text that is JSON already
// (it is checked when it is stored).
//
// json_text is a value type; building one allocates its text once per value.
#pragma once

#include <fl/detail/config.hpp>

#include <charconv>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <ranges>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace fl {
inline namespace FL_ABI_NS {

class json_text;

namespace detail::json {
void append_escaped(std::string& out, std::string_view s);
void append_double(std::string& out, double d);
// Writes the text of integer i to buf and returns its length: the one
// spelling of integers in JSON text, which json_text and json_store::dump()
// both write (std::to_chars: no locale, no sign for unsigned types).
template <class I>
std::size_t integer_text(char (&buf)[48], I i) noexcept {
  return static_cast<std::size_t>(std::to_chars(buf, buf + sizeof buf, i).ptr - buf);
}
template <class T>
concept string_like = std::convertible_to<const T&, std::string_view>;
template <class T>
concept json_pair_like = requires(const T& p) {
  { p.first } -> std::convertible_to<std::string_view>;
  p.second;
};
}  // namespace detail::json

class json_text {
 public:
  json_text() : text_("null") {}
  json_text(std::nullptr_t) : text_("null") {}
  template <class B>
  requires std::same_as<B, bool> json_text(B b) : text_(b ? "true" : "false") {}
  template <class I>
  requires(std::integral<I> && !std::same_as<I, bool> && !std::same_as<I, char>) json_text(I i) {
    char buf[48];
    text_.assign(buf, detail::json::integer_text(buf, i));
  }
  template <class F>
  requires std::floating_point<F> json_text(F d) {
    detail::json::append_double(text_, static_cast<double>(d));
  }
  template <class S>
  requires detail::json::string_like<S> json_text(const S& s) {
    detail::json::append_escaped(text_, std::string_view(s));
  }
  // A range: an object when its elements are (key, value) pairs, else an array.
  template <class R>
  requires(std::ranges::input_range<const R> && !detail::json::string_like<R> &&
           !std::same_as<std::remove_cvref_t<R>, json_text>) json_text(const R& r) {
    // Appended to the empty text_, not assigned: GCC 12 at -O3 reports a
    // false -Wrestrict inside std::string's assignment of a literal here.
    if constexpr (detail::json::json_pair_like<std::ranges::range_value_t<const R>>) {
      text_ += '{';
      for (const auto& [k, v] : r) add_member(std::string_view(k), json_text(v));
      text_ += '}';
    } else {
      text_ += '[';
      for (const auto& e : r) add_element(json_text(e));
      text_ += ']';
    }
  }
  json_text(std::initializer_list<json_text> elements) : text_("[") {
    for (const json_text& e : elements) add_element(e);
    text_ += ']';
  }

  static json_text array(std::initializer_list<json_text> elements = {}) {
    return json_text(elements);
  }
  static json_text object(
      std::initializer_list<std::pair<std::string_view, json_text>> members = {}) {
    json_text t;
    t.text_.assign(1, '{');
    for (const auto& [k, v] : members) t.add_member(k, v);
    t.text_ += '}';
    return t;
  }
  // Text that is JSON already; not checked here (json_store::put checks it).
  static json_text raw(std::string_view json) {
    json_text t;
    t.text_.assign(json);
    return t;
  }

  const std::string& str() const noexcept { return text_; }
  operator std::string_view() const noexcept { return text_; }

 private:
  void add_element(const json_text& e) {
    if (text_.size() > 1) text_ += ',';
    text_ += e.text_;
  }
  void add_member(std::string_view k, const json_text& v) {
    if (text_.size() > 1) text_ += ',';
    detail::json::append_escaped(text_, k);
    text_ += ':';
    text_ += v.text_;
  }
  std::string text_;
};

}  // namespace FL_ABI_NS
}  // namespace fl
