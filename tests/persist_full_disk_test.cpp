// tests/persist_full_disk_test.cpp: running out of room is an error, never a
// crash or a lost commit (docs/persist.md, "Faults"): a writer appends to a
// mapped_space, then to a json_store, until a file size limit
// (setrlimit(RLIMIT_FSIZE), SIGXFSZ ignored) or a 2 MiB tmpfs (mounted here:
// needs root) stops it; then the room comes back and the store must commit
// again, reopen with every commit it returned and pass verify(). Each run is
// in a forked child, so a SIGBUS is a failed test, not the end of the program.
// The sweep of every failing file call is persist_faults_test.
#include <fl/json_store.hpp>
#include <fl/mapped_space.hpp>
#include <fl/persist.hpp>

#include "persist_support.hpp"
#include "child_process.hpp"
#include "fault_store.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

using fl_test::check_error;
using fl_test::list_of;
using fl_test::note_text;
using fl_test::push_note;
using fl_test::read_all;

// Runs edit(n) and then sync() for n = 1, 2, ... until one throws
// persist_error (checked against `err`, problems noted). Returns the last n
// committed, or -1 when none ran out; `in_sync`: the failure came from
// sync(), so its edit is in memory and a retry may land it.
template <class Edit, class Sync>
int commit_until_error(const Edit& edit, const Sync& sync, const std::filesystem::path& dir,
                       int err, std::string& problems, bool& in_sync) {
  for (int n = 1; n < 100000; ++n) {
    try {
      in_sync = false;
      edit(n);
      in_sync = true;
      sync();
    } catch (const fl::persist_error& e) {
      problems += check_error(e, dir, err);
      return n - 1;
    }
  }
  return -1;
}

// Appends 2 KiB notes to a mapped_space, then json members to a json_store,
// each with a commit, until one fails; then room.give() gives the space
// back, and the store must commit again (on the same handle, or, when that
// still fails, after a reopen), reopen with every commit it returned, and pass
// verify(). room.take() starts each store's run (the limit set, the filler
// written). Returns the problems (empty: none). Runs in a forked child.
template <class Room>
std::string fill_until_error(const std::filesystem::path& dir, int err, Room& room) {
  std::string problems;
  // A mapped_space.
  {
    room.take();
    std::unique_ptr<fl::mapped_space> sp = std::make_unique<fl::mapped_space>(dir / "space");
    bool in_sync = false;
    int committed = commit_until_error([&](int n) { push_note(*sp, n); }, [&] { sp->sync(); }, dir,
                                       err, problems, in_sync);
    if (committed < 0) return "the space never ran out";
    room.give();
    int can_land = 0;
    try {
      if (in_sync) {
        sp->sync();
        ++committed;
      }
    } catch (const fl::persist_error&) {
      // Refused until reopen, or short of space still (the log's next size
      // step may want more than came back): the reopen below must work.
      can_land = 1;
    }
    sp.reset();
    sp = std::make_unique<fl::mapped_space>(dir / "space");
    const std::string got = list_of(*sp);
    std::string want;
    for (int n = committed; n >= 1; --n)
      want += std::to_string(note_text(n).size()) + note_text(n)[0] + "|";
    if (got != want) {
      const std::string more = std::to_string(note_text(committed + 1).size()) +
                               note_text(committed + 1)[0] + "|" + want;
      if (!(can_land && got == more))
        problems += " the reopened space lacks commits (" + std::to_string(committed) + " made)";
      else
        ++committed;
    }
    sp->verify();
    push_note(*sp, committed + 1);
    sp->sync();
    sp->verify();
    std::printf("  mapped_space: %d commits before the error, committed again after\n", committed);
  }
  for (const char* f : {"space", "space-log", "space-readers"}) std::filesystem::remove(dir / f);
  // A json_store.
  {
    room.take();
    std::unique_ptr<fl::json_store> doc =
        std::make_unique<fl::json_store>(fl::json_store::create(dir / "doc"));
    bool in_sync = false;
    const int committed = commit_until_error(
        [&](int n) { doc->set("/n" + std::to_string(n), "\"" + note_text(n) + "\""); },
        [&] { doc->sync(); }, dir, err, problems, in_sync);
    if (committed < 0) return problems + " the json_store never ran out";
    room.give();
    try {
      // An edit after the failed sync: the change record that sync wrote
      // into the space is rewritten with both edits before the retry commits.
      if (in_sync) {
        doc->set("/between", "1");
        doc->sync();
      }
    } catch (const fl::persist_error&) {  // as for the space
    }
    doc.reset();
    doc = std::make_unique<fl::json_store>(fl::json_store::open(dir / "doc"));
    for (int n = 1; n <= committed; ++n) {
      const auto v = doc->at("/n" + std::to_string(n));
      if (!v || std::string_view(*v) != "\"" + note_text(n) + "\"") {
        problems += " the reopened json_store lacks commit " + std::to_string(n);
        break;
      }
    }
    doc->set("/after", "true");
    doc->sync();
    // The change feed holds each commit, the retried one included: its
    // patches replayed on the created document give this one.
    if (doc->oldest_change() == 0) {
      fl::json_store replay = fl::json_store::import("{}", dir / "replay");
      for (const fl::json_change& c : doc->changes(0)) replay.apply_patch(c.patch);
      if (std::string_view(replay.dump()) != std::string_view(doc->dump()))
        problems += " the change feed's patches do not give the document";
    }
    doc->verify();
    std::printf(
        "  json_store: %d commits before the error, committed again after; %llu in the feed\n",
        committed, static_cast<unsigned long long>(doc->sequence()));
  }
  return problems;
}

