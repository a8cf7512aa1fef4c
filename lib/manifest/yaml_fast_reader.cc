// A fast reader for the block YAML that kubectl and people write, producing
// exactly the tapes ReadYaml (libyaml) produces, positions included. It is a
// strict subset parser: wherever the input leaves the subset it handles with
// certainty (anchors, aliases, tags, directives, complex keys, multi-line
// flow collections, quoted continuation lines not deeper than their block
// collection, tabs outside comments and block scalars, odd indentation,
// unusual line breaks or characters) it gives up and the caller reads the
// whole input again with libyaml, so the result never depends on which
// reader ran. Multi-line plain and quoted scalars (kubectl folds strings
// longer than 80 columns) are folded as libyaml folds them.
//
// Positions follow libyaml's marks: a block mapping starts at its first key,
// a block sequence at its first "-"; a block collection ends where the token
// that closes it starts (the first character of the dedented line, or the
// stream end, which libyaml moves to the start of the next line); an empty
// value sits just after its ":" or "-". Columns count characters, not bytes.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "manifest/limits.h"
#include "manifest/readers.h"

namespace nodeplan::manifest {
namespace {

// A scalar token scanned but not yet written to the tape.
struct Token {
  const char* start = nullptr;  // first character (the quote if quoted)
  const char* after = nullptr;  // just after the token
  absl::string_view text;       // the value
  uint32_t line = 0;            // position of `start`
  uint32_t column = 0;
  bool plain = false;
  bool decoded = false;    // text lives in the scratch buffer
  bool multiline = false;  // continued on later lines (never a key)
};

// The next non-blank line after a line break inside a scalar.
struct Ahead {
  const char* line_begin = nullptr;
  const char* content = nullptr;  // first non-space (the end at the end)
  uint32_t breaks = 0;            // line breaks crossed
};

class FastYamlReader {
 public:
  FastYamlReader(absl::string_view text, DocumentSink sink)
      : begin_(text.data()),
        end_(text.data() + text.size()),
        p_(text.data()),
        line_start_(text.data()),
        sink_(sink) {
    tape_.nodes.reserve(std::min<size_t>(text.size() / 12 + 16, 1 << 24));
  }

  absl::Status Run(bool* fallback) {
    *fallback = true;
    if (!Validate()) return absl::OkStatus();
    if (!SkipBlankLines()) return absl::OkStatus();
    int document = 0;
    bool first = true;
    while (!eof_) {
      if (AtMarker()) {
        if (*p_ == '.') return absl::OkStatus();  // a stray "..."
        p_ += 3;
        if (!FinishLine() || !SkipBlankLines()) return absl::OkStatus();
      } else if (!first) {
        return absl::OkStatus();  // libyaml wants "---" here
      }
      ++document;
      tape_.Clear();
      open_ = 0;
      if (eof_ || AtMarker()) {
        uint32_t line, column;
        EndMark(-1, &line, &column);
        PushScalar("", 0, line, column, true);
      } else if (!ParseBlockNode(-1)) {
        return absl::OkStatus();
      }
      if (!eof_ && !AtMarker()) return absl::OkStatus();
      if (too_many_nodes_) return absl::OkStatus();
      while (!eof_ && AtMarker() && *p_ == '.') {
        p_ += 3;
        if (!FinishLine() || !SkipBlankLines()) return absl::OkStatus();
      }
      absl::Status st = sink_(tape_, document);
      if (!st.ok()) {
        // Validate() ruled out reader errors and the token after this
        // document is a marker or the end, so libyaml reaches the same
        // document end and the same sink error.
        *fallback = false;
        return st;
      }
      first = false;
    }
    *fallback = false;
    return absl::OkStatus();
  }

 private:
  // ---- characters and lines ----

  // '\0' at the end (Validate() rejects NUL bytes inside the input).
  char Peek(const char* q) const { return q < end_ ? *q : '\0'; }
  static bool IsBreakOrEnd(char c) {
    return c == '\n' || c == '\r' || c == '\0';
  }
  bool IsBlankz(const char* q) const {
    char c = Peek(q);
    return c == ' ' || c == '\t' || IsBreakOrEnd(c);
  }

