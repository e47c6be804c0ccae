// tools/fl-json/fl_json.cpp
// fl-json: a json_store from the shell.
//   fl-json import TEXT.json STORE     parse a JSON file ("-": stdin) into a new STORE
//   fl-json get STORE POINTER          print the value at an RFC 6901 pointer
//   fl-json set STORE POINTER JSON     put a JSON value there (and commit)
//   fl-json erase STORE POINTER        remove it (and commit)
//   fl-json patch STORE PATCH.json     apply an RFC 6902 patch ("-": stdin), all or nothing
//   fl-json dump STORE [--indent N]    print the document
//   fl-json stat STORE                 file, live, free and retired bytes, commits,
//                                      document bytes, values
//   fl-json verify STORE               read every value (every page's checksum)
//   fl-json compact STORE              rewrite the store at about its live size
// Exit status 0 on success; 1 with one line on stderr otherwise, and the
// store unchanged (every edit commands commits once, at the end).
#include <fl/json_store.hpp>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const char* const usage =
    "usage: fl-json import TEXT.json STORE | get STORE POINTER | set STORE POINTER JSON |"
    " erase STORE POINTER | patch STORE PATCH.json | dump STORE [--indent N] | stat STORE |"
    " verify STORE | compact STORE";

std::string read_input(const std::string& name) {
  if (name == "-") {
    std::ostringstream s;
    s << std::cin.rdbuf();
    return s.str();
  }
  std::ifstream in(name, std::ios::binary);
  if (!in) throw std::runtime_error(name + ": cannot read");
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void print(std::string_view s) {
  std::fwrite(s.data(), 1, s.size(), stdout);
  std::fputc('\n', stdout);
}

// Values in the document, counting containers and their contents.
std::uint64_t count_values(const fl::json_value& v) {
  std::uint64_t n = 1;
  for (const fl::json_value& e : v.elements()) n += count_values(e);
  for (const fl::json_member& m : v.members()) n += count_values(m.value);
  return n;
}

void need(const std::vector<std::string>& a, std::size_t n) {
  if (a.size() != n) throw usage_error(usage);
}

int run(const std::vector<std::string>& a) {
  if (a.empty()) throw usage_error(usage);
  const std::string& cmd = a[0];
  if (cmd == "import") {
    need(a, 3);
    fl::json_store s = fl::json_store::import(read_input(a[1]), a[2]);
    s.sync();
  } else if (cmd == "get") {
    need(a, 3);
    const fl::json_store s = fl::json_store::open(a[1]);
    const std::optional<fl::json_value> v = s.find(a[2]);
    if (!v) throw std::runtime_error("no value at \"" + a[2] + "\"");
    print(std::string_view(v->dump()));
  } else if (cmd == "set") {
    need(a, 4);
    fl::json_store s = fl::json_store::open(a[1]);
    s.set(a[2], a[3]);
    s.sync();
  } else if (cmd == "erase") {
    need(a, 3);
    fl::json_store s = fl::json_store::open(a[1]);
    if (!s.erase(a[2])) throw std::runtime_error("no value at \"" + a[2] + "\"");
    s.sync();
  } else if (cmd == "patch") {
    need(a, 3);
    // Opened first: the store is held (locked) while the patch is read.
    fl::json_store s = fl::json_store::open(a[1]);
    s.apply_patch(read_input(a[2]));
    s.sync();
  } else if (cmd == "dump") {
    int indent = -1;
    if (a.size() == 4 && a[2] == "--indent") {
      char* end = nullptr;
      const long n = std::strtol(a[3].c_str(), &end, 10);
      if (*end != '\0' || n < 0 || n > 16) throw usage_error("--indent takes 0 to 16");
      indent = static_cast<int>(n);
    } else {
      need(a, 2);
    }
    print(std::string_view(fl::json_store::open(a[1]).dump(indent)));
  } else if (cmd == "stat") {
    need(a, 2);
    const fl::json_store s = fl::json_store::open(a[1]);
    const fl::space_stats st = s.stats();
    using ull = unsigned long long;
    // live: bytes of live blocks; free: freed blocks kept for reuse;
    // retired: blocks an edit replaced, reusable once no reader holds them.
    std::printf(
        "file %s\nfile_bytes %llu\nlive_bytes %llu\nfree_bytes %llu\nretired_bytes %llu\n"
        "commits %llu\ndocument_bytes %zu\nvalues %llu\n",
        s.path().c_str(), static_cast<ull>(st.file_bytes), static_cast<ull>(st.used_bytes),
        static_cast<ull>(st.free_bytes), static_cast<ull>(st.deferred_bytes),
        static_cast<ull>(st.generation), s.dump().size(), static_cast<ull>(count_values(s.root())));
  } else if (cmd == "verify") {
    need(a, 2);
    const fl::json_store s = fl::json_store::open(a[1]);
    (void)s.dump();  // reads every value, checking every page it is on
    std::printf("ok %llu values\n", static_cast<unsigned long long>(count_values(s.root())));
  } else if (cmd == "compact") {
    need(a, 2);
    fl::json_store s = fl::json_store::open(a[1]);
    const std::uint64_t before = s.file_bytes();
    s.compact();
    s.sync();  // publishes the compacted file over the store
    std::printf("file_bytes %llu -> %llu\n", static_cast<unsigned long long>(before),
                static_cast<unsigned long long>(s.file_bytes()));
  } else {
    throw usage_error(usage);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const std::exception& e) {
    std::string msg = e.what();
    for (char& c : msg)
      if (c == '\n') c = ' ';
    std::fprintf(stderr, "fl-json: %s\n", msg.c_str());
    return 1;
  }
}
