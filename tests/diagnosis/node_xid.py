"""Scenario `t2-ddp-node-xid` (a node lost to an XID error) and the request its answer expects."""

from __future__ import annotations

from bot.app.demo.scenarios import bundled_scenario, request_from_expectation

__all__ = ["NODE_XID", "REQUEST"]

NODE_XID = bundled_scenario("t2-ddp-node-xid")
REQUEST = request_from_expectation(NODE_XID, NODE_XID.expect[0])
