// fl::json_store::import of big texts, which the builder streams to the file
// in chunks (src/json/store.cpp), the block layout the JSON layer takes from
// the space (persist_format.hpp: payload_class, lay_live_block), and dump()'s
// string escapes at every position of its sixteen- and eight-byte paths.
#include <fl/json_store.hpp>
#include <fl/mapped_space.hpp>

#include "persist/persist_format.hpp"

#include "json_test_support.hpp"
#include "store_dir_test.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace {

using fl_test::str;
using JsonImportTest = fl_test::store_dir_test;

// A text of about 10 MB crosses the import's 4 MiB chunk twice: the blocks
// written in each run must land where the builder's offsets say, the
// space's counts must add up (verify), and a reopen reads the same document.
TEST_F(JsonImportTest, TextBiggerThanTheChunkImportsWhole) {
  const std::string one = fl_test::generated_twitter();
  std::string one_dumped;
  {
    auto s = fl::json_store::import(one, file("one.fljson"));
    one_dumped = str(s.dump());
  }
  std::string text = "[", want = "[";
  for (int i = 0; text.size() < (std::size_t{10} << 20); ++i) {
    if (i) {
      text += ",\n";
      want += ',';
    }
    text += one;
    want += one_dumped;
  }
  text += ']';
  want += ']';
  auto s = fl::json_store::import(text, file());
  EXPECT_EQ(str(s.dump()), want);
  s.sync();
  EXPECT_GT(s.verify(), 0u);
  { const fl::json_store closing = std::move(s); }
  fl::mapped_space(file()).verify();
  const auto r = fl::json_store::open(file());
  EXPECT_EQ(str(r.dump()), want);
  EXPECT_GT(r.verify(), 0u);
}

// An import streams its blocks to the file in runs of 4 MiB; the page two
// runs share goes to the file whole, like the pages inside a run, not into
// a private copy in the mapping, which would take a page table of its own
// that every later commit's scan of the mapping walks (some 330 after an
// import of ten million members). Counted from the page tables: the pages
// of the store's mapping present and not the file's (copied on write).
TEST_F(JsonImportTest, AnImportOfManyRunsCopiesNoPageOfThemIntoTheMapping) {
  const int pagemap = ::open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (pagemap < 0) GTEST_SKIP() << "no /proc/self/pagemap";
  const auto private_pages = [&](const std::string& name) {
    std::ifstream maps("/proc/self/maps");
    std::uint64_t n = 0;
    for (std::string line; std::getline(maps, line);) {
      if (line.find(name) == std::string::npos) continue;
      unsigned long lo = 0, hi = 0;
      EXPECT_EQ(std::sscanf(line.c_str(), "%lx-%lx", &lo, &hi), 2) << line;
      for (unsigned long a = lo; a < hi; a += 4096) {
        std::uint64_t e = 0;
        EXPECT_EQ(::pread(pagemap, &e, sizeof e, static_cast<off_t>(a / 4096 * sizeof e)), 8);
        if ((e >> 63 & 1) && !(e >> 61 & 1)) ++n;
      }
    }
    return n;
  };
  std::string text = "[";
  for (int i = 0; text.size() < (std::size_t{24} << 20); ++i)  // some 20 runs
    text += (i ? ",{\"id\":" : "{\"id\":") + std::to_string(i) + ",\"name\":\"member " +
            std::to_string(i) + "\"}";
  text += ']';
  auto s = fl::json_store::import(text, file("runs.fljson"));
  // The meta pages, the table's, and the last page, which no run follows.
  EXPECT_LE(private_pages("runs.fljson"), 8u);
  s.sync();
  EXPECT_GT(s.verify(), 0u);
  EXPECT_EQ(str(s.at("/1000/name").value()), "\"member 1000\"");
  ::close(pagemap);
}

// Small texts (below simdjson's threshold, and strict-parsed) take the same
// streaming path with a single run.
TEST_F(JsonImportTest, SmallTextsImportWhole) {
  for (const std::string_view t : {"{}", "[]", "\"\"", "\"abc\"", "[1,\"x\",{\"k\":\"v\"}]"}) {
    SCOPED_TRACE(t);
    std::filesystem::remove(file());
    auto s = fl::json_store::import(t, file());
    EXPECT_EQ(str(s.dump()), std::string(t));
    s.sync();
    EXPECT_GT(s.verify(), 0u);
  }
}

