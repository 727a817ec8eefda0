"""The parser over what people type in an incident: first messages, answers, follow-ups, chatter.

Each row is a real phrasing, written as people type it under pressure (lowercase, typos in
spacing, `pls`, emoji), with what the bot last asked for, and exactly what must come out.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bot.conversation.names import NAME_RE
from bot.conversation.parse import Expecting, FollowUp, Query, parse
from bot.conversation.words import NOT_NAMES
from diagnosis import Symptom

W = "3f1c2a9e-5b7d-4c1e-9a2f-8d6b0e4c7a11"
C = "71f69d83-ba66-4822-adf5-55ce55efd210"
CLUSTER, PROJECT, WORKLOAD = Expecting.CLUSTER, Expecting.PROJECT, Expecting.WORKLOAD
INIT, PULL, CRASH = Symptom.INIT, Symptom.IMAGE_PULL, Symptom.CRASHLOOP
CHATTER = Query(chatter=True)
EVIDENCE = Query(follow_up=FollowUp.EVIDENCE)

# (what was typed, what the bot had asked for, what the parser must read)
TABLE: list[tuple[str, Expecting | None, Query]] = [
    # --- first messages: everything in one line ------------------------------------------
    (
        "why did training-job-42 in ml-team fail on cluster prod-a?",
        None,
        Query(cluster="prod-a", workload_name="training-job-42", project="ml-team"),
    ),
    (
        "<@UBOT> why did training-job-42 in ml-team fail on cluster prod-a?",
        None,
        Query(cluster="prod-a", workload_name="training-job-42", project="ml-team"),
    ),
    (
        "why did training-job-42 in ml-team fail on prod-a",
        None,
        Query(cluster="prod-a", workload_name="training-job-42", project="ml-team"),
    ),
    (
        "train-bert in nlp on PROD-A died over the last 2 weeks",
        None,
        Query(cluster="PROD-A", workload_name="train-bert", project="nlp", lookback="2w"),
    ),
    (
        "cluster=prod-a workload=bert-ft project=nlp",
        None,
        Query(cluster="prod-a", workload_name="bert-ft", project="nlp"),
    ),
    (f"cluster={C} id={W}", None, Query(cluster=C, workload_id=W)),
    (f"id={W} lookback=7d", None, Query(workload_id=W, lookback="7d")),
    (W, None, Query(workload_id=W)),
    ("train-bert", None, Query(workload_name="train-bert")),
    ("what killed job bert in project nlp", None, Query(workload_name="bert", project="nlp")),
    (
        "resnet-ddp died, project is vision",
        None,
        Query(workload_name="resnet-ddp", project="vision"),
    ),
    (
        "eval-harness in the ml-team project",
        None,
        Query(workload_name="eval-harness", project="ml-team"),
    ),
    ("it's on the prod-a cluster", None, Query(cluster="prod-a")),
    (
        "why is train-bert in nlp crashlooping on cluster prod-a",
        None,
        Query(cluster="prod-a", workload_name="train-bert", project="nlp", symptom=CRASH),
    ),
    (
        "train-bert in nlp is stuck in ImagePullBackOff",
        None,
        Query(workload_name="train-bert", project="nlp", symptom=PULL),
    ),
    (
        "why did train-bert in nlp fail with ImagePullBackOff",
        None,
        Query(workload_name="train-bert", project="nlp"),
    ),
    ("llm-serve-7 keeps crashing", None, Query(workload_name="llm-serve-7", symptom=CRASH)),
    (
        "etl-2 in data has a volume mount error",
        None,
        Query(workload_name="etl-2", project="data", symptom=Symptom.MOUNT),
    ),
    (
        "why did etl-2 in data fail over the last 3 days",
        None,
        Query(workload_name="etl-2", project="data", lookback="3d"),
    ),
    (
        "etl-2 in data failed since yesterday",
        None,
        Query(workload_name="etl-2", project="data", lookback="2d"),
    ),
    (
        "resnet-5m in vision over the past week",
        None,
        Query(workload_name="resnet-5m", project="vision", lookback="7d"),
    ),
    (
        "workload=etl-2 project=data symptom=init",
        None,
        Query(workload_name="etl-2", project="data", symptom=INIT),
    ),
    ("`train-bert` &amp; friends", None, Query(workload_name="train-bert")),
    # --- alerts from monitoring (the "Why did this fail?" message shortcut reads these) ----
    (
        "[FIRING:1] RunaiWorkloadFailed workload=training-job-42 project=ml-team cluster=prod-a",
        None,
        Query(cluster="prod-a", workload_name="training-job-42", project="ml-team"),
    ),
    (
        ":rotating_light: Workload training-job-42 (project ml-team) failed on cluster prod-a "
        "at 09:06 UTC",
        None,
        Query(cluster="prod-a", workload_name="training-job-42", project="ml-team"),
    ),
    (
        "Alert: job eval-harness in ml-team on prod-a is in CrashLoopBackOff (restarts: 6)",
        None,
        Query(cluster="prod-a", workload_name="eval-harness", project="ml-team", symptom=CRASH),
    ),
    (f"runai workload {W} failed, cluster {C}", None, Query(cluster=C, workload_id=W)),
    # --- small words are never names --------------------------------------------------------
    ("why did my job fail", None, Query()),
    ("the failed job from this morning", None, Query(lookback="24h")),
    ("why did it fail at 3pm", None, Query()),
    ("it crashed at 10:30 on the gpu node", None, Query()),
    ("what happened to the job in the morning", None, Query()),
    ("I am on it", None, Query()),
    ("the node is dgx-07", None, Query()),
    ("pods on node dgx-a100-07 keep dying", None, Query()),
    ("2 a100 nodes went down", None, Query()),
    ("why did node-exporter-test fail", None, Query(workload_name="node-exporter-test")),
    ("why did host-agent-2 fail", None, Query(workload_name="host-agent-2")),
    ("resnet-ddp nodes went NotReady", None, Query(workload_name="resnet-ddp")),
    ("resnet-ddp node went NotReady", None, Query(workload_name="resnet-ddp")),
    # --- answers to "Which Run:ai cluster is it on?" -------------------------------------
    ("prod-a", CLUSTER, Query(cluster="prod-a")),
    ("PROD-A", CLUSTER, Query(cluster="PROD-A")),
    (C, CLUSTER, Query(cluster=C)),
    ("it's prod-a", CLUSTER, Query(cluster="prod-a")),
    ("it\u2019s prod-a", CLUSTER, Query(cluster="prod-a")),
    ("prod-a please", CLUSTER, Query(cluster="prod-a")),
    ("on prod-a", CLUSTER, Query(cluster="prod-a")),
    ("hmm, I think it's prod-a", CLUSTER, Query(cluster="prod-a")),
    ("it is on cluster prod-b", CLUSTER, Query(cluster="prod-b")),
    ("2", CLUSTER, Query(pick=2)),
    ("#1", CLUSTER, Query(pick=1)),
    ("the second one", CLUSTER, Query(pick=2)),
    ("prod-a or prod-b", CLUSTER, Query(cluster_options=("prod-a", "prod-b"))),
    ("*prod-a*", CLUSTER, Query(cluster="prod-a")),
    ("[prod-a] pls", CLUSTER, Query(cluster="prod-a")),
    ("prod-a, project nlp", CLUSTER, Query(cluster="prod-a", project="nlp")),
    ("job bert-2", CLUSTER, Query(workload_name="bert-2")),
    ("hmm", CLUSTER, CHATTER),
    ("ugh", CLUSTER, CHATTER),
    ("idk", CLUSTER, CHATTER),
    ("no idea", CLUSTER, CHATTER),
    # --- answers to "Which project is `x` in?" -------------------------------------------
    ("ml-team", PROJECT, Query(project="ml-team")),
    ("ML-Team pls", PROJECT, Query(project="ml-team")),
    ("project is nlp", PROJECT, Query(project="nlp")),
    ("in the nlp project", PROJECT, Query(project="nlp")),
    ("it's in vision", PROJECT, Query(project="vision")),
    ("not sure, maybe nlp", PROJECT, Query(project="nlp")),
    ("nlp i guess", PROJECT, Query(project="nlp")),
    ("ugh", PROJECT, CHATTER),
    # --- answers to "Which workload?" and "Is it failing right now (crash loop, ...)?" ----
    ("train", WORKLOAD, Query(workload_name="train")),
    (W, WORKLOAD, Query(workload_id=W)),
    ("train-bert in nlp", WORKLOAD, Query(workload_name="train-bert", project="nlp")),
    ("init", WORKLOAD, Query(symptom=INIT)),
    ("image pull", WORKLOAD, Query(symptom=PULL)),
    ("yes, stuck in init", WORKLOAD, Query(symptom=INIT)),
    ("crashloop", WORKLOAD, Query(symptom=CRASH)),
    ("crash loop", WORKLOAD, Query(symptom=CRASH)),
    ("yeah it's crash-looping", WORKLOAD, Query(symptom=CRASH)),
    ("mount", WORKLOAD, Query(symptom=Symptom.MOUNT)),
    ("its crashlooping", WORKLOAD, Query(symptom=CRASH)),
    ("stuck in ImagePullBackOff", WORKLOAD, Query(symptom=PULL)),
    ("Init:CrashLoopBackOff", WORKLOAD, Query(symptom=INIT)),
    ("waiting on pvc mount", WORKLOAD, Query(symptom=Symptom.MOUNT)),
    ("yes", WORKLOAD, CHATTER),
    ("no its done", WORKLOAD, CHATTER),
    ("prod-a", None, Query(workload_name="prod-a")),  # nothing was asked: a name is a workload
    # --- follow-ups after an answer -------------------------------------------------------
    ("what about the last 7 days?", None, Query(lookback="7d")),
    ("what about yesterday?", None, Query(lookback="2d")),
    ("and over the past week?", None, Query(lookback="7d")),
    ("last 90 minutes", None, Query(lookback="90m")),
    ("a couple of days", None, Query(lookback="2d")),
    ("show logs", None, EVIDENCE),
    ("more", None, EVIDENCE),
    ("all evidence", None, EVIDENCE),
    ("can you post the full logs pls", None, EVIDENCE),
    ("show me more", None, EVIDENCE),
    ("any logs?", None, EVIDENCE),
    (
        "show me the logs of train-bert in nlp",
        None,
        Query(workload_name="train-bert", project="nlp", follow_up=FollowUp.EVIDENCE),
    ),
    ("re-run", None, Query(follow_up=FollowUp.RERUN)),
    ("run it again", None, Query(follow_up=FollowUp.RERUN)),
    (
        "can you check again with the last 3 days",
        None,
        Query(lookback="3d", follow_up=FollowUp.RERUN),
    ),
    ("thanks, what about the last 3 days?", None, Query(lookback="3d")),
    # --- chatter: nothing for the bot -----------------------------------------------------
    ("thanks!", None, CHATTER),
    ("thanks! I think it's the node dgx-07, let's restart it", None, CHATTER),
    ("ty", None, CHATTER),
    ("thanks, that helps", None, CHATTER),
    ("cool, thx", None, CHATTER),
    ("ok cool", None, CHATTER),
    ("lol", None, CHATTER),
    ("\U0001f44d", None, CHATTER),
    (":+1:", None, CHATTER),
]


@pytest.mark.parametrize(
    ("text", "expecting", "expected"),
    TABLE,
    ids=[f"{(e or 'first').upper()[:4]}-{t[:40]}" for t, e, _ in TABLE],
)
def test_what_people_type(text, expecting, expected):
    assert parse(text, bot_user_id="UBOT", expecting=expecting) == expected


RERUN = Query(follow_up=FollowUp.RERUN)
#: Plain replies in a thread: a time is a lookback only when asked for, and a re-run only
#: when asked of the bot (never what the asker will do themselves).
REPLIES: list[tuple[str, Expecting | None, Query]] = [
    ("what about the last 3 days?", None, Query(lookback="3d")),
    ("last 7d", None, Query(lookback="7d")),
    ("check the last week", None, Query(lookback="7d")),
    ("and over the past week?", None, Query(lookback="7d")),
    ("since yesterday", None, Query(lookback="2d")),
    ("thanks, what about the last 3 days?", None, Query(lookback="3d")),
    ("prod-a, over the last 7 days", CLUSTER, Query(cluster="prod-a", lookback="7d")),
    # asked for in other words: extend, widen, further back, a lookback named as one
    ("extend it to 3 days", None, Query(lookback="3d")),
    ("can you go back further, like 3 days?", None, Query(lookback="3d")),
    ("widen to 48h please", None, Query(lookback="48h")),
    ("look further back, 3d", None, Query(lookback="3d")),
    ("redo it with a 3 day lookback", None, Query(lookback="3d")),
    ("ugh, back to square one, 3 days of training lost", None, Query()),
    ("it ran fine last week though", None, Query()),
    ("ugh, 3 days of training lost :sob:", None, Query()),
    ("it worked yesterday", None, Query()),
    ("I'll check the last 3 days", None, Query()),
    ("it died after 5m", None, Query()),  # not a lookback, and `5m` is no name either
    ("check again", None, RERUN),
    ("re-run?", None, RERUN),
    ("try again please", None, RERUN),
    ("could you refresh it", None, RERUN),
    ("will you check again?", None, RERUN),
    (
        "can you check again with the last 3 days",
        None,
        Query(lookback="3d", follow_up=FollowUp.RERUN),
    ),
    # a re-run with a time: both asked for, the time read before the re-run word is cut
    ("rerun with 48h", None, Query(lookback="48h", follow_up=FollowUp.RERUN)),
    ("please recheck with 3d", None, Query(lookback="3d", follow_up=FollowUp.RERUN)),
    ("retry with 3d", None, Query(lookback="3d", follow_up=FollowUp.RERUN)),
    ("again with 7d please", None, Query(lookback="7d", follow_up=FollowUp.RERUN)),
    ("again but 3 days", None, Query(lookback="3d", follow_up=FollowUp.RERUN)),
    # other words before `again`: asked unless it says what the asker will do or what happened
    ("can you look at it again", None, RERUN),
    ("I bumped the memory limit so check again pls", None, RERUN),
    ("pushed a new image - can you check again?", None, RERUN),
    (
        "fixed the pvc \u2014 check again?",
        None,
        Query(follow_up=FollowUp.RERUN, symptom=Symptom.MOUNT),
    ),
    ("mind checking again?", None, RERUN),
    ("same thing again?", None, RERUN),
    ("it's back up so try again", None, RERUN),
    ("ok trying again", None, RERUN),
    ("I redeployed it so please check again", None, RERUN),
    ("it's crashing again", None, Query(symptom=None)),
    ("I restarted it again", None, Query()),
    ("hmm is this the oom again?", None, Query()),
    ("going to try again later", None, Query()),
    # a name said not to be meant: the one word left is not put in the slot asked for
    ("oops, it's vision not ml-team", WORKLOAD, Query(excluded=("ml-team",))),
    ("not ml-team, vision", WORKLOAD, Query(excluded=("ml-team",))),
    ("ok, I'll rerun it with more memory", None, Query()),
    ("will try again after lunch", None, Query()),
    ("we'll retry tomorrow", None, Query()),
    ("gonna re-run with a bigger batch", None, Query()),
    ("let me try again", None, Query()),
    ("it failed again", None, Query()),
]


@pytest.mark.parametrize(
    ("text", "expecting", "expected"),
    REPLIES,
    ids=[f"{(e or 'reply').upper()[:5]}-{t[:40]}" for t, e, _ in REPLIES],
)
def test_what_a_plain_reply_asks(text, expecting, expected):
    assert parse(text, bot_user_id="UBOT", expecting=expecting, reply=True) == expected


@pytest.mark.parametrize(
    "text", ["ok, I'll rerun it with more memory", "will try again after lunch", "it failed again"]
)
def test_a_re_run_the_asker_will_do_is_not_asked_of_the_bot_in_a_mention_either(text):
    assert parse(text, bot_user_id="UBOT").follow_up is None


@pytest.mark.parametrize("text", ["help", "HELP", " --help ", "?", "<@UBOT> help", "help!"])
def test_help(text):
    assert parse(text, bot_user_id="UBOT").help


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("id=x lookback=soon", "lookback 'soon' is not a duration"),
        ("train-1 symptom=sad", "symptom 'sad' is not one of"),
        ("workload=Bad_Name", "is not a valid workload name"),
        ("train-1 project=ml_team", "'ml_team' is not a valid project name"),
        ("train-1 over the last 90 days", "at most 30d"),
    ],
)
def test_malformed_parts_are_reported_not_dropped(text, problem):
    assert any(problem in p for p in parse(text).problems)


def test_other_mentions_are_not_identifiers():
    assert (
        parse("<@U999|alice> says train-bert died", bot_user_id="UBOT").workload_name
        == "train-bert"
    )


_WORDS = st.sampled_from(
    [w for text, _, _ in TABLE for w in text.split()]
    + ["*", "[", "]", "<@U1>", "`", "\u2019", "project=a_b", "cluster=", "workload=X"]
)


@given(
    text=st.one_of(st.text(max_size=200), st.lists(_WORDS, max_size=12).map(" ".join)),
    expecting=st.sampled_from([None, *Expecting]),
)
@settings(max_examples=300, deadline=None)
@example(text="0 PROJECT=/", expecting=None)  # a bare number once skipped the validation
def test_parse_never_raises_and_every_name_is_a_valid_name(text, expecting):
    query = parse(text, bot_user_id="UBOT", expecting=expecting)
    if query.workload_name is not None:
        assert NAME_RE.match(query.workload_name)
    if query.project is not None:
        assert NAME_RE.match(query.project)
    if "=" not in text:  # key=value is taken as written; free text never names a small word
        for name in (query.cluster, query.project, query.workload_name):
            assert name is None or name.lower() not in NOT_NAMES
