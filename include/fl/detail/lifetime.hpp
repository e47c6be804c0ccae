// fl/detail/lifetime.hpp: FL_LIFETIMEBOUND, clang's [[clang::lifetimebound]]
// where the compiler has it, nothing elsewhere (GCC rejects the attribute).
//
// Put it after the parameter list of a member function whose result points
// into *this (or after a parameter the result points into): clang then warns
// (-Wdangling, -Wreturn-stack-address) when that result outlives a temporary
// or a local it came from:
//   std::string_view n = fl::json_store::open(f).get<std::string_view>("/n");
//   fl::json_value v() { auto s = fl::json_store::open(f); return s.root(); }
// Only where the result really lives in the object: a json_value's string
// views point into the store's mapping, not into the json_value, so its
// accessors carry no mark (the mark would warn on correct code such as
// `store.find(p)->as_string_view()`).
#pragma once

#if defined(__clang__) && defined(__has_cpp_attribute)
#if __has_cpp_attribute(clang::lifetimebound)
#define FL_LIFETIMEBOUND [[clang::lifetimebound]]
#endif
#endif
#ifndef FL_LIFETIMEBOUND
#define FL_LIFETIMEBOUND
#endif
