"""A simulated NVIDIA Run:ai control plane that serves a scenario file over real HTTP."""

from runai_sim.app import RecordedRequest, Simulator
from runai_sim.faults import FaultRule
from runai_sim.scenario import Scenario, ScenarioError
from runai_sim.scenario_parts import (
    DEFAULT_CLIENT_ID,
    DEFAULT_CLIENT_SECRET,
    Credentials,
    WorkloadEntry,
)
from runai_sim.server import run, serve, serve_in_thread

__all__ = [
    "DEFAULT_CLIENT_ID",
    "DEFAULT_CLIENT_SECRET",
    "Credentials",
    "FaultRule",
    "RecordedRequest",
    "Scenario",
    "ScenarioError",
    "Simulator",
    "WorkloadEntry",
    "run",
    "serve",
    "serve_in_thread",
]
