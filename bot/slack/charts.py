"""Puts a report's memory chart into its Slack thread with files upload v2.

`files_upload_v2` is slack_sdk's own implementation of the three steps
(`files.getUploadURLExternal`, the upload, `files.completeUploadExternal`). The chart is
shared into the answer's thread once the answer is shown (the answer itself carries the
sparkline). A chart that cannot be drawn or uploaded is logged and left out: the answer
never waits on it or fails because of it.
"""

from __future__ import annotations

import aiohttp
import structlog
from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.web.async_client import AsyncWebClient

from bot.render.drawing import draw_memory_chart
from bot.slack.render.blocks import ChartImage
from diagnosis import Report

__all__ = ["CHART_FILENAME", "upload_chart"]

CHART_FILENAME = "cpu-memory.png"


async def upload_chart(
    client: AsyncWebClient, report: Report, *, channel: str, thread_ts: str | None
) -> ChartImage | None:
    """Draw and upload the report's memory chart; None when there is none or it failed."""
    log = structlog.get_logger(__name__)
    if report.memory is None or not report.memory.samples or report.workload is None:
        return None
    chart = await draw_memory_chart(report.memory, workload=report.workload.name)
    if chart is None:
        return None
    try:
        done = await client.files_upload_v2(
            content=chart.png,
            filename=CHART_FILENAME,
            title=chart.title,
            alt_txt=chart.alt_text,
            channel=channel,
            thread_ts=thread_ts,
        )
    except SlackApiError as error:
        log.warning("slack_chart_upload_failed", error=error.response.get("error"))
        return None
    except (SlackClientError, aiohttp.ClientError, TimeoutError, OSError) as error:
        log.warning("slack_chart_upload_failed", error=type(error).__name__)
        return None
    file_id = (done.get("file") or {}).get("id")
    if not isinstance(file_id, str) or not file_id:
        log.warning("slack_chart_upload_failed", error="no file id in the answer")
        return None
    return ChartImage(file_id=file_id, alt_text=chart.alt_text, title=chart.title)
