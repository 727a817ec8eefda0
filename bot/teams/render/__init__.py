"""Teams' renderers: planned reports, questions and notices as Adaptive Cards; pure, no I/O."""
