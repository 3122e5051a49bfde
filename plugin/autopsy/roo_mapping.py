# -*- coding: utf-8 -*-
"""Row -> Autopsy artifact mapping for the roo-ingest Autopsy module.

Pure Python: no Java, no Autopsy. It runs unchanged under Jython 2.7 (inside Autopsy) and CPython 3 (the tests), so
everything that decides *what* goes on the blackboard lives here and is tested on real rows.jsonl files; the Jython
module (roo_ingest_module.py) only calls the Autopsy API with the specs this module returns.

A spec (row_to_spec) is a dict:
  artifact_type          custom artifact type name (ROO_...), one of ARTIFACT_TYPES
  artifact_display_name  its display name
  attributes             [(attribute type name, value type, value)]: value type is "STRING", "LONG" or "DOUBLE"
                         (names of BlackboardAttribute.TSK_BLACKBOARD_ATTRIBUTE_VALUE_TYPE); every name has one value
                         type for all rows (ATTRIBUTE_TYPES, attribute_value_type, attribute_display_name)
  file_key               where the row came from: partition_offset, pool_volume_block (an APFS volume's), inode,
                         meta_seq, attr_type, attr_id, path, parent_path, name, reallocated (see file_lookups /
                         choose_file)
  timeline               {"time": epoch seconds, "description": text} for a row with time_utc, else None
  row_id                 the row's stable id

Design choices (see docs/autopsy.md):
  - Times on the custom artifacts are STRING attributes (ISO 8601 UTC with milliseconds), never DATETIME: a custom
    artifact with a DATETIME attribute makes Autopsy add a generic "Custom Artifact Event" on its own, which would
    put every row in the Timeline twice. The Timeline gets exactly one TSK_TL_EVENT per timed row instead, with the
    readable description made here.
  - Booleans, arrays and objects are STRING attributes holding their JSON text ("true", "[...]", "{...}").
  - Kinds this version does not know map to ROO_OTHER; fields it does not know become STRING attributes named
    ROO_<FIELD>. Nothing in a row is dropped except the constant `schema` and `agent`.
"""
from __future__ import absolute_import, division, print_function, unicode_literals

import json
import os
from collections import OrderedDict

try:  # Python 2 / Jython: JSON text comes back as unicode, big numbers as long
    STRING_TYPES = (str, unicode)  # noqa: F821
    INTEGER_TYPES = (int, long)  # noqa: F821
except NameError:  # Python 3
    STRING_TYPES = (str,)
    INTEGER_TYPES = (int,)

SCHEMA = "roo-ingest/row/1"
MODULE_NAME = "Roo Code (roo-ingest)"
ATTRIBUTE_PREFIX = "ROO_"

STRING = "STRING"
LONG = "LONG"
DOUBLE = "DOUBLE"
VALUE_TYPES = (STRING, LONG, DOUBLE)

# The TimelineEventType the TSK_TL_EVENT artifacts name (id 23), newest name first: Sleuth Kit 4.11.1, which Autopsy
# 4.19.2 and later ship, renamed OTHER to STANDARD_ARTIFACT_CATCH_ALL (docs/autopsy.md, step 7).
TIMELINE_EVENT_TYPE_NAMES = ("STANDARD_ARTIFACT_CATCH_ALL", "OTHER")
# Rows are added in batches of this many, each batch in one case-database transaction and then posted (a batch
# holds up to twice as many artifacts: each row's and its timeline event).
POST_BATCH_SIZE = 500
# Longest description put on a timeline event (the full text stays in the artifact's ROO_TEXT attribute).
DESCRIPTION_MAX = 240

# ---------------------------------------------------------------------------------------------------------------
# Artifact types: (type name, display name, row kinds). Display names hold no apostrophe: Autopsy's
# getOrAddArtifactType writes them into SQL unescaped.
ARTIFACT_TYPES = [
    ("ROO_TASK", "Roo Code Tasks", ["task"]),
    ("ROO_MESSAGE", "Roo Code Messages",
     ["user_message", "assistant_message", "reasoning", "cli_history", "followup_question"]),
    ("ROO_COMMAND", "Roo Code Commands", ["command", "command_output"]),
    ("ROO_FILE_EDIT", "Roo Code File Edits", ["file_edit", "user_edit"]),
    ("ROO_FILE_ACCESS", "Roo Code File Reads and Context", ["file_read", "file_context"]),
    ("ROO_TOOL", "Roo Code Tool Calls and Results",
     ["tool_call", "tool_result", "mcp_request", "mcp_response", "codebase_search_result", "ui_tool", "ui_image",
      "browser_action", "browser_result"]),
    ("ROO_PERMISSION", "Roo Code Approvals and Permissions",
     ["approval_request", "permission_decision", "permission_mode", "permission_setting", "mcp_always_allow"]),
    ("ROO_API_REQUEST", "Roo Code API Requests", ["api_request", "api_retry"]),
    ("ROO_CONTEXT", "Roo Code Context and Environment",
     ["environment", "condense", "condense_summary", "context_truncation", "retry_prompt", "task_resumption"]),
    ("ROO_TASK_EVENT", "Roo Code Task Events",
     ["subtask_link", "subtask_result", "checkpoint", "task_resumed", "identity_conflict", "task_id_time_mismatch",
      "history_disagreement", "ui_event", "ui_error", "ui_warning", "completion_prompt", "todo_edit"]),
    ("ROO_SETTING", "Roo Code Settings",
     ["sync_setting", "cli_setting", "host_setting", "provider_profile", "roo_config_entry", "worktree"]),
    ("ROO_CREDENTIAL", "Roo Code Credentials Present (values not recorded)", ["credential_present"]),
    ("ROO_CLOUD_UPLOAD", "Roo Code Cloud Upload Queue", ["cloud_upload_queued"]),
    ("ROO_MCP_SERVER", "Roo Code MCP Servers", ["mcp_server"]),
    ("ROO_INSTALLATION", "Roo Code Installations", ["installation", "install_identity"]),
    ("ROO_RECOVERED", "Roo Code Recovered Traces", ["ephemeral_dir", "temp_leftover", "carved_record"]),
    ("ROO_CLI_DEBUG_LOG", "Roo Code CLI Debug Log", ["cli_debug_log"]),
    ("ROO_PARSER_ERROR", "Roo Code Parser Errors", ["parser_error"]),
    ("ROO_OTHER", "Roo Code Other Records", []),
]
FALLBACK_ARTIFACT_TYPE = "ROO_OTHER"

