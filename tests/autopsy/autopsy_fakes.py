# -*- coding: utf-8 -*-
"""A stand-in for the slice of the Autopsy / Sleuth Kit Java API that plugin/autopsy/roo_ingest_module.py calls.

Autopsy cannot run here. These fakes let the module's own code run end to end: under CPython they also stand in for
java.lang / java.io / java.util (ProcessBuilder runs the real roo-ingest through subprocess); under Jython (the same
Python 2.7 dialect Autopsy runs) the real Java classes are used and only org.sleuthkit.* is faked.

They were written from the API as documented and read in the Autopsy / Sleuth Kit sources (Blackboard.java,
BlackboardAttribute.java, TimelineEventType.java, JythonModuleLoader.java); they check what those classes check and
what this module relies on: attribute values of the declared type, artifact type ids from 10000 up, display names
without quotes (Blackboard writes them into SQL unescaped), one value type per attribute type name, artifacts posted
in batches. They are not Autopsy: see docs/autopsy.md for what this does and does not show.

Files: SleuthkitCase.findAllFilesWhere runs the WHERE clause on a real `tsk_loaddb` case database of the same image
(CPython, sqlite3) or looks it up in a table of answers computed that way (Jython has no sqlite3).
"""
from __future__ import absolute_import, division, print_function, unicode_literals

import os
import sys
import types

try:
    STRING_TYPES = (str, unicode)  # noqa: F821
    INTEGER_TYPES = (int, long)  # noqa: F821
except NameError:
    STRING_TYPES = (str,)
    INTEGER_TYPES = (int,)

JYTHON = sys.platform.startswith("java")


def _module(name, **attrs):
    m = types.ModuleType(str(name))
    for k, v in attrs.items():
        setattr(m, k, v)
    sys.modules[str(name)] = m
    return m


