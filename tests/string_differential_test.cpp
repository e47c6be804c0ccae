// Differential test: the same seeded random operations on fl::string and on
// std::string, comparing the content after every operation, every returned
// value, and which exception (if any) each threw. Every overload form is
// drawn, with lengths around the inline limit (0, 15, 16, 22, 23, 24, 25),
// 64 and 4096, embedded NUL bytes, and sources inside the string itself
// (s.append(s), s.insert(0, s.data() + 3, 5), s.replace(1, 2, s), ...).
//
// The seed is printed; FL_TEST_SEED=<n> replays a run. FL_TEST_OPS=<n>
// changes the number of operations (default 1,000,000).
#include <fl/string.hpp>

#include <gtest/gtest.h>
#include "test_support.hpp"

#include <cstdlib>
#include <chrono>
#include <initializer_list>
#include <iostream>
#include <list>
#include <memory_resource>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

using fl_test::test_seed;

std::size_t test_ops(std::size_t dflt) {
  if (const char* e = std::getenv("FL_TEST_OPS")) return std::strtoull(e, nullptr, 10);
  return dflt;
}

constexpr std::size_t npos = std::string::npos;

// Everything one operation needs, drawn once and applied to both strings.
struct params {
  int op = 0;
  std::size_t pos = 0, n = 0, pos2 = 0, n2 = 0, k = 0;
  char ch = 'a';
  std::string src;  // a foreign source (may hold NULs)
};

const std::size_t lengths[] = {0, 1, 3, 15, 16, 22, 23, 24, 25, 31, 64, 100, 4096};

// A small alphabet (so that searches hit) plus NUL.
constexpr char alphabet[] = {'a', 'b', 'c', 'd', 'x', 'y', '\0', 'Z'};

char random_char(std::mt19937_64& rng) { return alphabet[rng() % sizeof alphabet]; }

std::size_t random_length(std::mt19937_64& rng) {
  std::size_t len = lengths[rng() % std::size(lengths)];
  if (len == 4096 && rng() % 4 != 0) len = 64;            // keep 4096 occasional
  if (rng() % 4 == 0 && len > 0) len += (rng() % 3) - 1;  // and its neighbours
  return len;
}

std::string random_text(std::mt19937_64& rng) {
  const std::size_t n = random_length(rng);
  return fl_test::random_text(rng, n, std::string_view(alphabet, sizeof alphabet));
}

// A position: usually valid, sometimes one or two past the end (to hit the
// out_of_range paths).
std::size_t random_pos(std::mt19937_64& rng, std::size_t size) {
  const auto r = rng() % 16;
  if (r == 0) return 0;
  if (r == 1) return size;
  if (r == 2) return size + 1 + rng() % 2;
  return size ? rng() % (size + 1) : 0;
}

std::size_t random_count(std::mt19937_64& rng, std::size_t size) {
  const auto r = rng() % 12;
  if (r == 0) return 0;
  if (r == 1) return npos;
  if (r == 2) return 1;
  if (r == 3) return rng() % 30;
  return rng() % (size + 3);
}

constexpr int op_count = 120;

template <class S>
constexpr bool is_std = std::is_same_v<S, std::string>;

// contains() is C++23; libstdc++ 12 offers it only in C++23 mode, so the
// std side uses its definition, find() != npos.
template <class S, class X>
bool contains(const S& s, const X& x) {
  if constexpr (is_std<S>) {
    return s.find(x) != npos;
  } else {
    return s.contains(x);
  }
}

params random_params(std::mt19937_64& rng, std::size_t size) {
  params p;
  p.op = static_cast<int>(rng() % op_count);
  p.pos = random_pos(rng, size);
  p.n = random_count(rng, size);
  p.src = random_text(rng);
  p.pos2 = random_pos(rng, p.src.size());
  p.n2 = random_count(rng, p.src.size());
  p.k = rng();
  p.ch = random_char(rng);
  return p;
}