  // libyaml accepts only some characters and only well-formed UTF-8, and
  // reads ahead, so a bad character anywhere may change what it reports
  // before a document's end: such input goes to libyaml whole. Also rejects
  // line breaks other than \n and \r\n, and BOMs.
  bool Validate() {
    const auto* s = reinterpret_cast<const unsigned char*>(begin_);
    const auto* e = reinterpret_cast<const unsigned char*>(end_);
    const unsigned char* last_line = s;
    uint32_t lines = 0;
    bool ascii = true;
    constexpr uint64_t kOnes = 0x0101010101010101ULL;
    constexpr uint64_t kHighs = 0x8080808080808080ULL;
    while (s < e) {
      // Eight printable ASCII bytes at a time (no high bit, nothing below
      // 0x20, no DEL) in the common case; else those bytes one by one.
      const unsigned char* stop = s + 1;
      if (e - s >= 8) {
        uint64_t w;
        std::memcpy(&w, s, 8);
        const uint64_t del = w ^ (0x7F * kOnes);
        if (((((w - 0x20 * kOnes) & ~w) | w | ((del - kOnes) & ~del)) &
             kHighs) == 0) {
          s += 8;
          continue;
        }
        stop = s + 8;
      }
      while (s < stop && s < e) {
        const unsigned char c = *s;
        if (c >= 0x20 && c < 0x7F) {
          ++s;
          continue;
        }
        if (c == '\n') {
          ++lines;
          ++s;
          last_line = s;
          continue;
        }
        if (c == '\t') {
          ++s;
          continue;
        }
        if (c == '\r') {
          if (s + 1 < e && s[1] == '\n') {
            ++s;
            continue;
          }
          return false;
        }
        if (c < 0x80) return false;
        ascii = false;
        size_t len;
        uint32_t cp;
        if (c >= 0xC2 && c <= 0xDF) {
          len = 2;
          cp = c & 0x1F;
        } else if (c >= 0xE0 && c <= 0xEF) {
          len = 3;
          cp = c & 0x0F;
        } else if (c >= 0xF0 && c <= 0xF4) {
          len = 4;
          cp = c & 0x07;
        } else {
          return false;
        }
        if (static_cast<size_t>(e - s) < len) return false;
        for (size_t i = 1; i < len; ++i) {
          if ((s[i] & 0xC0) != 0x80) return false;
          cp = (cp << 6) | (s[i] & 0x3F);
        }
        if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
            cp < 0xA0 || (cp >= 0xD800 && cp <= 0xDFFF) || cp == 0xFFFE ||
            cp == 0xFFFF || cp > 0x10FFFF || cp == 0x2028 || cp == 0x2029 ||
            cp == 0xFEFF) {
          return false;
        }
        s += len;
      }
    }
    ascii_ = ascii;
    eof_line_ = lines + 1;
    eof_column_ = Chars(reinterpret_cast<const char*>(last_line), end_);
    return true;
  }

  // Characters (not bytes) in [from, to).
  static uint32_t Chars(const char* from, const char* to) {
    uint32_t n = 0;
    for (const char* q = from; q < to; ++q) {
      n += (static_cast<unsigned char>(*q) & 0xC0) != 0x80;
    }
    return n;
  }
  // 1-based column of q on the current line.
  uint32_t Col(const char* q) const {
    if (ascii_) return static_cast<uint32_t>(q - line_start_) + 1;
    return Chars(line_start_, q) + 1;
  }

  // p_ at a line break (or the end): step over it.
  void NextLine() {
    if (p_ >= end_) return;
    p_ += *p_ == '\r' ? 2 : 1;
    ++line_;
    line_start_ = p_;
  }

  void SkipToLineEnd() {
    const char* nl = static_cast<const char*>(
        std::memchr(p_, '\n', static_cast<size_t>(end_ - p_)));
    p_ = nl == nullptr ? end_ : (nl > p_ && nl[-1] == '\r' ? nl - 1 : nl);
  }

  // After a token: spaces, then the line end or a comment (after a space).
  bool FinishLine() {
    const char* q = p_;
    while (Peek(q) == ' ') ++q;
    const char c = Peek(q);
    if (c == '#' && q > line_start_ && q[-1] == ' ') {
      p_ = q;
      SkipToLineEnd();
    } else if (IsBreakOrEnd(c)) {
      p_ = q;
    } else {
      return false;
    }
    NextLine();
    return true;
  }

  // From a line start, over blank and comment lines to the first content
  // line: p_ at its first character, indent_ its column (0-based), or eof_.
  bool SkipBlankLines() {
    while (true) {
      if (p_ >= end_) {
        eof_ = true;
        return true;
      }
      const char* q = p_;
      while (Peek(q) == ' ') ++q;
      const char c = Peek(q);
      if (c == '\t') return false;
      if (IsBreakOrEnd(c)) {
        p_ = q;
        if (p_ >= end_) {
          eof_ = true;
          return true;
        }
        NextLine();
        continue;
      }
      if (c == '#') {
        p_ = q;
        SkipToLineEnd();
        NextLine();
        continue;
      }
      p_ = q;
      indent_ = static_cast<int>(q - line_start_);
      eof_ = false;
      return true;
    }
  }

