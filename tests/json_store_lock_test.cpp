// Every path that creates or renames onto a store honours its writer's lock,
// and a store never commits into a file or log that is no longer its own:
// import() and its publishing sync() refuse a store open in another process
// or another handle ("locked") and change nothing; a commit after the file
// was replaced behind the lock's back throws instead of being lost. Also the
// README's pattern (import, sync, open again in one function), the order of
// a re-import's publication (the published file needs no log), truncation to
// the committed size at open, and the size of a small store.
#include <fl/json_store.hpp>
#include <fl/mapped_space.hpp>

#include "persist_support.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <signal.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using fl_test::scratch_dir;

std::string str(const fl::string& s) { return std::string(std::string_view(s)); }
fs::path log_of(const fs::path& p) { return p.string() + "-log"; }
std::uint64_t size_or_0(const fs::path& p) {
  std::error_code ec;
  const auto n = fs::file_size(p, ec);
  return ec ? 0 : n;
}

bool says_locked(const fl::persist_error& e) {
  return e.reason().find("locked") != std::string::npos;
}

// ---- every path honours the lock -------------------------------------------

TEST(StoreLock, ImportOntoAStoreOpenInAnotherProcessThrowsLocked) {
  scratch_dir d;
  const fs::path p = d / "s.fljson";
  fl::json_store::import(R"({"n":1})", p).sync();
  auto a = fl::json_store::open(p);
  const int rc = fl_test::run_in_child([&] {
    try {
      auto b = fl::json_store::import(R"({"n":"other"})", p);
      b.sync();
    } catch (const fl::persist_error& e) {
      return says_locked(e) && e.path() == p ? 0 : 1;
    }
    return 2;
  });
  EXPECT_EQ(rc, 0);
  // The first process's commits are kept, and the store opens afterwards.
  a.set("/n", "2");
  a.sync();
  a.set("/n", "3");
  a.sync();
  a = fl::json_store::import("0", d / "other.fljson");  // closes the store at p
  EXPECT_EQ(fl::json_store::open(p).at("/n"), fl::string("3"));
  EXPECT_FALSE(fs::exists(p.string() + ".tmp"));
}

TEST(StoreLock, PublishingSyncOntoAStoreOpenInAnotherHandleThrowsLocked) {
  scratch_dir d;
  const fs::path p = d / "s.fljson";
  fl::json_store::import("[1]", p).sync();
  auto b = fl::json_store::import("[2]", p);  // nothing open at p yet: accepted
  {
    auto a = fl::json_store::open(p);
    try {
      b.sync();
      ADD_FAILURE() << "published over an open store";
    } catch (const fl::persist_error& e) {
      EXPECT_TRUE(says_locked(e)) << e.what();
    }
    a.set("/-", "7");
    a.sync();
  }
  EXPECT_EQ(str(fl::json_store::open(p).dump()), "[1,7]");
  b.sync();  // the store is closed now: the retried sync publishes
  EXPECT_EQ(str(b.dump()), "[2]");
  b.set("/-", "3");
  b.sync();
  b = fl::json_store::import("0", d / "other.fljson");
  EXPECT_EQ(str(fl::json_store::open(p).dump()), "[2,3]");
}

// A space at `p` whose committed root is the number `v`.
fl::mapped_space space_holding(const fs::path& p, std::uint64_t v) {
  fl::mapped_space s(p);
  s.set_root(s.make<std::uint64_t>(v));
  s.sync();
  return s;
}

// Another process importing `text` onto `p` in a loop until stop(), which
// returns its exit status: 0, or 2 if a refusal did not say "locked", or,
// with `must_be_refused`, 1 if an import took the path. `pause_us` after
// each refusal lets the test's own opens in. stop() creates `stop_file`,
// which ends the loop.
class importer_child {
 public:
  importer_child(fs::path stop_file, const fs::path& p, const std::string& text,
                 bool must_be_refused, useconds_t pause_us)
      : stop_(std::move(stop_file)) {
    pid_ = fl_test::start_child([&] {
      int published = 0, tried = 0;
      for (; !fs::exists(stop_); ++tried) {
        try {
          fl::json_store::import(text, p).sync();
          ++published;
        } catch (const fl::persist_error& e) {
          if (!says_locked(e)) {
            std::fprintf(stderr, "importer: %s\n", e.what());
            return 2;
          }
          if (pause_us != 0) ::usleep(pause_us);
        }
      }
      std::printf("race: %d of %d imports took the path\n", published, tried);
      return must_be_refused && published != 0 ? 1 : 0;
    });
  }
  importer_child(const importer_child&) = delete;
  importer_child& operator=(const importer_child&) = delete;
  ~importer_child() {
    if (pid_ > 0) stop();  // a test that ended early still stops it
  }
  int stop() {
    if (std::FILE* f = std::fopen(stop_.c_str(), "w")) {
      std::fclose(f);
    } else {  // it would loop for ever: stop it the hard way
      ADD_FAILURE() << "cannot create " << stop_;
      ::kill(pid_, SIGKILL);
    }
    return fl_test::wait_child(std::exchange(pid_, 0));
  }

