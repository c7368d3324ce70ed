#include "testing/test_certificates.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "tensorweave/status.h"
#include "testing/command_util.h"

namespace tw::testing {
namespace {

constexpr char kNewKey[] = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";

absl::Status Run(const std::string& command) {
  CommandResult result = RunCommand(command);
  if (result.exit_code != 0) {
    return absl::InternalError(absl::StrCat("`", command, "` failed (", result.exit_code, "): ", result.output));
  }
  return absl::OkStatus();
}

absl::Status MakeCa(const std::string& dir, const std::string& name) {
  return Run(absl::StrCat("cd ", dir, " && openssl req -x509 ", kNewKey, " -keyout ", name, ".key -out ", name,
                          ".pem -days 2 -subj /CN=tensorweave-test-", name));
}

// A leaf certificate `name` for `subject`, with `extensions` (an openssl extfile line), signed by `ca`.
absl::Status MakeLeaf(const std::string& dir, const std::string& name, const std::string& ca,
                      const std::string& extensions) {
  {
    std::ofstream ext(dir + "/" + name + ".ext");
    ext << "basicConstraints=CA:FALSE\n" << extensions << "\n";
  }
  TW_RETURN_IF_ERROR(Run(absl::StrCat("cd ", dir, " && openssl req ", kNewKey, " -keyout ", name, ".key -out ", name,
                                      ".csr -subj /CN=", name)));
  return Run(absl::StrCat("cd ", dir, " && openssl x509 -req -in ", name, ".csr -CA ", ca, ".pem -CAkey ", ca,
                          ".key -CAcreateserial -days 2 -out ", name, ".pem -extfile ", name, ".ext 2>&1"));
}

}  // namespace

absl::StatusOr<std::unique_ptr<TestCertificates>> TestCertificates::Create() {
  std::string pattern = (std::filesystem::temp_directory_path() / "tw_tls_XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) return absl::InternalError("mkdtemp failed");
  std::unique_ptr<TestCertificates> certs(new TestCertificates);
  certs->dir_ = pattern;
  const std::string& dir = certs->dir_;
  TW_RETURN_IF_ERROR(MakeCa(dir, "ca"));
  TW_RETURN_IF_ERROR(MakeLeaf(dir, "server", "ca", "subjectAltName=DNS:localhost,IP:127.0.0.1"));
  TW_RETURN_IF_ERROR(MakeLeaf(dir, "client", "ca", "subjectAltName=DNS:tensorweave-client"));
  TW_RETURN_IF_ERROR(MakeCa(dir, "other_ca"));
  TW_RETURN_IF_ERROR(MakeLeaf(dir, "other_client", "other_ca", "subjectAltName=DNS:tensorweave-client"));
  TW_RETURN_IF_ERROR(Run(absl::StrCat("openssl rand -hex 32 > ", dir, "/token")));
  TW_RETURN_IF_ERROR(Run(absl::StrCat("openssl rand -hex 32 > ", dir, "/wrong_token")));
  return certs;
}

TestCertificates::~TestCertificates() {
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

}  // namespace tw::testing
