"""The ``fiveplay`` command line: every verb, and what a newcomer meets first."""
