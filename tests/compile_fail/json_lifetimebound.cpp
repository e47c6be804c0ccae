// Views that outlive the json_store (or the range) they point into, which
// clang diagnoses through FL_LIFETIMEBOUND (fl/detail/lifetime.hpp).
// lifetime_warnings.cmake compiles this file once with clang and checks that
// every line marked "dangles" gets a -Wdangling or -Wreturn-stack-address
// warning and that no other line gets any warning (correct() holds correct
// uses: the marks are only where views dangle). root() and find() on a
// temporary store, as in
// `fl::json_store::open(f).find("/user/name")->as_string_view()`, are
// deleted and fail with every compiler (json_rvalue_view.cpp).
#include <fl/json_store.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

const char* const f = "settings.store";

int correct() {
  const fl::json_store s = fl::json_store::open(f);
  const std::string_view a = s.get<std::string_view>("/user/name");
  const std::string_view b = s.find("/user/name")->as_string_view();  // views the store
  const std::string_view c = s.value<std::string_view>("/theme", "light");
  const int n = fl::json_store::open(f).get<int>("/launches");  // a copy: no view
  const std::string t = fl::json_store::open(f).value("/theme", "light");
  const fl::json_value r = s.root();
  const std::vector<fl::json_value> all(r.elements().begin(), r.elements().end());
  const auto members = r.members();
  auto it = members.begin();
  for (const auto& [k, v] : r.members()) (void)v;
  return static_cast<int>(a.size() + b.size() + c.size() + t.size() + all.size()) + n +
         (it == members.end());
}

// A string read from a temporary store: the mapping is gone at the ';'.
std::string_view name() {
  std::string_view n = fl::json_store::open(f).get<std::string_view>("/user/name");  // dangles
  return n;
}

fl::json_value user_view() {
  fl::json_value v = fl::json_store::open(f).get<fl::json_value>("/user");  // dangles
  return v;
}

std::string_view theme() {
  std::string_view t =
      fl::json_store::open(f).value<std::string_view>("/theme", "light");  // dangles
  return t;
}

// A view returned from the function whose local store it points into.
fl::json_value root_view() {
  const fl::json_store s = fl::json_store::open(f);
  return s.root();  // dangles
}

std::optional<fl::json_value> find_user() {
  const fl::json_store s = fl::json_store::open(f);
  return s.find("/user");  // dangles
}

// An iterator into a temporary range (members() returns one by value).
bool has_members(const fl::json_value& v) {
  auto it = v.members().begin();  // dangles
  return it != v.members().end();
}

// A reference to the member a temporary iterator holds.
std::string_view first_key(const fl::json_value& v) {
  const fl::json_member& m = *v.members().begin();  // dangles
  return m.key;
}