// Applies operation p.op to s. Returns an observation of what the operation
// returned, as text, so both strings' results can be compared. Iterator forms
// only use valid iterators (anything else is undefined for both types).
template <class S>
std::string apply(S& s, const params& p) {
  using std::to_string;
  const std::size_t size = s.size();
  const std::size_t ipos = std::min(p.pos, size);  // a valid index
  const std::size_t ilen =
      std::min(p.n == npos ? size : p.n, size - ipos);  // a valid length from ipos
  const auto it = s.begin() + static_cast<std::ptrdiff_t>(ipos);
  const auto it2 = it + static_cast<std::ptrdiff_t>(ilen);
  const std::string& src = p.src;
  const std::string_view sv = src;
  const std::size_t slen = src.size();
  const std::size_t sk = size ? p.k % size : 0;  // an offset inside s
  const std::size_t sn =
      size ? (p.k >> 20) % (size - sk + 1) : 0;  // a length from sk that stays inside
  const std::size_t small = p.n % 40;
  // The six overloads of one find_*_of member (which `find` calls), as text.
  auto set_finds = [&](auto find) {
    return to_string(find(S(src), p.pos)) + to_string(find(src.data(), p.pos, p.n % 6)) +
           to_string(find(src.c_str(), p.pos)) + to_string(find(p.ch, p.pos)) +
           to_string(find(sv, p.pos)) + to_string(find(sv));
  };
  // Containers for the iterator forms, built only for the ops that use them.
  std::vector<char> vec;
  std::list<char> lst;
  switch (p.op) {
    case 5:
    case 14:
    case 22:
    case 26:
    case 38:
    case 47:
    case 52:
    case 63:
    case 117:
    case 118:
    case 119:
      vec.assign(src.begin(), src.end());
      lst.assign(src.begin(), src.end());
      break;
    default: break;
  }
  // The returned iterator's index, read after the call (operands of '-'
  // would be evaluated in an unspecified order, before a reallocation).
  auto idx = [&s](auto r) { return std::to_string(r - s.begin()); };
  const char c1 = p.ch, c2 = static_cast<char>(p.ch + 1), c3 = '\0';
  // The nine argument lists that assign (ops 0-8) and append (ops 33-41) both
  // take, in that order: passes list k to `call`.
  auto with_shared_args = [&](int k, auto call) {
    switch (k) {
      case 0: call(small, p.ch); break;
      case 1: call(S(src)); break;
      case 2: call(S(src), p.pos2, p.n2); break;
      case 3: call(src.data(), slen); break;
      case 4: call(src.c_str()); break;
      case 5: call(vec.begin(), vec.end()); break;
      case 6: call(std::initializer_list<char>{c1, c2, c3}); break;
      case 7: call(sv); break;
      case 8: call(sv, p.pos2, p.n2); break;
      default: break;
    }
  };
  if (p.op <= 8) {
    with_shared_args(p.op, [&](auto&&... a) { s.assign(std::forward<decltype(a)>(a)...); });
    return {};
  }
  if (p.op >= 33 && p.op <= 41) {
    with_shared_args(p.op - 33, [&](auto&&... a) { s.append(std::forward<decltype(a)>(a)...); });
    return {};
  }
  switch (p.op) {
    // ---- assign ----
    // 0-8: with_shared_args, before the switch
    case 9: {
      const S t(src);
      s = t;
      break;
    }
    case 10: s = S(src); break;
    case 11: s = src.c_str(); break;
    case 12: s = p.ch; break;
    case 13: s = sv; break;
    case 14: s.assign(lst.begin(), lst.end()); break;
    // ---- insert ----
    case 15: s.insert(p.pos, small, p.ch); break;
    case 16: s.insert(p.pos, src.c_str()); break;
    case 17: s.insert(p.pos, src.data(), slen); break;
    case 18: s.insert(p.pos, S(src)); break;
    case 19: s.insert(p.pos, S(src), p.pos2, p.n2); break;
    case 20: return idx(s.insert(it, p.ch));
    case 21: return idx(s.insert(it, small, p.ch));
    case 22: return idx(s.insert(it, lst.begin(), lst.end()));
    case 23: return idx(s.insert(it, {c1, c2, c3}));
    case 24: s.insert(p.pos, sv); break;
    case 25: s.insert(p.pos, sv, p.pos2, p.n2); break;
    case 26: return idx(s.insert(it, vec.begin(), vec.end()));
    // ---- erase ----
    case 27: s.erase(p.pos, p.n); break;
    case 28:
      if (ipos < size) return idx(s.erase(it));
      break;
    case 29: return idx(s.erase(it, it2));
    case 30: s.erase(p.pos); break;
    // ---- push/pop/append ----
    case 31: s.push_back(p.ch); break;
    case 32:
      if (size) s.pop_back();
      break;
    // 33-41: with_shared_args, before the switch
    case 42: s += S(src); break;
    case 43: s += p.ch; break;
    case 44: s += src.c_str(); break;
    case 45: s += {c1, c2}; break;
    case 46: s += sv; break;
    case 47: s.append(lst.begin(), lst.end()); break;
    case 48:
      for (std::size_t i = 0; i < small; ++i) s.push_back(static_cast<char>('a' + i % 26));
      break;
    // ---- replace ----
    case 49: s.replace(p.pos, p.n, S(src)); break;
    case 50: s.replace(it, it2, S(src)); break;
    case 51: s.replace(p.pos, p.n, S(src), p.pos2, p.n2); break;
    case 52: s.replace(it, it2, lst.begin(), lst.end()); break;
    case 53: s.replace(p.pos, p.n, src.data(), slen); break;
    case 54: s.replace(it, it2, src.data(), slen); break;
    case 55: s.replace(p.pos, p.n, src.c_str()); break;
    case 56: s.replace(it, it2, src.c_str()); break;
    case 57: s.replace(p.pos, p.n, small, p.ch); break;
    case 58: s.replace(it, it2, small, p.ch); break;
    case 59: s.replace(it, it2, {c1, c2, c3}); break;
    case 60: s.replace(p.pos, p.n, sv); break;
    case 61: s.replace(it, it2, sv); break;
    case 62: s.replace(p.pos, p.n, sv, p.pos2, p.n2); break;
    case 63: s.replace(it, it2, vec.begin(), vec.end()); break;
    // ---- size and capacity ----
    case 64: s.resize(p.n % 300); break;
    case 65: s.resize(p.n % 300, p.ch); break;
    case 66: s.reserve(p.n % 5000); return s.capacity() >= p.n % 5000 ? "ok" : "short";
    case 67: s.shrink_to_fit(); break;
    case 68: s.clear(); break;
    case 69: {
      S t(s.get_allocator());  // swapping needs equal allocators
      t.assign(sv);
      s.swap(t);
      return std::string(t.data(), t.size());
    }
    case 70:
      if constexpr (is_std<S>) {  // libstdc++ 12 has it only in C++23 mode: the same effect by hand
        const std::size_t n = p.n % 200;
        std::string t = s.substr(0, std::min(size, n));
        for (std::size_t i = std::min(size, n); i < n; ++i)
          t.push_back(static_cast<char>('0' + i % 10));
        t.resize(n - n / 3);
        s = t;
      } else {
        s.resize_and_overwrite(p.n % 200, [&](char* d, std::size_t n) {
          for (std::size_t i = std::min(size, n); i < n; ++i)
            d[i] = static_cast<char>('0' + i % 10);
          return n - n / 3;
        });
      }
      break;
    // ---- observers ----
    case 71: {
      const S t = s.substr(p.pos, p.n);
      return std::string(t.data(), t.size());
    }
    case 72: {
      S t = std::move(s).substr(p.pos, p.n);
      s = t;
      break;
    }
    case 73: {
      char buf[64];
      const std::size_t got = s.copy(buf, p.n % 64, p.pos);
      return std::string(buf, got);
    }
    case 74: return std::string(1, s.at(p.pos));
    case 75: {
      const std::string_view needle = sv.substr(0, 1 + p.k % 4);
      return to_string(s.find(S(src))) + to_string(s.find(src.data(), p.pos, p.n % 6)) +
             to_string(s.find(src.c_str(), p.pos)) + to_string(s.find(p.ch, p.pos)) +
             to_string(s.find(needle, p.pos));
    }
    case 76: {
      const std::string_view needle = sv.substr(0, 1 + p.k % 4);
      return to_string(s.rfind(S(src))) + to_string(s.rfind(src.data(), p.pos, p.n % 6)) +
             to_string(s.rfind(src.c_str(), p.pos)) + to_string(s.rfind(p.ch, p.pos)) +
             to_string(s.rfind(needle, p.pos)) + to_string(s.rfind(needle));
    }
    case 77: return set_finds([&](const auto&... a) { return s.find_first_of(a...); });
    case 78: return set_finds([&](const auto&... a) { return s.find_last_of(a...); });
    case 79: return set_finds([&](const auto&... a) { return s.find_first_not_of(a...); });
    case 80: return set_finds([&](const auto&... a) { return s.find_last_not_of(a...); });
    case 81: {
      auto sign = [](int r) {
        return r < 0 ? std::string("-") : r > 0 ? std::string("+") : std::string("0");
      };
      const S t(src);
      return sign(s.compare(t)) + sign(s.compare(src.c_str())) + sign(s.compare(sv)) +
             sign(s.compare(p.pos, p.n, t)) + sign(s.compare(p.pos, p.n, src.c_str())) +
             sign(s.compare(p.pos, p.n, src.data(), slen)) +
             // libstdc++ 12 marks this overload noexcept yet throws from it,
             // so the std side is only given a valid position here (fl's
             // throw is covered by string_test's Compare).
             sign(s.compare(ipos, p.n, sv));
    }
    case 82: {
      auto sign = [](int r) {
        return r < 0 ? std::string("-") : r > 0 ? std::string("+") : std::string("0");
      };
      // (pos2 kept valid for the view form: libstdc++ 12's is noexcept.)
      return sign(s.compare(ipos, p.n, S(src), p.pos2, p.n2)) +
             sign(s.compare(ipos, p.n, sv, std::min(p.pos2, slen), p.n2));
    }
    case 83: {
      const std::string_view head = std::string_view(s).substr(0, p.n % 5);
      const std::string_view tail = std::string_view(s).substr(size - std::min(size, p.n % 5));
      return std::to_string(s.starts_with(sv)) + std::to_string(s.starts_with(head)) +
             std::to_string(s.starts_with(p.ch)) + std::to_string(s.starts_with(src.c_str())) +
             std::to_string(s.ends_with(sv)) + std::to_string(s.ends_with(tail)) +
             std::to_string(s.ends_with(p.ch)) + std::to_string(s.ends_with(src.c_str())) +
             std::to_string(contains(s, sv.substr(0, p.n % 4))) +
             std::to_string(contains(s, p.ch)) + std::to_string(contains(s, src.c_str()));
    }
    case 84: {
      const S t(src);
      return std::to_string(s == t) + std::to_string(s < t) + std::to_string(s > t) +
             std::to_string(s == sv) + std::to_string(s < sv) + std::to_string(s == src.c_str()) +
             std::to_string(s >= src.c_str()) + std::to_string((s <=> t) == 0) +
             std::to_string(s == src) + std::to_string(src < s);
    }
    case 85: return std::to_string(erase(s, p.ch));
    case 86: return std::to_string(erase_if(s, [&](char c) { return c == p.ch || c == '\0'; }));
    // ---- sources inside the string itself ----
    case 87: s.append(s); break;
    case 88: s += s; break;
    case 89: s.append(s.data() + sk, sn); break;
    case 90: s.insert(p.pos, s.data() + sk, sn); break;
    case 91: s.insert(p.pos, s); break;
    case 92: s.replace(p.pos, p.n, s); break;
    case 93: s.replace(p.pos, p.n, s.data() + sk, sn); break;
    case 94: s.assign(s.data() + sk, sn); break;
    case 95: s.append(s, p.pos, p.n); break;
    case 96: s.insert(p.pos, s, sk, p.n); break;
    case 97: s.replace(p.pos, p.n, s, sk, p.n2); break;
    case 98: s.assign(s, p.pos, p.n); break;
    case 99:
      s.insert(it, s.begin() + static_cast<std::ptrdiff_t>(sk),
               s.begin() + static_cast<std::ptrdiff_t>(sk + sn));
      break;
    case 100:
      s.replace(it, it2, s.begin() + static_cast<std::ptrdiff_t>(sk),
                s.begin() + static_cast<std::ptrdiff_t>(sk + sn));
      break;
    case 101:
      s.append(s.begin() + static_cast<std::ptrdiff_t>(sk),
               s.begin() + static_cast<std::ptrdiff_t>(sk + sn));
      break;
    case 102: s.replace(it, it2, s.rbegin(), s.rbegin() + static_cast<std::ptrdiff_t>(sn)); break;
    case 103: s += std::string_view(s).substr(sk, sn); break;
    case 104: s.insert(p.pos, std::string_view(s).substr(sk, sn)); break;
    case 105: s.replace(p.pos, p.n, std::string_view(s), sk, p.n2); break;
    case 106: s = std::string_view(s).substr(sk, sn); break;
    case 107: s.append(s.c_str() + sk); break;
    case 108: s.insert(p.pos, s.c_str() + sk); break;
    case 109: s.replace(p.pos, p.n, s.c_str() + sk); break;
    case 110:
      s.assign(s.begin() + static_cast<std::ptrdiff_t>(sk),
               s.begin() + static_cast<std::ptrdiff_t>(sk + sn));
      break;
    // ---- iterators and element access ----
    case 111: {
      std::string out;
      for (auto r = s.rbegin(); r != s.rend(); ++r) out.push_back(*r);
      return out;
    }
    case 112:
      if (size) {
        s[ipos % size] = p.ch;
        s.front() = c2;
        s.back() = c1;
      }
      break;
    case 113: std::reverse(s.begin(), s.end()); break;
    case 114:
      return std::string(1, s.empty() ? '-' : s.back()) + std::string(s.c_str(), size) +
             std::to_string(s.length());
    case 115: {
      S t(s, s.get_allocator());
      t.append(1, 'q');
      s.swap(t);
      break;
    }
    case 116: {
      S t(std::move(s));
      s = std::move(t);
      break;
    }
    // The C++23 range members (libstdc++ 12: C++23 mode only), against the
    // iterator-pair forms they are defined by.
    case 117:
      if constexpr (is_std<S>)
        s.append(lst.begin(), lst.end());
      else
        s.append_range(lst);
      break;
    case 118:
      if constexpr (is_std<S>)
        return idx(s.insert(it, vec.begin(), vec.end()));
      else
        return idx(s.insert_range(it, vec));
    case 119:
      if constexpr (is_std<S>)
        s.replace(it, it2, lst.begin(), lst.end());
      else
        s.replace_with_range(it, it2, lst);
      break;
    default: break;
  }
  return {};
}

