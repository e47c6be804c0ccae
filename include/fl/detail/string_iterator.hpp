// fl/detail/string_iterator.hpp: the iterator type of fl::basic_string
// (included by fl/string.hpp only).
#pragma once

#include <fl/detail/config.hpp>

#include <compare>
#include <cstddef>
#include <functional>
#include <iterator>
#include <type_traits>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

// A contiguous, random-access iterator over the chars of a string. A class
// rather than a raw pointer so that calls such as erase(0) and
// insert(0, 5, 'x') are not ambiguous with the iterator overloads.
template <class T>
class string_iterator {
 public:
  using iterator_concept = std::contiguous_iterator_tag;
  using iterator_category = std::random_access_iterator_tag;
  using value_type = char;
  using element_type = T;
  using difference_type = std::ptrdiff_t;
  using pointer = T*;
  using reference = T&;

  constexpr string_iterator() noexcept = default;
  constexpr explicit string_iterator(T* p) noexcept : p_(p) {}
  template <class U>
  requires(std::is_same_v<T, const char>&& std::is_same_v<U, char>) constexpr string_iterator(
      const string_iterator<U>& o) noexcept
      : p_(o.base()) {}

  constexpr T* base() const noexcept { return p_; }
  constexpr T& operator*() const noexcept { return *p_; }
  constexpr T* operator->() const noexcept { return p_; }
  constexpr T& operator[](difference_type n) const noexcept { return p_[n]; }
  constexpr string_iterator& operator++() noexcept {
    ++p_;
    return *this;
  }
  constexpr string_iterator operator++(int) noexcept {
    auto t = *this;
    ++p_;
    return t;
  }
  constexpr string_iterator& operator--() noexcept {
    --p_;
    return *this;
  }
  constexpr string_iterator operator--(int) noexcept {
    auto t = *this;
    --p_;
    return t;
  }
  constexpr string_iterator& operator+=(difference_type n) noexcept {
    p_ += n;
    return *this;
  }
  constexpr string_iterator& operator-=(difference_type n) noexcept {
    p_ -= n;
    return *this;
  }
  friend constexpr string_iterator operator+(string_iterator i, difference_type n) noexcept {
    return string_iterator(i.p_ + n);
  }
  friend constexpr string_iterator operator+(difference_type n, string_iterator i) noexcept {
    return string_iterator(i.p_ + n);
  }
  friend constexpr string_iterator operator-(string_iterator i, difference_type n) noexcept {
    return string_iterator(i.p_ - n);
  }
  template <class U>
  friend constexpr difference_type operator-(string_iterator a, string_iterator<U> b) noexcept {
    return a.p_ - b.base();
  }
  template <class U>
  friend constexpr bool operator==(string_iterator a, string_iterator<U> b) noexcept {
    return a.p_ == b.base();
  }
  template <class U>
  friend constexpr std::strong_ordering operator<=>(string_iterator a,
                                                    string_iterator<U> b) noexcept {
    return std::compare_three_way{}(static_cast<const char*>(a.p_),
                                    static_cast<const char*>(b.base()));
  }

 private:
  T* p_ = nullptr;
};

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
