// tools/fl-json/fl_json.cpp
// fl-json: a json_store from the shell.
//   fl-json import [--force] TEXT.json STORE
//                                      parse a JSON file ("-": stdin) into a new STORE;
//                                      an existing STORE is replaced only with --force
//   fl-json get STORE POINTER          print the value at an RFC 6901 pointer
//   fl-json set STORE POINTER JSON     put a JSON value there (and commit)
//   fl-json erase STORE POINTER        remove it (and commit)
//   fl-json patch STORE PATCH.json     apply an RFC 6902 patch ("-": stdin), all or nothing
//   fl-json diff FROM TO               print the RFC 6902 patch that turns store FROM into
//                                      store TO (fl::json_diff; "[]" when they are equal)
//   fl-json dump STORE [--indent N]    print the document
//   fl-json stat STORE                 file, live, free and retired bytes, commits,
//                                      document bytes, values
//   fl-json verify STORE               check the whole committed structure
//                                      (json_store::verify)
//   fl-json compact STORE              rewrite the store at about its live size
// get, dump, stat, verify and diff open the store read-only: they never take
// its lock, so they never make the application that holds it (or opens it
// meanwhile) fail "locked". Exit status: `exit_codes` below (also in --help
// and docs/json_store.md), with one line on stderr for every failure; the
// store is unchanged after a failure (every edit command commits once, at
// the end).
#include <fl/json_store.hpp>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <exception>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

// The exit codes, one per kind of failure.
enum exit_code : int {
  exit_ok = 0,
  exit_other = 1,      // anything else (out of memory, an internal error)
  exit_usage = 2,      // usage or bad input: arguments, JSON text, pointer, patch, an
                       // existing STORE for import without --force
  exit_not_found = 3,  // no store at the path, or no value at the pointer
  exit_locked = 4,     // the store is held by another writer (process or handle)
  exit_damaged = 5,    // the store is damaged, truncated or not a store (verify's faults)
  exit_io = 6,         // an I/O error (permissions, a full disk, ...)
};

struct usage_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct not_found_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct io_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const char* const usage =
    "usage: fl-json import [--force] TEXT.json STORE | get STORE POINTER |"
    " set STORE POINTER JSON | erase STORE POINTER | patch STORE PATCH.json | diff FROM TO |"
    " dump STORE [--indent N] | stat STORE | verify STORE | compact STORE |"
    " changes STORE [--since N] [--follow] | --help";

const char* const help =
    "fl-json: a JSON document in a memory-mapped store file (fl::json_store)\n"
    "\n"
    "  import [--force] TEXT.json STORE  parse TEXT.json (\"-\": stdin) into a new STORE;\n"
    "                                    an existing STORE is replaced only with --force\n"
    "  get STORE POINTER                 print the value at an RFC 6901 pointer\n"
    "  set STORE POINTER JSON            put a JSON value there (and commit)\n"
    "  erase STORE POINTER               remove it (and commit)\n"
    "  patch STORE PATCH.json            apply an RFC 6902 patch, all or nothing\n"
    "  diff FROM TO                      the RFC 6902 patch from store FROM to store TO\n"
    "  dump STORE [--indent N]           print the document\n"
    "  stat STORE                        sizes, commits and counts\n"
    "  verify STORE                      check the whole committed structure\n"
    "  compact STORE                     rewrite the store at about its live size\n"
    "  changes STORE [--since N] [--follow]\n"
    "                                    one JSON line per commit after sequence N\n"
    "                                    (default: the oldest kept): {\"history\":ID,\n"
    "                                    \"sequence\":N,\"patch\":[RFC 6902 operations]};\n"
    "                                    --follow waits for new commits; after an import\n"
    "                                    replaced the store, a line whose patch replaces\n"
    "                                    the whole document starts its new history\n"
    "\n"
    "get, dump, stat, verify, diff and changes open the store read-only and never block\n"
    "the application that holds it.\n"
    "\n"
    "Exit status (one line on stderr for every failure):\n"
    "  0  success\n"
    "  1  another failure (out of memory, an internal error)\n"
    "  2  usage or bad input: arguments, JSON text, a pointer, a patch, or an\n"
    "     existing STORE for import without --force\n"
    "  3  not found: no store at the path, or no value at the pointer\n"
    "  4  locked: another process (or handle) holds the store as its writer\n"
    "  5  damaged: the store is damaged, truncated or not a store\n"
    "  6  I/O error: permissions, a full disk, ...\n";

