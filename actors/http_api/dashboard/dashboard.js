// The DiCE dashboard: polls this node's JSON API (the same answers the CLI
// reads) and draws members, counts, queue depth and throughput over time,
// tasks per node, recent failures, workflows drawn as graphs of steps, and
// one task's detail. No libraries, so it works without the internet.
"use strict";

const POLL_MS = 1000;        // members, counts, election
const SLOW_POLL_MS = 3000;   // per-node tally and failures: they walk the replica
const HISTORY = 180;         // samples kept for the charts (3 minutes)

const history = [];          // {t, ready, running, rate}
let lastDone = null;
let token = sessionStorage.getItem("dice-token") || "";

const $ = (id) => document.getElementById(id);

function text(tag, value, cls) {
  const el = document.createElement(tag);
  el.textContent = value === null || value === undefined ? "-" : String(value);
  if (cls) el.className = cls;
  return el;
}

async function api(path) {
  const headers = token ? { Authorization: "Bearer " + token } : {};
  const res = await fetch(path, { headers, cache: "no-store" });
  if (res.status === 401) {
    $("token-form").hidden = false;
    throw new Error("the node asks for its API token");
  }
  const body = await res.json();
  if (!res.ok) throw new Error(body.error || res.status + " " + res.statusText);
  return body;
}

function status(message, error) {
  const s = $("status");
  s.textContent = message;
  s.className = error ? "status error" : "status";
}

let perNode = {}; // done tasks per executing node
let running = {}; // running tasks per node
let claimed = {}; // tasks claimed ahead of a free slot, per node
let lastNodes = null; // the last /nodes answer, redrawn when the tally comes

function drawMembers(nodes) {
  const body = $("members").tBodies[0];
  body.replaceChildren();
  for (const n of nodes.nodes) {
    const tr = document.createElement("tr");
    tr.className = n.id === nodes.self ? "member self" : "member";
    tr.dataset.id = n.id;
    tr.append(text("td", n.id, "member-id"), text("td", n.addr),
              text("td", n.state, "state-" + n.state), text("td", n.last_seen_ms),
              text("td", perNode[n.id] || 0, "member-done"),
              text("td", running[n.id] || 0, "member-running"),
              text("td", claimed[n.id] || 0, "member-claimed"));
    body.append(tr);
  }
}

function drawCounts(stats) {
  for (const k of ["ready", "claimed", "running", "done", "failed", "expired", "canceled", "removed"])
    $("count-" + k).textContent = stats.tasks[k];
  const now = Date.now() / 1000;
  let rate = 0;
  if (lastDone) {
    const dt = now - lastDone.t;
    rate = dt > 0 ? Math.max(0, stats.tasks.done - lastDone.done) / dt : 0;
  }
  lastDone = { t: now, done: stats.tasks.done };
  $("throughput").textContent = rate.toFixed(1);
  history.push({ t: now, ready: stats.tasks.ready, running: stats.tasks.running, rate });
  while (history.length > HISTORY) history.shift();
}

function drawChart(canvas, series) {
  const ctx = canvas.getContext("2d");
  const w = canvas.width, h = canvas.height, pad = 28;
  ctx.clearRect(0, 0, w, h);
  let max = 1;
  for (const s of series) for (const v of s.values) max = Math.max(max, v);
  ctx.fillStyle = "#5b6678";
  ctx.font = "11px sans-serif";
  ctx.fillText(String(Math.round(max * 10) / 10), 2, 12);
  ctx.fillText("0", 2, h - 4);
  ctx.strokeStyle = "#e5e8ee";
  ctx.strokeRect(pad, 4, w - pad - 4, h - 8);
  for (const s of series) {
    ctx.strokeStyle = s.color;
    ctx.lineWidth = 2;
    ctx.beginPath();
    s.values.forEach((v, i) => {
      const x = pad + (w - pad - 4) * (i / Math.max(1, HISTORY - 1));
      const y = h - 4 - (h - 8) * (v / max);
      i ? ctx.lineTo(x, y) : ctx.moveTo(x, y);
    });
    ctx.stroke();
  }
}

