"""Scenarios for the official Python Agent SDK (claude-agent-sdk) driving the
real catui binary. Run by crates/cli/tests/suite/sdk_python.rs, which starts the
testkit mock model with a script per scenario and checks the model side.

usage: python scenarios.py NAME

Environment: CATUI_BIN (the catui binary, used as cli_path), PROJECT (the
working directory); the model server and catui home come from the
environment catui inherits. Each scenario asserts what the SDK user sees
and prints one JSON line of facts for the Rust side.
"""

import json
import os
import sys

import anyio
from claude_agent_sdk import (
    AgentDefinition,
    AssistantMessage,
    ClaudeAgentOptions,
    ClaudeSDKClient,
    HookMatcher,
    PermissionResultAllow,
    PermissionResultDeny,
    ResultMessage,
    StreamEvent,
    SystemMessage,
    TaskNotificationMessage,
    TaskStartedMessage,
    UserMessage,
    create_sdk_mcp_server,
    query,
    tool,
)
from mcp.types import ToolAnnotations
from claude_agent_sdk.types import PermissionRuleValue, PermissionUpdate

CATUI = os.environ["CATUI_BIN"]
PROJECT = os.environ["PROJECT"]


def options(**kw):
    return ClaudeAgentOptions(cli_path=CATUI, cwd=PROJECT, **kw)


async def collect(client):
    out = []
    async for m in client.receive_response():
        out.append(m)
    return out


def result_of(messages):
    results = [m for m in messages if isinstance(m, ResultMessage)]
    assert results, f"no result in {messages}"
    return results[-1]


def report(**facts):
    print(json.dumps(facts))


async def one_shot():
    messages = [m async for m in query(prompt="Say hello", options=options())]
    init = [m for m in messages if isinstance(m, SystemMessage) and m.subtype == "init"]
    assert init, messages
    data = init[0].data
    assert data["permissionMode"] == "default", data
    for field in ("claude_code_version", "apiKeySource", "mcp_servers", "slash_commands"):
        assert field in data, field
    assistant = [m for m in messages if isinstance(m, AssistantMessage)]
    assert assistant[0].model == "test-model", assistant[0]
    assert assistant[0].message_id, assistant[0]
    assert assistant[0].stop_reason == "end_turn", assistant[0]
    result = result_of(messages)
    assert result.subtype == "success" and not result.is_error, result
    assert result.duration_api_ms >= 0 and result.total_cost_usd == 0
    assert result.uuid
    report(result=result.result, session_id=result.session_id)


async def multi_turn():
    async with ClaudeSDKClient(options=options()) as client:
        await client.query("First question")
        first = result_of(await collect(client))
        await client.query("Second question")
        second = result_of(await collect(client))
    assert first.session_id == second.session_id
    report(first=first.result, second=second.result)


def write_asks():
    asked = []

    async def can_use_tool(tool_name, tool_input, context):
        asked.append({"tool": tool_name, "input": tool_input,
                      "suggestions": [s.to_dict() for s in context.suggestions]})
        path = tool_input.get("file_path", "")
        if path.endswith("denied.txt"):
            return PermissionResultDeny(message="not that file")
        if path.endswith("edited.txt"):
            return PermissionResultAllow(
                updated_input={**tool_input, "content": "edited by the client"},
                updated_permissions=[PermissionUpdate(
                    type="addRules", behavior="allow",
                    rules=[PermissionRuleValue(tool_name="Write")])],
            )
        return PermissionResultAllow()

    return asked, can_use_tool


async def can_use_tool():
    asked, callback = write_asks()
    async with ClaudeSDKClient(options=options(can_use_tool=callback)) as client:
        await client.query("Write the files")
        result = result_of(await collect(client))
    assert result.subtype == "success", result
    # denied.txt and edited.txt were asked; after the addRules update the
    # third Write ran without asking.
    assert [a["input"]["file_path"].rsplit("/", 1)[-1] for a in asked] == [
        "denied.txt", "edited.txt"], asked
    assert asked[0]["suggestions"], asked
    report(asked=len(asked))


