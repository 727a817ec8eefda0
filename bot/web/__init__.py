"""The HTTP edge every front end shares: bounded request bodies."""
