// ~/.roo/cli-settings.json: permission settings, the other CLI settings and credentials (store_parsers.h;
// docs/roo-format.md §6; docs/row-contract.md "Permission rows").
#include "core/parsers/store_parsers.h"

#include <string_view>
#include <utility>

#include "core/parsers/store_parsing.h"
#include "core/text_util.h"

namespace roo {

using namespace store_parsing;

namespace {

bool is_scalar(const rapidjson::Value& v) { return !v.IsObject() && !v.IsArray(); }

// docs/row-contract.md "Permission rows": requireApproval, dangerouslySkipPermissions, mode of cli-settings.json.
bool is_cli_permission_key(std::string_view k) {
  return k == "requireApproval" || k == "dangerouslySkipPermissions" || k == "mode";
}

// The other CliSettings keys (docs/roo-format.md §6; apps/cli/src/types/types.ts).
bool is_cli_setting_key(std::string_view k) {
  return k == "provider" || k == "model" || k == "reasoningEffort" || k == "consecutiveMistakeLimit" ||
         k == "onboardingProviderChoice" || k == "oneshot";
}

}  // namespace

ParseStats parse_cli_settings(HashingStream& in, const ParseContext& ctx) {
  ParseStats stats;
  rapidjson::Document doc;
  if (!read_object_document(in, ctx, doc, stats)) return stats;
  const std::string where = file_where(ctx);
  DocRows d(ctx);
  for (const auto& m : std::as_const(doc).GetObject()) {
    const std::string_view key = sv(m.name);
    if (is_cli_permission_key(key))
      d.settings("permission_setting", "permission setting: ", key, m.value, where, kFileMtime);
    else if (is_secret_name(key) && holds_secret(m.value))
      d.emit(d.credential(std::string(key), where));
    else if (is_cli_setting_key(key) || is_scalar(m.value))  // an unknown key only when its value is a scalar
      d.settings("cli_setting", "cli setting: ", key, m.value, where, kFileMtime);
  }
  return stats;
}

}  // namespace roo
