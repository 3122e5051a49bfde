// roo.sqlite: the rows in a SQLite database, for queries across sessions and projects. Times stay UTC (ISO 8601
// text, which sorts in time order). Schema (PRAGMA user_version = kSqliteSchemaVersion), described column by column
// in docs/output-formats.md:
//   rows        one per rows.jsonl line: row_number, the indexed columns, source_id, and row_json (the line itself)
//   sources     one per distinct source file (evidence, partition offset, path, inode, sha256, recovery …)
//   evidence, partitions, run   from report.json
//   tasks, commands, decisions, edits, user_words, settings   views over rows with the kinds' fields as columns
// Everything is written in one transaction, and into the run's work directory: roo.sqlite is moved into OUTDIR only
// when committed, so a killed run never leaves a half database there.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "plugin/formats/output_file.h"

namespace roo {

inline constexpr int kSqliteSchemaVersion = 1;

// The statements that create the schema, in order (tables, then the indexes made after the rows are in, then the
// views).
const std::vector<std::string>& sqlite_schema_tables();
const std::vector<std::string>& sqlite_schema_indexes();
const std::vector<std::string>& sqlite_schema_views();

std::unique_ptr<CountingWriter> make_sqlite_writer(const std::filesystem::path& out_file, const FormatContext& ctx);

}  // namespace roo
