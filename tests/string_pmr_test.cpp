// fl::pmr::string on std::pmr resources: every block comes from the string's
// resource, the allocator follows polymorphic_allocator's rules (no
// propagation on copy/move assignment or swap; copies get the default
// resource), moves between equal resources never allocate, and blocks are
// returned with the size they were allocated with.
#include <fl/string.hpp>

#include <gtest/gtest.h>

#include <array>
#include <map>
#include <memory_resource>
#include <string>
#include <vector>

namespace {

using namespace std::string_view_literals;
using pstring = fl::pmr::string;
using alloc = std::pmr::polymorphic_allocator<char>;

// Counts and checks every block: a free must name a live block and its size.
class checking_resource : public std::pmr::memory_resource {
 public:
  std::size_t allocations = 0, deallocations = 0, bad_frees = 0;
  std::map<void*, std::size_t> live;

  std::size_t bytes_of(const void* p) const {
    auto it = live.find(const_cast<void*>(p));
    return it == live.end() ? 0 : it->second;
  }

 private:
  void* do_allocate(std::size_t bytes, std::size_t align) override {
    void* p = std::pmr::new_delete_resource()->allocate(bytes, align);
    live[p] = bytes;
    ++allocations;
    return p;
  }
  void do_deallocate(void* p, std::size_t bytes, std::size_t align) override {
    auto it = live.find(p);
    if (it == live.end() || it->second != bytes) ++bad_frees;
    if (it != live.end()) live.erase(it);
    ++deallocations;
    std::pmr::new_delete_resource()->deallocate(p, bytes, align);
  }
  bool do_is_equal(const std::pmr::memory_resource& o) const noexcept override {
    return this == &o;
  }
};

TEST(StringPmrTest, AllocatesOnlyFromItsMonotonicBuffer) {
  std::array<std::byte, 64 * 1024> buf;
  std::pmr::monotonic_buffer_resource mr(buf.data(), buf.size(), std::pmr::null_memory_resource());
  pstring s(&mr);
  for (int i = 0; i < 2000; ++i) s.push_back(static_cast<char>('a' + i % 26));
  s.append(s);
  s.insert(10, s.data() + 5, 100);
  const auto* d = reinterpret_cast<const std::byte*>(s.data());
  EXPECT_TRUE(d >= buf.data() && d < buf.data() + buf.size());
  EXPECT_EQ(s.size(), 4100u);
  EXPECT_EQ(s.get_allocator().resource(), &mr);
  pstring t("a string that needs the heap, from the buffer", &mr);
  EXPECT_EQ(t, "a string that needs the heap, from the buffer");
  // The null upstream proves nothing reached the default resource.
}

TEST(StringPmrTest, ShortStringsNeverAllocate) {
  checking_resource r;
  {
    pstring a(&r);
    pstring b("twenty-three characters", &r);
    pstring c(b, alloc(&r));
    a = b;
    a.append("");
    for (int i = 0; i < 5; ++i) c.pop_back();
    c.push_back('!');
    pstring d(std::move(c), alloc(&r));
    EXPECT_EQ(b.size(), 23u);
  }
  EXPECT_EQ(r.allocations, 0u);
}

TEST(StringPmrTest, BlocksAreFreedWithTheirSizeAndCapacityIsHonest) {
  checking_resource r;
  {
    pstring s(&r);
    for (int i = 0; i < 10000; ++i) {
      s.push_back('x');
      if (s.capacity() > 23) { ASSERT_EQ(r.bytes_of(s.data()), s.capacity() + 1); }
    }
    s.reserve(50000);
    EXPECT_EQ(r.bytes_of(s.data()), s.capacity() + 1);
    s.resize(30);
    s.shrink_to_fit();
    EXPECT_EQ(r.bytes_of(s.data()), s.capacity() + 1);
    s.resize(3);
    s.shrink_to_fit();
    EXPECT_EQ(s.capacity(), 23u);
    EXPECT_EQ(s, "xxx");
  }
  EXPECT_EQ(r.bad_frees, 0u);
  EXPECT_TRUE(r.live.empty());
  EXPECT_EQ(r.allocations, r.deallocations);
}

TEST(StringPmrTest, CopiesFollowPolymorphicAllocatorRules) {
  checking_resource r1, r2;
  pstring a("a heap string held by resource one", &r1);
  pstring copy(a);  // select_on_container_copy_construction: the default resource
  EXPECT_EQ(copy.get_allocator().resource(), std::pmr::get_default_resource());
  pstring copy2(a, alloc(&r2));
  EXPECT_EQ(copy2.get_allocator().resource(), &r2);
  EXPECT_EQ(copy2, a);
  pstring b("resource two's own string, long", &r2);
  b = a;  // no propagation on copy assignment
  EXPECT_EQ(b.get_allocator().resource(), &r2);
  EXPECT_EQ(b, a);
  EXPECT_EQ(a.substr(2).get_allocator().resource(), std::pmr::get_default_resource());
}

TEST(StringPmrTest, MovesStealOnlyBetweenEqualResources) {
  checking_resource r1, r2;
  pstring a("a heap string held by resource one", &r1);
  const char* p = a.data();
  const auto before = r1.allocations;
  pstring moved(std::move(a));  // move construction keeps the allocator
  EXPECT_EQ(moved.data(), p);
  EXPECT_EQ(moved.get_allocator().resource(), &r1);
  EXPECT_EQ(r1.allocations, before);
  EXPECT_TRUE(a.empty());

  pstring same(std::move(moved), alloc(&r1));  // equal resource: steals
  EXPECT_EQ(same.data(), p);
  pstring other(std::move(same), alloc(&r2));  // other resource: copies
  EXPECT_NE(other.data(), p);
  EXPECT_EQ(other.get_allocator().resource(), &r2);
  EXPECT_EQ(other, "a heap string held by resource one");
  EXPECT_EQ(same, "a heap string held by resource one");  // a copy leaves the source alone

  pstring target("target on resource two, long enough", &r2);
  target = std::move(same);  // no propagation: resources differ, so it copies
  EXPECT_EQ(target.get_allocator().resource(), &r2);
  EXPECT_EQ(target, "a heap string held by resource one");
  EXPECT_EQ(r2.bytes_of(target.data()), target.capacity() + 1);

  pstring target1("target on resource one, long enough", &r1);
  pstring src1("source on resource one, also long", &r1);
  const char* sp = src1.data();
  target1 = std::move(src1);  // equal resources: steals
  EXPECT_EQ(target1.data(), sp);
  EXPECT_TRUE(src1.empty());

  pstring x("x on resource one, long enough......", &r1),
      y("y on resource one, long enough......", &r1);
  x.swap(y);
  EXPECT_EQ(x, "y on resource one, long enough......");
  EXPECT_EQ(r1.bad_frees + r2.bad_frees, 0u);
}

TEST(StringPmrTest, OperationsMatchStdPmrString) {
  std::pmr::monotonic_buffer_resource mr;
  pstring s("0123456789", &mr);
  std::pmr::string w("0123456789", &mr);
  for (int i = 0; i < 200; ++i) {
    s.append(s, static_cast<std::size_t>(i) % s.size(), 7);
    w.append(w, static_cast<std::size_t>(i) % w.size(), 7);
    s.replace(static_cast<std::size_t>(i) % s.size(), 3, "<>");
    w.replace(static_cast<std::size_t>(i) % w.size(), 3, "<>");
    if (s.size() > 3000) {
      s.erase(100);
      w.erase(100);
    }
    ASSERT_EQ(std::string_view(s), std::string_view(w));
  }
  EXPECT_EQ(s.find("<>"), w.find("<>"));
  EXPECT_THROW(s.insert(s.size() + 1, "x"), std::out_of_range);
  EXPECT_THROW(s.append(s.max_size(), 'x'), std::length_error);
}

}  // namespace
