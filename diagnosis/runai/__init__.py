"""The Run:ai control-plane client: auth, read-only transport, typed responses."""