class Record(object):
    """What the fakes saw: one per test run."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.messages = []
        self.logs = []
        self.reports = []
        self.batches = []
        self.artifacts = []
        self.progress = []
        self.commands = []
        self.transactions = []  # one per case-database transaction: ("explicit" | "implicit", artifacts made in it)


RECORD = Record()


# ---- java.* (CPython only) ------------------------------------------------------------------------------------


class File(object):
    def __init__(self, path):
        self.path = path

    def isFile(self):
        return os.path.isfile(self.path)

    def canExecute(self):
        return os.access(self.path, os.X_OK)

    def exists(self):
        return os.path.exists(self.path)

    def getPath(self):
        return self.path

    def delete(self):
        if os.path.exists(self.path):
            os.remove(self.path)
            return True
        return False

    def toString(self):
        return self.path

    @staticmethod
    def createTempFile(prefix, suffix):
        import tempfile
        fd, path = tempfile.mkstemp(prefix=prefix, suffix=suffix)
        os.close(fd)
        return File(path)


class TimeUnit(object):
    def __init__(self, seconds):
        self.seconds = seconds


TimeUnit.MILLISECONDS = TimeUnit(0.001)
TimeUnit.SECONDS = TimeUnit(1.0)


class Process(object):
    def __init__(self, popen, files):
        self.popen = popen
        self.files = files

    def waitFor(self, amount, unit):
        import subprocess
        try:
            self.popen.wait(timeout=amount * unit.seconds)
        except subprocess.TimeoutExpired:
            return False
        self._close()
        return True

    def _close(self):
        for f in self.files:
            f.close()
        self.files = []

    def destroy(self):
        self.popen.terminate()

    def destroyForcibly(self):
        self.popen.kill()
        return self

    def exitValue(self):
        return self.popen.returncode


class ProcessBuilder(object):
    def __init__(self, cmd):
        self.cmd = list(cmd)
        self.out = None
        self.err = None
        self.merge = False

    def redirectOutput(self, f):
        self.out = f.getPath()
        return self

    def redirectError(self, f):
        self.err = f.getPath()
        return self

    def redirectErrorStream(self, merge):
        self.merge = merge
        return self

    def start(self):
        import subprocess
        RECORD.commands.append(list(self.cmd))
        files = []
        out = open(self.out, "wb") if self.out else subprocess.DEVNULL
        if self.out:
            files.append(out)
        if self.merge:
            err = subprocess.STDOUT
        elif self.err:
            err = open(self.err, "wb")
            files.append(err)
        else:
            err = subprocess.DEVNULL
        try:
            popen = subprocess.Popen(self.cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        except OSError as e:
            for f in files:
                f.close()
            raise IOError("Cannot run program %s: %s" % (self.cmd[0], e))
        return Process(popen, files)


class ArrayList(list):
    def add(self, item):
        self.append(item)
        return True

    def size(self):
        return len(self)


class Level(object):
    INFO = "INFO"
    WARNING = "WARNING"
    SEVERE = "SEVERE"


class _Widget(object):
    def __init__(self, *args, **kwargs):
        self.args = args
        self.selected = False
        self.text = args[0] if args and isinstance(args[0], STRING_TYPES) else ""

    def setSelected(self, value):
        self.selected = bool(value)

    def isSelected(self):
        return self.selected

    def getText(self):
        return self.text

    def setText(self, text):
        self.text = text


class BoxLayout(_Widget):
    Y_AXIS = 1


# ---- org.sleuthkit.* ------------------------------------------------------------------------------------------


class TskCoreException(Exception):
    pass


class IngestModuleException(Exception):
    pass


class ValueType(object):
    def __init__(self, name, code):
        self.name = name
        self.code = code

    def getType(self):
        return self.code

    def __repr__(self):
        return self.name


class TSK_BLACKBOARD_ATTRIBUTE_VALUE_TYPE(object):  # noqa: N801 (Java name)
    STRING = ValueType("STRING", 0)
    INTEGER = ValueType("INTEGER", 1)
    LONG = ValueType("LONG", 2)
    DOUBLE = ValueType("DOUBLE", 3)
    BYTE = ValueType("BYTE", 4)
    DATETIME = ValueType("DATETIME", 5)
    JSON = ValueType("JSON", 6)


class AttributeType(object):
    def __init__(self, type_id, name, display, value_type):
        self.type_id = type_id
        self.name = name
        self.display = display
        self.value_type = value_type

    def getTypeID(self):
        return self.type_id

    def getTypeName(self):
        return self.name

    def getDisplayName(self):
        return self.display

    def getValueType(self):
        return self.value_type


VT = TSK_BLACKBOARD_ATTRIBUTE_VALUE_TYPE


class ATTRIBUTE_TYPE(object):  # noqa: N801 (Java name); ids as in BlackboardAttribute.java
    TSK_DATETIME = AttributeType(2, "TSK_DATETIME", "Date/Time", VT.DATETIME)
    TSK_DESCRIPTION = AttributeType(73, "TSK_DESCRIPTION", "Description", VT.STRING)
    TSK_TL_EVENT_TYPE = AttributeType(132, "TSK_TL_EVENT_TYPE", "Event Type", VT.LONG)
    TSK_ASSOCIATED_ARTIFACT = AttributeType(96, "TSK_ASSOCIATED_ARTIFACT", "Associated Artifact", VT.LONG)


class BlackboardAttribute(object):
    """Checks the value against the type as BlackboardAttribute's Java constructors do (IllegalArgumentException
    "Type mismatch"); Java picks the constructor by the value's type: String, int, long, double."""
    TSK_BLACKBOARD_ATTRIBUTE_VALUE_TYPE = TSK_BLACKBOARD_ATTRIBUTE_VALUE_TYPE
    ATTRIBUTE_TYPE = ATTRIBUTE_TYPE

    def __init__(self, attr_type, source, value):
        vt = attr_type.getValueType()
        if isinstance(value, STRING_TYPES):
            ok = vt in (VT.STRING, VT.JSON)
        elif isinstance(value, bool):
            ok = False
        elif isinstance(value, INTEGER_TYPES):
            ok = vt in (VT.LONG, VT.DATETIME, VT.INTEGER)
        elif isinstance(value, float):
            ok = vt is VT.DOUBLE
        else:
            ok = False
        if not ok:
            raise ValueError("Type mismatch: %s (%r) given %r" % (attr_type.getTypeName(), vt, value))
        self.attr_type = attr_type
        self.source = source
        self.value = value

    def getAttributeType(self):
        return self.attr_type


class Category(object):
    DATA_ARTIFACT = "DATA_ARTIFACT"


class ArtifactType(object):
    def __init__(self, type_id, name, display):
        self.type_id = type_id
        self.name = name
        self.display = display

    def getTypeID(self):
        return self.type_id

    def getTypeName(self):
        return self.name

    def getDisplayName(self):
        return self.display

    def getCategory(self):
        return Category.DATA_ARTIFACT