function drawCharts() {
  drawChart($("depth-chart"), [
    { color: "#2f6fde", values: history.map((s) => s.ready) },
    { color: "#e08a1e", values: history.map((s) => s.running) },
  ]);
  drawChart($("rate-chart"), [{ color: "#1a7f37", values: history.map((s) => s.rate) }]);
}

function drawPerNode() {
  const box = $("per-node");
  box.replaceChildren();
  const max = Math.max(1, ...Object.values(perNode));
  for (const [node, n] of Object.entries(perNode)) {
    const row = document.createElement("div");
    row.className = "bar";
    row.dataset.node = node;
    const fill = document.createElement("div");
    fill.className = "fill";
    fill.style.width = Math.max(2, 300 * n / max) + "px";
    row.append(text("span", node, "name"), fill, text("span", n, "count"));
    box.append(row);
  }
}

function drawFailures(list) {
  const body = $("failures").tBodies[0];
  body.replaceChildren();
  const recent = list.tasks
    .sort((a, b) => (b.finished_at_ms || 0) - (a.finished_at_ms || 0)).slice(0, 10);
  for (const t of recent) {
    const tr = document.createElement("tr");
    tr.append(text("td", t.id), text("td", t.kind), text("td", t.node),
              text("td", t.attempts), text("td", t.reason));
    tr.onclick = () => showTask(t.id);
    body.append(tr);
  }
}

async function showTask(id) {
  $("task-id").value = id;
  const body = $("task-detail").tBodies[0];
  body.replaceChildren();
  try {
    const t = await api("/tasks/" + encodeURIComponent(id));
    for (const [k, v] of Object.entries(t)) {
      const tr = document.createElement("tr");
      const shown = k.endsWith("_at_ms") && v ? new Date(v).toISOString() : v;
      tr.append(text("th", k), text("td", shown));
      body.append(tr);
    }
  } catch (e) {
    const tr = document.createElement("tr");
    tr.append(text("th", "error"), text("td", e.message));
    body.append(tr);
  }
}

// -- workflows: the recent ones, and the graph of the one in the URL --------
// (#workflow=ID, so a graph can be linked; &step=NAME lists that step's
// tasks). Steps are boxes in layers, left to right: a step's layer is one
// more than the highest of the steps it runs after. Edges go from each
// parent step to its children.

const SVG_NS = "http://www.w3.org/2000/svg";
const BOX_W = 180, BOX_H = 64, GAP_X = 56, GAP_Y = 16, MARGIN = 8;
function fromHash(name) {
  const m = location.hash.match(new RegExp("[#&]" + name + "=([^&]+)"));
  return m ? decodeURIComponent(m[1]) : "";
}
const selectedWorkflow = () => fromHash("workflow");
const shownStep = () => fromHash("step"); // the step whose tasks are listed

function countsText(counts) {
  return Object.entries(counts).map(([k, n]) => k + " " + n).join(", ");
}

function svg(tag, attrs, textValue) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v);
  if (textValue !== undefined) el.textContent = textValue;
  return el;
}

function drawWorkflowList(list) {
  const body = $("workflows").tBodies[0];
  body.replaceChildren();
  const selected = selectedWorkflow();
  for (const w of list.workflows) {
    const tr = document.createElement("tr");
    tr.className = w.id === selected ? "workflow selected" : "workflow";
    tr.dataset.id = w.id;
    const link = document.createElement("a");
    link.href = "#workflow=" + encodeURIComponent(w.id);
    link.textContent = w.id;
    const id = document.createElement("td");
    id.append(link);
    tr.append(id, text("td", w.state, "state-" + w.state), text("td", w.steps),
              text("td", w.tasks), text("td", countsText(w.counts)),
              text("td", new Date(w.enqueued_at_ms).toLocaleTimeString()));
    body.append(tr);
  }
}

