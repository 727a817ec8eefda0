"""Sharing work across replicas through Redis: single-flight with a short cache, and a semaphore."""

from bot.durable.flight.flights import FLIGHT_LOCK_TTL_S, LOOKUP_REUSE_S, Flights, Via
from bot.durable.flight.semaphore import SEMAPHORE_KEY, LocalLimit, RedisSemaphore

__all__ = [
    "FLIGHT_LOCK_TTL_S",
    "LOOKUP_REUSE_S",
    "SEMAPHORE_KEY",
    "Flights",
    "LocalLimit",
    "RedisSemaphore",
    "Via",
]
