// tests/powerloss/powerloss_json.cpp: json_store against power loss, alone
// and beside readers (the method: powerloss_test.cpp's opening comment).
#include <fl/json_store.hpp>

#include "recorded_run.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace fs = std::filesystem;
using namespace fl_powerloss;

// ---- json_store ----------------------------------------------------------------

std::string json_string(std::string_view s) { return "\"" + std::string(s) + "\""; }

std::string letters(std::mt19937_64& rng, std::size_t n) {
  std::string s(n, 'a');
  for (char& c : s) c = static_cast<char>('a' + rng() % 26);
  return s;
}

constexpr int log_size = 256;

std::string document(std::mt19937_64& rng, int items) {
  std::string d = "{\"name\":" + json_string(letters(rng, 12)) + ",\"items\":[";
  for (int i = 0; i < items; ++i) {
    if (i) d += ',';
    d += "{\"id\":" + std::to_string(i) + ",\"name\":" + json_string(letters(rng, 8 + rng() % 40)) +
         ",\"tags\":[1,2,3]}";
  }
  d += "],\"counts\":[";
  for (int i = 0; i < 64; ++i) d += (i ? "," : "") + std::to_string(rng() % 1000);
  // An array of 256 elements: a tree of two leaves (format 4), which an
  // erase collapses to a flat table and an insert makes a tree again.
  d += "],\"log\":[";
  for (int i = 0; i < log_size; ++i) d += (i ? "," : "") + std::to_string(i);
  // An object of 256 members: a tree (format 5) of two member leaves,
  // which two erases collapse to a flat table and adds make a tree again.
  d += "],\"index\":{";
  for (int i = 0; i < log_size; ++i)
    d += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":" + std::to_string(i);
  d += "},\"text\":" + json_string(letters(rng, 20000)) + "}";
  return d;
}

// What a commit is, for the check: the document and the change feed's
// newest record (its sequence and patch), which must survive together.
std::string state_of(const fl::json_store& s) {
  std::string v{std::string_view(s.dump())};
  const std::uint64_t seq = s.sequence();
  v += "\n#" + std::to_string(seq);
  if (s.oldest_change() < seq)
    v += " " + std::string(std::string_view(s.changes(seq - 1).at(0).patch));
  return v;
}
std::string document_of(const std::string& state) { return state.substr(0, state.rfind("\n#")); }

reopened reopen_json(const fs::path& dir) {
  const fs::path f = dir / "store";
  return reopen_present(f, [&](reopened& out) {
    const std::string extra = json_string(std::string(9000, 'x'));
    {
      fl::json_store s = fl::json_store::open(f);
      out.value = state_of(s);
      s.set("/powerloss_extra", extra);
      s.sync();
    }
    {
      // The store's space, every page against its checksum.
      const fl::mapped_space sp(f, {.mode = fl::open_mode::open_existing});
      sp.verify();
    }
    fl::json_store s = fl::json_store::open(f);
    const auto got = s.at("/powerloss_extra");
    if (!got || std::string(*got) != extra) out.error = "a member set after reopening was lost; ";
    s.erase("/powerloss_extra");
    s.sync();
    if (std::string_view(s.dump()) != document_of(out.value))
      out.error += "the document changed after reopening";
  });
}

// The commits of json_workload (k = 0: the import; the re-import is
// reimport_at's first), its rounds, and where things happen in it.
// Commits that each set a 1.1 MiB blob while reader A holds an older commit:
// enough to take the log past its bound and past twice the pages the file
// lacks for A, which restarts the log beside A. A record holds only the
// bytes its commit changed, so the log outgrows those pages only by
// rewriting the same ones: each blob takes the block an earlier one freed
// (retired blocks are reused two commits later), and eight of them write
// about 9 MiB of log over about 3.5 MiB of lagging pages.
constexpr std::uint64_t blob_rounds = 8;

struct json_plan {
  std::uint64_t rounds, reimport_at, blobs_at;
  explicit json_plan(std::uint64_t r) : rounds(r), reimport_at(r / 3), blobs_at(r - 14) {}
};

// Called after commit k was acknowledged (k = 0: the import), with the
// writer; `reimported`: the commit was the re-import's.
using json_hook = std::function<void(std::uint64_t k, bool reimported, fl::json_store& writer)>;

struct json_run {
  std::size_t blobs_op = 0, compactions = 0;
};