// Each step's layer: 0 for a step that runs after none, else one more than
// its highest parent's. The API lists parents first; the memo guards anyway.
function layersOf(steps) {
  const byName = new Map(steps.map((s) => [s.name, s]));
  const layer = new Map();
  const visit = (name, depth) => {
    if (layer.has(name)) return layer.get(name);
    const s = byName.get(name);
    let l = 0;
    if (s && depth < steps.length)
      for (const p of s.after) if (byName.has(p)) l = Math.max(l, visit(p, depth + 1) + 1);
    layer.set(name, l);
    return l;
  };
  for (const s of steps) visit(s.name, 0);
  return layer;
}

function drawWorkflowGraph(w) {
  const graph = $("workflow-graph");
  graph.replaceChildren();
  const layer = layersOf(w.steps);
  const done = new Map(w.steps.map((s) => [s.name, s.state === "done"]));
  const columns = [];
  for (const s of w.steps) (columns[layer.get(s.name)] ||= []).push(s);
  const pos = new Map();
  columns.forEach((col, l) => col.forEach((s, i) => pos.set(s.name, {
    x: MARGIN + l * (BOX_W + GAP_X), y: MARGIN + i * (BOX_H + GAP_Y) })));
  const rows = Math.max(1, ...columns.map((c) => c.length));
  graph.setAttribute("width", 2 * MARGIN + columns.length * (BOX_W + GAP_X) - GAP_X);
  graph.setAttribute("height", 2 * MARGIN + rows * (BOX_H + GAP_Y) - GAP_Y);
  const defs = svg("defs");
  const arrow = svg("marker", { id: "arrow", viewBox: "0 0 8 8", refX: 8, refY: 4,
                                markerWidth: 8, markerHeight: 8, orient: "auto" });
  arrow.append(svg("path", { d: "M0,0 L8,4 L0,8 z", class: "arrowhead" }));
  defs.append(arrow);
  graph.append(defs);
  // Edges first, so the boxes lie over their ends.
  for (const s of w.steps)
    for (const p of s.after) {
      const a = pos.get(p), b = pos.get(s.name);
      if (!a || !b) continue;
      const x1 = a.x + BOX_W, y1 = a.y + BOX_H / 2, x2 = b.x, y2 = b.y + BOX_H / 2;
      const mid = (x1 + x2) / 2;
      graph.append(svg("path", {
        class: "edge", "data-from": p, "data-to": s.name, "marker-end": "url(#arrow)",
        d: `M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2},${y2}` }));
    }
  for (const s of w.steps) {
    const { x, y } = pos.get(s.name);
    const counts = {};
    for (const t of s.tasks) counts[t.state] = (counts[t.state] || 0) + 1;
    // A ready step whose parents are not all done waits for them.
    const waiting = s.state === "ready" && s.after.some((p) => !done.get(p));
    const shown = waiting ? "waiting" : s.state;
    const box = svg("g", { class: "step" + (s.name === shownStep() ? " shown" : ""),
                           "data-step": s.name, "data-state": s.state,
                           "data-layer": layer.get(s.name), "data-tasks": s.tasks.length,
                           transform: `translate(${x},${y})` });
    box.append(svg("title", {}, s.name + ": " + shown
                   + (s.after.length ? ", after " + s.after.join(", ") : "")));
    box.append(svg("rect", { class: "box state-" + shown, width: BOX_W, height: BOX_H, rx: 5 }));
    const name = s.name.length > 24 ? s.name.slice(0, 23) + "…" : s.name;
    box.append(svg("text", { class: "name", x: 8, y: 18 }, name));
    box.append(svg("text", { class: "summary", x: 8, y: 35 },
                   s.tasks.length + (s.tasks.length === 1 ? " task, " : " tasks, ") + shown));
    box.append(svg("text", { class: "counts", x: 8, y: 51 }, countsText(counts)));
    // A strip along the bottom: the step's tasks by state.
    let at = 0;
    for (const [state, n] of Object.entries(counts)) {
      const wide = (BOX_W - 2) * n / s.tasks.length;
      box.append(svg("rect", { class: "strip state-" + state, x: 1 + at, y: BOX_H - 6,
                               width: wide, height: 5 }));
      at += wide;
    }
    box.onclick = () => {
      location.hash = "workflow=" + encodeURIComponent(w.id) + "&step="
                      + encodeURIComponent(s.name);
    };
    graph.append(box);
  }
}

