#include "verify/amount.h"

#include <cctype>

#include "absl/strings/str_cat.h"

namespace nodeplan::verify_internal {
namespace {

constexpr Amount kLimit = static_cast<Amount>(1) << 120;

struct Suffix {
  const char* text;
  int pow10;
  int pow2;
};

constexpr Suffix kSuffixes[] = {
    {"", 0, 0},    {"m", -3, 0},  {"k", 3, 0},   {"M", 6, 0},   {"G", 9, 0},
    {"T", 12, 0},  {"P", 15, 0},  {"E", 18, 0},  {"Ki", 0, 10}, {"Mi", 0, 20},
    {"Gi", 0, 30}, {"Ti", 0, 40}, {"Pi", 0, 50}, {"Ei", 0, 60},
};

std::string ToDecimal(Amount v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  if (negative) v = -v;
  std::string out;
  while (v > 0) {
    out.insert(out.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  }
  return negative ? "-" + out : out;
}

}  // namespace

std::optional<Amount> ParseMilli(const std::string& text) {
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    negative = text[i] == '-';
    ++i;
  }
  Amount mantissa = 0;
  int digits = 0;
  int digit_chars = 0;
  int fraction_digits = 0;
  bool seen_point = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '.' && !seen_point) {
      seen_point = true;
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(c))) break;
    if (digits >= 30) return std::nullopt;
    ++digit_chars;
    mantissa = mantissa * 10 + (c - '0');
    if (mantissa != 0 || digits > 0) ++digits;
    if (seen_point) ++fraction_digits;
  }
  const size_t number_end = i;
  if (digit_chars == 0) return std::nullopt;
  const std::string suffix = text.substr(number_end);
  int pow10 = 0;
  int pow2 = 0;
  bool matched = false;
  for (const Suffix& s : kSuffixes) {
    if (suffix == s.text) {
      pow10 = s.pow10;
      pow2 = s.pow2;
      matched = true;
      break;
    }
  }
  if (!matched) {
    if (suffix.size() < 2 || (suffix[0] != 'e' && suffix[0] != 'E')) {
      return std::nullopt;
    }
    size_t j = 1;
    bool exp_negative = false;
    if (suffix[j] == '+' || suffix[j] == '-') {
      exp_negative = suffix[j] == '-';
      ++j;
    }
    if (j >= suffix.size() || suffix.size() - j > 3) return std::nullopt;
    int exponent = 0;
    for (; j < suffix.size(); ++j) {
      if (!std::isdigit(static_cast<unsigned char>(suffix[j]))) {
        return std::nullopt;
      }
      exponent = exponent * 10 + (suffix[j] - '0');
    }
    pow10 = exp_negative ? -exponent : exponent;
  }
  // value * 1000 = mantissa * 2^pow2 * 10^(pow10 + 3 - fraction_digits)
  Amount value = mantissa;
  for (int k = 0; k < pow2; ++k) {
    value *= 2;
    if (value > kLimit) return std::nullopt;
  }
  int exponent = pow10 + 3 - fraction_digits;
  for (; exponent > 0; --exponent) {
    value *= 10;
    if (value > kLimit) return std::nullopt;
  }
  if (exponent < 0) {
    Amount divisor = 1;
    bool tiny = false;
    for (; exponent < 0; ++exponent) {
      divisor *= 10;
      if (divisor > kLimit) {
        tiny = true;
        break;
      }
    }
    if (tiny) {
      value = value > 0 ? 1 : 0;
    } else {
      value = (value + divisor - 1) / divisor;  // round up, as Kubernetes does
    }
  }
  return negative ? -value : value;
}

bool ParseResources(const google::protobuf::Map<std::string, std::string>& in,
                    Resources& out, std::string* error) {
  // Sorted iteration so that the reported error does not depend on map order.
  std::map<std::string, std::string> sorted(in.begin(), in.end());
  for (const auto& [name, text] : sorted) {
    const std::optional<Amount> v = ParseMilli(text);
    if (!v) {
      if (error) *error = absl::StrCat("quantity ", name, "=\"", text, "\"");
      return false;
    }
    out[name] = *v;
  }
  return true;
}

void AddInto(Resources& total, const Resources& more) {
  for (const auto& [name, v] : more) total[name] += v;
}

void MaxInto(Resources& total, const Resources& other) {
  for (const auto& [name, v] : other) {
    auto it = total.find(name);
    if (it == total.end() || it->second < v) total[name] = v;
  }
}

std::string FormatAmount(const std::string& resource, Amount milli) {
  if (resource == "cpu") return ToDecimal(milli) + "m";
  if (milli % 1000 == 0) {
    const Amount units = milli / 1000;
    if (resource == "memory" || resource == "ephemeral-storage") {
      const Amount mi = static_cast<Amount>(1) << 20;
      if (units % mi == 0) return ToDecimal(units / mi) + "Mi";
    }
    return ToDecimal(units);
  }
  return ToDecimal(milli) + "m";
}

std::string FormatResources(const Resources& r) {
  std::string out;
  for (const auto& [name, v] : r) {
    absl::StrAppend(&out, out.empty() ? "" : " ", name, "=",
                    FormatAmount(name, v));
  }
  return out;
}

}  // namespace nodeplan::verify_internal
