// MCP settings (settings/mcp_settings.json, the legacy cline_mcp_settings.json, a project's .roo/mcp.json): one
// row per server, its alwaysAllow tools, and the secrets of its command line, url, env and headers, redacted
// (store_parsers.h; docs/roo-format.md §7.3; docs/row-contract.md "Permission rows", "Secrets in an MCP server's
// command line and url").
#include "core/parsers/store_parsers.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <string_view>
#include <utility>

#include "core/parsers/redaction.h"
#include "core/parsers/store_parsing.h"
#include "core/text_util.h"

namespace roo {

using namespace store_parsing;

ParseStats parse_mcp_settings(HashingStream& in, const ParseContext& ctx) {
  ParseStats stats;
  rapidjson::Document doc;
  // Roo reads these with JSON.parse (McpHub.ts), so a hand edit with comments is not JSON here either.
  if (!read_object_document(in, ctx, doc, stats)) return stats;
  const std::string where = file_where(ctx);
  const rapidjson::Value* servers = member(doc, "mcpServers");
  if (!servers) return stats;
  if (!servers->IsObject()) {
    ctx.error("parser: " + ctx.file_name + " mcpServers is not a JSON object");
    stats.errors = 1;
    return stats;
  }
  DocRows d(ctx);
  // {"mcpServers": {"<name>": ServerConfig}} (docs/roo-format.md §7.3; McpHub.ts:67-138). Per server: its inventory
  // row, then its mcpServers.<name>.alwaysAllow=<tool> rows, then a credential_present row per secret redacted
  // from its command, args and url, and per env var and header name (their values are never read out).
  for (const auto& s : servers->GetObject()) {
    const std::string name = str(s.name);
    ++stats.records;
    if (!s.value.IsObject()) {
      ctx.error("parser: " + ctx.file_name + " mcpServers." + name + " is not a JSON object");
      ++stats.errors;
      continue;
    }
    ++stats.good_records;
    const rapidjson::Value& cfg = s.value;
    // Secrets in the command line and the url are shown as <redacted> and named by credential rows, as env and
    // headers are (docs/row-contract.md).
    Redactor red;
    std::optional<std::string> command = get_string(cfg, "command"), url = get_string(cfg, "url"), args;
    if (command) command = red.words(*command, "command");
    if (const rapidjson::Value* a = member(cfg, "args"); a && a->IsArray()) args = red.args_json(*a);
    if (url) url = red.url(*url, "url");
    Row r = d.make("mcp_server");
    r.text = "mcp server: " + name + " " + (command ? *command : url ? *url : std::string("-"));
    r.set("mcp_server", name).set_opt("command", command);
    if (args) r.set("args", RawJson{*args});
    r.set_opt("url", url).set_opt("server_type", get_string(cfg, "type")).set_opt("disabled", get_bool(cfg, "disabled"));
    if (ctx.native) {  // the entry without env and headers, its command, args and url redacted
      rapidjson::StringBuffer buf;
      rapidjson::Writer<rapidjson::StringBuffer> w(buf);
      w.StartObject();
      for (const auto& f : cfg.GetObject()) {
        const std::string_view key = sv(f.name);
        if (key == "env" || key == "headers") continue;
        w.Key(f.name.GetString(), f.name.GetStringLength());
        Redactor again;  // each member redacted as itself (a key may repeat); the names are counted above
        if (key == "args" && f.value.IsArray()) {
          const std::string a = again.args_json(f.value);
          w.RawValue(a.c_str(), a.size(), rapidjson::kArrayType);
        } else if ((key == "command" || key == "url") && f.value.IsString()) {
          const std::string t = key == "url" ? again.url(sv(f.value), "url") : again.words(sv(f.value), "command");
          w.String(t.c_str(), static_cast<rapidjson::SizeType>(t.size()));
        } else {
          f.value.Accept(w);
        }
      }
      w.EndObject();
      r.native = std::string(buf.GetString(), buf.GetSize());
    }
    d.emit(std::move(r));

    if (const rapidjson::Value* allow = member(cfg, "alwaysAllow"); allow && allow->IsArray()) {
      const std::string key = "mcpServers." + name + ".alwaysAllow";
      for (const auto& tool : allow->GetArray()) {
        Row a = d.make("mcp_always_allow");
        const std::string shown = plain(tool);
        a.text = "permission setting: " + key + "=" + shown + " (from " + where + kFileMtime + ")";
        a.set("setting_key", key).set("setting_value", shown).set("setting_source", where).set("mcp_server", name);
        if (tool.IsString()) a.set("mcp_tool", shown);
        if (ctx.native) a.native = native_pair("alwaysAllow", tool);
        d.emit(std::move(a));
      }
    }
    for (const std::string& key : red.names) {
      Row c = d.credential("mcpServers." + name + "." + key, where);
      c.set("mcp_server", name);
      d.emit(std::move(c));
    }
    for (const char* group : {"env", "headers"}) {
      const rapidjson::Value* vars = member(cfg, group);
      if (!vars || !vars->IsObject()) continue;
      for (const auto& v : vars->GetObject()) {
        if (!holds_secret(v.value)) continue;
        Row c = d.credential("mcpServers." + name + "." + group + "." + str(v.name), where);
        c.set("mcp_server", name);
        d.emit(std::move(c));
      }
    }
  }
  return stats;
}

}  // namespace roo
