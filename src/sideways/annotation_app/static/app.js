// The annotation page: drives the JSON API of `sideways annotate serve`.
// Every text from the data (riddles, model output, names) is set with textContent, never as HTML.
"use strict";

// The session token is kept in sessionStorage: a reload keeps the session (and the item it holds),
// another tab gets a session of its own. The page beats every 10 s while open, so the item of a
// closed tab goes back to the queue within seconds.
const TOKEN_KEY = "sideways-annotate-token";
const BEAT_MS = 10000;
const state = { token: sessionStorage.getItem(TOKEN_KEY), item: null, answer: null, justification: null, busy: false };
const $ = (id) => document.getElementById(id);

function keepToken(token) {
  state.token = token;
  if (token) sessionStorage.setItem(TOKEN_KEY, token); else sessionStorage.removeItem(TOKEN_KEY);
}

function say(text, isError = false) {
  $("status").textContent = text;
  $("status").classList.toggle("error", isError);
}

async function api(method, path, body) {
  const headers = { "Content-Type": "application/json" };
  if (state.token) headers["X-CSRF-Token"] = state.token;
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const token = response.headers.get("X-CSRF-Token");
  if (token) keepToken(token);
  const data = response.status === 204 ? null : await response.json();
  return { status: response.status, data };
}

function setText(id, text) { $(id).textContent = text ?? ""; }

function render(item) {
  state.item = item; state.answer = null; state.justification = null;
  $("note").value = "";
  $("item").hidden = item === null;
  $("done").hidden = item !== null;
  if (item === null) return;
  setText("title", item.riddle.title);
  setText("description", item.riddle.description);
  setText("gold", item.riddle.answer);
  setText("solution", item.riddle.solution);
  setText("suggested", item.riddle.justification ?? "(none in the dataset: judge against the solution)");
  setText("answer", item.prediction.answer ?? "(no answer)");
  setText("justification", item.prediction.justification ?? "(no justification)");
  const picture = $("picture");
  picture.hidden = !item.riddle.image;
  if (item.riddle.image && item.riddle.image.startsWith("data:image/")) picture.src = item.riddle.image;
  else picture.removeAttribute("src");
  showChoices();
}

function showChoices() {
  for (const button of document.querySelectorAll("button[data-field]")) {
    const chosen = state[button.dataset.field];
    button.setAttribute("aria-pressed", String(chosen !== null && String(chosen) === button.dataset.value));
  }
  $("save").disabled = state.answer === null || state.justification === null;
}

// More views of the progress (each a function of the progress JSON) can be added here.
const PROGRESS_VIEWS = [];

function renderProgress(p) {
  if (!p) return;
  for (const view of PROGRESS_VIEWS) view(p);
  setText("who", `annotator: ${p.annotator}`);
  setText("totals", `${p.labelled} of ${p.budget} predictions labelled (budget), ${p.labels} labels, ` +
    `${p.mine} yours; double labels ${p.double_done} of ${p.double_wanted}`);
  const head = $("cells").tHead, body = $("cells").tBodies[0];
  head.replaceChildren(); body.replaceChildren();
  const top = head.insertRow();
  for (const name of ["bin", ...p.providers]) { const th = document.createElement("th"); th.textContent = name; top.append(th); }
  for (const bin of p.bins) {
    const row = body.insertRow();
    row.insertCell().textContent = bin;
    for (const provider of p.providers) {
      const cell = p.cells.find((c) => c.bin === bin && c.provider === provider);
      row.insertCell().textContent = String(cell ? cell.labelled : 0);
    }
  }
  // red only where it is true: the interval in use fails on an empty bin (published, empty_bin: error)
  $("holes").classList.toggle("error", Boolean(p.holes_fail));
  setText("holes", !p.holes.length ? "" : p.holes_fail ? `empty bins (calibration would fail): ${p.holes.join(", ")}`
    : `empty bins (the published interval stays empty there; the posterior one ranks): ${p.holes.join(", ")}`);
  setText("widening", p.labelled < p.budget ? `${p.labelled} of ${p.budget} labelled: with few real labels the ` +
    "intervals are wider than with simulated ones (expected); they narrow as labels arrive" : "");
  const all = p.agreement[0];
  const k = (v) => (v === null ? "n/a" : v.toFixed(2));
  setText("kappa", all && all.n ? `Cohen's κ over ${all.n} double-labelled: answer ${k(all.kappa.human_answer_correct)}, ` +
    `justification ${k(all.kappa.human_justification_correct)}` : "Cohen's κ: no double-labelled prediction yet");
  setText("audit", p.audit ? p.audit.lines.join("\n") + (p.audit.labels === null ? "" : `\n(audited at ${p.audit.labels} labels)`) : "");
}

async function load() {
  const { status, data } = await api("GET", "/api/next");
  if (status === 204) { render(null); const p = await api("GET", "/api/progress"); renderProgress(p.data); return; }
  if (status !== 200) { say(`could not load the next item (${status})`, true); return; }
  render(data);
  renderProgress(data.progress);
}

async function post(path, body) {
  if (state.busy) return null;
  state.busy = true;
  try {
    const result = await api("POST", path, body);
    if (result.status === 403) { keepToken(null); say("session expired (server restarted?): loading again", true); await load(); return null; }
    if (result.status === 409) { say(result.data.error, true); await load(); return null; }
    if (result.status !== 200) { say(`error: ${result.data ? result.data.error : result.status}`, true); return null; }
    return result.data;
  } catch (error) {
    say(`the server did not answer: ${error}`, true);
    return null;
  } finally {
    state.busy = false;
  }
}

async function save() {
  if (!state.item || state.answer === null || state.justification === null) return;
  const data = await post("/api/labels", { item_id: state.item.item_id, answer_correct: state.answer,
    justification_correct: state.justification, note: $("note").value });
  if (!data) return;
  say(`saved: that was ${data.model_name} (${data.provider}, key ${data.model})`);
  await load();
}

async function skip() {
  if (!state.item) return;
  if (await post("/api/skip", { item_id: state.item.item_id })) { say("skipped"); await load(); }
}

async function undo() {
  const data = await post("/api/undo", {});
  if (data) { say(`undid your last ${data.undone}`); await load(); }
}

function choose(field, value) {
  if (!state.item) return;
  state[field] = value;
  showChoices();
}

const KEYS = {
  "1": () => choose("answer", true), "2": () => choose("answer", false),
  "3": () => choose("justification", true), "4": () => choose("justification", false),
  "Enter": save, "s": skip, "u": undo, "n": () => $("note").focus(),
};

document.addEventListener("keydown", (event) => {
  if (event.target === $("note")) {
    if (event.key === "Escape") $("note").blur();
    else if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) { event.preventDefault(); save(); }
    return;
  }
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  const action = KEYS[event.key.length === 1 ? event.key.toLowerCase() : event.key];
  if (action) { event.preventDefault(); action(); }
});

document.addEventListener("DOMContentLoaded", () => {
  for (const button of document.querySelectorAll("button[data-field]")) {
    button.addEventListener("click", () => choose(button.dataset.field, button.dataset.value === "true"));
  }
  $("save").addEventListener("click", save);
  $("skip").addEventListener("click", skip);
  $("undo").addEventListener("click", undo);
  setInterval(() => { if (state.token && state.item) api("POST", "/api/beat", {}).catch(() => {}); }, BEAT_MS);
  load();
});
