// An editor's side of ACP, played by the official TypeScript SDK
// (@agentclientprotocol/sdk): it starts `catui acp` ($CATUI_BIN) in $PROJECT,
// runs the scenario given as the first argument and prints what it saw as
// one JSON line ("facts") for crates/cli/tests/acp_client.rs to check.
// Any protocol error or a broken expectation exits non-zero.

import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const bin = process.env.CATUI_BIN;
const cwd = process.env.PROJECT;
const scenario = process.argv[2];

function fail(message) {
  console.error(`scenario ${scenario}: ${message}`);
  process.exit(1);
}

function check(condition, message) {
  if (!condition) fail(message);
}

/// Starts catui acp and connects the SDK's client to it. `answer` answers
/// permission requests; every update is pushed onto `updates`.
async function withAgent(answer, updates, op, extra = (app) => app) {
  const child = spawn(bin, ["acp"], { cwd, stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  const app = extra(
    acp
      .client({ name: "catui-acp-test" })
      .onRequest(acp.methods.client.session.requestPermission, (ctx) => answer(ctx.params))
      .onNotification(acp.methods.client.session.update, (ctx) => {
        updates.push(ctx.params.update);
      }),
  );
  const result = await app.connectWith(stream, op);
  child.stdin.end();
  const code = await exited;
  check(code === 0, `catui acp exited with ${code}`);
  return result;
}

async function initialize(ctx, fs = { readTextFile: false, writeTextFile: false }, terminal = false) {
  const init = await ctx.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs, terminal },
    clientInfo: { name: "catui-acp-test", version: "1.0.0" },
  });
  check(init.protocolVersion === 1, `protocol version ${init.protocolVersion}`);
  check(init.agentCapabilities.loadSession === true, "loadSession not advertised");
  return init;
}

const text = (u) => (u.content && u.content.type === "text" ? u.content.text : "");
const ofKind = (updates, kind) => updates.filter((u) => u.sessionUpdate === kind);
const contentTexts = (toolCall) =>
  (toolCall.content || []).filter((c) => c.type === "content").map((c) => c.content.text);

