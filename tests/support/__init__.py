"""Helpers shared by tests: builders of realistic input files."""
