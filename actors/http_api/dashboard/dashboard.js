// The DiCE dashboard: polls this node's JSON API (the same answers the CLI
// reads) and draws members, counts, queue depth and throughput over time,
// tasks per node, recent failures and one task's detail. No libraries, so
// it works without the internet.
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
};
$("task-form").onsubmit = (ev) => {
  ev.preventDefault();
  if ($("task-id").value.trim()) showTask($("task-id").value.trim());
};

poll();
slowPoll();
setInterval(poll, POLL_MS);
setInterval(slowPoll, SLOW_POLL_MS);
