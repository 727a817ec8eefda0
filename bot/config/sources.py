"""Reading the concerns' flat variable names (`SLACK_BOT_TOKEN`) from the environment and `.env`.

pydantic-settings reads a nested model from one variable (`SLACK='{"bot_token": …}'`) or from
delimited names (`SLACK__BOT_TOKEN`). The names users have are flat, so `Settings` replaces
its environment and `.env` sources with `FlatNames`, which asks the same source for every
concern's fields by their aliases, and `route` puts each value into its concern.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_settings import (
    BaseSettings,
    DotEnvSettingsSource,
    EnvSettingsSource,
    PydanticBaseSettingsSource,
)

from bot.config.base import Concern, ConfigError

__all__ = ["FlatNames", "concern_fields", "route"]


def concerns(settings_cls: type[BaseModel]) -> Iterator[tuple[str, type[Concern]]]:
    """Each field of `settings_cls` that is a concern, with its model."""
    for name, field in settings_cls.model_fields.items():
        model = field.annotation
        if isinstance(model, type) and issubclass(model, Concern):
            yield name, model


def concern_fields(settings_cls: type[BaseModel]) -> Iterator[tuple[str, str, FieldInfo]]:
    """(concern, variable name in lower case, field) for every field of every concern."""
    for concern, model in concerns(settings_cls):
        for name, field in model.model_fields.items():
            yield concern, _alias(model, name), field


class FlatNames(PydanticBaseSettingsSource):
    """One environment source (the process's variables or `.env`), read by flat names."""

    def __init__(
        self, settings_cls: type[BaseSettings], source: PydanticBaseSettingsSource
    ) -> None:
        super().__init__(settings_cls)
        if not isinstance(source, EnvSettingsSource):  # `.env`'s source is one too
            raise TypeError(f"FlatNames reads an EnvSettingsSource, not {source!r}")
        self._source = source

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        """The variable named by `field`'s alias (JSON not yet decoded), as the source has it."""
        return self._source.get_field_value(field, field_name)

    def __call__(self) -> dict[str, Any]:
        """Every concern field's value that the source has, by its variable name (lower case)."""
        found: dict[str, Any] = {}
        for _, name, field in concern_fields(self.settings_cls):
            value, key, is_complex = self._source.get_field_value(field, name)
            try:
                value = self._source.prepare_field_value(name, field, value, is_complex)
            except ValueError as error:  # JSON that does not parse: the position, not the text
                where = " (in .env)" if isinstance(self._source, DotEnvSettingsSource) else ""
                raise ConfigError(f"{key.upper()}{where} is not valid JSON: {error}") from None
            if value is not None:
                found[key] = value
        return found

    def __repr__(self) -> str:
        return f"FlatNames({self._source!r})"


def _alias(model: type[BaseModel], name: str) -> str:
    alias = model.model_fields[name].validation_alias
    return alias if isinstance(alias, str) else name


def route(settings_cls: type[BaseModel], data: dict[str, Any]) -> dict[str, Any]:
    """Flat values (`{"slack_bot_token": …}`) moved into their concerns (`{"slack": {…}}`).

    Names are matched in any case, as the environment's are. A concern given whole (a model
    or a mapping) is kept, with any flat value for one of its fields laid over it.
    """
    owners = {name: concern for concern, name, _ in concern_fields(settings_cls)}
    routed: dict[str, Any] = {}
    flat: dict[str, dict[str, Any]] = {}
    for key, value in data.items():
        concern = owners.get(key.lower())
        if concern is None:
            routed[key] = value
        else:
            flat.setdefault(concern, {})[key.lower()] = value
    for concern, values in flat.items():
        given = routed.get(concern)
        if isinstance(given, BaseModel):  # by variable name, as `values` are
            given = {_alias(type(given), name): value for name, value in given.model_dump().items()}
        routed[concern] = {**(given or {}), **values}
    return routed
