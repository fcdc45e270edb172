"""Pinax: a documentation-index MCP server for coding agents."""

__version__ = "0.1.0"
