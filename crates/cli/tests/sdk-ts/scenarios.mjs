// Scenarios for the official TypeScript Agent SDK
// (@anthropic-ai/claude-agent-sdk, pinned in package.json) driving the real
// catui binary. Run by crates/cli/tests/sdk_ts.rs, which starts the testkit
// mock model with a script per scenario and checks the model side.
//
// usage: node scenarios.mjs NAME
//
// Environment: CATUI_BIN (the catui binary, pathToClaudeCodeExecutable),
// PROJECT (the working directory); the model server and catui home come
// from the environment catui inherits. Each scenario asserts what the SDK
// user sees and prints one JSON line of facts for the Rust side.

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createSdkMcpServer, query, tool } from "@anthropic-ai/claude-agent-sdk";
import { z } from "zod";

const CATUI = process.env.CATUI_BIN;
const PROJECT = process.env.PROJECT;

function options(extra = {}) {
  return {
    pathToClaudeCodeExecutable: CATUI,
    cwd: PROJECT,
    env: { ...process.env },
    ...extra,
  };
}

function report(facts) {
  console.log(JSON.stringify(facts));
}

function resultOf(messages) {
  const results = messages.filter((m) => m.type === "result");
  assert.ok(results.length > 0, `no result in ${JSON.stringify(messages)}`);
  return results[results.length - 1];
}

/** A prompt stream the scenario feeds one user message at a time. */
function promptStream() {
  const queue = [];
  let wake = null;
  let done = false;
  return {
    push(text) {
      queue.push({
        type: "user",
        message: { role: "user", content: text },
        parent_tool_use_id: null,
        session_id: "",
      });
      wake?.();
    },
    end() {
      done = true;
      wake?.();
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        while (queue.length > 0) yield queue.shift();
        if (done) return;
        await new Promise((r) => (wake = r));
        wake = null;
      }
    },
  };
}

/** Reads messages of `q` up to and including the next result. */
async function untilResult(iter) {
  const out = [];
  for (;;) {
    const { value, done } = await iter.next();
    if (done) return out;
    out.push(value);
    if (value.type === "result") return out;
  }
}

async function oneShot() {
  const messages = [];
  for await (const m of query({ prompt: "Say hello", options: options() })) {
    messages.push(m);
  }
  const init = messages.find((m) => m.type === "system" && m.subtype === "init");
  assert.ok(init, JSON.stringify(messages));
  assert.equal(init.permissionMode, "default");
  const assistant = messages.find((m) => m.type === "assistant");
  assert.equal(assistant.message.model, "test-model");
  const result = resultOf(messages);
  assert.equal(result.subtype, "success");
  assert.equal(result.is_error, false);
  report({ result: result.result, session_id: result.session_id });
}

async function canUseTool() {
  const asked = [];
  const callback = async (toolName, input, { suggestions }) => {
    asked.push({ tool: toolName, file: String(input.file_path ?? ""), suggestions });
    if (String(input.file_path).endsWith("denied.txt")) {
      return { behavior: "deny", message: "not that file" };
    }
    if (String(input.file_path).endsWith("edited.txt")) {
      return {
        behavior: "allow",
        updatedInput: { ...input, content: "edited by the client" },
        updatedPermissions: [
          { type: "addRules", behavior: "allow", destination: "session", rules: [{ toolName: "Write" }] },
        ],
      };
    }
    return { behavior: "allow", updatedInput: input };
  };
  const prompt = promptStream();
  const q = query({ prompt, options: options({ canUseTool: callback }) });
  prompt.push("Write the files");
  const result = resultOf(await untilResult(q));
  prompt.end();
  for await (const _ of q) {
    // drain
  }
  assert.equal(result.subtype, "success");
  assert.deepEqual(
    asked.map((a) => a.file.split("/").pop()),
    ["denied.txt", "edited.txt"],
  );
  assert.ok(asked[0].suggestions?.length > 0, JSON.stringify(asked));
  report({ asked: asked.length });
}

async function planMode() {
  const seen = [];
  const callback = async (toolName, input) => {
    seen.push(toolName);
    if (toolName === "ExitPlanMode") {
      assert.ok(String(input.plan ?? "").startsWith("# Plan"), JSON.stringify(input));
      return {
        behavior: "allow",
        updatedInput: input,
        updatedPermissions: [{ type: "setMode", mode: "acceptEdits", destination: "session" }],
      };
    }
    return { behavior: "deny", message: `unexpected prompt for ${toolName}` };
  };
  const prompt = promptStream();
  const q = query({ prompt, options: options({ permissionMode: "plan", canUseTool: callback }) });
  prompt.push("Plan and build the feature");
  const messages = await untilResult(q);
  prompt.end();
  for await (const _ of q) {
    // drain
  }
  const modes = messages
    .filter((m) => m.type === "system" && m.subtype === "permission_mode")
    .map((m) => m.mode);
  assert.equal(resultOf(messages).subtype, "success");
  assert.deepEqual(seen, ["ExitPlanMode"]);
  assert.equal(modes[modes.length - 1], "acceptEdits", JSON.stringify(modes));
  report({ modes });
}

