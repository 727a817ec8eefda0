"""Redis primitives: connections, lease renewal, single-flight and the shared call limits."""
