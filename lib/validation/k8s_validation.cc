#include "validation/k8s_validation.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace nodeplan::validation {
namespace {

constexpr absl::string_view kQualifiedNameFmt =
    "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr absl::string_view kQualifiedNameErrMsg =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start "
    "and end with an alphanumeric character";
constexpr absl::string_view kLabelValueFmt =
    "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
constexpr absl::string_view kLabelValueErrMsg =
    "a valid label must be an empty string or consist of alphanumeric "
    "characters, '-', '_' or '.', and must start and end with an alphanumeric "
    "character";
constexpr absl::string_view kDns1123SubdomainFmt =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
constexpr absl::string_view kDns1123SubdomainErrMsg =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
    "characters, '-' or '.', and must start and end with an alphanumeric "
    "character";

// apimachinery's RegexError: examples joined as "'a',  or 'b', ".
std::string RegexError(absl::string_view msg, absl::string_view fmt,
                       const std::vector<absl::string_view>& examples) {
  std::string out(msg);
  if (examples.empty()) {
    return absl::StrCat(out, " (regex used for validation is '", fmt, "')");
  }
  absl::StrAppend(&out, " (e.g. ");
  for (size_t i = 0; i < examples.size(); ++i) {
    if (i > 0) absl::StrAppend(&out, " or ");
    absl::StrAppend(&out, "'", examples[i], "', ");
  }
  absl::StrAppend(&out, "regex used for validation is '", fmt, "')");
  return out;
}

std::string MaxLenError(int n) {
  return absl::StrCat("must be no more than ", n, " characters");
}

bool IsAlnum(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c));
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsLowerAlnum(char c) { return IsDigit(c) || (c >= 'a' && c <= 'z'); }

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], anchored.
bool MatchesQualifiedNamePart(absl::string_view s) {
  if (s.empty() || !IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  for (char c : s) {
    if (!IsAlnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

// [a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*, anchored.
// One pass, no splitting (every Node label key is checked per call): each
// label starts and ends with [a-z0-9] exactly when the whole does and every
// '.' sits between two [a-z0-9] (which also rules out empty labels).
bool MatchesDns1123Subdomain(absl::string_view s) {
  if (s.empty() || !IsLowerAlnum(s.front()) || !IsLowerAlnum(s.back())) {
    return false;
  }
  for (size_t i = 1; i + 1 < s.size(); ++i) {
    const char c = s[i];
    if (IsLowerAlnum(c) || c == '-') continue;
    if (c != '.' || !IsLowerAlnum(s[i - 1]) || !IsLowerAlnum(s[i + 1])) {
      return false;
    }
  }
  return true;
}

// Consumes [0-9]+ (at least `min` digits); returns the count.
size_t Digits(absl::string_view s, size_t pos) {
  size_t n = 0;
  while (pos + n < s.size() && IsDigit(s[pos + n])) ++n;
  return n;
}

// (([0-9]+(\.[0-9]*)?)|(\.[0-9]+)) matching exactly `s`.
bool MatchesDecimal(absl::string_view s) {
  if (s.empty()) return false;
  size_t n = Digits(s, 0);
  if (n > 0) {
    if (n == s.size()) return true;
    if (s[n] != '.') return false;
    return Digits(s, n + 1) == s.size() - n - 1;
  }
  return s[0] == '.' && s.size() > 1 && Digits(s, 1) == s.size() - 1;
}

// ([0-9]+(s|m|h))+ matching exactly `s`.
bool MatchesDurationUnits(absl::string_view s, absl::string_view units) {
  if (s.empty()) return false;
  size_t pos = 0;
  while (pos < s.size()) {
    size_t n = Digits(s, pos);
    if (n == 0 || pos + n >= s.size()) return false;
    if (units.find(s[pos + n]) == absl::string_view::npos) return false;
    pos += n + 1;
  }
  return true;
}

// \d*\.?\d+ matching exactly `s`.
bool MatchesLooseDecimal(absl::string_view s) {
  if (s.empty() || !IsDigit(s.back())) return false;
  size_t dot = s.find('.');
  if (dot == absl::string_view::npos) return Digits(s, 0) == s.size();
  return Digits(s, 0) == dot && Digits(s, dot + 1) == s.size() - dot - 1 &&
         dot + 1 < s.size();
}

}  // namespace

std::vector<std::string> IsDNS1123Subdomain(absl::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > 253) errs.push_back(MaxLenError(253));
  if (!MatchesDns1123Subdomain(value)) {
    errs.push_back(RegexError(kDns1123SubdomainErrMsg, kDns1123SubdomainFmt,
                              {"example.com"}));
  }
  return errs;
}

std::vector<std::string> IsQualifiedName(absl::string_view value) {
  std::vector<std::string> errs;
  std::vector<absl::string_view> parts = absl::StrSplit(value, '/');
  absl::string_view name;
  if (parts.size() == 1) {
    name = parts[0];
  } else if (parts.size() == 2) {
    absl::string_view prefix = parts[0];
    name = parts[1];
    if (prefix.empty()) {
      errs.push_back("prefix part must be non-empty");
    } else {
      for (const std::string& msg : IsDNS1123Subdomain(prefix)) {
        errs.push_back(absl::StrCat("prefix part ", msg));
      }
    }
  } else {
    errs.push_back(
        absl::StrCat("a qualified name ",
                     RegexError(kQualifiedNameErrMsg, kQualifiedNameFmt,
                                {"MyName", "my.name", "123-abc"}),
                     " with an optional DNS subdomain prefix and '/' (e.g. "
                     "'example.com/MyName')"));
    return errs;
  }
  if (name.empty()) {
    errs.push_back("name part must be non-empty");
  } else if (name.size() > 63) {
    errs.push_back(absl::StrCat("name part ", MaxLenError(63)));
  }
  if (!MatchesQualifiedNamePart(name)) {
    errs.push_back(absl::StrCat(
        "name part ", RegexError(kQualifiedNameErrMsg, kQualifiedNameFmt,
                                 {"MyName", "my.name", "123-abc"})));
  }
  return errs;
}

std::vector<std::string> IsValidLabelValue(absl::string_view value) {
  std::vector<std::string> errs;
  if (value.size() > 63) errs.push_back(MaxLenError(63));
  if (!MatchesLabelValue(value)) {
    errs.push_back(RegexError(kLabelValueErrMsg, kLabelValueFmt,
                              {"MyValue", "my_value", "12345"}));
  }
  return errs;
}

bool ValidQualifiedName(absl::string_view value) {
  absl::string_view name = value;
  if (const size_t slash = value.find('/'); slash != absl::string_view::npos) {
    const absl::string_view prefix = value.substr(0, slash);
    if (prefix.empty() || prefix.size() > 253 ||
        !MatchesDns1123Subdomain(prefix)) {
      return false;
    }
    name = value.substr(slash + 1);
  }
  return !name.empty() && name.size() <= 63 && MatchesQualifiedNamePart(name);
}

bool ValidLabelValue(absl::string_view value) {
  return value.size() <= 63 && MatchesLabelValue(value);
}

bool MatchesQualifiedKey(absl::string_view s) {
  size_t slash = s.find('/');
  if (slash == absl::string_view::npos) return MatchesQualifiedNamePart(s);
  return MatchesDns1123Subdomain(s.substr(0, slash)) &&
         MatchesQualifiedNamePart(s.substr(slash + 1));
}

bool MatchesLabelValue(absl::string_view s) {
  return s.empty() || MatchesQualifiedNamePart(s);
}

bool MatchesDurationOrNever(absl::string_view s) {
  return s == "Never" || MatchesDurationUnits(s, "smh");
}

bool MatchesDuration(absl::string_view s) {
  return MatchesDurationUnits(s, "smh");
}

bool MatchesBudgetDuration(absl::string_view s) {
  // (([0-9]+(h|m))|([0-9]+h[0-9]+m)) with an optional trailing "0s".
  auto core = [](absl::string_view c) {
    if (!MatchesDurationUnits(c, "hm")) return false;
    // At most two groups, and two only as "<n>h<n>m".
    size_t units = 0;
    for (char ch : c) units += (ch == 'h' || ch == 'm');
    return units == 1 || (units == 2 && c.back() == 'm' &&
                          c.find('h') != absl::string_view::npos &&
                          c.find('h') < c.find('m'));
  };
  if (core(s)) return true;
  return s.size() > 2 && absl::EndsWith(s, "0s") &&
         core(s.substr(0, s.size() - 2));
}

bool MatchesBudgetNodes(absl::string_view s) {
  if (s.empty()) return false;
  if (Digits(s, 0) == s.size()) return true;
  if (s.back() != '%') return false;
  absl::string_view n = s.substr(0, s.size() - 1);
  if (n == "100") return true;
  return (n.size() == 1 || n.size() == 2) && Digits(n, 0) == n.size();
}

bool MatchesSchedulePattern(absl::string_view s) {
  // First alternative: anchored at the start only.
  for (absl::string_view d : {"@annually", "@yearly", "@monthly", "@weekly",
                              "@daily", "@midnight", "@hourly"}) {
    if (absl::StartsWith(s, d)) return true;
  }
  // Second: (.+)\s(.+)\s(.+)\s(.+)\s(.+)$ anywhere; simulated as an NFA
  // whose state j means "inside segment j with at least one character".
  // `.` is any byte but '\n'; \s is one of " \t\n\f\r".
  bool in_segment[5] = {false, false, false, false, false};
  bool after_space[5] = {true, false, false, false, false};  // may start seg j
  for (char c : s) {
    const bool dot = c != '\n';
    const bool space =
        c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
    bool next_in[5] = {false, false, false, false, false};
    bool next_after[5] = {true, false, false, false, false};
    for (int j = 0; j < 5; ++j) {
      if (dot && (in_segment[j] || after_space[j])) next_in[j] = true;
      if (space && j < 4 && in_segment[j]) next_after[j + 1] = true;
    }
    for (int j = 0; j < 5; ++j) {
      in_segment[j] = next_in[j];
      after_space[j] = next_after[j];
    }
  }
  return in_segment[4];
}

bool MatchesQuantity(absl::string_view s) {
  size_t pos = 0;
  if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) ++pos;
  // The number is greedy: digits, '.', digits (no suffix starts with those).
  size_t end = pos;
  while (end < s.size() && (IsDigit(s[end]) || s[end] == '.')) ++end;
  if (!MatchesDecimal(s.substr(pos, end - pos))) return false;
  absl::string_view suffix = s.substr(end);
  if (suffix.empty()) return true;
  if (suffix.size() == 2 && suffix[1] == 'i' &&
      absl::string_view("KMGTPE").find(suffix[0]) != absl::string_view::npos) {
    return true;
  }
  if (suffix.size() == 1 && absl::string_view("numkMGTPE").find(suffix[0]) !=
                                absl::string_view::npos) {
    return true;
  }
  if (suffix[0] != 'e' && suffix[0] != 'E') return false;
  absl::string_view exp = suffix.substr(1);
  if (!exp.empty() && (exp[0] == '+' || exp[0] == '-')) exp.remove_prefix(1);
  return MatchesDecimal(exp);
}

bool MatchesGroup(absl::string_view s) {
  return s.find('/') == absl::string_view::npos;
}

bool MatchesPrice(absl::string_view s) {
  size_t n = Digits(s, 0);
  if (n == 0) return false;
  if (n == s.size()) return true;
  return s[n] == '.' && s.size() > n + 1 &&
         Digits(s, n + 1) == s.size() - n - 1;
}

bool MatchesPriceAdjustment(absl::string_view s) {
  if (s.empty()) return false;
  if (s == "-100%") return true;
  const char sign = s[0];
  absl::string_view rest = s.substr(1);
  if ((sign == '+' || sign == '-') && MatchesLooseDecimal(rest)) return true;
  if (rest.empty() || rest.back() != '%') return false;
  absl::string_view number = rest.substr(0, rest.size() - 1);
  if (sign == '+') return MatchesLooseDecimal(number);
  if (sign == '-') {
    size_t n = Digits(number, 0);
    if (n < 1 || n > 2) return false;
    if (n == number.size()) return true;
    return number[n] == '.' && number.size() > n + 1 &&
           Digits(number, n + 1) == number.size() - n - 1;
  }
  return false;
}

namespace {

struct CronField {
  absl::string_view name;
  int min;
  int max;
  std::vector<absl::string_view> names;  // index + min is the value
};

// Go's strconv.Atoi: optional sign, decimal digits, no spaces.
bool GoAtoi(absl::string_view v, int64_t* out) {
  if (v.empty() || absl::ascii_isspace(static_cast<unsigned char>(v.front())) ||
      absl::ascii_isspace(static_cast<unsigned char>(v.back()))) {
    return false;
  }
  return absl::SimpleAtoi(v, out);
}

std::string AtoiError(absl::string_view v) {
  return absl::StrCat("failed to parse int from ", v,
                      ": strconv.Atoi: parsing \"", v, "\": invalid syntax");
}

// robfig/cron's parseIntOrName and getRange, with its error texts.
std::string CronRangeError(absl::string_view expr, const CronField& f) {
  std::vector<absl::string_view> range_and_step = absl::StrSplit(expr, '/');
  std::vector<absl::string_view> low_and_high =
      absl::StrSplit(range_and_step[0], '-');
  auto parse = [&](absl::string_view v, int* out) -> std::string {
    for (size_t i = 0; i < f.names.size(); ++i) {
      if (absl::EqualsIgnoreCase(v, f.names[i])) {
        *out = static_cast<int>(i) + f.min;
        return "";
      }
    }
    int64_t n = 0;
    if (!GoAtoi(v, &n)) return AtoiError(v);
    if (n < 0) {
      return absl::StrCat("negative number (", n, ") not allowed: ", v);
    }
    *out = static_cast<int>(n > INT32_MAX ? INT32_MAX : n);
    return "";
  };
  int start = f.min;
  int end = f.max;
  const bool star = low_and_high[0] == "*" || low_and_high[0] == "?";
  if (!star) {
    std::string err = parse(low_and_high[0], &start);
    if (!err.empty()) return err;
    if (low_and_high.size() == 1) {
      end = start;
    } else if (low_and_high.size() == 2) {
      err = parse(low_and_high[1], &end);
      if (!err.empty()) return err;
    } else {
      return absl::StrCat("too many hyphens: ", expr);
    }
  }
  if (range_and_step.size() == 2) {
    int64_t step = 0;
    if (!GoAtoi(range_and_step[1], &step)) return AtoiError(range_and_step[1]);
    if (step < 0) {
      return absl::StrCat("negative number (", step,
                          ") not allowed: ", range_and_step[1]);
    }
    if (step == 0) {
      return absl::StrCat("step of range should be a positive number: ", expr);
    }
    if (!star && low_and_high.size() == 1) end = f.max;  // "N/step"
  } else if (range_and_step.size() > 2) {
    return absl::StrCat("too many slashes: ", expr);
  }
  if (start < f.min) {
    return absl::StrCat("beginning of range (", start, ") below minimum (",
                        f.min, "): ", expr);
  }
  if (end > f.max) {
    return absl::StrCat("end of range (", end, ") above maximum (", f.max,
                        "): ", expr);
  }
  if (start > end) {
    return absl::StrCat("beginning of range (", start,
                        ") beyond end of range (", end, "): ", expr);
  }
  return "";
}

}  // namespace

std::string CronError(absl::string_view schedule) {
  std::vector<absl::string_view> fields = absl::StrSplit(
      schedule, absl::ByAnyChar(" \t\n\v\f\r"), absl::SkipEmpty());
  if (fields.empty()) return "empty spec string";
  if (absl::StartsWith(fields[0], "@")) {
    const absl::string_view d = absl::StripAsciiWhitespace(schedule);
    for (absl::string_view ok : {"@yearly", "@annually", "@monthly", "@weekly",
                                 "@daily", "@midnight", "@hourly"}) {
      if (d == ok) return "";
    }
    return absl::StrCat("unrecognized descriptor: ", d);
  }
  if (fields.size() != 5) {
    return absl::StrCat("expected exactly 5 fields, found ", fields.size(),
                        ": ", GoList({fields.begin(), fields.end()}));
  }
  const CronField kFields[5] = {
      {"minute", 0, 59, {}},
      {"hour", 0, 23, {}},
      {"day of month", 1, 31, {}},
      {"month",
       1,
       12,
       {"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct",
        "nov", "dec"}},
      {"day of week", 0, 6, {"sun", "mon", "tue", "wed", "thu", "fri", "sat"}},
  };
  for (int i = 0; i < 5; ++i) {
    for (absl::string_view expr : absl::StrSplit(fields[i], ',')) {
      std::string err = CronRangeError(expr, kFields[i]);
      if (!err.empty()) return err;
    }
  }
  return "";
}

bool IsNonNegativeInteger(absl::string_view s) {
  int64_t v = 0;
  // absl::SimpleAtoi also trims whitespace, which Go's Atoi does not.
  if (s.empty() || absl::ascii_isspace(static_cast<unsigned char>(s.front())) ||
      absl::ascii_isspace(static_cast<unsigned char>(s.back()))) {
    return false;
  }
  return absl::SimpleAtoi(s, &v) && v >= 0;
}

std::string GoList(const std::vector<std::string>& items) {
  return absl::StrCat("[", absl::StrJoin(items, " "), "]");
}

}  // namespace nodeplan::validation