// The exit code of a persist_error, from its reason: "locked...", "no such
// file", an errno's text after the step that failed ("open: Permission
// denied"), or damage (every other reason the store gives).
int persist_exit_code(const fl::persist_error& e) {
  const std::string& r = e.reason();
  if (r.rfind("locked", 0) == 0) return exit_locked;
  if (r.rfind("no such file", 0) == 0) return exit_not_found;
  const std::size_t colon = r.find(": ");
  if (colon != std::string::npos) {
    const std::string_view tail = std::string_view(r).substr(colon + 2);
    if (tail == std::strerror(ENOENT)) return exit_not_found;
    for (int err : {EACCES, EPERM, EIO, ENOSPC, EDQUOT, EROFS, EFBIG, EMFILE, ENFILE, ENOMEM,
                    EISDIR, ENOTDIR, ENAMETOOLONG, EBUSY, ETXTBSY, EXDEV})
      if (tail == std::strerror(err)) return exit_io;
  }
  return exit_damaged;
}

std::string read_input(const std::string& name) {
  if (name == "-") {
    std::ostringstream s;
    s << std::cin.rdbuf();
    return s.str();
  }
  std::ifstream in(name, std::ios::binary);
  if (!in) {
    const int err = errno;
    if (err == ENOENT) throw not_found_error(name + ": no such file");
    throw io_error(name + ": cannot read (" + std::strerror(err) + ")");
  }
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void print(std::string_view s) {
  std::fwrite(s.data(), 1, s.size(), stdout);
  std::fputc('\n', stdout);
}

// `fl-json changes`: a reader of the store prints each commit's patch as a
// line; with `follow`, it refreshes every 20 ms and prints what came since.
// A store replaced by an import (a new history) is announced by a line whose
// patch sets the whole document, and followed from there.
void print_changes(const std::string& path, std::optional<std::uint64_t> since, bool follow) {
  fl::json_store s = fl::json_store::open(path, fl::open_mode::read_only);
  std::uint64_t at = since ? *since : s.oldest_change();
  if (at < s.oldest_change() || at > s.sequence())
    throw not_found_error("changes: " + std::to_string(at) + " is not a sequence to follow from (" +
                          std::to_string(s.oldest_change()) + " to " +
                          std::to_string(s.sequence()) + " are)");
  std::uint64_t history = s.history();
  char id[17];
  auto line = [&](std::uint64_t sequence, std::string_view patch) {
    std::snprintf(id, sizeof id, "%016llx", static_cast<unsigned long long>(history));
    std::string l = "{\"history\":\"";
    l.append(id).append("\",\"sequence\":").append(std::to_string(sequence));
    l.append(",\"patch\":").append(patch).append("}");
    print(l);
  };
  for (;;) {
    for (const fl::json_change& c : s.changes(at)) {
      line(c.sequence, std::string_view(c.patch));
      at = c.sequence;
    }
    if (!follow) return;
    std::fflush(stdout);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    s.refresh();
    if (s.history() != history) {
      history = s.history();
      at = s.sequence();
      std::string whole = "[{\"op\":\"replace\",\"path\":\"\",\"value\":";
      whole.append(std::string_view(s.dump())).append("}]");
      line(at, whole);
    }
  }
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
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    std::fputs(help, stdout);
  } else if (cmd == "import") {
    const bool force = a.size() == 4 && a[1] == "--force";
    if (!force) need(a, 3);
    const std::string& text = a[force ? 2 : 1];
    const std::string& store = a[force ? 3 : 2];
    std::error_code ec;
    if (!force && std::filesystem::exists(store, ec))
      throw usage_error(store + " exists: import replaces a store only with --force");
    fl::json_store s = fl::json_store::import(read_input(text), store);
    s.sync();
  } else if (cmd == "get") {
    need(a, 3);
    const fl::json_store s = fl::json_store::open(a[1], fl::open_mode::read_only);
    const std::optional<fl::json_value> v = s.find(a[2]);
    if (!v) throw not_found_error("no value at \"" + a[2] + "\"");
    print(std::string_view(v->dump()));
  } else if (cmd == "set") {
    need(a, 4);
    fl::json_store s = fl::json_store::open(a[1]);
    s.set(a[2], a[3]);
    s.sync();
  } else if (cmd == "erase") {
    need(a, 3);
    fl::json_store s = fl::json_store::open(a[1]);
    if (!s.erase(a[2])) throw not_found_error("no value at \"" + a[2] + "\"");
    s.sync();
  } else if (cmd == "patch") {
    need(a, 3);
    // Opened first: the store is held (locked) while the patch is read.
    fl::json_store s = fl::json_store::open(a[1]);
    s.apply_patch(read_input(a[2]));
    s.sync();
  } else if (cmd == "diff") {
    need(a, 3);
    // Readers: a diff never takes a store's lock from its writer.
    const fl::json_store from = fl::json_store::open(a[1], fl::open_mode::read_only);
    const fl::json_store to = fl::json_store::open(a[2], fl::open_mode::read_only);
    print(std::string_view(fl::json_diff(from.root(), to.root())));
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
    print(std::string_view(fl::json_store::open(a[1], fl::open_mode::read_only).dump(indent)));
  } else if (cmd == "changes") {
    if (a.size() < 2) throw usage_error(usage);
    std::optional<std::uint64_t> since;
    bool follow = false;
    for (std::size_t i = 2; i < a.size(); ++i) {
      if (a[i] == "--follow") {
        follow = true;
      } else if (a[i] == "--since" && i + 1 < a.size()) {
        char* end = nullptr;
        errno = 0;
        const unsigned long long n = std::strtoull(a[++i].c_str(), &end, 10);
        if (*end != '\0' || errno != 0 || a[i].empty() || a[i][0] == '-')
          throw usage_error("--since takes a sequence number");
        since = n;
      } else {
        throw usage_error(usage);
      }
    }
    print_changes(a[1], since, follow);
  } else if (cmd == "stat") {
    need(a, 2);
    const fl::json_store s = fl::json_store::open(a[1], fl::open_mode::read_only);
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
    const fl::json_store s = fl::json_store::open(a[1], fl::open_mode::read_only);
    std::printf("ok %llu values\n", static_cast<unsigned long long>(s.verify()));
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
  auto fail = [](const std::exception& e, int code) {
    std::string msg = e.what();
    for (char& c : msg)
      if (c == '\n') c = ' ';
    std::fprintf(stderr, "fl-json: %s\n", msg.c_str());
    return code;
  };
  try {
    return run(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const usage_error& e) {
    return fail(e, exit_usage);
  } catch (const not_found_error& e) {
    return fail(e, exit_not_found);
  } catch (const io_error& e) {
    return fail(e, exit_io);
  } catch (const fl::persist_error& e) {
    return fail(e, persist_exit_code(e));
  } catch (const fl::json_error& e) {
    return fail(e, exit_usage);
  } catch (const std::invalid_argument& e) {
    return fail(e, exit_usage);  // a malformed pointer or patch, a failed test, a wrong type
  } catch (const std::out_of_range& e) {
    return fail(e, exit_not_found);  // no value at a pointer (or its parent)
  } catch (const std::exception& e) {
    return fail(e, exit_other);
  }
}
