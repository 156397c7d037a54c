"""Other tools' command-line spellings, translated to kinduct's before the parser sees them."""
