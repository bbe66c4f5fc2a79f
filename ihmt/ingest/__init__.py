"""Ingestion: detect the document type and domain, split it into leaves."""
