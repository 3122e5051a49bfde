"""The command line every end-to-end test script of this folder shares.

    <script> Class.test_NAME ... --binary PATH [--repo PATH] [--shim PATH]

tests/plugin/CMakeLists.txt runs each test as its own ctest entry this way. Each flag's value, made absolute, becomes
the module global of the flag's name in capitals (--binary → BINARY), which the tests read; the other arguments that
start with one of the script's class names are the tests to run. The exit status is 0 only when every test passed.
"""
import os
import sys
import unittest


def run(module, *prefixes, flags=("--binary", "--repo")):
    args = sys.argv[1:]
    for flag in flags:
        setattr(module, flag[2:].upper(), os.path.abspath(args[args.index(flag) + 1]))
    names = [a for a in args if a.startswith(prefixes)]
    suite = unittest.TestSuite(unittest.defaultTestLoader.loadTestsFromName(n, module) for n in names)
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    sys.exit(0 if result.wasSuccessful() else 1)
