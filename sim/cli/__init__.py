"""The command line: options and printing; the work is done below it."""