KIND_TO_ARTIFACT_TYPE = {}
ARTIFACT_DISPLAY_NAMES = OrderedDict()
for _type_name, _display, _kinds in ARTIFACT_TYPES:
    ARTIFACT_DISPLAY_NAMES[_type_name] = _display
    for _kind in _kinds:
        KIND_TO_ARTIFACT_TYPE[_kind] = _type_name

# Readable names of the kinds, for timeline descriptions.
KIND_LABELS = {
    "task": "Task",
    "user_message": "User message",
    "assistant_message": "Assistant message",
    "reasoning": "Reasoning",
    "cli_history": "CLI history entry",
    "followup_question": "Follow-up question",
    "command": "Command",
    "command_output": "Command output",
    "file_edit": "File edit",
    "user_edit": "User edit",
    "file_read": "File read",
    "file_context": "File in context",
    "tool_call": "Tool call",
    "tool_result": "Tool result",
    "approval_request": "Approval request",
    "permission_decision": "Permission decision",
    "permission_mode": "Permission mode",
    "permission_setting": "Permission setting",
    "mcp_always_allow": "MCP always-allow",
    "api_request": "API request",
    "api_retry": "API retry",
    "environment": "Environment details",
    "condense": "Context condensed",
    "condense_summary": "Condense summary",
    "context_truncation": "Context truncation",
    "retry_prompt": "Retry prompt",
    "task_resumption": "Task resumption",
    "subtask_link": "Subtask link",
    "subtask_result": "Subtask result",
    "checkpoint": "Checkpoint",
    "task_resumed": "Task resumed",
    "identity_conflict": "Task identity conflict",
    "task_id_time_mismatch": "Task id time mismatch",
    "history_disagreement": "Task reports disagree",
    "ui_event": "UI event",
    "ui_error": "UI error",
    "ui_warning": "UI warning",
    "completion_prompt": "Completion awaiting answer",
    "todo_edit": "User edit of the todo list",
    "mcp_request": "MCP request started",
    "mcp_response": "MCP response",
    "codebase_search_result": "Codebase search result",
    "ui_tool": "Tool shown in the UI",
    "ui_image": "Generated image",
    "browser_action": "Browser action",
    "browser_result": "Browser action result",
    "cli_debug_log": "CLI debug log entry",
    "sync_setting": "Sync setting",
    "cli_setting": "CLI setting",
    "host_setting": "Host setting",
    "provider_profile": "Provider profile",
    "roo_config_entry": "Roo config entry",
    "worktree": "Worktree",
    "credential_present": "Credential present",
    "cloud_upload_queued": "Cloud upload queued",
    "mcp_server": "MCP server",
    "installation": "Installation",
    "install_identity": "Install identity",
    "ephemeral_dir": "Ephemeral directory",
    "temp_leftover": "Temporary leftover",
    "carved_record": "Carved record",
    "parser_error": "Parser error",
}

# ---------------------------------------------------------------------------------------------------------------
# Attribute types. Row fields map to ROO_<FIELD>, source fields to ROO_SRC_<FIELD>. Every field not listed with LONG
# or DOUBLE is a STRING. A value that does not fit its field's declared type (a future change of the contract) goes
# to ROO_<FIELD>_TEXT, a STRING, so one attribute type name never carries two value types.
COMMON_FIELDS = [
    # (row field, attribute display name); attribute name = ROO_<FIELD>
    ("kind", "Row Kind"),
    ("time_utc", "Time (UTC)"),
    ("time_source", "Time Source"),
    ("text", "Text"),
    ("role", "Role"),
    ("surface", "Surface (Editor or CLI)"),
    ("user", "User (Home Directory)"),
    ("session_id", "Task ID"),
    ("parent_session_id", "Parent Task ID"),
    ("root_session_id", "Root Task ID"),
    ("project_path", "Project Path"),
    ("row_id", "Row ID"),
]
SKIPPED_FIELDS = ("schema", "agent", "source")

LONG_FIELDS = (
    "tokens_in", "tokens_out", "cache_reads", "cache_writes", "task_number", "size_bytes", "exit_code",
    "timeout_seconds", "command_timeout_seconds", "hunk_count", "retry_count", "read_offset", "read_limit",
    "difference_ms", "messages_removed", "prev_context_tokens", "new_context_tokens", "tool_count", "server_count",
    "threshold", "result_count", "expected_replacements", "unterminated_blocks", "roo_read_date", "roo_edit_date", "user_edit_date",
)
DOUBLE_FIELDS = ("cost_usd",)