async function hooks() {
  const postSeen = [];
  const events = [];
  const denyBash = async (input) => {
    events.push(input.hook_event_name);
    if (String(input.tool_input?.command ?? "").includes("rm -rf")) {
      return {
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: "deny",
          permissionDecisionReason: "destructive command blocked by hook",
        },
      };
    }
    return {};
  };
  const after = async (input, toolUseID) => {
    postSeen.push({ tool: input.tool_name, id: toolUseID, response: input.tool_response });
    return {};
  };
  const onPrompt = async (input) => {
    events.push(input.hook_event_name);
    return {
      hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "TS-PROMPT-CONTEXT" },
    };
  };
  const onStop = async (input) => {
    events.push(input.hook_event_name);
    return {};
  };
  const opts = options({
    permissionMode: "bypassPermissions",
    allowDangerouslySkipPermissions: true,
    hooks: {
      PreToolUse: [{ matcher: "Bash", hooks: [denyBash] }],
      PostToolUse: [{ hooks: [after] }],
      UserPromptSubmit: [{ hooks: [onPrompt] }],
      Stop: [{ hooks: [onStop] }],
    },
  });
  const prompt = promptStream();
  const q = query({ prompt, options: opts });
  prompt.push("Clean up");
  const result = resultOf(await untilResult(q));
  prompt.end();
  for await (const _ of q) {
    // drain
  }
  assert.equal(result.subtype, "success");
  assert.deepEqual(postSeen.map((p) => p.tool), ["Bash"]);
  assert.deepEqual(events, ["UserPromptSubmit", "PreToolUse", "PreToolUse", "Stop"]);
  report({ post: postSeen, events });
}

async function interrupt() {
  const prompt = promptStream();
  const q = query({ prompt, options: options() });
  prompt.push("Take your time");
  const stopSoon = (async () => {
    await new Promise((r) => setTimeout(r, 1000));
    await q.interrupt();
  })();
  const first = resultOf(await untilResult(q));
  await stopSoon;
  prompt.push("Again");
  const again = resultOf(await untilResult(q));
  prompt.end();
  for await (const _ of q) {
    // drain
  }
  assert.ok(first.is_error || first.subtype === "error_during_execution", JSON.stringify(first));
  report({ first: first.subtype, second: again.result });
}

async function denyInterrupts() {
  const callback = async () => ({ behavior: "deny", message: "stop right there", interrupt: true });
  const prompt = promptStream();
  const q = query({ prompt, options: options({ canUseTool: callback }) });
  prompt.push("Write something");
  // The SDK raises on an error result: the interrupted turn is one.
  let text;
  try {
    const result = resultOf(await untilResult(q));
    assert.ok(result.is_error, JSON.stringify(result));
    text = result.result;
  } catch (e) {
    text = String(e.message);
  }
  prompt.end();
  assert.ok(text.includes("Interrupted"), text);
  report({ result: text });
}

/** An in-process SDK MCP server in plan mode: the read-only tool runs in
 * this process, the other is refused by catui. */