function drawWorkflowTasks(w) {
  const body = $("workflow-tasks").tBodies[0];
  body.replaceChildren();
  const step = w.steps.find((s) => s.name === shownStep());
  $("workflow-tasks").hidden = !step; // until a step is clicked
  if (!step) return;
  $("workflow-step").textContent = step.name;
  for (const t of step.tasks) {
    const tr = document.createElement("tr");
    tr.append(text("td", t.id), text("td", t.state, "state-" + t.state),
              text("td", t.node), text("td", t.result !== undefined ? t.result : t.reason));
    tr.onclick = () => showTask(t.id);
    body.append(tr);
  }
}

function drawWorkflow(w) {
  $("workflow-state").textContent = w.state + " (" + countsText(w.counts) + ")";
  $("workflow-state").className = "state-" + w.state;
  drawWorkflowGraph(w);
  drawWorkflowTasks(w);
}

async function pollWorkflows() {
  const id = selectedWorkflow();
  $("workflow").hidden = !id;
  $("workflow-id").textContent = id;
  try {
    const [list, w] = await Promise.all([
      api("/workflows?limit=20"),
      id ? api("/workflows/" + encodeURIComponent(id)).catch((e) => e) : null]);
    drawWorkflowList(list);
    if (!id) return;
    const failed = w instanceof Error;
    $("workflow-error").hidden = !failed;
    $("workflow-error").textContent = failed ? w.message : "";
    if (failed) {
      $("workflow-graph").replaceChildren();
      $("workflow-tasks").tBodies[0].replaceChildren();
    } else {
      drawWorkflow(w);
    }
  } catch (e) {
    status(e.message, true);
  }
}

async function poll() {
  try {
    const [nodes, stats, election] = await Promise.all(
      [api("/nodes"), api("/stats"), api("/election")]);
    $("self").textContent = nodes.self;
    $("coordinator").textContent = election.coordinator || "none";
    $("election").textContent = election.algorithm + ", " + election.state;
    drawCounts(stats);
    lastNodes = nodes;
    drawMembers(nodes);
    drawCharts();
    status("updated " + new Date().toLocaleTimeString());
  } catch (e) {
    status(e.message, true);
  }
}

async function slowPoll() {
  try {
    const [done, run, ahead, failed] = await Promise.all([
      api("/tasks?state=done&group=node"), api("/tasks?state=running&group=node"),
      api("/tasks?state=claimed&group=node"),
      api("/tasks?state=failed&with=result&limit=1000")]);
    perNode = done.by_node;
    running = run.by_node;
    claimed = ahead.by_node;
    drawPerNode();
    if (lastNodes) drawMembers(lastNodes);
    drawFailures(failed);
  } catch (e) {
    status(e.message, true);
  }
}

$("token-form").onsubmit = (ev) => {
  ev.preventDefault();
  token = $("token").value.trim();
  sessionStorage.setItem("dice-token", token);
  $("token-form").hidden = true;
  poll();
  slowPoll();
  pollWorkflows();
};
$("task-form").onsubmit = (ev) => {
  ev.preventDefault();
  if ($("task-id").value.trim()) showTask($("task-id").value.trim());
};

window.onhashchange = pollWorkflows;

poll();
slowPoll();
pollWorkflows();
setInterval(poll, POLL_MS);
setInterval(slowPoll, SLOW_POLL_MS);
setInterval(pollWorkflows, SLOW_POLL_MS);
