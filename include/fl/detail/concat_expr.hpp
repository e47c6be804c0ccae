// fl/detail/concat_expr.hpp: the lazy `a + b + ...` of fl::basic_string.
// Included at the bottom of <fl/string.hpp>; users never include it directly.
//
// A chain of `+` over fl strings, string-view-like values, C strings and chars
// builds an fl::concat_expression: a flat tuple of operands that knows the
// total length. Nothing is copied or allocated until the expression becomes a
// string (construction, assignment, +=, append, passing to a function taking
// fl::string); basic_string then allocates once and calls write(), which copies
// each operand straight into place (the protocol of detail/concat_fwd.hpp).
//
// Lifetime rules, so that `auto x = a + f() + "lit";` never dangles:
//   - an rvalue operand that owns its text (fl::string, std::string, any
//     string-like type that is not trivially copyable) is moved into the
//     expression and stored by value;
//   - an lvalue string is stored by address and read when the expression is
//     written, so the result reflects its value at that time;
//   - a view (std::string_view or another trivially copyable string-like type)
//     is stored as a view: it must outlive the expression, as views always must;
//   - a C string's length is computed once, when it joins the expression;
//   - a named (lvalue) expression used as an operand is stored by address.
//
// Threads: an expression is a plain value. Converting one expression object to
// std::string_view fills its cache, so do not convert the same object on two
// threads at once.
#pragma once

#include <fl/detail/concat_fwd.hpp>
#include <fl/pool.hpp>
#include <fl/string.hpp>

#include <compare>
#include <cstddef>
#include <cstring>
#include <iosfwd>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>