  // "---" or "..." at column 0 followed by a blank or the line end.
  bool AtMarker() const {
    if (eof_ || indent_ != 0 || end_ - p_ < 3) return false;
    if (!((p_[0] == '-' && p_[1] == '-' && p_[2] == '-') ||
          (p_[0] == '.' && p_[1] == '.' && p_[2] == '.'))) {
      return false;
    }
    return IsBlankz(p_ + 3);
  }

  // Where libyaml puts the end of a block collection of `indent` closed by
  // the next token: that token's start, or at the stream end the end mark
  // (libyaml first closes what is deeper than the last line's column there,
  // then moves to the start of the next line for the rest).
  void EndMark(int indent, uint32_t* line, uint32_t* column) const {
    if (!eof_) {
      *line = line_;
      *column = static_cast<uint32_t>(indent_) + 1;
    } else if (indent > static_cast<int>(eof_column_)) {
      *line = eof_line_;
      *column = eof_column_ + 1;
    } else {
      *line = eof_line_ + (eof_column_ != 0 ? 1 : 0);
      *column = 1;
    }
  }

  // ---- tape ----

  void PushScalar(const char* data, size_t size, uint32_t line, uint32_t column,
                  bool plain) {
    // Past the cap, stop growing the tape and let ReadYaml give the error.
    if (tape_.nodes.size() >= kMaxDocumentNodes) {
      too_many_nodes_ = true;
      return;
    }
    Node n;
    n.type = NodeType::kScalar;
    n.data = data;
    n.size = static_cast<uint32_t>(size);
    n.line = line;
    n.column = column;
    n.plain = plain;
    tape_.nodes.push_back(n);
  }
  void Emit(const Token& t) {
    const char* data = t.text.data();
    if (t.decoded) data = tape_.arena.Copy(t.text);
    PushScalar(data, t.text.size(), t.line, t.column, t.plain);
  }
  // False when nesting would exceed what ReadYaml accepts.
  bool Open(NodeType type, uint32_t line, uint32_t column, uint32_t* index) {
    if (open_ >= kMaxDepth) return false;
    // ReadYaml refuses a root sequence at once, a too long tape at the cap.
    if (tape_.nodes.empty() && type == NodeType::kSeqStart) return false;
    if (tape_.nodes.size() >= kMaxDocumentNodes) return false;
    ++open_;
    *index = static_cast<uint32_t>(tape_.nodes.size());
    Node n;
    n.type = type;
    n.line = line;
    n.column = column;
    tape_.nodes.push_back(n);
    return true;
  }
  void Close(uint32_t start, NodeType type, uint32_t line, uint32_t column) {
    --open_;
    tape_.nodes[start].end = static_cast<uint32_t>(tape_.nodes.size());
    Node n;
    n.type = type;
    n.line = line;
    n.column = column;
    tape_.nodes.push_back(n);
  }

  // ---- scalars ----

  // What may start a plain scalar in the block context.
  bool PlainStart(const char* q) const {
    switch (Peek(q)) {
      case '-':
      case '?':
      case ':':
        return !IsBlankz(q + 1);
      case ',':
      case '[':
      case ']':
      case '{':
      case '}':
      case '#':
      case '&':
      case '*':
      case '!':
      case '|':
      case '>':
      case '\'':
      case '"':
      case '%':
      case '@':
      case '`':
      case ' ':
      case '\t':
      case '\n':
      case '\r':
      case '\0':
        return false;
      default:
        return true;
    }
  }

  // q at a line break inside a scalar: the next non-blank line. False on a
  // tab where libyaml might see indentation.
  bool LookAhead(const char* q, Ahead* a) const {
    uint32_t breaks = 0;
    while (true) {
      q += *q == '\r' ? 2 : 1;
      ++breaks;
      const char* begin = q;
      while (Peek(q) == ' ') ++q;
      const char c = Peek(q);
      if (c == '\t') return false;
      if (c == '\n' || c == '\r') continue;
      a->line_begin = begin;
      a->content = q;
      a->breaks = breaks;
      return true;
    }
  }

