"""Sharing work across replicas through Redis: single-flight with a short cache, and a semaphore."""

from bot.flight.flights import LOOKUP_REUSE_S, Flights, Via
from bot.flight.semaphore import SEMAPHORE_KEY, LocalLimit, RedisSemaphore

__all__ = ["LOOKUP_REUSE_S", "SEMAPHORE_KEY", "Flights", "LocalLimit", "RedisSemaphore", "Via"]