// A fresh string made by one of the constructors.
template <class S, class... A>
S construct(int form, const std::string& src, std::size_t pos, std::size_t n, char ch,
            const A&... a) {
  switch (form) {
    case 0: return S(a...);
    case 1: return S(n % 40, ch, a...);
    case 2: return S(S(src, a...), pos, a...);
    case 3: return S(S(src, a...), pos, n, a...);
    case 4: {
      S t(src, a...);
      return S(std::move(t), pos, a...);
    }
    case 5: {
      S t(src, a...);
      return S(std::move(t), pos, n, a...);
    }
    case 6: return S(src.data(), src.size(), a...);
    case 7: return S(src.c_str(), a...);
    case 8: return S(src.begin(), src.end(), a...);
    case 9: {
      const S t(src, a...);
      return S(t);
    }
    case 10: {
      S t(src, a...);
      return S(std::move(t));
    }
    case 11: return S({'i', 'l', '\0', ch}, a...);
    case 12: return S(std::string_view(src), a...);
    default: return S(std::string_view(src), pos, n, a...);
  }
}

const char* exception_kind(const std::exception_ptr& e) {
  if (!e) return "none";
  try {
    std::rethrow_exception(e);
  } catch (const std::out_of_range&) { return "out_of_range"; } catch (const std::length_error&) {
    return "length_error";
  } catch (...) { return "other"; }
}

