# -*- coding: utf-8 -*-
"""Autopsy (4.19 and later) data-source ingest module: runs roo-ingest on the data source and posts its rows.

Jython 2.7 (Autopsy's Python). The pattern is Autopsy's Plaso module and the RunExe tutorial: the module runs the
native tool with cancellation, then reads its output. Everything that decides what an artifact holds is in
roo_mapping.py (pure Python, tested on real rows.jsonl files); this file only talks to Autopsy:

  1. start-up: find roo-ingest (module settings, $ROO_INGEST_BINARY, $PATH, /usr/bin, /usr/local/bin; behind a
     command prefix such as `wsl.exe -d Debian --`, the other side's) and ask its --help whether it has
     --progress=json;
  2. run `roo-ingest --force -o <case>/ModuleOutput/roo-ingest-<data source id> IMAGE…` for an image, or
     `… --dir FOLDER` for each folder of a logical file set, with stdout and stderr to log files beside that
     folder (through the prefix, every path as the Linux side sees it); while it runs, poll for cancellation (the
     process is destroyed) and show its stderr lines (JSON progress lines as a percentage when it has them);
  3. register the ROO_* artifact and attribute types, read rows.jsonl, and for each row make a data artifact on the
     file the row came from (tsk_fs_info.img_offset + meta_addr + meta_seq, else parent path + name, else the data
     source) and, for a timed row, a TSK_TL_EVENT (TSK_DATETIME, TSK_DESCRIPTION, TSK_TL_EVENT_TYPE = id 23:
     STANDARD_ARTIFACT_CATCH_ALL, OTHER before Sleuth Kit 4.11.1) on the same file, so the row shows in the
     Timeline with a readable description; 500 rows at a time in one case-database transaction, then posted;
  4. add report.html (else report.json) to the case's reports and post an ingest message with the counts.

Every Sleuth Kit call here is checked against the API of each supported release (tests/autopsy/README.md).
Settings (the executable, --native, the command prefix and WSL's mount root) live as strings in Autopsy's
GenericIngestModuleJobSettings, which Autopsy serialises with the job; ingest inbox messages are HTML, so every text
in them is escaped (roo_mapping.html_text).

Install: copy this folder (roo_ingest_module.py + roo_mapping.py) into Autopsy's python_modules folder as one
sub-folder (Tools > Python Plugins opens it). See docs/autopsy.md.
"""
from __future__ import absolute_import, division, print_function, unicode_literals

import io
import os

from java.io import File
from java.lang import ProcessBuilder
from java.util import ArrayList
from java.util.concurrent import TimeUnit
from java.util.logging import Level
from javax.swing import BoxLayout, JCheckBox, JLabel, JTextField
from org.sleuthkit.autopsy.casemodule import Case
from org.sleuthkit.autopsy.coreutils import Logger
from org.sleuthkit.autopsy.ingest import DataSourceIngestModule
from org.sleuthkit.autopsy.ingest import GenericIngestModuleJobSettings
from org.sleuthkit.autopsy.ingest import IngestMessage
from org.sleuthkit.autopsy.ingest import IngestModule
from org.sleuthkit.autopsy.ingest import IngestModuleFactoryAdapter
from org.sleuthkit.autopsy.ingest import IngestModuleIngestJobSettingsPanel
from org.sleuthkit.autopsy.ingest import IngestServices
from org.sleuthkit.autopsy.ingest.IngestModule import IngestModuleException
from org.sleuthkit.datamodel import BlackboardArtifact
from org.sleuthkit.datamodel import BlackboardAttribute
from org.sleuthkit.datamodel import Image
from org.sleuthkit.datamodel import LocalDirectory
from org.sleuthkit.datamodel import LocalFile
from org.sleuthkit.datamodel import LocalFilesDataSource
from org.sleuthkit.datamodel import TimelineEventType

# Autopsy puts this folder on sys.path only while it imports this file: import the mapping now, not later.
import roo_mapping