def plan_approver(how):
    seen = []

    async def can_use_tool(tool_name, tool_input, context):
        seen.append(tool_name)
        if tool_name == "ExitPlanMode":
            assert tool_input.get("plan", "").startswith("# Plan"), tool_input
            if how == "setMode":
                return PermissionResultAllow(updated_permissions=[
                    PermissionUpdate(type="setMode", mode="acceptEdits", destination="session")])
            return PermissionResultAllow(updated_input={**tool_input, "mode": "acceptEdits"})
        return PermissionResultDeny(message=f"unexpected prompt for {tool_name}")

    return seen, can_use_tool


async def plan_mode(how):
    seen, callback = plan_approver(how)
    modes = []
    async with ClaudeSDKClient(
            options=options(permission_mode="plan", can_use_tool=callback)) as client:
        await client.query("Plan and build the feature")
        messages = await collect(client)
    for m in messages:
        if isinstance(m, SystemMessage) and m.subtype == "permission_mode":
            modes.append(m.data["mode"])
    result = result_of(messages)
    assert result.subtype == "success", result
    # Only ExitPlanMode asked: the edit after approval ran under acceptEdits.
    assert seen == ["ExitPlanMode"], seen
    assert modes[-1] == "acceptEdits", modes
    report(modes=modes)


async def plan_answers():
    """The SDK's answer path for a plan: a stale planHash is asked again,
    `park` (in updatedInput: the SDK's deny carries only a message) parks,
    and skip_steps / model / mode approve part of the plan."""
    asked = []

    async def can_use_tool(tool_name, tool_input, context):
        assert tool_name == "ExitPlanMode", tool_name
        asked.append({"input": tool_input, "reason": context.decision_reason})
        if len(asked) == 1:
            return PermissionResultAllow(updated_input={**tool_input, "planHash": "0" * 64})
        if len(asked) == 2:
            return PermissionResultAllow(
                updated_input={**tool_input, "park": True, "note": "after the release"})
        return PermissionResultAllow(updated_input={
            **tool_input, "skip_steps": [2], "model": "builder-model", "mode": "acceptEdits"})

    async with ClaudeSDKClient(
            options=options(permission_mode="plan", can_use_tool=can_use_tool)) as client:
        await client.query("Plan it")
        parked = result_of(await collect(client))
        await client.query("/plan")
        entered = result_of(await collect(client))
        await client.query("Present it again")
        approved = result_of(await collect(client))
    assert len(asked) == 3, asked
    assert asked[0]["input"]["model"] == "test-model", asked[0]
    assert asked[1]["input"]["planHash"] == asked[0]["input"]["planHash"], asked
    assert "another revision" in (asked[1]["reason"] or ""), asked[1]
    assert parked.subtype == "success" and parked.result.startswith("Plan parked"), parked
    assert entered.result == "Enabled plan mode", entered
    assert approved.subtype == "success", approved
    report(parked=parked.result, approved=approved.result,
           models=sorted((approved.model_usage or {}).keys()))


async def plan_contract():
    """After approval the plan is a contract: the approval lists the
    verification commands, can_use_tool answers the AmendPlan request, and
    catui runs the verification itself and reports the work."""
    asked = []

    async def can_use_tool(tool_name, tool_input, context):
        asked.append(tool_name)
        if tool_name == "ExitPlanMode":
            assert tool_input["verification"] == ["test -f hello.txt"], tool_input
            return PermissionResultAllow(updated_input={**tool_input, "mode": "acceptEdits"})
        assert tool_name == "AmendPlan", tool_name
        assert "+2. Write notes.md" in tool_input["planDiff"], tool_input
        return PermissionResultAllow(updated_input=tool_input)

    async with ClaudeSDKClient(
            options=options(permission_mode="plan", can_use_tool=can_use_tool)) as client:
        await client.query("Write hello.txt")
        messages = await collect(client)
    system = {}
    for m in messages:
        if isinstance(m, SystemMessage):
            system.setdefault(m.subtype, []).append(m.data)
    result = result_of(messages)
    assert result.subtype == "success", result
    assert asked == ["ExitPlanMode", "AmendPlan"], asked
    [run] = system["plan_verification"]
    assert run["passed"] and run["commands"][0]["exit_code"] == 0, run
    [check] = system["goal_check"]
    assert check["met"] and check["goal"] == "plan", check
    [plan_report] = system["plan_report"]
    assert plan_report["goal_met"] and plan_report["amendments"] == 1, plan_report
    report(result=result.result, steps=plan_report["steps_done"],
           verification=run["commands"][0]["command"])


