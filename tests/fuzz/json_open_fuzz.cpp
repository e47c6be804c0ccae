// libFuzzer target: json_store::open over any file contents. Opening, dumping,
// looking values up, editing (which frees what it replaces) and compacting
// any file must either work or throw fl::persist_error; never crash, hang or
// read outside the file.
//
// Input byte 0 picks the mode:
//   0  the rest is the file, as is
//   1  the rest is the file, with its checksums recomputed (the mapped_space
//      meta slots' CRCs, the page checksum table and its CRC, as the slots
//      describe them), so the structural checks behind the checksums are
//      what gets fuzzed
//   2  the rest is (position high, position low, xor) byte triples applied to
//      a valid two-commit store made once per process (objects with and
//      without the member index, arrays, strings, numbers, an array tree of
//      three levels and an object tree (format 6) of three: the process
//      writes trees of a tiny shape, 2 to 4 entries a node), whose
//      checksums are then recomputed when byte 1 is odd
#include "fuzz_input.hpp"

#include "persist/crc32c.hpp"
#include <fl/detail/json_format.hpp>
#include "persist/persist_format.hpp"
#include <fl/json_store.hpp>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

namespace {

namespace fj = fl::detail::json;

const std::filesystem::path& scratch_file() {
  static const std::filesystem::path p =
      std::filesystem::temp_directory_path() /
      ("fl_json_open_fuzz_" + std::to_string(::getpid()) + ".fljson");
  return p;
}

void write_file(const std::string& bytes) {
  std::ofstream out(scratch_file(), std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string read_file() {
  std::ifstream in(scratch_file(), std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Recomputes what checksums the meta slots point at (within the file's
// bytes): every page's entry in the page checksum table, the table's CRC and
// the slot's own CRC.
void repair(std::string& f) {
  namespace fd = fl::detail;
  constexpr std::uint64_t page = fd::space_page;
  for (std::uint64_t k = 0; k < 2; ++k) {
    const std::uint64_t at = k * page;
    if (f.size() < at + sizeof(fd::space_meta)) continue;
    fd::space_meta m;
    std::memcpy(&m, f.data() + at, sizeof m);
    const std::uint64_t table = m.alloc.crc_table, bytes = m.alloc.crc_table_bytes;
    if (table % page == 0 && bytes % page == 0 && bytes < (1u << 22) && table <= f.size() &&
        bytes <= f.size() - table) {
      for (std::uint64_t p = 2; p < bytes / 4 && (p + 1) * page <= f.size(); ++p) {
        const bool in_table = p * page >= table && p * page < table + bytes;
        const std::uint32_t c = in_table ? 0 : fd::crc32c(f.data() + p * page, page);
        std::memcpy(f.data() + table + p * 4, &c, 4);
      }
      m.table_crc = fd::crc32c(f.data() + table, bytes);
    }
    m.crc = fd::meta_crc(m);
    std::memcpy(f.data() + at, &m, sizeof m);
  }
}

// A valid store: an import and a second, small commit.
const std::string& template_store() {
  static const std::string bytes = [] {
    std::string doc =
        R"({"a":{"b":[1,-2,3.5,"x\u00e9",true,false,null,18446744073709551615,1e999],"c":{}},"big":{)";
    for (int i = 0; i < 40; ++i)
      doc += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":" + std::to_string(i * 3);
    doc += R"(},"statuses":[{"id":1,"text":"hello"},{"id":2}],"log":[)";
    for (int i = 0; i < 40; ++i) doc += (i ? "," : "") + (i % 3 ? std::to_string(i) : "\"e\"");
    doc += "]}";
    fj::set_tree_shape({4, 4});
    {
      auto s = fl::json_store::import(doc, scratch_file());
      s.sync();
      s.set("/a/b/0", R"({"deep":[[],{}]})");
      s.set("/big/k41", "\"added\"");
      s.erase("/big/k5");
      s.insert("/log/7", R"("inserted")");
      s.sync();
    }
    std::error_code ec;
    std::filesystem::remove(scratch_file().string() + "-log", ec);
    return read_file();
  }();
  return bytes;
}

void exercise() {
  try {
    auto s = fl::json_store::open(scratch_file());
    (void)s.dump();
    const fl::json_value root = s.root();
    std::size_t i = 0;
    for (fl::json_member m : root.members()) {
      (void)m.value.dump();
      (void)root.find(m.key);
      if (++i == 8) break;
    }
    if (const auto big = s.find("/big"); big && big->is_object()) {
      i = 0;
      for (fl::json_member m : big->members()) {
        (void)big->find(m.key);
        if (++i == 50) break;
      }
    }
    for (const char* p :
         {"/0", "/a", "/statuses/0/id", "/0/0", "/a/b", "/big/k7", "/big/k41", "/a/b/0/deep/1",
          "/log/0", "/log/7", "/log/40", "/big/k0", "/big/k39", "/big/k5"}) {
      if (auto v = s.find(p)) (void)v->dump();
    }
  } catch (const fl::persist_error&) {}
}

// Edits free what they replace (walking the old value), their commit
// retires the change record the feed's ring drops and frees what its
// deferred batches release, and compact() rewrites the whole document: on
// a damaged file each must raise persist_error (or the API's own errors)
// and never loop or crash. The commit writes the scratch file only.
void exercise_edits() {
  try {
    auto s = fl::json_store::open(scratch_file());
    for (const char* p : {"/a", "/a/b/0", "/big/k7", "/statuses/0", "/0", "/log/3", "/log/39",
                          "/big/k0", "/big/new"}) {
      try {
        s.set(p, R"(["replaced",{"k":"v"}])");
      } catch (const std::out_of_range&) {}
      try {
        (void)s.erase(p);
      } catch (const std::out_of_range&) {}
    }
    try {
      s.set("/big/k3", "7");
    } catch (const std::out_of_range&) {}
    s.sync();  // the edits' commit: the change feed's ring, frees, the log
    try {
      s.set("/log/-", "1");
    } catch (const std::out_of_range&) {}
    s.compact();
    (void)s.dump();
  } catch (const fl::persist_error&) {}
  std::error_code ec;
  std::filesystem::remove(scratch_file().string() + ".compact", ec);
  std::filesystem::remove(scratch_file().string() + ".compact-log", ec);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  fl_fuzz::reader in{data + 1, size - 1};
  const int mode = data[0] % 3;
  if (mode < 2) {
    std::string f(in.text(in.left));
    if (mode == 1) repair(f);
    write_file(f);
    exercise();
    exercise_edits();
  } else {
    std::string f = template_store();
    const bool fix = in.left && (*in.p & 1);
    while (in.left >= 3) {
      const std::size_t pos = ((std::size_t{in.byte()} << 8 | in.byte()) * 7) % f.size();
      f[pos] = static_cast<char>(f[pos] ^ in.byte());
    }
    if (fix) repair(f);
    write_file(f);
    exercise();
    write_file(f);
    exercise_edits();
  }
  std::error_code ec;
  std::filesystem::remove(scratch_file(), ec);
  std::filesystem::remove(scratch_file().string() + "-log", ec);
  return 0;
}
