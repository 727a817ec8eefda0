"""The report buttons' limits (`bot.render.actions`) are Slack's, as slack_sdk states them."""

from __future__ import annotations

from slack_sdk.models.blocks import ButtonElement

from bot.render.actions import URL_MAX, VALUE_MAX


def test_the_button_limits_are_slacks():
    assert (ButtonElement.value_max_length, ButtonElement.url_max_length) == (VALUE_MAX, URL_MAX)
