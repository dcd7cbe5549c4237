"""Tests for todo.py; run with `python3 -m unittest` from the project root."""

import contextlib
import io
import os
import tempfile
import unittest

import todo


class TodoTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        todo.STORE = os.path.join(self.dir.name, "todo.json")
        self.addCleanup(self.dir.cleanup)

    def run_cli(self, *argv):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            todo.main(list(argv))
        return out.getvalue()

    def test_add_then_list(self):
        self.run_cli("add", "water the plants")
        self.assertEqual(self.run_cli("list"), "[ ] #1 water the plants\n")

    def test_done_marks_the_task(self):
        self.run_cli("add", "call mum")
        self.run_cli("done", "1")
        self.assertIn("[x] #1 call mum", self.run_cli("list"))


if __name__ == "__main__":
    unittest.main()