async def controls():
    async with ClaudeSDKClient(options=options()) as client:
        info = await client.get_server_info()
        assert info and info["commands"], info
        await client.set_permission_mode("acceptEdits")
        await client.set_model("other-model")
        status = await client.get_mcp_status()
        assert status["mcpServers"] == [], status
        usage = await client.get_context_usage()
        assert usage["model"] == "other-model", usage
        await client.query("Which model?")
        messages = await collect(client)
        try:
            await client.rewind_files("nope")
            raise AssertionError("rewind_files must fail")
        except Exception as e:  # checkpointing was not asked for
            assert "enable_file_checkpointing" in str(e), e
    assistant = [m for m in messages if isinstance(m, AssistantMessage)]
    result = result_of(messages)
    # The Write ran unasked: set_permission_mode("acceptEdits") took effect.
    assert result.subtype == "success" and not result.permission_denials, result
    report(model=assistant[-1].model)


async def rewind():
    """The SDK's own recipe: checkpointing on, user messages replayed with
    their uuid, rewind_files to the first one."""
    notes = os.path.join(PROJECT, "notes.txt")
    created = os.path.join(PROJECT, "created.txt")
    opts = options(
        enable_file_checkpointing=True,
        permission_mode="acceptEdits",
        extra_args={"replay-user-messages": None},
    )
    async with ClaudeSDKClient(options=opts) as client:
        await client.query("Make some changes to my files")
        checkpoint_id = None
        async for msg in client.receive_response():
            if isinstance(msg, UserMessage) and msg.uuid and checkpoint_id is None:
                checkpoint_id = msg.uuid
        assert checkpoint_id, "no user message with a uuid"
        changed = open(notes).read()
        assert os.path.exists(created)
        await client.rewind_files(checkpoint_id)
        restored = open(notes).read()
        still_there = os.path.exists(created)
        try:
            await client.rewind_files("not-a-message")
            raise AssertionError("an unknown message must fail")
        except Exception as e:
            unknown = str(e)
    assert changed == "changed\n" and restored == "original\n", (changed, restored)
    assert not still_there
    assert "not-a-message" in unknown, unknown
    report(checkpoint=checkpoint_id, restored=restored)


async def interrupt():
    async with ClaudeSDKClient(options=options()) as client:
        await client.query("Take your time")

        async def stop_soon():
            await anyio.sleep(1.0)
            await client.interrupt()

        async with anyio.create_task_group() as tg:
            tg.start_soon(stop_soon)
            messages = await collect(client)
        result = result_of(messages)
        await client.query("Again")
        again = result_of(await collect(client))
    assert result.subtype == "error_during_execution" or result.is_error, result
    report(first=result.subtype, second=again.result)


async def hooks():
    post_seen = []

    async def deny_bash(input_data, tool_use_id, context):
        if "rm -rf" in input_data["tool_input"].get("command", ""):
            return {"hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "destructive command blocked by hook"}}
        return {}

    async def after(input_data, tool_use_id, context):
        post_seen.append({"tool": input_data["tool_name"], "id": tool_use_id,
                          "response": input_data.get("tool_response")})
        return {}

    opts = options(
        permission_mode="bypassPermissions",
        hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[deny_bash])],
               "PostToolUse": [HookMatcher(matcher=None, hooks=[after])]})
    async with ClaudeSDKClient(options=opts) as client:
        await client.query("Clean up")
        result = result_of(await collect(client))
    assert result.subtype == "success", result
    assert [p["tool"] for p in post_seen] == ["Bash"], post_seen
    report(post=post_seen)