namespace fl {

template <class... Ops>
class concat_expression;

namespace detail {

template <class T>
struct is_fl_string : std::false_type {};
template <class A>
struct is_fl_string<basic_string<A>> : std::true_type {};
template <class T>
inline constexpr bool is_fl_string_v = is_fl_string<std::remove_cvref_t<T>>::value;

// const char*, char* and char arrays (which decay to them).
template <class T>
concept c_string_operand =
    std::is_same_v<std::decay_t<T>, const char*> || std::is_same_v<std::decay_t<T>, char*>;

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

// memcpy's pointers must be valid even for n == 0, and an empty view's data()
// may be null, so views copy through this.
inline char* copy_text(char* out, const char* p, std::size_t n) noexcept {
  if (n != 0) std::memcpy(out, p, n);
  return out + n;
}

// ---- operands: each has size(), write(out) and string_type (the fl string
// type it carries, or void) ----

struct view_operand {
  std::string_view text;
  using string_type = void;
  std::size_t size() const noexcept { return text.size(); }
  char* write(char* out) const noexcept { return copy_text(out, text.data(), text.size()); }
};

struct char_operand {
  char ch;
  using string_type = void;
  static constexpr std::size_t size() noexcept { return 1; }
  char* write(char* out) const noexcept {
    *out = ch;
    return out + 1;
  }
};

// An lvalue fl string, read through its address when written.
template <class S>
struct string_ref_operand {
  const S* str;
  using string_type = S;
  std::size_t size() const noexcept { return str->size(); }
  char* write(char* out) const noexcept {
    const std::size_t n = str->size();
    std::memcpy(out, str->data(), n);  // an fl string's data() is never null
    return out + n;
  }
};

// An rvalue fl string, moved into the expression.
template <class S>
struct string_owned_operand {
  S str;
  using string_type = S;
  std::size_t size() const noexcept { return str.size(); }
  char* write(char* out) const noexcept {
    const std::size_t n = str.size();
    std::memcpy(out, str.data(), n);
    return out + n;
  }
};

// An lvalue of another owning string type (std::string, ...), read through
// its address when written.
template <class T>
struct object_ref_operand {
  const T* obj;
  using string_type = void;
  std::size_t size() const noexcept { return std::string_view(*obj).size(); }
  char* write(char* out) const noexcept {
    const std::string_view v(*obj);
    return copy_text(out, v.data(), v.size());
  }
};

// An rvalue of another owning string type, moved into the expression.
template <class T>
struct object_owned_operand {
  T obj;
  using string_type = void;
  std::size_t size() const noexcept { return std::string_view(obj).size(); }
  char* write(char* out) const noexcept {
    const std::string_view v(obj);
    return copy_text(out, v.data(), v.size());
  }
};

// A named expression used inside another one.
template <class E>
struct expr_ref_operand {
  const E* expr;
  using string_type = typename E::string_type;
  std::size_t size() const noexcept { return expr->size(); }
  char* write(char* out) const noexcept { return expr->write(out); }
};

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

// The fl string type of the first operand that carries one; fl::string if none.
template <class... Ops>
struct first_string_type {
  using type = basic_string<>;
};
template <class Op, class... Rest>
struct first_string_type<Op, Rest...> {
  using type = std::conditional_t<std::is_void_v<typename Op::string_type>,
                                  typename first_string_type<Rest...>::type, typename Op::string_type>;
};

template <class T>
struct is_concat_expression : std::false_type {};
template <class... Ops>
struct is_concat_expression<concat_expression<Ops...>> : std::true_type {};

}  // namespace detail

// What may stand on either side of `+` in a concatenation: fl strings,
// concatenation expressions, std::string_view-like values, C strings, char.
// Numbers are not operands (`s + 42` does not compile); write
// fl::concat(s, 42) to format them.
template <class T>
concept concat_operand = detail::is_fl_string_v<T> || detail::is_concat_expr_v<T> ||
                         detail::c_string_operand<T> || detail::view_like_operand<T> ||
                         std::is_same_v<std::remove_cvref_t<T>, char>;

// `+` builds an expression only when one side is an fl string or an
// expression already, so `std::string + std::string` keeps its own meaning.
template <class L, class R>
concept concat_operands = concat_operand<L> && concat_operand<R> &&
                          (detail::is_fl_string_v<L> || detail::is_concat_expr_v<L> ||
                           detail::is_fl_string_v<R> || detail::is_concat_expr_v<R>);

// What an expression can be compared with: anything concat_operand but char.
template <class T>
concept concat_comparable = concat_operand<T> && !std::is_same_v<std::remove_cvref_t<T>, char>;

namespace detail {

// The operand that stores `x` following the lifetime rules at the top.
template <class T>
auto make_operand(T&& x) noexcept(!std::is_rvalue_reference_v<T&&> ||
                                  std::is_nothrow_move_constructible_v<std::remove_cvref_t<T>>) {
  using U = std::remove_cvref_t<T>;
  constexpr bool lvalue = std::is_lvalue_reference_v<T>;
  if constexpr (is_concat_expr_v<U>) {
    return expr_ref_operand<U>{&x};  // rvalue expressions are flattened by operands_of
  } else if constexpr (std::is_same_v<U, char>) {
    return char_operand{x};
  } else if constexpr (c_string_operand<U>) {
    const char* s = x;
    return view_operand{s != nullptr ? std::string_view(s) : std::string_view()};
  } else if constexpr (is_fl_string_v<U>) {
    if constexpr (lvalue) {
      return string_ref_operand<U>{&x};
    } else {
      return string_owned_operand<U>{std::move(x)};
    }
  } else if constexpr (std::is_trivially_copyable_v<U>) {
    return view_operand{std::string_view(x)};
  } else if constexpr (lvalue) {
    return object_ref_operand<U>{&x};
  } else {
    return object_owned_operand<U>{std::move(x)};
  }
}

// The operands `x` contributes: an rvalue expression gives up its own (so a
// chain stays one flat tuple), anything else becomes one operand.
template <class T>
auto operands_of(T&& x) {
  using U = std::remove_cvref_t<T>;
  if constexpr (is_concat_expression<U>::value && !std::is_lvalue_reference_v<T>) {
    return std::move(x).take_operands();
  } else {
    return std::tuple<decltype(make_operand(std::forward<T>(x)))>(make_operand(std::forward<T>(x)));
  }
}

template <class... Ops>
concat_expression<Ops...> make_expression(std::tuple<Ops...>&& ops) {
  return concat_expression<Ops...>(std::move(ops));
}

// Calls f(text) with the expression's text materialized in a stack buffer
// (short texts) or in a temporary string.
inline constexpr std::size_t concat_stack_bytes = 256;
template <class E, class F>
decltype(auto) with_text(const E& e, F&& f) {
  const std::size_t n = e.size();
  if (n <= concat_stack_bytes) {
    char buf[concat_stack_bytes];
    e.write(buf);
    return std::forward<F>(f)(std::string_view(buf, n));
  }
  const typename E::string_type tmp(e);
  return std::forward<F>(f)(std::string_view(tmp));
}

// Calls f(view) for any concat_comparable value.
template <class T, class F>
decltype(auto) with_view(const T& x, F&& f) {
  if constexpr (is_concat_expr_v<T>) {
    return with_text(x, std::forward<F>(f));
  } else if constexpr (c_string_operand<T>) {
    const char* s = x;
    return std::forward<F>(f)(s != nullptr ? std::string_view(s) : std::string_view());
  } else {
    return std::forward<F>(f)(std::string_view(x));
  }
}

}  // namespace detail

// A lazy concatenation: see the top of this file. Users meet it as the type of
// `a + b`; it becomes a string where one is needed, or explicitly with str().
template <class... Ops>
class concat_expression {
 public:
  // The string type str() returns: the first fl string operand's type, or
  // fl::string if no operand is an fl string.
  using string_type = typename detail::first_string_type<Ops...>::type;

