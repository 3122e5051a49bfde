// Roo Code's settings, permission and credential stores: see config_stores.h for the files and the rows.
// Wording of every row text follows docs/row-contract.md ("Permission rows", "Sync, relay and origin rows", "Past-use
// rows and secondary sources", "Bad-line rows"); the shapes read are docs/roo-format.md §6 (~/.roo), §7 (global and
// workspace state, MCP) and §8 (provider profiles and other secrets).
#include "core/parsers/config_stores.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstring>
#include <map>
#include <set>
#include <string_view>
#include <utility>

#include "core/text_util.h"

namespace roo {

namespace {

std::string_view sv(const rapidjson::Value& s) { return {s.GetString(), s.GetStringLength()}; }
std::string str(const rapidjson::Value& s) { return std::string(s.GetString(), s.GetStringLength()); }

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool icontains(std::string_view s, std::string_view word) {
  if (word.size() > s.size()) return false;
  for (size_t i = 0; i + word.size() <= s.size(); ++i)
    if (iequals(s.substr(i, word.size()), word)) return true;
  return false;
}

// A JSON value as a row states it: a string unquoted, true/false/null and numbers as JSON writes them (the parse
// keeps numbers exact, json_records.h), an array or object as compact JSON.
std::string plain(const rapidjson::Value& v) {
  if (v.IsString()) return str(v);
  return to_json_text(v);
}

bool is_scalar(const rapidjson::Value& v) { return !v.IsObject() && !v.IsArray(); }

// {"<key>":<value>}: the --native of a row that states one key, never the whole document.
std::string native_pair(std::string_view key, const rapidjson::Value& value) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
  value.Accept(w);
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

// The named members of obj, in this order, as one compact object (absent ones left out).
std::string native_subset(const rapidjson::Value& obj, std::initializer_list<const char*> keys) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  for (const char* k : keys)
    if (const rapidjson::Value* v = member(obj, k)) {
      w.Key(k);
      v->Accept(w);
    }
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

// The file's mtime as epoch ms; none when the file has none (or one no calendar can hold).
std::optional<int64_t> mtime_ms(const ParseContext& ctx) {
  if (!ctx.source || !ctx.source->file.mtime) return std::nullopt;
  return ms_from_fs_time(*ctx.source->file.mtime);
}

std::string file_where(const ParseContext& ctx) {
  return ctx.source && !ctx.source->file.path.empty() ? ctx.source->file.path : ctx.file_name;
}

// --- What is a setting, what is a secret ------------------------------------------------------------------------

// docs/row-contract.md "Permission rows", standing: the global-state permission keys (global-settings.ts:97-118),
// the current mode (:192), and the CLI shim's copies of the VS Code settings roo-cline.allowedCommands /
// roo-cline.deniedCommands (docs/roo-format.md §1.3, §7.1).
bool is_global_permission_key(std::string_view k) {
  static const std::set<std::string_view> keys = {
      "autoApprovalEnabled", "alwaysAllowReadOnly", "alwaysAllowReadOnlyOutsideWorkspace", "alwaysAllowWrite",
      "alwaysAllowWriteOutsideWorkspace", "alwaysAllowWriteProtected", "alwaysAllowMcp", "alwaysAllowModeSwitch",
      "alwaysAllowSubtasks", "alwaysAllowExecute", "alwaysAllowFollowupQuestions", "allowedCommands",
      "deniedCommands", "commandTimeoutAllowlist", "allowedMaxRequests", "allowedMaxCost", "mode",
      "roo-cline.allowedCommands", "roo-cline.deniedCommands"};
  return keys.count(k) > 0;
}

// docs/row-contract.md "Permission rows": requireApproval, dangerouslySkipPermissions, mode of cli-settings.json.
bool is_cli_permission_key(std::string_view k) {
  return k == "requireApproval" || k == "dangerouslySkipPermissions" || k == "mode";
}

// The other CliSettings keys (docs/roo-format.md §6; apps/cli/src/types/types.ts).
bool is_cli_setting_key(std::string_view k) {
  return k == "provider" || k == "model" || k == "reasoningEffort" || k == "consecutiveMistakeLimit" ||
         k == "onboardingProviderChoice" || k == "oneshot";
}

// A key whose value is a credential: SECRET_STATE_KEYS and GLOBAL_SECRET_KEYS (global-settings.ts:252-288;
// docs/roo-format.md §8), rooApiKey (in plain global state, §1.3), the Roo Code Cloud and OpenAI Codex sign-in secrets
// (clerk-auth-credentials[-<url>], openai-codex-oauth-credentials, §8), and any provider field named like a key,
// token or secret (awsSecretKey, awsSessionToken, codeIndexOpenAiKey …).
bool is_secret_name(std::string_view k) {
  static const std::set<std::string_view> exact = {
      "apiKey", "rooApiKey", "token", "password", "secret", "openai-codex-oauth-credentials",
      "roo_cline_config_api_config"};
  if (exact.count(k)) return true;
  if (starts_with(k, "clerk-auth-credentials")) return true;
  return ends_with(k, "Key") || ends_with(k, "Token") || ends_with(k, "Secret") || ends_with(k, "Password") ||
         ends_with(k, "credentials") || ends_with(k, "Credentials");
}

// A credential is present when the value holds something: a non-empty string or a non-empty object. A flag such as
// awsUseApiKey: true names a key but holds none.
bool holds_secret(const rapidjson::Value& v) {
  if (v.IsString()) return v.GetStringLength() > 0;
  if (v.IsObject()) return v.MemberCount() > 0;
  return false;
}

// Header names that carry a credential (for headers kept beside other settings, e.g. a profile's openAiHeaders).
bool is_auth_header(std::string_view name) {
  return iequals(name, "authorization") || iequals(name, "proxy-authorization") || iequals(name, "cookie") ||
         icontains(name, "key") || icontains(name, "token") || icontains(name, "secret");
}

// --- Secrets inside an MCP server's command, args and url ------------------------------------------------------

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

// --- Rows --------------------------------------------------------------------------------------------------------

// Rows of one whole document: role system, the file's mtime, and part_index = position among the document's rows of
// the same kind (a whole-document row has no record_index, so this keeps row ids distinct).
class DocRows {
 public:
  explicit DocRows(const ParseContext& ctx) : ctx_(ctx), mtime_(mtime_ms(ctx)) {}
  const ParseContext& ctx() const { return ctx_; }

