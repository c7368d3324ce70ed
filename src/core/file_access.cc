#include "core/file_access.h"

#include <filesystem>
#include <system_error>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "core/message_text.h"

namespace tw {

namespace fs = std::filesystem;

namespace {

struct Roots {
  absl::Mutex mu;
  absl::flat_hash_map<const void*, std::string> by_device ABSL_GUARDED_BY(mu);
};

Roots& AllRoots() {
  static Roots* roots = new Roots;  // Never destroyed: kernels may ask during exit.
  return *roots;
}

}  // namespace

void SetFileAccessRoot(const void* device_resources, const std::string& root) {
  Roots& roots = AllRoots();
  absl::MutexLock lock(&roots.mu);
  if (root.empty()) {
    roots.by_device.erase(device_resources);
  } else {
    roots.by_device[device_resources] = root;
  }
}

std::string FileAccessRootOf(const void* device_resources) {
  Roots& roots = AllRoots();
  absl::MutexLock lock(&roots.mu);
  auto it = roots.by_device.find(device_resources);
  return it == roots.by_device.end() ? std::string() : it->second;
}

absl::StatusOr<std::string> CanonicalFileAccessRoot(const std::string& dir) {
  std::error_code error;
  fs::path canonical = fs::canonical(dir.empty() ? fs::path(".") : fs::path(dir), error);
  if (error || !fs::is_directory(canonical, error)) {
    return absl::InvalidArgumentError(
        absl::StrCat("file access root '", TruncateForMessage(dir), "' is not an existing directory",
                     error ? absl::StrCat(": ", error.message()) : ""));
  }
  return canonical.string();
}

absl::Status CheckFileAccess(const std::string& path, const std::string& root) {
  if (root.empty()) return absl::OkStatus();
  auto denied = [&](const std::string& why) {
    return absl::PermissionDeniedError(absl::StrCat("file '", TruncateForMessage(path), "' ", why,
                                                    " this server's file access root '", root,
                                                    "' (tw server --file_access_root)"));
  };
  if (path.empty() || path.find('\0') != std::string::npos) return denied("is not a path inside");
  // Relative paths are relative to the server's working directory, as open() reads them.
  std::error_code error;
  fs::path absolute = fs::absolute(fs::path(path), error);
  if (error) return denied("cannot be resolved against");
  // Resolves the existing leading part (symlinks, `..`), then the rest lexically.
  fs::path canonical = fs::weakly_canonical(absolute, error);
  if (error) return denied("cannot be resolved against");
  canonical = canonical.lexically_normal();
  const fs::path base(root);
  // Inside: root's components are a prefix of the path's ("/rootx" is not inside "/root").
  auto p = canonical.begin();
  for (auto r = base.begin(); r != base.end(); ++r, ++p) {
    if (r->empty()) continue;  // A trailing separator of the root.
    if (p == canonical.end() || *p != *r) {
      return denied(absl::StrCat("(resolved to '", TruncateForMessage(canonical.string()), "') is outside"));
    }
  }
  return absl::OkStatus();
}

}  // namespace tw
