// LoadManifestFiles: files, standard input and directories.

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <system_error>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "manifest/limits.h"
#include "nodeplan/manifest.h"

namespace nodeplan {
namespace {

namespace fs = std::filesystem;

absl::Status TooLarge(absl::string_view name) {
  return absl::InvalidArgumentError(absl::StrCat(
      name, ": larger than the limit of ", manifest::kMaxInputBytes, " bytes"));
}

absl::StatusOr<std::string> ReadStream(std::istream& in,
                                       absl::string_view name) {
  std::string text;
  char buf[1 << 16];
  while (in) {
    in.read(buf, sizeof(buf));
    text.append(buf, static_cast<size_t>(in.gcount()));
    if (text.size() > manifest::kMaxInputBytes) return TooLarge(name);
  }
  if (in.bad()) {
    return absl::UnavailableError(absl::StrCat(name, ": read failed"));
  }
  return text;
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (!ec && size > manifest::kMaxInputBytes) return TooLarge(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat(path, ": cannot open: ", std::strerror(errno)));
  }
  return ReadStream(in, path);
}

bool IsManifestFile(const fs::path& p) {
  const std::string ext = p.extension().string();
  return ext == ".yaml" || ext == ".yml" || ext == ".json";
}

absl::Status LoadOne(const std::string& name, absl::string_view text,
                     const v1::LoadOptions& options, v1::ManifestSet* out) {
  v1::LoadOptions opts = options;
  opts.set_source_name(name);
  absl::StatusOr<v1::ManifestSet> set = LoadManifests(text, opts);
  if (!set.ok()) return set.status();
  out->MergeFrom(*set);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<v1::ManifestSet> LoadManifestFiles(
    const std::vector<std::string>& paths, const v1::LoadOptions& options) {
  v1::ManifestSet merged;
  for (const std::string& path : paths) {
    if (path == "-") {
      absl::StatusOr<std::string> text = ReadStream(std::cin, "stdin");
      if (!text.ok()) return text.status();
      absl::Status st = LoadOne("stdin", *text, options, &merged);
      if (!st.ok()) return st;
      continue;
    }
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
      std::vector<fs::path> files;
      for (fs::directory_iterator it(path, ec), end; !ec && it != end;
           it.increment(ec)) {
        if (IsManifestFile(it->path()) && !it->is_directory()) {
          files.push_back(it->path());
        }
      }
      if (ec) {
        return absl::NotFoundError(
            absl::StrCat(path, ": cannot list: ", ec.message()));
      }
      std::sort(files.begin(), files.end(),
                [](const fs::path& a, const fs::path& b) {
                  return a.filename().string() < b.filename().string();
                });
      for (const fs::path& file : files) {
        absl::StatusOr<std::string> text = ReadFile(file.string());
        if (!text.ok()) return text.status();
        absl::Status st = LoadOne(file.string(), *text, options, &merged);
        if (!st.ok()) return st;
      }
      continue;
    }
    absl::StatusOr<std::string> text = ReadFile(path);
    if (!text.ok()) return text.status();
    absl::Status st = LoadOne(path, *text, options, &merged);
    if (!st.ok()) return st;
  }
  return merged;
}

}  // namespace nodeplan
