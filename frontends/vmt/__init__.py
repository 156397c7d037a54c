"""VMT-LIB: SMT-LIB transition systems annotated with :next, :init, :trans, :invar-property."""
