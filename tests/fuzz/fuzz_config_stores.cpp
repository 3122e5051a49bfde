// Every settings, permission, credential and installation store parser (core/parsers/config_stores.h, parsers.h),
// the host settings reader (stores.h) over the same bytes, and the
// value-level state parsers over whatever the bytes parse to, with every row serialised (fuzz_harness.h).
#include "core/parsers/config_stores.h"
#include "core/stores.h"
#include "fuzz_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using roo::HashingStream;
  using roo::ParseContext;
  roo::fuzz::run(data, size, "global-state.json", [](HashingStream& in, const ParseContext& ctx) {
    for (const roo::GlobalStateTask& t : roo::parse_global_state_file(in, ctx).task_history) {
      roo::JsonRecord pos;
      pos.index = t.record_index;
      roo::emit_task_row(t.item, ctx, "global_state", false, &pos, {});
    }
  });
  roo::fuzz::run(data, size, "state.vscdb", [](HashingStream& in, const ParseContext& ctx) {
    // A state.vscdb row's value: the same objects handed over as parsed values.
    rapidjson::Document doc;
    std::string why;
    if (!roo::read_json_document(in, doc, &why, nullptr)) return;
    roo::parse_global_state(doc, ctx, "/t/state.vscdb ItemTable RooVeterinaryInc.roo-cline");
    roo::parse_workspace_state(doc, ctx, "/t/state.vscdb ItemTable RooVeterinaryInc.roo-cline");
  });
  roo::fuzz::run(data, size, "workspace-state.json", roo::parse_workspace_state_file);
  roo::fuzz::run(data, size, "cli-settings.json", roo::parse_cli_settings);
  roo::fuzz::run(data, size, "cli-credentials.json", roo::parse_cli_credentials);
  roo::fuzz::run(data, size, "secrets.json", roo::parse_cli_secrets);
  roo::fuzz::run(data, size, "mcp_settings.json", roo::parse_mcp_settings);
  roo::fuzz::run(data, size, "cli-history.json", [](HashingStream& in, const ParseContext& ctx) {
    for (const roo::CliHistoryEntry& e : roo::parse_cli_history(in, ctx).entries) roo::emit_cli_history_row(e, ctx);
  });
  roo::fuzz::run(data, size, "extensions.json", roo::parse_extensions_manifest);
  // The host settings reader: JSONC stripping, then the setting.
  (void)roo::custom_storage_path(std::string(reinterpret_cast<const char*>(data), size));
  // A VS Code workspaceStorage/<id>/workspace.json: the folder URI, percent-decoded (issue 4 workspace identity).
  (void)roo::workspace_json_folder(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}
