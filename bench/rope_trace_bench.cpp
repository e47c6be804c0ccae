// bench/rope_trace_bench.cpp: section rope/, case trace/<name>: replaying
// keystroke-level editing traces as an editor does, patch by patch (delete
// `del` characters at `pos`, insert the text there), and checking the final
// text against the trace's endContent. Time is reported per replay and as
// ns_per_patch.
//
//   <name>       gen_typing: a keystroke trace generated from a fixed seed
//                (tests/rope_trace.hpp: runs of typing, backspaces, jumps,
//                pastes, multi-cursor edits, code points of 1-4 bytes), runs
//                everywhere; automerge-paper, seph-blog1, rustcode,
//                sveltecomponent: the public editing-traces corpus, read at
//                run time from FL_TRACE_DATA, else ../shared/data/traces
//                beside the source tree (skipped with "no data: ..." when
//                neither holds them)
//   fl_chars     fl::rope::replace_chars with the positions as given (code
//                points)
//   fl_bytes     fl::rope::replace on the ascii-only variant (every
//                non-ASCII character replaced by '_', so positions are bytes)
//   std          std::string::replace on the ascii-only variant
//   cord         absl::Cord (no middle edit: Subcord + Append) on the same
//   crope        __gnu_cxx::crope::replace on the same
//   fl_lsp       fl_chars, and after every 100 patches 10 round trips of a
//                language server: (line, UTF-16 column) to byte and back
//
// Case trace_10mb/<name>: the same replay by byte (ascii-only variant) in
// the middle of a 10 MB text (5 MB of generated text on each side, made
// once; each replay starts from an O(1) copy), as an editor holds a big
// file:
//   fl           the replay alone
//   fl_anchors   the replay with 1,000 anchors (rope::anchor_at, biases
//                alternating) spread evenly over the 10 MB, made at the start
//                of each replay and kept by every edit; the ratio to fl is
//                what anchors cost. Checked at the end: the anchors before
//                the edited region did not move, those after it moved by
//                the text's growth.
#include "common.hpp"

#include "../tests/rope_trace.hpp"

#include <fl/rope.hpp>

#include <cstddef>
#include <ext/rope>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#ifdef FL_BENCH_HAVE_ABSL
#include <absl/strings/cord.h>
#endif