FIELD_DISPLAY_NAMES = {
    "tool_name": "Tool Name", "tool_use_id": "Tool Use ID", "tool_input": "Tool Input (JSON)",
    "call_format": "Call Format", "result_recorded": "Result Recorded", "result_time_utc": "Result Time (UTC)",
    "outcome": "Outcome", "command": "Command Line", "cwd": "Working Directory", "command_status": "Command Status",
    "exit_code": "Exit Code", "signal": "Signal", "output_artifact": "Output Artifact", "execution_id": "Execution ID",
    "file_path": "File Path (as recorded)", "file_path_resolved": "File Path (resolved)", "edit_form": "Edit Form",
    "edit_operation": "Edit Operation", "hunks": "Hunks (JSON)", "hunk_count": "Hunk Count",
    "decision": "Decision", "decided_by": "Decided By", "evidence": "Decision Evidence", "feedback": "Feedback",
    "mode": "Mode", "model": "Model", "model_source": "Model Source", "tokens_in": "Tokens In",
    "tokens_out": "Tokens Out", "cache_reads": "Cache Reads", "cache_writes": "Cache Writes", "cost_usd": "Cost (USD)",
    "setting_key": "Setting Key", "setting_value": "Setting Value", "setting_source": "Setting Source",
    "credential_key": "Credential Key", "credential_location": "Credential Location", "mcp_server": "MCP Server",
    "mcp_tool": "MCP Tool", "relation": "Relation", "linked_session_id": "Linked Task ID",
    "task_id_time_utc": "Task ID Time (UTC)", "task_id_format": "Task ID Format", "known_from": "Known From",
    "task_dir_present": "Task Directory Present", "ui_type": "UI Type", "ui_kind": "UI Kind", "partial": "Partial",
    "unfinished": "Unfinished Request", "query": "Search Query", "result_count": "Result Count",
    "browser_action": "Browser Action", "component": "Log Component", "level": "Log Level",
    "text_preview": "Text Preview",
    "encrypted": "Encrypted", "is_error": "Is Error", "native": "Native Record (JSON)",
    "roo_read_date": "Roo Read Date (epoch ms)", "roo_edit_date": "Roo Edit Date (epoch ms)",
    "user_edit_date": "User Edit Date (epoch ms)", "difference_ms": "Difference (ms)",
    "recorded_time_utc": "Recorded Time (UTC)", "first_record_time_utc": "First Record Time (UTC)",
    "timeout_seconds": "Timeout (s)", "command_timeout_seconds": "Command Timeout (s)", "url": "URL",
    "http_method": "HTTP Method", "machine_id": "Machine ID", "profile_id": "Profile ID", "user_id": "User ID",
    "org_id": "Organization ID", "task_id": "Task ID (referenced)", "request_id": "Request ID",
    "history_item_id": "History Item ID", "condense_id": "Condense ID", "truncation_id": "Truncation ID",
    "subtask_id": "Subtask ID", "api_protocol": "API Protocol", "api_provider": "API Provider", "model_id": "Model ID",
    "utc_offset": "UTC Offset", "time_zone": "Time Zone", "value_from_wal": "Value From WAL",
}

SOURCE_FIELDS = [
    # (source field, display name, value type)
    ("evidence", "Source: Evidence", STRING),
    ("partition_offset", "Source: Partition Offset (bytes)", LONG),
    ("fs_type", "Source: File System", STRING),
    # source.pool_volume (docs/row-contract.md "APFS volumes"), one attribute per field
    ("pool_volume.uuid", "Source: APFS Volume UUID", STRING),
    ("pool_volume.name", "Source: APFS Volume Name", STRING),
    ("pool_volume.role", "Source: APFS Volume Role", STRING),
    ("pool_volume.block", "Source: APFS Volume Block", LONG),
    ("path", "Source: Path", STRING),
    ("inode", "Source: Inode / MFT Entry", LONG),
    ("meta_seq", "Source: Sequence Number", LONG),
    ("attr", "Source: Attribute", STRING),
    ("name_allocated", "Source: Name Allocated", STRING),
    ("meta_allocated", "Source: Metadata Allocated", STRING),
    ("reallocated", "Source: Reallocated (content untrusted)", STRING),
    ("recovery", "Source: Recovery Class", STRING),
    ("size", "Source: Size (bytes)", LONG),
    ("mtime", "Source: Modified (UTC)", STRING),
    ("atime", "Source: Accessed (UTC)", STRING),
    ("ctime", "Source: Changed (UTC)", STRING),
    ("crtime", "Source: Created (UTC)", STRING),
    ("sha256", "Source: SHA-256", STRING),
    ("record_index", "Source: Record Index", LONG),
    ("sub_index", "Source: Block Index", LONG),
    ("part_index", "Source: Part Index", LONG),
    ("byte_offset", "Source: Byte Offset", LONG),
    ("byte_length", "Source: Byte Length", LONG),
    # source.snapshot (docs/row-contract.md "APFS snapshots"): the APFS snapshot a copy was read from
    ("snapshot.name", "Source: APFS Snapshot Name", STRING),
    ("snapshot.xid", "Source: APFS Snapshot XID", LONG),
    ("snapshot.created", "Source: APFS Snapshot Created (UTC)", STRING),
]

ATTACHED_BY_ATTRIBUTE = "ROO_ATTACHED_BY"
ATTACHED_BY_DISPLAY = "Attached To (how the source file was found)"
ATTACHED_BY_TEXT = {
    "meta": "file found by partition offset, inode and sequence number",
    "path": "file found by path",
    "data_source": "source file not in the case: attached to the data source",
}

_ATTRIBUTE_VALUE_TYPES = {}
_ATTRIBUTE_DISPLAY = {}


def _declare(name, value_type, display):
    _ATTRIBUTE_VALUE_TYPES[name] = value_type
    _ATTRIBUTE_DISPLAY[name] = display


def field_attribute_name(field):
    return ATTRIBUTE_PREFIX + field.upper()


def source_attribute_name(field):
    return ATTRIBUTE_PREFIX + "SRC_" + field.replace(".", "_").upper()


def _source_value(src, field):
    """A source field's value; "pool_volume.uuid" names a field of the pool_volume object."""
    if "." not in field:
        return src.get(field)
    outer, inner = field.split(".", 1)
    value = src.get(outer)
    return value.get(inner) if isinstance(value, dict) else None


def _title(field):
    return " ".join(w[:1].upper() + w[1:] for w in field.split("_") if w)


for _field, _display in COMMON_FIELDS:
    _declare(field_attribute_name(_field), STRING, _display)
for _field in LONG_FIELDS:
    _declare(field_attribute_name(_field), LONG, FIELD_DISPLAY_NAMES.get(_field, _title(_field)))
for _field in DOUBLE_FIELDS:
    _declare(field_attribute_name(_field), DOUBLE, FIELD_DISPLAY_NAMES.get(_field, _title(_field)))
for _field, _display in FIELD_DISPLAY_NAMES.items():
    if field_attribute_name(_field) not in _ATTRIBUTE_VALUE_TYPES:
        _declare(field_attribute_name(_field), STRING, _display)
for _field, _display, _vt in SOURCE_FIELDS:
    _declare(source_attribute_name(_field), _vt, _display)
