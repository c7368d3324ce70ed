#include "graph/device_name.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "tensorweave/status.h"

namespace tw {
namespace {

// Decimal digits only: SimpleAtoi alone would also take "+1" and " 1".
bool ParseIndex(absl::string_view s, int* out) {
  if (s.empty()) return false;
  for (char c : s)
    if (!absl::ascii_isdigit(c)) return false;
  return absl::SimpleAtoi(s, out);
}

bool IsValidJobName(absl::string_view s) {
  if (s.empty() || !absl::ascii_isalpha(s[0])) return false;
  for (char c : s)
    if (!absl::ascii_isalnum(c) && c != '_' && c != '-') return false;
  return true;
}

bool IsDeviceType(absl::string_view s) {
  std::string upper = absl::AsciiStrToUpper(s);
  return upper == "CPU" || upper == "GPU";
}

}  // namespace

absl::StatusOr<DeviceName> DeviceName::Parse(absl::string_view name) {
  DeviceName d;
  if (name.empty()) return d;
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("malformed device name '", name, "': ", why));
  };
  if (name[0] != '/') return bad("must start with '/'");
  std::vector<absl::string_view> parts = absl::StrSplit(name.substr(1), '/');
  for (absl::string_view part : parts) {
    std::vector<absl::string_view> kv = absl::StrSplit(part, ':');
    if (kv.size() == 2 && kv[0] == "job") {
      if (!IsValidJobName(kv[1])) return bad(absl::StrCat("bad job name '", kv[1], "'"));
      d.has_job = true;
      d.job = std::string(kv[1]);
    } else if (kv.size() == 2 && kv[0] == "replica") {
      if (!ParseIndex(kv[1], &d.replica)) return bad(absl::StrCat("bad replica '", kv[1], "'"));
      d.has_replica = true;
    } else if (kv.size() == 2 && kv[0] == "task") {
      if (!ParseIndex(kv[1], &d.task)) return bad(absl::StrCat("bad task '", kv[1], "'"));
      d.has_task = true;
    } else if (kv.size() == 3 && kv[0] == "device" && IsDeviceType(kv[1])) {
      d.has_type = true;
      d.type = absl::AsciiStrToUpper(kv[1]);
      if (kv[2] != "*") {
        if (!ParseIndex(kv[2], &d.id)) return bad(absl::StrCat("bad device index '", kv[2], "'"));
        d.has_id = true;
      }
    } else if (kv.size() == 2 && kv[0] == "device" && IsDeviceType(kv[1])) {
      d.has_type = true;  // "/device:GPU" with any index.
      d.type = absl::AsciiStrToUpper(kv[1]);
    } else if (kv.size() == 2 && IsDeviceType(kv[0])) {  // Legacy "/cpu:0", "/gpu:1".
      d.has_type = true;
      d.type = absl::AsciiStrToUpper(kv[0]);
      if (kv[1] != "*") {
        if (!ParseIndex(kv[1], &d.id)) return bad(absl::StrCat("bad device index '", kv[1], "'"));
        d.has_id = true;
      }
    } else {
      return bad(absl::StrCat("unknown part '", part,
                              "' (expected job:NAME, replica:N, task:N, device:TYPE:N or cpu:N/gpu:N)"));
    }
  }
  return d;
}

std::string DeviceName::ToString() const {
  std::string s;
  if (has_job) absl::StrAppend(&s, "/job:", job);
  if (has_replica) absl::StrAppend(&s, "/replica:", replica);
  if (has_task) absl::StrAppend(&s, "/task:", task);
  if (has_type) absl::StrAppend(&s, "/device:", type, ":", has_id ? absl::StrCat(id) : "*");
  return s;
}

bool DeviceName::IsCompatibleWith(const DeviceName& o) const {
  if (has_job && o.has_job && job != o.job) return false;
  if (has_replica && o.has_replica && replica != o.replica) return false;
  if (has_task && o.has_task && task != o.task) return false;
  if (has_type && o.has_type && type != o.type) return false;
  if (has_id && o.has_id && id != o.id) return false;
  return true;
}

void DeviceName::MergeFrom(const DeviceName& inner) {
  if (inner.has_job) {
    has_job = true;
    job = inner.job;
  }
  if (inner.has_replica) {
    has_replica = true;
    replica = inner.replica;
  }
  if (inner.has_task) {
    has_task = true;
    task = inner.task;
  }
  if (inner.has_type) {
    // A new device type with no index means "any device of that type".
    if (!has_type || type != inner.type) has_id = false;
    has_type = true;
    type = inner.type;
  }
  if (inner.has_id) {
    has_id = true;
    id = inner.id;
  }
}

absl::StatusOr<std::string> MergeDeviceNames(absl::string_view outer, absl::string_view inner) {
  TW_ASSIGN_OR_RETURN(DeviceName o, DeviceName::Parse(outer));
  TW_ASSIGN_OR_RETURN(DeviceName i, DeviceName::Parse(inner));
  o.MergeFrom(i);
  return o.ToString();
}

absl::StatusOr<std::string> CanonicalDeviceName(absl::string_view name) {
  TW_ASSIGN_OR_RETURN(DeviceName d, DeviceName::Parse(name));
  return d.ToString();
}

}  // namespace tw