class ARTIFACT_TYPE(object):  # noqa: N801
    TSK_TL_EVENT = ArtifactType(53, "TSK_TL_EVENT", "TL Events")


class BlackboardArtifact(object):
    ARTIFACT_TYPE = ARTIFACT_TYPE
    Category = Category

    @staticmethod
    def Type(standard):  # noqa: N802 (Java name): BlackboardArtifact.Type(ARTIFACT_TYPE)
        return standard


class TimelineEventTypeImpl(object):
    def __init__(self, type_id, name):
        self.type_id = type_id
        self.name = name

    def getTypeID(self):
        return self.type_id


class TimelineEventType(object):
    """TimelineEventType of Sleuth Kit 4.11.1 up to 4.13.0 (Autopsy 4.19.2 and later): id 23 is named
    STANDARD_ARTIFACT_CATCH_ALL and there is no OTHER (bindings/java/src/org/sleuthkit/datamodel/
    TimelineEventType.java at tags sleuthkit-4.11.1, sleuthkit-4.12.0, sleuthkit-4.12.1, sleuthkit-4.13.0)."""
    STANDARD_ARTIFACT_CATCH_ALL = TimelineEventTypeImpl(23, "Standard Artifact Event")
    LOG_ENTRY = TimelineEventTypeImpl(24, "Log Entry")
    CUSTOM_ARTIFACT_CATCH_ALL = TimelineEventTypeImpl(26, "Custom Artifact Event")


class TimelineEventTypeBefore4_11_1(object):  # noqa: N801
    """The same class up to Sleuth Kit 4.11.0 (tags sleuthkit-4.10.2, sleuthkit-4.11.0): id 23 is OTHER."""
    OTHER = TimelineEventTypeImpl(23, "Standard Types")
    LOG_ENTRY = TimelineEventTypeImpl(24, "Log Entry")


class Image(object):
    def __init__(self, obj_id, name, paths):
        self.obj_id = obj_id
        self.name = name
        self.paths = paths

    def getId(self):
        return self.obj_id

    def getName(self):
        return self.name

    def getPaths(self):
        return list(self.paths)


class _LocalContent(object):
    def __init__(self, obj_id, name, parent_path, children=(), local_abs_path=None):
        self.obj_id = obj_id
        self.name = name
        self.parent_path = parent_path
        self.children = list(children)
        self.local_abs_path = local_abs_path

    def getId(self):
        return self.obj_id

    def getName(self):
        return self.name

    def getParentPath(self):
        return self.parent_path

    def getChildren(self):
        return list(self.children)


class LocalFilesDataSource(_LocalContent):
    """A logical file set (VirtualDirectory at the case's root, parent path "/")."""


class LocalDirectory(_LocalContent):
    pass


class LocalFile(_LocalContent):
    def getLocalAbsPath(self):
        return self.local_abs_path


def local_files_data_source(obj_id, name, folders, separator=os.sep, translate=None):
    """A LocalFilesDataSource holding the given host folders as Autopsy adds them (Autopsy's
    casemodule/services/FileManager.java, addLocalFilesDirectories): a LocalDirectory per folder and per
    sub-folder (which keep no path on disk), a LocalFile per file with its absolute local path; tsk_files rows of
    the same objects (type 3 LOCAL, type 8 LOCAL_DIR; TskData.TSK_DB_FILES_TYPE_ENUM) for sqlite_lookup.
    translate(host path) gives the path Autopsy records (a Windows path, for the WSL tests)."""
    rows = []
    counter = [obj_id]

    def next_id():
        counter[0] += 1
        return counter[0]

    def add_dir(host, parent_path):
        d = LocalDirectory(next_id(), os.path.basename(host.rstrip(os.sep)), parent_path)
        rows.append({"obj_id": d.obj_id, "name": d.name, "parent_path": parent_path, "meta_addr": None,
                     "meta_seq": None, "attr_type": None, "attr_id": None, "type": 8, "data_source_obj_id": obj_id})
        here = parent_path + d.name + "/"
        for entry in sorted(os.listdir(host)):
            full = os.path.join(host, entry)
            if os.path.isdir(full) and not os.path.islink(full):
                d.children.append(add_dir(full, here))
            elif os.path.isfile(full):
                local = translate(full) if translate else full.replace(os.sep, separator)
                f = LocalFile(next_id(), entry, here, local_abs_path=local)
                d.children.append(f)
                rows.append({"obj_id": f.obj_id, "name": entry, "parent_path": here, "meta_addr": None,
                             "meta_seq": None, "attr_type": None, "attr_id": None, "type": 3,
                             "data_source_obj_id": obj_id})
        return d

    ds = LocalFilesDataSource(obj_id, name, "/")
    for folder in folders:
        ds.children.append(add_dir(folder, "/" + name + "/"))
    return ds, rows


