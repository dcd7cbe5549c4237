"""Team scenarios for the official Python Agent SDK driving the real catui
binary (issue 51 item 5). Run by crates/cli/tests/suite/sdk_python/teams.rs,
which starts the testkit mock model with the team's script.

usage: python team_scenarios.py NAME

With `teammatePlanApprover: "user"` a teammate's plan reaches the SDK's
own `can_use_tool` callback as an ExitPlanMode call marked with the
teammate's `name@team` (the context's `agent_id`). What the callback
answers decides what the teammate does; the lead model is told the outcome
in a turn of its own, which the SDK sees as one more result.

Environment as for scenarios.py, plus FEATURE: the file the teammate writes
once its plan is approved.
"""

import os
import sys

import anyio
from claude_agent_sdk import (
    ClaudeSDKClient,
    PermissionResultAllow,
    PermissionResultDeny,
    ResultMessage,
)

from scenarios import collect, options, report, result_of

FEATURE = os.environ["FEATURE"]


def plan_reviewer(answers):
    """A can_use_tool callback answering ExitPlanMode calls with `answers`
    in order (an allow, or a deny message), recording each call."""
    asked = []

    async def can_use_tool(tool_name, tool_input, context):
        asked.append({"tool": tool_name, "input": tool_input,
                      "agent_id": context.agent_id,
                      "feature_before": os.path.exists(FEATURE)})
        if tool_name != "ExitPlanMode" or len(asked) > len(answers):
            return PermissionResultDeny(message=f"unexpected prompt for {tool_name}")
        answer = answers[len(asked) - 1]
        if answer is None:
            return PermissionResultAllow()
        return PermissionResultDeny(message=answer)

    return asked, can_use_tool


async def results_until(client, done):
    """Reads messages until `done(texts)` holds for the texts of the
    results read (at most 60 s); returns them."""
    texts = []
    try:
        with anyio.fail_after(60):
            async for m in client.receive_messages():
                if isinstance(m, ResultMessage):
                    texts.append(m.result)
                    if done(texts):
                        break
    except TimeoutError:
        raise AssertionError(f"gave up waiting; results so far: {texts}") from None
    return texts


async def wait_for_file(path):
    with anyio.fail_after(60):
        while not os.path.exists(path):
            await anyio.sleep(0.05)


async def teammate_plan(answers):
    asked, callback = plan_reviewer(answers)
    async with ClaudeSDKClient(options=options(
            permission_mode="acceptEdits", can_use_tool=callback)) as client:
        await client.query("start a team for the feature")
        first = result_of(await collect(client))
        # The teammate plans on its own; each decision of the callback is
        # told to the lead, whose turn ends in a result the SDK reads.
        # The mock lead answers each outcome with "Noted".
        lead = await results_until(client, lambda texts: len(
            [t for t in texts if t.startswith("Noted")]) >= len(answers))
        if answers[-1] is None:
            await wait_for_file(FEATURE)
    report(first=first.result, lead=lead, asked=asked,
           feature=open(FEATURE).read() if os.path.exists(FEATURE) else None)


SCENARIOS = {
    "teammate_plan_allowed": lambda: teammate_plan([None]),
    "teammate_plan_denied_then_allowed": lambda: teammate_plan(
        ["Also write the changelog entry.", None]),
}

if __name__ == "__main__":
    anyio.run(SCENARIOS[sys.argv[1]])