async def more_hooks():
    events = []

    async def on_prompt(input_data, tool_use_id, context):
        events.append(input_data["hook_event_name"])
        return {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
                                       "additionalContext": "PY-PROMPT-CONTEXT"}}

    async def on_stop(input_data, tool_use_id, context):
        events.append(input_data["hook_event_name"])
        if not input_data.get("stop_hook_active"):
            return {"decision": "block", "reason": "check the docs too"}
        return {}

    opts = options(hooks={"UserPromptSubmit": [HookMatcher(hooks=[on_prompt])],
                          "Stop": [HookMatcher(hooks=[on_stop])]})
    async with ClaudeSDKClient(options=opts) as client:
        await client.query("Finish up")
        result = result_of(await collect(client))
    assert result.subtype == "success", result
    assert events == ["UserPromptSubmit", "Stop", "Stop"], events
    report(events=events, result=result.result)


async def deny_interrupts():
    async def can_use_tool(tool_name, tool_input, context):
        return PermissionResultDeny(message="stop right there", interrupt=True)

    async with ClaudeSDKClient(options=options(can_use_tool=can_use_tool)) as client:
        await client.query("Write something")
        result = result_of(await collect(client))
    assert result.is_error, result
    report(subtype=result.subtype)


async def partial_messages():
    events = []
    async with ClaudeSDKClient(options=options(include_partial_messages=True)) as client:
        await client.query("Stream please")
        async for m in client.receive_response():
            if isinstance(m, StreamEvent):
                events.append(m.event["type"])
    assert events[0] == "message_start" and events[-1] == "message_stop", events
    assert "content_block_delta" in events, events
    report(events=events)


async def resume():
    first = result_of([m async for m in query(prompt="Remember 42", options=options())])
    resumed = result_of([m async for m in query(
        prompt="What was it?", options=options(resume=first.session_id))])
    assert resumed.session_id == first.session_id, (first, resumed)
    continued = result_of([m async for m in query(
        prompt="And again?", options=options(continue_conversation=True))])
    assert continued.session_id == first.session_id
    forked = result_of([m async for m in query(
        prompt="Fork it", options=options(resume=first.session_id, fork_session=True))])
    assert forked.session_id != first.session_id
    report(first=first.session_id, forked=forked.session_id)


async def max_turns():
    try:
        messages = [m async for m in query(prompt="Loop", options=options(max_turns=1))]
        result = result_of(messages)
        subtype = result.subtype
    except Exception as e:  # the SDK raises the typed error result
        data = getattr(e, "data", None) or {}
        subtype = data.get("subtype", str(e))
    assert subtype == "error_max_turns", subtype
    report(subtype=subtype)


async def all_options():
    opts = options(
        system_prompt={"type": "preset", "preset": "claude_code", "append": "Be brief."},
        tools=["Read", "Grep"],
        allowed_tools=["Read"],
        disallowed_tools=["Bash(rm:*)"],
        max_turns=3,
        max_budget_usd=1.0,
        model="test-model",
        fallback_model="other-model",
        betas=["context-1m-2025-08-07"],
        permission_mode="dontAsk",
        settings='{"permissions": {"deny": ["WebFetch"]}}',
        add_dirs=[PROJECT],
        mcp_servers={"none": {"type": "stdio", "command": "true"}},
        include_partial_messages=True,
        strict_mcp_config=True,
        setting_sources=["user", "project"],
        plugins=[{"type": "local", "path": PROJECT}],
        thinking={"type": "enabled", "budget_tokens": 2000},
        effort="low",
        output_format={"type": "json_schema", "schema": {"type": "object"}},
        extra_args={"include-hook-events": None},
    )
    messages = [m async for m in query(prompt="Hello", options=opts)]
    notes = [m.data["text"] for m in messages
             if isinstance(m, SystemMessage) and m.subtype == "notification"
             and m.data.get("key") == "unsupported_option"]
    init = [m for m in messages if isinstance(m, SystemMessage) and m.subtype == "init"][0]
    assert "Bash" not in init.data["tools"], init.data["tools"]
    assert result_of(messages).subtype == "success"
    report(notes=notes, tools=init.data["tools"])


