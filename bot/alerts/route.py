"""`POST /alerts/alertmanager`: Alertmanager's webhook, authenticated, then queued per alert.

The bearer token (`ALERTMANAGER_TOKEN`) is compared in constant time before a byte of the
body is read; then the body is read within its cap, measured for nesting and parsed
(`bot.web.body`), and checked as a version 4 payload. Each alert whose labels name a
Run:ai workload in a project `ALERT_CHANNELS` gives a channel becomes a work item,
deduplicated by its fingerprint, start and status in the same atomic step that queues it, so
Alertmanager's repeats and group updates post nothing twice. Resolved alerts are taken first
and outside the group's bound (each is a note in an existing thread, no Run:ai call). Firing
ones are bounded: those about one workload are one item (`merged`), and past
`ALERT_MAX_PER_GROUP` items the rest are `excess`, answered 503 so Alertmanager sends the
group again, where the ones taken are duplicates and the next ones are taken. Pushed items
have their own bound in the queue, apart from people's requests. The answer says what was
taken; 503 (Redis down, the pushed items' bound reached, `excess`) makes Alertmanager send
the group again, and what was already taken is then a duplicate.
"""

from __future__ import annotations

import hmac
from http import HTTPStatus

import structlog
from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from bot.alerts.channels import AlertChannels
from bot.alerts.labels import Unmapped, read_alert
from bot.alerts.payload import Webhook
from bot.ops.metrics import ALERTS_RECEIVED, ALERTS_UNMAPPED, PUSH_NEW_FAILURES, PUSH_SUPPRESSED
from bot.ops.observe import begin_request
from bot.push import AlertSpec, alert_item
from bot.web.body import Refused, load_json, read_body
from bot.web.refusal import refusal
from bot.work import Intake, QueueUnavailable, WorkQueue, admit

__all__ = ["ALERT_DEDUPE_TTL_S", "MAX_BODY_BYTES", "PATH", "AlertIngress"]

PATH = "/alerts/alertmanager"
MAX_BODY_BYTES = 1 << 20
#: An alert's repeats (Alertmanager's `repeat_interval`, 4 h by default) are dropped for a week.
ALERT_DEDUPE_TTL_S = 7 * 86_400


def _plain(status: HTTPStatus, reason: str) -> Response:
    headers = {"WWW-Authenticate": "Bearer"} if status is HTTPStatus.UNAUTHORIZED else None
    return refusal("alert_request_rejected", status, reason, headers)


class AlertIngress:
    """The route, with its token, queue and the `ALERT_CLUSTER` of a one-cluster install."""

    def __init__(
        self,
        token: str,
        queue: WorkQueue,
        *,
        channels: AlertChannels,
        default_cluster: str | None,
        deadline_s: float,
        max_per_group: int,
    ) -> None:
        self._expected = f"Bearer {token}".encode()
        self._queue = queue
        self._channels = channels
        self._default_cluster = default_cluster
        self._deadline_s = deadline_s
        self._max_per_group = max_per_group
        self._log = structlog.get_logger(__name__)

    def routes(self) -> list[Route]:
        """`POST /alerts/alertmanager`."""
        return [Route(PATH, self.receive, methods=["POST"])]

    async def receive(self, request: Request) -> Response:
        """Authenticate, read, check, and queue each mappable alert once."""
        begin_request()
        sent = request.headers.get("authorization", "").encode()
        if not hmac.compare_digest(sent, self._expected):
            return _plain(HTTPStatus.UNAUTHORIZED, "bad or missing bearer token")
        try:
            hook = Webhook.model_validate(load_json(await read_body(request, MAX_BODY_BYTES)))
        except Refused as refused:
            return _plain(refused.status, f"body {refused.reason}")
        except ValidationError as error:
            return _plain(
                HTTPStatus.BAD_REQUEST, f"not a version 4 payload ({error.error_count()})"
            )
        if hook.truncatedAlerts:
            self._log.warning("alerts_truncated", truncated=hook.truncatedAlerts)
        tally = dict.fromkeys(("queued", "duplicates", "unmapped", "merged", "excess"), 0)
        mapped: list[AlertSpec] = []
        for alert in hook.alerts:
            ALERTS_RECEIVED.labels(status=alert.status).inc()
            spec = read_alert(alert, default_cluster=self._default_cluster)
            if not isinstance(spec, Unmapped):
                reason = await self._channels.refusal(spec.cluster or "", spec.project or "")
                spec = Unmapped(reason) if reason else spec
            if isinstance(spec, Unmapped):
                tally["unmapped"] += 1
                ALERTS_UNMAPPED.labels(reason=spec.reason).inc()
                self._log.warning(
                    "alert_unmapped",
                    reason=spec.reason,
                    alertname=alert.label("alertname"),
                    fingerprint=alert.fingerprint,
                )
                continue
            mapped.append(spec)
        # Resolutions first and unbounded: an `excess` one would leave its thread firing.
        mapped.sort(key=lambda spec: spec.status != "resolved")
        firing: set[tuple[str | None, ...]] = set()
        taken = 0  # firing items queued by this request: duplicates take no place
        for spec in mapped:
            outcome = await self._take(spec, firing, taken=taken)
            if outcome is None:
                return PlainTextResponse("Service Unavailable", status_code=503)
            tally[outcome] += 1
            if spec.status == "firing" and outcome == "queued":
                taken += 1
        if tally["merged"] or tally["excess"]:
            self._log.info("alert_group_bounded", merged=tally["merged"], excess=tally["excess"])
        # `excess`: sent again soon (Alertmanager retries a 5xx), and the next ones taken.
        return JSONResponse(tally, status_code=503 if tally["excess"] else 200)

    async def _take(
        self, spec: AlertSpec, firing: set[tuple[str | None, ...]], *, taken: int
    ) -> str | None:
        """Queue one mapped alert: what became of it (a key of the answer); None: 503.

        `taken`: the firing items this request queued so far (a resolved alert is not bounded).
        `firing`: the workloads of this group's firing alerts so far (one item each), whether
        queued now or before (a duplicate), so a later send of the group merges them alike.
        """
        if spec.status == "firing":
            workload = (
                spec.cluster,
                spec.project,
                spec.workload_id or spec.workload_name or spec.pod,
            )
            if workload in firing:
                PUSH_SUPPRESSED.labels(reason="merged").inc()
                return "merged"
            firing.add(workload)
            if taken >= self._max_per_group:
                PUSH_SUPPRESSED.labels(reason="excess").inc()
                return "excess"
        item = alert_item(spec, deadline_s=self._deadline_s)
        dedupe = f"alert:{spec.key}:{spec.status}"
        try:
            result = await admit(self._queue, item, dedupe=dedupe, dedupe_ttl_s=ALERT_DEDUPE_TTL_S)
        except QueueUnavailable as error:
            self._log.warning("alert_not_queued", error=str(error))
            return None
        if result.intake is Intake.FULL:
            return None
        if result.intake is Intake.DUPLICATE:
            PUSH_SUPPRESSED.labels(reason="duplicate").inc()
            return "duplicates"
        if spec.status == "firing":
            PUSH_NEW_FAILURES.labels(source="alert").inc()
        return "queued"
