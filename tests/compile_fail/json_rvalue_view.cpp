// Views taken from a temporary json_store would dangle at the end of the
// statement (the store, and its mapping, are gone): root() and find() on an
// rvalue store are deleted. FL_CASE picks the misuse.
#include <fl/json_store.hpp>

#include <string_view>

fl::json_value root_of_temporary() {
#if FL_CASE == 1
  return fl::json_store::open("settings.store").root();
#else
  return *fl::json_store::open("settings.store").find("/user/name");
#endif
}
