// tests/string_braced_test.cpp: a braced {ptr, n} argument reaches the same
// overload for fl::basic_string as for std::basic_string (LWG 2946: the
// string_view-like parameters are templates, so a braced list builds a string
// from (const char*, size_type)). Every form below compiles for std::string
// (libstdc++, C++20) and runs for std::string, fl::string, std::pmr::string
// and fl::pmr::string; the four results must agree. The forms std::string
// rejects must not compile for fl either: tests/compile_fail/string_braced.cpp.
//
// The implicit interop constructor from std::string is a template for this
// reason; the last tests check that the interop still converts both ways.
#include <fl/string.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <memory_resource>
#include <string>
#include <string_view>

namespace {

template <class S>
std::string text(const S& s) {
  return std::string(s.data(), s.size());
}

// The braced list is {p, n}: p = "abcdef", n = 3, so it stands for "abc".
const char* const braced_p = "abcdef";
const std::size_t braced_n = 3;

// Defines form<S>() (the statements, with p, n, A = S's allocator type and
// `out`, the observed result) and a test that runs it for the four types.
#define FL_BRACED_FORM(form, ...)                                           \
  template <class S>                                                        \
  std::string form() {                                                      \
    using A = typename S::allocator_type;                                   \
    [[maybe_unused]] const A alloc{};                                       \
    [[maybe_unused]] const char* p = braced_p;                              \
    [[maybe_unused]] std::size_t n = braced_n;                              \
    std::string out;                                                        \
    __VA_ARGS__;                                                            \
    return out;                                                             \
  }                                                                         \
  TEST(StringBraced, form) {                                                \
    const std::string want = form<std::string>();                           \
    EXPECT_EQ(form<fl::string>(), want);                                    \
    EXPECT_EQ(form<std::pmr::string>(), want);                              \
    EXPECT_EQ(form<fl::pmr::string>(), want);                               \
  }

// ---- construction ----
FL_BRACED_FORM(ConstructParenthesized, S s({p, n}); out = text(s))
FL_BRACED_FORM(ConstructParenthesizedLiteral, S s({"abcdef", 3}); out = text(s))
FL_BRACED_FORM(ConstructCopyList, S s = {p, n}; out = text(s))
FL_BRACED_FORM(ConstructWithAllocator, S s({p, n}, alloc); out = text(s))
FL_BRACED_FORM(ConstructBracedWithAllocator, S s{{p, n}, alloc}; out = text(s))
FL_BRACED_FORM(ConstructTemporary, out = text(S({p, n})))
FL_BRACED_FORM(ConstructSubstringFrom, S s({p, n}, 1); out = text(s))
FL_BRACED_FORM(ConstructSubstring, S s({p, n}, 1, 1); out = text(s))
FL_BRACED_FORM(ConstructSubstringWithAllocator, S s({p, n}, 1, 1, alloc); out = text(s))

// ---- assignment and append ----
FL_BRACED_FORM(AssignOperator, S s = "zz"; s = {p, n}; out = text(s))
FL_BRACED_FORM(AssignOperatorLiteral, S s = "zz"; s = {"abcdef", 3}; out = text(s))
FL_BRACED_FORM(AppendOperator, S s = "zz"; s += {p, n}; out = text(s))
FL_BRACED_FORM(AppendOperatorLiteral, S s = "zz"; s += {"abcdef", 3}; out = text(s))
FL_BRACED_FORM(Assign, S s = "zz"; s.assign({p, n}); out = text(s))
FL_BRACED_FORM(AssignFrom, S s = "zz"; s.assign({p, n}, 1); out = text(s))
FL_BRACED_FORM(AssignSubstring, S s = "zz"; s.assign({p, n}, 1, 1); out = text(s))
FL_BRACED_FORM(Append, S s = "zz"; s.append({p, n}); out = text(s))
FL_BRACED_FORM(AppendFrom, S s = "zz"; s.append({p, n}, 1); out = text(s))
FL_BRACED_FORM(AppendSubstring, S s = "zz"; s.append({p, n}, 1, 1); out = text(s))

// ---- insert and replace ----
FL_BRACED_FORM(InsertAtIndex, S s = "zz"; s.insert(1, {p, n}); out = text(s))
FL_BRACED_FORM(InsertAtIndexFrom, S s = "zz"; s.insert(1, {p, n}, 1); out = text(s))
FL_BRACED_FORM(InsertAtIndexSubstring, S s = "zz"; s.insert(1, {p, n}, 1, 1); out = text(s))
FL_BRACED_FORM(ReplaceAtIndex, S s = "zzzz"; s.replace(1, 2, {p, n}); out = text(s))
FL_BRACED_FORM(ReplaceAtIndexFrom, S s = "zzzz"; s.replace(1, 2, {p, n}, 1); out = text(s))
FL_BRACED_FORM(ReplaceAtIndexSubstring, S s = "zzzz"; s.replace(1, 2, {p, n}, 1, 1);
               out = text(s))
FL_BRACED_FORM(ReplaceIterators, S s = "zzzz"; s.replace(s.cbegin() + 1, s.cbegin() + 3, {p, n});
               out = text(s))

// ---- compare ----
FL_BRACED_FORM(Compare, const S s = "abd"; out = std::to_string(s.compare({p, n})))
FL_BRACED_FORM(CompareSubstring, const S s = "xabc"; out = std::to_string(s.compare(1, 3, {p, n})))
FL_BRACED_FORM(CompareSubstringFrom, const S s = "xbc";
               out = std::to_string(s.compare(1, 2, {p, n}, 1)))
FL_BRACED_FORM(CompareSubstrings, const S s = "xbc";
               out = std::to_string(s.compare(1, 1, {p, n}, 1, 1)))

// ---- search ----
#define FL_BRACED_SEARCH(Name, member, at)                                                       \
  FL_BRACED_FORM(Name, const S s = "xxabcabz"; out = std::to_string(s.member({p, n})))          \
  FL_BRACED_FORM(Name##From, const S s = "xxabcabz"; out = std::to_string(s.member({p, n}, at)))
FL_BRACED_SEARCH(Find, find, 3)
FL_BRACED_SEARCH(Rfind, rfind, 3)
FL_BRACED_SEARCH(FindFirstOf, find_first_of, 3)
FL_BRACED_SEARCH(FindLastOf, find_last_of, 3)
FL_BRACED_SEARCH(FindFirstNotOf, find_first_not_of, 3)
FL_BRACED_SEARCH(FindLastNotOf, find_last_not_of, 6)
#undef FL_BRACED_SEARCH

FL_BRACED_FORM(StartsWith, const S s = "abcd"; out = std::to_string(s.starts_with({p, n})))
FL_BRACED_FORM(EndsWith, const S s = "xabc"; out = std::to_string(s.ends_with({p, n})))
#undef FL_BRACED_FORM

// contains is C++23 in libstdc++ (not declared in C++20 mode), so the result
// is checked against find; it takes the braced list through its
// std::string_view parameter, as libstdc++'s C++23 contains does.
TEST(StringBraced, Contains) {
  const char* p = braced_p;
  const std::size_t n = braced_n;
  const fl::string yes = "xxabcx", no = "xxabx";
  EXPECT_TRUE(yes.contains({p, n}));
  EXPECT_FALSE(no.contains({p, n}));
  EXPECT_EQ(fl::pmr::string("abc").contains({p, n}), true);
}

// The issue's own example, with the value spelled out.
TEST(StringBraced, BracedPairIsPointerAndCount) {
  fl::string s({"abc", 1});
  EXPECT_EQ(s, "a");
  s.append({"xyz", 2});
  EXPECT_EQ(s, "axy");
}

// ---- the interop the template constructor keeps ----

struct derived_std_string : std::string {
  using std::string::string;
};

int takes_std_string(const std::string& s) { return static_cast<int>(s.size()); }
std::size_t takes_fl_string(const fl::string& s) { return s.size(); }

TEST(StringBraced, StdStringInteropStillConverts) {
  const fl::string from_number = std::to_string(12345);  // copy-initialization
  EXPECT_EQ(from_number, "12345");
  const std::string long_std(40, 'q');
  const fl::string direct(long_std);
  EXPECT_EQ(direct, long_std);
  const fl::pmr::string pmr_copy = long_std;
  EXPECT_EQ(pmr_copy, long_std);
  EXPECT_EQ(takes_fl_string(long_std), 40u);  // implicit, as an argument
  const derived_std_string derived("derived");
  const fl::string from_derived = derived;
  EXPECT_EQ(from_derived, "derived");
  // And back: an fl string where `const std::string&` is expected.
  EXPECT_EQ(takes_std_string(direct), 40);
  EXPECT_EQ(std::stoi(from_number), 12345);
  fl::string assigned;
  assigned = std::to_string(7);
  EXPECT_EQ(assigned, "7");
}

}  // namespace
