// What the store parsers share (store_parsing.h).
#include "core/parsers/store_parsing.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <set>

#include "core/text_util.h"

namespace roo::store_parsing {

namespace {

bool icontains(std::string_view s, std::string_view word) {
  if (word.size() > s.size()) return false;
  for (size_t i = 0; i + word.size() <= s.size(); ++i)
    if (iequals(s.substr(i, word.size()), word)) return true;
  return false;
}

}  // namespace

std::string plain(const rapidjson::Value& v) {
  if (v.IsString()) return str(v);
  return to_json_text(v);
}

std::string native_pair(std::string_view key, const rapidjson::Value& value) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
  value.Accept(w);
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

std::optional<int64_t> mtime_ms(const ParseContext& ctx) {
  if (!ctx.source || !ctx.source->file.mtime) return std::nullopt;
  return ms_from_fs_time(*ctx.source->file.mtime);
}

std::string file_where(const ParseContext& ctx) {
  return ctx.source && !ctx.source->file.path.empty() ? ctx.source->file.path : ctx.file_name;
}

bool is_secret_name(std::string_view k) {
  static const std::set<std::string_view> exact = {
      "apiKey", "rooApiKey", "token", "password", "secret", "openai-codex-oauth-credentials",
      "roo_cline_config_api_config"};
  if (exact.count(k)) return true;
  if (starts_with(k, "clerk-auth-credentials")) return true;
  return ends_with(k, "Key") || ends_with(k, "Token") || ends_with(k, "Secret") || ends_with(k, "Password") ||
         ends_with(k, "credentials") || ends_with(k, "Credentials");
}

bool holds_secret(const rapidjson::Value& v) {
  if (v.IsString()) return v.GetStringLength() > 0;
  if (v.IsObject()) return v.MemberCount() > 0;
  return false;
}

bool is_auth_header(std::string_view name) {
  return iequals(name, "authorization") || iequals(name, "proxy-authorization") || iequals(name, "cookie") ||
         icontains(name, "key") || icontains(name, "token") || icontains(name, "secret");
}

}  // namespace roo::store_parsing