_declare(ATTACHED_BY_ATTRIBUTE, STRING, ATTACHED_BY_DISPLAY)

# The attribute types declared up front (registered by the module at start-up). Names made for unknown fields
# (ROO_<FIELD>, ROO_<FIELD>_TEXT) are STRING and are registered when first seen.
ATTRIBUTE_TYPES = OrderedDict(
    (name, (_ATTRIBUTE_VALUE_TYPES[name], _ATTRIBUTE_DISPLAY[name])) for name in sorted(_ATTRIBUTE_VALUE_TYPES))


def attribute_value_type(name):
    """The value type of an attribute type name: declared, else STRING (names made for unknown fields)."""
    return _ATTRIBUTE_VALUE_TYPES.get(name, STRING)


def attribute_display_name(name):
    """The display name of an attribute type name, also for names made for fields this version does not know."""
    if name in _ATTRIBUTE_DISPLAY:
        return _ATTRIBUTE_DISPLAY[name]
    field = name[len(ATTRIBUTE_PREFIX):].lower() if name.startswith(ATTRIBUTE_PREFIX) else name.lower()
    if field.endswith("_text") and field_attribute_name(field[:-5]) in _ATTRIBUTE_DISPLAY:
        return _ATTRIBUTE_DISPLAY[field_attribute_name(field[:-5])] + " (text)"
    return _title(field)


def artifact_type_for_kind(kind):
    return KIND_TO_ARTIFACT_TYPE.get(kind, FALLBACK_ARTIFACT_TYPE)


# ---------------------------------------------------------------------------------------------------------------
# Values


def is_integer(value):
    return isinstance(value, INTEGER_TYPES) and not isinstance(value, bool)


def json_text(value):
    """Compact JSON text of a non-string value (true, 12, [..], {..}); strings stay as they are."""
    if isinstance(value, STRING_TYPES):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _attribute(name, value):
    """(name, value type, value) for one non-null value, or a (name_TEXT, STRING, text) when it does not fit."""
    value_type = attribute_value_type(name)
    if value_type == LONG:
        if is_integer(value):
            return (name, LONG, value)
    elif value_type == DOUBLE:
        if is_integer(value) or isinstance(value, float):
            return (name, DOUBLE, float(value))
    else:
        return (name, STRING, json_text(value))
    return (name + "_TEXT", STRING, json_text(value))


# ---------------------------------------------------------------------------------------------------------------
# Time


def _days_from_civil(y, m, d):
    """Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm; any year, no datetime limits)."""
    y -= 1 if m <= 2 else 0
    era = y // 400  # floor division: Hinnant's (y >= 0 ? y : y - 399) / 400 in C
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def iso_to_epoch_seconds(text):
    """Whole epoch seconds of a row time `[-]YYYY-MM-DDTHH:MM:SS[.fff…]Z` (the fraction is dropped: Autopsy's
    DATETIME is in seconds); None when the text is not such a time."""
    if not isinstance(text, STRING_TYPES) or not text.endswith("Z") or "T" not in text:
        return None
    date_part, time_part = text[:-1].split("T", 1)
    negative = date_part.startswith("-")
    fields = (date_part[1:] if negative else date_part).split("-")
    clock = time_part.split(".", 1)[0].split(":")
    if len(fields) != 3 or len(clock) != 3:
        return None
    try:
        y, mo, d = int(fields[0]), int(fields[1]), int(fields[2])
        h, mi, s = int(clock[0]), int(clock[1]), int(clock[2])
    except ValueError:
        return None
    if negative:
        y = -y
    if not (1 <= mo <= 12 and 1 <= d <= 31 and 0 <= h <= 23 and 0 <= mi <= 59 and 0 <= s <= 60):
        return None
    return _days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s


# ---------------------------------------------------------------------------------------------------------------
# Timeline event type and description


def timeline_event_type(event_types):
    """The first of TIMELINE_EVENT_TYPE_NAMES that event_types (the TimelineEventType class) has."""
    for name in TIMELINE_EVENT_TYPE_NAMES:
        if hasattr(event_types, name):
            return getattr(event_types, name)
    raise AttributeError("TimelineEventType has none of " + ", ".join(TIMELINE_EVENT_TYPE_NAMES))


def _one_line(text, limit):
    if text is None:
        return ""
    if not isinstance(text, STRING_TYPES):
        text = json_text(text)
    text = " ".join(text.split())
    if len(text) > limit:
        text = text[:limit - 1].rstrip() + "\u2026"
    return text


def kind_label(kind):
    return KIND_LABELS.get(kind) or _title(kind or "row").capitalize()


def timeline_description(row):
    """One readable line for the Timeline: what happened, then whose and which task."""
    kind = row.get("kind")
    label = kind_label(kind)
    text = row.get("text")
    body = None
    if kind == "api_request":
        parts = []
        if is_integer(row.get("tokens_in")):
            parts.append("%d tokens in" % row["tokens_in"])
        if is_integer(row.get("tokens_out")):
            parts.append("%d out" % row["tokens_out"])
        if isinstance(row.get("cost_usd"), (float,) + INTEGER_TYPES) and not isinstance(row.get("cost_usd"), bool):
            parts.append("$%.4f" % row["cost_usd"])
        body = ", ".join(parts) or "recorded"
    elif kind == "command":
        body = _one_line(row.get("command") or text, 160)
        if is_integer(row.get("exit_code")):
            body += " (exit %d)" % row["exit_code"]
        elif row.get("command_status"):
            body += " (%s)" % row["command_status"]
        elif row.get("outcome"):
            body += " (%s)" % row["outcome"]
    elif kind in ("file_edit", "file_read", "file_context", "user_edit"):
        body = _one_line(row.get("file_path_resolved") or row.get("file_path") or text, 160)
        how = row.get("edit_operation") or row.get("edit_form") or row.get("outcome")
        if kind == "file_edit" and how:
            body += " (%s)" % how
    elif kind in ("tool_call", "tool_result"):
        name = row.get("tool_name") or "?"
        status = row.get("outcome") or row.get("result_status")
        body = name + (" (%s)" % status if status else "")
        snippet = _one_line(text, 120)
        if snippet:
            body += ": " + snippet
    elif kind == "task":
        body = _one_line(text, 160)
    elif kind == "approval_request":
        what = row.get("command") or row.get("file_path_resolved") or row.get("file_path") or row.get("mcp_tool")
        if row.get("tool_name") or what:
            body = _one_line((row.get("tool_name") or "?") + (": " + what if what else ""), 160)
    if body is None and not text and row.get("ui_kind"):
        body = row["ui_kind"]
    prefixed = False
    if body is None:
        body = _one_line(text, 200)
        # Rows whose text names what they are ("permission mode: code", "credential present: …") keep it as is.
        head = body.split(":", 1)[0].lower() if ":" in body[:60] else None
        prefixed = head is not None and head in (label.lower(), (kind or "").replace("_", " "))
    context = []
    if row.get("user"):
        context.append("user " + row["user"])
    if row.get("surface"):
        context.append(row["surface"])
    if row.get("session_id"):
        context.append("task " + row["session_id"])
    if prefixed:
        description = "Roo Code " + body
    else:
        description = "Roo Code " + label + (": " + body if body else "")
    description = _one_line(description, DESCRIPTION_MAX)
    if context:
        description += " [" + ", ".join(context) + "]"
    return description