template <class Fl, class... A>
void run_differential(std::uint64_t seed, std::size_t ops, const A&... alloc) {
  std::mt19937_64 rng(seed);
  std::string want;
  Fl got(alloc...);
  std::size_t step = 0;
  while (step < ops) {
    // A new string every few hundred steps, made by a random constructor.
    {
      const std::string src = random_text(rng);
      const int form = static_cast<int>(rng() % 14);
      const std::size_t pos = random_pos(rng, src.size()), n = random_count(rng, src.size());
      const char ch = random_char(rng);
      std::exception_ptr ew, eg;
      try {
        want = construct<std::string>(form, src, pos, n, ch);
      } catch (...) { ew = std::current_exception(); }
      try {
        got = construct<Fl>(form, src, pos, n, ch, alloc...);
      } catch (...) { eg = std::current_exception(); }
      ASSERT_STREQ(exception_kind(ew), exception_kind(eg))
          << "seed " << seed << " constructor " << form;
      if (ew) {
        want.clear();
        got.clear();
      }
      ASSERT_EQ(std::string_view(got), want) << "seed " << seed << " constructor " << form;
    }
    const std::size_t burst = 50 + rng() % 400;
    for (std::size_t i = 0; i < burst && step < ops; ++i, ++step) {
      const params p = random_params(rng, want.size());
      const std::string before = want;  // to check that a throwing call changed nothing
      std::string rw, rg;
      std::exception_ptr ew, eg;
      try {
        rw = apply(want, p);
      } catch (...) { ew = std::current_exception(); }
      try {
        rg = apply(got, p);
      } catch (...) { eg = std::current_exception(); }
      ASSERT_STREQ(exception_kind(ew), exception_kind(eg))
          << "seed " << seed << " step " << step << " op " << p.op;
      ASSERT_EQ(rg, rw) << "seed " << seed << " step " << step << " op " << p.op;
      ASSERT_EQ(got.size(), want.size()) << "seed " << seed << " step " << step << " op " << p.op;
      ASSERT_EQ(std::string_view(got), want)
          << "seed " << seed << " step " << step << " op " << p.op;
      ASSERT_EQ(got.c_str()[got.size()], '\0')
          << "seed " << seed << " step " << step << " op " << p.op;
      ASSERT_GE(got.capacity(), got.size()) << "seed " << seed << " step " << step;
      if (ew) {
        ASSERT_EQ(std::string_view(got), before)
            << "a throwing call changed the string; seed " << seed;
      }
      if (want.size() > 9000) break;  // keep the strings (and the run time) bounded
    }
  }
}

TEST(StringDifferential, RandomOperationsAgreeWithStdString) {
  const auto seed = test_seed();
  const auto ops = test_ops(1'000'000);
  std::cout << "StringDifferential seed " << seed << " (FL_TEST_SEED=" << seed << " replays), "
            << ops << " operations\n";
  RecordProperty("seed", std::to_string(seed));
  run_differential<fl::string>(seed, ops);
}

TEST(StringDifferential, PmrStringOnMonotonicBufferAgrees) {
  const auto seed = test_seed() ^ 0x9e3779b97f4a7c15ull;
  const auto ops = test_ops(1'000'000) / 10;
  std::cout << "StringDifferential pmr seed " << seed << "\n";
  RecordProperty("seed", std::to_string(seed));
  // Released blocks are never reused by a monotonic resource; a fresh one per
  // chunk of operations keeps memory bounded.
  for (std::size_t done = 0, part = 0; done < ops; done += 20'000, ++part) {
    std::pmr::monotonic_buffer_resource mr;
    run_differential<fl::pmr::string>(seed + part, std::min<std::size_t>(20'000, ops - done),
                                      std::pmr::polymorphic_allocator<char>(&mr));
    if (HasFatalFailure()) return;
  }
}

}  // namespace
