// Kubernetes quantities and Go durations as exact integers.
//
// Quantities follow k8s.io/apimachinery/pkg/api/resource (quantity.go,
// suffix.go): a signed decimal mantissa, then a decimal SI suffix (n u m k M
// G T P E), a binary SI suffix (Ki .. Ei) or a decimal exponent (e3, E-2).
// The value is kept exact (digits, power of ten, power of two) and rounded
// once, away from zero, to the requested scale: the same result as Kubernetes'
// round-up to nano followed by MilliValue()/Value().
//
// Deliberate differences from Kubernetes, each an error here:
//   - text without any digit ("m", "-", ".", "Ki") which Kubernetes' parser
//     reads as zero although its documented pattern rejects it;
//   - results outside int64, which Kubernetes clamps (Value) or wraps
//     (MilliValue);
//   - exponents outside int32, which Kubernetes silently truncates.
//
// Durations follow Go's time.ParseDuration and Duration.String(), including
// Go's float64 arithmetic for fractional parts so results match bit for bit.

#include "nodeplan/quantity.h"

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "model/quantity_internal.h"
#include "nodeplan/limits.h"

namespace nodeplan {
namespace {

constexpr char kQuantityPattern[] =
    "quantities must match the regular expression "
    "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The exact value digits * 10^exp10 * 2^exp2, with its sign.
struct ExactQuantity {
  bool negative = false;
  std::string digits;  // no leading zeros; empty means zero
  int64_t exp10 = 0;
  int exp2 = 0;
};

absl::Status FormatError(absl::string_view text) {
  return absl::InvalidArgumentError(
      absl::StrCat("quantity \"", text, "\": ", kQuantityPattern));
}

absl::Status SuffixError(absl::string_view text, absl::string_view suffix) {
  return absl::InvalidArgumentError(
      absl::StrCat("quantity \"", text,
                   "\": unable to parse quantity's suffix \"", suffix, "\""));
}

// Interprets a suffix the way Kubernetes' quantitySuffixer does.
bool InterpretSuffix(absl::string_view suffix, int64_t* exp10, int* exp2) {
  struct Entry {
    const char* text;
    int exp10;
    int exp2;
  };
  static constexpr Entry kSuffixes[] = {
      {"", 0, 0},    {"n", -9, 0},  {"u", -6, 0},  {"m", -3, 0},
      {"k", 3, 0},   {"M", 6, 0},   {"G", 9, 0},   {"T", 12, 0},
      {"P", 15, 0},  {"E", 18, 0},  {"Ki", 0, 10}, {"Mi", 0, 20},
      {"Gi", 0, 30}, {"Ti", 0, 40}, {"Pi", 0, 50}, {"Ei", 0, 60},
  };
  for (const Entry& e : kSuffixes) {
    if (suffix == e.text) {
      *exp10 = e.exp10;
      *exp2 = e.exp2;
      return true;
    }
  }
  if (suffix.size() < 2 || (suffix[0] != 'e' && suffix[0] != 'E')) {
    return false;
  }
  // A decimal exponent: Go's strconv.ParseInt syntax, bounded to int32.
  absl::string_view rest = suffix.substr(1);
  bool negative = false;
  if (rest[0] == '+' || rest[0] == '-') {
    negative = rest[0] == '-';
    rest.remove_prefix(1);
  }
  if (rest.empty()) return false;
  int64_t value = 0;
  for (char c : rest) {
    if (!IsDigit(c)) return false;
    value = value * 10 + (c - '0');
    if (value > INT32_MAX) return false;
  }
  *exp10 = negative ? -value : value;
  *exp2 = 0;
  return true;
}

absl::StatusOr<ExactQuantity> ParseExact(absl::string_view text) {
  if (text.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("quantity \"\": ", kQuantityPattern));
  }
  ExactQuantity q;
  size_t pos = 0;
  const size_t end = text.size();
  if (text[0] == '+' || text[0] == '-') {
    q.negative = text[0] == '-';
    ++pos;
  }
  const size_t int_start = pos;
  while (pos < end && IsDigit(text[pos])) ++pos;
  absl::string_view int_digits = text.substr(int_start, pos - int_start);
  absl::string_view frac_digits;
  if (pos < end && text[pos] == '.') {
    ++pos;
    const size_t frac_start = pos;
    while (pos < end && IsDigit(text[pos])) ++pos;
    frac_digits = text.substr(frac_start, pos - frac_start);
  }
  if (int_digits.empty() && frac_digits.empty()) return FormatError(text);

