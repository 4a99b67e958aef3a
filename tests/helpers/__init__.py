"""Helpers shared by test files in more than one folder of tests/ (imported as
``helpers.<module>``; tests/conftest.py's folder is on ``sys.path``)."""
