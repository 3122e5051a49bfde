#!/usr/bin/env python3
"""End-to-end tests of the derived outputs (docs/output-formats.md): the real roo-ingest binary on the committed demo
image, each output read back by its real consumer: rows.csv and l2t.csv by Python's csv module, roo.sqlite by the
sqlite3 command-line shell, timeline.jsonl line by line as Timesketch's JSONL import reads it.

Expected values are hand-picked from the hand-written fixtures/expected/*.rows.jsonl (a command of the CLI task and
a profile id that starts with '-') and converted to local time by hand; nothing the code under test produced is
used as its own expectation, except where a test compares two runs with each other.

usage: formats_e2e_test.py FormatsE2E.test_NAME --binary PATH --repo PATH
"""
import csv
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import zoneinfo

BINARY = None
REPO = None

# fixtures/expected/transcripts.rows.jsonl: the CLI task's `ruff check src`, which exited 1.
RUFF_SESSION = "019ce374-ac1b-7e19-b3a2-c4d6e8f0a1b5"
RUFF_TIME_UTC = "2026-03-12T19:10:04.636Z"  # in Berlin (CET, UTC+1, summer time starts 03-29): 20:10:04.636

L2T_HEADER = ["date", "time", "timezone", "MACB", "source", "sourcetype", "type", "user", "host", "short", "desc",
              "version", "filename", "inode", "notes", "format", "extra"]

# A cell a spreadsheet could run: starts with = + - @ tab or CR, and is neither a plain number nor the lone "-".
FORMULA = re.compile(r"^[=+\-@\t\r]")
PLAIN_NUMBER = re.compile(r"^-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$")

csv.field_size_limit(sys.maxsize)  # a row's text can be a whole command output


def demo():
    return os.path.join(REPO, "fixtures", "images", "demo.E01")


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def read_csv(path):
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.reader(f))


def sqlite(db, sql):
    return subprocess.run(["sqlite3", db, sql], capture_output=True, text=True, check=True).stdout


