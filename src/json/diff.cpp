// src/json/diff.cpp: json_diff(), the RFC 6902 patch that turns one
// document into another, read through json_value views only (no store
// internals), so it diffs values of one store or of two.
//
// The patch reproduces `to` exactly as dump() writes it, member order
// included, when applied with json_store::apply_patch (or any RFC 6902
// implementation that keeps member order, such as nlohmann::ordered_json):
//   - scalars, and values whose type changes, are replaced whole;
//   - objects: members `to` lacks are removed; the longest run of `to`'s
//     first members that already stands in that order in `from` stays in
//     place and is diffed member by member; every later member of `to` is
//     appended in order (an "add", or, when `from` has it, a "move" onto
//     itself, which RFC 6902 4.4 defines as remove then add, so it lands at
//     the end, followed by the diff of its value);
//   - arrays: the equal elements at the start and at the end are left alone;
//     in between, elements at the same index are diffed, then the surplus is
//     removed from the highest index down or the missing ones added in
//     increasing index order, so every index is valid when its operation runs.
//   - an object with a repeated key (which RFC 8259 allows and the store
//     keeps) is replaced whole: a pointer cannot tell its members apart.
#include "json/json_internal.hpp"

#include <fl/json_store.hpp>

#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace fl {
inline namespace FL_ABI_NS {
namespace {

using detail::json::append_token;
using detail::json::byte_buffer;

// Equal as dump() writes them: the same type, the same text of every number
// (1 and 1.0 differ), the same members in the same order.
bool same(const json_value& a, const json_value& b) {
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case json_type::null: return true;
    case json_type::boolean: return a.as_bool() == b.as_bool();
    case json_type::string: return a.as_string_view() == b.as_string_view();
    case json_type::number:
      return std::string_view(a.dump()) == std::string_view(b.dump());
    case json_type::array: {
      if (a.size() != b.size()) return false;
      for (std::size_t i = 0; i < a.size(); ++i)
        if (!same(a[i], b[i])) return false;
      return true;
    }
    case json_type::object: {
      if (a.size() != b.size()) return false;
      const json_value::member_range bm = b.members();  // the iterator points into it
      auto ib = bm.begin();
      for (const json_member& m : a.members()) {
        if (m.key != ib->key || !same(m.value, ib->value)) return false;
        ++ib;
      }
      return true;
    }
  }
  return false;
}

std::vector<json_member> members_of(const json_value& v) {
  std::vector<json_member> out;
  out.reserve(v.size());
  for (const json_member& m : v.members()) out.push_back(m);
  return out;
}

bool has_repeated_key(const std::vector<json_member>& ms) {
  std::vector<std::string_view> keys;
  keys.reserve(ms.size());
  for (const json_member& m : ms) keys.push_back(m.key);
  std::sort(keys.begin(), keys.end());
  return std::adjacent_find(keys.begin(), keys.end()) != keys.end();
}

class differ {
 public:
  fl::string finish() {
    if (first_) return fl::string("[]");
    out_.append("]", 1);
    return fl::string(reinterpret_cast<const char*>(out_.data()), out_.size());
  }

  // Appends the operations that turn `a` into `b`, both at `path_`.
  void diff(const json_value& a, const json_value& b) {
    if (a.type() == b.type() && a.is_object()) return diff_objects(a, b);
    if (a.type() == b.type() && a.is_array()) return diff_arrays(a, b);
    if (!same(a, b)) op("replace", nullptr, &b);
  }

 private:
  void diff_objects(const json_value& a, const json_value& b) {
    const std::vector<json_member> am = members_of(a), bm = members_of(b);
    if (has_repeated_key(am) || has_repeated_key(bm)) {
      if (!same(a, b)) op("replace", nullptr, &b);
      return;
    }
    std::unordered_map<std::string_view, std::size_t> in_a, in_b;
    for (std::size_t i = 0; i < am.size(); ++i) in_a.emplace(am[i].key, i);
    for (std::size_t i = 0; i < bm.size(); ++i) in_b.emplace(bm[i].key, i);
    // Members `b` lacks go; `kept` counts b's first members that stand in
    // a (among the members both have) in b's order.
    std::size_t kept = 0;
    for (const json_member& m : am) {
      const auto it = in_b.find(m.key);
      if (it == in_b.end()) {
        at_key(m.key, [&] { op("remove", nullptr, nullptr); });
      } else if (kept < bm.size() && it->second == kept) {
        ++kept;
      }
    }
    for (std::size_t i = 0; i < bm.size(); ++i) {
      const auto it = in_a.find(bm[i].key);
      at_key(bm[i].key, [&] {
        if (it == in_a.end()) return op("add", nullptr, &bm[i].value);
        if (i >= kept) op("move", &path_, nullptr);  // onto itself: to the end
        diff(am[it->second].value, bm[i].value);
      });
    }
  }

  void diff_arrays(const json_value& a, const json_value& b) {
    const std::size_t na = a.size(), nb = b.size();
    std::size_t head = 0;
    while (head < na && head < nb && same(a[head], b[head])) ++head;
    std::size_t tail = 0;
    while (tail < na - head && tail < nb - head && same(a[na - 1 - tail], b[nb - 1 - tail]))
      ++tail;
    const std::size_t ma = na - head - tail, mb = nb - head - tail;
    for (std::size_t i = 0; i < std::min(ma, mb); ++i)
      at_index(head + i, [&] { diff(a[head + i], b[head + i]); });
    for (std::size_t i = ma; i > mb; --i)
      at_index(head + i - 1, [&] { op("remove", nullptr, nullptr); });
    for (std::size_t i = ma; i < mb; ++i) {
      const json_value v = b[head + i];
      at_index(head + i, [&] { op("add", nullptr, &v); });
    }
  }

  // Runs `f` with path_ extended by one reference token.
  template <class F>
  void at_key(std::string_view key, F f) {
    const std::size_t n = path_.size();
    append_token(path_, key);
    f();
    path_.resize(n);
  }
  template <class F>
  void at_index(std::size_t i, F f) {
    const std::size_t n = path_.size();
    path_ += '/';
    path_ += std::to_string(i);
    f();
    path_.resize(n);
  }

  // {"op":name,"path":path_[,"from":*from][,"value":*value]}
  void op(std::string_view name, const std::string* from, const json_value* value) {
    out_.append(first_ ? "[{\"op\":\"" : ",{\"op\":\"", 8);
    first_ = false;
    out_.append(name.data(), name.size());
    out_.append("\",\"path\":", 9);
    detail::json::dump_string(path_, out_);
    if (from) {
      out_.append(",\"from\":", 8);
      detail::json::dump_string(*from, out_);
    }
    if (value) {
      out_.append(",\"value\":", 9);
      const fl::string text = value->dump();
      out_.append(text.data(), text.size());
    }
    out_.append("}", 1);
  }

  byte_buffer out_;
  bool first_ = true;
  std::string path_;  // the RFC 6901 pointer of the values being diffed
};

}  // namespace

fl::string json_diff(const json_value& from, const json_value& to) {
  differ d;
  d.diff(from, to);
  return d.finish();
}

}  // namespace FL_ABI_NS
}  // namespace fl