  bool IsMarkerAt(const char* q) const {
    return end_ - q >= 3 &&
           ((q[0] == '-' && q[1] == '-' && q[2] == '-') ||
            (q[0] == '.' && q[1] == '.' && q[2] == '.')) &&
           IsBlankz(q + 3);
  }

  // Whether a scalar inside a block collection of `parent_indent` goes on
  // at `a`: a deeper line that is neither a comment nor a document marker.
  bool Continues(const Ahead& a, int parent_indent) const {
    if (a.content >= end_ || *a.content == '#') return false;
    const int column = static_cast<int>(a.content - a.line_begin);
    return column > parent_indent && !(column == 0 && IsMarkerAt(a.content));
  }

  // Moves the line bookkeeping to the line `a` found; appends libyaml's fold
  // of the breaks crossed (one break is a space, n breaks n-1 newlines).
  void FoldTo(const Ahead& a) {
    if (a.breaks == 1) {
      scratch_.push_back(' ');
    } else {
      scratch_.append(a.breaks - 1, '\n');
    }
    line_ += a.breaks;
    line_start_ = a.line_begin;
  }

  // A plain scalar in the block context, continued on deeper lines as
  // libyaml folds them. Stops at ": " (after optional spaces), " #", or a
  // line end not followed by a continuation; `after` points there.
  bool ScanPlain(const char* q, Token* t, int parent_indent) {
    t->start = q;
    t->line = line_;
    t->column = Col(q);
    t->plain = true;
    t->decoded = false;
    t->multiline = false;
    const char* segment = q;
    while (true) {
      const char* last = q;
      bool at_eol = false;
      while (true) {
        while (true) {
          const char c = Peek(q);
          if (c == ' ' || IsBreakOrEnd(c)) break;
          if (c == '\t') return false;
          if (c == ':' && IsBlankz(q + 1)) break;
          ++q;
        }
        last = q;
        if (Peek(q) == ':') break;
        const char* w = q;
        while (Peek(w) == ' ') ++w;
        const char c = Peek(w);
        if (c == '\t') return false;
        if (IsBreakOrEnd(c)) {
          q = w;
          at_eol = true;
          break;
        }
        if (c == '#' || (c == ':' && IsBlankz(w + 1))) {
          q = w;
          break;
        }
        q = w;
      }
      if (t->decoded) scratch_.append(segment, last);
      Ahead a;
      if (at_eol && q < end_) {
        if (!LookAhead(q, &a)) return false;
        at_eol = Continues(a, parent_indent);
      } else {
        at_eol = false;
      }
      if (!at_eol) {
        t->after = q;
        t->text = t->decoded
                      ? absl::string_view(scratch_)
                      : absl::string_view(t->start,
                                          static_cast<size_t>(last - t->start));
        return true;
      }
      if (!t->decoded) {
        scratch_.assign(t->start, last);
        t->decoded = true;
        t->multiline = true;
      }
      FoldTo(a);
      q = segment = a.content;
    }
  }

  // A line break inside a quoted scalar: drop the line's trailing literal
  // spaces (scratch_ keeps `keep` bytes) and fold onto the next line, which
  // must be deeper than the enclosing block collection.
  bool QuotedBreak(const char** q, size_t keep, int parent_indent) {
    Ahead a;
    if (!LookAhead(*q, &a) || a.content >= end_) return false;
    const int column = static_cast<int>(a.content - a.line_begin);
    if (column <= parent_indent || (column == 0 && IsMarkerAt(a.content))) {
      return false;
    }
    scratch_.resize(keep);
    FoldTo(a);
    *q = a.content;
    return true;
  }

  bool ScanSingle(const char* q, Token* t, int parent_indent) {
    t->start = q;
    t->line = line_;
    t->column = Col(q);
    t->plain = false;
    t->multiline = false;
    const char* s = ++q;
    while (true) {
      const char c = Peek(q);
      if (c == '\'') {
        if (Peek(q + 1) == '\'') break;
        t->text = absl::string_view(s, static_cast<size_t>(q - s));
        t->decoded = false;
        t->after = q + 1;
        return true;
      }
      if (c == '\t' || c == '\0') return false;
      if (c == '\n' || c == '\r') break;
      ++q;
    }
    scratch_.assign(s, q);
    size_t keep = scratch_.size();
    while (keep > 0 && scratch_[keep - 1] == ' ') --keep;
    while (true) {
      const char c = Peek(q);
      if (c == '\'') {
        if (Peek(q + 1) == '\'') {
          scratch_.push_back('\'');
          keep = scratch_.size();
          q += 2;
          continue;
        }
        t->text = scratch_;
        t->decoded = true;
        t->after = q + 1;
        return true;
      }
      if (c == '\t' || c == '\0') return false;
      if (c == '\n' || c == '\r') {
        if (!QuotedBreak(&q, keep, parent_indent)) return false;
        t->multiline = true;
        keep = scratch_.size();
        continue;
      }
      scratch_.push_back(c);
      if (c != ' ') keep = scratch_.size();
      ++q;
    }
  }