// Runs body() in a forked child; its problems (or its death) fail the test.
template <class Body>
void in_child(const Body& body) {
  const fl_test::piped_child c = fl_test::fork_piped([&](int out) {
    std::string problems;
    try {
      problems = body();
    } catch (const std::exception& e) { problems = std::string("threw ") + e.what(); }
    std::fflush(stdout);
    (void)!::write(out, problems.data(), problems.size());
    ::close(out);
    ::_exit(0);
  });
  const std::string problems = read_all(c.from_child);
  ::close(c.from_child);
  int status = 0;
  ::waitpid(c.pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "the writer died: " << (WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) : "exit");
  EXPECT_EQ(problems, "");
}

TEST(PersistFaults, SizeLimitIsAnErrorAndTheStoreCommitsOnceLifted) {
  fl_test::scratch_dir dir;
  in_child([&] {
    // The library installs no signal handlers: a process under a file size
    // limit ignores SIGXFSZ, and the write past the limit fails with EFBIG.
    ::signal(SIGXFSZ, SIG_IGN);
    rlimit lim{};
    ::getrlimit(RLIMIT_FSIZE, &lim);
    const rlimit old = lim;
    lim.rlim_cur = 1 << 20;  // 1 MiB: the files stop well before it
    if (::setrlimit(RLIMIT_FSIZE, &lim) != 0) return std::string("setrlimit failed");
    auto lift = [&] { ::setrlimit(RLIMIT_FSIZE, &old); };
    struct {
      decltype(lift)& give_back;
      const rlimit& limit;
      void take() { ::setrlimit(RLIMIT_FSIZE, &limit); }
      void give() { give_back(); }
    } room{lift, lim};
    std::string problems = fill_until_error(dir.path(), EFBIG, room);
    // persist<T> of a value larger than the limit.
    ::setrlimit(RLIMIT_FSIZE, &lim);
    struct big {
      unsigned char bytes[2 << 20];
    };
    auto v = std::make_unique<fl::persist<big>>(dir / "big");
    std::memset((*v)->bytes, 7, sizeof(big));
    try {
      v->flush();
      problems += " persist<T> wrote past the limit";
    } catch (const fl::persist_error& e) { problems += check_error(e, dir.path(), EFBIG); }
    lift();
    v->flush();
    v.reset();
    const auto again = std::make_unique<fl::persist<big>>(dir / "big");
    if ((*again)->bytes[sizeof(big) - 1] != 7) problems += " persist<T> did not commit after";
    return problems;
  });
}

// A sync() that fails after it set page checksums for its pages (here:
// the log cannot grow) leaves table entries that no commit holds. A page
// damaged after that must still be named as the damaged page: the table is
// compared with what this process made of it, not with the last commit's
// checksum of it (which once called the table damaged).
TEST(PersistFaults, APageDamagedAfterAFailedSyncIsNamed) {
  fl_test::scratch_dir dir;
  in_child([&] {
    ::signal(SIGXFSZ, SIG_IGN);
    const std::filesystem::path file = dir / "damage";
    std::uint64_t a = 0, b = 0;
    {
      fl::mapped_space sp(file);
      a = sp.allocate(4096, 4096).offset();
      b = sp.allocate(4096, 4096).offset();
      std::memset(sp.get(fl::fptr<void>(a)), 1, 4096);
      std::memset(sp.get(fl::fptr<void>(b)), 2, 4096);
      sp.sync();
    }
    fl::mapped_space sp(file);
    std::memset(sp.get(fl::fptr<void>(a)), 3, 4096);
    rlimit lim{};
    ::getrlimit(RLIMIT_FSIZE, &lim);
    const rlimit old = lim;
    lim.rlim_cur = 1;  // the log's record cannot be written
    if (::setrlimit(RLIMIT_FSIZE, &lim) != 0) return std::string("setrlimit failed");
    std::string problems;
    try {
      sp.sync();
      problems += " sync() wrote past the limit;";
    } catch (const fl::persist_error&) {}
    ::setrlimit(RLIMIT_FSIZE, &old);
    // Another writer's bytes over block b, in the file under the mapping.
    const int fd = ::open(file.c_str(), O_WRONLY);
    const char junk[16] = "not the commit";
    if (fd < 0 || ::pwrite(fd, junk, sizeof junk, static_cast<off_t>(b)) != sizeof junk)
      return std::string("could not damage the file");
    ::close(fd);
    try {
      (void)sp.checked(fl::fptr<const void>(b), 4096);
      problems += " the damaged page was read without an error;";
    } catch (const fl::persist_error& e) {
      const std::string what = e.what();
      const std::string page = "page " + std::to_string(b / 4096) + " ";
      if (what.find(page) == std::string::npos ||
          what.find("does not match its checksum") == std::string::npos)
        problems += " the error does not name page " + std::to_string(b / 4096) + ": " + what;
    }
    return problems;
  });
}