  // Suffix: [eEinumkKMGTP]*[-+]?[0-9]*, then the end of the text.
  const size_t suffix_start = pos;
  while (pos < end && absl::string_view("eEinumkKMGTP").find(text[pos]) !=
                          absl::string_view::npos) {
    ++pos;
  }
  if (pos < end && (text[pos] == '+' || text[pos] == '-')) ++pos;
  while (pos < end && IsDigit(text[pos])) ++pos;
  if (pos != end) return FormatError(text);
  absl::string_view suffix = text.substr(suffix_start);

  int64_t exp10 = 0;
  if (!InterpretSuffix(suffix, &exp10, &q.exp2)) {
    return SuffixError(text, suffix);
  }
  q.exp10 = exp10 - static_cast<int64_t>(frac_digits.size());
  q.digits = absl::StrCat(int_digits, frac_digits);
  size_t first = q.digits.find_first_not_of('0');
  q.digits.erase(0, first == std::string::npos ? q.digits.size() : first);
  return q;
}

// Doubles a decimal digit string in place.
void DoubleDigits(std::string& digits) {
  int carry = 0;
  for (size_t i = digits.size(); i-- > 0;) {
    int d = (digits[i] - '0') * 2 + carry;
    digits[i] = static_cast<char>('0' + d % 10);
    carry = d / 10;
  }
  if (carry) digits.insert(digits.begin(), static_cast<char>('0' + carry));
}

// The quantity times 10^scale, rounded away from zero to an integer, from
// the exact digit string (every syntax, every error).
absl::StatusOr<int64_t> ScaledExact(absl::string_view text, int scale,
                                    absl::string_view unit) {
  // Bounded before any digit is looked at: the exact arithmetic below is
  // quadratic in the digits.
  if (text.size() > limits::kMaxQuantityChars) {
    return absl::InvalidArgumentError(absl::StrCat(
        "quantity of ", text.size(), " characters exceeds the limit of ",
        limits::kMaxQuantityChars, " (nodeplan::limits::kMaxQuantityChars)"));
  }
  absl::StatusOr<ExactQuantity> parsed = ParseExact(text);
  if (!parsed.ok()) return parsed.status();
  ExactQuantity& q = *parsed;
  if (q.digits.empty()) return 0;
  auto overflow = [&]() {
    return absl::OutOfRangeError(absl::StrCat(
        "quantity \"", text, "\": value in ", unit, " overflows int64"));
  };
  const int64_t exp10 = q.exp10 + scale;
  // A non-zero value times 10^exp10 has at least digits+exp10 digits.
  if (exp10 >= 0 && static_cast<int64_t>(q.digits.size()) + exp10 > 20) {
    return overflow();
  }
  std::string n = std::move(q.digits);
  for (int i = 0; i < q.exp2; ++i) DoubleDigits(n);
  std::string integer;
  bool remainder = false;
  if (exp10 >= 0) {
    integer = n;
    integer.append(static_cast<size_t>(exp10), '0');
  } else if (-exp10 >= static_cast<int64_t>(n.size())) {
    remainder = true;  // n is non-zero and entirely fractional
  } else {
    const size_t split = n.size() - static_cast<size_t>(-exp10);
    integer = n.substr(0, split);
    remainder = n.find_first_not_of('0', split) != std::string::npos;
  }
  if (integer.size() > 19) return overflow();
  uint64_t magnitude = 0;
  for (char c : integer) magnitude = magnitude * 10 + (c - '0');
  if (remainder) ++magnitude;
  if (magnitude > static_cast<uint64_t>(INT64_MAX)) return overflow();
  const int64_t value = static_cast<int64_t>(magnitude);
  return q.negative ? -value : value;
}

// The fast path of Scaled for the quantities catalogs and pods are made of:
// up to 18 unsigned digits ("4", "007") with no suffix, a decimal suffix m k M
// G T or a binary one Ki Mi Gi Ti ("250m", "512Mi", "80Gi"). Computed in
// uint64 with overflow checks. nullopt for anything else (signs, fractions,
// exponents, other suffixes) and for results beyond int64, which the exact
// path then handles, errors included. Where it answers, the answer equals
// ScaledExact's (test: differential on random inputs).
std::optional<int64_t> ScaledFast(absl::string_view text, int scale) {
  constexpr uint64_t kMax = static_cast<uint64_t>(INT64_MAX);
  size_t n = 0;
  uint64_t value = 0;
  while (n < text.size() && IsDigit(text[n])) {
    if (n == 18) return std::nullopt;  // 19+ digits may not fit
    value = value * 10 + static_cast<uint64_t>(text[n] - '0');
    ++n;
  }
  if (n == 0) return std::nullopt;
  const absl::string_view suffix = text.substr(n);
  int exp10 = scale;
  int exp2 = 0;
  if (suffix.size() == 1) {
    switch (suffix[0]) {
      case 'm':
        exp10 -= 3;
        break;
      case 'k':
        exp10 += 3;
        break;
      case 'M':
        exp10 += 6;
        break;
      case 'G':
        exp10 += 9;
        break;
      case 'T':
        exp10 += 12;
        break;
      default:
        return std::nullopt;
    }
  } else if (suffix.size() == 2 && suffix[1] == 'i') {
    switch (suffix[0]) {
      case 'K':
        exp2 = 10;
        break;
      case 'M':
        exp2 = 20;
        break;
      case 'G':
        exp2 = 30;
        break;
      case 'T':
        exp2 = 40;
        break;
      default:
        return std::nullopt;
    }
  } else if (!suffix.empty()) {
    return std::nullopt;
  }
  if (value == 0) return 0;
  if (value > (kMax >> exp2)) return std::nullopt;
  value <<= exp2;
  if (exp10 < 0) {
    // Only "m" at scale 0: divide by 1000, rounding away from zero.
    uint64_t divisor = 1;
    for (int i = 0; i < -exp10; ++i) divisor *= 10;
    return static_cast<int64_t>(value / divisor +
                                (value % divisor != 0 ? 1 : 0));
  }
  for (int i = 0; i < exp10; ++i) {
    if (value > kMax / 10) return std::nullopt;
    value *= 10;
  }
  return static_cast<int64_t>(value);
}

absl::StatusOr<int64_t> Scaled(absl::string_view text, int scale,
                               absl::string_view unit) {
  if (std::optional<int64_t> fast = ScaledFast(text, scale)) return *fast;
  return ScaledExact(text, scale, unit);
}

// Canonical DecimalSI text of value * 10^exp3 (exp3 a multiple of 3 >= -3).
std::string FormatDecimalSI(int64_t value, int exp) {
  static constexpr const char* kSuffixes[] = {"m", "",  "k", "M",
                                              "G", "T", "P", "E"};
  if (value == 0) return "0";
  while (value % 1000 == 0 && exp < 18) {
    value /= 1000;
    exp += 3;
  }
  return absl::StrCat(value, kSuffixes[(exp + 3) / 3]);
}

// Go's time.Duration units.
struct DurationUnit {
  const char* text;
  uint64_t nanos;
};
constexpr DurationUnit kDurationUnits[] = {
    {"ns", 1},           {"us", 1000},
    {"\xC2\xB5s", 1000},  // U+00B5 micro sign
    {"\xCE\xBCs", 1000},  // U+03BC Greek mu
    {"ms", 1000000},     {"s", 1000000000},
    {"m", 60000000000},  {"h", 3600000000000},
};

absl::Status InvalidDuration(absl::string_view text) {
  return absl::InvalidArgumentError(
      absl::StrCat("invalid duration \"", text, "\""));
}

constexpr uint64_t kTwo63 = uint64_t{1} << 63;

// Go's leadingInt: digits into a uint64 that may reach 2^63.
bool LeadingInt(absl::string_view& s, uint64_t* x) {
  size_t i = 0;
  uint64_t v = 0;
  for (; i < s.size() && IsDigit(s[i]); ++i) {
    if (v > kTwo63 / 10) return false;
    v = v * 10 + static_cast<uint64_t>(s[i] - '0');
    if (v > kTwo63) return false;
  }
  s.remove_prefix(i);
  *x = v;
  return true;
}

// Go's leadingFraction: digits after the point; precision beyond uint64 is
// dropped.
void LeadingFraction(absl::string_view& s, uint64_t* x, double* scale) {
  size_t i = 0;
  uint64_t v = 0;
  double sc = 1;
  bool overflow = false;
  for (; i < s.size() && IsDigit(s[i]); ++i) {
    if (overflow) continue;
    if (v > (kTwo63 - 1) / 10) {
      overflow = true;
      continue;
    }
    uint64_t y = v * 10 + static_cast<uint64_t>(s[i] - '0');
    if (y > kTwo63) {
      overflow = true;
      continue;
    }
    v = y;
    sc *= 10;
  }
  s.remove_prefix(i);
  *x = v;
  *scale = sc;
}

// Writes v / 10^prec's fraction (without trailing zeros) before `end` in buf.
// Returns the new start and v / 10^prec.
size_t FormatFraction(char* buf, size_t w, uint64_t v, int prec,
                      uint64_t* quotient) {
  bool print = false;
  for (int i = 0; i < prec; ++i) {
    uint64_t digit = v % 10;
    print = print || digit != 0;
    if (print) buf[--w] = static_cast<char>('0' + digit);
    v /= 10;
  }
  if (print) buf[--w] = '.';
  *quotient = v;
  return w;
}

size_t FormatInteger(char* buf, size_t w, uint64_t v) {
  if (v == 0) {
    buf[--w] = '0';
    return w;
  }
  while (v > 0) {
    buf[--w] = static_cast<char>('0' + v % 10);
    v /= 10;
  }
  return w;
}

}  // namespace