async def sdk_mcp():
    """An in-process SDK MCP server: its tools reach the model and run in the
    application; in plan mode only the read-only one runs."""
    calls = []

    @tool("add", "Adds two numbers", {"a": float, "b": float},
          annotations=ToolAnnotations(readOnlyHint=True))
    async def add(args):
        calls.append(["add", args])
        return {"content": [{"type": "text", "text": f"sum={args['a'] + args['b']:g}"}]}

    @tool("save", "Saves a note", {"note": str})
    async def save(args):
        calls.append(["save", args])
        return {"content": [{"type": "text", "text": "saved"}]}

    calc = create_sdk_mcp_server(name="calc", version="1.0.0", tools=[add, save])
    opts = options(mcp_servers={"calc": calc}, allowed_tools=["mcp__calc"], permission_mode="plan")
    async with ClaudeSDKClient(options=opts) as client:
        state = None
        for _ in range(200):
            status = await client.get_mcp_status()
            state = next(s for s in status["mcpServers"] if s["name"] == "calc")
            if state["status"] == "connected":
                break
            await anyio.sleep(0.05)
        assert state["status"] == "connected", state
        await client.query("add and save")
        messages = await collect(client)
    assert [c[0] for c in calls] == ["add"], calls
    tools = {t["name"]: t["annotations"]["readOnly"] for t in state["tools"]}
    report(calls=calls, tools=tools, result=result_of(messages).result)


async def setting_sources(sources):
    """One query with `setting_sources` as given (the SDK turns None into no
    flag, [] into an empty list); every permission prompt is refused and
    recorded."""
    asked = []

    async def can_use_tool(tool_name, tool_input, context):
        asked.append(tool_name)
        return PermissionResultDeny(message="refused by the test")

    opts = options(can_use_tool=can_use_tool, setting_sources=sources)
    async with ClaudeSDKClient(options=opts) as client:
        await client.query("Write the file, then read the notes")
        messages = await collect(client)
    assert result_of(messages).subtype == "success", messages
    report(asked=asked)


async def stop_task():
    """The model starts an agent in the background; the SDK sees its
    task_started, stops it with stop_task and gets the task_notification;
    stopping it again, or an id that never was, raises."""
    async with ClaudeSDKClient(options=options(permission_mode="bypassPermissions")) as client:
        await client.query("Start the gated work in the background")
        messages = await collect(client)
        started = [m for m in messages if isinstance(m, TaskStartedMessage)]
        assert len(started) == 1, messages
        task = started[0]
        assert task.task_type == "local_agent" and task.tool_use_id == "bg1", task
        first = result_of(messages)
        assert first.subtype == "success", first
        await client.stop_task(task.task_id)
        notification = None
        with anyio.fail_after(60):
            async for m in client.receive_messages():
                if isinstance(m, TaskNotificationMessage):
                    notification = m
                    break
        assert notification.task_id == task.task_id, notification
        assert notification.status == "stopped", notification
        errors = {}
        for task_id in (task.task_id, "no-such-task"):
            failed = None
            try:
                await client.stop_task(task_id)
            except Exception as e:
                failed = str(e)
            assert failed is not None, f"stop_task({task_id}) did not fail"
            errors[task_id] = failed
        await client.query("What happened to it?")
        after = result_of(await collect(client))
    report(
        task_id=task.task_id,
        first=first.result,
        ended=errors[task.task_id],
        unknown=errors["no-such-task"],
        after=after.result,
    )


async def mcp_one_shot():
    """A one-shot query() with a real stdio MCP server: its tools are in the
    first request and its tool call works, without waiting for a "connected"
    notice first."""
    everything = os.environ["MCP_EVERYTHING"]
    opts = options(
        mcp_servers={"ev": {"type": "stdio", "command": "node", "args": [everything, "stdio"]}},
        allowed_tools=["mcp__ev"],
    )
    messages = [m async for m in query(prompt="echo it", options=opts)]
    result = result_of(messages)
    assert result.subtype == "success", result
    report(result=result.result)