try:
    _long = long  # noqa: F821  (Jython: Java long arguments)
except NameError:
    _long = int

MODULE_VERSION = "0.1.0"
POLL_MILLISECONDS = 500


def _is_executable(path):
    f = File(path)
    return f.isFile() and f.canExecute()


def _get_setting(settings, key):
    """A stored string of a GenericIngestModuleJobSettings, or None. Of the two versions of its Java source
    (Core/src/org/sleuthkit/autopsy/ingest/GenericIngestModuleJobSettings.java) read for tests/autopsy/README.md, one
    names the accessors getSettings / setSettings, the other getSetting / setSetting: either works."""
    if hasattr(settings, "getSettings"):
        return settings.getSettings(key)
    else:  # as an else, so that tests/autopsy/test_api_inventory.py sees the two as alternatives
        return settings.getSetting(key)


def _set_setting(settings, key, value):
    if hasattr(settings, "setSettings"):
        settings.setSettings(key, value)
    else:
        settings.setSetting(key, value)


def _store_settings(settings, binary_path, native, command_prefix="", mount_root=roo_mapping.DEFAULT_MOUNT_ROOT):
    for key, value in roo_mapping.settings_to_strings(binary_path, native, command_prefix, mount_root).items():
        _set_setting(settings, key, value)
    return settings


def _generic_settings(settings):
    """settings as a GenericIngestModuleJobSettings, or None when they hold nothing of this module's. An object with
    binary_path / native attributes (what this module's own settings class held before) is converted."""
    if isinstance(settings, GenericIngestModuleJobSettings):
        return settings
    if settings is not None and hasattr(settings, "binary_path"):
        return _store_settings(GenericIngestModuleJobSettings(), getattr(settings, "binary_path", ""),
                               bool(getattr(settings, "native", False)))
    return None


def _read_text(path):
    try:
        with io.open(path, "r", encoding="utf-8", errors="replace") as f:
            return f.read()
    except (IOError, OSError):
        return ""


class RooIngestModuleFactory(IngestModuleFactoryAdapter):

    moduleName = roo_mapping.MODULE_NAME

    def __init__(self):
        self.settings = None

    def getModuleDisplayName(self):
        return self.moduleName

    def getModuleDescription(self):
        return ("Runs roo-ingest on each disk image and adds what the Roo Code AI coding agent left there (tasks, "
                "prompts, commands, file edits, approvals, settings, credentials present) as artifacts on the "
                "files they came from, with Timeline events.")

    def getModuleVersionNumber(self):
        return MODULE_VERSION

    def getDefaultIngestJobSettings(self):
        return _store_settings(GenericIngestModuleJobSettings(), "", False)

    def hasIngestJobSettingsPanel(self):
        return True

    def getIngestJobSettingsPanel(self, settings):
        settings = _generic_settings(settings)
        if settings is None:
            settings = self.getDefaultIngestJobSettings()
        self.settings = settings
        return RooIngestJobSettingsPanel(settings)

    def isDataSourceIngestModuleFactory(self):
        return True

    def createDataSourceIngestModule(self, settings):
        # The job's own settings first; then the ones the panel last showed; else the defaults.
        settings = _generic_settings(settings)
        if settings is None:
            settings = self.settings if self.settings is not None else self.getDefaultIngestJobSettings()
        return RooIngestModule(settings)


