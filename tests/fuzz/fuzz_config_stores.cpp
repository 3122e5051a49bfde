// Every settings, permission, credential and installation store parser (core/parsers/store_parsers.h, parsers.h), the
// value-level state parsers over what the bytes parse to, and the host settings readers (store_assembly.h). The first
// byte picks one of them (modulo their number, in kStores' order, then the two host readers); the rest is the file. One
// parser per input, not all: a file is meant for one of them, and the others only reject it.
#include <array>
#include <iterator>
#include <memory>

#include "core/parsers/store_parsers.h"
#include "core/store_assembly.h"
#include "fuzz_harness.h"

namespace {

using roo::HashingStream;
using roo::ParseContext;

struct Store {
  const char* file_name;
  void (*parse)(HashingStream&, const ParseContext&);
};

const Store kStores[] = {
    {"global-state.json",
     [](HashingStream& in, const ParseContext& ctx) {
       for (const roo::GlobalStateTask& t : roo::parse_global_state_file(in, ctx).task_history) {
         roo::JsonRecord pos;
         pos.index = t.record_index;
         roo::emit_task_row(t.item, ctx, "global_state", false, &pos, {});
       }
     }},
    // A state.vscdb row's value: the same objects handed over as parsed values.
    {"state.vscdb",
     [](HashingStream& in, const ParseContext& ctx) {
       // Built in a buffer made once and emptied per input: a Document of its own takes a 64 KiB first chunk from
       // the heap per input (tests/fuzz/README.md).
       static constexpr size_t kPoolBytes = 64u << 10;
       static const std::unique_ptr<char[]> buffer(new char[kPoolBytes]);
       static rapidjson::MemoryPoolAllocator<> pool(buffer.get(), kPoolBytes);
       pool.Clear();
       rapidjson::Document doc(&pool);
       std::string why;
       if (!roo::read_json_document(in, doc, &why, nullptr)) return;
       roo::parse_global_state(doc, ctx, "/t/state.vscdb ItemTable RooVeterinaryInc.roo-cline");
       roo::parse_workspace_state(doc, ctx, "/t/state.vscdb ItemTable RooVeterinaryInc.roo-cline");
     }},
    {"workspace-state.json", [](HashingStream& in, const ParseContext& ctx) { roo::parse_workspace_state_file(in, ctx); }},
    {"cli-settings.json", [](HashingStream& in, const ParseContext& ctx) { roo::parse_cli_settings(in, ctx); }},
    {"cli-credentials.json", [](HashingStream& in, const ParseContext& ctx) { roo::parse_cli_credentials(in, ctx); }},
    {"secrets.json", [](HashingStream& in, const ParseContext& ctx) { roo::parse_cli_secrets(in, ctx); }},
    {"mcp_settings.json", [](HashingStream& in, const ParseContext& ctx) { roo::parse_mcp_settings(in, ctx); }},
    {"cli-history.json",
     [](HashingStream& in, const ParseContext& ctx) {
       for (const roo::CliHistoryEntry& e : roo::parse_cli_history(in, ctx).entries) roo::emit_cli_history_row(e, ctx);
     }},
    {"extensions.json", [](HashingStream& in, const ParseContext& ctx) { roo::parse_extensions_manifest(in, ctx); }},
};
constexpr size_t kParsers = std::size(kStores);

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const auto harnesses = [] {
    std::array<std::unique_ptr<roo::fuzz::Harness<>>, kParsers> h;
    for (size_t i = 0; i < kParsers; ++i) h[i] = std::make_unique<roo::fuzz::Harness<>>(kStores[i].file_name);
    return h;
  }();
  if (size == 0) return 0;
  const size_t pick = data[0] % (kParsers + 2);
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (pick < kParsers)
    harnesses[pick]->run(data + 1, size - 1, kStores[pick].parse);
  else if (pick == kParsers)  // the host settings reader: JSONC stripping, then the setting
    (void)roo::custom_storage_path(std::string(rest));
  else  // a VS Code workspaceStorage/<id>/workspace.json: the folder URI, percent-decoded (the workspace's identity)
    (void)roo::workspace_json_folder(std::string(rest));
  return 0;
}