async function sdkMcp() {
  const calls = [];
  const calc = createSdkMcpServer({
    name: "calc",
    version: "1.0.0",
    tools: [
      tool(
        "add",
        "Adds two numbers",
        { a: z.number(), b: z.number() },
        async (args) => {
          calls.push(["add", args]);
          return { content: [{ type: "text", text: `sum=${args.a + args.b}` }] };
        },
        { annotations: { readOnlyHint: true } },
      ),
      tool("save", "Saves a note", { note: z.string() }, async (args) => {
        calls.push(["save", args]);
        return { content: [{ type: "text", text: "saved" }] };
      }),
    ],
  });
  const prompt = promptStream();
  const q = query({
    prompt,
    options: options({ mcpServers: { calc }, allowedTools: ["mcp__calc"], permissionMode: "plan" }),
  });
  let state;
  for (let i = 0; i < 200; i++) {
    const status = await q.mcpServerStatus();
    state = status.find((s) => s.name === "calc");
    if (state && state.status === "connected") break;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(state?.status, "connected", JSON.stringify(state));
  prompt.push("add and save");
  const messages = await untilResult(q);
  prompt.end();
  for await (const _ of q) {
    // drain
  }
  assert.deepEqual(calls.map((c) => c[0]), ["add"]);
  const tools = Object.fromEntries(state.tools.map((t) => [t.name, t.annotations.readOnly]));
  report({ calls, tools, result: resultOf(messages).result });
}

/** The SDK's recipe for checkpoints: enableFileCheckpointing, user
 * messages replayed with their uuid, rewindFiles to the first one — first
 * a dry run (nothing changes), then for real. */
async function rewind() {
  const notes = join(PROJECT, "notes.txt");
  const created = join(PROJECT, "created.txt");
  const prompt = promptStream();
  const q = query({
    prompt,
    options: options({
      enableFileCheckpointing: true,
      permissionMode: "acceptEdits",
      extraArgs: { "replay-user-messages": null },
    }),
  });
  prompt.push("Make some changes to my files");
  const messages = await untilResult(q);
  const replayed = messages.find((m) => m.type === "user" && m.uuid);
  assert.ok(replayed, `no user message with a uuid in ${JSON.stringify(messages)}`);
  const changed = readFileSync(notes, "utf8");
  assert.equal(changed, "changed\n");
  assert.ok(existsSync(created));
  const preview = await q.rewindFiles(replayed.uuid, { dryRun: true });
  assert.equal(preview.canRewind, true, JSON.stringify(preview));
  assert.equal(readFileSync(notes, "utf8"), "changed\n", "a dry run changed a file");
  const done = await q.rewindFiles(replayed.uuid);
  assert.equal(done.canRewind, true, JSON.stringify(done));
  const restored = readFileSync(notes, "utf8");
  const stillThere = existsSync(created);
  let unknown = "";
  try {
    const answer = await q.rewindFiles("not-a-message");
    unknown = answer.canRewind === false ? String(answer.error) : "";
  } catch (e) {
    unknown = String(e.message);
  }
  prompt.end();
  for await (const _ of q) {
    // drain
  }
  assert.equal(restored, "original\n");
  assert.ok(!stillThere, "the file the turn created is still there");
  assert.ok(unknown.includes("not-a-message"), unknown);
  report({
    checkpoint: replayed.uuid,
    restored,
    preview: [...(preview.filesChanged ?? [])].sort(),
    files: [...(done.filesChanged ?? [])].sort(),
  });
}

async function collectAll(opts, prompt) {
  const messages = [];
  for await (const m of query({ prompt, options: options(opts) })) messages.push(m);
  return messages;
}

// The TypeScript SDK sends these options in `initialize` (not as flags):
// MCP servers, agents, the system prompt and the output schema.

async function mcpOneShot() {
  const everything = process.env.MCP_EVERYTHING;
  const messages = await collectAll(
    {
      mcpServers: { ev: { type: "stdio", command: "node", args: [everything, "stdio"] } },
      allowedTools: ["mcp__ev"],
    },
    "echo it",
  );
  const result = resultOf(messages);
  assert.equal(result.subtype, "success", JSON.stringify(result));
  report({ result: result.result });
}

async function agents() {
  const messages = await collectAll(
    {
      permissionMode: "plan",
      agents: {
        reviewer: {
          description: "Reviews code for bugs",
          prompt: "You review code carefully.",
          tools: ["Read", "Grep", "Glob"],
        },
      },
    },
    "Review the code",
  );
  const result = resultOf(messages);
  assert.equal(result.subtype, "success", JSON.stringify(result));
  assert.ok(messages.some((m) => m.type === "assistant" && m.parent_tool_use_id === "a1"));
  report({ result: result.result });
}

async function structuredOutput() {
  const schema = {
    type: "object",
    properties: { answer: { type: "integer" } },
    required: ["answer"],
  };
  const messages = await collectAll(
    { outputFormat: { type: "json_schema", schema } },
    "What is the answer?",
  );
  const result = resultOf(messages);
  assert.equal(result.subtype, "success", JSON.stringify(result));
  assert.deepEqual(result.structured_output, { answer: 42 });
  report({ structured: result.structured_output, result: result.result });
}

async function systemPromptString() {
  const messages = await collectAll({ systemPrompt: "You are a terse SQL reviewer." }, "hi");
  report({ result: resultOf(messages).result });
}

async function noPersistence() {
  const messages = await collectAll({ persistSession: false }, "hi");
  const result = resultOf(messages);
  assert.equal(result.subtype, "success", JSON.stringify(result));
  report({ result: result.result, session_id: result.session_id });
}

const SCENARIOS = {
  one_shot: oneShot,
  can_use_tool: canUseTool,
  plan_mode: planMode,
  hooks,
  interrupt,
  deny_interrupts: denyInterrupts,
  sdk_mcp: sdkMcp,
  rewind,
  mcp_one_shot: mcpOneShot,
  agents,
  structured_output: structuredOutput,
  system_prompt_string: systemPromptString,
  no_persistence: noPersistence,
};

const name = process.argv[2];
const run = SCENARIOS[name];
if (!run) {
  console.error(`unknown scenario ${name}`);
  process.exit(2);
}
await run();
// The SDK's child may keep the event loop alive a moment; the scenario is done.
process.exit(0);
