// src/rope/anchors.cpp: fl::rope's anchors (rope.hpp "anchors"): positions
// that every edit moves, kept in two treaps per rope, one per bias, whose
// nodes are ordered by position. An edit moves the positions by a monotone
// map (the rule in rope.hpp), so within one bias the order never changes
// and the map is applied lazily: a subtree wholly before the edit is left
// alone, one wholly after it gets "add m - n" and one wholly inside it gets
// "set to pos (+ m)", each as one pending shift at its root. Only the nodes
// on the paths to the edit's two ends are visited: O(log k) per edit for k
// anchors, whatever number the edit moves. (One tree for both biases would
// not do: an edit sends the anchors inside it to two places, by bias, and
// that would reorder them.) Typing runs between two anchors cost O(1) per
// edit: see anchor_table's gap.
#include "rope/rope_impl.hpp"

#include <stdexcept>

namespace fl {
inline namespace FL_ABI_NS {
namespace detail {
inline namespace FL_ROPE_NS {

namespace {

// A map of positions: p -> v when set, else p + v (unsigned arithmetic: an
// add of m - n < 0 wraps and comes back, since it is only applied to
// positions p > n).
struct shift {
  std::size_t v = 0;
  bool set = false;
  std::size_t operator()(std::size_t p) const noexcept { return set ? v : p + v; }
  // *this, then `later`.
  void then(const shift& later) noexcept {
    if (later.set)
      *this = later;
    else
      v += later.v;
  }
  bool identity() const noexcept { return !set && v == 0; }
};

}  // namespace

// One anchor. Invariant: pos, lo and hi (the node's position and the least
// and greatest positions of its subtree) are current once the pending
// shifts of the node's ancestors are applied, from its parent up (a
// parent's pending shift was made after the shifts it pushed down earlier);
// `pending` is owed to the node's children.
struct anchor_node {
  std::size_t pos, lo, hi;
  std::size_t pending_v = 0;  // the pending shift (its fields apart, so
  bool pending_set = false;   // that they pack beside prio and bias)
  rope::bias bias;
  std::uint32_t prio;  // treap heap key: a parent's is >= its children's
  anchor_node* left = nullptr;
  anchor_node* right = nullptr;
  anchor_node* parent = nullptr;

  shift pending() const noexcept { return {pending_v, pending_set}; }
  void set_pending(const shift& s) noexcept {
    pending_v = s.v;
    pending_set = s.set;
  }
};
static_assert(sizeof(anchor_node) == 64 || sizeof(void*) != 8, "rope.hpp says 64 bytes");

// A rope's anchors. The table lives while the rope holds it or a handle
// does: `held` is cleared when the rope lets go, and the table is freed
// when it is not held and count reaches 0.
//
// The gap: typing goes on between two anchors far more often than it
// reaches one, and such an edit only adds the same amount to every anchor
// after it. So after an edit that went through the treaps, the stretch
// around where its text ends that holds no anchor is noted (one descent per
// treap), and the edits that follow inside that stretch touch no node: they
// add to `owed` instead, which every anchor whose stored position is at
// least owed_from is owed. Invariant while gap_on: no anchor lies in
// [free_lo, free_hi) (positions as they are now; free_hi npos when no
// anchor lies past it), the anchors at or past free_hi are exactly those
// whose stored positions are >= owed_from, and no stored position changed
// since the gap was noted. position() adds what is owed; anchor_at and an
// edit outside the gap first pay it into the treaps (settle_gap). Releasing
// an anchor keeps the invariant (the stretch only grows).
struct anchor_table {
  anchor_node* root[2] = {nullptr, nullptr};  // by bias: [0] before, [1] after
  std::size_t count = 0;
  std::uint64_t rng = 0x9E3779B97F4A7C15u;  // treap priorities (xorshift)
  bool held = true;
  bool gap_on = false;
  std::size_t free_lo = 0, free_hi = 0;
  std::size_t owed_from = 0, owed = 0;  // unsigned: an owed shrink wraps and comes back
};

// The treap operations (a namespace of their own: detail has a split and a
// join of edges).
namespace anchor_tree {

void apply(anchor_node* x, const shift& s) noexcept {
  if (!x) return;
  x->pos = s(x->pos);
  x->lo = s(x->lo);
  x->hi = s(x->hi);
  shift p = x->pending();
  p.then(s);
  x->set_pending(p);
}

void push(anchor_node* x) noexcept {
  const shift p = x->pending();
  if (p.identity()) return;
  apply(x->left, p);
  apply(x->right, p);
  x->set_pending({});
}

// lo and hi from the children (their values seen through x's pending).
void pull(anchor_node* x) noexcept {
  const shift p = x->pending();
  x->lo = x->left ? p(x->left->lo) : x->pos;
  x->hi = x->right ? p(x->right->hi) : x->pos;
}

void set_left(anchor_node* x, anchor_node* c) noexcept {
  x->left = c;
  if (c) c->parent = x;
}
void set_right(anchor_node* x, anchor_node* c) noexcept {
  x->right = c;
  if (c) c->parent = x;
}

// Every node of a before every node of b (by position).
anchor_node* merge(anchor_node* a, anchor_node* b) noexcept {
  if (!a) return b;
  if (!b) return a;
  if (a->prio >= b->prio) {
    push(a);
    set_right(a, merge(a->right, b));
    pull(a);
    return a;
  }
  push(b);
  set_left(b, merge(a, b->left));
  pull(b);
  return b;
}

struct halves {
  anchor_node* less;  // positions < key
  anchor_node* rest;
};
halves split(anchor_node* x, std::size_t key) noexcept {
  if (!x) return {nullptr, nullptr};
  push(x);
  if (x->pos < key) {
    const halves h = split(x->right, key);
    set_right(x, h.less);
    pull(x);
    return {x, h.rest};
  }
  const halves h = split(x->left, key);
  set_left(x, h.rest);
  pull(x);
  return {h.less, x};
}

// The rope.hpp rule for one tree: [pos, pos + n] goes to at, past it moves
// by `past`. Visits the nodes whose subtree straddles pos or pos + n.
void edit_tree(anchor_node* x, std::size_t pos, std::size_t end, std::size_t at,
               std::size_t past) noexcept {
  if (!x || x->hi < pos) return;
  if (x->lo > end) return apply(x, shift{past, false});
  if (x->lo >= pos && x->hi <= end) return apply(x, shift{at, true});
  push(x);
  x->pos = x->pos < pos ? x->pos : x->pos <= end ? at : x->pos + past;
  edit_tree(x->left, pos, end, at, past);
  edit_tree(x->right, pos, end, at, past);
  pull(x);
}

// Adds d to every position >= from (the gap's debt paid).
void add_from(anchor_node* x, std::size_t from, std::size_t d) noexcept {
  if (!x || x->hi < from) return;
  if (x->lo >= from) return apply(x, shift{d, false});
  push(x);
  if (x->pos >= from) x->pos += d;
  add_from(x->left, from, d);
  add_from(x->right, from, d);
  pull(x);
}

// Narrows [lo, hi) to exclude the positions of the tree x around q: lo
// past the greatest one below q, hi to the least one above it; an anchor
// at q empties the range. One descent, reading positions through the
// pending shifts on the way (nothing is written).
void narrow(const anchor_node* x, std::size_t q, std::size_t& lo, std::size_t& hi) noexcept {
  shift s;  // the pending shifts of x's ancestors, composed
  while (x) {
    const std::size_t p = s(x->pos);
    if (p == q) {
      lo = q + 1;
      hi = q;
      return;
    }
    if (p < q)
      lo = std::max(lo, p + 1);
    else
      hi = std::min(hi, p);
    shift below = x->pending();  // x's children see x's shift first
    below.then(s);
    s = below;
    x = p < q ? x->right : x->left;
  }
}

}  // namespace anchor_tree

namespace {

// Pays the gap's debt into the treaps and forgets the gap.
void settle_gap(anchor_table& t) noexcept {
  if (!t.gap_on) return;
  t.gap_on = false;
  if (t.owed == 0) return;
  for (anchor_node* root : t.root) anchor_tree::add_from(root, t.owed_from, t.owed);
}

}  // namespace

void rope_engine::move_anchors(rope& r, size_type pos, size_type n, size_type ins) noexcept {
  anchor_table& t = *r.anchors_;
  n = std::min(n, static_cast<size_type>(-1) - pos);  // clamp_anchors passes npos
  if (t.gap_on && t.free_lo <= pos && pos + n < t.free_hi) {
    // Inside the gap: nothing before it moves, everything after it moves by
    // ins - n (the rule of rope.hpp with no anchor in [pos, pos + n]).
    if (t.free_hi != npos) {
      t.free_hi += ins - n;
      t.owed += ins - n;
    }
    return;
  }
  settle_gap(t);
  for (int b = 0; b < 2; ++b) {
    anchor_node* root = t.root[b];
    const size_type at = b == static_cast<int>(rope::bias::after) ? pos + ins : pos;
    anchor_tree::edit_tree(root, pos, pos + n, at, ins - n);
  }
  // The stretch without anchors around where the edit's text ends, where
  // typing goes on.
  const size_type q = pos + ins;
  size_type lo = 0, hi = npos;
  for (const anchor_node* root : t.root) anchor_tree::narrow(root, q, lo, hi);
  if (lo <= q && q < hi) {
    t.gap_on = true;
    t.free_lo = lo;
    t.free_hi = t.owed_from = hi;
    t.owed = 0;
  }
}

void rope_engine::drop_anchors(rope& r) noexcept {
  r.anchors_->held = false;
  if (r.anchors_->count == 0) delete r.anchors_;
  r.anchors_ = nullptr;
}

}  // namespace FL_ROPE_NS
}  // namespace detail

inline namespace FL_ROPE_NS {

rope::anchor rope::anchor_at(size_type pos, bias b) {
  if (pos > size())
    detail::throw_out_of_range("fl::rope::anchor_at", "pos", pos, ">", "size()", size());
  if (!anchors_) anchors_ = new detail::anchor_table;
  detail::anchor_table& t = *anchors_;
  detail::settle_gap(t);  // the new node's position is a current one
  auto* x = new detail::anchor_node;
  x->pos = x->lo = x->hi = pos;
  t.rng ^= t.rng << 13;
  t.rng ^= t.rng >> 7;
  t.rng ^= t.rng << 17;
  x->prio = static_cast<std::uint32_t>(t.rng >> 32);
  x->bias = b;
  detail::anchor_node*& root = t.root[static_cast<int>(b)];
  const detail::anchor_tree::halves h = detail::anchor_tree::split(root, pos);
  root = detail::anchor_tree::merge(detail::anchor_tree::merge(h.less, x), h.rest);
  root->parent = nullptr;
  ++t.count;
  return anchor(anchors_, x);
}

bool rope::holds(const anchor& a) const noexcept {
  return a.node_ && a.table_ == anchors_;
}

rope::size_type rope::position(const anchor& a) const {
  if (!holds(a))
    throw std::invalid_argument(a.node_ ? "fl::rope::position: the anchor is not one of this rope's"
                                        : "fl::rope::position: the anchor is empty");
  size_type p = a.node_->pos;
  for (const detail::anchor_node* up = a.node_->parent; up; up = up->parent) p = up->pending()(p);
  // Stored positions at or past owed_from are owed the gap's shift.
  return anchors_->gap_on && p >= anchors_->owed_from ? p + anchors_->owed : p;
}

rope::size_type rope::anchor_count() const noexcept { return anchors_ ? anchors_->count : 0; }

rope::bias rope::anchor::bias() const noexcept { return node_->bias; }

// The node leaves its tree: its children, merged, take its place, and the
// ancestors' lo and hi are recomputed on the way up. O(log k).
void rope::anchor::release() noexcept {
  detail::anchor_node* x = node_;
  detail::anchor_table* t = table_;
  node_ = nullptr;
  table_ = nullptr;
  detail::anchor_tree::push(x);
  detail::anchor_node* m = detail::anchor_tree::merge(x->left, x->right);
  detail::anchor_node* up = x->parent;
  if (m) m->parent = up;
  if (!up) {
    t->root[static_cast<int>(x->bias)] = m;
  } else {
    (up->left == x ? up->left : up->right) = m;
    for (; up; up = up->parent) detail::anchor_tree::pull(up);
  }
  delete x;
  if (--t->count == 0 && !t->held) delete t;
}

}  // namespace FL_ROPE_NS
}  // namespace FL_ABI_NS
}  // namespace fl
