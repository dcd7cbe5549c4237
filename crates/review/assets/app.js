// catui's plan review page. Loads the plan from /api/plan, shows it
// (rendered, as numbered lines, and the changes between revisions), keeps
// the user's comments on lines or selected passages, and sends one
// decision to /api/decision with the page's CSRF token. The plan's HTML is
// rendered and escaped by catui; everything else is set as text.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const meta = document.querySelector('meta[name="csrf-token"]');
  const csrf = meta ? meta.content : "";
  const state = {
    page: null, comments: [], editing: null, decided: false, selection: null,
    // The Lines and Changes views are built when first shown.
    linesBuilt: false, shownRevision: null,
  };

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") node.className = v;
      else node.setAttribute(k, v);
    }
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function status(text, isError) {
    const s = $("status");
    s.textContent = text;
    s.className = isError ? "error" : "";
  }

  function lineText(n) {
    const lines = state.page.plan.split("\n");
    return lines[n - 1] === undefined ? "" : lines[n - 1];
  }

  function show(view) {
    if (view === "lines" && !state.linesBuilt) buildLines();
    if (view === "changes" && !state.shownRevision && state.page.revisions.length) {
      showRevision(state.page.revisions[state.page.revisions.length - 1]);
    }
    for (const v of ["plan", "lines", "changes"]) {
      $(v).classList.toggle("hidden", v !== view);
      $("tab-" + v).classList.toggle("active", v === view);
    }
  }

  function renderHeader(page) {
    $("title").textContent = page.title;
    document.title = page.title + " · plan review · catui";
    $("path").textContent = page.path;
    $("context").textContent = page.context;
    $("notes").replaceChildren(...page.notes.map((n) => el("p", {}, n)));
  }

  function renderOutline(page) {
    const items = page.outline.map((h) => {
      const li = el("li", { class: "l" + h.level });
      const a = el("a", { href: "#" + h.id }, h.text);
      a.addEventListener("click", () => show("plan"));
      li.append(a);
      return li;
    });
    $("outline").replaceChildren(...items);
  }

  function renderPlan(page) {
    const article = $("plan");
    article.innerHTML = page.html;
    for (const block of article.querySelectorAll("[data-line]")) {
      const n = block.getAttribute("data-line");
      const gutter = el("span", { class: "ln", "data-line": n, title: "Comment on line " + n }, n);
      const host = block.tagName === "TR" ? block.firstElementChild : block;
      if (host) host.insertBefore(gutter, host.firstChild);
    }
  }

  function buildLines() {
    state.linesBuilt = true;
    const lines = state.page.plan.split("\n");
    if (lines.length && lines[lines.length - 1] === "") lines.pop();
    const rows = lines.map((text, i) => {
      const row = el("div", { class: "src-line", "data-line": String(i + 1) });
      row.append(el("span", { class: "ln", "data-line": String(i + 1) }, String(i + 1)));
      row.append(el("span", { class: "txt" }, text || " "));
      return row;
    });
    $("lines").replaceChildren(...rows);
    renderComments();
  }

  function diffBlock(diff) {
    const pre = el("pre");
    for (const line of diff.split("\n")) {
      const cls = line.startsWith("@@") ? "diff-hunk"
        : line.startsWith("+") && !line.startsWith("+++") ? "diff-add"
        : line.startsWith("-") && !line.startsWith("---") ? "diff-del" : "";
      pre.append(el("span", cls ? { class: cls } : {}, line + "\n"));
    }
    return pre;
  }

  function showRevision(rev) {
    state.shownRevision = rev;
    const box = $("changes");
    const marks = [];
    if (rev.approved) marks.push(rev.edited ? "approved (edited)" : "approved");
    if (rev.parked) marks.push("parked");
    if (rev.current) marks.push("under review");
    box.replaceChildren(el("h3", {}, "Revision " + rev.number + (rev.at ? " · " + rev.at : "") +
      (marks.length ? " · " + marks.join(", ") : "") + " · sha256 " + rev.hash.slice(0, 12)));
    if (rev.diff) {
      box.append(el("p", { class: "dim" }, "Changes from revision " + (rev.number - 1) + ":"), diffBlock(rev.diff));
    } else {
      box.append(el("p", { class: "dim" }, rev.number === 1 ? "The first revision shown for approval." : "No change from the revision before."));
    }
    const full = el("details");
    full.append(el("summary", {}, "Full text of revision " + rev.number), el("pre", {}, rev.text));
    box.append(full);
    show("changes");
  }

  function renderRevisions(page) {
    const items = page.revisions.map((rev) => {
      const li = el("li", rev.current ? { class: "current" } : {});
      const b = el("button", { type: "button", "data-revision": String(rev.number) }, "Revision " + rev.number);
      b.addEventListener("click", () => showRevision(rev));
      li.append(b);
      if (rev.approved) li.append(el("span", { class: "mark" }, rev.edited ? "approved (edited)" : "approved"));
      if (rev.parked) li.append(el("span", { class: "mark" }, "parked"));
      if (rev.current) li.append(el("span", { class: "mark" }, "under review"));
      if (rev.at) li.append(el("div", { class: "dim" }, rev.at.replace("T", " ").slice(0, 19)));
      return li;
    });
    $("revisions").replaceChildren(...items);
  }

  function renderDecisions(page) {
    $("model").value = page.model || "";
    $("model").placeholder = page.model ? "" : "the session's model";
    const steps = page.steps.map((s) => {
      const li = el("li");
      const label = el("label");
      const box = el("input", { type: "checkbox", "data-step": String(s.number) });
      box.checked = true;
      label.append(box, " " + s.number + ". " + s.text);
      li.append(label);
      return li;
    });
    $("steps").replaceChildren(...steps);
    $("steps-box").classList.toggle("hidden", steps.length === 0);
    if (page.decisions === "sendBackOnly") {
      $("approve").classList.add("hidden");
      $("park").classList.add("hidden");
      $("send-back").prepend(el("p", { class: "dim" },
        "The model has not asked for approval of this plan: your comments go to it as your next message."));
      $("keep-planning").textContent = "Send the comments to the model";
    }
  }

  function renderComments() {
    const list = state.comments.map((c, i) => {
      const li = el("li", { "data-comment-line": String(c.line) });
      const remove = el("button", { type: "button", class: "remove plain", title: "Remove" }, "×");
      remove.addEventListener("click", () => { state.comments.splice(i, 1); renderComments(); });
      li.append(remove, el("div", { class: "dim" }, "Line " + c.line + ": " + lineText(c.line)));
      if (c.passage) li.append(el("blockquote", {}, c.passage));
      li.append(el("div", {}, c.text));
      return li;
    });
    $("comments").replaceChildren(...list);
    $("comment-count").textContent = state.comments.length ? "(" + state.comments.length + ")" : "";
    for (const node of document.querySelectorAll(".has-comment")) node.classList.remove("has-comment");
    for (const node of document.querySelectorAll(".src-comment")) node.remove();
    for (const c of state.comments) {
      const block = $("plan").querySelector('[data-line="' + c.line + '"]:not(.ln)');
      if (block) block.classList.add("has-comment");
      const row = $("lines").querySelector('.src-line[data-line="' + c.line + '"]');
      if (row) row.after(el("div", { class: "src-comment" }, (c.passage ? "“" + c.passage + "” — " : "") + c.text));
    }
  }

  function openEditor(line, passage) {
    if (state.decided) return;
    state.editing = { line, passage };
    $("editor").classList.remove("hidden");
    $("editor-anchor").textContent = "Line " + line + ": " + lineText(line) + (passage ? "\nOn “" + passage + "”" : "");
    const existing = state.comments.find((c) => c.line === line && (c.passage || null) === (passage || null));
    $("editor-text").value = existing ? existing.text : "";
    $("editor-text").focus();
  }

  function saveComment() {
    const e = state.editing;
    const text = $("editor-text").value.trim();
    if (!e) return;
    state.comments = state.comments.filter((c) => !(c.line === e.line && (c.passage || null) === (e.passage || null)));
    if (text) state.comments.push({ line: e.line, text, passage: e.passage || null });
    state.comments.sort((a, b) => a.line - b.line);
    closeEditor();
    renderComments();
  }

  function closeEditor() {
    state.editing = null;
    $("editor").classList.add("hidden");
  }

  // The plan line a node of the page belongs to (its block's first line).
  function lineOf(node) {
    let n = node && node.nodeType === 1 ? node : node && node.parentElement;
    while (n && n !== document.body) {
      if (n.hasAttribute("data-line")) return Number(n.getAttribute("data-line"));
      n = n.parentElement;
    }
    return 0;
  }

  function onSelection(event) {
    const button = $("comment-selection");
    const sel = window.getSelection();
    const text = sel && !sel.isCollapsed ? sel.toString().trim() : "";
    const inPlan = sel && sel.anchorNode && ($("plan").contains(sel.anchorNode) || $("lines").contains(sel.anchorNode));
    const line = inPlan && text ? lineOf(sel.anchorNode) : 0;
    if (!line || state.decided) {
      button.classList.add("hidden");
      state.selection = null;
      return;
    }
    state.selection = { line, passage: text.slice(0, 2000) };
    const main = document.querySelector("main").getBoundingClientRect();
    button.style.left = Math.max(0, event.clientX - main.left) + "px";
    button.style.top = (event.clientY - main.top + document.querySelector("main").scrollTop + 12) + "px";
    button.classList.remove("hidden");
  }

  function steps() {
    return Array.from(document.querySelectorAll("#steps input[data-step]"))
      .filter((b) => !b.checked).map((b) => Number(b.getAttribute("data-step")));
  }

  async function decide(body) {
    if (state.decided) return;
    body.planHash = state.page.hash;
    for (const b of document.querySelectorAll("#decide button")) b.disabled = true;
    status("Sending…", false);
    let response;
    let data = {};
    try {
      response = await fetch("/api/decision", {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
        body: JSON.stringify(body),
      });
      data = await response.json().catch(() => ({}));
    } catch (e) {
      status("catui could not be reached: " + e.message, true);
    }
    if (!response || !response.ok) {
      if (response) status(data.error || "The decision was refused (" + response.status + ").", true);
      for (const b of document.querySelectorAll("#decide button")) b.disabled = false;
      return;
    }
    state.decided = true;
    document.body.dataset.decided = data.summary;
    $("comment-selection").classList.add("hidden");
    $("decide").replaceChildren(el("h2", {}, "Decided"), el("p", { id: "decided-summary" }, data.summary),
      el("p", { class: "dim" }, "catui carries on with this decision; you can close this tab."));
  }

  function wire() {
    for (const t of document.querySelectorAll(".tab")) t.addEventListener("click", () => show(t.getAttribute("data-view")));
    document.addEventListener("click", (event) => {
      const target = event.target;
      if (target.classList && target.classList.contains("ln")) openEditor(Number(target.getAttribute("data-line")), null);
    });
    for (const id of ["plan", "lines"]) $(id).addEventListener("mouseup", (e) => setTimeout(() => onSelection(e), 0));
    $("comment-selection").addEventListener("mousedown", (e) => e.preventDefault());
    $("comment-selection").addEventListener("click", () => {
      if (state.selection) openEditor(state.selection.line, state.selection.passage);
      $("comment-selection").classList.add("hidden");
    });
    $("editor-save").addEventListener("click", saveComment);
    $("editor-cancel").addEventListener("click", closeEditor);
    $("keep-planning").addEventListener("click", () => decide({
      verdict: "keep_planning", feedback: $("feedback").value, comments: state.comments,
    }));
    $("approve-button").addEventListener("click", () => {
      const choice = document.querySelector('input[name="mode"]:checked');
      const value = choice ? choice.value : "acceptEdits";
      decide({
        verdict: "approve",
        mode: value === "" ? null : "acceptEdits",
        clearContext: value === "clear",
        skipSteps: steps(),
        model: $("model").value.trim() || null,
      });
    });
    $("park-button").addEventListener("click", () => decide({ verdict: "park", feedback: $("feedback").value }));
  }

  async function load() {
    wire();
    const started = performance.now();
    let page;
    try {
      const response = await fetch("/api/plan", { credentials: "same-origin" });
      if (!response.ok) throw new Error(await response.text());
      page = await response.json();
    } catch (e) {
      $("title").textContent = "The plan could not be loaded";
      status(String(e.message || e), true);
      return;
    }
    const fetched = performance.now();
    state.page = page;
    renderHeader(page);
    renderPlan(page);
    renderOutline(page);
    renderRevisions(page);
    renderDecisions(page);
    renderComments();
    void document.body.offsetHeight; // lay the page out before measuring
    const done = performance.now();
    document.body.dataset.renderMs = (done - fetched).toFixed(1);
    document.body.dataset.loadMs = (done - started).toFixed(1);
    document.body.dataset.ready = "true";
  }

  document.addEventListener("DOMContentLoaded", load);
})();