 private:
  fs::path stop_;
  pid_t pid_;
};

TEST(StoreLock, MappedSpaceRenameOntoAnOpenSpaceThrowsLocked) {
  scratch_dir d;
  fl::mapped_space held = space_holding(d / "held", 41);
  fl::mapped_space mover = space_holding(d / "mover", 7);
  try {
    mover.rename(d / "held");
    ADD_FAILURE() << "renamed over an open space";
  } catch (const fl::persist_error& e) {
    EXPECT_TRUE(says_locked(e)) << e.what();
    EXPECT_EQ(e.path(), d / "held");
  }
  EXPECT_TRUE(fs::exists(d / "mover"));
  *held.get(held.root<std::uint64_t>()) = 42;
  held.sync();
  held = fl::mapped_space(d / "third");  // closes "held"
  mover.rename(d / "held");            // now allowed
  EXPECT_FALSE(fs::exists(d / "mover"));
  mover = fl::mapped_space(d / "fourth");
  fl::mapped_space check(d / "held", {.mode = fl::open_mode::open_existing});
  EXPECT_EQ(*check.get(check.root<std::uint64_t>()), 7u);
  check.verify();
}

// A space rebuilt from a store replaces it under the store's own lock: the
// rename closes the replaced space but holds its lock until the rebuilt file
// has the name (where rename(to) alone finds the store open and refuses).
TEST(StoreLock, MappedSpaceRenameInPlaceOfItsOwnStoreHoldsTheLockThrough) {
  scratch_dir d;
  fl::mapped_space held = space_holding(d / "held", 41);
  fl::mapped_space rebuilt = space_holding(d / "rebuilt", 7);
  EXPECT_THROW(rebuilt.rename(d / "held"), fl::persist_error);
  EXPECT_THROW(rebuilt.rename(d / "held", std::move(rebuilt)), std::invalid_argument);
  EXPECT_EQ(rebuilt.path(), d / "rebuilt");  // unchanged
  rebuilt.rename(d / "held", std::move(held));
  EXPECT_EQ(rebuilt.path(), d / "held");
  EXPECT_FALSE(fs::exists(d / "rebuilt"));
  // The renamed space is the store's writer: locked, and it commits there.
  EXPECT_TRUE(fl::mapped_space::locked(d / "held"));
  *rebuilt.get(rebuilt.root<std::uint64_t>()) = 8;
  rebuilt.sync();
  rebuilt = fl::mapped_space(d / "other");  // closes "held"
  EXPECT_FALSE(fl::mapped_space::locked(d / "held"));
  fl::mapped_space check(d / "held", {.mode = fl::open_mode::open_existing});
  EXPECT_EQ(*check.get(check.root<std::uint64_t>()), 8u);
  check.verify();
  // A `replaced` that does not hold the file at `to` only closes: the
  // rename is then rename(to), refused while another space holds it.
  fl::mapped_space a = space_holding(d / "a", 1);
  fl::mapped_space unrelated(d / "unrelated");
  EXPECT_THROW(a.rename(d / "held", std::move(unrelated)), fl::persist_error);
  EXPECT_EQ(a.path(), d / "a");
  check = fl::mapped_space(d / "other2");  // closes "held"
  a.rename(d / "held", fl::mapped_space(d / "unrelated2"));
  EXPECT_EQ(*a.get(a.root<std::uint64_t>()), 1u);
}