class RooIngestJobSettingsPanel(IngestModuleIngestJobSettingsPanel):
    # Jython makes getSettings() a read-only `settings` property: the settings live in `local_settings`.

    def __init__(self, settings):
        self.local_settings = settings
        get = lambda key: _get_setting(settings, key)  # noqa: E731
        binary_path, native = roo_mapping.settings_from_strings(get)
        command_prefix, mount_root = roo_mapping.command_settings_from_strings(get)
        self.setLayout(BoxLayout(self, BoxLayout.Y_AXIS))
        self.add(JLabel("roo-ingest executable (empty: $PATH, then /usr/bin/roo-ingest):"))
        self.path_field = JTextField(binary_path, 40)
        self.add(self.path_field)
        self.native_box = JCheckBox("Keep each record's verbatim JSON (--native)")
        self.native_box.setSelected(native)
        self.add(self.native_box)
        self.add(JLabel("Run it through (Windows: wsl.exe -d Debian --; empty: run it here):"))
        self.prefix_field = JTextField(command_prefix, 40)
        self.add(self.prefix_field)
        self.add(JLabel("Where WSL mounts the Windows drives (wsl.conf [automount] root):"))
        self.mount_root_field = JTextField(mount_root, 40)
        self.add(self.mount_root_field)

    def getSettings(self):
        return _store_settings(self.local_settings, self.path_field.getText(), bool(self.native_box.isSelected()),
                               self.prefix_field.getText(), self.mount_root_field.getText())


