"""Small helpers every layer uses: strict JSON, pointers, bounded memos and regular expressions, private files."""
