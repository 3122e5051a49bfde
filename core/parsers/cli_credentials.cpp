// ~/.roo/cli-credentials.json: its token and apiKeys.<provider>, as credential_present rows (store_parsers.h;
// docs/roo-format.md §6).
#include "core/parsers/store_parsers.h"

#include <string_view>
#include <utility>

#include "core/parsers/store_parsing.h"
#include "core/text_util.h"

namespace roo {

using namespace store_parsing;

ParseStats parse_cli_credentials(HashingStream& in, const ParseContext& ctx) {
  ParseStats stats;
  rapidjson::Document doc;
  if (!read_object_document(in, ctx, doc, stats)) return stats;
  const std::string where = file_where(ctx);
  DocRows d(ctx);
  // {token, createdAt (ISO-8601), userId?, orgId?} and, possibly in 3.53+, apiKeys: {<provider>: <key>}
  // (docs/roo-format.md §6, §0). The token row carries the ids (not secrets) and is timed by createdAt when it reads as
  // an ISO-8601 UTC time; the other rows by the file's mtime.
  const auto created = get_string(doc, "createdAt");
  const auto user_id = get_string(doc, "userId");
  const auto org_id = get_string(doc, "orgId");
  const std::optional<int64_t> created_ms = created ? ms_from_iso_utc(*created) : std::nullopt;
  for (const auto& m : std::as_const(doc).GetObject()) {
    const std::string_view key = sv(m.name);
    if (key == "token") {
      if (!holds_secret(m.value)) continue;
      Row r = d.credential("token", where);
      r.set_opt("created_at", created).set_opt("user_id", user_id).set_opt("org_id", org_id);
      if (created_ms) {
        r.time_ms = created_ms;
        r.time_source = "cli_credentials.createdAt";
      }
      d.emit(std::move(r));
    } else if (key == "apiKeys") {
      if (!m.value.IsObject()) continue;
      for (const auto& p : m.value.GetObject())
        if (holds_secret(p.value)) {
          Row r = d.credential("apiKeys." + str(p.name), where);
          r.set("provider", str(p.name));
          d.emit(std::move(r));
        }
    } else if (key != "createdAt" && key != "userId" && key != "orgId" && is_secret_name(key) &&
               holds_secret(m.value)) {
      d.emit(d.credential(std::string(key), where));
    }
  }
  return stats;
}

}  // namespace roo