# ---------------------------------------------------------------------------------------------------------------
# File key: where the row came from, for finding its AbstractFile in the case database


def _split_path(path):
    """('/a/b/', 'c') for '/a/b/c': Autopsy's tsk_files.parent_path (with its trailing slash) and name."""
    if not isinstance(path, STRING_TYPES) or not path.startswith("/"):
        return None, None
    trimmed = path.rstrip("/") or "/"
    if trimmed == "/":
        return "/", ""
    cut = trimmed.rfind("/")
    return trimmed[:cut + 1], trimmed[cut + 1:]


def _parse_attr(attr):
    """(attr_type, attr_id) of a source attr 'TYPE-ID' (NTFS '128-2'), else (None, None)."""
    if not isinstance(attr, STRING_TYPES) or "-" not in attr:
        return None, None
    left, right = attr.split("-", 1)
    try:
        return int(left), int(right)
    except ValueError:
        return None, None


def file_key(row):
    src = row.get("source") or {}
    parent_path, name = _split_path(src.get("path"))
    attr_type, attr_id = _parse_attr(src.get("attr"))
    return {
        "evidence": src.get("evidence"),
        "partition_offset": src.get("partition_offset") if is_integer(src.get("partition_offset")) else None,
        "pool_volume_block": _source_value(src, "pool_volume.block")
        if is_integer(_source_value(src, "pool_volume.block")) else None,
        "inode": src.get("inode") if is_integer(src.get("inode")) else None,
        "meta_seq": src.get("meta_seq") if is_integer(src.get("meta_seq")) else None,
        "attr_type": attr_type,
        "attr_id": attr_id,
        "path": src.get("path"),
        "parent_path": parent_path,
        "name": name,
        "reallocated": src.get("reallocated") is True,
    }


# TskData.TSK_DB_FILES_TYPE_ENUM (sleuthkit bindings/java/src/org/sleuthkit/datamodel/TskData.java): FS is a file of a
# file system in an image (a directory too), LOCAL a file and LOCAL_DIR a folder added from disk (a logical file set).
FS_FILE_TYPE = 0
LOCAL_FILE_TYPE = 3
LOCAL_DIR_TYPE = 8


def file_key_in_folder(key, folder_path):
    """The key of a row from a `--dir` run on a folder of a logical file set: the row's path is inside the folder,
    whose path in the case is folder_path (/<file set>/<folder>); its inode is the host's, unknown to the case."""
    out = dict(key, partition_offset=None, pool_volume_block=None, inode=None, meta_seq=None, local=True)
    if key.get("parent_path"):
        out["parent_path"] = folder_path.rstrip("/") + key["parent_path"]
    return out


def sql_quote(text):
    return "'" + text.replace("'", "''") + "'"


def file_lookups(key, data_source_id):
    """The case-database searches to try, in order, as [(method, WHERE clause for SleuthkitCase.findAllFilesWhere)].

    1. "meta": the file system at the row's partition offset (tsk_fs_info.img_offset; for an APFS volume, the one of
       its pool volume), the file by meta_addr (inode)
       and, when the row has one, meta_seq (NTFS sequence number); type 0 keeps out slack and other pseudo-files.
       Not for a reallocated name: that inode now belongs to another file.
    2. "path": parent path + name, on the same file system when the offset is known.
    The caller attaches to the data source when neither finds a file (choose_file picks among the matches)."""
    lookups = []
    ds = "data_source_obj_id = %d" % int(data_source_id)
    fs = None
    if key.get("partition_offset") is not None and key.get("pool_volume_block") is not None:
        # The volumes of an APFS container share its offset (and their inode numbers overlap): the file system is the
        # one whose parent is the pool volume starting at that block (tsk_vs_parts.start, as tsk_loaddb and
        # Autopsy add pool volumes).
        fs = ("fs_obj_id IN (SELECT f.obj_id FROM tsk_fs_info f JOIN tsk_objects o ON o.obj_id = f.obj_id "
              "JOIN tsk_vs_parts v ON v.obj_id = o.par_obj_id WHERE f.img_offset = %d AND v.start = %d)"
              % (key["partition_offset"], key["pool_volume_block"]))
    elif key.get("partition_offset") is not None:
        fs = "fs_obj_id IN (SELECT obj_id FROM tsk_fs_info WHERE img_offset = %d)" % key["partition_offset"]
    if fs and key.get("inode") is not None and not key.get("reallocated"):
        where = "%s AND %s AND type = 0 AND meta_addr = %d" % (ds, fs, key["inode"])
        if key.get("meta_seq") is not None:
            where += " AND meta_seq = %d" % key["meta_seq"]
        lookups.append(("meta", where))
    if key.get("name") and key.get("parent_path"):
        types = "type IN (%d, %d)" % (LOCAL_FILE_TYPE, LOCAL_DIR_TYPE) if key.get("local") else "type = 0"
        where = "%s AND %s AND name = %s AND parent_path = %s" % (
            ds, types, sql_quote(key["name"]), sql_quote(key["parent_path"]))
        if fs:
            where = where.replace(" AND type = 0", " AND " + fs + " AND type = 0", 1)
        lookups.append(("path", where))
    return lookups