// Edits of every kind, one or two per commit: numbers in place, small and
// multi-page strings, appended and erased elements, added and erased
// members of an object at the tree boundary. After a third of the
// commits the store is closed and a new document imported over it; near the
// end eight commits of a 1.1 MiB string each take the log past its bound.
// compact() runs twice, each published by its commit's sync().
json_run json_workload(recorded_run& run, const json_plan& plan, const json_hook& after = {}) {
  const fs::path f = run.dir() / "store";
  std::mt19937_64 rng(fl_test::test_seed() ^ 0x15);
  std::optional<fl::json_store> s;
  run.begin();
  s.emplace(fl::json_store::import(document(rng, 20), f));
  s->sync();
  run.ack(state_of(*s));
  if (after) after(0, false, *s);
  const std::uint64_t rounds = plan.rounds;
  const std::uint64_t reimport_at = plan.reimport_at, blobs_at = plan.blobs_at;
  std::size_t blobs_op = 0, compactions = 0;
  int items = 20;
  std::uint64_t log = log_size;
  for (std::uint64_t k = 1; k <= rounds; ++k) {
    if (k == reimport_at) {
      s.reset();  // a clean close: a checkpoint
      run.begin();
      items = 10;
      log = log_size;
      s.emplace(fl::json_store::import(document(rng, items), f));
      s->sync();
      run.ack(state_of(*s));
      if (after) after(k, true, *s);
    }
    if (k == blobs_at) blobs_op = recorded_ops();
    run.begin();
    // Two compactions, each committed and published by its sync(): one
    // amid small edits (which then go to the compacted copy), one after the
    // blob is made small, which brings the file down by megabytes.
    const bool compacting = k == rounds / 2 || k == blobs_at + blob_rounds + 1;
    const std::uintmax_t bytes_before = fs::file_size(f);
    if (k == blobs_at + blob_rounds + 1) s->set("/blob", json_string("small"));
    if (compacting) s->compact();
    if (k >= blobs_at && k < blobs_at + blob_rounds) {
      s->set("/blob", json_string(letters(rng, 1100 * 1024)));
    } else {
      for (std::uint64_t n = 1 + rng() % 2; n-- > 0;) {
        switch (rng() % 10) {
          case 0: s->set("/counts/" + std::to_string(rng() % 64), std::to_string(rng())); break;
          case 1:
            s->set("/items/" + std::to_string(rng() % static_cast<std::uint64_t>(items)) + "/name",
                   json_string(letters(rng, 30)));
            break;
          case 2:
            s->set("/big" + std::to_string(rng() % 4),
                   json_string(letters(rng, 8000 + rng() % 50000)));
            break;
          case 3:
            s->set("/items/-", "{\"id\":" + std::to_string(k) + ",\"name\":\"appended\"}");
            ++items;
            break;
          case 4:
            if (items > 2 && s->erase("/items/0")) --items;
            break;
          case 5:
            s->insert("/log/" + std::to_string(rng() % (log + 1)), std::to_string(k));
            ++log;
            break;
          case 6:
            if (log > 0 && s->erase("/log/" + std::to_string(rng() % log))) --log;
            break;
          case 7:
            s->set("/index/n" + std::to_string(k), json_string(letters(rng, 20)));
            break;
          case 8: s->erase("/index/k" + std::to_string(rng() % log_size)); break;
          default: s->set("/name", json_string(letters(rng, 1 + rng() % 100))); break;
        }
      }
    }
    s->sync();
    run.ack(state_of(*s));
    if (compacting && fs::file_size(f) < bytes_before) ++compactions;
    if (after) after(k, false, *s);
  }
  s.reset();
  return {blobs_op, compactions};
}

TEST(PowerLoss, JsonStore) {
  recorded_run run;
  const json_run did = json_workload(run, json_plan(48 * scale()));
  const check_report r = run.finish("json_store", reopen_json);
  std::printf("powerloss json_store: %zu compactions shrank the file\n", did.compactions);
  EXPECT_GE(did.compactions, 1u);  // the blob's, at least
  // The import's run, the re-import's, and one after the checkpoint at the
  // log's bound (before the close at the end).
  EXPECT_GE(run.log_runs(~std::size_t{0}) - run.log_runs(did.blobs_op), 1u)
      << "no checkpoint at the log's bound";
  EXPECT_GE(r.crash_points, 200u);
  EXPECT_EQ(r.failures, 0u);
}

