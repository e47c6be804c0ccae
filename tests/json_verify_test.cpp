// fl::json_store::verify(): faults planted into a real store file (a block
// freed or retired while a value still refers to it, a block reached from
// two values, a flipped bit under a string, a truncated file, a broken key
// index, invalid UTF-8, an unknown kind), each with its checksums repaired
// when the fault is structural so that the check meant for it finds it:
// each is reported as fl::persist_error naming the fault and the JSON
// pointer. A format-2 store may share blocks. And a reader verifying over
// and over while a writer process commits finds no fault.
#include <fl/detail/json_format.hpp>
#include <fl/json_store.hpp>
#include <fl/mapped_space.hpp>

#include "child_process.hpp"
#include "store_bytes.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include <sys/wait.h>
#include <unistd.h>

namespace {

namespace fj = fl::detail::json;

struct JsonVerifyTest : ::testing::Test {
  fl_test::temp_dir dir;
  std::filesystem::path file() const { return dir.path() / "store.fl"; }

  // A store with the shapes the faults go into: /recent (strings of three
  // sizes), /big (an object with a key index), /name; /pad first, so that
  // the later values lie on other pages than the store's head.
  void make_store() {
    std::string big = "{";
    for (int i = 0; i < 20; ++i)
      big += (i ? ",\"key" : "\"key") + std::to_string(i) + "\":" + std::to_string(i);
    big += "}";
    auto s = fl::json_store::import(R"({"pad":")" + std::string(5000, 'p') +
                                        R"(","recent":["first value of recent","second one",")" +
                                        std::string(200, 'c') + R"("],"big":)" + big +
                                        R"(,"name":"fl store"})",
                                    file());
    s.sync();
  }

  // Saves the fault planted in `b` with the checksums made to match (so the
  // structural check meant for it must find it), and returns verify()'s
  // message, printed beside `what`.
  std::string planted(fl_test::store_bytes& b, const char* what) {
    b.fix_checksums();
    b.save();
    const std::string m = verify_message();
    std::printf("planted %s: %s\n", what, m.c_str());
    return m;
  }

  // A fresh store whose ref at `pointer` is changed by `change` (its
  // checksums made to match): verify()'s message, printed beside `what`.
  template <class Change>
  std::string planted_ref(const char* pointer, const Change& change, const char* what) {
    make_store();
    fl_test::store_bytes b(file());
    fj::json_ref r = b.ref(pointer);
    change(r);
    b.put(b.ref_at(pointer), r);
    return planted(b, what);
  }

  // verify() on a read-only open: the message of the persist_error it
  // throws, or "" when it passes.
  std::string verify_message() {
    try {
      const fl::json_store r = fl::json_store::open(file(), fl::open_mode::read_only);
      r.verify();
      return "";
    } catch (const fl::persist_error& e) { return e.what(); }
  }
};

TEST_F(JsonVerifyTest, ASoundStorePassesOnWritersAndReaders) {
  make_store();
  {
    auto s = fl::json_store::open(file());
    EXPECT_EQ(s.verify(), 28u);  // root, pad, recent + 3, big + 20, name
    s.set("/recent/0", R"("replaced")");
    s.erase("/big/key3");
    s.sync();
    EXPECT_EQ(s.verify(), 27u);
    // An edit not yet synced is not part of the committed document.
    s.set("/more", "[1,2,3]");
    EXPECT_EQ(s.verify(), 27u);
    const fl::json_store r = fl::json_store::open(file(), fl::open_mode::read_only);
    EXPECT_EQ(r.verify(), 27u);
    fl::mapped_space(file(), {.mode = fl::open_mode::read_only}).verify();
    s.sync();
  }
  EXPECT_EQ(verify_message(), "");
}

TEST_F(JsonVerifyTest, AFreedBlockStillReferenced) {
  make_store();
  fj::json_ref old;
  {
    auto s = fl::json_store::open(file());
    old = fl_test::store_bytes(file()).ref("/recent/2");
    s.set("/recent/2", R"("short")");  // retires the 200-byte block
    s.sync();
    s.set("/name", R"("x")");  // its allocation frees the retired blocks
    s.sync();
  }
  fl_test::store_bytes b(file());
  b.put(b.ref_at("/recent/2"), old);
  const std::string m = planted(b, "a freed block");
  EXPECT_NE(m.find("verify: /recent/2: a string's block is on the free list"), std::string::npos)
      << m;
}