namespace quantity_internal {

absl::StatusOr<int64_t> ParseQuantityMilliExact(absl::string_view text) {
  return ScaledExact(text, 3, "thousandths");
}

absl::StatusOr<int64_t> ParseQuantityValueExact(absl::string_view text) {
  return ScaledExact(text, 0, "units");
}

}  // namespace quantity_internal

absl::StatusOr<int64_t> ParseQuantityMilli(absl::string_view text) {
  return Scaled(text, 3, "thousandths");
}

absl::StatusOr<int64_t> ParseQuantityValue(absl::string_view text) {
  return Scaled(text, 0, "units");
}

std::string FormatMilli(int64_t milli) {
  if (milli % 1000 != 0) return absl::StrCat(milli, "m");
  return FormatDecimalSI(milli / 1000, 0);
}

std::string FormatBytes(int64_t bytes) {
  // Kubernetes prints small binary quantities as DecimalSI ("1k" for 1000)
  // and others in the largest power of 1024 that divides them exactly.
  if (bytes > -1024 && bytes < 1024) return FormatDecimalSI(bytes, 0);
  static constexpr const char* kSuffixes[] = {"",   "Ki", "Mi", "Gi",
                                              "Ti", "Pi", "Ei"};
  int exp = 0;
  while (exp < 6 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++exp;
  }
  return absl::StrCat(bytes, kSuffixes[exp]);
}

