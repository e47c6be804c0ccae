// src/rope/node.cpp: fl::rope's blocks and nodes: the test build's failure
// hook, chunks with a separate byte block, the per-thread stash of spare
// inner nodes that joins take from, copying a shared node (mut), sub-nodes,
// and destroy. See rope_impl.hpp for the ownership convention.
#include "rope/rope_impl.hpp"

#include "rope/metrics.hpp"

#include <cstdio>
#include <cstdlib>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {
inline namespace FL_ROPE_NS {

#ifdef FL_ROPE_FAIL_HOOK
namespace {
thread_local std::size_t fail_countdown = 0;  // 0: never fail
thread_local long live_blocks = 0;
}  // namespace

void fail_point() {
  if (fail_countdown != 0 && --fail_countdown == 0) throw std::bad_alloc();
}
void count_blocks(long n) noexcept { live_blocks += n; }
#endif

chunk* new_block_chunk(std::size_t cap) {
  char* data = static_cast<char*>(rope_allocate(cap + 1));
  try {
    return init_chunk(rope_allocate(sizeof(chunk)), node_kind::chunk_adopted, data, cap, 0);
  } catch (...) {
    rope_deallocate(data, cap + 1);
    throw;
  }
}

// ---------------------------------------------------------------- the stash

spare_blocks::~spare_blocks() {
  while (head) {
    void* next = *static_cast<void**>(head);
    rope_deallocate(head, sizeof(inner));
    head = next;
  }
}

namespace {
thread_local spare_blocks spares;
}  // namespace

spare_blocks& thread_spares() noexcept { return spares; }

void fill_spares(spare_blocks& sp, unsigned k) {
  while (sp.count < k) {
    void* b = rope_allocate(sizeof(inner));
    *static_cast<void**>(b) = sp.head;
    sp.head = b;
    ++sp.count;
  }
}

inner* take_inner(std::uint8_t height) {
  spare_blocks& sp = spares;
  if (sp.head == nullptr) [[unlikely]] {
#ifdef FL_ROPE_FAIL_HOOK
    std::fputs("fl::rope: join used more nodes than join_reserve counted\n", stderr);
    std::abort();
#else
    return new_inner(height);
#endif
  }
  void* b = sp.head;
  sp.head = *static_cast<void**>(b);
  --sp.count;
  return init_inner(b, height);
}

// ---------------------------------------------------------------- nodes

inner* mut(edge& e, bool reserved) {
  inner* n = static_cast<inner*>(e.p);
  if (unique(n)) {
    n->cursor.depth = 0;
    return n;
  }
  inner* c = reserved ? take_inner(n->height) : new_inner(n->height);
  c->count = n->count;
  // One block copy, then the counts (child pointers are never null).
  std::memcpy(c->child, n->child, sizeof(edge) * n->count);
  for (unsigned i = 0; i < n->count; ++i)
    c->child[i].p->refs.fetch_add(1, std::memory_order_relaxed);
  release(n);
  e.p = c;
  return c;
}

edge sub_node(const inner* n, unsigned b, unsigned e) {
  if (b == e) return edge{};
  if (e - b == 1) {
    acquire(n->child[b].p);
    return n->child[b];
  }
  inner* m = new_inner(n->height);
  std::size_t len = 0;
  for (unsigned i = b; i < e; ++i) {
    m->child[m->count++] = n->child[i];
    acquire(n->child[i].p);
    len += n->child[i].len;
  }
  return edge{m, 0, len};
}

edge make_leaf(std::string_view text, std::size_t cap) {
  chunk* c = new_chunk(cap);
  std::memcpy(c->data, text.data(), text.size());
  c->used = text.size();
  return edge{c, 0, text.size()};
}

void destroy(node* p) noexcept {
  switch (p->kind) {
    case node_kind::chunk_inline: {
      chunk* c = static_cast<chunk*>(p);
      free_index(c);
      rope_deallocate(c, chunk_bytes(c->cap));
      break;
    }
    case node_kind::chunk_adopted: {
      chunk* c = static_cast<chunk*>(p);
      free_index(c);
      rope_deallocate(c->data, c->cap + 1);
      rope_deallocate(c, sizeof(chunk));
      break;
    }
    case node_kind::inner: {
      inner* n = static_cast<inner*>(p);
      for (unsigned i = 0; i < n->count; ++i) release(n->child[i].p);
      rope_deallocate(n, sizeof(inner));
      break;
    }
  }
}

#ifdef FL_ROPE_FAIL_HOOK
void rope_fail_after(std::size_t n) noexcept { fail_countdown = n; }
long rope_live_blocks() noexcept { return live_blocks - static_cast<long>(spares.count); }
#endif

}  // namespace FL_ROPE_NS
}  // namespace detail
}  // namespace FL_ABI_NS
}  // namespace fl
