// src/shared/immutable_string.cpp
// fl::immutable_string: the out-of-line parts (making the shared block, the
// slow paths of the biased count, each thread's owner record, hashing, errors,
// stream output). Copies and destruction on the owning thread stay inline.
// detail/immutable_rep.hpp states the counting protocol.
#include <fl/immutable_string.hpp>
#include <fl/pool.hpp>

#include <new>
#include <ostream>
#include <stdexcept>
#include <string>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {

immutable_owner immutable_no_owner;

namespace {

// The value of a closed merge queue (its thread has exited): an address that
// is no rep.
alignas(immutable_rep) unsigned char closed_tag;
immutable_rep* queue_closed() noexcept { return reinterpret_cast<immutable_rep*>(&closed_tag); }

// True once the calling thread's record is retired (thread exit): texts it
// makes from then on are born merged.
constinit thread_local bool owner_retired = false;

void free_block(immutable_rep* r) noexcept {
  const std::size_t bytes = immutable_rep::block_size(r->size);
  r->~immutable_rep();
  pool_deallocate(r, bytes);
}

// Moves the owner's count into `shared` and marks r merged (unowned); frees r
// when no reference is left. Run once per text: by its owner, or by the thread
// that found the owner's queue closed.
void merge(immutable_rep* r) noexcept {
  const std::uint64_t l = r->local.load(std::memory_order_relaxed);
  r->local.store(0, std::memory_order_relaxed);
  r->owner.store(&immutable_no_owner, std::memory_order_relaxed);
  const std::int64_t add = static_cast<std::int64_t>(l) * immutable_one + immutable_merged;
  const std::int64_t now = r->shared.fetch_add(add, std::memory_order_acq_rel) + add;
  if ((now >> 2) == 0) free_block(r);
}

// Merges every text of a list taken from o's queue (owner thread). Before the
// thread's exit has folded `owned` into refs, the owner counts in `owned`.
void drain(immutable_owner* o, immutable_rep* list, bool folded) noexcept {
  while (list != nullptr) {
    immutable_rep* next = list->queue_next;
    merge(list);
    if (folded) {
      o->refs.fetch_sub(1, std::memory_order_relaxed);  // never the last: the thread holds one
    } else {
      --o->owned;
    }
    list = next;
  }
}

// Pushes a text whose count went below 0 on its owner's merge queue, or
// merges it here when the owner has exited.
void push_for_merge(immutable_rep* r) noexcept {
  // r is not merged, so its owner record is alive (it counts r in refs).
  immutable_owner* o = r->owner.load(std::memory_order_relaxed);
  immutable_rep* head = o->queue.load(std::memory_order_acquire);
  for (;;) {
    if (head == queue_closed()) {
      // The owner is gone; its last write to r->local happened before it
      // closed the queue, which this thread has just read (acquire).
      merge(r);
      if (o->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete o;
      return;
    }
    r->queue_next = head;
    if (o->queue.compare_exchange_weak(head, r, std::memory_order_release,
                                       std::memory_order_acquire))
      return;
  }
}

// Retires the calling thread's record at thread exit: merges what is queued,
// hands the count of texts it still owns to refs (their holders merge them
// later), closes the queue and drops the thread's own reference.
struct owner_exit_hook {
  owner_exit_hook() = default;
  owner_exit_hook(const owner_exit_hook&) = delete;
  owner_exit_hook& operator=(const owner_exit_hook&) = delete;
  ~owner_exit_hook() {
    immutable_owner* o = immutable_me;
    drain(o, o->queue.exchange(nullptr, std::memory_order_acquire), false);
    o->refs.fetch_add(o->owned, std::memory_order_relaxed);
    o->owned = 0;
    // From here on other threads merge this thread's texts themselves; the
    // release publishes every write this thread made to their local counts.
    drain(o, o->queue.exchange(queue_closed(), std::memory_order_acq_rel), true);
    immutable_me = nullptr;
    owner_retired = true;
    if (o->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete o;
  }
};

// The calling thread's record, made (with its exit hook) on first use; null
// after the thread's exit hook ran.
immutable_owner* current_owner() {
  immutable_owner* o = immutable_me;
  if (o != nullptr || owner_retired) return o;
  o = new immutable_owner;
  immutable_me = o;
  thread_local owner_exit_hook hook;  // constructed here, once per thread
  (void)hook;
  return o;
}

}  // namespace

immutable_rep* immutable_make_rep(const char* p, std::size_t n) {
  if (n > immutable_max_size)
    throw std::length_error("fl::immutable_string: text longer than max_size()");
  void* block = pool_allocate(immutable_rep::block_size(n));
  immutable_owner* o;
  try {
    o = current_owner();
  } catch (...) {
    pool_deallocate(block, immutable_rep::block_size(n));
    throw;
  }
  // Texts other threads dropped since this thread last looked.
  if (o != nullptr && o->queue.load(std::memory_order_relaxed) != nullptr)
    drain(o, o->queue.exchange(nullptr, std::memory_order_acquire), false);
  immutable_rep* rep;
  if (o != nullptr) {
    rep = ::new (block) immutable_rep{{o}, {1}, {0}, {0}, n, nullptr};
    ++o->owned;
  } else {
    // Made during this thread's exit: born merged, counted in `shared` only.
    rep = ::new (block) immutable_rep{
        {&immutable_no_owner}, {0}, {immutable_one + immutable_merged}, {0}, n, nullptr};
  }
  std::memcpy(rep->bytes(), p, n);
  rep->bytes()[n] = '\0';
  return rep;
}

void immutable_owner_released(immutable_rep* r) noexcept {
  immutable_owner* o = immutable_me;
  // The acquire pairs with other threads' acq_rel decrements of `shared`.
  std::int64_t cur = r->shared.load(std::memory_order_acquire);
  if ((cur & immutable_queued) != 0) return;  // queued: the drain merges it
  // From here on count(shared) is the number of handles left (local is 0),
  // so it stays >= 0 and no other thread queues r. r becomes unowned before
  // MERGED is published: once it is, the last other holder may free r at
  // once, and this thread must not write to it after that. (Other threads
  // compare `owner` only with their own record, which is neither value.)
  r->owner.store(&immutable_no_owner, std::memory_order_relaxed);
  for (;;) {
    if (cur == 0) {
      // No reference outside local was ever left over: no other handle exists.
      --o->owned;
      free_block(r);
      return;
    }
    // count(cur) > 0: the merged text lives on in the other handles.
    if (r->shared.compare_exchange_weak(cur, cur | immutable_merged, std::memory_order_acq_rel,
                                        std::memory_order_acquire)) {
      --o->owned;
      return;
    }
  }
}

void immutable_release_shared(immutable_rep* r) noexcept {
  std::int64_t cur = r->shared.load(std::memory_order_relaxed);
  if ((cur & immutable_merged) != 0) {
    // Merged (the flag stays while r lives, and this handle keeps it alive):
    // the drop that takes the count to 0 frees r.
    const std::int64_t now = r->shared.fetch_sub(immutable_one, std::memory_order_acq_rel);
    if (((now - immutable_one) >> 2) == 0) free_block(r);
    return;
  }
  // Not merged: a drop that takes the count below 0 (some of the owner's
  // local references are gone) also claims r for the merge (QUEUED), in the
  // same step. After its decrement this thread holds no reference, so it may
  // touch r again only if that decrement made it the claimant: a separate
  // claim could lose to another thread's, whose merge may free r first.
  for (;;) {
    std::int64_t next = cur - immutable_one;
    const bool claim = (next & (immutable_merged | immutable_queued)) == 0 && (next >> 2) < 0;
    if (claim) next |= immutable_queued;
    if (r->shared.compare_exchange_weak(cur, next, std::memory_order_acq_rel,
                                        std::memory_order_relaxed)) {
      if (claim) {
        push_for_merge(r);
      } else if ((next & immutable_merged) != 0 && (next >> 2) == 0) {
        free_block(r);  // merged since the load, and this was the last handle
      }
      return;
    }
  }
}

std::size_t immutable_hash_bytes(const char* p, std::size_t n) noexcept {
  return std::hash<std::string_view>{}(std::string_view(p, n));
}

}  // namespace detail

std::ostream& operator<<(std::ostream& os, const immutable_string& s) { return os << s.view(); }

}  // namespace FL_ABI_NS
}  // namespace fl