// A writer compacting and committing in a loop while another process imports
// onto the path in a loop: the compaction's publishing sync replaces the
// store under its lock, so no import ever takes the path from the writer
// (the writer's commits all stand, and each of its syncs publishes).
TEST(StoreLock, ImportsFromAnotherProcessNeverTakeTheStoreWhileItIsCompacted) {
#if defined(__SANITIZE_ADDRESS__)
  constexpr int rounds = 150;
#else
  constexpr int rounds = 600;
#endif
  scratch_dir d;
  const fs::path p = d / "s.fljson";
  fl::json_store::import(R"({"n":0,"o":{"a":1}})", p).sync();
  auto s = fl::json_store::open(p);
  importer_child importer(d / "stop", p, R"({"imported":1})", true, 0);
  int synced = 0;
  try {
    for (; synced < rounds; ++synced) {
      s.set("/n", std::to_string(synced + 1));
      s.compact();
      s.sync();
    }
  } catch (const fl::persist_error& e) {
    ADD_FAILURE() << "round " << synced + 1 << ": " << e.what();
  }
  EXPECT_EQ(importer.stop(), 0) << "an import replaced the store while its writer held it";
  s = fl::json_store::import("0", d / "other.fljson");  // closes the store at p
  EXPECT_EQ(fl::json_store::open(p).at("/n"), fl::string(std::to_string(synced)));
}

TEST(StoreLock, CommitIntoAFileReplacedBehindTheLockThrows) {
  scratch_dir d;
  const fs::path p = d / "s.fljson";
  fl::json_store::import("[1]", p).sync();
  auto a = fl::json_store::open(p);
  a.set("/-", "2");
  a.sync();  // the log is open now
  // A writer that ignores the lock (a copy renamed over both names).
  fs::copy_file(p, d / "copy");
  fs::rename(d / "copy", p);
  fs::copy_file(log_of(p), d / "copy-log");
  fs::rename(d / "copy-log", log_of(p));
  a.set("/-", "3");
  try {
    a.sync();
    ADD_FAILURE() << "committed into a replaced file";
  } catch (const fl::persist_error& e) {
    EXPECT_NE(e.reason().find("replaced"), std::string::npos) << e.what();
  }
}

TEST(StoreLock, FirstCommitAfterTheFileWasReplacedThrows) {
  scratch_dir d;
  const fs::path p = d / "s.fljson";
  fl::json_store::import("[1]", p).sync();
  auto a = fl::json_store::open(p);  // a clean open: the log is not open
  fs::copy_file(p, d / "copy");
  fs::rename(d / "copy", p);
  a.set("/-", "2");
  EXPECT_THROW(a.sync(), fl::persist_error);
}

// One process re-imports onto the path in a loop while this one opens, edits,
// commits and closes it in a loop. Every commit that returns must be in the
// file the path names (read back through a second open, which takes the
// file over in this process): an open that raced with a rename, or a rename
// that ignored the lock, would commit into a replaced file.
TEST(StoreLock, ReimportsRacingWithEditsNeverLoseACommit) {
#if defined(__SANITIZE_ADDRESS__)
  constexpr int rounds = 40;
#else
  constexpr int rounds = 150;
#endif
  scratch_dir d;
  const fs::path p = d / "s.fljson";
  fl::json_store::import(R"({"n":0,"w":-1})", p).sync();
  importer_child importer(d / "stop", p, R"({"n":0,"w":-1})", false, 100);
  // Failures end the loop (the importer must still be told to stop).
  int committed = 0, refused = 0;
  for (int i = 0; i < rounds && !::testing::Test::HasFailure(); ++i) {
    try {
      auto s = fl::json_store::open(p);
      const std::int64_t n = s.find("/n")->as_int64();
      s.set("/n", std::to_string(n + 1));
      s.set("/w", std::to_string(i));
      s.sync();
      auto again = fl::json_store::open(p);  // takes the file over: reads it from disk
      EXPECT_EQ(again.find("/w")->as_int64(), i) << "a commit went to a replaced file";
      EXPECT_EQ(again.find("/n")->as_int64(), n + 1);
      ++committed;
    } catch (const fl::persist_error& e) {
      EXPECT_TRUE(says_locked(e)) << e.what();
      ++refused;
    }
    ::usleep(i % 2 ? 200 : 5000);  // closed for a moment: the importer may publish
  }
  EXPECT_EQ(importer.stop(), 0);
  std::printf("race: %d of %d edit sessions committed, %d refused as locked\n", committed, rounds,
              refused);
  EXPECT_GT(committed, 0);
  auto s = fl::json_store::open(p);
  EXPECT_TRUE(s.find("/n").has_value());
}

