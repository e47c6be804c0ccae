// bench/commit_rounds.cpp: fl_commit_rounds, the durable commits of fl and its
// peers in rounds, one commit of each kind per round, so that the load other
// writers put on the disk falls on all of them alike. fl_bench times each row
// in its own stretch of time, and on a shared disk a flush costs from 0.1 ms
// to tens of ms from one second to the next: its ratios between rows move
// more than the rows differ. This program answers "what does one durable
// commit cost, against the disk's floor and the peers" for docs/performance.md
// (the json/ and persist/ targets stay fl_bench rows).
//
//   fl_commit_rounds [ROUNDS]     (default 150; scratch files under $TMPDIR)
//
// Kinds: floor (4 KiB overwritten in a written file, fdatasync: no store);
// mapped_space (4 KiB of one page written, sync); json_store (one number set,
// sync); lmdb (4 KiB put with MDB_RESERVE, commit: two syncs); rename (the
// text peers' save of the 4 KiB and of the twitter-shaped document: write
// "<path>.tmp", fsync, rename, fsync of the directory; their parse and dump,
// which fl_bench's rows include, are left out). Prints each kind's median,
// mean, p10 and p90 in µs, its median over the floor's, and the median over
// the rounds of fl's commit divided by the other kind's in the same round.
#include "lmdb_peer.hpp"

#include <fl/json_store.hpp>
#include <fl/mapped_space.hpp>

#include "json_documents.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

void must(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(std::string("fl_commit_rounds: ") + what + " failed");
}

// The text peers' save: the crash guarantee of a json_store sync().
void write_durably(const fs::path& path, const std::string& text) {
  const fs::path tmp = path.string() + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  must(fd >= 0, "open");
  must(::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()), "write");
  must(::fsync(fd) == 0, "fsync");
  ::close(fd);
  must(::rename(tmp.c_str(), path.c_str()) == 0, "rename");
  const int d = ::open(path.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  must(d >= 0 && ::fsync(d) == 0, "fsync of the directory");
  ::close(d);
}

// twitter.json from FL_JSON_DATA when it is there, else the generated
// document of the same shape.
std::string twitter_text() {
  if (const char* e = std::getenv("FL_JSON_DATA"); e != nullptr && *e != '\0') {
    std::ifstream in(fs::path(e) / "twitter.json", std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    if (in && !s.str().empty()) return s.str();
  }
  return fl_test::generated_twitter();
}

struct scratch {
  fs::path path;
  scratch() {
    std::string name = (fs::temp_directory_path() / "fl_commit_roundsXXXXXX").string();
    must(::mkdtemp(name.data()) != nullptr, "mkdtemp");
    path = name;
  }
  ~scratch() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) try {
  const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 150;
  const scratch dir;
  constexpr std::size_t page = 4096;

  std::string text = twitter_text();
  fl::json_store store = fl::json_store::import(text, dir.path / "twitter.fljson");
  store.sync();
  fl::mapped_space space(dir.path / "space");
  const fl::fptr<char> block = space.allocate(page, page).cast<char>();
  space.sync();
  const int floor_fd = ::open((dir.path / "floor").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  must(floor_fd >= 0, "open");
  alignas(64) static char buf[page];
  for (std::size_t k = 0; k < 64; ++k)
    must(::pwrite(floor_fd, buf, page, static_cast<off_t>(k * page)) == page, "write");
  must(::fsync(floor_fd) == 0, "fsync");
  const fl_bench::lmdb::env env(dir.path / "lmdb", std::size_t{64} << 20);
  std::string small(page, 'x');

  const char* const names[] = {"floor: 4 KiB + fdatasync", "mapped_space: 4 KiB + sync",
                               "json_store: set + sync",   "lmdb: 4 KiB + commit",
                               "rename: 4 KiB text",       "rename: twitter text"};
  constexpr int kinds = 6;
  std::vector<std::vector<double>> us(kinds);
  for (int r = 0; r < rounds; ++r) {
    for (int k = 0; k < kinds; ++k) {
      const std::uint64_t v = static_cast<std::uint64_t>(r) * kinds + static_cast<unsigned>(k);
      const auto start = clock_type::now();
      switch (k) {
        case 0:
          std::memcpy(buf, &v, sizeof v);
          must(::pwrite(floor_fd, buf, page, static_cast<off_t>(r % 64 * page)) == page, "write");
          must(::fdatasync(floor_fd) == 0, "fdatasync");
          break;
        case 1: {
          char* p = space.get(block);
          for (std::size_t i = 0; i < page; i += sizeof v) std::memcpy(p + i, &v, sizeof v);
          space.sync();
        } break;
        case 2:
          store.set("/statuses/0/retweet_count", std::to_string(v));
          store.sync();
          break;
        case 3: {
          fl_bench::lmdb::txn t(env, 0);
          std::memset(t.reserve("page", page), static_cast<int>(v), page);
          t.commit();
        } break;
        case 4:
          small[r % page] = static_cast<char>('a' + v % 26);
          write_durably(dir.path / "small.json", small);
          break;
        default:
          text[100] = static_cast<char>('a' + v % 26);  // inside a string value
          write_durably(dir.path / "twitter.json", text);
          break;
      }
      us[k].push_back(std::chrono::duration<double, std::micro>(clock_type::now() - start).count());
    }
  }
  ::close(floor_fd);

  const double floor_median = median(us[0]);
  std::printf("%d rounds, times in us\n", rounds);
  for (int k = 0; k < kinds; ++k) {
    std::vector<double> v = us[k];
    std::sort(v.begin(), v.end());
    double sum = 0;
    for (const double x : v) sum += x;
    std::printf("%-28s median %8.0f (%.2fx floor)  mean %8.0f  p10 %8.0f  p90 %8.0f\n", names[k],
                v[v.size() / 2], v[v.size() / 2] / floor_median, sum / v.size(), v[v.size() / 10],
                v[v.size() * 9 / 10]);
  }
  for (const int mine : {1, 2}) {
    for (const int other : {0, 3, 4, 5}) {
      std::vector<double> q;
      for (int r = 0; r < rounds; ++r) q.push_back(us[mine][r] / us[other][r]);
      std::printf("same round, %s / %s: median %.2fx\n", names[mine], names[other], median(q));
    }
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 1;
}