class FormatsE2E(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="roo-formats-e2e-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run_tool(self, *args, out_name="out", check=True):
        out = os.path.join(self.tmp, out_name)
        proc = subprocess.run([BINARY, "--quiet", demo(), *args, "-o", out], capture_output=True, text=True)
        if check and proc.returncode != 0:
            self.fail(f"roo-ingest {' '.join(args)} exited {proc.returncode}: {proc.stderr}")
        return out, proc

    def assert_no_formula_cells(self, table, name):
        for line_number, record in enumerate(table):
            for cell in record:
                if FORMULA.match(cell):
                    self.assertTrue(cell == "-" or PLAIN_NUMBER.match(cell), f"{name} record {line_number}: {cell!r}")

    # Every output, read back by its consumer, holds what rows.jsonl holds.
    def test_read_back(self):
        out, _ = self.run_tool("--tz", "Europe/Berlin")
        self.assertEqual(sorted(os.listdir(out)), sorted(["rows.jsonl", "roo.body", "timeline.jsonl", "l2t.csv",
                                                          "rows.csv", "roo.sqlite", "report.html", "report",
                                                          "report.json"]))
        rows = read_lines(os.path.join(out, "rows.jsonl"))
        timed = [r for r in rows if r["time_utc"] is not None]
        self.assertGreater(len(rows), len(timed))  # the demo has untimed rows (cli_history): the test can fail

        # rows.csv: a header and one record per row, whatever newlines and commas the texts hold.
        table = read_csv(os.path.join(out, "rows.csv"))
        header, records = table[0], table[1:]
        self.assertEqual(header[:6], ["display_time", "display_utc_offset", "display_time_zone", "schema", "row_id",
                                      "kind"])
        self.assertEqual(header[-1], "extra")
        self.assertEqual(len(records), len(rows))
        self.assertTrue(all(len(r) == len(header) for r in records))
        by_id = {r[header.index("row_id")]: dict(zip(header, r)) for r in records}
        self.assertEqual(set(by_id), {r["row_id"] for r in rows})
        ruff = [r for r in rows if r["kind"] == "command" and r["text"] == "ruff check src"]
        self.assertEqual(len(ruff), 1)
        cells = by_id[ruff[0]["row_id"]]
        self.assertEqual(cells["display_time"], "2026-03-12 20:10:04.636")
        self.assertEqual(cells["display_utc_offset"], "UTC+01:00")
        self.assertEqual(cells["display_time_zone"], "Europe/Berlin")
        self.assertEqual(cells["time_utc"], RUFF_TIME_UTC)
        self.assertEqual(cells["session_id"], RUFF_SESSION)
        self.assertEqual(cells["surface"], "cli")
        self.assertEqual(cells["exit_code"], "1")
        self.assertEqual(cells["tool_name"], "execute_command")
        self.assertEqual(cells["source_path"],
                         "/home/alice/.vscode-mock/global-storage/tasks/" + RUFF_SESSION + "/api_conversation_history.json")
        # The demo's Windows user has a VS Code profile named "-1a2b3c4d": a cell a spreadsheet would read as a
        # formula, so it is written with a leading "'".
        profile_cells = {c["profile_id"] for c in by_id.values() if c["profile_id"]}
        self.assertIn("'-1a2b3c4d", profile_cells)
        self.assertNotIn("-1a2b3c4d", profile_cells)
        untimed = [by_id[r["row_id"]] for r in rows if r["time_utc"] is None]
        self.assertTrue(all(c["display_time"] == "" and c["time_utc"] == "" for c in untimed))
        self.assert_no_formula_cells(table, "rows.csv")

        # l2t.csv: the 17 fields, one line per timed row.
        table = read_csv(os.path.join(out, "l2t.csv"))
        self.assertEqual(table[0], L2T_HEADER)
        self.assertEqual(len(table) - 1, len(timed))
        self.assertTrue(all(len(r) == 17 for r in table))
        lines = [dict(zip(L2T_HEADER, r)) for r in table[1:]]
        ruff_lines = [l for l in lines if l["sourcetype"] == "Roo Code command" and l["desc"] == "command: ruff check src"]
        self.assertEqual(len(ruff_lines), 1)
        line = ruff_lines[0]
        # plaso's timezone field is the zone's abbreviation (CET: Berlin before the March change to summer time)
        self.assertEqual((line["date"], line["time"], line["timezone"]), ("03/12/2026", "20:10:04", "CET"))
        self.assertEqual((line["MACB"], line["source"], line["type"], line["user"], line["version"]),
                         ("....", "LOG", "Roo api.ts", "alice", "2"))
        self.assertIn("session_id: " + RUFF_SESSION, line["extra"].split("; "))
        self.assertIn("exit_code: 1", line["extra"].split("; "))
        self.assert_no_formula_cells(table, "l2t.csv")
        with open(os.path.join(out, "l2t.csv"), "rb") as f:
            data = f.read()
        self.assertEqual(data.count(b"\n"), len(timed) + 1)  # LF line ends; short and desc are one line each
        self.assertEqual(data.count(b"\r"), 0)
        self.assertEqual(data.count(b'"'), sum(l.count('"') for r in table for l in r))  # nothing is quoted

        # timeline.jsonl: what Timesketch needs on every line.
        events = read_lines(os.path.join(out, "timeline.jsonl"))
        self.assertEqual(len(events), len(timed))
        for event, row in zip(events, timed):
            self.assertEqual(event["row_id"], row["row_id"])
            self.assertTrue(event["message"].startswith(row["kind"]))
            self.assertEqual(event["timestamp_desc"], "Roo " + row["time_source"])
            when = datetime.datetime.fromisoformat(event["datetime"])
            self.assertEqual(when.utcoffset(), datetime.timedelta(0))
            self.assertEqual(event["timestamp"], round(when.timestamp() * 1_000_000))
            self.assertEqual(event["datetime"][:23], row["time_utc"][:23])
        ruff_event = [e for e in events if e["row_id"] == ruff[0]["row_id"]][0]
        self.assertEqual(ruff_event["message"], "command: ruff check src")
        self.assertEqual(ruff_event["datetime"], "2026-03-12T19:10:04.636+00:00")  # UTC, whatever --tz says
        self.assertEqual(ruff_event["timestamp"], 1773342604636000)  # `date -u -d 2026-03-12T19:10:04Z +%s`
        self.assertEqual(ruff_event["exit_code"], 1)
        self.assertTrue(ruff_event["source_path"].endswith("/api_conversation_history.json"))
        self.assertIsInstance(ruff_event["tool_input"], str)  # objects as JSON text: one mapping per field

        # roo.sqlite through the sqlite3 shell.
        db = os.path.join(out, "roo.sqlite")
        self.assertEqual(sqlite(db, "SELECT count(*) FROM rows;").strip(), str(len(rows)))
        indexes = sqlite(db, ".indexes rows").split()
        for ix in ("rows_kind", "rows_time_utc", "rows_session_id", "rows_project_path", "rows_recovery", "rows_user",
                   "rows_surface"):
            self.assertIn(ix, indexes)
        in_session = sum(1 for r in rows if r["session_id"] == RUFF_SESSION)
        self.assertEqual(sqlite(db, f"SELECT count(*) FROM rows WHERE session_id = '{RUFF_SESSION}';").strip(),
                         str(in_session))
        self.assertIn("rows_session_id",
                      sqlite(db, f"EXPLAIN QUERY PLAN SELECT * FROM rows WHERE session_id = '{RUFF_SESSION}';"))
        self.assertEqual(sqlite(db, "SELECT json_extract(row_json, '$.exit_code') FROM rows "
                                    f"WHERE kind = 'command' AND time_utc = '{RUFF_TIME_UTC}';").strip(), "1")
        with open(os.path.join(out, "rows.jsonl"), encoding="utf-8") as f:
            first_line = f.readline().rstrip("\n")
        self.assertEqual(sqlite(db, "SELECT row_json FROM rows WHERE row_number = 1;").rstrip("\n"), first_line)
        paths = {r["source"]["path"] for r in rows}
        self.assertEqual(sqlite(db, "SELECT count(DISTINCT path) FROM sources;").strip(), str(len(paths)))
        self.assertEqual(sqlite(db, "SELECT evidence_id, kind FROM evidence;").strip(), "demo.E01|image")
        self.assertEqual(sqlite(db, "SELECT count(*) FROM partitions WHERE status = 'parsed';").strip(), "2")
        self.assertEqual(sqlite(db, "SELECT display_time_zone FROM run;").strip(), "Europe/Berlin")
        self.assertEqual(sqlite(db, "SELECT count(*) FROM rows r JOIN sources s USING (source_id) "
                                    "WHERE s.evidence = 'demo.E01';").strip(), str(len(rows)))

        # report.json counts every output.
        with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
            outputs = {o["file"]: o for o in json.load(f)["outputs"]["files"]}
        self.assertEqual(outputs["timeline.jsonl"]["rows_written"], len(timed))
        self.assertEqual(outputs["timeline.jsonl"]["rows_left_out"], len(rows) - len(timed))
        self.assertEqual(outputs["l2t.csv"]["rows_left_out"], len(rows) - len(timed))
        self.assertEqual(outputs["rows.csv"]["rows_written"], len(rows))
        self.assertEqual(outputs["roo.sqlite"]["rows_written"], len(rows))
        self.assertEqual(outputs["rows.jsonl"]["rows_written"], len(rows))

    # --format writes only the formats named, and always rows.jsonl and report.json.
    def test_format_subset(self):
        out, _ = self.run_tool("--format", "timesketch,sqlite")
        self.assertEqual(sorted(os.listdir(out)), ["report.json", "roo.sqlite", "rows.jsonl", "timeline.jsonl"])
        with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
            files = [o["file"] for o in json.load(f)["outputs"]["files"]]
        self.assertEqual(files, ["rows.jsonl", "timeline.jsonl", "roo.sqlite", "report.json"])
        out, _ = self.run_tool("--format", "body", out_name="body")
        self.assertEqual(sorted(os.listdir(out)), ["report.json", "roo.body", "rows.jsonl"])
        _, proc = self.run_tool("--format", "csv,xlsx", out_name="bad", check=False)
        self.assertEqual(proc.returncode, 2)
        self.assertIn('"xlsx"', proc.stderr)

    # --tz changes the display formats' times and nothing else.
    def test_tz(self):
        utc, _ = self.run_tool(out_name="utc")
        berlin, _ = self.run_tool("--tz", "Europe/Berlin", out_name="berlin")

        def read(out, name):
            with open(os.path.join(out, name), "rb") as f:
                return f.read()

        for name in ("rows.jsonl", "roo.body", "timeline.jsonl"):
            self.assertEqual(read(utc, name), read(berlin, name), name)
        self.assertNotEqual(read(utc, "l2t.csv"), read(berlin, "l2t.csv"))
        self.assertNotEqual(read(utc, "rows.csv"), read(berlin, "rows.csv"))
        self.assertEqual(sqlite(os.path.join(utc, "roo.sqlite"), "SELECT time_utc FROM rows ORDER BY row_number;"),
                         sqlite(os.path.join(berlin, "roo.sqlite"), "SELECT time_utc FROM rows ORDER BY row_number;"))

        def ruff_line(out):
            return [r for r in read_csv(os.path.join(out, "l2t.csv")) if r[10] == "command: ruff check src"][0]

        self.assertEqual(ruff_line(utc)[:3], ["03/12/2026", "19:10:04", "UTC"])
        self.assertEqual(ruff_line(berlin)[:3], ["03/12/2026", "20:10:04", "CET"])

    # Every timed row's display time in rows.csv and l2t.csv against Python's zoneinfo (its own reader of the tz
    # database, rules after the last transition included), in St. John's: UTC-03:30, summer time -02:30.
    def test_tz_against_zoneinfo(self):
        zone_name = "America/St_Johns"
        out, _ = self.run_tool("--tz", zone_name)
        zone = zoneinfo.ZoneInfo(zone_name)

        def local(time_utc):
            utc = datetime.datetime.strptime(time_utc, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)
            return utc.astimezone(zone)

        def offset_text(t):
            minutes = int(t.utcoffset().total_seconds()) // 60
            return "UTC%s%02d:%02d" % ("-" if minutes < 0 else "+", abs(minutes) // 60, abs(minutes) % 60)

        table = read_csv(os.path.join(out, "rows.csv"))
        header = table[0]
        timed = [dict(zip(header, r)) for r in table[1:] if r[header.index("time_utc")]]
        self.assertGreater(len(timed), 100)
        offsets = set()
        for cells in timed:
            t = local(cells["time_utc"])
            self.assertEqual(cells["display_time"], t.strftime("%Y-%m-%d %H:%M:%S.") + "%03d" % (t.microsecond // 1000),
                             cells["row_id"])
            self.assertEqual(cells["display_utc_offset"], offset_text(t), cells["row_id"])
            self.assertEqual(cells["display_time_zone"], zone_name)
            offsets.add(cells["display_utc_offset"])
        self.assertIn("UTC-03:30", offsets)  # the half hour, in winter at least
        time_by_id = {c["row_id"]: c["time_utc"] for c in timed}
        lines = [dict(zip(L2T_HEADER, r)) for r in read_csv(os.path.join(out, "l2t.csv"))[1:]]
        self.assertEqual(len(lines), len(timed))
        for line in lines:
            row_id = [f for f in line["extra"].split("; ") if f.startswith("row_id: ")][0][len("row_id: "):]
            t = local(time_by_id[row_id])
            self.assertEqual((line["date"], line["time"], line["timezone"]),
                             (t.strftime("%m/%d/%Y"), t.strftime("%H:%M:%S"), t.tzname()), row_id)

    def test_bad_tz(self):
        out, proc = self.run_tool("--tz", "Mars/Olympus", check=False)
        self.assertEqual(proc.returncode, 2)
        self.assertTrue(proc.stderr.startswith("roo-ingest: error: --tz Mars/Olympus: "), proc.stderr)
        self.assertIn("Mars/Olympus", proc.stderr)
        self.assertEqual(len(proc.stderr.strip().splitlines()), 1)
        self.assertFalse(os.path.exists(out))  # refused before any work
        _, proc = self.run_tool("--tz", "../../etc/passwd", out_name="o2", check=False)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("../../etc/passwd", proc.stderr)

    # roo.sqlite's views (docs/output-formats.md "roo.sqlite"): each holds exactly the rows of its kinds, and each
    # column is the rows.jsonl field it names, read here by plain JSON, not by SQLite.
    def test_sqlite_views(self):
        out, _ = self.run_tool("--format", "sqlite")
        db = os.path.join(out, "roo.sqlite")
        rows = read_lines(os.path.join(out, "rows.jsonl"))
        common = {"row_number": None, "time_utc": "time_utc", "session_id": "session_id",
                  "project_path": "project_path", "user": "user", "surface": "surface"}
        views = {
            "tasks": ({"task"}, {**common, "parent_session_id": "parent_session_id",
                                 "root_session_id": "root_session_id", "task_number": "task_number", "task": "text",
                                 "mode": "mode", "status": "status", "workspace_class": "workspace_class",
                                 "tokens_in": "tokens_in", "tokens_out": "tokens_out",
                                 "cache_writes": "cache_writes", "cache_reads": "cache_reads",
                                 "cost_usd": "cost_usd", "api_config_name": "api_config_name",
                                 "size_bytes": "size_bytes", "known_from": "known_from",
                                 "task_dir_present": "task_dir_present", "task_dir_deleted": "task_dir_deleted"}),
            "commands": ({"command"}, {**common, "tool_name": "tool_name", "tool_use_id": "tool_use_id",
                                       "command": "command", "cwd": "cwd", "exit_code": "exit_code",
                                       "status": "command_status", "signal": "signal", "outcome": "outcome",
                                       "result_time_utc": "result_time_utc", "model": "model"}),
            "decisions": ({"permission_decision"}, {**common, "decision": "decision", "decided_by": "decided_by",
                                                    "feedback": "feedback", "tool_name": "tool_name",
                                                    "tool_use_id": "tool_use_id", "evidence": "evidence"}),
            "edits": ({"file_edit"}, {**common, "tool_name": "tool_name", "tool_use_id": "tool_use_id",
                                      "path": "file_path", "resolved_path": "file_path_resolved",
                                      "edit_form": "edit_form", "edit_operation": "edit_operation",
                                      "hunk_count": "hunk_count", "hunks": "hunks", "outcome": "outcome"}),
            "user_words": ({"user_message", "cli_history"}, {**common, "kind": "kind", "text": "text"}),
            "settings": ({"permission_setting", "mcp_always_allow", "sync_setting", "cli_setting", "host_setting"},
                         {**common, "kind": "kind", "setting_key": "setting_key", "setting_value": "setting_value",
                          "setting_unset": "setting_unset", "setting_source": "setting_source",
                          "mcp_server": "mcp_server", "mcp_tool": "mcp_tool", "extension_id": "extension_id",
                          "profile_name": "profile_name", "resolution": "resolution",
                          "resolved_path": "resolved_path"}),
        }
        # Every kind that has a setting is in the settings view.
        self.assertEqual({r["kind"] for r in rows if "setting_key" in r} - views["settings"][0], set())

        def sql_value(v):  # what json_extract gives for a JSON value, as the shell's JSON mode prints it
            if isinstance(v, bool):
                return int(v)
            if isinstance(v, (dict, list)):
                return json.dumps(v, ensure_ascii=False, separators=(",", ":"))
            return v

        def cell(v):  # the sqlite3 shell's list mode
            v = sql_value(v)
            return "" if v is None else str(v)

        for view, (kinds, columns) in views.items():
            wanted = [(n, r) for n, r in enumerate(rows, 1) if r["kind"] in kinds]
            self.assertGreater(len(wanted), 0, view)  # the demo has rows of every view: the test can fail
            got = json.loads(subprocess.run(["sqlite3", "-json", db, f"SELECT * FROM {view} ORDER BY row_number;"],
                                            capture_output=True, text=True, check=True).stdout or "[]")
            self.assertEqual(len(got), len(wanted), view)
            for record, (number, row) in zip(got, wanted):
                self.assertEqual(record["row_number"], number, view)
                self.assertEqual(record["recovery"], row["source"]["recovery"], view)
                for column, field in columns.items():
                    if field is None:
                        continue
                    want, have = sql_value(row.get(field)), record[column]
                    if column == "hunks" and have is not None:
                        self.assertEqual(json.loads(have), row[field], (view, number))
                    elif isinstance(want, float):
                        self.assertAlmostEqual(have, want, places=12, msg=(view, number, column))
                    else:
                        self.assertEqual(have, want, (view, number, column))
            self.assertEqual(set(record) - set(columns), {"recovery", "source_id"}, view)  # no column untested
        # The commands the test fixture holds, compared field by field above, include one with its exit code.
        ruff = [r for r in rows if r["kind"] == "command" and r["command"] == "ruff check src"]
        self.assertEqual(sqlite(db, "SELECT exit_code, session_id FROM commands WHERE command = 'ruff check src';")
                         .strip(), f"{ruff[0]['exit_code']}|{RUFF_SESSION}")

        # Two usual filters use their partial indexes (written with the rows, no ANALYZE); the others read their
        # kind's rows only.
        for view, where, index in (("decisions", "decision = 'denied'", "decisions_decision"),
                                   ("edits", "resolved_path = '/x'", "edits_resolved_path"),
                                   ("commands", "exit_code = 1", "rows_kind"),
                                   ("settings", "setting_key = 'x'", "rows_kind")):
            self.assertIn(f"USING INDEX {index}", sqlite(db, f"EXPLAIN QUERY PLAN SELECT * FROM {view} WHERE {where};"))

        # The three example queries of docs/output-formats.md, against the same facts read from rows.jsonl.
        failed = sqlite(db, "SELECT time_utc, session_id, cwd, command, exit_code FROM commands "
                            "WHERE exit_code <> 0 ORDER BY time_utc, row_number;").splitlines()
        want = sorted((r for r in rows if r["kind"] == "command" and r.get("exit_code") not in (None, 0)),
                      key=lambda r: r["time_utc"] or "")
        self.assertGreater(len(want), 0)
        self.assertEqual(failed, ["|".join(cell(v) for v in
                                           (r["time_utc"], r["session_id"], r.get("cwd"), r["command"], r["exit_code"]))
                                  for r in want])
        edited = [r for r in rows if r["kind"] == "file_edit"]
        target = "/home/carol/shop/src/cart.py"  # the documented query's file
        by_call = {(r["session_id"], r.get("tool_use_id")): r for r in rows if r["kind"] == "permission_decision"}
        got = sqlite(db, "SELECT e.time_utc, e.session_id, e.tool_name, e.hunk_count, d.decision, d.feedback "
                         "FROM edits e LEFT JOIN decisions d ON d.session_id = e.session_id AND "
                         "d.tool_use_id = e.tool_use_id "
                         f"WHERE e.resolved_path = '{target}' ORDER BY e.time_utc, e.row_number;").splitlines()
        want = []
        for e in sorted((r for r in edited if r["file_path_resolved"] == target), key=lambda r: r["time_utc"] or ""):
            d = by_call.get((e["session_id"], e.get("tool_use_id"))) if e.get("tool_use_id") else None
            want.append("|".join(cell(v) for v in
                                 (e["time_utc"], e["session_id"], e["tool_name"], e.get("hunk_count"),
                                  d and d["decision"], d and d.get("feedback"))))
        self.assertGreater(len(want), 1)
        self.assertEqual(got, want)
        got = sqlite(db, "SELECT user, kind, setting_key, setting_value, setting_source FROM settings "
                         "WHERE setting_key LIKE '%allowedCommands%' OR kind = 'mcp_always_allow' "
                         "ORDER BY row_number;").splitlines()
        want = ["|".join(cell(v) for v in
                         (r["user"], r["kind"], r["setting_key"], r.get("setting_value"), r.get("setting_source")))
                for r in rows if r["kind"] in views["settings"][0]
                and ("allowedcommands" in r["setting_key"].lower() or r["kind"] == "mcp_always_allow")]
        self.assertGreater(len(want), 0)
        self.assertEqual(got, want)

    # The same input gives byte-identical derived files and the same database content. Both runs write into the
    # same OUTDIR path, since report.json (and so the run table) records the command line.
    def test_determinism(self):
        first, _ = self.run_tool("--tz", "America/New_York")
        kept = os.path.join(self.tmp, "first")
        os.rename(first, kept)
        second, _ = self.run_tool("--tz", "America/New_York")
        for name in ("timeline.jsonl", "l2t.csv", "rows.csv", "report.json"):
            with open(os.path.join(kept, name), "rb") as a, open(os.path.join(second, name), "rb") as b:
                self.assertEqual(a.read(), b.read(), name)
        dump_a = sqlite(os.path.join(kept, "roo.sqlite"), ".dump")
        dump_b = sqlite(os.path.join(second, "roo.sqlite"), ".dump")
        self.assertGreater(dump_a.count('INSERT INTO "rows"'), 100)  # ROWS is an SQL keyword: .dump quotes it
        self.assertEqual(dump_a, dump_b)


if __name__ == "__main__":
    import e2e_main

    e2e_main.run(sys.modules[__name__], "FormatsE2E")