// The json_store's crash states opened as reopen_json does, with a reader
// opened first (no writer: its table is built from the file and the log)
// and held while the writer recovers, commits a member, closes beside it
// (the log stays), and a writer reopens beside it; the reader must show its
// commit throughout, and the member after refresh(). The value is the
// reader's.
reopened reopen_json_beside_reader(const fs::path& dir) {
  const fs::path f = dir / "store";
  return reopen_present(f, [&](reopened& out) {
    std::optional<fl::json_store> reader(fl::json_store::open(f, fl::open_mode::read_only));
    out.value = state_of(*reader);
    const auto reader_kept = [&](const char* when) {
      if (state_of(*reader) != out.value)
        out.error += std::string("the reader's commit changed ") + when + "; ";
    };
    const std::string extra = json_string(std::string(9000, 'y'));
    {
      fl::json_store s = fl::json_store::open(f);
      if (state_of(s) != out.value)
        out.error += "the writer recovered another commit than a reader before it; ";
      reader_kept("when the writer recovered");
      s.set("/powerloss_extra", extra);
      s.sync();
      reader_kept("under the writer's commit");
    }
    reader_kept("when the writer closed");
    {
      fl::json_store s = fl::json_store::open(f);
      reader_kept("when a writer reopened beside it");
      reader->refresh();
      const auto got = reader->at("/powerloss_extra");
      if (!got || std::string(*got) != extra)
        out.error += "the refreshed reader does not see the member; ";
      reader.reset();
      s.erase("/powerloss_extra");
      s.sync();
      if (std::string_view(s.dump()) != document_of(out.value)) out.error += "the document changed; ";
    }
    {
      const fl::mapped_space sp(f, {.mode = fl::open_mode::open_existing});
      sp.verify();
    }
    const fl::json_store late = fl::json_store::open(f, fl::open_mode::read_only);
    if (std::string_view(late.dump()) != document_of(out.value))
      out.error += "a reader opened at the end differs";
  });
}

// A json_store reader held beside the writer.
struct held_json_reader {
  std::optional<fl::json_store> s;
  std::string value;
  void open(const fs::path& f) {
    s.emplace(fl::json_store::open(f, fl::open_mode::read_only));
    value = state_of(*s);
  }
  void refresh() {
    s->refresh();
    value = state_of(*s);
  }
};

// The json_store workload with readers in this process: reader A opens on
// the import and holds it across the close; the re-import replaces the file
// under it (it keeps its commit, and its refresh() says the store was
// replaced); reopened on the new store, it holds the re-import's commit,
// never refreshed, through the first compaction and the 1.1 MiB blobs that
// take the log past its bound (restarted, since the file cannot move past
// A), then refreshes; reader B opens before the second compaction and is
// held to the end. Every held reader must show its commit after every later
// one.
TEST(PowerLoss, JsonStoreBesideReaders) {
  recorded_run run;
  const fs::path f = run.dir() / "store";
  const json_plan plan(48 * scale());
  held_json_reader a, b;
  std::size_t checks = 0;
  const auto check = [&](held_json_reader& r, const char* name, std::uint64_t k) {
    if (!r.s) return;
    ASSERT_EQ(state_of(*r.s), r.value) << "reader " << name << " after commit " << k;
    ++checks;
  };
  // The writer replaces the file (re-import, compaction): a reader's
  // refresh() opens the file the path names then.
  const auto refresh_to_writer = [&](held_json_reader& r, fl::json_store& w) {
    r.refresh();
    ASSERT_EQ(r.value, state_of(w)) << "a reader refreshed to another commit";
  };
  const std::uint64_t first_compaction_at = plan.rounds / 2,
                      second_compaction_at = plan.blobs_at + blob_rounds + 1;
  const json_run did = json_workload(run, plan, [&](std::uint64_t k, bool reimported,
                                                    fl::json_store& w) {
    check(a, "A", k);
    check(b, "B", k);
    // This run keeps no change records (keep_changes(0)): every commit's
    // record would be pages written since A's commit, which the file
    // lacks as long as A holds it, so the blobs' records would double those
    // pages and the log would never reach twice them (the restart's rule).
    // The json_store run above checks the records under power loss.
    if (k == 0 || reimported) w.keep_changes(0);
    if (k == 0) a.open(f);
    if (reimported || k == first_compaction_at || k == second_compaction_at)
      refresh_to_writer(a, w);
    if (k == plan.blobs_at + blob_rounds) {  // the log restarted beside A: refresh() follows it
      a.refresh();
      ASSERT_EQ(a.value, state_of(w)) << "reader A refreshed to another commit";
    }
    if (k == plan.blobs_at + blob_rounds + 2) b.open(f);
  });
  ASSERT_EQ(state_of(*a.s), a.value);
  ASSERT_EQ(state_of(*b.s), b.value);
  const std::string last = run.commits().back().value;
  a.refresh();
  b.refresh();
  EXPECT_EQ(a.value, last);
  EXPECT_EQ(b.value, last);
  a.s.reset();
  b.s.reset();
  const check_report r = run.finish("json_store beside readers", reopen_json_beside_reader);
  std::printf(
      "powerloss json_store beside readers: %zu log restarts, %zu compactions shrank the file, "
      "%zu reader checks\n",
      run.log_restarts(), did.compactions, checks);
  EXPECT_GE(run.log_restarts(), 1u) << "the reader's pin forced no log restart";
  EXPECT_GE(r.crash_points, 200u);
  EXPECT_EQ(r.failures, 0u);
}


}  // namespace
