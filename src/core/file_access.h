// Where a server's graphs may read and write files. A client that can build a graph could
// otherwise make SaveTensors (or any file op) write or read any path the server process
// can: a server confines them to one directory tree, its file access root.
//
//   // in a kernel's constructor: the root of the device it runs on
//   root_ = FileAccessRootOf(c.resource_mgr());
//   // in Compute, before opening `path`:
//   TW_RETURN_IF_ERROR(CheckFileAccess(path, root_));
//
// Every op that opens a file by a path coming from a graph calls CheckFileAccess on each
// file it opens. A server's worker registers its root for each of its devices (keyed by
// the device's ResourceMgr, which every kernel is built with); in-process sessions
// register none, so their kernels get an empty root: everything is allowed.
#ifndef TENSORWEAVE_SRC_CORE_FILE_ACCESS_H_
#define TENSORWEAVE_SRC_CORE_FILE_ACCESS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tw {

// The canonical absolute form of `dir` (symlinks and `..` resolved), which must be an
// existing directory: what a server keeps as its root. InvalidArgument naming it otherwise.
absl::StatusOr<std::string> CanonicalFileAccessRoot(const std::string& dir);

// OK if `root` is empty or the canonical form of `path` lies inside `root` (itself
// canonical, from CanonicalFileAccessRoot). `..` and symlinks are resolved; for a path that
// does not exist yet, its nearest existing ancestor is (the rest cannot be a symlink).
// PermissionDenied naming the path and the root otherwise.
absl::Status CheckFileAccess(const std::string& path, const std::string& root);

// The root of the device whose resources are `device_resources` (a ResourceMgr*), or ""
// if none was registered. Set while the device lives; `root` empty clears it.
void SetFileAccessRoot(const void* device_resources, const std::string& root);
std::string FileAccessRootOf(const void* device_resources);

}  // namespace tw

#endif  // TENSORWEAVE_SRC_CORE_FILE_ACCESS_H_