def choose_file(method, candidates, key):
    """Index of the best of the files a lookup found, or None. candidates: dicts with name, parent_path, meta_addr,
    attr_type, attr_id (from AbstractFile getters). The name and parent path must agree for a path lookup; a meta
    lookup prefers the same name (an NTFS file's alternate streams share its MFT entry), then the same attribute."""
    best, best_score = None, -1
    for i, c in enumerate(candidates):
        score = 0
        if c.get("name") == key.get("name"):
            score += 4
        if c.get("parent_path") == key.get("parent_path"):
            score += 2
        if key.get("attr_type") is not None and (c.get("attr_type"), c.get("attr_id")) == (
                key.get("attr_type"), key.get("attr_id")):
            score += 1
        if method == "path":
            if score < 6:
                continue
            if key.get("inode") is not None and c.get("meta_addr") == key["inode"]:
                score += 8
        if score > best_score:
            best, best_score = i, score
    return best


def attached_by_attribute(method):
    """The attribute that tells how the artifact's file was found ('meta', 'path' or 'data_source')."""
    return (ATTACHED_BY_ATTRIBUTE, STRING, ATTACHED_BY_TEXT[method])


# ---------------------------------------------------------------------------------------------------------------
# Row -> spec


def row_attributes(row):
    attrs = []
    for field, _ in COMMON_FIELDS:
        value = row.get(field)
        if value is not None:
            attrs.append(_attribute(field_attribute_name(field), value))
    common = set(f for f, _ in COMMON_FIELDS)
    for field, value in row.items():
        if field in common or field in SKIPPED_FIELDS or value is None:
            continue
        attrs.append(_attribute(field_attribute_name(field), value))
    src = row.get("source") or {}
    known = set()
    for field, _, _ in SOURCE_FIELDS:
        known.add(field.split(".", 1)[0])
        value = _source_value(src, field)
        if value is not None:
            attrs.append(_attribute(source_attribute_name(field), value))
    for field, value in src.items():
        if field not in known and value is not None:
            attrs.append(_attribute(source_attribute_name(field), value))
    return attrs


def row_to_spec(row):
    kind = row.get("kind")
    type_name = artifact_type_for_kind(kind)
    timeline = None
    seconds = iso_to_epoch_seconds(row.get("time_utc"))
    if seconds is not None:
        timeline = {"time": seconds, "description": timeline_description(row)}
    return {
        "artifact_type": type_name,
        "artifact_display_name": ARTIFACT_DISPLAY_NAMES[type_name],
        "attributes": row_attributes(row),
        "file_key": file_key(row),
        "timeline": timeline,
        "row_id": row.get("row_id"),
    }


def parse_row(line):
    """One rows.jsonl line -> row (key order kept), or None for a blank line. Raises ValueError on bad JSON."""
    if not line.strip():
        return None
    row = json.loads(line, object_pairs_hook=OrderedDict)
    if not isinstance(row, dict):
        raise ValueError("row is not a JSON object")
    return row


def iter_specs(lines):
    """(line number, spec or None, error or None) for every line of a rows.jsonl."""
    for number, line in enumerate(lines, 1):
        try:
            row = parse_row(line)
        except ValueError as e:
            yield number, None, "line %d is not a row: %s" % (number, e)
            continue
        if row is None:
            continue
        if row.get("schema") != SCHEMA:
            yield number, None, "line %d has schema %r, expected %s" % (number, row.get("schema"), SCHEMA)
            continue
        yield number, row_to_spec(row), None


# ---------------------------------------------------------------------------------------------------------------
# Running roo-ingest

BINARY_NAME = "roo-ingest"
BINARY_ENV = "ROO_INGEST_BINARY"
DEFAULT_BINARY_LOCATIONS = ("/usr/bin/roo-ingest", "/usr/local/bin/roo-ingest")


def binary_candidates(configured, environ):
    """Where to look for roo-ingest, in order: the path set in the module's settings, $ROO_INGEST_BINARY, each
    $PATH directory, /usr/bin (the Debian package), /usr/local/bin."""
    out = []
    if configured and configured.strip():
        out.append(configured.strip())
    if environ.get(BINARY_ENV):
        out.append(environ[BINARY_ENV])
    for directory in (environ.get("PATH") or "").split(os.pathsep):
        if directory:
            out.append(os.path.join(directory, BINARY_NAME))
            out.append(os.path.join(directory, BINARY_NAME + ".exe"))
    out.extend(DEFAULT_BINARY_LOCATIONS)
    seen, unique = set(), []
    for c in out:
        if c not in seen:
            seen.add(c)
            unique.append(c)
    return unique


def find_binary(configured, environ, is_executable):
    """The first candidate is_executable(path) accepts, or None. A configured path that is not executable is not
    silently replaced by another binary: None, so the module reports it."""
    candidates = binary_candidates(configured, environ)
    if configured and configured.strip():
        return candidates[0] if is_executable(candidates[0]) else None
    for c in candidates:
        if is_executable(c):
            return c
    return None


class LogTail(object):
    """Reads the complete lines a running process has appended to its log file since the last call."""

    def __init__(self, path):
        self.path = path
        self.offset = 0
        self.partial = b""

    def new_lines(self):
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
        except (IOError, OSError):
            return []
        self.offset += len(data)
        data = self.partial + data
        parts = data.split(b"\n")
        self.partial = parts.pop()
        return [p.decode("utf-8", "replace").rstrip("\r") for p in parts]

    def rest(self):
        lines = self.new_lines()
        if self.partial:
            lines.append(self.partial.decode("utf-8", "replace"))
            self.partial = b""
        return lines


def output_dir_name(data_source_id, run=None):
    """roo-ingest-<data source id>; -<run> after it when a data source needs several runs (folders)."""
    name = "roo-ingest-%d" % int(data_source_id)
    return name if run is None else "%s-%d" % (name, int(run))


