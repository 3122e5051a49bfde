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

#include "core/parsers/store_parsing.h"
#include "core/text_util.h"

namespace roo {

using namespace store_parsing;

namespace {

// What a redacted value shows instead of the secret (docs/row-contract.md, "Secrets in an MCP server's command line
// and url"): the same text whatever the secret, so nothing of it, not even its length, is written.
constexpr const char* kRedacted = "<redacted>";

bool iends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && iequals(s.substr(s.size() - suffix.size()), suffix);
}

// A flag, query parameter or NAME=VALUE name whose value is a credential: it ends, in any case, in key, token,
// secret, password, passwd, auth, bearer, credential(s), sig or signature (--api-key, --token, --github-token,
// --client-secret, --auth, ?key=, access_token=, apikey=, sig= of a signed URL, GITHUB_TOKEN=). A one-letter flag
// (-k, -p) never is: what it means differs per program (curl's -k is --insecure).
bool is_secret_param(std::string_view name) {
  while (!name.empty() && name.front() == '-') name.remove_prefix(1);
  for (std::string_view s : {"key", "token", "secret", "password", "passwd", "auth", "bearer", "credential",
                             "credentials", "sig", "signature"})
    if (iends_with(name, s)) return true;
  return false;
}

// Redacts one text after another (a server's command, its args, its url), collecting the names of what it took out
// as "<part>.<name>" (args.--api-key, url.token) for the credential_present rows.
class Redactor {
 public:
  std::vector<std::string> names;

  // A command line or one argument: each word, and the word after a secret flag (--token VALUE, also across two
  // args), and an arg "<auth header>: value" (mcp-remote's --header "Authorization: Bearer …").
  std::string words(std::string_view text, const char* part) {
    part_ = part;
    if (const size_t colon = text.find(':'); colon != std::string_view::npos && colon > 0) {
      const std::string_view name = text.substr(0, colon);
      if (name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") ==
              std::string_view::npos &&
          is_auth_header(name) && !trim(text.substr(colon + 1)).empty()) {
        found(name);
        return std::string(name) + ": " + kRedacted;
      }
    }
    std::string out;
    for (size_t i = 0; i < text.size();) {
      const size_t end = std::min(text.find_first_of(" \t", i), text.size());
      if (end == i) {
        out += text[i++];
        continue;
      }
      out += word(text.substr(i, end - i));
      i = end;
    }
    return out;
  }

  // The JSON array of args with each string redacted; a flag ending one arg takes the next arg as its value.
  std::string args_json(const rapidjson::Value& args) {
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    w.StartArray();
    for (const auto& a : args.GetArray()) {
      if (!a.IsString()) {
        a.Accept(w);
        continue;
      }
      const std::string shown = words(sv(a), "args");
      w.String(shown.c_str(), static_cast<rapidjson::SizeType>(shown.size()));
    }
    w.EndArray();
    pending_.clear();
    return std::string(buf.GetString(), buf.GetSize());
  }

  // A URL (text holding "://"; any other text is returned as it is): the password of its user info, and the value
  // of each secret query or fragment parameter.
  std::string url(std::string_view u, const char* part) {
    part_ = part;
    const size_t scheme = u.find("://");
    if (scheme == std::string_view::npos) return std::string(u);
    std::string out;
    size_t i = 0;
    const size_t host = scheme + 3;
    const std::string_view authority = u.substr(host, std::min(u.find_first_of("/?#", host), u.size()) - host);
    const size_t at = authority.rfind('@');
    if (const size_t colon = authority.substr(0, at).find(':'); at != std::string_view::npos &&
                                                                colon != std::string_view::npos) {
      out.append(u.substr(0, host + colon + 1)).append(kRedacted);
      found("userinfo");
      i = host + at;
    }
    const size_t query = u.find_first_of("?#", i);
    if (query == std::string_view::npos) return out.append(u.substr(i));
    out.append(u.substr(i, query + 1 - i));
    for (size_t p = query + 1; p <= u.size();) {
      const size_t end = std::min(u.find_first_of("&;#", p), u.size());
      const std::string_view pair = u.substr(p, end - p);
      const size_t eq = pair.find('=');
      if (eq != std::string_view::npos && eq + 1 < pair.size() && is_secret_param(pair.substr(0, eq))) {
        found(pair.substr(0, eq));
        out.append(pair.substr(0, eq + 1)).append(kRedacted);
      } else {
        out.append(pair);
      }
      if (end == u.size()) break;
      out += u[end];
      p = end + 1;
    }
    return out;
  }

 private:
  void found(std::string_view name) { names.push_back(std::string(part_) + "." + std::string(name)); }

  std::string word(std::string_view w) {
    if (!pending_.empty()) {  // the value of the secret flag before it, unless it is another flag
      const std::string flag = std::exchange(pending_, {});
      if (w.front() != '-') {
        found(flag);
        return kRedacted;
      }
    }
    const size_t eq = w.find('=');
    if (eq != std::string_view::npos && w.substr(0, eq).find("://") == std::string_view::npos) {
      const std::string_view name = w.substr(0, eq);  // --token=VALUE, API_KEY=VALUE, --url=URL
      if (is_secret_param(name) && eq + 1 < w.size()) {
        found(name);
        return std::string(name) + "=" + kRedacted;
      }
      return std::string(name) + "=" + url(w.substr(eq + 1), part_);
    }
    if (w.front() == '-' && is_secret_param(w)) pending_ = std::string(w);
    return url(w, part_);
  }

  const char* part_ = "";
  std::string pending_;  // a secret flag whose value is the next word
};

}  // namespace

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
