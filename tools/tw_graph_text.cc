#include "tw_graph_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "absl/strings/str_cat.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/unknown_field_set.h"

namespace tw::cli {
namespace {

class PythonFloats : public google::protobuf::TextFormat::FastFieldValuePrinter {
 public:
  void PrintFloat(float value, google::protobuf::TextFormat::BaseTextGenerator* out) const override {
    out->PrintString(PythonFloatText(value));
  }
  void PrintDouble(double value, google::protobuf::TextFormat::BaseTextGenerator* out) const override {
    out->PrintString(PythonRepr(value));
  }
};

}  // namespace

std::string PythonRepr(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  std::string sign = std::signbit(value) ? "-" : "";
  // The shortest digits that read back as `value`: "d.ddde+XX".
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), std::fabs(value), std::chars_format::scientific);
  const std::string scientific(buffer, result.ptr);
  const auto e = scientific.find('e');
  std::string digits = scientific.substr(0, e);
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
  const int exponent = std::atoi(scientific.c_str() + e + 1);
  if (value == 0) return sign + "0.0";
  // Python's repr: positional for exponents -4..15, else scientific with 2+ exponent digits.
  if (exponent < -4 || exponent >= 16) {
    std::string mantissa = digits.substr(0, 1);
    if (digits.size() > 1) mantissa += "." + digits.substr(1);
    char exp[16];
    std::snprintf(exp, sizeof(exp), "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    return sign + mantissa + exp;
  }
  if (exponent < 0) return sign + "0." + std::string(-exponent - 1, '0') + digits;
  const size_t integer_digits = exponent + 1;
  if (digits.size() <= integer_digits) return sign + digits + std::string(integer_digits - digits.size(), '0') + ".0";
  return sign + digits.substr(0, integer_digits) + "." + digits.substr(integer_digits);
}

std::string PythonFloatText(float value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  char buffer[64];
  for (int precision = 6;; ++precision) {
    std::snprintf(buffer, sizeof(buffer), "%.*g", precision, static_cast<double>(value));
    if (std::strtof(buffer, nullptr) == value || precision >= 9) break;
  }
  return PythonRepr(std::strtod(buffer, nullptr));
}

std::string TensorFlowText(const google::protobuf::Message& message) {
  google::protobuf::TextFormat::Printer printer;
  printer.SetHideUnknownFields(true);
  printer.SetDefaultFieldValuePrinter(new PythonFloats());  // the printer takes ownership
  std::string text;
  printer.PrintToString(message, &text);
  return text;
}

void CollectUnknownFields(const google::protobuf::Message& message, std::set<std::string>* found) {
  const google::protobuf::Reflection* reflection = message.GetReflection();
  const google::protobuf::UnknownFieldSet& unknown = reflection->GetUnknownFields(message);
  for (int i = 0; i < unknown.field_count(); ++i) {
    found->insert(absl::StrCat(message.GetDescriptor()->name(), " field ", unknown.field(i).number()));
  }
  std::vector<const google::protobuf::FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);
  for (const google::protobuf::FieldDescriptor* field : fields) {
    if (field->cpp_type() != google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (field->is_repeated()) {
      for (int i = 0; i < reflection->FieldSize(message, field); ++i) {
        CollectUnknownFields(reflection->GetRepeatedMessage(message, field, i), found);
      }
    } else {
      CollectUnknownFields(reflection->GetMessage(message, field), found);
    }
  }
}

}  // namespace tw::cli
