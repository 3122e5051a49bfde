// What the store parsers (one file per store kind in core/parsers, declared in store_parsers.h) share: a JSON value
// as a row states it, which keys and values are credentials, and the rows of one whole document (DocRows). The rules
// for the rows are store_parsers.h's.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/parsers/parsers.h"

namespace roo::store_parsing {

inline std::string_view sv(const rapidjson::Value& s) { return {s.GetString(), s.GetStringLength()}; }
inline std::string str(const rapidjson::Value& s) { return std::string(s.GetString(), s.GetStringLength()); }

inline bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// A JSON value as a row states it: a string unquoted, true/false/null and numbers as JSON writes them (the parse
// keeps numbers exact, json_records.h), an array or object as compact JSON.
std::string plain(const rapidjson::Value& v);

// {"<key>":<value>}: the --native of a row that states one key, never the whole document.
std::string native_pair(std::string_view key, const rapidjson::Value& value);

// The file's mtime as epoch ms; none when the file has none (or one no calendar can hold).
std::optional<int64_t> mtime_ms(const ParseContext& ctx);

// The source file's path, else its name: where a row says its setting is from.
std::string file_where(const ParseContext& ctx);

// A key whose value is a credential: SECRET_STATE_KEYS and GLOBAL_SECRET_KEYS (global-settings.ts:252-288;
// docs/roo-format.md §8), rooApiKey (in plain global state, §1.3), the Roo Code Cloud and OpenAI Codex sign-in secrets
// (clerk-auth-credentials[-<url>], openai-codex-oauth-credentials, §8), and any provider field named like a key,
// token or secret (awsSecretKey, awsSessionToken, codeIndexOpenAiKey …).
bool is_secret_name(std::string_view k);

// A credential is present when the value holds something: a non-empty string or a non-empty object. A flag such as
// awsUseApiKey: true names a key but holds none.
bool holds_secret(const rapidjson::Value& v);

// Header names that carry a credential (for headers kept beside other settings, e.g. a profile's openAiHeaders).
bool is_auth_header(std::string_view name);

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

inline constexpr const char* kFileMtime = ", file mtime";

}  // namespace roo::store_parsing