// ---- opening a store this process has open ---------------------------------

// The README's snippet, in one function.
TEST(StoreLock, ReadmeSnippetRunsInOneFunction) {
  scratch_dir d;
  const fs::path p = d / "state.fljson";
  const std::string text = R"({"user":{"name":"Ada","visits":41}})";
  auto doc = fl::json_store::import(text, p);
  doc.sync();
  auto again = fl::json_store::open(p);
  std::string_view name = again.find("/user/name")->as_string_view();
  EXPECT_EQ(name, "Ada");
  again.set("/user/visits", "42");
  again.sync();
  // The earlier handle was retired by that open: it says so.
  try {
    (void)doc.dump();
    ADD_FAILURE() << "a retired handle read";
  } catch (const fl::persist_error& e) {
    EXPECT_NE(e.reason().find("superseded"), std::string::npos) << e.what();
  }
  EXPECT_THROW(doc.sync(), fl::persist_error);
}

TEST(StoreLock, SecondOpenInThisProcessRefusedWhileTheFirstHasUncommittedChanges) {
  scratch_dir d;
  const fs::path p = d / "s.fljson";
  auto a = fl::json_store::import("[1]", p);
  a.sync();
  a.set("/-", "2");  // not committed
  try {
    (void)fl::json_store::open(p);
    ADD_FAILURE() << "opened beside uncommitted changes";
  } catch (const fl::persist_error& e) {
    EXPECT_TRUE(says_locked(e)) << e.what();
    EXPECT_NE(e.reason().find("uncommitted"), std::string::npos) << e.what();
  }
  a.sync();  // the first handle is still the writer
  auto b = fl::json_store::open(p);
  EXPECT_EQ(str(b.dump()), "[1,2]");
  b.set("/-", "3");
  b.sync();
  a = fl::json_store::import("0", d / "other.fljson");  // the retired handle closes, writing nothing
  b = fl::json_store::import("0", d / "third.fljson");
  EXPECT_EQ(str(fl::json_store::open(p).dump()), "[1,2,3]");
}

// A reader holding an older commit leaves the writer's committed pages
// private (the file lags at the reader's commit). They are committed, not
// changes: a second open in this process is refused for the reader's sake
// (the earlier handle's log is still needed), and says so, and takes the
// file over once the reader has moved on.
TEST(StoreLock, SecondOpenBesideAReaderHoldingAnOlderCommitNamesTheReader) {
  scratch_dir d;
  const fs::path p = d / "s.fljson";
  fl::json_store::import(R"({"n":0,"o":{"a":[1,2,3]}})", p).sync();
  auto a = fl::json_store::open(p);
  auto r = fl::json_store::open(p, fl::open_mode::read_only);  // holds the imported commit
  a.set("/n", "1");
  a.set("/o/b", "[4]");
  a.sync();
  try {
    (void)fl::json_store::open(p);
    ADD_FAILURE() << "took the file over from under a reader's commit";
  } catch (const fl::persist_error& e) {
    EXPECT_TRUE(says_locked(e)) << e.what();
    EXPECT_NE(e.reason().find("readers hold older commits"), std::string::npos) << e.what();
    EXPECT_EQ(e.reason().find("uncommitted"), std::string::npos) << e.what();
  }
  EXPECT_EQ(str(r.dump()), R"({"n":0,"o":{"a":[1,2,3]}})");
  r.refresh();  // the reader moves to the newest commit
  auto b = fl::json_store::open(p);
  EXPECT_EQ(str(b.dump()), R"({"n":1,"o":{"a":[1,2,3],"b":[4]}})");
  b.set("/n", "2");
  b.sync();
  r.refresh();
  EXPECT_EQ(r.at("/n"), fl::string("2"));
  r.verify();
}

TEST(StoreLock, SecondOpenInAnotherProcessIsLocked) {
  scratch_dir d;
  const fs::path p = d / "s.fljson";
  auto a = fl::json_store::import("[1]", p);
  a.sync();
  const int rc = fl_test::run_in_child([&] {
    try {
      (void)fl::json_store::open(p);
    } catch (const fl::persist_error& e) {
      return says_locked(e) ? 0 : 1;
    }
    return 2;
  });
  EXPECT_EQ(rc, 0);
}