  Row make(const char* kind) {
    Row r = ctx_.row(kind);
    r.role = "system";
    if (mtime_) {
      r.time_ms = mtime_;
      r.time_source = "file.mtime";
    }
    r.position.part_index = parts_[kind]++;
    return r;
  }
  void emit(Row&& r) { ctx_.sink->emit(std::move(r)); }

  // "credential present: <key> (from <location>)". Never a value, never native.
  Row credential(const std::string& key, const std::string& location) {
    Row r = make("credential_present");
    r.text = "credential present: " + key + " (from " + location + ")";
    r.set("credential_key", key).set("credential_location", location);
    return r;
  }

  // One row per scalar, or per entry of a list (docs/row-contract.md "Permission rows"). The text is
  // "<prefix><key>=<value> (from <where><suffix>)". native is the key with the value the row states: the scalar, or
  // the one list entry (the whole list on every entry's row would make output quadratic in the list).
  void settings(const char* kind, const char* prefix, std::string_view key, const rapidjson::Value& value,
                const std::string& where, const char* suffix) {
    auto one = [&](const rapidjson::Value& v) {
      Row r = make(kind);
      const std::string shown = plain(v);
      r.text = std::string(prefix) + std::string(key) + "=" + shown + " (from " + where + suffix + ")";
      r.set("setting_key", std::string(key)).set("setting_value", shown).set("setting_source", where);
      if (ctx_.native) r.native = native_pair(key, v);
      emit(std::move(r));
    };
    if (value.IsArray())
      for (const auto& e : value.GetArray()) one(e);
    else
      one(value);
  }