TEST_F(JsonVerifyTest, ARetiredBlockStillReferenced) {
  make_store();
  fj::json_ref old;
  {
    auto s = fl::json_store::open(file());
    old = fl_test::store_bytes(file()).ref("/recent/2");
    s.set("/recent/2", R"("short")");  // retired: in the commit's deferred batch
    s.sync();
  }
  fl_test::store_bytes b(file());
  b.put(b.ref_at("/recent/2"), old);
  const std::string m = planted(b, "a retired block");
  EXPECT_NE(m.find("verify: /recent/2: a string's block waits in a retired (deferred) batch"),
            std::string::npos)
      << m;
}

TEST_F(JsonVerifyTest, ABlockReferencedTwice) {
  make_store();
  fl_test::store_bytes b(file());
  b.put(b.ref_at("/recent/1"), b.ref("/recent/0"));
  const std::string m = planted(b, "a shared block");
  EXPECT_NE(m.find("verify: /recent/1: a string's block is also reached from another value"),
            std::string::npos)
      << m;
}

TEST_F(JsonVerifyTest, AFlippedBitUnderAString) {
  // A string of several pages: those in its middle hold nothing else.
  auto s =
      fl::json_store::import(R"({"pad":")" + std::string(5000, 'p') + R"(","recent":["a","b",")" +
                                 std::string(20000, 'c') + R"("]})",
                             file());
  s.sync();
  { const fl::json_store closing = std::move(s); }
  fl_test::store_bytes b(file());
  const fj::json_ref r = b.ref("/recent/2");
  b.bytes()[r.x + 10000] ^= 0x04;  // 'c' to 'g', still UTF-8: only the checksum can tell
  b.save();
  const std::string m = verify_message();
  std::printf("planted a flipped bit: %s\n", m.c_str());
  EXPECT_NE(m.find("verify: /recent/2: page "), std::string::npos) << m;
  EXPECT_NE(m.find("does not match its checksum"), std::string::npos) << m;
}

TEST_F(JsonVerifyTest, ATruncatedFile) {
  auto s =
      fl::json_store::import(R"({"a":[1,2],"tail":")" + std::string(20000, 't') + "\"}", file());
  s.sync();
  { const fl::json_store closing = std::move(s); }
  std::filesystem::resize_file(file(), std::filesystem::file_size(file()) - 8192);
  std::string m;
  try {
    const fl::json_store r = fl::json_store::open(file(), fl::open_mode::read_only);
    r.verify();
  } catch (const fl::persist_error& e) { m = e.what(); }
  std::printf("planted a truncation: %s\n", m.c_str());
  // The import wrote the root's member table last: the first value found
  // on a missing page is the root.
  EXPECT_NE(m.find("verify: \"\" (the root): page "), std::string::npos) << m;
  EXPECT_NE(m.find("the file is truncated"), std::string::npos) << m;
  // The writer's open refuses the file outright.
  try {
    (void)fl::json_store::open(file());
    ADD_FAILURE() << "a truncated store opened";
  } catch (const fl::persist_error& e) {
    std::printf("a writer's open of it: %s\n", e.what());
    EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
  }
}

TEST_F(JsonVerifyTest, ABrokenKeyIndex) {
  make_store();
  fl_test::store_bytes b(file());
  const fj::json_ref big = b.ref("/big");
  ASSERT_GE(big.n, fj::index_min_members);
  const std::uint64_t index = big.x + std::uint64_t{big.n} * sizeof(fj::json_member);
  // Two entries swapped: a permutation still, but out of order.
  const auto e0 = b.get<std::uint32_t>(index), e1 = b.get<std::uint32_t>(index + 4);
  b.put(index, e1);
  b.put(index + 4, e0);
  std::string m = planted(b, "an unsorted key index");
  EXPECT_NE(m.find("verify: /big: the key index is not sorted at entry 1"), std::string::npos) << m;
  // One entry twice: not a permutation.
  b.put(index + 4, e1);
  b.put(index, e1);
  m = planted(b, "a key index naming a member twice");
  EXPECT_NE(m.find("verify: /big: the key index names member"), std::string::npos) << m;
  EXPECT_NE(m.find("not a permutation"), std::string::npos) << m;
}