// ---- publication order and truncation --------------------------------------

// A re-import publishes a file that is whole without a log: a crash between
// publishing the file and anything done to the logs (under power loss, any
// subset of the renames and unlinks) pairs the new file with the old store's
// log, which it must never read.
TEST(StoreLock, PublishedImportNeedsNoLog) {
  scratch_dir d;
  const fs::path p = d / "s.fljson";
  std::string old_log;
  {
    auto old = fl::json_store::import("[1]", p);
    old.sync();
    for (int i = 0; i < 5; ++i) {
      old.set("/-", std::to_string(i));
      old.sync();
    }
    old_log = fl_test::read_whole_file(log_of(p));  // the run since the last checkpoint
  }
  ASSERT_FALSE(old_log.empty());
  auto fresh = fl::json_store::import(R"({"new":true})", p);
  fresh.sync();
  const fs::path q = d / "q.fljson";
  fs::copy_file(p, q);
  fl_test::write_bytes(log_of(q), std::vector<unsigned char>(old_log.begin(), old_log.end()));
  EXPECT_EQ(str(fl::json_store::open(q).dump()), R"({"new":true})");
  fs::remove(log_of(q));
  EXPECT_EQ(str(fl::json_store::open(q).dump()), R"({"new":true})");
}

// Pages written ahead of a commit's log (write_fresh) by a process that died
// before the commit: the next writer cuts the file to the committed size, so
// that growing over those pages again gives them their true checksums.
TEST(StoreLock, OpenCutsPagesPastTheCommittedSize) {
  scratch_dir d;
  const fs::path p = d / "s";
  {
    fl::mapped_space s(p);
    s.set_root(s.make<std::uint64_t>(5));
    s.sync();
  }
  const std::uint64_t committed = fs::file_size(p);
  const int rc = fl_test::run_in_child([&]() -> int {
    fl::mapped_space s(p);
    const std::vector<unsigned char> junk(256 * 1024, 0xA5);
    const fl::fptr<void> b = s.allocate_end(junk.size());
    s.write_fresh(b, junk.data(), junk.size());
    ::_exit(0);  // dies before sync(): nothing of this is committed
  });
  ASSERT_EQ(rc, 0);
  ASSERT_GT(fs::file_size(p), committed);
  {
    fl::mapped_space s(p);
    EXPECT_EQ(fs::file_size(p), committed);
    const fl::fptr<unsigned char> b = s.allocate_end(256 * 1024).cast<unsigned char>();
    s.get(b)[0] = 1;
    s.sync();
    s.verify();
    const fl::fptr<unsigned char> c = s.allocate_end(64 * 1024).cast<unsigned char>();
    s.get(c)[0] = 2;
    s.sync();
    s.verify();
  }
  fl::mapped_space s(p);
  s.verify();
  EXPECT_EQ(*s.get(s.root<std::uint64_t>()), 5u);
}

// rollback() after write_fresh: the pages it wrote past the committed size
// read as zeros again, so the next commit's checksums hold.
TEST(StoreLock, RollbackForgetsPagesWrittenAheadOfTheCommit) {
  scratch_dir d;
  fl::mapped_space s(d / "s");
  s.set_root(s.make<std::uint64_t>(5));
  s.sync();
  const std::vector<unsigned char> junk(256 * 1024, 0x5A);
  s.write_fresh(s.allocate_end(junk.size()), junk.data(), junk.size());
  s.rollback();
  const fl::fptr<unsigned char> b = s.allocate_end(128 * 1024).cast<unsigned char>();
  s.get(b)[0] = 1;
  s.sync();
  s.verify();
}

