"""The specifications: one folder per part of the package."""