  static int HexValue(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  // libyaml writes escaped code points as UTF-8.
  void AppendCodePoint(uint32_t v) {
    if (v <= 0x7F) {
      scratch_.push_back(static_cast<char>(v));
    } else if (v <= 0x7FF) {
      scratch_.push_back(static_cast<char>(0xC0 | (v >> 6)));
      scratch_.push_back(static_cast<char>(0x80 | (v & 0x3F)));
    } else if (v <= 0xFFFF) {
      scratch_.push_back(static_cast<char>(0xE0 | (v >> 12)));
      scratch_.push_back(static_cast<char>(0x80 | ((v >> 6) & 0x3F)));
      scratch_.push_back(static_cast<char>(0x80 | (v & 0x3F)));
    } else {
      scratch_.push_back(static_cast<char>(0xF0 | (v >> 18)));
      scratch_.push_back(static_cast<char>(0x80 | ((v >> 12) & 0x3F)));
      scratch_.push_back(static_cast<char>(0x80 | ((v >> 6) & 0x3F)));
      scratch_.push_back(static_cast<char>(0x80 | (v & 0x3F)));
    }
  }

  bool ScanDouble(const char* q, Token* t, int parent_indent) {
    t->start = q;
    t->line = line_;
    t->column = Col(q);
    t->plain = false;
    t->multiline = false;
    const char* s = ++q;
    while (true) {
      const char c = Peek(q);
      if (c == '"') {
        t->text = absl::string_view(s, static_cast<size_t>(q - s));
        t->decoded = false;
        t->after = q + 1;
        return true;
      }
      if (c == '\\' || c == '\n' || c == '\r') break;
      if (c == '\t' || c == '\0') return false;
      ++q;
    }
    scratch_.assign(s, q);
    size_t keep = scratch_.size();
    while (keep > 0 && scratch_[keep - 1] == ' ') --keep;
    while (true) {
      const char c = Peek(q);
      if (c == '"') {
        t->text = scratch_;
        t->decoded = true;
        t->after = q + 1;
        return true;
      }
      if (c == '\t' || c == '\0') return false;
      if (c == '\n' || c == '\r') {
        if (!QuotedBreak(&q, keep, parent_indent)) return false;
        t->multiline = true;
        keep = scratch_.size();
        continue;
      }
      if (c != '\\') {
        scratch_.push_back(c);
        if (c != ' ') keep = scratch_.size();
        ++q;
        continue;
      }
      const char e = Peek(q + 1);
      q += 2;
      int digits = 0;
      switch (e) {
        case '0':
          scratch_.push_back('\0');
          break;
        case 'a':
          scratch_.push_back('\a');
          break;
        case 'b':
          scratch_.push_back('\b');
          break;
        case 't':
          scratch_.push_back('\t');
          break;
        case 'n':
          scratch_.push_back('\n');
          break;
        case 'v':
          scratch_.push_back('\v');
          break;
        case 'f':
          scratch_.push_back('\f');
          break;
        case 'r':
          scratch_.push_back('\r');
          break;
        case 'e':
          scratch_.push_back('\x1B');
          break;
        case ' ':
        case '"':
        case '/':
        case '\\':
          scratch_.push_back(e);
          break;
        case 'N':
          scratch_.append("\xC2\x85");
          break;
        case '_':
          scratch_.append("\xC2\xA0");
          break;
        case 'L':
          scratch_.append("\xE2\x80\xA8");
          break;
        case 'P':
          scratch_.append("\xE2\x80\xA9");
          break;
        case 'x':
          digits = 2;
          break;
        case 'u':
          digits = 4;
          break;
        case 'U':
          digits = 8;
          break;
        default:  // unknown escapes, escaped line breaks and tabs
          return false;
      }
      if (digits > 0) {
        uint32_t v = 0;
        for (int i = 0; i < digits; ++i) {
          const int h = HexValue(Peek(q + i));
          if (h < 0) return false;
          v = (v << 4) | static_cast<uint32_t>(h);
        }
        if ((v >= 0xD800 && v <= 0xDFFF) || v > 0x10FFFF) return false;
        AppendCodePoint(v);
        q += digits;
      }
      keep = scratch_.size();
    }
  }

  // A plain or quoted scalar starting at q (block context), inside a block
  // collection of `parent_indent`.
  bool ScanScalar(const char* q, Token* t, int parent_indent) {
    const char c = Peek(q);
    if (c == '"') return ScanDouble(q, t, parent_indent);
    if (c == '\'') return ScanSingle(q, t, parent_indent);
    if (!PlainStart(q)) return false;
    return ScanPlain(q, t, parent_indent);
  }

  // If the token is a simple key (": " follows on its line), the position
  // just after the ':'. libyaml limits simple keys to 1024 characters.
  const char* KeyColon(const Token& t) const {
    if (t.multiline) return nullptr;
    const char* q = t.after;
    while (Peek(q) == ' ') ++q;
    if (Peek(q) != ':' || !IsBlankz(q + 1)) return nullptr;
    if (q - t.start > 1000) return nullptr;
    return q + 1;
  }

  // After a scalar value: the rest of its (last) line. ScanPlain already
  // took any continuation lines.
  bool FinishScalarValue(const Token& t) {
    p_ = t.after;
    if (!t.plain) return FinishLine() && SkipBlankLines();
    if (Peek(p_) == ':') return false;  // "a: b: c"
    if (Peek(p_) == '#') {              // the scanner saw the space before it
      SkipToLineEnd();
    }
    NextLine();
    return SkipBlankLines();
  }

  // ---- block structure ----

  // A node that starts a content line at column indent_, inside a block
  // collection of `parent_indent` (-1 at the document level).
  bool ParseBlockNode(int parent_indent) {
    const int column = indent_;
    const char c = *p_;
    if (c == '-' && IsBlankz(p_ + 1)) return ParseBlockSequence(column, false);
    if (c == '[' || c == '{') {
      return ParseFlow() && FinishLine() && SkipBlankLines();
    }
    Token t;
    if (!ScanScalar(p_, &t, parent_indent)) return false;
    if (KeyColon(t) != nullptr) return ParseBlockMapping(column, t);
    Emit(t);
    return FinishScalarValue(t);
  }

  // A value on the same line as its key or "-".
  bool ParseInlineValue(int parent_indent) {
    const char c = *p_;
    if (c == '|' || c == '>') return ParseBlockScalar(parent_indent);
    if (c == '[' || c == '{') {
      return ParseFlow() && FinishLine() && SkipBlankLines();
    }
    Token t;
    if (!ScanScalar(p_, &t, parent_indent)) return false;
    Emit(t);
    return FinishScalarValue(t);
  }

  // A block mapping whose keys sit at column n; `key` is the first key.
  bool ParseBlockMapping(int n, Token key) {
    uint32_t start;
    if (!Open(NodeType::kMapStart, line_, Col(key.start), &start)) {
      return false;
    }
    while (true) {
      const uint32_t key_line = line_;
      Emit(key);
      const char* q = KeyColon(key);
      const uint32_t empty_column = Col(q);
      while (Peek(q) == ' ') ++q;
      const char c = Peek(q);
      if (c == '\t') return false;
      p_ = q;
      if (IsBreakOrEnd(c) || c == '#') {
        if (!FinishLine() || !SkipBlankLines()) return false;
        if (!eof_ && indent_ > n) {
          if (!ParseBlockNode(n)) return false;
        } else if (!eof_ && indent_ == n && *p_ == '-' && IsBlankz(p_ + 1)) {
          if (!ParseBlockSequence(n, true)) return false;
        } else {
          PushScalar("", 0, key_line, empty_column, true);
        }
      } else if (!ParseInlineValue(n)) {
        return false;
      }
      if (eof_ || indent_ < n || AtMarker()) break;
      if (indent_ > n) return false;
      if (!ScanScalar(p_, &key, n) || KeyColon(key) == nullptr) return false;
    }
    uint32_t line, column;
    EndMark(n, &line, &column);
    Close(start, NodeType::kMapEnd, line, column);
    return true;
  }

  // A block sequence whose "-" sit at column m; `indentless` when it is a
  // mapping value at the mapping's own indentation (kubectl's style).
  bool ParseBlockSequence(int m, bool indentless) {
    uint32_t start;
    if (!Open(NodeType::kSeqStart, line_, static_cast<uint32_t>(m) + 1,
              &start)) {
      return false;
    }
    while (true) {
      const uint32_t dash_line = line_;
      const char* q = p_ + 1;
      while (Peek(q) == ' ') ++q;
      const char c = Peek(q);
      if (c == '\t') return false;
      p_ = q;
      if (IsBreakOrEnd(c) || c == '#') {
        if (!FinishLine() || !SkipBlankLines()) return false;
        if (!eof_ && indent_ > m) {
          if (!ParseBlockNode(m)) return false;
        } else {
          PushScalar("", 0, dash_line, static_cast<uint32_t>(m) + 2, true);
        }
      } else {
        const int k = static_cast<int>(q - line_start_);
        if (c == '-' && IsBlankz(q + 1)) {
          if (!ParseBlockSequence(k, false)) return false;
        } else if (c == '[' || c == '{' || c == '|' || c == '>') {
          if (!ParseInlineValue(m)) return false;
        } else {
          Token t;
          if (!ScanScalar(q, &t, m)) return false;
          if (KeyColon(t) != nullptr) {
            if (!ParseBlockMapping(k, t)) return false;
          } else {
            Emit(t);
            if (!FinishScalarValue(t)) return false;
          }
        }
      }
      if (eof_ || indent_ < m || AtMarker()) break;
      if (indent_ > m) return false;
      if (*p_ == '-' && IsBlankz(p_ + 1)) continue;
      if (indentless) break;  // the parent mapping's next key
      return false;
    }
    uint32_t line, column;
    EndMark(m, &line, &column);
    Close(start, NodeType::kSeqEnd, line, column);
    return true;
  }

  // Literal and folded block scalars, as libyaml scans them: indentation
  // from the first non-empty line (at least one more than the enclosing
  // block collection), line breaks normalised to \n, then chomping.
  bool ParseBlockScalar(int parent_indent) {
    const uint32_t line = line_;
    const uint32_t column = Col(p_);
    const bool literal = *p_ == '|';
    int chomp = 0;  // -1 strip, 0 clip, 1 keep
    ++p_;
    if (Peek(p_) == '-') {
      chomp = -1;
      ++p_;
    } else if (Peek(p_) == '+') {
      chomp = 1;
      ++p_;
    }
    if (!FinishLine()) return false;  // also rejects indentation indicators
    std::string& out = scratch_;
    out.clear();
    int indent = 0;
    int max_indent = 0;
    int trailing_breaks = 0;
    bool leading_break = false;
    bool leading_blank = false;
    // Eats indentation and empty lines; p_ ends at a line's first character
    // past the indentation (or the end).
    auto breaks = [&]() -> bool {
      while (true) {
        const char* q = p_;
        while ((indent == 0 || q - line_start_ < indent) && Peek(q) == ' ') {
          ++q;
        }
        const int at = static_cast<int>(q - line_start_);
        if (at > max_indent) max_indent = at;
        const char c = Peek(q);
        if ((indent == 0 || at < indent) && c == '\t') return false;
        p_ = q;
        if (c != '\n' && c != '\r') {
          if (indent == 0) {
            indent = std::max({max_indent, parent_indent + 1, 1});
            // Blank lines deeper than the first content line: rare enough
            // to leave to libyaml.
            if (c != '\0' && max_indent > at) return false;
          }
          return true;
        }
        NextLine();
        ++trailing_breaks;
      }
    };
    if (!breaks()) return false;
    while (p_ - line_start_ == indent && p_ < end_) {
      const char c = *p_;
      const bool trailing_blank = c == ' ' || c == '\t';
      if (!literal && leading_break && !leading_blank && !trailing_blank) {
        if (trailing_breaks == 0) out.push_back(' ');
      } else if (leading_break) {
        out.push_back('\n');
      }
      leading_break = false;
      out.append(static_cast<size_t>(trailing_breaks), '\n');
      trailing_breaks = 0;
      leading_blank = trailing_blank;
      const char* q = p_;
      while (!IsBreakOrEnd(Peek(q))) ++q;
      out.append(p_, q);
      p_ = q;
      if (q < end_) {
        leading_break = true;
        NextLine();
      }
      if (!breaks()) return false;
    }
    if (chomp != -1 && leading_break) out.push_back('\n');
    if (chomp == 1) out.append(static_cast<size_t>(trailing_breaks), '\n');
    PushScalar(tape_.arena.Copy(out), out.size(), line, column, false);
    if (p_ >= end_) {
      eof_ = true;
      return true;
    }
    p_ = line_start_;  // the line that ended the scalar, from its start
    return SkipBlankLines();
  }

  // ---- flow collections (on one line) ----

  void SkipSpaces() {
    while (Peek(p_) == ' ') ++p_;
  }

  bool ScanFlowPlain(Token* t) {
    const char* q = p_;
    const char first = Peek(q);
    if (first == '-') {
      const char next = Peek(q + 1);
      if (!((next >= '0' && next <= '9') || (next >= 'a' && next <= 'z') ||
            (next >= 'A' && next <= 'Z') || next == '.')) {
        return false;
      }
    } else if (!PlainStart(q) || first == '?' || first == ':') {
      return false;
    }
    t->start = q;
    t->line = line_;
    t->column = Col(q);
    t->multiline = false;
    const char* last = q;
    while (true) {
      while (true) {
        const char c = Peek(q);
        if (c == ' ' || c == ',' || c == ']' || c == '}') break;
        if (IsBreakOrEnd(c) || c == '#' || c == '?' || c == '\t' || c == '[' ||
            c == '{') {
          return false;
        }
        if (c == ':') {
          if (Peek(q + 1) == ' ') break;
          return false;
        }
        ++q;
      }
      last = q;
      const char* w = q;
      while (Peek(w) == ' ') ++w;
      const char c = Peek(w);
      if (c == ',' || c == ']' || c == '}' ||
          (c == ':' && Peek(w + 1) == ' ')) {
        q = w;
        break;
      }
      // "a :b" goes on as one scalar in libyaml; leave such input to it.
      if (c == ':') return false;
      if (IsBreakOrEnd(c) || c == '#' || c == '\t') return false;
      q = w;
    }
    t->after = q;
    t->text = absl::string_view(t->start, static_cast<size_t>(last - t->start));
    t->plain = true;
    t->decoded = false;
    return true;
  }

  bool ParseFlowScalar() {
    Token t;
    const char c = Peek(p_);
    // Flow collections stay on one line here: no quoted continuation.
    constexpr int kOneLine = 1 << 30;
    bool ok = c == '"'    ? ScanDouble(p_, &t, kOneLine)
              : c == '\'' ? ScanSingle(p_, &t, kOneLine)
                          : ScanFlowPlain(&t);
    if (!ok) return false;
    Emit(t);
    p_ = t.after;
    return true;
  }

  bool ParseFlowValue() {
    const char c = Peek(p_);
    if (c == '[' || c == '{') return ParseFlow();
    return ParseFlowScalar();
  }

  // p_ at '[' or '{'; the whole collection on this line.
  bool ParseFlow() {
    const bool map = *p_ == '{';
    const char close = map ? '}' : ']';
    uint32_t start;
    if (!Open(map ? NodeType::kMapStart : NodeType::kSeqStart, line_, Col(p_),
              &start)) {
      return false;
    }
    ++p_;
    SkipSpaces();
    if (Peek(p_) != close) {
      while (true) {
        if (map) {
          const char k = Peek(p_);
          if (k == '[' || k == '{' || !ParseFlowScalar()) return false;
          SkipSpaces();
          if (Peek(p_) != ':') return false;
          ++p_;
          SkipSpaces();
          const char v = Peek(p_);
          if (v == ',' || v == '}') return false;  // empty value
          if (!ParseFlowValue()) return false;
        } else {
          if (!ParseFlowValue()) return false;
          SkipSpaces();
          if (Peek(p_) == ':') return false;  // a single-pair mapping
        }
        SkipSpaces();
        if (Peek(p_) == ',') {
          ++p_;
          SkipSpaces();
          if (Peek(p_) == close) return false;  // trailing comma
          continue;
        }
        if (Peek(p_) == close) break;
        return false;
      }
    }
    Close(start, map ? NodeType::kMapEnd : NodeType::kSeqEnd, line_, Col(p_));
    ++p_;
    return true;
  }

  const char* const begin_;
  const char* const end_;
  const char* p_;
  const char* line_start_;
  uint32_t line_ = 1;
  bool eof_ = false;
  int indent_ = 0;  // column of p_ on the current content line
  uint32_t eof_line_ = 1;
  uint32_t eof_column_ = 0;  // 0-based column of the end of input
  int open_ = 0;
  bool ascii_ = false;  // no byte above 0x7F: columns are byte offsets
  std::string scratch_;
  bool too_many_nodes_ = false;
  DocumentSink sink_;
  Tape tape_;
};

}  // namespace

absl::Status ReadYamlFast(absl::string_view text, DocumentSink sink,
                          bool* fallback) {
  FastYamlReader reader(text, sink);
  return reader.Run(fallback);
}

}  // namespace nodeplan::manifest
