// ~/.vscode-mock/global-storage/secrets.json: every secret's name, and the provider profiles inside
// roo_cline_config_api_config (store_parsers.h; docs/roo-format.md §8).
#include "core/parsers/store_parsers.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string_view>
#include <utility>

#include "core/parsers/store_parsing.h"
#include "core/text_util.h"

namespace roo {

using namespace store_parsing;

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

}  // namespace roo
