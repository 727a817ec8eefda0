"""The base of every Run:ai response model: camelCase on the wire, tolerant of new fields."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

__all__ = ["ApiModel"]


class ApiModel(BaseModel):
    """Base: camelCase on the wire, snake_case in Python, unknown fields ignored, times in UTC."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="ignore",
        frozen=True,
    )