namespace {

constexpr std::string_view no_data = "no data: set FL_TRACE_DATA to the editing-traces directory";

// The traces, loaded on first use (the generated one made once) and kept
// for the process: {name, ascii} -> trace, or null when the file is absent.
const fl_trace::trace* get_trace(const std::string& name, bool ascii) {
  static std::map<std::pair<std::string, bool>, std::unique_ptr<fl_trace::trace>> cache;
  static std::mutex m;
  std::lock_guard<std::mutex> lock(m);
  auto& slot = cache[{name, ascii}];
  if (!slot) {
    if (name == "gen_typing") {
      slot = std::make_unique<fl_trace::trace>(
          fl_trace::generated_typing(fl_trace::gen_typing_patches, ascii));
    } else if (const auto dir = fl_trace::data_dir(FL_BENCH_SOURCE_DIR)) {
      slot = std::make_unique<fl_trace::trace>(fl_trace::load_trace(*dir, name, ascii));
    } else {
      return nullptr;
    }
  }
  return slot.get();
}

// Time per replay, plus ns_per_patch and patches/s.
void report(benchmark::State& st, const fl_trace::trace& t) {
  const double n = static_cast<double>(t.patches.size());
  st.counters["ns_per_patch"] =
      benchmark::Counter(n * 1e-9, benchmark::Counter::kIsIterationInvariantRate |
                                       benchmark::Counter::kInvert);
  fl_bench::set_items(st, t.patches.size());
}

// The start text as each library takes it.
template <class Text>
Text make_text(std::string_view s) {
  if constexpr (std::is_same_v<Text, __gnu_cxx::crope>) {
    return Text(s.data(), s.size());
#ifdef FL_BENCH_HAVE_ABSL
  } else if constexpr (std::is_same_v<Text, absl::Cord>) {
    return Text(absl::string_view(s.data(), s.size()));
#endif
  } else {
    return Text(s);
  }
}

template <class Text, class Apply, class Final>
void replay(benchmark::State& st, const std::string& name, bool ascii, Apply apply, Final final) {
  const fl_trace::trace* t = get_trace(name, ascii);
  if (!t) {
    st.SkipWithError(std::string(no_data).c_str());
    return;
  }
  Text last;
  for (auto _ : st) {
    Text doc = make_text<Text>(t->start);
    for (const fl_trace::patch& p : t->patches) apply(doc, p, t->ins(p));
    benchmark::DoNotOptimize(doc);
    last = std::move(doc);
  }
  if (final(last) != t->end) {
    st.SkipWithError("the replay's final text differs from endContent");
    return;
  }
  report(st, *t);
}

// fl::rope by code point (replace_chars, the positions as given) or by
// byte (replace, on the ascii-only variant).
template <bool ByChar>
void trace_fl(benchmark::State& st, const std::string& name) {
  replay<fl::rope>(
      st, name, !ByChar,
      [](fl::rope& r, const fl_trace::patch& p, std::string_view ins) {
        if constexpr (ByChar) {
          r.replace_chars(p.pos, p.del, ins);
        } else {
          r.replace(p.pos, p.del, ins);
        }
      },
      [](const fl::rope& r) { return r.to_std(); });
}

void trace_std(benchmark::State& st, const std::string& name) {
  replay<std::string>(
      st, name, true,
      [](std::string& s, const fl_trace::patch& p, std::string_view ins) {
        s.replace(p.pos, p.del, ins);
      },
      [](const std::string& s) { return s; });
}

#ifdef FL_BENCH_HAVE_ABSL
void trace_cord(benchmark::State& st, const std::string& name) {
  replay<absl::Cord>(
      st, name, true,
      [](absl::Cord& c, const fl_trace::patch& p, std::string_view ins) {
        absl::Cord out = c.Subcord(0, p.pos);
        out.Append(absl::string_view(ins.data(), ins.size()));
        out.Append(c.Subcord(p.pos + p.del, c.size() - p.pos - p.del));
        c = std::move(out);
      },
      [](const absl::Cord& c) { return std::string(c); });
}
#endif

void trace_crope(benchmark::State& st, const std::string& name) {
  replay<__gnu_cxx::crope>(
      st, name, true,
      [](__gnu_cxx::crope& r, const fl_trace::patch& p, std::string_view ins) {
        if (p.del) r.erase(p.pos, p.del);
        if (!ins.empty()) r.insert(p.pos, ins.data(), ins.size());
      },
      [](const __gnu_cxx::crope& r) { return std::string(r.c_str(), r.size()); });
}

// fl_chars, and every 100 patches 10 LSP round trips: a (line, UTF-16
// column) spread over the text goes to a byte offset and back, as a server
// converts a client's positions to edit the text and its own positions to
// answer (the column past a line's end clamps to it, as LSP asks).
void trace_fl_lsp(benchmark::State& st, const std::string& name) {
  const fl_trace::trace* t = get_trace(name, false);
  if (!t) {
    st.SkipWithError(std::string(no_data).c_str());
    return;
  }
  const std::size_t salt = static_cast<std::size_t>(fl_bench::salt("rope/trace/lsp"));
  fl::rope last;
  std::size_t lines_ok = 0, trips = 0;
  for (auto _ : st) {
    fl::rope doc(t->start);
    std::size_t k = 0;
    for (const fl_trace::patch& p : t->patches) {
      doc.replace_chars(p.pos, p.del, t->ins(p));
      if (++k % 100 != 0) continue;
      const std::size_t lines = doc.line_count();
      for (std::size_t j = 0; j < 10; ++j) {
        const fl::rope::line_column lc{(salt + k * 7 + j * (lines / 10 + 1)) % lines,
                                       (salt >> 8) % 64 + j * 3};
        const std::size_t at = doc.line_column_to_byte(lc);
        const fl::rope::line_column back = doc.byte_to_line_column(at);
        lines_ok += back.line == lc.line;
        ++trips;
      }
    }
    benchmark::DoNotOptimize(doc);
    last = std::move(doc);
  }
  if (last.to_std() != t->end) {
    st.SkipWithError("the replay's final text differs from endContent");
    return;
  }
  if (lines_ok != trips) {
    st.SkipWithError("a (line, column) round trip changed the line");
    return;
  }
  report(st, *t);
}

// 5 MB of text on each side of the trace, and the number of anchors.
constexpr std::size_t filler_bytes = std::size_t{5} << 20;
constexpr std::size_t anchor_count = 1000;

template <bool Anchors>
void trace_10mb(benchmark::State& st, const std::string& name) {
  const fl_trace::trace* t = get_trace(name, true);
  if (!t) {
    st.SkipWithError(std::string(no_data).c_str());
    return;
  }
  const std::string filler = fl_bench::random_text(filler_bytes, fl_bench::salt("rope/trace_10mb"));
  const fl::rope base(filler + t->start + filler);
  const std::size_t total = base.size(), step = total / anchor_count;
  std::size_t moved_ok = 0;
  fl::rope last;
  for (auto _ : st) {
    fl::rope doc = base;
    std::vector<fl::rope::anchor> anchors;
    if constexpr (Anchors) {
      anchors.reserve(anchor_count);
      for (std::size_t k = 0; k < anchor_count; ++k)
        anchors.push_back(doc.anchor_at(k * step, k % 2 ? fl::rope::bias::after
                                                        : fl::rope::bias::before));
    }
    for (const fl_trace::patch& p : t->patches) doc.replace(filler_bytes + p.pos, p.del, t->ins(p));
    moved_ok = 0;
    for (std::size_t k = 0; k < anchors.size(); ++k) {
      const std::size_t was = k * step;
      const std::size_t want = was < filler_bytes ? was
                               : was > filler_bytes + t->start.size()
                                   ? was + t->end.size() - t->start.size()
                                   : doc.position(anchors[k]);  // inside the edits
      moved_ok += doc.position(anchors[k]) == want;
    }
    benchmark::DoNotOptimize(doc);
    last = std::move(doc);
  }
  if (last.substr(filler_bytes, last.size() - 2 * filler_bytes).to_std() != t->end) {
    st.SkipWithError("the replay's final text differs from endContent");
    return;
  }
  if (Anchors && moved_ok != anchor_count) {
    st.SkipWithError("an anchor outside the edited region is not where the edits put it");
    return;
  }
  report(st, *t);
}

const bool registered = [] {
  // The report's header lists the data sets a run found (report.py reads the
  // "data_set/<name>" context keys).
  if (const auto dir = fl_trace::data_dir(FL_BENCH_SOURCE_DIR))
    benchmark::AddCustomContext("data_set/traces", "found (" + dir->string() + ")");
  else
    benchmark::AddCustomContext("data_set/traces",
                                "not found (set FL_TRACE_DATA); generated trace only");
  std::vector<std::string> names{"gen_typing"};
  for (std::string_view n : fl_trace::real_traces) names.emplace_back(n);
  // One case per trace, its peers back to back.
  struct peer {
    const char* lib;
    void (*run)(benchmark::State&, const std::string&);
  };
  static constexpr peer peers[] = {
      {"fl_chars", trace_fl<true>}, {"fl_bytes", trace_fl<false>}, {"std", trace_std},
#ifdef FL_BENCH_HAVE_ABSL
      {"cord", trace_cord},
#endif
      {"crope", trace_crope},       {"fl_lsp", trace_fl_lsp},
  };
  for (const std::string& n : names)
    for (const peer& p : peers)
      fl_bench::reg("rope/trace/" + n + "/" + p.lib, p.run, n)->Unit(benchmark::kMillisecond);
  for (const std::string& n : names) {
    fl_bench::reg("rope/trace_10mb/" + n + "/fl", trace_10mb<false>, n)->Unit(benchmark::kMillisecond);
    fl_bench::reg("rope/trace_10mb/" + n + "/fl_anchors", trace_10mb<true>, n)
        ->Unit(benchmark::kMillisecond);
  }
  return true;
}();

}  // namespace