def rows_lookup(rows):
    """findAllFilesWhere over tsk_files rows held in memory (an in-memory sqlite database of them)."""
    import sqlite3
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE tsk_files (obj_id, name, parent_path, meta_addr, meta_seq, attr_type, attr_id, type, "
                "data_source_obj_id, fs_obj_id)")
    for r in rows:
        con.execute("INSERT INTO tsk_files VALUES (?,?,?,?,?,?,?,?,?,NULL)", [r[k] for k in (
            "obj_id", "name", "parent_path", "meta_addr", "meta_seq", "attr_type", "attr_id", "type",
            "data_source_obj_id")])

    def lookup(where):
        cur = con.execute("SELECT %s FROM tsk_files WHERE %s" % (", ".join(FILE_COLUMNS), where))
        return [dict(zip(FILE_COLUMNS, r)) for r in cur.fetchall()]
    return lookup


class Artifact(object):
    def __init__(self, artifact_id, artifact_type, obj_id, ds_id, attributes):
        self.artifact_id = artifact_id
        self.artifact_type = artifact_type
        self.obj_id = obj_id
        self.ds_id = ds_id
        self.attributes = list(attributes)
        self.posted = False

    def getArtifactID(self):
        return self.artifact_id

    def attribute(self, name):
        for a in self.attributes:
            if a.getAttributeType().getTypeName() == name:
                return a.value
        return None


class Blackboard(object):
    # package-private in Blackboard.java (static final int MIN_USER_DEFINED_TYPE_ID = 10000): not for the module
    _MIN_USER_DEFINED_TYPE_ID = 10000

    def __init__(self):
        self.artifact_types = {"TSK_TL_EVENT": ARTIFACT_TYPE.TSK_TL_EVENT}
        self.attribute_types = {}
        self.next_artifact_id = 1
        self.artifacts = []

    def _next_type_id(self, existing):
        ids = [t.getTypeID() for t in existing.values()]
        return max([self._MIN_USER_DEFINED_TYPE_ID - 1] + ids) + 1

    def getOrAddArtifactType(self, name, display):
        if "'" in name or "'" in display:
            raise TskCoreException("SQL error: quote in artifact type %r / %r" % (name, display))
        if name not in self.artifact_types:
            self.artifact_types[name] = ArtifactType(self._next_type_id(self.artifact_types), name, display)
        return self.artifact_types[name]

    def getOrAddAttributeType(self, name, value_type, display):
        if "'" in name or "'" in display:
            raise TskCoreException("SQL error: quote in attribute type %r / %r" % (name, display))
        existing = self.attribute_types.get(name)
        if existing is not None:
            if existing.getValueType() is not value_type:
                raise TskCoreException("attribute type %s exists with value type %r, asked for %r" % (
                    name, existing.getValueType(), value_type))
            return existing
        self.attribute_types[name] = AttributeType(self._next_type_id(self.attribute_types), name, display,
                                                   value_type)
        return self.attribute_types[name]

    def newDataArtifact(self, artifact_type, obj_id, ds_id, attributes, os_account, transaction=None):
        """Without a transaction, Blackboard.java begins and commits one of its own for the one artifact; with one,
        the artifact is in the case only once the transaction is committed (gone on rollback)."""
        if artifact_type.getCategory() != Category.DATA_ARTIFACT:
            raise TskCoreException("not a data artifact type: " + artifact_type.getTypeName())
        a = Artifact(self.next_artifact_id, artifact_type, obj_id, ds_id, attributes)
        self.next_artifact_id += 1
        if transaction is None:
            RECORD.transactions.append(["implicit", 1])
            self._add(a)
        else:
            transaction._made(a, self)
        return a

    def _add(self, a):
        self.artifacts.append(a)
        RECORD.artifacts.append(a)

    def postArtifacts(self, artifacts, module_name, job_id=None):
        """postArtifacts(Collection, String) in every release; (Collection, String, Long ingestJobId) from 4.12.0."""
        for a in artifacts:
            if a.posted:
                raise TskCoreException("artifact %d posted twice" % a.getArtifactID())
            if a not in self.artifacts:
                raise TskCoreException("artifact %d posted before its transaction was committed"
                                       % a.getArtifactID())
            a.posted = True
        RECORD.batches.append((len(artifacts), module_name, job_id))