 private:
  const ParseContext& ctx_;
  std::optional<int64_t> mtime_;
  std::map<std::string, int64_t> parts_;
};

constexpr const char* kFileMtime = ", file mtime";
constexpr const char* kCloudCache = ", Roo Code Cloud settings cache, file mtime";

// --- Global state ------------------------------------------------------------------------------------------------

// The Roo Code Cloud settings cache (docs/row-contract.md "Sync, relay and origin rows"; docs/roo-format.md §7.1).
void sync_row(DocRows& d, const std::string& key, const rapidjson::Value* value, const std::string& where) {
  Row r = d.make("sync_setting");
  const std::string shown = value ? plain(*value) : "unset (defaults to true)";
  r.text = "sync setting: " + key + "=" + shown + " (from " + where + kCloudCache + ")";
  r.set("setting_key", key);
  if (value)
    r.set("setting_value", shown);
  else
    r.set("setting_unset", true).set("setting_default", std::string("true"));
  r.set("setting_source", where);
  if (d.ctx().native) {
    const size_t dot = key.rfind('.');
    if (value)
      r.native = native_pair(std::string_view(key).substr(dot + 1), *value);
    else
      r.native = "{}";  // the cache holds no such key: the record is the empty settings object it was read from
  }
  d.emit(std::move(r));
}

void task_sync_row(DocRows& d, const rapidjson::Value& user_settings, const std::string& where) {
  const rapidjson::Value* settings = member(user_settings, "settings");
  const rapidjson::Value* value = settings ? member(*settings, "taskSyncEnabled") : nullptr;
  if (value && value->IsNull()) value = nullptr;
  sync_row(d, "user-settings.settings.taskSyncEnabled", value, where);
}

void org_sync_rows(DocRows& d, const rapidjson::Value& org_settings, const std::string& where) {
  static const std::set<std::string_view> keys = {"recordTaskMessages",       "enableTaskSharing",
                                                  "allowPublicTaskSharing",   "taskShareExpirationDays",
                                                  "allowMembersViewAllTasks", "workspaceTaskVisibility"};
  const rapidjson::Value* cloud = member(org_settings, "cloudSettings");
  if (!cloud || !cloud->IsObject()) return;
  for (const auto& m : cloud->GetObject())  // "when set": present and not null, in document order
    if (keys.count(sv(m.name)) && !m.value.IsNull())
      sync_row(d, "organization-settings.cloudSettings." + str(m.name), &m.value, where);
}

}  // namespace

GlobalStateResult parse_global_state(const rapidjson::Value& state, const ParseContext& ctx, const std::string& where) {
  GlobalStateResult out;
  if (!state.IsObject()) {
    ctx.error("parser: " + ctx.file_name + " is not a JSON object");
    out.stats.errors = 1;
    return out;
  }
  out.read = true;
  DocRows d(ctx);
  // The taskSyncEnabled row is written whenever the settings cache is there (either cache key: its
  // presence means the extension was signed in); without user-settings.settings.taskSyncEnabled it says
  // "unset (defaults to true)". It sits where user-settings is, else just before the organization-settings rows.
  const rapidjson::Value* user_settings = member(state, "user-settings");
  const bool has_user_settings = user_settings && user_settings->IsObject();
  bool unset_written = false;
  for (const auto& m : state.GetObject()) {
    const std::string_view key = sv(m.name);
    if (is_global_permission_key(key)) {
      d.settings("permission_setting", "permission setting: ", key, m.value, where, kFileMtime);
    } else if (key == "user-settings") {
      if (m.value.IsObject()) task_sync_row(d, m.value, where);
    } else if (key == "organization-settings") {
      if (!m.value.IsObject()) continue;
      if (!has_user_settings && !unset_written) {
        sync_row(d, "user-settings.settings.taskSyncEnabled", nullptr, where);
        unset_written = true;
      }
      org_sync_rows(d, m.value, where);
    } else if (key == "taskHistory") {
      // Legacy task list (docs/roo-format.md §5, §7.1): the caller makes the task rows.
      if (!m.value.IsArray()) {
        ctx.error("parser: " + ctx.file_name + " taskHistory is not a JSON array");
        ++out.stats.errors;
        continue;
      }
      ParseStats s = for_each_object_element(m.value, ctx, [&](const rapidjson::Value& e, int64_t index) {
        GlobalStateTask t;
        t.item = history_item_from_json(e);
        t.record_index = index;
        if (ctx.native) t.text = to_json_text(e);
        out.task_history.push_back(std::move(t));
      });
      out.stats.records += s.records;
      out.stats.good_records += s.good_records;
      out.stats.errors += s.errors;
    } else if (is_secret_name(key) && holds_secret(m.value)) {
      d.emit(d.credential(std::string(key), where));
    } else if (key == "openAiHeaders" && m.value.IsObject()) {
      // A provider field, not a secret key, whose headers can carry a key (provider-settings openAiHeaders).
      for (const auto& h : m.value.GetObject())
        if (is_auth_header(sv(h.name)) && holds_secret(h.value))
          d.emit(d.credential("openAiHeaders." + str(h.name), where));
    }
  }
  return out;
}

GlobalStateResult parse_global_state_file(HashingStream& in, const ParseContext& ctx) {
  rapidjson::Document doc;
  GlobalStateResult out;
  if (!read_object_document(in, ctx, doc, out.stats)) return out;
  return parse_global_state(doc, ctx, file_where(ctx));
}

// --- Workspace state: the Roo Code Cloud retry queue ---------------------------------------------------------

ParseStats parse_workspace_state(const rapidjson::Value& state, const ParseContext& ctx, const std::string& where) {
  ParseStats stats;
  if (!state.IsObject()) {
    ctx.error("parser: " + ctx.file_name + " is not a JSON object");
    stats.errors = 1;
    return stats;
  }
  const rapidjson::Value* queue = member(state, "roo.retryQueue");
  if (!queue) return stats;
  if (!queue->IsArray()) {
    ctx.error("parser: " + ctx.file_name + " roo.retryQueue is not a JSON array");
    stats.errors = 1;
    return stats;
  }
  // One row per QueuedRequest {id, url, options, timestamp, retryCount, type, operation?, lastError?}
  // (docs/roo-format.md §7.2; docs/row-contract.md "Sync, relay and origin rows"). options.body (the event, with a
  // task message) and .headers (the bearer token) are read only for its type, the task id and a token's presence.
  return for_each_object_element(*queue, ctx, [&](const rapidjson::Value& req, int64_t index) {
    std::optional<std::string> event_type, task_id;
    const rapidjson::Value* options = member(req, "options");
    if (auto body = options ? get_string(*options, "body") : std::nullopt) {
      rapidjson::Document event;
      if (parse_json(body->data(), body->size(), event, nullptr) && event.IsObject()) {
        event_type = get_string(event, "type");
        if (const rapidjson::Value* props = member(event, "properties")) task_id = get_string(*props, "taskId");
      }
    }
    const auto operation = get_string(req, "operation");
    const rapidjson::Value* type = member(req, "type");
    const rapidjson::Value* retries = member(req, "retryCount");
    const rapidjson::Value* url = member(req, "url");
    const rapidjson::Value* last_error = member(req, "lastError");
    if (last_error && (last_error->IsNull() || (last_error->IsString() && last_error->GetStringLength() == 0)))
      last_error = nullptr;

    Row r = ctx.row("cloud_upload_queued");
    r.role = "system";
    r.position.record_index = index;
    const std::optional<int64_t> ts = get_int(req, "timestamp");
    if (ts) {
      r.time_ms = ts;
      r.time_source = "retry_queue.timestamp";
    }
    const std::string what = event_type ? *event_type : operation ? *operation : "-";
    std::string text = "cloud upload queued: " + what + " task=" + task_id.value_or("-") +
                       " type=" + (type ? plain(*type) : "-") + " retries=" + (retries ? plain(*retries) : "-") +
                       " url=" + (url ? plain(*url) : "-");
    if (last_error) text += " lastError=" + plain(*last_error);
    text += " (Roo Code Cloud retry queue, from " + where + " roo.retryQueue, request timestamp)";
    r.text = std::move(text);
    r.set_opt("request_id", get_string(req, "id"))
        .set_opt("request_type", get_string(req, "type"))
        .set_opt("event_type", event_type)
        .set_opt("operation", operation)
        .set_opt("task_id", task_id)
        .set_opt("retry_count", get_int(req, "retryCount"))
        .set_opt("url", get_string(req, "url"))
        .set_opt("http_method", options ? get_string(*options, "method") : std::nullopt);
    if (last_error) r.set("last_error", plain(*last_error));
    if (ctx.native)  // the request without its options: never the body or the headers
      r.native = native_subset(req, {"id", "url", "timestamp", "retryCount", "type", "operation", "lastError"});
    ctx.sink->emit(std::move(r));

    const rapidjson::Value* headers = options ? member(*options, "headers") : nullptr;
    if (!headers || !headers->IsObject()) return;
    int64_t part = 0;
    for (const auto& h : headers->GetObject()) {
      const std::string_view name = sv(h.name);
      if (!(iequals(name, "authorization") || iequals(name, "proxy-authorization") || iequals(name, "cookie")) ||
          !holds_secret(h.value))
        continue;
      Row c = ctx.row("credential_present");
      c.role = "system";
      c.position.record_index = index;
      c.position.part_index = part++;
      if (ts) {  // the token was queued with the request
        c.time_ms = ts;
        c.time_source = "retry_queue.timestamp";
      }
      const std::string key = "roo.retryQueue[" + std::to_string(index) + "].options.headers." + str(h.name);
      c.text = "credential present: " + key + " (from " + where + ")";
      c.set("credential_key", key).set("credential_location", where).set_opt("task_id", task_id);
      ctx.sink->emit(std::move(c));
    }
  });
}

ParseStats parse_workspace_state_file(HashingStream& in, const ParseContext& ctx) {
  rapidjson::Document doc;
  ParseStats stats;
  if (!read_object_document(in, ctx, doc, stats)) return stats;
  return parse_workspace_state(doc, ctx, file_where(ctx));
}

// --- ~/.roo/cli-settings.json ----------------------------------------------------------------------------------

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

// --- ~/.roo/cli-credentials.json -------------------------------------------------------------------------------

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

// --- ~/.vscode-mock/global-storage/secrets.json ----------------------------------------------------------------

namespace {

// The model id of a provider profile: apiModelId, else the first other *ModelId key (a draft model's id is not the
// profile's model), as Roo's getModelId reads MODEL_ID_KEYS with apiModelId first (docs/roo-format.md §8).
std::optional<std::pair<std::string, std::string>> profile_model(const rapidjson::Value& profile) {
  if (auto id = get_string(profile, "apiModelId")) return std::make_pair(std::string("apiModelId"), *id);
  for (const auto& m : profile.GetObject()) {
    const std::string_view k = sv(m.name);
    if (ends_with(k, "ModelId") && k.find("Draft") == std::string_view::npos && m.value.IsString())
      return std::make_pair(str(m.name), str(m.value));
  }
  return std::nullopt;
}

// roo_cline_config_api_config: {currentApiConfigName, apiConfigs: {<name>: {id, apiProvider, <model id>, …keys}},
// modeApiConfigs, migrations} (docs/roo-format.md §8; ProviderSettingsManager.ts:39-53). One provider_profile row per
// profile, then one credential_present row per key-like field that holds something.
void provider_profiles(DocRows& d, const rapidjson::Value& config, const std::string& path, ParseStats& stats) {
  const ParseContext& ctx = d.ctx();
  const std::string location = path + " roo_cline_config_api_config";
  const auto current = get_string(config, "currentApiConfigName");
  const rapidjson::Value* configs = member(config, "apiConfigs");
  if (!configs) return;
  if (!configs->IsObject()) {
    ctx.error("parser: " + ctx.file_name + " roo_cline_config_api_config apiConfigs is not a JSON object");
    ++stats.errors;
    return;
  }
  for (const auto& p : configs->GetObject()) {
    const std::string name = str(p.name);
    ++stats.records;
    if (!p.value.IsObject()) {
      ctx.error("parser: " + ctx.file_name + " roo_cline_config_api_config apiConfigs." + name +
                " is not a JSON object");
      ++stats.errors;
      continue;
    }
    ++stats.good_records;
    const rapidjson::Value& profile = p.value;
    const auto provider = get_string(profile, "apiProvider");
    const auto model = profile_model(profile);
    Row r = d.make("provider_profile");
    r.text = "provider profile: " + name + " provider=" + provider.value_or("-") +
             " model=" + (model ? model->second : std::string("-")) + " (from " + path + ")";
    r.set("profile_name", name)
        .set_opt("profile_id", get_string(profile, "id"))
        .set_opt("api_provider", provider);
    if (model) r.set("model_id", model->second).set("model_id_key", model->first);
    if (current) r.set("current", *current == name);
    if (ctx.native) {  // id, provider and model only: the profile's other fields hold its keys
      rapidjson::StringBuffer buf;
      rapidjson::Writer<rapidjson::StringBuffer> w(buf);
      w.StartObject();
      for (const char* k : {"id", "apiProvider"})
        if (const rapidjson::Value* v = member(profile, k)) {
          w.Key(k);
          v->Accept(w);
        }
      if (model) {
        w.Key(model->first.c_str(), static_cast<rapidjson::SizeType>(model->first.size()));
        w.String(model->second.c_str(), static_cast<rapidjson::SizeType>(model->second.size()));
      }
      w.EndObject();
      r.native = std::string(buf.GetString(), buf.GetSize());
    }
    d.emit(std::move(r));
    auto credential = [&](const std::string& key) {
      Row c = d.credential(key, location);
      c.set("profile_name", name).set_opt("provider", provider);
      d.emit(std::move(c));
    };
    for (const auto& f : profile.GetObject()) {
      const std::string_view k = sv(f.name);
      if (is_secret_name(k) && holds_secret(f.value)) {
        credential("apiConfigs." + name + "." + str(f.name));
      } else if (ends_with(k, "Headers") && f.value.IsObject()) {  // openAiHeaders: custom request headers
        for (const auto& h : f.value.GetObject())
          if (is_auth_header(sv(h.name)) && holds_secret(h.value))
            credential("apiConfigs." + name + "." + str(f.name) + "." + str(h.name));
      }
    }
  }
}

}  // namespace

ParseStats parse_cli_secrets(HashingStream& in, const ParseContext& ctx) {
  ParseStats stats;
  rapidjson::Document doc;
  if (!read_object_document(in, ctx, doc, stats)) return stats;
  const std::string where = file_where(ctx);
  DocRows d(ctx);
  // Every key of the CLI's SecretStorage file is a secret (vscode-shim SecretStorage.ts, docs/roo-format.md §8).
  for (const auto& m : std::as_const(doc).GetObject()) {
    const std::string_view key = sv(m.name);
    if (key != "roo_cline_config_api_config") {
      if (holds_secret(m.value)) d.emit(d.credential(str(m.name), where));
      continue;
    }
    // The profiles are a JSON string holding JSON (docs/roo-format.md §8). Its text is never echoed, even when bad.
    rapidjson::Document inner;
    const rapidjson::Value* config = nullptr;
    if (m.value.IsString()) {
      if (parse_json(m.value.GetString(), m.value.GetStringLength(), inner, nullptr) && inner.IsObject())
        config = &inner;
    } else if (m.value.IsObject()) {
      config = &m.value;
    }
    if (!config) {
      ctx.error("parser: " + ctx.file_name + " roo_cline_config_api_config is not a JSON object");
      ++stats.errors;
      continue;
    }
    provider_profiles(d, *config, where, stats);
  }
  return stats;
}

// --- MCP settings ------------------------------------------------------------------------------------------------

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

// --- ~/.roo/cli-history.json -------------------------------------------------------------------------------------

namespace {

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Offset of the '[' that opens the top-level object's "entries" array, found by a byte scan that needs no complete
// document (so a file cut mid-write still yields it); npos when there is none. Linear in the text.
size_t find_entries_array(std::string_view t) {
  size_t i = 0;
  if (t.size() >= 3 && t.substr(0, 3) == "\xEF\xBB\xBF") i = 3;
  while (i < t.size() && is_ws(t[i])) ++i;
  if (i >= t.size() || t[i] != '{') return std::string_view::npos;
  int64_t depth = 0;
  while (i < t.size()) {
    const char c = t[i];
    if (c == '"') {
      const size_t start = i + 1;
      size_t j = start;
      while (j < t.size() && t[j] != '"') j += t[j] == '\\' ? 2 : 1;
      if (j >= t.size()) return std::string_view::npos;
      i = j + 1;
      if (depth == 1 && t.substr(start, j - start) == "entries") {
        size_t k = i;
        while (k < t.size() && is_ws(t[k])) ++k;
        if (k < t.size() && t[k] == ':') {
          ++k;
          while (k < t.size() && is_ws(t[k])) ++k;
          if (k < t.size() && t[k] == '[') return k;
        }
      }
      continue;
    }
    if (c == '{' || c == '[')
      ++depth;
    else if ((c == '}' || c == ']') && --depth <= 0)
      return std::string_view::npos;
    ++i;
  }
  return std::string_view::npos;
}

}  // namespace

CliHistory parse_cli_history(HashingStream& in, const ParseContext& ctx) {
  CliHistory out;
  rapidjson::Document doc;
  std::string why, text;
  const bool parsed = read_json_document(in, doc, &why, &text);
  if (!parsed && why == "empty") {
    ctx.error("parser: " + ctx.file_name + " is empty");
    out.stats.errors = 1;
    return out;
  }
  if (parsed && !doc.IsObject()) {
    ctx.error("parser: " + ctx.file_name + " is not a JSON object");
    out.stats.errors = 1;
    return out;
  }
  const size_t start = find_entries_array(text);
  if (start == std::string_view::npos) {
    if (parsed)
      ctx.error("parser: " + ctx.file_name + " has no entries array");
    else
      ctx.error("parser: " + ctx.file_name + " is not a JSON object (" + why + ")");
    out.stats.errors = 1;
    return out;
  }
  // The entries are framed record by record (JsonArrayReader), whether or not the whole document parsed, so the
  // entries before a cut are kept and the cut gets its docs/row-contract.md "Bad-line rows" row (history.ts writes in
  // place, so a killed write leaves a prefix).
  MemoryBytes view(std::string_view(text).substr(start));
  HashingStream sub(view, 64 * 1024);
  JsonArrayReader reader(sub);
  JsonRecord rec;
  bool closed = false;
  for (;;) {
    const JsonArrayReader::Status st = reader.next(rec);
    rec.offset += start;  // positions in the file, not in the array
    if (st == JsonArrayReader::Status::record) {
      ++out.stats.records;
      if (!rec.parse_error.empty()) {
        ++out.stats.errors;
        ctx.error("parser: unparseable record " + std::to_string(rec.index + 1) + " (" + rec.parse_error +
                      "): " + raw_echo(rec.text),
                  &rec);
      } else if (!rec.doc.IsString()) {
        ++out.stats.errors;
        ctx.error("parser: unparseable record " + std::to_string(rec.index + 1) + " (not a string): " +
                      raw_echo(rec.text),
                  &rec);
      } else {
        ++out.stats.good_records;
        CliHistoryEntry e;
        e.record_index = rec.index;
        e.text = str(rec.doc);
        e.byte_offset = rec.offset;
        e.byte_length = rec.length;
        if (ctx.native) e.raw = rec.text;
        out.entries.push_back(std::move(e));
      }
      continue;
    }
    if (st == JsonArrayReader::Status::junk) {
      out.stats.errors += emit_between_records(ctx, rec, st);
      continue;
    }
    if (st == JsonArrayReader::Status::cut_off) {
      ++out.stats.errors;
      Row r = ctx.row("parser_error", &rec);
      r.role = "system";
      r.text = "parser: array cut off after record " + std::to_string(reader.records_seen());
      r.position.record_index = reader.records_seen();  // the record being read when the data ended
      ctx.sink->emit(std::move(r));
      break;
    }
    closed = true;  // end, or trailing: the bytes after the array belong to the enclosing object
    break;
  }
  // The array closed and every entry read, yet the document does not parse (e.g. cut after the array): say so.
  if (!parsed && closed && out.stats.errors == 0) {
    ctx.error("parser: " + ctx.file_name + " is not a JSON object (" + why + ")");
    ++out.stats.errors;
  }
  return out;
}

void emit_cli_history_row(const CliHistoryEntry& entry, const ParseContext& ctx) {
  // docs/row-contract.md "Past-use rows and secondary sources": one user row per entry, with no time, session or
  // project (the file records none).
  Row r = ctx.row("cli_history");
  r.role = "user";
  r.text = entry.text;
  r.position.record_index = entry.record_index;
  r.position.byte_offset = entry.byte_offset;
  r.position.byte_length = entry.byte_length;
  if (ctx.native) r.native = entry.raw;
  ctx.sink->emit(std::move(r));
}

}  // namespace roo
