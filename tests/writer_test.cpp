// tests/writer_test.cpp: fl::writer writes exactly the bytes a std::string
// built with the same pieces holds (numbers as std::to_chars prints them), to
// a file descriptor through its buffer and into an fl::string, across buffer
// and capacity boundaries; errors of write(2) surface from flush().
#include <fl/writer.hpp>

#include <gtest/gtest.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <random>
#include <string>
#include <system_error>

#include <fcntl.h>
#include <unistd.h>

#include "test_support.hpp"

namespace {

__extension__ typedef __int128 i128;

template <class T>
std::string chars(T v) {
  char buf[64];
  return std::string(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

// One random piece, written to both the writer and the expected text.
void random_piece(std::mt19937_64& rng, fl::writer& w, std::string& want) {
  switch (rng() % 7) {
    case 0: {
      const std::string t = fl_test::random_run(rng, 40, 'a');
      w << t.c_str();
      want += t;
      break;
    }
    case 1: {
      const std::string t = fl_test::random_run(rng, 3000, 'A');
      w.write(t);
      want += t;
      break;
    }
    case 2: {
      const auto v = static_cast<long long>(rng());
      w << v;
      want += chars(v);
      break;
    }
    case 3: {
      const auto v = static_cast<unsigned>(rng());
      w << v;
      want += chars(v);
      break;
    }
    case 4: {
      double v;
      const std::uint64_t bits = rng();
      std::memcpy(&v, &bits, sizeof v);
      if (v != v) v = static_cast<double>(rng() % 100000) / 7;  // NaN's sign prints either way
      w << v;
      want += chars(v);
      break;
    }
    case 5: {
      const double v = static_cast<double>(rng() % 1000000) + 0.1415926;
      w << v;
      want += chars(v);
      break;
    }
    default: w << '\n'; want += '\n';
  }
}

using fl_test::read_whole_file;
using fl_test::temp_file;

TEST(WriterTest, NumbersPrintAsToChars) {
  fl::string s;
  {
    fl::writer w(s);
    w << 0 << ' ' << -1 << ' ' << std::numeric_limits<long long>::min() << ' '
      << std::numeric_limits<unsigned long long>::max() << ' ' << 0.1 << ' ' << 1e100 << ' ' << -0.0
      << ' ' << 1.5f << ' ' << true << ' ' << static_cast<short>(-7) << ' '
      << static_cast<i128>(1) * 1000000000000 << ' ' << 2.5L;
  }
  EXPECT_EQ(
      s,
      "0 -1 -9223372036854775808 18446744073709551615 0.1 1e+100 -0 1.5 true -7 1000000000000 2.5");
  EXPECT_EQ(s.c_str()[s.size()], '\0');
}

TEST(WriterTest, IntoStringMatchesStdString) {
  const auto seed = fl_test::test_seed();
  std::mt19937_64 rng(seed);
  fl::string got = "prefix|";
  std::string want = "prefix|";
  {
    fl::writer w(got);
    for (int i = 0; i < 20000; ++i) {
      random_piece(rng, w, want);
      if (i % 5000 == 4999) {
        w.flush();
        ASSERT_EQ(std::string_view(got), want) << "seed " << seed << " step " << i;
        ASSERT_EQ(w.bytes_written(), want.size() - 7);
      }
    }
  }
  ASSERT_EQ(std::string_view(got), want) << "seed " << seed;
  EXPECT_EQ(got.c_str()[got.size()], '\0');
}

TEST(WriterTest, WritesAfterFlushAreKeptAcrossGrowth) {
  fl::string s;
  fl::writer w(s);
  w << "ab";
  w.flush();
  EXPECT_EQ(s, "ab");
  w << "cd";                       // fits the spare capacity, past the flushed size
  w.write(std::string(100, 'x'));  // grows the block: "cd" must move along
  w.flush();
  EXPECT_EQ(s, "abcd" + std::string(100, 'x'));
}

TEST(WriterTest, ToDescriptorMatchesStdStringForEveryBufferSize) {
  const auto seed = fl_test::test_seed();
  for (std::size_t buffer : {std::size_t{1}, std::size_t{64}, std::size_t{100}, std::size_t{4096},
                             fl::writer::default_buffer_size}) {
    std::mt19937_64 rng(seed + buffer);
    temp_file f("fl_writer_test_");
    std::string want;
    {
      fl::writer w(f.fd(), buffer);
      for (int i = 0; i < 5000; ++i) random_piece(rng, w, want);
      w.flush();
      EXPECT_EQ(w.bytes_written(), want.size());
    }
    ASSERT_EQ(read_whole_file(f.path()), want) << "seed " << seed << " buffer " << buffer;
  }
}

TEST(WriterTest, DestructorFlushes) {
  temp_file f("fl_writer_test_");
  { fl::writer(f.fd()) << "line " << 1 << '\n'; }
  EXPECT_EQ(read_whole_file(f.path()), "line 1\n");
}

TEST(WriterTest, WriteErrorThrowsFromFlush) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ::close(fds[1]);  // the read end only: write(2) fails with EBADF
  fl::writer w(fds[0]);
  w << "text";
  try {
    w.flush();
    FAIL() << "flush did not throw";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), EBADF);
    EXPECT_NE(std::string(e.what()).find("fl::writer: write to fd"), std::string::npos) << e.what();
  }
  w.flush();  // the failed bytes are not retried
  ::close(fds[0]);
}

}  // namespace
