// Every settings, permission, credential and installation store parser (core/parsers/config_stores.h, parsers.h),
// the host settings reader (stores.h) over the same bytes, and the
// value-level state parsers over whatever the bytes parse to, with every row serialised (fuzz_harness.h).
#include "core/parsers/config_stores.h"
#include "core/stores.h"
#include "fuzz_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using roo::HashingStream;
  using roo::ParseContext;
  static roo::fuzz::Harness h_global_state("global-state.json");
  h_global_state.run(data, size, [](HashingStream& in, const ParseContext& ctx) {
    for (const roo::GlobalStateTask& t : roo::parse_global_state_file(in, ctx).task_history) {
      roo::JsonRecord pos;
      pos.index = t.record_index;
      roo::emit_task_row(t.item, ctx, "global_state", false, &pos, {});
    }
  });
  static roo::fuzz::Harness h_state("state.vscdb");
  h_state.run(data, size, [](HashingStream& in, const ParseContext& ctx) {
    // A state.vscdb row's value: the same objects handed over as parsed values.
    rapidjson::Document doc;
    std::string why;
    if (!roo::read_json_document(in, doc, &why, nullptr)) return;
    roo::parse_global_state(doc, ctx, "/t/state.vscdb ItemTable RooVeterinaryInc.roo-cline");
    roo::parse_workspace_state(doc, ctx, "/t/state.vscdb ItemTable RooVeterinaryInc.roo-cline");
  });
  static roo::fuzz::Harness h_workspace_state("workspace-state.json");
  h_workspace_state.run(data, size, roo::parse_workspace_state_file);
  static roo::fuzz::Harness h_cli_settings("cli-settings.json");
  h_cli_settings.run(data, size, roo::parse_cli_settings);
  static roo::fuzz::Harness h_cli_credentials("cli-credentials.json");
  h_cli_credentials.run(data, size, roo::parse_cli_credentials);
  static roo::fuzz::Harness h_secrets("secrets.json");
  h_secrets.run(data, size, roo::parse_cli_secrets);
  static roo::fuzz::Harness h_mcp_settings("mcp_settings.json");
  h_mcp_settings.run(data, size, roo::parse_mcp_settings);
  static roo::fuzz::Harness h_cli_history("cli-history.json");
  h_cli_history.run(data, size, [](HashingStream& in, const ParseContext& ctx) {
    for (const roo::CliHistoryEntry& e : roo::parse_cli_history(in, ctx).entries) roo::emit_cli_history_row(e, ctx);
  });
  static roo::fuzz::Harness h_extensions("extensions.json");
  h_extensions.run(data, size, roo::parse_extensions_manifest);
  // The host settings reader: JSONC stripping, then the setting.
  (void)roo::custom_storage_path(std::string(reinterpret_cast<const char*>(data), size));
  // A VS Code workspaceStorage/<id>/workspace.json: the folder URI, percent-decoded (issue 4 workspace identity).
  (void)roo::workspace_json_folder(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}
