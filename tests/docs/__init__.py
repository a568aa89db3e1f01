"""The documentation: the rule book, the site build, every example of the site and the README."""
