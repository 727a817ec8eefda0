"""What a message carries explicitly, as read so far: the slots, names and pods of `Found`."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["MAX_FOUND", "NAMESPACE_PREFIX", "NAME_RE", "UUID", "UUID_RE", "Found"]

#: How many workload or pod names one message is read for (the engine answers a few).
MAX_FOUND = 16
#: The skill's default mapping: project `nlp` runs in namespace `runai-nlp`.
NAMESPACE_PREFIX = "runai-"

UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
UUID_RE = re.compile(rf"^{UUID}$")
NAME_RE = re.compile(r"^[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?$")


@dataclass
class Found:
    """What was read explicitly, and the text that is left for the free-text parser."""

    rest: str = ""
    cluster: str | None = None
    context: str | None = None
    """A `kubectl --context` value: a cluster only if it is one of the known clusters."""
    project: str | None = None
    guessed_project: str | None = None
    """A project read only from the shape of `a/b-1` or `b-1 (a)`: never over a typed one."""
    namespace: str | None = None
    """A namespace that does not read as `runai-<project>`: the project must be asked."""
    workload_id: str | None = None
    names: list[str] = field(default_factory=list)
    pods: list[str] = field(default_factory=list)
    listed: dict[str, str | None] = field(default_factory=dict)
    """The rows of a pasted `runai` list: each workload with its project (None: not certain).
    The workloads asked about when nothing else names one (`linking.merged`)."""
    ignored_uuids: set[str] = field(default_factory=set)

    @property
    def anything(self) -> bool:
        """Whether any identifier was read."""
        return bool(
            self.cluster or self.project or self.namespace or self.workload_id or self.names
        ) or bool(self.pods or self.listed)

    def add_name(self, name: str) -> None:
        """A workload name, once (at most `MAX_FOUND`)."""
        folded = name.lower()
        if len(self.names) < MAX_FOUND and NAME_RE.match(folded) and folded not in self.names:
            self.names.append(folded)

    def add_pod(self, pod: str) -> None:
        """A pod name, once (at most `MAX_FOUND`)."""
        folded = pod.lower()
        if len(self.pods) < MAX_FOUND and NAME_RE.match(folded) and folded not in self.pods:
            self.pods.append(folded)

    def add_listed(self, name: str, project: str | None) -> None:
        """A row of a pasted `runai` list, once (at most `MAX_FOUND`)."""
        folded, in_project = name.lower(), project.lower() if project else None
        if in_project is not None and not NAME_RE.match(in_project):
            in_project = None
        if len(self.listed) < MAX_FOUND and NAME_RE.match(folded) and folded not in self.listed:
            self.listed[folded] = in_project

    def set_namespace(self, namespace: str) -> None:
        """`runai-<project>` names the project; any other namespace is kept to ask about."""
        folded = namespace.lower()
        if not NAME_RE.match(folded):
            return  # `runai-nlp/bert-ft-0-0` is no namespace (a name never holds a `/`)
        if folded.startswith(NAMESPACE_PREFIX) and len(folded) > len(NAMESPACE_PREFIX):
            self.project = self.project or folded[len(NAMESPACE_PREFIX) :]
        elif self.project is None:
            self.namespace = self.namespace or folded