def local_folder_root(local_path, depth):
    """The folder a logical file set's folder was added from: the path on disk of a local file `depth` levels below
    it (1: directly in it), less that many last components. Either separator: Autopsy on Windows keeps `\\`."""
    if not isinstance(local_path, STRING_TYPES) or depth < 1:
        return None
    path = local_path.rstrip("/\\")
    for _ in range(depth):
        cut = max(path.rfind("/"), path.rfind("\\"))
        if cut < 0:
            return None
        path = path[:cut]
    if path == "" or path.endswith(":"):  # the root of a Unix or Windows drive
        path += local_path[len(path)]
    return path


def build_dir_command(binary, folder, out_dir, progress_json=False, extra_args=()):
    """The roo-ingest command line for a folder (a logical file set's folder: a triage collection or a copy)."""
    return build_command(binary, [], out_dir, progress_json, extra_args) + ["--dir", folder]


def build_command(binary, image_paths, out_dir, progress_json=False, extra_args=()):
    """The roo-ingest command line for an image's segment paths. --force: a rerun of the ingest job writes into the
    same folder. Every segment Autopsy knows is passed (roo-ingest also finds .E02… and .002… by itself)."""
    cmd = [binary, "--force", "-o", out_dir]
    if progress_json:
        cmd.append("--progress=json")
    cmd.extend(extra_args)
    cmd.extend(image_paths)
    return cmd


def supports_progress_json(help_text):
    return "--progress" in (help_text or "")


def parse_progress_line(line):
    """(percent 0-100 or None, message) for one stderr line of roo-ingest; a JSON progress object (--progress=json)
    gives a percent when it names a fraction, a percent, or done/total bytes or files; a plain line is the message."""
    line = (line or "").strip()
    if not line:
        return None, ""
    if line.startswith("{"):
        try:
            obj = json.loads(line)
        except ValueError:
            obj = None
        if isinstance(obj, dict):
            percent = None
            if isinstance(obj.get("percent"), (float,) + INTEGER_TYPES):
                percent = obj["percent"]
            elif isinstance(obj.get("fraction"), (float,) + INTEGER_TYPES):
                percent = obj["fraction"] * 100.0
            else:
                # roo-ingest --progress=json: {"progress": phase, "where", "bytes", "total_bytes", "eta_seconds", ...}
                for done, total in (("bytes", "total_bytes"), ("bytes_done", "bytes_total"),
                                    ("files_done", "files_total")):
                    if is_integer(obj.get(done)) and is_integer(obj.get(total)) and obj[total] > 0:
                        percent = 100.0 * obj[done] / obj[total]
                        break
            if percent is not None:
                percent = int(max(0, min(100, percent)))
            words = []
            for k in ("progress", "where", "phase", "message", "path"):
                if isinstance(obj.get(k), STRING_TYPES) and obj[k]:
                    words.append(obj[k])
            eta = obj.get("eta_seconds", obj.get("eta_s"))
            if is_integer(eta) or isinstance(eta, float):
                words.append("ETA %ds" % int(eta))
            return percent, "roo-ingest: " + (" ".join(words) if words else "working")
    return None, line


# roo-ingest exit codes (plugin/main.cpp): which still leave rows to import.
EXIT_CODES = {
    0: (True, "done"),
    1: (False, "internal error"),
    2: (False, "bad arguments or unusable output directory"),
    3: (False, "the evidence cannot be opened"),
    4: (False, "a segment of a split image is missing"),
    5: (True, "done, but a file system could not be processed (see report.json)"),
    6: (True, "done, but no file system could be opened at all (see report.json)"),
    7: (True, "done, but the image did NOT verify against the hashes its container stores (see report.json)"),
}


def interpret_exit(code):
    """(import the rows?, message) for a roo-ingest exit code."""
    if code in EXIT_CODES:
        ok, what = EXIT_CODES[code]
        return ok, "roo-ingest exit %d: %s" % (code, what)
    return False, "roo-ingest exit %d: killed or unknown failure" % code


def batches(items, size=POST_BATCH_SIZE):
    batch = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


# -- job settings ----------------------------------------------------------------------------------------------
# Autopsy keeps a job's settings by Java serialisation, which a Python subclass of IngestModuleIngestJobSettings does
# not survive; the module therefore keeps them as strings in Autopsy's GenericIngestModuleJobSettings (a string ->
# string map). These are its keys and how their strings read (docs/autopsy.md, "Settings").
SETTING_BINARY_PATH = "binary_path"
SETTING_NATIVE = "native"
SETTING_COMMAND_PREFIX = "command_prefix"
SETTING_MOUNT_ROOT = "wsl_mount_root"
# Where WSL mounts the Windows drives (/mnt/c, /mnt/d, ...) unless wsl.conf's [automount] root says otherwise.
DEFAULT_MOUNT_ROOT = "/mnt/"


def settings_to_strings(binary_path, native, command_prefix="", mount_root=DEFAULT_MOUNT_ROOT):
    """{key: string} to store for a configured executable (empty: search), the --native choice, and the command
    prefix that runs roo-ingest elsewhere (e.g. `wsl.exe -d Debian --`; empty: run it here) with WSL's mount root."""
    return {SETTING_BINARY_PATH: (binary_path or "").strip(), SETTING_NATIVE: "true" if native else "false",
            SETTING_COMMAND_PREFIX: (command_prefix or "").strip(),
            SETTING_MOUNT_ROOT: (mount_root or "").strip() or DEFAULT_MOUNT_ROOT}


def command_settings_from_strings(get):
    """(command prefix or "", WSL mount root) from get(key) -> stored string or None."""
    prefix = get(SETTING_COMMAND_PREFIX)
    root = get(SETTING_MOUNT_ROOT)
    return ("%s" % prefix).strip() if prefix is not None else "", \
        ("%s" % root).strip() or DEFAULT_MOUNT_ROOT if root is not None else DEFAULT_MOUNT_ROOT


# -- running roo-ingest through WSL (Autopsy on Windows) ---------------------------------------------------------