async def mcp_init():
    """A stdio MCP server the application configures is `connected` with
    its tools in the `init` message, as the model will get it."""
    server = os.path.join(PROJECT, "tiny_mcp.py")
    opts = options(
        mcp_servers={"tiny": {"type": "stdio", "command": sys.executable, "args": [server]}},
    )
    messages = [m async for m in query(prompt="hi", options=opts)]
    init = next(m for m in messages if isinstance(m, SystemMessage) and m.subtype == "init")
    report(mcp_servers=init.data["mcp_servers"], tools=init.data["tools"])


async def agents():
    """Agent types defined by the application (sent in `initialize`); a
    read-only one runs in plan mode without asking."""
    opts = options(
        permission_mode="plan",
        agents={"reviewer": AgentDefinition(
            description="Reviews code for bugs",
            prompt="You review code carefully.",
            tools=["Read", "Grep", "Glob"],
        )},
    )
    messages = [m async for m in query(prompt="Review the code", options=opts)]
    result = result_of(messages)
    assert result.subtype == "success", result
    sub = [m for m in messages if isinstance(m, AssistantMessage) and m.parent_tool_use_id]
    assert sub and sub[0].parent_tool_use_id == "a1", messages
    report(result=result.result)


async def structured_output():
    schema = {"type": "object", "properties": {"answer": {"type": "integer"}},
              "required": ["answer"]}
    opts = options(output_format={"type": "json_schema", "schema": schema})
    messages = [m async for m in query(prompt="What is the answer?", options=opts)]
    result = result_of(messages)
    assert result.subtype == "success", result
    assert result.structured_output == {"answer": 42}, result
    report(structured=result.structured_output, result=result.result)


async def system_prompt_string():
    opts = options(system_prompt="You are a terse SQL reviewer.")
    messages = [m async for m in query(prompt="hi", options=opts)]
    report(result=result_of(messages).result)


async def fallback_model():
    opts = options(model="main-model", fallback_model="spare-model")
    messages = [m async for m in query(prompt="hi", options=opts)]
    notes = [m.data["text"] for m in messages
             if isinstance(m, SystemMessage) and m.subtype == "notification"
             and m.data.get("key") == "fallback_model"]
    assistant = [m for m in messages if isinstance(m, AssistantMessage)]
    assert assistant[-1].model == "spare-model", assistant
    assert notes and "spare-model" in notes[0], notes
    report(result=result_of(messages).result)


async def resume_at():
    """resume_session_at: a resumed session continues from the message
    given by its uuid, as the SDK reported it."""
    async with ClaudeSDKClient(options=options()) as client:
        await client.query("Remember 42")
        first = await collect(client)
        await client.query("Actually, forget it")
        await collect(client)
    kept = [m for m in first if isinstance(m, AssistantMessage)][-1]
    session_id = result_of(first).session_id
    opts = options(resume=session_id, resume_session_at=kept.uuid)
    messages = [m async for m in query(prompt="What did I ask you to remember?", options=opts)]
    assert result_of(messages).session_id == session_id
    report(result=result_of(messages).result)


SCENARIOS = {
    "one_shot": one_shot,
    "multi_turn": multi_turn,
    "can_use_tool": can_use_tool,
    "plan_set_mode": lambda: plan_mode("setMode"),
    "plan_input_mode": lambda: plan_mode("updatedInput"),
    "plan_answers": plan_answers,
    "plan_contract": plan_contract,
    "controls": controls,
    "rewind": rewind,
    "interrupt": interrupt,
    "hooks": hooks,
    "more_hooks": more_hooks,
    "deny_interrupts": deny_interrupts,
    "partial_messages": partial_messages,
    "resume": resume,
    "max_turns": max_turns,
    "all_options": all_options,
    "sdk_mcp": sdk_mcp,
    "stop_task": stop_task,
    "sources_default": lambda: setting_sources(None),
    "sources_none": lambda: setting_sources([]),
    "sources_user": lambda: setting_sources(["user"]),
    "sources_project": lambda: setting_sources(["project", "local"]),
    "mcp_one_shot": mcp_one_shot,
    "mcp_init": mcp_init,
    "agents": agents,
    "structured_output": structured_output,
    "system_prompt_string": system_prompt_string,
    "fallback_model": fallback_model,
    "resume_at": resume_at,
}

if __name__ == "__main__":
    anyio.run(SCENARIOS[sys.argv[1]])
