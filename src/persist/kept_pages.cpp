// src/persist/kept_pages.cpp: the pages a writer's commit leaves mapped as
// private copies (space.hpp, "kept_pages.cpp"). A commit used to drop every
// page it wrote (MADV_DONTNEED), so the next edit of the same page faulted
// and copied it again: 16-25 faults a commit for a member added to an object
// of 1k-1m members, most of them the same head, checksum and free-list pages
// and the blocks that return from the free lists two commits later. Kept,
// a page costs a 4 KiB image and a memcmp a commit until it goes.
//
// Invariant: a kept page's image is the page as the last commit that changed
// it left it, which the data file also holds (only the writer beside no
// lagging reader keeps pages: a page the file lacks is lagging instead).
#include "persist/persist_format.hpp"

#include "persist/space.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <vector>

#include <sys/mman.h>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

namespace {

// The kept entry of the page at `off`, now of commit `gen`: where writes are
// reported, it goes to the back of kept_order (its older entry, if any, is
// stale now).
page_image& kept_at(space_state& s, std::uint64_t off, std::uint64_t gen) {
  page_image& k = s.kept[off];
  if (s.writes_reported) s.kept_order.emplace_back(gen, off);
  k.gen = gen;
  return k;
}

}  // namespace

void follow_changes(const space_state& s, std::byte* image, std::uint64_t off,
                    const std::vector<log_extent>& changes, std::size_t& next) {
  const std::uint64_t end = off + s.sys_page;
  while (next < changes.size() && changes[next].offset + changes[next].length <= off) ++next;
  for (std::size_t i = next; i < changes.size() && changes[i].offset < end; ++i) {
    const std::uint64_t from = std::max(changes[i].offset, off);
    const std::uint64_t to = std::min(changes[i].offset + changes[i].length, end);
    std::memcpy(image + (from - off), s.base + from, to - from);
  }
  if (s.check_reports && std::memcmp(image, s.base + off, s.sys_page) != 0)
    fail(s, "the image of the page at offset " + hex(off) +
                " missed a change of its commit (a defect of fl); nothing is wrong on disk");
}

void keep_image(space_state& s, std::uint64_t off, std::uint64_t gen,
                std::unique_ptr<std::byte[]> image) {
  kept_at(s, off, gen).image = std::move(image);
}

void drop_unchanged_kept(space_state& s, std::vector<log_extent>& runs) {
  if (s.kept.empty()) return;
  s.kept.erase_from(s.size);  // cut by a compaction
  if (s.kept.empty()) return;
  const auto t0 = std::chrono::steady_clock::now();
  drop_pages_matching_images(s, s.kept, runs);
  s.compare_ns_per_page = std::max<std::uint64_t>(1, ns_since(t0) / s.kept.size());
}

void keep_committed(space_state& s, const std::vector<log_extent>& pages,
                    const std::vector<log_extent>& changes) {
  std::uint64_t bytes = 0;
  for (const log_extent& r : pages) bytes += r.length;
  if (sys_pages(s, bytes) > kept_max) {
    // A big commit: its pages go, as every page once did.
    std::vector<log_extent> all = pages;
    for (const auto& [off, k] : s.kept) all.push_back({off, s.sys_page});  // in any order
    drop_ranges(s, all);
    forget_kept(s);
    return;
  }
  const std::uint64_t g = s.committed.generation;
  std::size_t next = 0;
  for (const log_extent& r : pages) {
    for (std::uint64_t off = r.offset; off < r.offset + r.length; off += s.sys_page) {
      page_image& k = kept_at(s, off, g);
      if (k.image) {
        follow_changes(s, k.image.get(), off, changes, next);
      } else {
        k.image.reset(new std::byte[s.sys_page]);
        std::memcpy(k.image.get(), s.base + off, s.sys_page);
      }
    }
  }
  if (s.writes_reported) {
    // No rent: a kept page costs a commit nothing until a write reports it
    // (the page tables are not walked), and then its compare is cheaper
    // than reading the file's page. The oldest go past kept_max.
    std::vector<log_extent> going;
    while (s.kept.size() > kept_max && !s.kept_order.empty()) {
      const auto [gen, off] = s.kept_order.front();
      s.kept_order.pop_front();
      const page_image* k = s.kept.find(off);
      if (k == nullptr || k->gen != gen) continue;  // stale
      s.kept.erase(off);
      going.push_back({off, s.sys_page});
    }
    if (s.kept_order.size() > 2 * std::max(s.kept.size(), kept_max)) {
      // Mostly stale entries: rebuilt from `kept`, oldest commit first.
      std::vector<std::pair<std::uint64_t, std::uint64_t>> order;
      order.reserve(s.kept.size());
      for (const auto& [off, k] : s.kept) order.emplace_back(k.gen, off);
      std::sort(order.begin(), order.end());
      s.kept_order.assign(order.begin(), order.end());
    }
    std::sort(going.begin(), going.end(),
              [](const log_extent& a, const log_extent& b) { return a.offset < b.offset; });
    drop_ranges(s, going);
    return;
  }
  // Pages unchanged for as long as their rent allows go (whether or not the
  // page tables showed them), then the oldest while more are kept than this
  // commit's size allows. The drops are timed: they price the next.
  const std::uint64_t price = drop_price(s);
  const std::uint64_t stay = kept_commits_for(price, s.compare_ns_per_page);
  const std::uint64_t limit = kept_pages_for(sys_pages(s, bytes), price, s.compare_ns_per_page);
  std::vector<log_extent> going;
  s.kept.erase_if([&](std::uint64_t off, const page_image& k) {
    if (k.gen == g || g - k.gen < stay) return false;
    going.push_back({off, s.sys_page});
    return true;
  });
  going = merge_runs(going, {});  // in offset order, neighbours in one run
  if (s.kept.size() > limit) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> older;  // (commit, offset)
    for (const auto& [off, k] : s.kept)
      if (k.gen != g) older.emplace_back(k.gen, off);
    std::sort(older.begin(), older.end());
    for (const auto& [gen, off] : older) {
      if (s.kept.size() <= limit) break;
      going.push_back({off, s.sys_page});
      s.kept.erase(off);
    }
  }
  if (going.empty()) return;
  const auto t0 = std::chrono::steady_clock::now();
  drop_ranges(s, going);
  price_drops(s, ns_since(t0), going.size());
}

}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