def split_command_prefix(text):
    """The words of a command prefix: split at spaces, a "double-quoted" part kept whole; backslashes are kept as
    they are (Windows paths), unlike a POSIX shell's."""
    words, word, quoted, any_char = [], [], False, False
    for c in (text or ""):
        if c == '"':
            quoted = not quoted
            any_char = True
        elif c.isspace() and not quoted:
            if any_char:
                words.append("".join(word))
            word, any_char = [], False
        else:
            word.append(c)
            any_char = True
    if any_char:
        words.append("".join(word))
    return words


def wsl_distribution(prefix_words):
    """The distribution a wsl.exe prefix names (-d NAME / --distribution NAME), or None (wsl's default one)."""
    for i, w in enumerate(prefix_words[:-1]):
        if w in ("-d", "--distribution"):
            return prefix_words[i + 1]
        if w == "--":
            break
    return None


class PathNotVisible(ValueError):
    """A path the Linux side cannot see (or the Windows side cannot, the other way)."""


def is_windows_path(path):
    """A drive path (C:\\…, C:/…, C:relative) or a UNC path (\\\\host\\share…)."""
    return isinstance(path, STRING_TYPES) and (
        (len(path) >= 2 and path[1] == ":" and path[0].isalpha()) or path.startswith("\\\\") or
        path.startswith("//"))


def windows_to_linux(path, mount_root=DEFAULT_MOUNT_ROOT, distribution=None):
    """The path a WSL distribution sees for a Windows path (a POSIX path is returned as it is): a drive's under the
    mount root (C:\\Cases\\x.E01 -> /mnt/c/Cases/x.E01); a distribution's own file through \\\\wsl$\\NAME\\ or
    \\\\wsl.localhost\\NAME\\ at its path there. Raises PathNotVisible for a network share (WSL mounts none by
    itself), another distribution's file, or a drive-relative path."""
    if not is_windows_path(path):
        return path
    p = path.replace("/", "\\")
    if p.startswith("\\\\?\\") or p.startswith("\\\\.\\"):  # Win32 file namespace
        p = p[4:]
        if p[:4].upper() == "UNC\\":
            p = "\\\\" + p[4:]
    if len(p) >= 2 and p[1] == ":" and p[0].isalpha():
        if len(p) == 2 or p[2] != "\\":
            raise PathNotVisible("%s is not a full path (a drive letter without a folder after it)" % path)
        rest = p[3:].replace("\\", "/")
        return mount_root.rstrip("/") + "/" + p[0].lower() + "/" + rest
    parts = p[2:].split("\\")
    host = parts[0].lower()
    if host in ("wsl$", "wsl.localhost") and len(parts) >= 2:
        if distribution and parts[1].lower() != distribution.lower():
            raise PathNotVisible("%s is in WSL distribution %s, but roo-ingest runs in %s: copy it, or run "
                                 "roo-ingest in %s" % (path, parts[1], distribution, parts[1]))
        return "/" + "/".join(parts[2:])
    raise PathNotVisible("%s is on a network share, which WSL does not mount by itself: map the share to a drive "
                         "letter (WSL then shows it under %s<letter>/) or copy the image to a local disk"
                         % (path, mount_root.rstrip("/") + "/"))


class ToolSide(object):
    """Where roo-ingest runs: here (no command prefix), or through a command prefix such as `wsl.exe -d Debian --`,
    which sees this side's Windows paths translated (windows_to_linux) and whose output folder is read back here
    through the inverse translation (linux_to_windows)."""

    def __init__(self, prefix_text="", mount_root=DEFAULT_MOUNT_ROOT):
        self.prefix = split_command_prefix(prefix_text)
        self.mount_root = mount_root or DEFAULT_MOUNT_ROOT
        self.distribution = wsl_distribution(self.prefix)

    def command(self, cmd):
        return self.prefix + list(cmd)

    def to_tool(self, path):
        return windows_to_linux(path, self.mount_root, self.distribution) if self.prefix else path

    def from_tool(self, tool_path, here):
        """The path here of tool_path, which to_tool(here) gave: translated back when `here` was a Windows path."""
        if not self.prefix or not is_windows_path(here):
            return tool_path
        return linux_to_windows(tool_path, self.mount_root, self.distribution)


def linux_to_windows(path, mount_root=DEFAULT_MOUNT_ROOT, distribution=None):
    """The inverse of windows_to_linux: /mnt/c/Cases/x -> C:\\Cases\\x; another path of the distribution ->
    \\\\wsl$\\NAME\\… (PathNotVisible when the prefix names no distribution)."""
    root = mount_root.rstrip("/") + "/"
    if path.startswith(root) and len(path) > len(root) and path[len(root)].isalpha() and (
            len(path) == len(root) + 1 or path[len(root) + 1] == "/"):
        return path[len(root)].upper() + ":\\" + path[len(root) + 2:].replace("/", "\\")
    if path.startswith("/") and distribution:
        return "\\\\wsl$\\" + distribution + path.replace("/", "\\")
    raise PathNotVisible("%s has no Windows path: the command prefix names no WSL distribution (-d NAME)" % path)


def settings_from_strings(get):
    """(executable path or "", native) from get(key) -> stored string or None (None: never set, the defaults)."""
    binary_path = get(SETTING_BINARY_PATH)
    native = get(SETTING_NATIVE)
    return ("%s" % binary_path).strip() if binary_path is not None else "", \
        native is not None and ("%s" % native).strip().lower() == "true"


# -- ingest inbox ----------------------------------------------------------------------------------------------
_HTML_ESCAPES = (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&quot;"), ("'", "&#39;"))


def html_text(text):
    """text made safe for an IngestMessage, whose subject and details Autopsy shows as HTML: the markup characters
    escaped (& first, so nothing is escaped twice) and line breaks kept as <br>. None is the empty text."""
    if text is None:
        return ""
    if not isinstance(text, STRING_TYPES):
        text = "%s" % (text,)
    for raw, escaped in _HTML_ESCAPES:
        text = text.replace(raw, escaped)
    return text.replace("\r\n", "\n").replace("\n", "<br>")
