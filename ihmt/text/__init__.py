"""Text utilities: tokenizing, stop words, keywords, extractive summaries, dates."""