class RooIngestModule(DataSourceIngestModule):

    _logger = Logger.getLogger(roo_mapping.MODULE_NAME)

    def log(self, level, msg):
        self._logger.log(level, msg)

    def __init__(self, settings):
        settings = _generic_settings(settings)
        get = (lambda key: _get_setting(settings, key)) if settings is not None else (lambda key: None)
        self.binary_path, self.native = roo_mapping.settings_from_strings(get)
        self.tool = roo_mapping.ToolSide(*roo_mapping.command_settings_from_strings(get))
        self.context = None
        self.binary = None
        self.progress_json = False
        self.artifact_types = {}
        self.attribute_types = {}
        self.file_cache = {}
        self.counts = {}

    # -- start-up ----------------------------------------------------------------------------------------------

    def startUp(self, context):
        self.context = context
        if self.tool.prefix:  # roo-ingest is on the other side of the prefix (WSL): its PATH, not this one's
            self.binary = self.binary_path or roo_mapping.BINARY_NAME
        else:
            self.binary = roo_mapping.find_binary(self.binary_path, os.environ, _is_executable)
        if self.binary is None:
            where = self.binary_path or "$PATH, /usr/bin/roo-ingest, /usr/local/bin/roo-ingest"
            raise IngestModuleException(
                "roo-ingest was not found or is not executable (looked at: %s). Install the roo-ingest Debian "
                "package, or set the executable in this module's settings." % where)
        help_cmd = self.tool.command([self.binary, "--help"])
        help_text = self._run_quietly(help_cmd)
        if help_text is None:
            raise IngestModuleException("%s could not be run (see the Autopsy log)" % " ".join(help_cmd))
        self.progress_json = roo_mapping.supports_progress_json(help_text)

    def _run_quietly(self, cmd):
        """Output of a short command (its --help), or None when it cannot be started."""
        try:
            builder = ProcessBuilder(ArrayList(cmd))
            builder.redirectErrorStream(True)
            log_file = File.createTempFile("roo-ingest-help", ".txt")
            builder.redirectOutput(log_file)
            process = builder.start()
            if not process.waitFor(30, TimeUnit.SECONDS):
                process.destroyForcibly()
                return None
            text = _read_text(log_file.getPath())
            log_file.delete()
            if process.exitValue() != 0:  # e.g. wsl.exe's distribution has no such program
                self.log(Level.WARNING, "%s exited %d: %s" % (" ".join(cmd), process.exitValue(), text))
                return None
            return text
        except Exception as e:  # a Java IOException when the file cannot be executed
            self.log(Level.WARNING, "could not run %s: %s" % (" ".join(cmd), e))
            return None

    # -- process -----------------------------------------------------------------------------------------------

    def process(self, dataSource, progressBar):
        progressBar.switchToIndeterminate()
        extra = ["--native"] if self.native else []
        if isinstance(dataSource, Image):
            paths = [p for p in dataSource.getPaths()]
            if not paths:
                self._message(IngestMessage.MessageType.ERROR, "%s has no image paths" % dataSource.getName())
                return IngestModule.ProcessResult.ERROR
            runs = [(paths, None)]
        elif isinstance(dataSource, LocalFilesDataSource):
            runs = self._local_folders(dataSource)
            if not runs:
                self._message(IngestMessage.MessageType.INFO,
                              "%s holds no folder: skipped (roo-ingest reads a disk image or a folder, such as a "
                              "triage collection added as logical files)" % dataSource.getName())
                return IngestModule.ProcessResult.OK
        else:
            self._message(IngestMessage.MessageType.INFO,
                          "%s is neither a disk image nor logical files: skipped" % dataSource.getName())
            return IngestModule.ProcessResult.OK

        case = self._current_case()
        self.counts = {}
        for number, (target, folder_path) in enumerate(runs, 1):
            name = roo_mapping.output_dir_name(dataSource.getId(), number if len(runs) > 1 else None)
            out_dir = os.path.join(case.getModuleDirectory(), name)
            if not os.path.isdir(out_dir):
                os.makedirs(out_dir)
            try:  # the paths as roo-ingest sees them (through WSL: C:\\… is /mnt/c/…), and its output read back
                tool_out = self.tool.to_tool(out_dir)
                read_dir = self.tool.from_tool(tool_out, out_dir)
                if folder_path is None:
                    cmd = roo_mapping.build_command(self.binary, [self.tool.to_tool(p) for p in target], tool_out,
                                                    self.progress_json, extra)
                else:
                    cmd = roo_mapping.build_dir_command(self.binary, self.tool.to_tool(target), tool_out,
                                                        self.progress_json, extra)
            except roo_mapping.PathNotVisible as e:
                self._message(IngestMessage.MessageType.ERROR, "%s: roo-ingest cannot see it" % dataSource.getName(),
                              "%s" % e)
                return IngestModule.ProcessResult.ERROR
            result = self._run_and_import(case, dataSource, self.tool.command(cmd), read_dir, folder_path,
                                          progressBar)
            if result is not None:
                return result
        c = self.counts
        self._message(IngestMessage.MessageType.DATA,
                      "%d rows from %s: %d artifacts, %d timeline events" % (
                          c.get("rows", 0), dataSource.getName(), c.get("artifacts", 0), c.get("events", 0)),
                      "attached by inode: %d, by path: %d, to the data source: %d; unreadable lines: %d" % (
                          c.get("meta", 0), c.get("path", 0), c.get("data_source", 0), c.get("bad_lines", 0)))
        return IngestModule.ProcessResult.OK

    def _run_and_import(self, case, dataSource, cmd, out_dir, folder_path, progressBar):
        """One roo-ingest run and the import of its rows; a ProcessResult to return at once, or None to go on."""
        self.log(Level.INFO, "running: " + " ".join(cmd))
        code = self._run_tool(cmd, out_dir + ".stdout.txt", out_dir + ".stderr.txt", progressBar)
        if code is None:  # cancelled
            return IngestModule.ProcessResult.OK
        ok, what = roo_mapping.interpret_exit(code)
        if not ok:
            tail = roo_mapping.LogTail(out_dir + ".stderr.txt").rest()[-5:]
            self._message(IngestMessage.MessageType.ERROR, what, "\n".join(tail))
            return IngestModule.ProcessResult.ERROR
        if code != 0:
            self._message(IngestMessage.MessageType.WARNING, what)

        rows_path = os.path.join(out_dir, "rows.jsonl")
        if not os.path.isfile(rows_path):
            self._message(IngestMessage.MessageType.ERROR, "roo-ingest wrote no rows.jsonl in " + out_dir)
            return IngestModule.ProcessResult.ERROR
        self._import_rows(case, dataSource, rows_path, folder_path, progressBar)
        if self.context.dataSourceIngestIsCancelled():
            return IngestModule.ProcessResult.OK
        for report in ("report.html", "report.json"):
            report_path = os.path.join(out_dir, report)
            if os.path.isfile(report_path):
                case.addReport(report_path, roo_mapping.MODULE_NAME, "roo-ingest report: " + dataSource.getName())
                break
        return None

    def _local_folders(self, dataSource):
        """[(folder on disk, its path in the case)] for each folder of a logical file set. Autopsy keeps no path on
        disk for a LocalDirectory (FileManager.addLocalFilesDirectories gives one only to each LocalFile), so the
        folder is a local file's path less the levels between them. Loose files at the top are not a folder."""
        folders = []
        for child in dataSource.getChildren():
            if isinstance(child, LocalDirectory):
                found = _first_local_file(child, 1)
                if found is None:
                    self.log(Level.INFO, "%s holds no file: skipped" % child.getName())
                    continue
                local_file, depth = found
                root = roo_mapping.local_folder_root(local_file.getLocalAbsPath(), depth)
                if root is None:
                    self.log(Level.WARNING, "no folder for %s" % local_file.getLocalAbsPath())
                    continue
                folders.append((root, child.getParentPath() + child.getName()))
        return folders

    def _current_case(self):
        try:
            return Case.getCurrentCaseThrows()
        except AttributeError:  # Autopsy before 4.8
            return Case.getCurrentCase()

    def _run_tool(self, cmd, stdout_log, stderr_log, progressBar):
        """Runs roo-ingest; its exit code, or None when the job was cancelled (the process is then destroyed)."""
        builder = ProcessBuilder(ArrayList(cmd))
        builder.redirectOutput(File(stdout_log))
        builder.redirectError(File(stderr_log))
        process = builder.start()
        tail = roo_mapping.LogTail(stderr_log)
        determinate = False
        while not process.waitFor(POLL_MILLISECONDS, TimeUnit.MILLISECONDS):
            if self.context.dataSourceIngestIsCancelled():
                process.destroy()
                if not process.waitFor(10, TimeUnit.SECONDS):
                    process.destroyForcibly()
                self.log(Level.INFO, "cancelled: roo-ingest stopped")
                return None
            for line in tail.new_lines():
                percent, message = roo_mapping.parse_progress_line(line)
                if percent is not None:
                    if not determinate:
                        progressBar.switchToDeterminate(100)
                        determinate = True
                    progressBar.progress(message, percent)
                elif message:
                    progressBar.progress(message)
        for line in tail.rest():
            self.log(Level.INFO, line)
        return process.exitValue()

    # -- import ------------------------------------------------------------------------------------------------

    def _import_rows(self, case, dataSource, rows_path, folder_path, progressBar):
        sk_case = case.getSleuthkitCase()
        blackboard = sk_case.getBlackboard()
        ds_id = dataSource.getId()
        with io.open(rows_path, "r", encoding="utf-8") as f:
            total = sum(1 for _ in f)
        progressBar.switchToDeterminate(max(total, 1))
        progressBar.progress("Adding roo-ingest rows to the case", 0)
        self._register_types(blackboard)
        batch = Batch(sk_case, blackboard, ds_id, roo_mapping.timeline_event_type(TimelineEventType).getTypeID())
        with io.open(rows_path, "r", encoding="utf-8") as f:
            for number, spec, error in roo_mapping.iter_specs(f):
                if number % 200 == 0:
                    if self.context.dataSourceIngestIsCancelled():
                        self.log(Level.INFO, "cancelled while adding rows")
                        self._post(blackboard, batch.add_all())
                        return
                    progressBar.progress(number)
                if error is not None:
                    self._count("bad_lines")
                    self.log(Level.WARNING, error)
                    continue
                self._count("rows")
                key = spec["file_key"]
                if folder_path is not None:
                    key = roo_mapping.file_key_in_folder(key, folder_path)
                # Everything that reads the case or adds types happens here, outside the batch's transaction.
                obj_id, method = self._resolve_file(sk_case, key, ds_id)
                self._count(method)
                attributes = list(spec["attributes"]) + [roo_mapping.attached_by_attribute(method)]
                batch.rows.append((self._artifact_type(blackboard, spec), obj_id,
                                   self._attributes(blackboard, attributes), spec["timeline"]))
                self._count("artifacts")
                if spec["timeline"] is not None:
                    self._count("events")
                if len(batch.rows) >= roo_mapping.POST_BATCH_SIZE:
                    self._post(blackboard, batch.add_all())
        self._post(blackboard, batch.add_all())
        progressBar.progress(total)

    def _count(self, what):
        self.counts[what] = self.counts.get(what, 0) + 1

    def _register_types(self, blackboard):
        for type_name, display, _ in roo_mapping.ARTIFACT_TYPES:
            self.artifact_types[type_name] = blackboard.getOrAddArtifactType(type_name, display)
        for name, (value_type, display) in roo_mapping.ATTRIBUTE_TYPES.items():
            self._attribute_type(blackboard, name, value_type)

    def _artifact_type(self, blackboard, spec):
        name = spec["artifact_type"]
        if name not in self.artifact_types:
            self.artifact_types[name] = blackboard.getOrAddArtifactType(name, spec["artifact_display_name"])
        return self.artifact_types[name]

    def _attribute_type(self, blackboard, name, value_type):
        if name not in self.attribute_types:
            java_value_type = getattr(BlackboardAttribute.TSK_BLACKBOARD_ATTRIBUTE_VALUE_TYPE, value_type)
            self.attribute_types[name] = blackboard.getOrAddAttributeType(
                name, java_value_type, roo_mapping.attribute_display_name(name))
        return self.attribute_types[name]

    def _attributes(self, blackboard, attributes):
        out = ArrayList()
        for name, value_type, value in attributes:
            attr_type = self._attribute_type(blackboard, name, value_type)
            if value_type == roo_mapping.LONG:
                value = _long(value)
            elif value_type == roo_mapping.DOUBLE:
                value = float(value)
            out.add(BlackboardAttribute(attr_type, roo_mapping.MODULE_NAME, value))
        return out

    def _post(self, blackboard, artifacts):
        """Posts committed artifacts (Autopsy then makes their Timeline events, indexes them, refreshes its views),
        with the ingest job's id where Sleuth Kit takes one (4.12.0 and later)."""
        if not artifacts:
            return
        try:
            blackboard.postArtifacts(artifacts, roo_mapping.MODULE_NAME, _long(self.context.getJobId()))
        except TypeError:  # Sleuth Kit 4.11.x (Autopsy 4.19.x): postArtifacts(Collection, String) only
            blackboard.postArtifacts(artifacts, roo_mapping.MODULE_NAME)

    def _resolve_file(self, sk_case, key, ds_id):
        """(object id, how it was found) of the row's source file; the data source when the case has no such file."""
        cache_key = (key.get("local"), key.get("partition_offset"), key.get("pool_volume_block"), key.get("inode"),
                     key.get("meta_seq"), key.get("path"), key.get("attr_type"), key.get("attr_id"),
                     key.get("reallocated"))
        if cache_key in self.file_cache:
            return self.file_cache[cache_key]
        found = (ds_id, "data_source")
        for method, where in roo_mapping.file_lookups(key, ds_id):
            files = [f for f in sk_case.findAllFilesWhere(where)]
            candidates = [{"name": f.getName(), "parent_path": f.getParentPath(), "meta_addr": f.getMetaAddr(),
                           "attr_type": _attr_type_value(f), "attr_id": f.getAttributeId()} for f in files]
            index = roo_mapping.choose_file(method, candidates, key)
            if index is not None:
                found = (files[index].getId(), method)
                break
        self.file_cache[cache_key] = found
        return found

    def _message(self, message_type, subject, details=None):
        """Every inbox message goes through here: the log gets the plain text, the inbox (HTML) the escaped text."""
        self.log(Level.INFO, subject + ((": " + details) if details else ""))
        if details:
            message = IngestMessage.createMessage(message_type, roo_mapping.MODULE_NAME,
                                                  roo_mapping.html_text(subject), roo_mapping.html_text(details))
        else:
            message = IngestMessage.createMessage(message_type, roo_mapping.MODULE_NAME,
                                                  roo_mapping.html_text(subject))
        IngestServices.getInstance().postMessage(message)