TEST_F(JsonVerifyTest, InvalidUtf8InAStringAndAKey) {
  make_store();
  fl_test::store_bytes b(file());
  b.bytes()[b.ref("/name").x + 2] = static_cast<char>(0xFF);
  std::string m = planted(b, "invalid UTF-8 in a string");
  EXPECT_NE(m.find("verify: /name: a string is not valid UTF-8 (byte 2)"), std::string::npos) << m;

  make_store();
  fl_test::store_bytes k(file());
  const fj::json_ref big = k.ref("/big");
  const auto m5 = k.get<fj::json_member>(big.x + 5 * sizeof(fj::json_member));
  k.bytes()[m5.key] = static_cast<char>(0xC0);  // an overlong form's lead byte
  k.fix_checksums();
  k.save();
  m = verify_message();
  std::printf("planted invalid UTF-8 in a key: %s\n", m.c_str());
  EXPECT_NE(m.find("verify: /big: member 5's key is not valid UTF-8 (byte 0)"), std::string::npos)
      << m;
}

TEST_F(JsonVerifyTest, AnUnknownKind) {
  const std::string m = planted_ref(
      "/big/key7", [](fj::json_ref& r) { r.k = 77; }, "an unknown kind");
  EXPECT_NE(m.find("verify: /big/key7: a value of unknown kind 77"), std::string::npos) << m;
}

TEST_F(JsonVerifyTest, AReferencePastItsBlock) {
  // The block holds "second one" and a little more.
  const std::string m = planted_ref(
      "/recent/1", [](fj::json_ref& r) { r.n = 5000; }, "an oversized string");
  EXPECT_NE(m.find("verify: /recent/1: a string's block"), std::string::npos) << m;
}

// Format 2 stores share blocks: verify checks bounds there, not ownership.
TEST_F(JsonVerifyTest, AFormat2StoreMayShareBlocks) {
  make_store();
  fl_test::store_bytes b(file());
  const std::uint64_t head = b.meta().alloc.root;
  b.put<std::uint32_t>(head + offsetof(fj::json_head, version), 2);
  b.put(b.ref_at("/recent/1"), b.ref("/recent/0"));
  b.fix_checksums();
  b.save();
  EXPECT_EQ(verify_message(), "");
  const fl::json_store r = fl::json_store::open(file(), fl::open_mode::read_only);
  EXPECT_EQ(*r.at("/recent/1"), R"("first value of recent")");
}

// A writer process commits edits of every kind while this process opens
// read-only and verifies, refreshes and verifies again: no false faults.
TEST_F(JsonVerifyTest, AReaderVerifiesWhileAWriterCommits) {
  make_store();
  const fl_test::piped_child writer = fl_test::fork_piped([&](int) {
    try {
      auto s = fl::json_store::open(file());
      for (int i = 0; i < 400; ++i) {
        s.set("/recent/-", "\"value " + std::to_string(i) + std::string(i % 50, 'v') + "\"");
        if (s.find("/recent")->size() > 20) s.erase("/recent/0");
        s.set("/big/key" + std::to_string(i % 30), std::to_string(i));
        s.set("/name", "\"name " + std::to_string(i) + "\"");
        s.sync();
      }
    } catch (...) { ::_exit(3); }
  });
  ::close(writer.from_child);
  int verifies = 0, status = 0;
  bool done = false;
  std::string fault;
  while (!done || verifies < 20) {
    done = done || ::waitpid(writer.pid, &status, WNOHANG) == writer.pid;
    try {
      fl::json_store r = fl::json_store::open(file(), fl::open_mode::read_only);
      r.verify();
      ++verifies;
      for (int k = 0; k < 5; ++k) {
        r.refresh();
        r.verify();
        fl::mapped_space(file(), {.mode = fl::open_mode::read_only}).verify();
        ++verifies;
      }
    } catch (const fl::persist_error& e) {
      fault = e.what();
      break;
    }
  }
  if (!done) ::waitpid(writer.pid, &status, 0);
  std::printf("%d verifies beside the writer's 400 commits\n", verifies);
  EXPECT_EQ(fault, "");
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
