// The global state (the CLI's global-state.json, or the value of a VS Code state.vscdb ItemTable row): permission
// settings, the Roo Code Cloud sync settings, credentials and the legacy taskHistory (store_parsers.h; row wording
// docs/row-contract.md "Permission rows", "Sync, relay and origin rows"; shapes docs/roo-format.md §7.1).
#include "core/parsers/store_parsers.h"

#include <set>
#include <string_view>

#include "core/parsers/store_parsing.h"
#include "core/text_util.h"

namespace roo {

using namespace store_parsing;

namespace {

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

constexpr const char* kCloudCache = ", Roo Code Cloud settings cache, file mtime";

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

}  // namespace roo
