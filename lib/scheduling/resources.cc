#include "scheduling/resources.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/match.h"

namespace nodeplan::scheduling {
namespace {

using i128 = __int128;

// value = mantissa * 10^exp10 * 2^exp2 (mantissa carries the decimals).
struct Parsed {
  i128 mantissa = 0;
  int exp10 = 0;
  int exp2 = 0;
  bool neg = false;
};

absl::StatusOr<Parsed> ParseQuantity(absl::string_view t) {
  Parsed p;
  size_t i = 0;
  auto bad = [&]() {
    return absl::InvalidArgumentError(
        absl::StrCat("quantity \"", t, "\" is not a valid Kubernetes quantity"));
  };
  if (t.empty()) return bad();
  if (t[0] == '+' || t[0] == '-') {
    p.neg = t[0] == '-';
    ++i;
  }
  bool digits = false, dot = false;
  for (; i < t.size(); ++i) {
    char c = t[i];
    if (c >= '0' && c <= '9') {
      digits = true;
      if (p.mantissa > (static_cast<i128>(1) << 100)) return bad();
      p.mantissa = p.mantissa * 10 + (c - '0');
      if (dot) --p.exp10;
    } else if (c == '.' && !dot) {
      dot = true;
    } else {
      break;
    }
  }
  if (!digits) return bad();
  absl::string_view suf = t.substr(i);
  if (suf.empty()) {
  } else if (suf == "Ki") {
    p.exp2 = 10;
  } else if (suf == "Mi") {
    p.exp2 = 20;
  } else if (suf == "Gi") {
    p.exp2 = 30;
  } else if (suf == "Ti") {
    p.exp2 = 40;
  } else if (suf == "Pi") {
    p.exp2 = 50;
  } else if (suf == "Ei") {
    p.exp2 = 60;
  } else if (suf == "n") {
    p.exp10 -= 9;
  } else if (suf == "u") {
    p.exp10 -= 6;
  } else if (suf == "m") {
    p.exp10 -= 3;
  } else if (suf == "k") {
    p.exp10 += 3;
  } else if (suf == "M") {
    p.exp10 += 6;
  } else if (suf == "G") {
    p.exp10 += 9;
  } else if (suf == "T") {
    p.exp10 += 12;
  } else if (suf == "P") {
    p.exp10 += 15;
  } else if (suf == "E") {
    p.exp10 += 18;
  } else if (suf[0] == 'e' || suf[0] == 'E') {
    int e = 0;
    size_t k = 1;
    bool eneg = false;
    if (k < suf.size() && (suf[k] == '-' || suf[k] == '+')) {
      eneg = suf[k] == '-';
      ++k;
    }
    if (k >= suf.size()) return bad();
    for (; k < suf.size(); ++k) {
      if (suf[k] < '0' || suf[k] > '9' || e > 100) return bad();
      e = e * 10 + (suf[k] - '0');
    }
    p.exp10 += eneg ? -e : e;
  } else {
    return bad();
  }
  return p;
}

// ceil(p * 10^shift) as int64.
absl::StatusOr<int64_t> Scaled(const Parsed& p, int shift,
                               absl::string_view text) {
  i128 num = p.mantissa;
  int e10 = p.exp10 + shift;
  i128 den = 1;
  const i128 limit = static_cast<i128>(1) << 120;
  auto overflow = [&]() {
    return absl::InvalidArgumentError(
        absl::StrCat("quantity \"", text, "\" overflows int64"));
  };
  for (int k = 0; k < p.exp2; ++k) {
    num *= 2;
    if (num > limit) return overflow();
  }
  for (; e10 > 0; --e10) {
    num *= 10;
    if (num > limit) return overflow();
  }
  for (; e10 < 0; ++e10) {
    den *= 10;
    if (den > limit) return static_cast<int64_t>(num == 0 ? 0 : (p.neg ? 0 : 1));
  }
  i128 q = num / den;
  if (num % den != 0) ++q;  // round up
  if (q > INT64_MAX) return overflow();
  int64_t r = static_cast<int64_t>(q);
  return p.neg ? -r : r;
}

}  // namespace

absl::StatusOr<int64_t> ParseMilliQuantity(absl::string_view text) {
  auto p = ParseQuantity(text);
  if (!p.ok()) return p.status();
  return Scaled(*p, 3, text);
}

absl::StatusOr<int64_t> ParseValueQuantity(absl::string_view text) {
  auto p = ParseQuantity(text);
  if (!p.ok()) return p.status();
  return Scaled(*p, 0, text);
}

std::string FormatMilliQuantity(int64_t milli) {
  if (milli % 1000 == 0) return absl::StrCat(milli / 1000);
  return absl::StrCat(milli, "m");
}

std::string FormatByteQuantity(int64_t b) {
  if (b == 0) return "0";
  static const char* kSuffix[] = {"Ei", "Pi", "Ti", "Gi", "Mi", "Ki"};
  for (int i = 0; i < 6; ++i) {
    int64_t unit = int64_t{1} << (10 * (6 - i));
    if (b % unit == 0) return absl::StrCat(b / unit, kSuffix[i]);
  }
  return absl::StrCat(b);
}

ResourceDims::ResourceDims() {
  for (const char* n : {"cpu", "memory", "pods", "ephemeral-storage"}) Dim(n);
}

int ResourceDims::Dim(absl::string_view name) {
  auto it = dims_.find(name);
  if (it != dims_.end()) return it->second;
  if (static_cast<int>(names_.size()) >= kMaxDims) return -1;
  int d = static_cast<int>(names_.size());
  names_.emplace_back(name);
  dims_.emplace(std::string(name), d);
  return d;
}

int ResourceDims::Find(absl::string_view name) const {
  auto it = dims_.find(name);
  return it == dims_.end() ? -1 : it->second;
}

absl::StatusOr<int64_t> ResourceDims::Parse(int dim,
                                            absl::string_view text) const {
  return dim == kCpu ? ParseMilliQuantity(text) : ParseValueQuantity(text);
}

std::string ResourceDims::Format(int dim, int64_t value) const {
  if (dim == kCpu) return FormatMilliQuantity(value);
  if (dim == kMemory || dim == kEphemeral ||
      absl::StrContains(names_[dim], "hugepages"))
    return FormatByteQuantity(value);
  return absl::StrCat(value);
}

absl::StatusOr<ResVec> ResourceDims::ParseList(
    const google::protobuf::Map<std::string, std::string>& list,
    const std::string& path, uint32_t* present_mask) {
  ResVec out;
  // Sorted for deterministic dimension assignment.
  std::vector<std::pair<std::string, std::string>> items(list.begin(),
                                                         list.end());
  std::sort(items.begin(), items.end());
  for (const auto& [name, text] : items) {
    int d = Dim(name);
    if (d < 0)
      return absl::InvalidArgumentError(
          absl::StrCat(path, "[", name, "]: more than ", kMaxDims,
                       " distinct resource names are not supported"));
    auto q = Parse(d, text);
    if (!q.ok())
      return absl::InvalidArgumentError(
          absl::StrCat(path, "[", name, "]: ", q.status().message()));
    out[d] += *q;
    if (present_mask) *present_mask |= 1u << d;
  }
  return out;
}

std::string ResourceDims::String(const ResVec& v, uint32_t mask) const {
  std::vector<std::pair<std::string, std::string>> items;
  for (int d = 0; d < size(); ++d)
    if (v[d] != 0 || (mask & (1u << d)))
      items.emplace_back(names_[d], Format(d, v[d]));
  if (items.empty()) return "{}";
  std::sort(items.begin(), items.end());
  std::vector<std::string> parts;
  for (auto& [k, val] : items)
    parts.push_back(absl::StrCat("\"", k, "\":\"", val, "\""));
  return absl::StrCat("{", absl::StrJoin(parts, ","), "}");
}

}  // namespace nodeplan::scheduling