  explicit concat_expression(std::tuple<Ops...>&& ops) noexcept(
      std::is_nothrow_move_constructible_v<std::tuple<Ops...>>)
      : ops_(std::move(ops)) {}
  // A copy copies owned operands (and not the string_view cache).
  concat_expression(const concat_expression& other) : ops_(other.ops_) {}
  concat_expression(concat_expression&& other) noexcept
      : ops_(std::move(other.ops_)), cache_(std::exchange(other.cache_, nullptr)),
        cache_size_(std::exchange(other.cache_size_, 0)) {}
  concat_expression& operator=(const concat_expression&) = delete;
  concat_expression& operator=(concat_expression&&) = delete;
  ~concat_expression() {
    if (cache_ != nullptr) detail::pool_deallocate(cache_, cache_size_ + 1);
  }

  // The total length: the sum of the operands' current lengths.
  std::size_t size() const noexcept {
    return std::apply([](const Ops&... op) { return (std::size_t{0} + ... + op.size()); }, ops_);
  }
  bool empty() const noexcept { return size() == 0; }
  // Writes exactly size() bytes (no terminator) and returns out + size().
  char* write(char* out) const noexcept {
    std::apply([&out](const Ops&... op) { ((out = op.write(out)), ...); }, ops_);
    return out;
  }

  // The text as a new string: one allocation (none for up to 23 chars).
  string_type str() const { return string_type(*this); }
  // The text as a std::string: one allocation.
  std::string to_std() const {
    std::string s;
    s.resize(size());
    write(s.data());
    return s;
  }

  // A named expression converts to std::string_view: the first conversion
  // writes the text into a buffer the expression owns (operands are read at
  // that moment), and every view stays valid until the expression is
  // destroyed. Throws std::bad_alloc.
  operator std::string_view() const& {  // NOLINT: implicit like fl::string's
    if (cache_ == nullptr) {
      const std::size_t n = size();
      char* p = static_cast<char*>(detail::pool_allocate(n + 1));
      write(p);
      p[n] = '\0';
      cache_ = p;
      cache_size_ = n;
    }
    return {cache_, cache_size_};
  }
  // A temporary expression does not convert to std::string_view: the view
  // would dangle at the end of the statement. Name it (`auto e = a + b;`),
  // or make a string with str().
  operator std::string_view() const&& = delete;

  // Comparisons read the text without keeping it (a stack buffer for up to
  // 256 bytes, else a temporary string), so they work on temporaries too.
  template <concat_comparable T>
  friend bool operator==(const concat_expression& e, const T& other) {
    return detail::with_view(other, [&e](std::string_view o) {
      if (e.size() != o.size()) return false;
      return detail::with_text(e, [o](std::string_view t) { return t == o; });
    });
  }
  template <concat_comparable T>
  friend std::strong_ordering operator<=>(const concat_expression& e, const T& other) {
    return detail::with_view(other, [&e](std::string_view o) {
      return detail::with_text(e, [o](std::string_view t) { return t.compare(o) <=> 0; });
    });
  }

  template <class CharT, class Traits>
  friend std::basic_ostream<CharT, Traits>& operator<<(std::basic_ostream<CharT, Traits>& os,
                                                       const concat_expression& e) {
    return detail::with_text(e, [&os](std::string_view t) -> std::basic_ostream<CharT, Traits>& {
      return os << t;
    });
  }

  // For the next `+`: hands over the operands (this expression is spent).
  std::tuple<Ops...>&& take_operands() && noexcept { return std::move(ops_); }

 private:
  std::tuple<Ops...> ops_;
  mutable char* cache_ = nullptr;       // the string_view conversion's text, or null
  mutable std::size_t cache_size_ = 0;  // its length (the block holds one more byte)
};

namespace detail {
template <class... Ops>
struct is_concat_expr<concat_expression<Ops...>> : std::true_type {};
}  // namespace detail

// a + b: a lazy concatenation. See the top of this file for what each operand
// kind is stored as.
template <class L, class R>
  requires concat_operands<L, R>
auto operator+(L&& lhs, R&& rhs) {
  return detail::make_expression(
      std::tuple_cat(detail::operands_of(std::forward<L>(lhs)), detail::operands_of(std::forward<R>(rhs))));
}

}  // namespace fl