absl::StatusOr<int64_t> ParseDuration(absl::string_view text) {
  if (text.size() > limits::kMaxDurationChars) {
    return absl::InvalidArgumentError(absl::StrCat(
        "duration of ", text.size(), " characters exceeds the limit of ",
        limits::kMaxDurationChars, " (nodeplan::limits::kMaxDurationChars)"));
  }
  if (text == "Never") return kNeverDuration;
  absl::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return 0;
  if (s.empty()) return InvalidDuration(text);
  uint64_t total = 0;
  while (!s.empty()) {
    if (!(s[0] == '.' || IsDigit(s[0]))) return InvalidDuration(text);
    const size_t before_int = s.size();
    uint64_t whole = 0;
    if (!LeadingInt(s, &whole)) return InvalidDuration(text);
    const bool pre = before_int != s.size();
    uint64_t fraction = 0;
    double scale = 1;
    bool post = false;
    if (!s.empty() && s[0] == '.') {
      s.remove_prefix(1);
      const size_t before_frac = s.size();
      LeadingFraction(s, &fraction, &scale);
      post = before_frac != s.size();
    }
    if (!pre && !post) return InvalidDuration(text);
    size_t i = 0;
    while (i < s.size() && s[i] != '.' && !IsDigit(s[i])) ++i;
    if (i == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("missing unit in duration \"", text, "\""));
    }
    absl::string_view unit_text = s.substr(0, i);
    s.remove_prefix(i);
    uint64_t unit = 0;
    for (const DurationUnit& u : kDurationUnits) {
      if (unit_text == u.text) unit = u.nanos;
    }
    if (unit == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown unit \"", unit_text, "\" in duration \"", text, "\""));
    }
    if (whole > kTwo63 / unit) return InvalidDuration(text);
    whole *= unit;
    if (fraction > 0) {
      // Go computes this in float64; so do we, for identical results.
      whole += static_cast<uint64_t>(static_cast<double>(fraction) *
                                     (static_cast<double>(unit) / scale));
      if (whole > kTwo63) return InvalidDuration(text);
    }
    total += whole;
    if (total > kTwo63) return InvalidDuration(text);
  }
  if (negative) return static_cast<int64_t>(0 - total);
  if (total > kTwo63 - 1) return InvalidDuration(text);
  return static_cast<int64_t>(total);
}