// The layout a builder lays out itself is the one mapped_space carves:
// the class allocate_end() takes, the header, and zeros to the class end.
TEST(PersistBlockLayout, LaidBlocksMatchTheSpacesCarving) {
  fl_test::temp_dir dir;
  fl::mapped_space space(dir / "s.flspace");
  for (std::uint64_t bytes = 0; bytes <= 700; ++bytes) {
    SCOPED_TRACE(bytes);
    const fl::fptr<void> p = space.allocate_end(static_cast<std::size_t>(bytes));
    const unsigned c = fl::detail::payload_class(bytes);
    const std::uint64_t cs = fl::detail::class_size(c);
    EXPECT_EQ(space.block_size(p), cs - 8);
    std::vector<unsigned char> block(cs, 0xAB);
    EXPECT_EQ(fl::detail::lay_live_block(block.data(), bytes), cs);
    fl::detail::block_header h;
    std::memcpy(&h, block.data(), sizeof h);
    EXPECT_EQ(h.tag(), fl::detail::block_live);
    EXPECT_EQ(h.cls(), c);
    EXPECT_EQ(h.back, 0u);
    std::memcpy(&h, space.get(fl::fptr<unsigned char>(p.offset() - 8)), sizeof h);
    EXPECT_EQ(h.cls(), c);
    for (std::uint64_t i = 8 + bytes; i < cs; ++i) ASSERT_EQ(block[i], 0) << "padding " << i;
  }
}

// dump() copies eight bytes at a time while none needs an escape: each
// escaped character at each offset of a 40-byte string, and bytes that
// need none (0x7F, 0x80 and above, space) beside them.
TEST_F(JsonImportTest, DumpEscapesAtEveryOffset) {
  struct esc {
    char c;
    const char* text;
  };
  const esc escapes[] = {{'"', "\\\""},       {'\\', "\\\\"},      {'\n', "\\n"},    {'\t', "\\t"},
                         {'\x01', "\\u0001"}, {'\x1f', "\\u001f"}, {'\x7f', "\x7f"}, {' ', " "}};
  std::string text = "[", want = "[";
  for (const esc& e : escapes) {
    for (std::size_t at = 0; at < 40; ++at) {
      std::string body(40, 'a');
      body[(at + 7) % 38] = '\xc3';  // U+00E9, two bytes of 0x80 and above, never at `at`
      body[(at + 7) % 38 + 1] = '\xa9';
      body[at] = e.c;
      // The input spells the character as dump() does: escaped, or raw.
      std::string json_body;
      for (const char c : body) {
        if (c == e.c)
          json_body += e.text;
        else
          json_body += c;
      }
      const std::string& out_body = json_body;
      if (text.size() > 1) {
        text += ',';
        want += ',';
      }
      text += '"' + json_body + '"';
      want += '"' + out_body + '"';
    }
  }
  text += ']';
  want += ']';
  auto s = fl::json_store::import(text, file());
  EXPECT_EQ(str(s.dump()), want);
}

// `s` escaped as dump() writes a string, one byte at a time: the reference
// for its vector paths.
std::string escaped(std::string_view s) {
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          static constexpr char hex[] = "0123456789abcdef";
          out += "\\u00";
          out += hex[c >> 4];
          out += hex[c & 15];
        } else {
          out += ch;
        }
    }
  }
  return out + '"';
}

// dump() finds a string's escapes sixteen bytes at a time, then eight, and
// reads a short tail as the string's last sixteen (or eight) bytes when the
// ones before it were copied as they are: strings of every length up to 80
// (so every tail, after and without an escape), made of characters that
// need an escape, that do not (0x7f, space) and of UTF-8 sequences of two
// to four bytes, each string beside its neighbours in one array, against
// the reference escaped byte by byte.
TEST_F(JsonImportTest, DumpEscapesStringsOfEveryLength) {
  const std::vector<std::string> pieces = {
      "a",  "b",    "Z",    "0",  " ",  "\x7f", "\"",       "\\",           "\n",
      "\t", "\x01", "\x1f", "\b", "\f", "\r",   "\xc3\xa9", "\xe6\x97\xa5", "\xf0\x9f\x98\x80"};
  std::mt19937 rng(fl_test::test_seed());
  std::string text = "[", want = "[";
  for (int round = 0; round < 40; ++round) {
    // Mostly plain text, so that runs long enough for the vector paths form.
    const unsigned plain_in_16 = round % 4 == 0 ? 8 : 15;
    for (std::size_t len = 0; len <= 80; ++len) {
      std::string body;
      while (body.size() < len) {
        body += rng() % 16 < plain_in_16 ? std::string(1, static_cast<char>('a' + rng() % 26))
                                         : pieces[rng() % pieces.size()];
      }
      if (text.size() > 1) {
        text += ',';
        want += ',';
      }
      text += escaped(body);
      want += escaped(body);
    }
  }
  text += ']';
  want += ']';
  auto s = fl::json_store::import(text, file());
  ASSERT_EQ(str(s.dump()), want);
  s.sync();
  EXPECT_EQ(str(fl::json_store::open(file()).dump()), want);
}

}  // namespace
