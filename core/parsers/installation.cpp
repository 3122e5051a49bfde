// Which Roo Code extension an editor has installed, and since when: the editor's extensions/extensions.json (one
// entry per installed extension, with metadata.installedTimestamp) and the extension's own folder
// <publisher>.<name>-<version> beside it.
#include "core/parsers/parsers.h"
#include "core/text_util.h"

namespace roo {

namespace {

bool is_roo_extension(std::string_view id) {
  return iequals(id, "rooveterinaryinc.roo-cline") || iequals(id, "rooveterinaryinc.roo-code-nightly");
}

}  // namespace

ParseStats parse_extensions_manifest(HashingStream& in, const ParseContext& ctx) {
  return for_each_object_record(in, ctx, [&](const JsonRecord& rec) {
    const rapidjson::Value& e = rec.doc;
    const rapidjson::Value* identifier = member(e, "identifier");
    auto id = identifier ? get_string(*identifier, "id") : std::nullopt;
    if (!id || !is_roo_extension(*id)) return;  // another extension: not Roo's trace
    auto version = get_string(e, "version");
    Row r = ctx.row("installation", &rec);
    r.role = "system";
    const rapidjson::Value* meta = member(e, "metadata");
    if (auto t = meta ? get_int(*meta, "installedTimestamp") : std::nullopt) {
      r.time_ms = t;
      r.time_source = "extensions_json.installedTimestamp";
    }
    r.text = "installation: " + *id + " " + version.value_or("-") + " (from " + ctx.source->file.path + ")";
    r.set("extension_id", *id).set_opt("version", version).set_opt("relative_location", get_string(e, "relativeLocation"));
    if (const rapidjson::Value* loc = member(e, "location"))
      r.set_opt("install_path", loc->IsString() ? std::optional<std::string>(loc->GetString()) : get_string(*loc, "fsPath"));
    if (meta)
      r.set_opt("install_source", get_string(*meta, "source"))
          .set_opt("target_platform", get_string(*meta, "targetPlatform"))
          .set_opt("pre_release", get_bool(*meta, "isPreReleaseVersion"))
          .set_opt("updated", get_bool(*meta, "updated"));
    ctx.sink->emit(std::move(r));
  });
}

void emit_extension_dir_row(const ParseContext& ctx) {
  const FileMeta& dir = ctx.source->file;
  Row r = ctx.row("installation");
  r.role = "system";
  // The folder is made when the extension is installed: its creation time is the install time as the file system
  // recorded it (the modification time where the file system keeps no creation time).
  if (dir.crtime)
    ParseContext::stamp_file_time(r, dir.crtime, "file.crtime");
  else
    ParseContext::stamp_file_time(r, dir.mtime, "file.mtime");
  const size_t dash = dir.name.rfind('-');
  const std::string id = dash == std::string::npos ? dir.name : dir.name.substr(0, dash);
  const std::string version = dash == std::string::npos ? "" : dir.name.substr(dash + 1);
  r.text = "installation: extension folder " + dir.name;
  r.set("extension_id", id).set("install_path", dir.path);
  if (!version.empty()) r.set("version", version);
  ctx.sink->emit(std::move(r));
}

}  // namespace roo