class FileTypeEnum(object):
    def __init__(self, value):
        self.value = value

    def getValue(self):
        return self.value


class AbstractFile(object):
    def __init__(self, row):
        self.row = row

    def getId(self):
        return self.row["obj_id"]

    def getName(self):
        return self.row["name"]

    def getParentPath(self):
        return self.row["parent_path"]

    def getMetaAddr(self):
        return self.row["meta_addr"]

    def getMetaSeq(self):
        return self.row["meta_seq"]

    def getAttrType(self):
        return FileTypeEnum(self.row["attr_type"])

    def getAttributeId(self):
        return self.row["attr_id"]


FILE_COLUMNS = ("obj_id", "name", "parent_path", "meta_addr", "meta_seq", "attr_type", "attr_id")


def sqlite_lookup(db_path):
    """findAllFilesWhere on a tsk_loaddb database: SELECT … FROM tsk_files WHERE <clause> (as SleuthkitCase does)."""
    import sqlite3
    con = sqlite3.connect(db_path)

    def lookup(where):
        cur = con.execute("SELECT %s FROM tsk_files WHERE %s" % (", ".join(FILE_COLUMNS), where))
        return [dict(zip(FILE_COLUMNS, r)) for r in cur.fetchall()]
    return lookup


class Transaction(object):
    """SleuthkitCase.CaseDbTransaction: commit() or rollback(), once."""

    def __init__(self):
        self._pending = []
        self._blackboard = None
        self._done = False
        RECORD.transactions.append(["explicit", 0])
        self._record = RECORD.transactions[-1]

    def _made(self, artifact, blackboard):
        if self._done:
            raise TskCoreException("transaction already closed")
        self._pending.append(artifact)
        self._blackboard = blackboard
        self._record[1] += 1

    def commit(self):
        if self._done:
            raise TskCoreException("transaction already closed")
        self._done = True
        for a in self._pending:
            self._blackboard._add(a)

    def rollback(self):
        if self._done:
            raise TskCoreException("transaction already closed")
        self._done = True
        self._record[0] = "rolled back"


class SleuthkitCase(object):
    def __init__(self, lookup):
        self.lookup = lookup
        self.blackboard = Blackboard()
        self.queries = []

    def getBlackboard(self):
        return self.blackboard

    def beginTransaction(self):
        return Transaction()

    def findAllFilesWhere(self, where):
        self.queries.append(where)
        return [AbstractFile(r) for r in self.lookup(where)]


class Case(object):
    current = None

    def __init__(self, module_dir, sk_case):
        self.module_dir = module_dir
        self.sk_case = sk_case

    @staticmethod
    def getCurrentCaseThrows():  # noqa: N802
        return Case.current

    def getModuleDirectory(self):
        return self.module_dir

    def getSleuthkitCase(self):
        return self.sk_case

    def addReport(self, path, module_name, report_name):
        RECORD.reports.append((path, module_name, report_name))


class Logger(object):
    @staticmethod
    def getLogger(name):
        return Logger()

    def log(self, level, msg):
        RECORD.logs.append((level, msg))


class MessageType(object):
    DATA = "DATA"
    INFO = "INFO"
    WARNING = "WARNING"
    ERROR = "ERROR"


class IngestMessage(object):
    MessageType = MessageType

    @staticmethod
    def createMessage(message_type, source, subject, details=None):  # noqa: N802
        return (message_type, source, subject, details)


class IngestServices(object):
    _instance = None

    @staticmethod
    def getInstance():  # noqa: N802
        if IngestServices._instance is None:
            IngestServices._instance = IngestServices()
        return IngestServices._instance

    def postMessage(self, message):
        RECORD.messages.append(message)


class ProcessResult(object):
    OK = "OK"
    ERROR = "ERROR"


class IngestModule(object):
    ProcessResult = ProcessResult
    IngestModuleException = IngestModuleException


class _Base(object):
    pass


