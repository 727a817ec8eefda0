"""What a message asks, slot by slot (`Query`), and what the bot last asked for (`Expecting`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from bot.conversation.intent import FollowUp
from diagnosis import Symptom

__all__ = ["Expecting", "Query"]


class Expecting(StrEnum):
    """What the bot last asked for, so a bare reply like `prod-a` lands in the right slot."""

    CLUSTER = "cluster"
    PROJECT = "project"
    WORKLOAD = "workload"


@dataclass(frozen=True)
class Query:
    """What the user said, slot by slot. `cluster` may be a UUID or a cluster name.

    `pick` is a bare number (the n-th button, from 1); `chatter` marks thanks and small
    talk, which the bot does not answer; `follow_up` is a request about the last answer;
    `ignored_chars` counts what was not read past the cap (`parse_bounds`); `others`
    are further workload-like names after the first (`why did a-1 and b-2 fail`).
    `cluster_options`/`project_options` are the values named for a slot left empty
    (`on prod-a or prod-b`): which one is asked, never picked; `excluded` are the names
    said not to be meant (`not nlp`), never a value; `versions` are version-shaped words
    read only as what failed (`why did qwen-2.5 fail`), a workload only when no other name
    is one (`understand.linking`: `python-3.11 crashed training-job-42` asks about the job);
    `placed` are the cluster and project read only from a preposition (`on X`, `at X`,
    `in X`), where a workload stands too (`OOM on train-bert`: `linking.as_workload`).
    """

    cluster: str | None = None
    workload_id: str | None = None
    workload_name: str | None = None
    project: str | None = None
    lookback: str | None = None
    symptom: Symptom | None = None
    help: bool = False
    problems: tuple[str, ...] = field(default=())
    pick: int | None = None
    follow_up: FollowUp | None = None
    chatter: bool = False
    ignored_chars: int = 0
    others: tuple[str, ...] = field(default=())
    cluster_options: tuple[str, ...] = field(default=())
    project_options: tuple[str, ...] = field(default=())
    excluded: tuple[str, ...] = field(default=())
    versions: tuple[str, ...] = field(default=())
    placed: tuple[str, ...] = field(default=(), compare=False)

    @property
    def names_something(self) -> bool:
        """Whether it names a workload, cluster or project (a new or corrected request)."""
        named = (self.cluster, self.workload_id, self.workload_name, self.project)
        return any(named) or bool(self.cluster_options or self.project_options)

    @property
    def is_empty(self) -> bool:
        """Nothing the bot can use: no slot, no pick, no follow-up, no help."""
        return not (
            self.names_something or self.lookback or self.symptom or self.pick or self.follow_up
        ) and not (self.help or self.problems)
