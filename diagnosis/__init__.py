"""runai-why's diagnosis engine: why did this Run:ai workload fail?

The curated public API. `bot/` (and anything else) imports only these names; everything
else in the package is an implementation detail. The `.importlinter` contract
"bot/ imports only what diagnosis/__init__.py exports" enforces it (`lint-imports`).

    async with RunaiClient(config) as runai:
        report = await diagnose(DiagnosisRequest(cluster_id=..., workload_id=...), runai=runai)
"""

from diagnosis.access import AccessDenied, Authorize, DepartmentAccess, WorkloadAccess
from diagnosis.errors import (
    AuthError,
    DiagnosisError,
    InvalidRequest,
    NotFound,
    UpstreamError,
    UpstreamTimeout,
    UpstreamUnavailable,
)
from diagnosis.http.limit import NO_LIMIT, CallLimiter
from diagnosis.http.transport import network_transport
from diagnosis.kube import KubeAccess, KubeAccessError, KubeTarget
from diagnosis.kube.reader import KubeConnector, KubeDirectory
from diagnosis.literals import Prefilter
from diagnosis.moments import in_utc, utc_text
from diagnosis.pipeline import DEFAULT_DEADLINE_S, diagnose
from diagnosis.redact import Redactor
from diagnosis.report import Category, EvidenceLine, Outcome, Report
from diagnosis.report_facts import Party, PendingFacts, PreemptionFacts
from diagnosis.report_parts import (
    Change,
    Changes,
    MemoryFigures,
    MemorySample,
    Recurrence,
    WorkloadRef,
)
from diagnosis.request import (
    DEFAULT_LOOKBACK,
    DiagnosisRequest,
    Symptom,
    parse_lookback,
    valid_name,
)

# The access model (per-user authorization, bot/authz): read with RunaiClient's
# list_access_rules, find_users, list_roles, list_projects and list_departments.
from diagnosis.runai.access_models import (
    AccessRule,
    Department,
    Permission,
    Project,
    Role,
    RunaiUser,
)
from diagnosis.runai.client import RunaiClient
from diagnosis.runai.config import RunaiConfig
from diagnosis.runai.models import Cluster
from diagnosis.runai.reader import RunaiReader
from diagnosis.sharing import Payload, Share, SharedLookups
from diagnosis.stages import STAGE_NAMES, StageObserver
from diagnosis.viewer import for_viewer

__all__ = [
    "DEFAULT_DEADLINE_S",
    "DEFAULT_LOOKBACK",
    "NO_LIMIT",
    "STAGE_NAMES",
    "AccessDenied",
    "AuthError",
    "Authorize",
    "CallLimiter",
    "Category",
    "Change",
    "Changes",
    "Cluster",
    "DepartmentAccess",
    "DiagnosisError",
    "DiagnosisRequest",
    "EvidenceLine",
    "InvalidRequest",
    "KubeAccess",
    "KubeAccessError",
    "KubeConnector",
    "KubeDirectory",
    "KubeTarget",
    "MemoryFigures",
    "MemorySample",
    "NotFound",
    "Outcome",
    "Payload",
    "Prefilter",
    "Recurrence",
    "Redactor",
    "Report",
    "RunaiClient",
    "RunaiConfig",
    "RunaiReader",
    "Share",
    "SharedLookups",
    "Symptom",
    "UpstreamError",
    "UpstreamTimeout",
    "UpstreamUnavailable",
    "WorkloadAccess",
    "WorkloadRef",
    "diagnose",
    "network_transport",
    "parse_lookback",
    "valid_name",
]
__all__ += [
    "AccessRule",
    "Department",
    "Permission",
    "Project",
    "Role",
    "RunaiUser",
    "StageObserver",
]
# The Pending and preemption answers' facts (`Report.pending`, `Report.preemption`).
__all__ += ["Party", "PendingFacts", "PreemptionFacts"]
# A report shown again to someone other than its asker (`ShownAgain.evidence`).
__all__ += ["for_viewer"]
# Times as every answer prints them: converted to UTC first (`diagnosis.moments`).
__all__ += ["in_utc", "utc_text"]
