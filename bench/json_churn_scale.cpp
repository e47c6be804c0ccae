// bench/json_churn_scale.cpp: fl_json_churn_scale, the file a store keeps after
// many random edits of a big object, against a fresh import of the document
// it ends with (issue 36: after a million random edits at n = 1m, the file
// within 2x a fresh import).
//
// Method: the json/scale document (bench/json_scale_peers.hpp: an object of
// n members "m00000000": 0, ... and an array of n numbers) is imported; then
// `edits` random edits of the object, each one of: a member's value set to a
// new number, to a short string, a member erased and a new key added (so the
// object keeps about n members), committed with sync() every `per_commit`
// edits. At the end: the store's file size (after a last sync), then the same
// document imported fresh and synced, its file size, and their ratio. The
// edits are seeded (FL_BENCH_SEED, fl_bench::seed), so a run is repeatable.
// Each tenth's line also gives what a commit wrote on average: its log
// record (stats().last_sync_log_bytes, the one flushed write), the pages it
// changed (last_sync_pages), and every byte handed to write calls (the
// growth of /proc/self/io's wchar over the edits and commits: the record and
// the changed bytes in place). With per_commit = 1 that is the cost of a
// single-edit commit under random edits, where each new block lands on one
// freed by unrelated edits.
//
//   fl_json_churn_scale [n = 1000000] [edits = 1000000] [per_commit = 100]
//
// Prints one line per tenth of the edits (edits done, file MB, seconds) and
// the result. Writes in a scratch directory under $TMPDIR or /tmp, removed
// at exit. Not part of `make bench` (a million edits take minutes).
#include "common.hpp"
#include "json_scale_peers.hpp"

#include <fl/json_store.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  using fl_bench::scale::member_key;
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1'000'000;
  const std::size_t edits = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1'000'000;
  const std::size_t per_commit =
      argc > 3 ? std::max<std::size_t>(1, std::strtoull(argv[3], nullptr, 10)) : 100;
  const fl_bench::scratch_dir dir("fl_json_churn_scale");
  const auto t0 = std::chrono::steady_clock::now();
  auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };

  auto s = fl::json_store::import(fl_bench::scale::document_text(n), dir.path() / "churn.fljson");
  s.sync();
  const std::uint64_t imported = s.stats().file_bytes;
  std::printf("n %zu: imported, file %.1f MB (%.1f s)\n", n, imported / 1e6, seconds());

  // The keys present, so an erase or a set names one: index -> key.
  std::vector<std::string> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = member_key(i);
  fl_bench::rng r(fl_bench::seed());
  std::size_t added = 0;
  std::uint64_t commits = 0, logged = 0, pages = 0;
  const auto io_start = fl_bench::scale::io_now();
  for (std::size_t e = 1; e <= edits; ++e) {
    const std::size_t i = static_cast<std::size_t>(r.below(n));
    switch (r.below(3)) {
      case 0: s.set("/obj/" + keys[i], std::to_string(r.below(1'000'000'000))); break;
      case 1: s.set("/obj/" + keys[i], "\"v" + std::to_string(r.below(1'000'000)) + "\""); break;
      default:
        s.erase("/obj/" + keys[i]);
        keys[i] = "a" + std::to_string(added++);
        s.set("/obj/" + keys[i], "0");
        break;
    }
    if (e % per_commit == 0) {
      s.sync();
      ++commits;
      logged += s.stats().last_sync_log_bytes;
      pages += s.stats().last_sync_pages;
    }
    if (e % (edits / 10 ? edits / 10 : 1) == 0) {
      const auto io = fl_bench::scale::io_now();
      const double c = static_cast<double>(commits ? commits : 1);
      std::printf(
          "%zu edits: file %.1f MB (%.1f s); a commit: %.1f KiB of log, %.1f pages, "
          "%.1f KiB written\n",
          e, s.stats().file_bytes / 1e6, seconds(), logged / c / 1024, pages / c,
          io && io_start ? (io->wchar - io_start->wchar) / c / 1024 : 0.0);
    }
  }
  s.sync();
  const std::uint64_t churned = s.stats().file_bytes;

  const fl::string text = s.dump();
  auto fresh = fl::json_store::import(std::string_view(text), dir.path() / "fresh.fljson");
  fresh.sync();
  const std::uint64_t reimported = fresh.stats().file_bytes;
  std::printf("after %zu edits: file %.1f MB; fresh import of the result %.1f MB; ratio %.2fx "
              "(%.1f s)\n",
              edits, churned / 1e6, reimported / 1e6,
              static_cast<double>(churned) / static_cast<double>(reimported), seconds());
  return 0;
}
