"""Pure renderers: a `Report` in, text or Block Kit out; no I/O."""
