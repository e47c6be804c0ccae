// fl/string_stream.hpp: the definitions of operator>> and fl::getline for
// fl::basic_string with any allocator. fl::string and fl::pmr::string do not
// need it (libfl holds their instances, declared in <fl/string.hpp>); include
// it for a basic_string over an allocator of your own. It pulls in <istream>
// and <locale>, which <fl/string.hpp> keeps out of every other user's build.
//
// Threads: as the stream and the string used.
#pragma once

#include <fl/string.hpp>

#include <istream>
#include <locale>

namespace fl {
inline namespace FL_ABI_NS {

namespace detail {
// Chars read from a stream go to the string 128 at a time, not one append
// per char; the extractors flush what is pending when the read ends.
template <class A>
class stream_append_buffer {
 public:
  explicit stream_append_buffer(basic_string<A>& s) noexcept : s_(s) {}
  std::size_t pending() const noexcept { return n_; }
  void put(char ch) {
    buf_[n_++] = ch;
    if (n_ == sizeof buf_) flush();
  }
  void flush() {
    s_.append(buf_, n_);
    n_ = 0;
  }

 private:
  basic_string<A>& s_;
  char buf_[128];
  std::size_t n_ = 0;
};

// What operator>> and getline share: the sentry (which skips leading
// whitespace unless `noskipws`), s cleared, then read(sb, extracted, state)
// appends chars from the stream buffer to s, counting them in `extracted` and
// adding eofbit or failbit to `state`. badbit if anything throws; failbit if
// nothing at all was extracted; the stream gets the bits at the end.
template <class A, class Read>
std::istream& extract(std::istream& is, basic_string<A>& s, bool noskipws, const Read& read) {
  std::ios_base::iostate state = std::ios_base::goodbit;
  std::size_t extracted = 0;
  const std::istream::sentry ok(is, noskipws);
  if (ok) {
    try {
      s.clear();
      read(*is.rdbuf(), extracted, state);
    } catch (...) { state |= std::ios_base::badbit; }
  }
  if (extracted == 0) state |= std::ios_base::failbit;
  if (state != std::ios_base::goodbit) is.setstate(state);
  return is;
}
}  // namespace detail

// ---- streams ----

// Skips leading whitespace (unless noskipws), then reads up to width() chars
// (or max_size()) until whitespace; sets failbit when nothing was read and
// eofbit at end of input, then resets width() to 0.
template <class A>
std::istream& operator>>(std::istream& is, basic_string<A>& s) {
  using tr = std::istream::traits_type;
  return detail::extract(
      is, s, false, [&](std::streambuf& sb, std::size_t& extracted, std::ios_base::iostate& state) {
        detail::stream_append_buffer<A> out(s);
        const std::streamsize w = is.width();
        const std::size_t limit = w > 0 ? static_cast<std::size_t>(w) : s.max_size();
        const auto& ct = std::use_facet<std::ctype<char>>(is.getloc());
        auto c = sb.sgetc();
        while (extracted < limit) {
          if (tr::eq_int_type(c, tr::eof())) {
            state |= std::ios_base::eofbit;
            break;
          }
          const char ch = tr::to_char_type(c);
          if (ct.is(std::ctype_base::space, ch)) break;
          out.put(ch);
          ++extracted;
          c = sb.snextc();
        }
        out.flush();
        is.width(0);
      });
}

// Reads until delim (extracted, not stored), end of input (eofbit) or
// max_size() chars (failbit); failbit also when nothing at all was extracted.
template <class A>
std::istream& getline(std::istream& is, basic_string<A>& s, char delim) {
  using tr = std::istream::traits_type;
  return detail::extract(
      is, s, true, [&](std::streambuf& sb, std::size_t& extracted, std::ios_base::iostate& state) {
        detail::stream_append_buffer<A> out(s);
        const std::size_t limit = s.max_size();
        const auto d = tr::to_int_type(delim);
        auto c = sb.sgetc();
        while (true) {
          if (tr::eq_int_type(c, tr::eof())) {
            state |= std::ios_base::eofbit;
            break;
          }
          if (tr::eq_int_type(c, d)) {
            ++extracted;
            sb.sbumpc();
            break;
          }
          if (s.size() + out.pending() >= limit) {
            state |= std::ios_base::failbit;
            break;
          }
          out.put(tr::to_char_type(c));
          ++extracted;
          c = sb.snextc();
        }
        out.flush();
      });
}

template <class A>
std::istream& getline(std::istream& is, basic_string<A>& s) {
  return getline(is, s, is.widen('\n'));
}

}  // namespace FL_ABI_NS
}  // namespace fl