// A patch, a merge patch or a move that runs out of room part of the way is
// all or nothing as when refused for any other reason: persist_error, the
// document as it was before the call, and a store that commits once the
// room is back. The members the call made before the error are undone by
// edits of their own, in a file that has no room left.
TEST(PersistFaults, APatchThatRunsOutOfRoomChangesNothing) {
  fl_test::scratch_dir dir;
  in_child([&] {
    ::signal(SIGXFSZ, SIG_IGN);
    std::string problems;
    const std::string before = R"({"a":0,"list":[1,2,3],"o":{"k":"v"}})";
    auto doc = fl::json_store::import(before, dir / "doc");
    doc.sync();
    rlimit lim{};
    ::getrlimit(RLIMIT_FSIZE, &lim);
    const rlimit old = lim;
    // Room for a few of the patches' 24 KiB strings, not for all of them.
    lim.rlim_cur = doc.file_bytes() + (96 << 10);
    const std::string big = "\"" + std::string(24 << 10, 'x') + "\"";
    std::string merge = "{\"a\":1,\"o\":{\"k\":null,\"n\":{\"deep\":" + big + "}}";
    std::string patch =
        R"([{"op":"replace","path":"/a","value":2},{"op":"remove","path":"/list/0"})";
    for (int i = 0; i < 24; ++i) {
      merge += ",\"m" + std::to_string(i) + "\":" + big;
      patch += R"(,{"op":"add","path":"/list/-","value":)" + big + "}";
    }
    merge += "}";
    patch += "]";
    const auto refused = [&](const char* what, const auto& call) {
      if (::setrlimit(RLIMIT_FSIZE, &lim) != 0) {
        problems += " setrlimit failed";
        return;
      }
      try {
        call();
        problems += std::string(" ") + what + " wrote past the limit;";
      } catch (const fl::persist_error& e) { problems += check_error(e, dir.path(), EFBIG); }
      ::setrlimit(RLIMIT_FSIZE, &old);
      if (std::string_view(doc.dump()) != before)
        problems += std::string(" ") + what + " left part of its edits: " +
                    std::string(std::string_view(doc.dump())).substr(0, 120) + ";";
    };
    refused("merge_patch", [&] { doc.merge_patch(merge); });
    refused("apply_patch", [&] { doc.apply_patch(patch); });
    doc.set("/after", "1");
    doc.sync();
    doc.verify();
    return problems;
  });
}

TEST(PersistFaults, SmallTmpfsIsAnErrorNeverSigbus) {
  fl_test::scratch_dir base;
  const std::filesystem::path mnt = base / "tmpfs";
  std::filesystem::create_directory(mnt);
  if (::mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=2m") != 0)
    GTEST_SKIP() << "mount -t tmpfs -o size=2m: " << std::strerror(errno)
                 << " (needs root, or CAP_SYS_ADMIN); the size-limit test and the sweep "
                    "cover the error paths without it";
  const std::filesystem::path dir = mnt / "d";
  std::filesystem::create_directory(dir);
  in_child([&] {
    // 256 KiB of filler, removed when the store has run out: space is back.
    struct {
      std::filesystem::path filler;
      void take() { fl_test::write_bytes(filler, std::vector<unsigned char>(256 << 10, 'f')); }
      void give() { std::filesystem::remove(filler); }
    } room{mnt / "filler"};
    return fill_until_error(dir, ENOSPC, room);
  });
  ::umount2(mnt.c_str(), MNT_DETACH);
}

}  // namespace