// The commit takes the checksums of write_fresh()'s pages from the bytes
// it wrote; a page written again through the mapping before that commit
// (here every third one, a byte in its middle) gets the checksum of what it
// holds then. Two runs written fresh in one commit, the second right after
// the first; verify() checks every page against the table, after the
// commit and after a reopen, and the bytes read back are the last written.
TEST(StoreLock, PagesWrittenFreshThenThroughTheMapCommitWhatTheyHold) {
  scratch_dir d;
  const fs::path p = d / "s";
  std::vector<fl::fptr<unsigned char>> runs;
  constexpr std::size_t bytes = 96 * 1024;
  {
    fl::mapped_space s(p);
    s.set_root(s.make<std::uint64_t>(5));
    s.sync();
    for (int r = 0; r < 2; ++r) {
      std::vector<unsigned char> data(bytes);
      for (std::size_t i = 0; i < bytes; ++i) data[i] = static_cast<unsigned char>(i * 7 + r);
      const fl::fptr<unsigned char> b = s.allocate_end(bytes).cast<unsigned char>();
      s.write_fresh(b, data.data(), data.size());
      runs.push_back(b);
    }
    for (const fl::fptr<unsigned char>& b : runs)
      for (std::size_t at = 2048; at < bytes; at += 3 * 4096) s.get(b)[at] ^= 0xFF;
    s.sync();
    s.verify();
  }
  fl::mapped_space s(p);
  s.verify();
  for (int r = 0; r < 2; ++r) {
    const unsigned char* b = s.get(runs[static_cast<std::size_t>(r)]);
    for (std::size_t i = 0; i < bytes; ++i) {
      const auto want = static_cast<unsigned char>(
          (i * 7 + r) ^ (i >= 2048 && (i - 2048) % (3 * 4096) == 0 ? 0xFF : 0));
      ASSERT_EQ(b[i], want) << "run " << r << ", byte " << i;
    }
  }
}

// ---- small files -----------------------------------------------------------

// A 318-byte document: its store and log together take tens of KiB after the
// import and an edit, and a clean close leaves no log bytes. (The log holds
// the commits since the last checkpoint: up to log_bound while the store is
// open.)
TEST(StoreSize, SmallDocumentTakesTensOfKiB) {
  scratch_dir d;
  const fs::path p = d / "small.fljson";
  std::string text = R"({"service":"billing","version":3,"owner":{"name":"Ada Lovelace","team":"core"},)"
                     R"("limits":{"rps":250,"burst":1000,"timeout_ms":1500},"regions":["eu-west-1",)"
                     R"("us-east-1","ap-south-1"],"flags":{"beta":true,"audit":false},"notes":)";
  text += "\"" + std::string(318 - text.size() - 3, 'n') + "\"}";
  ASSERT_EQ(text.size(), 318u);
  const auto report = [&](const char* when) {
    std::printf("small document, %s: file %llu bytes, log %llu bytes\n", when,
                static_cast<unsigned long long>(size_or_0(p)),
                static_cast<unsigned long long>(size_or_0(log_of(p))));
    return size_or_0(p) + size_or_0(log_of(p));
  };
  {
    auto s = fl::json_store::import(text, p);
    s.sync();
    EXPECT_LE(report("imported"), 48u * 1024);
    s.set("/limits/rps", "300");
    s.set("/owner/name", "\"Grace Hopper\"");
    s.sync();
    EXPECT_LE(report("one edit committed"), 64u * 1024);
    for (int i = 0; i < 10; ++i) {
      s.set("/limits/rps", std::to_string(301 + i));
      s.sync();
    }
    report("eleven commits");
  }
  EXPECT_LE(report("closed"), 48u * 1024);
  EXPECT_EQ(size_or_0(log_of(p)), 0u);
  auto s = fl::json_store::open(p);
  EXPECT_EQ(s.find("/limits/rps")->as_int64(), 310);
  EXPECT_EQ(s.find("/owner/name")->as_string_view(), "Grace Hopper");
}

// Past the log's 4 MiB bound, a clean close still leaves no log bytes.
TEST(StoreSize, CleanCloseLeavesNoBigLog) {
  scratch_dir d;
  const fs::path p = d / "s";
  {
    fl::mapped_space s(p, {.durable = false});
    const fl::fptr<unsigned char> b = s.allocate(512 * 1024).cast<unsigned char>();
    s.set_root(b);
    for (int i = 0; i < 12; ++i) {
      std::memset(s.get(b), i, 512 * 1024);
      s.sync();
    }
    EXPECT_GT(size_or_0(log_of(p)), 1u << 20);
  }
  EXPECT_EQ(size_or_0(log_of(p)), 0u);
  fl::mapped_space s(p);
  EXPECT_EQ(s.get(s.root<unsigned char>())[100], 11);
  s.verify();
}

}  // namespace