async function waitFor(predicate, what) {
  for (let i = 0; i < 400; i++) {
    if (predicate()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  fail(`timed out waiting for ${what}`);
}

async function full() {
  const facts = { requests: [], stops: [] };
  const updates = [];
  // Scripted answers to permission requests, in order.
  const answers = [
    { optionId: "allow_once" },
    { optionId: "reject_once" },
    { optionId: "plan_keep_planning", feedback: "Add a step that runs the tests." },
    { optionId: "plan_accept_edits" },
  ];
  const answer = (params) => {
    const next = answers.shift();
    facts.requests.push({
      toolCallId: params.toolCall.toolCallId,
      title: params.toolCall.title,
      kind: params.toolCall.kind,
      options: params.options.map((o) => `${o.optionId}:${o.kind}`),
      content: contentTexts(params.toolCall),
      diffs: (params.toolCall.content || []).filter((c) => c.type === "diff"),
      answered: next ? next.optionId : "cancelled",
    });
    if (!next) return { outcome: { outcome: "cancelled" } };
    const response = { outcome: { outcome: "selected", optionId: next.optionId } };
    if (next.feedback) response._meta = { feedback: next.feedback };
    return response;
  };
  await withAgent(answer, updates, async (ctx) => {
    await initialize(ctx);
    const session = await ctx.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
    facts.sessionId = session.sessionId;
    facts.modes = session.modes.availableModes.map((m) => m.id);
    facts.startMode = session.modes.currentModeId;
    const prompt = async (words) => {
      const response = await ctx.request(acp.methods.agent.session.prompt, {
        sessionId: session.sessionId,
        prompt: [{ type: "text", text: words }],
      });
      facts.stops.push(response.stopReason);
      return response;
    };

    // 1. Text streams as message chunks.
    await prompt("say hello");
    facts.helloChunks = ofKind(updates, "agent_message_chunk").length;
    facts.helloText = ofKind(updates, "agent_message_chunk").map(text).join("");

    // 2. Two writes: the first allowed, the second refused.
    await prompt("write two files");

    // 3. Plan mode from the editor's mode menu.
    const before = updates.length;
    await ctx.request(acp.methods.agent.session.setMode, {
      sessionId: session.sessionId,
      modeId: "plan",
    });
    await waitFor(
      () => updates.slice(before).some((u) => u.sessionUpdate === "current_mode_update"),
      "current_mode_update after set_mode",
    );
    facts.modeAfterSetMode = ofKind(updates.slice(before), "current_mode_update")[0].currentModeId;

    // 4. Planning: an edit refused, the plan rejected with feedback, then
    //    approved with auto-accept; the edit is applied.
    const planStart = updates.length;
    await prompt("plan the change, then make it");
    const planUpdates = updates.slice(planStart);
    facts.modeChanges = ofKind(planUpdates, "current_mode_update").map((u) => u.currentModeId);
    facts.plans = ofKind(planUpdates, "plan").map((u) =>
      u.entries.map((e) => `${e.status}:${e.content}`),
    );
    facts.toolCalls = ofKind(planUpdates, "tool_call").map((u) => ({
      id: u.toolCallId,
      kind: u.kind,
      title: u.title,
      locations: (u.locations || []).map((l) => l.path),
      diffs: (u.content || []).filter((c) => c.type === "diff").length,
    }));
    facts.toolStatuses = ofKind(planUpdates, "tool_call_update")
      .filter((u) => u.status)
      .map((u) => `${u.toolCallId}:${u.status}`);

    // 5. Cancel mid-turn.
    const cancelStart = updates.length;
    const pending = prompt("tell me a long story");
    await waitFor(
      // The story itself: a note of the turn before may still arrive first.
      () => ofKind(updates.slice(cancelStart), "agent_message_chunk").map(text).join("").includes("word0"),
      "the story to start",
    );
    await ctx.notify(acp.methods.agent.session.cancel, { sessionId: session.sessionId });
    await pending;

    // 6. A prompt after the cancel still works.
    await prompt("are you there?");
    facts.afterCancel = ofKind(updates, "agent_message_chunk").map(text).join("").includes("Still here.");
  });

  // 7. Load the session again in a new process: the history is replayed.
  const replayed = [];
  await withAgent(() => ({ outcome: { outcome: "cancelled" } }), replayed, async (ctx) => {
    await initialize(ctx);
    const loaded = await ctx.request(acp.methods.agent.session.load, {
      sessionId: facts.sessionId,
      cwd,
      mcpServers: [],
    });
    facts.loadedMode = loaded.modes.currentModeId;
    facts.replayedUser = ofKind(replayed, "user_message_chunk").map(text);
    facts.replayedAgent = ofKind(replayed, "agent_message_chunk").map(text).join("");
    facts.replayedToolCalls = ofKind(replayed, "tool_call").length;
  });
  return facts;
}

async function missing() {
  const facts = {};
  await withAgent(() => ({ outcome: { outcome: "cancelled" } }), [], async (ctx) => {
    await initialize(ctx);
    try {
      await ctx.request(acp.methods.agent.session.load, {
        sessionId: "00000000-0000-4000-8000-000000000000",
        cwd,
        mcpServers: [],
      });
      facts.loaded = true;
    } catch (e) {
      facts.loadError = String(e.message || e);
    }
    try {
      await ctx.request(acp.methods.agent.session.prompt, {
        sessionId: "nope",
        prompt: [{ type: "text", text: "hi" }],
      });
    } catch (e) {
      facts.promptError = String(e.message || e);
    }
  });
  return facts;
}

async function question() {
  const facts = { asked: [] };
  const updates = [];
  const answer = (params) => {
    facts.asked.push({
      title: params.toolCall.title,
      options: params.options.map((o) => `${o.optionId}:${o.name}`),
    });
    return { outcome: { outcome: "selected", optionId: "answer_1" } };
  };
  await withAgent(answer, updates, async (ctx) => {
    await initialize(ctx);
    const session = await ctx.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
    const response = await ctx.request(acp.methods.agent.session.prompt, {
      sessionId: session.sessionId,
      prompt: [{ type: "text", text: "pick a database" }],
    });
    facts.stop = response.stopReason;
  });
  return facts;
}

/// The editor passes an MCP server in session/new: catui connects it and
/// its tools reach the model (asked like any tool that reaches outside).
async function mcp() {
  const facts = { asked: [], views: [] };
  const updates = [];
  const answer = (params) => {
    facts.asked.push({ title: params.toolCall.title, kind: params.toolCall.kind });
    return { outcome: { outcome: "selected", optionId: "allow_once" } };
  };
  await withAgent(answer, updates, async (ctx) => {
    const init = await initialize(ctx);
    facts.mcpCapabilities = init.agentCapabilities.mcpCapabilities;
    const session = await ctx.request(acp.methods.agent.session.new, {
      cwd,
      mcpServers: [
        { name: "ev", command: "node", args: [process.env.MCP_EVERYTHING, "stdio"], env: [] },
        { name: "gone", command: "/nonexistent/mcp-server", args: [], env: [] },
      ],
    });
    const prompt = (words) =>
      ctx.request(acp.methods.agent.session.prompt, {
        sessionId: session.sessionId,
        prompt: [{ type: "text", text: words }],
      });
    // Servers connect in the background: /mcp tells when it is there.
    for (let i = 0; i < 80; i++) {
      const before = updates.length;
      await prompt("/mcp");
      const view = ofKind(updates.slice(before), "agent_message_chunk").map(text).join("");
      facts.views.push(view);
      if (view.includes("ev (client) — connected")) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const response = await prompt("echo something");
    facts.stop = response.stopReason;
    facts.toolTitles = ofKind(updates, "tool_call").map((u) => u.title);
  });
  facts.lastView = facts.views[facts.views.length - 1];
  delete facts.views;
  return facts;
}

/// The editor offers its files: an open buffer with unsaved changes is what
/// Read sees and Edit changes, and writes go to the editor, not the disk.
async function editorFiles() {
  const facts = { reads: [], writes: [] };
  const updates = [];
  // The editor's buffers: a.txt is open with changes not saved to disk.
  const buffers = new Map([[`${cwd}/a.txt`, "unsaved line in the editor\n"]]);
  const fs = (app) =>
    app
      .onRequest(acp.methods.client.fs.readTextFile, (ctx) => {
        facts.reads.push(ctx.params.path);
        const open = buffers.get(ctx.params.path);
        if (open !== undefined) return { content: open };
        return { content: readFileSync(ctx.params.path, "utf8") };
      })
      .onRequest(acp.methods.client.fs.writeTextFile, (ctx) => {
        facts.writes.push({ path: ctx.params.path, content: ctx.params.content });
        buffers.set(ctx.params.path, ctx.params.content);
        return {};
      });
  await withAgent(
    () => ({ outcome: { outcome: "selected", optionId: "allow_once" } }),
    updates,
    async (ctx) => {
      await initialize(ctx, { readTextFile: true, writeTextFile: true });
      const session = await ctx.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
      await ctx.request(acp.methods.agent.session.setMode, {
        sessionId: session.sessionId,
        modeId: "acceptEdits",
      });
      const response = await ctx.request(acp.methods.agent.session.prompt, {
        sessionId: session.sessionId,
        prompt: [{ type: "text", text: "fix a.txt and add b.txt" }],
      });
      facts.stop = response.stopReason;
    },
    fs,
  );
  return facts;
}

/// The editor offers its terminals: the command the user allowed runs
/// there; the one judged read-only runs confined inside catui.
async function editorTerminal() {
  const facts = { terminals: [], released: 0 };
  const updates = [];
  const terms = new Map();
  let next = 0;
  const terminal = (app) =>
    app
      .onRequest(acp.methods.client.terminal.create, (ctx) => {
        const id = `term-${++next}`;
        const { command, args, cwd: dir } = ctx.params;
        facts.terminals.push({ command, args, cwd: dir });
        const child = spawn(command, args, { cwd: dir });
        const t = { out: "", exit: null };
        child.stdout.on("data", (d) => (t.out += d));
        child.stderr.on("data", (d) => (t.out += d));
        t.done = new Promise((resolve) =>
          child.on("close", (code, signal) => {
            t.exit = { exitCode: code, signal };
            resolve();
          }),
        );
        terms.set(id, t);
        return { terminalId: id };
      })
      .onRequest(acp.methods.client.terminal.waitForExit, async (ctx) => {
        const t = terms.get(ctx.params.terminalId);
        await t.done;
        return t.exit;
      })
      .onRequest(acp.methods.client.terminal.output, (ctx) => {
        const t = terms.get(ctx.params.terminalId);
        return { output: t.out, truncated: false, exitStatus: t.exit };
      })
      .onRequest(acp.methods.client.terminal.kill, () => ({}))
      .onRequest(acp.methods.client.terminal.release, (ctx) => {
        terms.delete(ctx.params.terminalId);
        facts.released += 1;
        return {};
      });
  await withAgent(
    () => ({ outcome: { outcome: "selected", optionId: "allow_once" } }),
    updates,
    async (ctx) => {
      await initialize(ctx, { readTextFile: false, writeTextFile: false }, true);
      const session = await ctx.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
      const response = await ctx.request(acp.methods.agent.session.prompt, {
        sessionId: session.sessionId,
        prompt: [{ type: "text", text: "build and look" }],
      });
      facts.stop = response.stopReason;
    },
    terminal,
  );
  return facts;
}

/// A session in a folder whose own configuration waits for trust: what the
/// editor is told, and which of the model's calls are asked about (all
/// refused).
async function trust() {
  const facts = { requests: [] };
  const updates = [];
  const answer = (params) => {
    facts.requests.push(params.toolCall.title);
    return { outcome: { outcome: "selected", optionId: "reject_once" } };
  };
  await withAgent(answer, updates, async (ctx) => {
    await initialize(ctx);
    const session = await ctx.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
    facts.meta = session._meta ?? null;
    facts.startMode = session.modes.currentModeId;
    await waitFor(() => updates.length > 0 || facts.meta === null, "the notice");
    facts.announced = ofKind(updates, "agent_message_chunk").map(text).join("");
    const response = await ctx.request(acp.methods.agent.session.prompt, {
      sessionId: session.sessionId,
      prompt: [{ type: "text", text: "write the file" }],
    });
    facts.stop = response.stopReason;
  });
  return facts;
}

/// The session's available commands as announced, then one custom
/// command sent as a prompt (`/NAME args`).
async function commands() {
  const facts = {};
  const updates = [];
  const answer = () => ({ outcome: { outcome: "selected", optionId: "reject_once" } });
  await withAgent(answer, updates, async (ctx) => {
    await initialize(ctx);
    const session = await ctx.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
    const announced = () => ofKind(updates, "available_commands_update");
    await waitFor(() => announced().length > 0, "the available commands");
    facts.commands = announced()[0].availableCommands.map((c) => ({
      name: c.name,
      description: c.description,
    }));
    const response = await ctx.request(acp.methods.agent.session.prompt, {
      sessionId: session.sessionId,
      prompt: [{ type: "text", text: "/review the parser" }],
    });
    facts.stop = response.stopReason;
    facts.said = ofKind(updates, "agent_message_chunk").map(text).join("");
  });
  return facts;
}

/// A teammate's plan put to the editor's user (teammatePlanApprover
/// "user"): rejected with feedback, then approved once revised; the
/// teammate writes feature.txt, and the lead model is told each outcome in
/// a turn of its own, which streams like a prompt's.
async function teammatePlan() {
  const facts = { requests: [] };
  const updates = [];
  const answers = [
    { optionId: "plan_keep_planning", feedback: "Also write the changelog entry." },
    { optionId: "teammate_approve" },
  ];
  const answer = (params) => {
    const next = answers.shift();
    facts.requests.push({
      toolCallId: params.toolCall.toolCallId,
      title: params.toolCall.title,
      kind: params.toolCall.kind,
      options: params.options.map((o) => `${o.optionId}:${o.kind}:${o.name}`),
      content: contentTexts(params.toolCall),
      rawInput: params.toolCall.rawInput,
      featureBefore: existsSync(`${cwd}/feature.txt`),
    });
    if (!next) return { outcome: { outcome: "cancelled" } };
    const response = { outcome: { outcome: "selected", optionId: next.optionId } };
    if (next.feedback) response._meta = { feedback: next.feedback };
    return response;
  };
  await withAgent(answer, updates, async (ctx) => {
    await initialize(ctx);
    const session = await ctx.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
    await ctx.request(acp.methods.agent.session.setMode, {
      sessionId: session.sessionId,
      modeId: "acceptEdits",
    });
    const response = await ctx.request(acp.methods.agent.session.prompt, {
      sessionId: session.sessionId,
      prompt: [{ type: "text", text: "start a team for the feature" }],
    });
    facts.stop = response.stopReason;
    const said = () => ofKind(updates, "agent_message_chunk").map(text).join("");
    await waitFor(() => existsSync(`${cwd}/feature.txt`), "the teammate's feature.txt");
    await waitFor(() => said().includes("Noted: second outcome."), "the lead's second note");
    facts.said = said();
  });
  return facts;
}

const scenarios = {
  teammate_plan: teammatePlan,
  full,
  commands,
  missing,
  question,
  mcp,
  trust,
  editor_files: editorFiles,
  editor_terminal: editorTerminal,
};
if (!scenarios[scenario]) fail("unknown scenario");
const facts = await scenarios[scenario]();
console.log(JSON.stringify(facts));
