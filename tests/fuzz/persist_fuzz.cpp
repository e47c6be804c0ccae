// tests/fuzz/persist_fuzz.cpp: the persistence loaders on hostile files.
// The first input byte picks what the rest becomes:
//   0  a fl::persist<T> value file, loaded as a 24-byte value
//   1  a fl::mapped_space data file as is, opened and verified
//   2  a valid space (built once) with the input written over its first
//      meta page, whose checksum is then fixed, so the fuzzer reaches the
//      field checks behind the CRC
//   3  a valid space with a redo log built from the input (header checksum
//      fixed), so that log validation and replay see hostile records
// A load may succeed or throw fl::persist_error; anything else (a crash, a
// sanitizer report, another exception, memory past -rss_limit_mb) is a bug.
// After a successful open the root and every object reachable from it are
// read through get(), which must never fault.
#include "persist/persist_format.hpp"
#include <fl/persist.hpp>

#include "fuzz_input.hpp"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

namespace fs = std::filesystem;

struct value24 {
  std::uint64_t a, b, c;
};

struct files {
  fs::path dir;
  std::vector<char> valid_space;  // a committed space with a few objects
  files() {
    const char* t = std::getenv("TMPDIR");
    std::string tmpl = std::string(t && *t ? t : "/tmp") + "/fl_persist_fuzzXXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
    dir = tmpl;
    const fs::path p = dir / "template";
    {
      fl::mapped_space s(p, {.durable = false});
      fl::fptr<fl::fptr<fl::pstring>> arr = s.allocate(4 * 8).cast<fl::fptr<fl::pstring>>();
      for (int i = 0; i < 4; ++i) {
        const fl::fptr<fl::pstring> str =
            fl::pstring::make(s, std::string(static_cast<std::size_t>(i * 20), 'a'));
        s.get(arr)[i] = str;
      }
      s.set_root(arr);
      s.sync();
    }
    std::ifstream in(p, std::ios::binary);
    valid_space.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    fs::remove(p);
    fs::path log = p;
    log += "-log";
    fs::remove(log);
  }
  ~files() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

void write(const fs::path& p, const void* data, std::size_t n) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(n));
}

// Opens, verifies and walks the space's root as an array of 4 pstrings.
void open_space(const fs::path& p) {
  try {
    fl::mapped_space s(
        p, {.mode = fl::open_mode::open_existing, .reserve = 1 << 20, .durable = false});
    try {
      s.verify();
    } catch (const fl::persist_error&) {}
    const fl::fptr<fl::pstring>* arr = s.get(s.root<fl::fptr<fl::pstring>>());
    if (arr != nullptr) {
      for (int i = 0; i < 4; ++i) {
        const fl::pstring* str = s.get(arr[i]);
        if (str != nullptr) fl_fuzz::check(str->view(s).size() == str->size());
      }
    }
  } catch (const fl::persist_error&) {}
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const files f;
  fl_fuzz::reader in{data, size};
  const std::uint8_t mode = in.byte() % 4;
  const std::string_view rest = in.text(in.left);
  const fs::path path = f.dir / "input";
  fs::path log = path;
  log += "-log";
  fs::remove(log);

  if (mode == 0) {
    write(path, rest.data(), rest.size());
    try {
      fl::persist<value24> v(path, 7);
      fl_fuzz::check(v->a == v->a);
    } catch (const fl::persist_error&) {}
    return 0;
  }
  if (mode == 1) {
    write(path, rest.data(), rest.size());
    open_space(path);
    return 0;
  }
  std::vector<char> file = f.valid_space;
  if (mode == 2) {
    fl::detail::space_meta m;
    std::memcpy(&m, file.data(), sizeof m);
    std::memcpy(&m, rest.data(), std::min(rest.size(), sizeof m));
    m.crc = fl::detail::meta_crc(m);
    std::memcpy(file.data(), &m, sizeof m);
    write(path, file.data(), file.size());
    open_space(path);
    return 0;
  }
  // mode 3: the newest meta slot sends the open to the log, whose first
  // record is the input, with its marks, generation and head checksum set
  // (the meta image, extents and page images as they come).
  fl::detail::space_meta current[2];
  std::memcpy(&current[0], file.data(), sizeof(fl::detail::space_meta));
  std::memcpy(&current[1], file.data() + fl::detail::space_page, sizeof(fl::detail::space_meta));
  const std::uint32_t d =
      ((current[0].state >> 1) - (current[1].state >> 1)) & fl::detail::meta_seq_mask;
  const int n = d == 1 ? 0 : 1;
  fl::detail::space_meta& newest = current[n];
  newest.state |= fl::detail::meta_log_bit;
  newest.crc = fl::detail::meta_crc(newest);
  std::memcpy(file.data() + n * fl::detail::space_page, &newest, sizeof newest);
  std::vector<char> logbytes(rest.begin(), rest.end());
  fl::detail::log_record h;
  const std::size_t need = sizeof h + sizeof(fl::detail::space_meta);
  if (logbytes.size() < need) logbytes.resize(need, 0);
  std::memcpy(&h, logbytes.data(), sizeof h);
  std::memcpy(h.magic, fl::detail::record_magic, sizeof h.magic);
  h.byte_order = fl::detail::byte_order_mark;
  h.format_version = fl::detail::space_format_version;
  h.uuid = newest.uuid;
  h.generation = newest.generation;
  fl::detail::space_meta m;
  std::memcpy(&m, logbytes.data() + sizeof h, sizeof m);
  m.uuid = newest.uuid;
  m.generation = newest.generation;
  m.crc = fl::detail::meta_crc(m);
  std::memcpy(logbytes.data() + sizeof h, &m, sizeof m);
  const std::size_t ext_room = logbytes.size() - need;
  const std::size_t ext_bytes =
      static_cast<std::size_t>(std::min<std::uint64_t>(h.extent_count, ext_room / 16)) * 16;
  h.head_crc = fl::detail::crc32c(logbytes.data() + sizeof h, sizeof m + ext_bytes,
                                  fl::detail::crc32c(&h, fl::detail::record_crc_span));
  std::memcpy(logbytes.data(), &h, sizeof h);
  write(path, file.data(), file.size());
  write(log, logbytes.data(), logbytes.size());
  open_space(path);
  return 0;
}
