"""The HTTP edge every front end shares: the `FrontEnd` shape, bounded bodies, refusals."""
