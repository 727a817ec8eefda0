"""Times in UTC: parsed from upstream with any offset (or none), printed in UTC with their `Z`."""

from __future__ import annotations

import importlib
import pkgutil
import typing
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from pydantic import AfterValidator, BaseModel
from pydantic.fields import FieldInfo

import diagnosis.kube
import diagnosis.runai
from diagnosis.kube.event_models import KubeEvent
from diagnosis.kube.models import Pod as KubePod
from diagnosis.kube.scheduling_models import SchedulingCondition
from diagnosis.lexicon import SignalKind
from diagnosis.moments import ISO, in_utc, restated, utc_text
from diagnosis.redact import Redactor
from diagnosis.rules.base import cite
from diagnosis.runai.models import Workload
from diagnosis.runai.scheduling_models import Telemetry
from diagnosis.signals import events_signals
from tests.factories import CLUSTER, WORKLOAD_ID, event

UTC_0816 = datetime(2025, 11, 4, 8, 16, 37, tzinfo=UTC)

WIRE = [
    # what upstream sent, the moment it is
    pytest.param("2025-11-04T08:16:37Z", UTC_0816, id="z"),
    pytest.param("2025-11-04T08:16:37z", UTC_0816, id="lower-z"),
    pytest.param("2025-11-04T10:16:37+02:00", UTC_0816, id="plus-two"),
    pytest.param("2025-11-04T02:46:37-05:30", UTC_0816, id="minus-five-thirty"),
    pytest.param("2025-11-04T08:16:37", UTC_0816, id="naive-is-utc"),
    pytest.param("2025-11-04T08:16:37.000000+00:00", UTC_0816, id="fraction"),
]


@pytest.mark.parametrize(("sent", "moment"), WIRE)
def test_every_model_reads_a_time_in_utc(sent, moment):
    """Run:ai and Kubernetes models alike: an offset is converted, no offset is UTC."""
    workload = Workload.model_validate(
        {"id": WORKLOAD_ID, "name": "w", "clusterId": CLUSTER, "phaseUpdatedAt": sent}
    )
    kube = KubePod.model_validate({"metadata": {"name": "p", "creationTimestamp": sent}})
    event = KubeEvent.model_validate({"lastTimestamp": sent})
    telemetry = Telemetry.model_validate({"type": "READY_GPUS", "timestamp": sent})
    condition = SchedulingCondition.model_validate({"lastTransitionTime": sent})
    for parsed in (
        workload.phase_updated_at,
        kube.metadata.creation_timestamp,
        event.last_timestamp,
        telemetry.timestamp,
        condition.last_transition_time,
    ):
        assert parsed == moment
        assert parsed.tzinfo is UTC


PRINTED = [
    # moment, form, text
    pytest.param(
        datetime.fromisoformat("2025-11-04T10:16:37"), None, "2025-11-04 10:16:37Z", id="naive"
    ),
    pytest.param(
        datetime.fromisoformat("2025-11-04T10:16:37+02:00"),
        None,
        "2025-11-04 08:16:37Z",
        id="plus-two",
    ),
    pytest.param(
        datetime.fromisoformat("2025-11-04T23:30:00-02:00"),
        "%Y-%m-%d",
        "2025-11-05",
        id="the-date-is-utc-too",
    ),
    pytest.param(UTC_0816, ISO, "2025-11-04T08:16:37Z", id="iso"),
]


@pytest.mark.parametrize(("moment", "form", "text"), PRINTED)
def test_a_time_is_printed_in_utc(moment, form, text):
    assert (utc_text(moment) if form is None else utc_text(moment, form)) == text
    assert in_utc(moment).tzinfo is UTC


def test_a_cited_event_at_an_offset_is_cited_in_utc():
    """The review's case: an event created at 10:16:37+02:00 happened at 08:16:37Z."""
    said = event(
        "OOMKilled", "Container tokenizer was OOMKilled", createdAt="2025-11-04T10:16:37+02:00"
    )
    (signal,) = [s for s in events_signals([said], Redactor()) if s.kind is SignalKind.OOM_KILLED]
    assert "at 2025-11-04 08:16:37Z:" in cite(signal).text
    elsewhere = signal.model_copy(
        update={"at": datetime.fromisoformat("2025-11-04T10:16:37+02:00")}
    )
    assert "at 2025-11-04 08:16:37Z:" in cite(elsewhere).text


def _fields() -> Iterator[tuple[str, FieldInfo]]:
    """Every field of every response model the Run:ai and Kubernetes clients parse into."""
    for package in (diagnosis.runai, diagnosis.kube):
        for found in pkgutil.iter_modules(package.__path__):
            module = importlib.import_module(f"{package.__name__}.{found.name}")
            for model in vars(module).values():
                if (
                    isinstance(model, type)
                    and issubclass(model, BaseModel)
                    and model.__module__ == module.__name__
                ):
                    for name, field in model.model_fields.items():
                        yield f"{module.__name__}.{model.__name__}.{name}", field


def _times(annotation: object, metadata: list[object]) -> Iterator[bool]:
    """For each `datetime` in `annotation`: whether it is converted to UTC (`UtcTime`)."""
    if annotation is datetime:
        yield any(isinstance(m, AfterValidator) and m.func is in_utc for m in metadata)
        return
    if typing.get_origin(annotation) is typing.Annotated:
        inner, *more = typing.get_args(annotation)
        yield from _times(inner, [*metadata, *more])
        return
    for argument in typing.get_args(annotation):
        yield from _times(argument, [])


def test_every_time_a_response_model_parses_is_read_in_utc():
    """A time field typed plain `datetime` would keep its offset and print with a wrong `Z`."""
    fields = dict(_fields())
    timed = {name: list(_times(f.annotation, list(f.metadata))) for name, f in fields.items()}
    timed = {name: converted for name, converted in timed.items() if converted}
    assert len(timed) > 30  # the walk found the models
    assert [name for name, converted in timed.items() if not all(converted)] == []


#: A time quoted in upstream text, said again in the answer's own words: as `utc_text` prints
#: it whatever its offset; anything that is not a date with a time of day, as written.
RESTATED = [
    *(pytest.param(sent, "2025-11-04 08:16:37Z", id=f"restated-{p.id}") for p in WIRE
      for sent in p.values[:1]),
    pytest.param("2025-11-04", "2025-11-04", id="a-date-alone-is-not-a-moment"),
    pytest.param("soon", "soon", id="not-a-time"),
    pytest.param("2025-13-04T08:16:37Z", "2025-13-04T08:16:37Z", id="no-such-month"),
]  # fmt: skip


@pytest.mark.parametrize(("quoted", "said"), RESTATED)
def test_a_quoted_time_is_restated_in_utc(quoted: str, said: str):
    assert restated(quoted) == said
