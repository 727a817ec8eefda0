"""The fake's files upload v2 flow, driven by slack_sdk's own `files_upload_v2`."""

from __future__ import annotations

from typing import Any

import pytest
from slack_sdk.errors import SlackApiError, SlackRequestError
from slack_sdk.web.async_client import AsyncWebClient

from tests.bot.slack.fake_slack import UPLOAD, FakeSlack

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4


def _client(fake: FakeSlack) -> AsyncWebClient:
    return AsyncWebClient(token="xoxb-test", base_url=fake.base_url)


def _image(file_id: str) -> list[dict[str, Any]]:
    return [{"type": "image", "alt_text": "chart", "slack_file": {"id": file_id}}]


async def test_upload_v2_into_a_thread_then_show_it_in_an_image_block(fake_slack: FakeSlack):
    client = _client(fake_slack)
    done = await client.files_upload_v2(
        content=PNG, filename="memory.png", title="CPU memory", alt_txt="a chart",
        channel="C1", thread_ts="1700000000.000100",
    )  # fmt: skip
    file_id = done["file"]["id"]
    [upload] = fake_slack.files()
    assert (upload.id, upload.data, upload.title, upload.alt_txt) == (
        file_id, PNG, "CPU memory", "a chart",
    )  # fmt: skip
    assert (upload.channel, upload.thread_ts, upload.completed) == ("C1", "1700000000.000100", True)
    [raw] = fake_slack.calls(UPLOAD)
    assert "authorization" not in raw.headers  # the upload URL is pre-authorised.
    [shared] = [m for m in fake_slack.messages("C1") if m.get("files")]
    assert shared["thread_ts"] == "1700000000.000100"
    posted = await client.chat_postMessage(channel="C1", text="chart", blocks=_image(file_id))
    assert posted["ok"]
    assert fake_slack.violations == []


@pytest.mark.parametrize(
    ("channel", "post_in", "file_id"),
    [
        (None, "C1", None),  # kept private: no channel can show it.
        ("C2", "C1", None),  # shared elsewhere.
        ("C1", "C1", "F9999999999"),  # never uploaded.
    ],
)
async def test_an_image_block_of_a_file_this_channel_cannot_see_is_invalid_blocks(
    fake_slack: FakeSlack, channel: str | None, post_in: str, file_id: str | None
):
    client = _client(fake_slack)
    done = await client.files_upload_v2(content=PNG, filename="m.png", channel=channel)
    with pytest.raises(SlackApiError) as error:
        await client.chat_postMessage(
            channel=post_in, text="chart", blocks=_image(file_id or done["file"]["id"])
        )
    assert error.value.response["error"] == "invalid_blocks"


async def test_a_failed_upload_step_fails_the_flow_and_nothing_is_completed(fake_slack: FakeSlack):
    fake_slack.fail_next(UPLOAD, status=500)
    with pytest.raises(SlackRequestError, match="Failed to upload a file"):
        await _client(fake_slack).files_upload_v2(content=PNG, filename="m.png", channel="C1")
    [upload] = fake_slack.files()
    assert (upload.data, upload.completed) == (None, False)
    assert fake_slack.calls("files.completeUploadExternal") == []


@pytest.mark.parametrize(
    ("method", "args", "error"),
    [
        ("files.getUploadURLExternal", {"filename": "m.png", "length": 0}, "invalid_arguments"),
        ("files.getUploadURLExternal", {"length": 10}, "invalid_arguments"),
        ("files.completeUploadExternal", {"files": "[]"}, "invalid_arguments"),
        ("files.completeUploadExternal", {"files": "not json"}, "invalid_arguments"),
        ("files.completeUploadExternal", {"files": '[{"id": "F0000000001"}]'}, "file_not_found"),
        ("assistant.threads.setStatus", {"channel_id": "C1", "status": "x"}, "invalid_arguments"),
    ],
)
async def test_bad_arguments_are_refused_as_slack_does(
    fake_slack: FakeSlack, method: str, args: dict[str, Any], error: str
):
    with pytest.raises(SlackApiError) as raised:
        await _client(fake_slack).api_call(method, params=args)
    assert raised.value.response["error"] == error


async def test_set_status_and_clear_it(fake_slack: FakeSlack):
    client = _client(fake_slack)
    for status in ("is diagnosing…", ""):
        answer = await client.assistant_threads_setStatus(
            channel_id="C1", thread_ts="1700000000.000100", status=status
        )
        assert answer["ok"]
    assert [c.body["status"] for c in fake_slack.calls("assistant.threads.setStatus")] == [
        "is diagnosing…",
        "",
    ]