class Batch(object):
    """Rows waiting to become artifacts, then made in one case-database transaction: each row's artifact and, for a
    timed row, its TSK_TL_EVENT. Blackboard.newDataArtifact without a transaction begins and commits one of its own
    per artifact (Blackboard.java); the transaction form exists in every supported Sleuth Kit (4.11.0 on, see
    tests/autopsy/autopsy_api_inventory.json)."""

    def __init__(self, sk_case, blackboard, ds_id, event_type_id):
        self.sk_case = sk_case
        self.blackboard = blackboard
        self.ds_id = _long(ds_id)
        self.event_type = BlackboardArtifact.Type(BlackboardArtifact.ARTIFACT_TYPE.TSK_TL_EVENT)
        self.event_type_id = _long(event_type_id)
        self.rows = []  # (artifact type, source object id, attributes, timeline or None)

    def add_all(self):
        """Makes the waiting rows' artifacts, commits, and returns them (an ArrayList) for posting. On an error the
        transaction is rolled back, so none of the batch is in the case, and the error goes on to Autopsy."""
        made = ArrayList()
        if not self.rows:
            return made
        transaction = self.sk_case.beginTransaction()
        committed = False
        try:
            for artifact_type, obj_id, attributes, timeline in self.rows:
                artifact = self.blackboard.newDataArtifact(artifact_type, _long(obj_id), self.ds_id, attributes,
                                                           None, transaction)
                made.add(artifact)
                if timeline is not None:
                    made.add(self.blackboard.newDataArtifact(self.event_type, _long(obj_id), self.ds_id,
                                                             self._event_attributes(timeline, artifact), None,
                                                             transaction))
            transaction.commit()
            committed = True
        finally:
            if not committed:
                transaction.rollback()
        self.rows = []
        return made

    def _event_attributes(self, timeline, artifact):
        out = ArrayList()
        out.add(BlackboardAttribute(BlackboardAttribute.ATTRIBUTE_TYPE.TSK_DATETIME, roo_mapping.MODULE_NAME,
                                    _long(timeline["time"])))
        out.add(BlackboardAttribute(BlackboardAttribute.ATTRIBUTE_TYPE.TSK_DESCRIPTION, roo_mapping.MODULE_NAME,
                                    timeline["description"]))
        out.add(BlackboardAttribute(BlackboardAttribute.ATTRIBUTE_TYPE.TSK_TL_EVENT_TYPE, roo_mapping.MODULE_NAME,
                                    self.event_type_id))
        out.add(BlackboardAttribute(BlackboardAttribute.ATTRIBUTE_TYPE.TSK_ASSOCIATED_ARTIFACT,
                                    roo_mapping.MODULE_NAME, _long(artifact.getArtifactID())))
        return out


def _first_local_file(directory, depth):
    """(a LocalFile somewhere below directory, how many levels below: 1 = in it), or None. Depth first, files first:
    a collection's top holds its drive folders, so this stops after a few levels."""
    children = [c for c in directory.getChildren()]
    for child in children:
        if isinstance(child, LocalFile) and child.getLocalAbsPath():
            return child, depth
    for child in children:
        if isinstance(child, LocalDirectory):
            found = _first_local_file(child, depth + 1)
            if found is not None:
                return found
    return None


def _attr_type_value(abstract_file):
    """tsk_files.attr_type of an AbstractFile as an int (TSK_FS_ATTR_TYPE_ENUM.getValue()), or None."""
    try:
        return int(abstract_file.getAttrType().getValue())
    except Exception:
        return None
