"""kinduct-toy: a template kinduct plugin adding a frontend for ``.toy`` counter files."""