class GenericIngestModuleJobSettings(object):
    """org.sleuthkit.autopsy.ingest.GenericIngestModuleJobSettings, as Autopsy's
    Core/src/org/sleuthkit/autopsy/ingest/GenericIngestModuleJobSettings.java declares it: a public no-argument
    constructor, long getVersionNumber() (1), String getSettings(String key) (null for a missing key),
    void setSettings(String key, String value), void removeSettings(String key), over a HashMap<String, String>.
    A Java object takes no new Python attributes: __slots__ makes `settings.binary_path = x` fail here too."""
    __slots__ = ("_settings",)

    def __init__(self):
        self._settings = {}

    def getVersionNumber(self):  # noqa: N802
        return 1

    def getSettings(self, key):  # noqa: N802
        return self._settings.get(key)

    def setSettings(self, key, value):  # noqa: N802
        self._settings[key] = value

    def removeSettings(self, key):  # noqa: N802
        self._settings.pop(key, None)

    def serialised(self):
        """What Java serialisation keeps of it (its map), for a test's round trip; not part of the Java API."""
        return dict(self._settings)

    @staticmethod
    def deserialised(settings):
        out = GenericIngestModuleJobSettings()
        out._settings.update(settings)
        return out


class IngestModuleIngestJobSettingsPanel(object):
    def setLayout(self, layout):
        pass

    def add(self, component):
        pass


class Context(object):
    """IngestJobContext: cancelled once cancel_when() is true (checked at each poll), never by default."""

    def __init__(self, cancel_when=None):
        self.cancel_when = cancel_when
        self.polls = 0

    def dataSourceIngestIsCancelled(self):
        self.polls += 1
        return self.cancel_when is not None and bool(self.cancel_when())

    def getJobId(self):
        return 7


class ProgressBar(object):
    def switchToIndeterminate(self):
        RECORD.progress.append(("indeterminate",))

    def switchToDeterminate(self, units):
        RECORD.progress.append(("determinate", units))

    def progress(self, *args):
        RECORD.progress.append(("progress",) + tuple(args))


def install():
    """Registers the fake modules; the real java.* stay under Jython."""
    if not JYTHON:
        _module("java")
        _module("java.io", File=File)
        _module("java.lang", ProcessBuilder=ProcessBuilder)
        _module("java.util", ArrayList=ArrayList)
        _module("java.util.concurrent", TimeUnit=TimeUnit)
        _module("java.util.logging", Level=Level)
        _module("javax")
        _module("javax.swing", BoxLayout=BoxLayout, JCheckBox=_Widget, JLabel=_Widget, JTextField=_Widget)
    _module("org")
    _module("org.sleuthkit")
    _module("org.sleuthkit.autopsy")
    _module("org.sleuthkit.autopsy.casemodule", Case=Case)
    _module("org.sleuthkit.autopsy.coreutils", Logger=Logger)
    _module("org.sleuthkit.autopsy.ingest", DataSourceIngestModule=_Base,
            GenericIngestModuleJobSettings=GenericIngestModuleJobSettings, IngestMessage=IngestMessage,
            IngestModule=IngestModule, IngestModuleFactoryAdapter=_Base, IngestModuleIngestJobSettings=_Base,
            IngestModuleIngestJobSettingsPanel=IngestModuleIngestJobSettingsPanel, IngestServices=IngestServices)
    _module("org.sleuthkit.autopsy.ingest.IngestModule", IngestModuleException=IngestModuleException)
    _module("org.sleuthkit.datamodel", BlackboardArtifact=BlackboardArtifact,
            BlackboardAttribute=BlackboardAttribute, Image=Image, LocalDirectory=LocalDirectory,
            LocalFile=LocalFile, LocalFilesDataSource=LocalFilesDataSource, TimelineEventType=TimelineEventType,
            TskCoreException=TskCoreException)


def table_lookup(path):
    """findAllFilesWhere from a JSON table {WHERE clause: [file rows]} computed with sqlite_lookup (for Jython)."""
    import io
    import json
    with io.open(path, "r", encoding="utf-8") as f:
        table = json.load(f)

    def lookup(where):
        if where not in table:
            raise TskCoreException("no answer recorded for: " + where)
        return table[where]
    return lookup


def artifacts_as_json(artifacts):
    """What the fake blackboard holds, as plain JSON-able values (to compare runs across interpreters)."""
    out = []
    for a in artifacts:
        out.append({"type": a.artifact_type.getTypeName(), "type_id": a.artifact_type.getTypeID(),
                    "obj_id": a.obj_id, "ds_id": a.ds_id, "posted": a.posted,
                    "attributes": [[x.getAttributeType().getTypeName(), x.value] for x in a.attributes]})
    return out
