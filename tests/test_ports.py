"""`free_port`: a port another process can bind, outside the range outgoing connections use."""

from __future__ import annotations

import socket

from tests.ports import _LOWEST, _ephemeral_start, free_port


def test_the_port_is_free_and_below_the_ephemeral_range():
    ports = {free_port() for _ in range(20)}
    for port in ports:
        assert _LOWEST <= port < _ephemeral_start()
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", port))  # nothing took it
    assert len(ports) > 1  # drawn at random, so two test sessions rarely meet


def test_a_taken_port_is_never_handed_out(monkeypatch):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        monkeypatch.setattr("tests.ports._LOWEST", port)
        monkeypatch.setattr("tests.ports._ephemeral_start", lambda: port + 1)
        chosen = free_port()  # the only candidate is taken: the kernel chooses instead
    assert chosen != port