std::string FormatDuration(int64_t nanos) {
  if (nanos == kNeverDuration) return "Never";
  char buf[32];
  size_t w = sizeof(buf);
  const bool negative = nanos < 0;
  uint64_t u = static_cast<uint64_t>(nanos);
  if (negative) u = 0 - u;
  if (u < 1000000000) {
    if (u == 0) return "0s";
    int prec;
    buf[--w] = 's';
    if (u < 1000) {
      prec = 0;
      buf[--w] = 'n';
    } else if (u < 1000000) {
      prec = 3;
      buf[--w] = '\xB5';
      buf[--w] = '\xC2';
    } else {
      prec = 6;
      buf[--w] = 'm';
    }
    w = FormatFraction(buf, w, u, prec, &u);
    w = FormatInteger(buf, w, u);
  } else {
    buf[--w] = 's';
    w = FormatFraction(buf, w, u, 9, &u);
    w = FormatInteger(buf, w, u % 60);
    u /= 60;
    if (u > 0) {
      buf[--w] = 'm';
      w = FormatInteger(buf, w, u % 60);
      u /= 60;
      if (u > 0) {
        buf[--w] = 'h';
        w = FormatInteger(buf, w, u);
      }
    }
  }
  if (negative) buf[--w] = '-';
  return std::string(buf + w, sizeof(buf) - w);
}

}  // namespace nodeplan
