/* sideways report: renders window.SIDEWAYS (data/report.js) into three tabs, and a page per exam.
 * Each tab has an address: #leaderboard, #analytics, #explorer, #compare, #exam/<key>; a split's tab
 * takes the split and a target after it: #leaderboard/vlm/<model>, #compare/llm/<model>,
 * #explorer/llm/<riddle id> (that riddle alone), so a link can be shared in a review.
 * Every piece of data becomes text through textContent / createTextNode, never markup:
 * model answers, justifications, judge output and riddle text are untrusted. */
"use strict";
(function () {
  const D = window.SIDEWAYS;
  const SPLITS = Object.keys(D.splits);
  const MODELS = D.models.map((m) => m.key);
  /* A model reads as its label (its key: sideways.scoring.display.model_label) in every table and
   * line of the report, as in the terminal; its name (the provider's model id) only beside it. */
  const NAME = Object.fromEntries(D.models.map((m) => [m.key, m.label || m.key]));
  const state = { split: SPLITS[0], tab: "leaderboard", sort: { key: "rank", dir: 1 }, rendered: {} };
  const PAGE = 20;
  const examsRendered = {};

  /* el("td", {class: "num"}, "text", child, ...): attributes are ours, children become text nodes. */
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v !== null && v !== undefined) node.setAttribute(k, String(v));
    }
    return fill(node, ...children);
  }
  /* node's children replaced by these: nodes, or text; null and undefined are none (replaceChildren
   * would write them out as the text "null"). */
  function fill(node, ...children) {
    if (node.firstChild) node.replaceChildren();
    for (const c of children) {
      if (c !== null && c !== undefined) node.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }
  /* A message's `quoted` parts (commands, as the terminal prints them) as <code>, every part as text;
   * with unpaired backticks, the message as it is. */
  function prose(text) {
    const pieces = String(text).split("`");
    return pieces.length % 2 ? pieces.map((piece, i) => (i % 2 ? el("code", {}, piece) : piece)) : [String(text)];
  }
  function svg(tag, attrs, text) {
    const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = String(text);
    return node;
  }
  const fmt = (x, d = 1) => (x === null || x === undefined ? "\u2014" : Number(x).toFixed(d));
  const data = () => D.splits[state.split];

  function table(headers, rows) {
    const t = el("table", {}, el("thead", {}, el("tr", {}, ...headers.map((h) => el("th", {}, h)))));
    t.appendChild(el("tbody", {}, ...rows.map((r) => el("tr", {}, ...r.map((c) =>
      c instanceof Node ? el("td", {}, c) : el("td", { class: typeof c === "number" ? "num" : null }, c))))));
    return t;
  }

  /* ---------- header ---------- */
  function header() {
    const h = D.header, p = document.getElementById("provenance");
    p.appendChild(el("span", {}, "commit " + (h.commit ? h.commit.slice(0, 12) : "unknown")));
    if (h.dirty) p.appendChild(el("span", { class: "dirty" }, " (dirty tree)"));
    const ranks = h.interval === "posterior" ? `the posterior interval (${h.posterior} prior)` : `the published interval (method ${h.method})`;
    p.appendChild(el("span", {}, ` \u00b7 params ${h.params} \u00b7 data ${h.data} \u00b7 field ${h.field}, ranks follow ${ranks}`));
    const sel = document.getElementById("split");
    for (const s of SPLITS) sel.appendChild(el("option", { value: s }, s));
    sel.addEventListener("change", () => {
      state.split = sel.value; state.rendered = {}; state.target = null; state.only = null;
      history.replaceState(null, "", "#" + address(state.tab)); show(state.tab);
    });
    examTabs();
    for (const b of document.querySelectorAll("#tabs button")) b.addEventListener("click", () => go(b.dataset.tab));
    window.addEventListener("hashchange", () => open(location.hash));
  }

  /* A fragment's parts, each percent-decoded; a part with a malformed escape (#%, %E0%A4%A) stays
   * as typed, so a mangled address opens a page (an unknown part: the leaderboard) instead of none. */
  function parts(hash) {
    return hash.replace(/^#/, "").split("/").map((p) => { try { return decodeURIComponent(p); } catch (e) { return p; } });
  }
  /* The tab itself if there is one (else the leaderboard: for no fragment or an unknown one). */
  const known = (tab) => (Object.prototype.hasOwnProperty.call(RENDER, tab) ? tab : "leaderboard");
  /* #<tab>[/<split>[/<target>]]: the split when it is not the first, then a model or a riddle. */
  function address(tab, target) {
    if (tab.startsWith("exam/")) return tab;
    return tab + (state.split !== SPLITS[0] || target ? "/" + state.split : "") + (target ? "/" + target : "");
  }
  function route(hash) {
    const p = parts(hash);
    if (p[0] === "exam") return { tab: known(p.slice(0, 2).join("/")), split: null, target: null };
    return { tab: known(p[0]), split: SPLITS.includes(p[1]) ? p[1] : null, target: p.slice(2).join("/") || null };
  }
  function open(hash) {
    const r = route(hash);
    if (r.split && r.split !== state.split) {
      state.split = r.split; document.getElementById("split").value = r.split; state.rendered = {};
    }
    state.target = r.target;
    state.only = r.tab === "explorer" ? r.target : null;
    if (r.target) state.rendered[r.tab] = false;  /* redraw to show the target */
    show(r.tab);
  }
  function go(tab) {
    if (tab !== route(location.hash).tab) history.pushState(null, "", "#" + address(tab));
    state.target = null; state.only = null;
    show(tab);
  }
  /* The row of a model (leaderboard, compare) named by the address: marked and scrolled to. */
  function focusTarget(tab) {
    if (!state.target || tab === "explorer") return;
    for (const row of document.querySelectorAll(`section[id="${tab}"] [data-model]`)) {
      const hit = row.dataset.model === state.target;
      row.classList.toggle("target", hit);
      if (hit) row.scrollIntoView({ block: "center" });
    }
  }
  function show(tab) {
    state.tab = tab;
    for (const b of document.querySelectorAll("#tabs button")) b.classList.toggle("active", b.dataset.tab === tab);
    for (const s of document.querySelectorAll("section.tab")) s.hidden = s.id !== tab;
    document.querySelector("label.split").hidden = tab.startsWith("exam/");  /* exams have no split */
    const rendered = tab.startsWith("exam/") ? examsRendered : state.rendered;  /* a split change redraws the split's tabs only */
    if (!rendered[tab]) { RENDER[tab](); rendered[tab] = true; }
    focusTarget(tab);
  }

  /* ---------- leaderboard ---------- */
  /* Ranked by the posterior: the 95% rank set; by the published interval: layton-eval's rank spread
   * (the published layout) and the rank set last. Cells are the strings sideways show prints. */
  function lbColumns(ranking, named, sim) {
    const cols = ranking === "posterior"
      ? [["rank", "rank"], ["rank_set", "95% rank set"], ["label", "model"]]
      : [["rank", "rank"], ["spread", "rank spread (layton-eval)"], ["label", "model"]];
    if (named) cols.push(["model_name", "name"]);
    cols.push(["provider", "provider"], ["n_hints", "hints"], ["score", "score"],
      ["band", ranking === "posterior" ? "95% interval" : "\u00b1 95%"], ["interval", "95% interval (0-100)"],
      ["other_text", ranking === "posterior" ? "published" : "posterior"]);
    if (sim) cols.push(["true_score", "true score"], ["covered", "covered"]);
    if (ranking !== "posterior") cols.push(["rank_set", "95% rank set"]);
    cols.push(["tie_groups", "tie group"]);
    return cols;
  }
  function intervalBar(r) {
    const bar = el("div", { class: "interval", title: r.interval_text });
    r.intervals.forEach((iv, i) => {
      if (iv.lo === null || iv.hi === null) return;
      const span = el("span", { class: i === 0 ? "ci" : "ci second", title: iv.name });
      span.style.left = iv.lo + "%"; span.style.width = Math.max(0.5, iv.hi - iv.lo) + "%";
      bar.appendChild(span);
    });
    const pt = el("span", { class: "pt" }); pt.style.left = r.score + "%"; bar.appendChild(pt);
    if (r.true_score !== null) { const t = el("span", { class: "truth", title: "true score" }); t.style.left = r.true_score + "%"; bar.appendChild(t); }
    return bar;
  }
  function renderLeaderboard() {
    const sec = document.getElementById("leaderboard");
    sec.replaceChildren();
    const rows = data().leaderboard.map((r) => ({ ...r, spread: r.rank_spread, interval: r.score }));
    const sim = rows.some((r) => r.true_score !== null);
    const ranking = rows.length ? rows[0].ranked_by : "published";
    const named = rows.some((r) => r.model_name !== r.label);
    const cols = lbColumns(ranking, named, sim);
    const { key, dir } = state.sort;
    const sortKey = (r, k) => (k === "spread" ? r.best_rank : k === "rank_set" ? r.set_best : k === "band" ? r.score : r[k]);
    rows.sort((a, b) => {
      const x = sortKey(a, key), y = sortKey(b, key);
      return (x < y ? -1 : x > y ? 1 : 0) * dir || a.rank - b.rank || (a.model < b.model ? -1 : 1);
    });
    const head = el("tr", {}, ...cols.map(([k, label]) => {
      const th = el("th", { class: "sortable" + (k === key ? (dir > 0 ? " sorted-asc" : " sorted-desc") : ""), "data-key": k }, label);
      th.addEventListener("click", () => { state.sort = { key: k, dir: k === key ? -dir : (k === "score" || k === "true_score" ? -1 : 1) }; renderLeaderboard(); });
      return th;
    }));
    const body = el("tbody", {}, ...rows.map((r) => el("tr", { "data-model": r.model }, ...cols.map(([k]) => {
      if (k === "interval") return el("td", {}, intervalBar(r));
      if (k === "covered") return el("td", {}, r.covered === null ? "" : r.covered ? "yes" : "NO");
      if (k === "label") return el("td", {}, el("a", { href: "#" + address("leaderboard", r.model) }, r.label));
      if (k === "model_name") return el("td", { class: "muted" }, r.model_name === r.label ? "" : r.model_name);
      if (k === "rank_set" || k === "tie_groups") return el("td", { class: "num", "data-key": k }, r[k] === null ? "\u2014" : r[k]);
      const v = k === "score" || k === "true_score" ? fmt(r[k]) : r[k];
      return el("td", { class: typeof r[k] === "number" ? "num" : null }, v);
    }))));
    const other = ranking === "posterior" ? "published" : "posterior";
    sec.appendChild(el("h2", {}, `Leaderboard, ${state.split} split (${D.header.field}, calibrated, ranks follow the 95% ${ranking} interval)`));
    sec.appendChild(el("p", { class: "legend", id: "lb-coverage" }, "95% rank set: the ranks that hold every model's true rank at once with 95% probability, " +
      "drawn from the same draws as the tie groups and the Compare tab's paired differences (docs/method.md \u00a75)." +
      (ranking === "posterior" ? "" : " Rank spread: layton-eval's rule (overlapping intervals), with no joint coverage.")));
    sec.appendChild(el("table", { id: "lb-table" }, el("thead", {}, head), body));
    const missing = data().missing || [];  /* models whose paid jobs failed (metrics/failures/) */
    if (missing.length) sec.appendChild(el("div", { class: "missing", id: "lb-missing" },
      el("p", {}, `Missing from this leaderboard (${missing.length}): a paid job failed; \`make repro\` retries it.`),
      el("ul", {}, ...missing.map((m) => el("li", {}, `${m.label || m.model}: ${m.line}`)))));
    sec.appendChild(el("p", { class: "legend" }, `Bar: the ${ranking} 95% interval (ranks, score and interval follow it) on a 0-100 scale` +
      `, thin orange bar: the ${other} interval, dot: the score` +
      (sim ? ", red tick: the true score (simulation)" : "") + ". Intervals read score [lo, hi] where they are not symmetric; " +
      "\"fully labelled\": every prediction carries a human label, so the score is exact. Ranks are within a hint count; click a header to sort."));
  }

  /* ---------- analytics ---------- */
  function heat(b, title = (c) => `${c.n} predictions`) {
    const rows = b.rows.map((r) => [NAME[r.model] || r.model, ...r.cells.map((c) => {
      if (!c) return "";
      const td = el("span", { title: title(c) }, fmt(c.rate));
      td.style.background = `hsl(${Math.round(1.2 * c.rate)}, 60%, 85%)`; td.style.padding = "0 4px";
      return td;
    })]);
    return table(["model", ...b.groups], rows);
  }
  function stacked(r) {
    const total = r.both + r.answer_only + r.justification_only + r.neither || 1;
    const bar = el("div", { class: "stack" });
    [["both", "#2e8b57"], ["answer_only", "#e67e22"], ["justification_only", "#3498db"], ["neither", "#c0392b"]].forEach(([k, c]) => {
      const s = el("span", { title: k }); s.style.width = (100 * r[k] / total) + "%"; s.style.background = c; bar.appendChild(s);
    });
    return bar;
  }
  function calibrationPlot(bins) {
    const W = 360, H = 240, L = 44, B = 32, T = 10, R = 10;
    const x = (v) => L + v * (W - L - R), y = (v) => H - B - (v / 100) * (H - B - T);
    const s = svg("svg", { width: W, height: H, id: "calibration-plot", role: "img" });
    s.appendChild(svg("rect", { x: L, y: T, width: W - L - R, height: H - B - T, fill: "#fff", stroke: "#d9dee5" }));
    s.appendChild(svg("line", { x1: x(0), y1: y(0), x2: x(1), y2: y(100), stroke: "#aab", "stroke-dasharray": "4 3" }));
    for (const t of [0, 0.25, 0.5, 0.75, 1]) s.appendChild(svg("text", { x: x(t), y: H - B + 14, "text-anchor": "middle" }, t));
    for (const t of [0, 50, 100]) s.appendChild(svg("text", { x: L - 6, y: y(t) + 4, "text-anchor": "end" }, t + "%"));
    s.appendChild(svg("text", { x: (L + W) / 2, y: H - 4, "text-anchor": "middle" }, "jury score (share of judges saying right)"));
    const nmax = Math.max(1, ...bins.map((b) => b.n));
    const pts = bins.map((b) => `${x(b.jury_score)},${y(b.human_rate)}`).join(" ");
    if (bins.length > 1) s.appendChild(svg("polyline", { points: pts, fill: "none", stroke: "#2f5fb3" }));
    for (const b of bins) {
      const c = svg("circle", { cx: x(b.jury_score), cy: y(b.human_rate), r: 3 + 7 * Math.sqrt(b.n / nmax), fill: "#2f5fb3", "fill-opacity": 0.6 });
      c.appendChild(svg("title", {}, `${b.bin}: ${b.positives}/${b.n} human-positive`));
      s.appendChild(c);
      const right = b.jury_score > 0.8;  /* keep the count inside the plot */
      s.appendChild(svg("text", { x: x(b.jury_score) + (right ? -8 : 6), y: y(b.human_rate) + (b.human_rate > 90 ? 16 : -8),
        "text-anchor": right ? "end" : "start" }, "n=" + b.n));
    }
    return s;
  }
  /* Each model's cost against the full design (every judge on every prediction): what each mechanism of this
     design (jury.cascade, an exam's sample) did not send, and the split's label count (a person's time, not USD). */
  function designSection(d) {
    if (!d) return [];
    /* as `sideways show` prints them: "-" for a part with no priced row, "$?" for a saving of unknown cost */
    const money = (v) => (v === null ? "$?" : "$" + fmt(v, 4)), part = (v) => (v === null ? "-" : money(v));
    const saved = (c, m) => {
      const s = c.saved.find((x) => x.mechanism === m);
      return s ? `${s.requests} calls, ${money(s.usd)}` : "";
    };
    return [
      el("h2", { id: "cost-design" }, "Cost against the full design"),
      el("p", { class: "legend" }, "What the results cost (each answer and verdict at what it cost when it was paid), " +
        "what each mechanism did not send against the full design (every judge of the panel on every prediction), " +
        "and what the full design would have cost."),
      table(["model", "answers USD", "verdicts USD", "total USD", ...d.mechanisms.map((m) => m + " saved"), "full design USD"],
        d.models.map((c) => [NAME[c.model] || c.model, part(c.predict_usd), part(c.judge_usd), part(c.total_usd),
          ...d.mechanisms.map((m) => saved(c, m)), money(c.full_usd)])),
      el("p", { class: "legend", id: "cost-labels" }, `Labels on this split: ${d.labels} (a person's time, not USD; what ` +
        "the label queue's order saves against labelling at random is measured in docs/method.md, not per run)."),
    ];
  }
  function renderAnalytics() {
    const a = data().analytics, sec = document.getElementById("analytics");
    const usd = (v, unpriced) => (unpriced ? "$" + fmt(v, 4) + " (" + unpriced + " unpriced)" : "$" + fmt(v, 4));
    const others = MODELS.filter((m) => !data().models.includes(m)).map((m) => NAME[m] || m);
    fill(sec,
      el("h2", {}, `Pass rate (%) by category, ${state.split} split (raw jury majority on ${D.header.field})`),
      others.length ? el("p", { class: "legend" }, ...prose(`Left out of these tables (their \`takes:\` in params.yaml does not list the ${state.split} split): ${others.join(", ")}.`)) : null,
      heat(a.by_category),
      el("h2", {}, "By difficulty (picarats)"), heat(a.by_picarats),
      el("h2", {}, "By hints given"), heat(a.by_hints),
      el("h2", {}, "Answer-correct vs justification-correct (jury majority, predictions)"),
      el("p", { class: "legend" }, "Bar: green both right, orange answer only, blue justification only, red neither."),
      table(["model", "both", "answer only", "justification only", "neither", ""], a.answer_vs_justification.map((r) =>
        [NAME[r.model] || r.model, r.both, r.answer_only, r.justification_only, r.neither, stacked(r)])),
      el("h2", {}, `Judges against the human labels (${D.header.field})`),
      table(["judge", "judge yes / human yes", "judge yes / human no", "judge no / human yes", "judge no / human no", "n", "agreement %", "Cohen's \u03ba"],
        a.judges.map((j) => [j.judge, j.tp, j.fp, j.fn, j.tn, j.n, fmt(j.agreement), j.kappa === null ? "\u2014" : fmt(j.kappa, 3)])),
      ...(window.SIDEWAYS_AUDIT ? window.SIDEWAYS_AUDIT(a.audit, { el, table, fmt }) : []),
      el("h2", {}, "Calibration: human-positive rate per jury-score bin"),
      el("div", { class: "grid" }, el("div", {}, calibrationPlot(a.calibration)),
        el("div", {}, table(["jury score", "labelled", "human-positive", "rate %"], a.calibration.map((b) => [b.bin, b.n, b.positives, fmt(b.human_rate)])))),
      el("h2", {}, "Cost and tokens per model (answers, and the verdicts on them)"),
      table(["model", "provider", "answer tokens in", "out", "answer USD", "verdict tokens in", "out", "verdict USD"], a.costs.models.map((c) =>
        [NAME[c.model] || c.model, c.provider, c.predict_input_tokens, c.predict_output_tokens, usd(c.predict_cost_usd, c.predict_unpriced),
         c.judge_input_tokens, c.judge_output_tokens, usd(c.judge_cost_usd, c.judge_unpriced)])),
      el("h3", {}, "Per provider"),
      table(["provider", "models", "answer tokens in", "out", "answer USD", "verdict USD"], a.costs.providers.map((c) =>
        [c.provider, c.models, c.predict_input_tokens, c.predict_output_tokens, usd(c.predict_cost_usd, c.predict_unpriced), usd(c.judge_cost_usd, c.judge_unpriced)])),
      ...designSection(a.design),
      el("h2", {}, "Failures per model"),
      table(["model", "api_error", "parse_error", "answers", "failed verdicts", "verdicts"], a.failures.map((f) =>
        [NAME[f.model] || f.model, f.api_error, f.parse_error, f.rows, f.judge_failed, f.judge_rows])),
    );
  }

  /* ---------- explorer ---------- */
  const chunks = {}, waiting = {};
  function deliver(key, rows) {
    chunks[key] = rows;
    (waiting[key] || []).forEach((f) => f(rows));
    delete waiting[key];
  }
  window.SIDEWAYS_CHUNK = (split, n, riddles) => deliver(split + "/" + n, riddles);
  window.SIDEWAYS_EXAM_CHUNK = (exam, n, questions) => deliver("exam/" + exam + "/" + n, questions);
  window.SIDEWAYS_EXAM_REPLIES = (exam, n, g, replies) => deliver("exam/" + exam + "/" + n + "/" + g, replies);
  /* A chunk's rows, loading its script file the first time (key: "<split>/<n>", "exam/<key>/<n>" or
     "exam/<key>/<n>/<group>": the replies of one group of models to an exam's chunk). */
  function load(key, src, done) {
    if (chunks[key]) { done(chunks[key]); return; }
    if (!waiting[key]) {
      waiting[key] = [];
      document.head.appendChild(el("script", { src }));
    }
    waiting[key].push(done);
  }
  const chunkNo = (n) => String(n).padStart(4, "0");
  function chunk(split, n, done) { load(split + "/" + n, `data/${split}/chunk-${chunkNo(n)}.js`, done); }
  const OUTCOMES = [["any", "any outcome"], ["allfail", "all models failed"], ["disagree", "judges disagree with the human"],
    ["p", "passed"], ["f", "failed"], ["e", "error (api/parse)"]];
  function explorerControls() {
    const m = document.getElementById("ex-model"), c = document.getElementById("ex-category"), o = document.getElementById("ex-outcome");
    m.replaceChildren(el("option", { value: "" }, "all models"), ...data().models.map((k) => el("option", { value: k }, NAME[k])));
    const cats = [...new Set(data().index.map((r) => r.category))].sort();
    c.replaceChildren(el("option", { value: "" }, "all categories"), ...cats.map((k) => el("option", { value: k }, k)));
    o.replaceChildren(...OUTCOMES.map(([v, label]) => el("option", { value: v }, label)));
  }
  function matches() {
    if (state.only) return data().index.filter((r) => r.id === state.only);
    const mi = MODELS.indexOf(document.getElementById("ex-model").value);
    const cat = document.getElementById("ex-category").value, out = document.getElementById("ex-outcome").value;
    const q = document.getElementById("ex-search").value.trim().toLowerCase();
    return data().index.filter((r) => {
      if (cat && r.category !== cat) return false;
      if (q && !r.text.includes(q)) return false;
      if (out === "allfail") return !r.o.includes("p");
      if (out === "disagree") return mi >= 0 ? r.d[mi] === "1" : r.d.includes("1");
      if (out !== "any") return mi >= 0 ? r.o[mi] === out : r.o.includes(out);
      return true;
    });
  }
  function verdictText(k) {
    const v = (b) => (b === null ? "?" : b ? "\u2713" : "\u2717");
    return k.map(([judge, a, j, s]) => `${judge}: answer ${v(a)} justification ${v(j)}` + (s === "ok" ? "" : ` (${s})`)).join("\n");
  }
  /* A chunk keeps a riddle's predictions and verdicts as columns (explorer.py): rows again here. */
  function predictionsOf(r) {
    const p = r.p, k = r.k, out = [];
    let off = 0;
    for (let i = 0; i < p.m.length; i++) {
      const verdicts = [];
      for (let x = off; x < off + p.kn[i]; x++) verdicts.push([k.judge[x], k.a[x], k.j[x], k.s[x]]);
      off += p.kn[i];
      out.push({ m: p.m[i], a: p.a[i], j: p.j[i], s: p.s[i], e: p.e[i], o: p.o[i], v: p.v[i], h: p.h[i], d: p.d[i], k: verdicts });
    }
    return out;
  }
  function fillCard(card, r, model) {
    const preds = predictionsOf(r).filter((p) => !model || p.m === model);
    fill(card,
      el("h3", {}, r.title), el("div", { class: "meta" }, `${r.id} \u00b7 ${r.category} \u00b7 ${r.picarats === null ? "?" : r.picarats} picarats \u00b7 ${r.license}`),
      r.image ? el("img", { src: r.image, alt: "picture of " + r.id, loading: "lazy" }) : null,
      el("p", { class: "text" }, r.description),
      el("p", { class: "gold" }, el("b", {}, "Answer: "), r.answer),
      el("details", {}, el("summary", {}, "solution, justification, hints"), el("p", {}, r.solution), el("p", {}, el("i", {}, r.justification)),
        ...r.hints.map((h, i) => el("p", { class: "muted" }, `hint ${i + 1}: `, h)),
        r.url && /^https?:\/\//.test(r.url) ? el("a", { href: r.url, rel: "noreferrer" }, "source") : null),
      table(["model", "outcome", "answer", "justification", "jury", "judges", "human"], preds.map((p) => [
        NAME[p.m] || p.m, el("span", { class: "badge " + p.o }, p.o === "error" ? p.s : p.o), el("span", { class: "answer" }, p.a === null ? p.e || "" : p.a),
        el("span", { class: "justification" }, p.j || ""), p.v, el("span", { class: "verdicts" }, verdictText(p.k)),
        p.h === null ? "" : (p.h ? "right" : "wrong") + (p.d ? " (judges disagree)" : "")])),
    );
    for (const td of card.querySelectorAll("td")) if (td.querySelector(".answer,.justification,.verdicts")) td.className = "text";
  }
  /* Cards are placeholders until they come near the viewport: then their chunk loads and they fill. */
  let shown = [], observer = null;
  const pending = new WeakMap();
  const cardObserver = new IntersectionObserver((entries) => {
    for (const e of entries) {
      if (!e.isIntersecting || !pending.has(e.target)) continue;
      const { r, split, model } = pending.get(e.target), card = e.target;
      pending.delete(card);
      cardObserver.unobserve(card);
      chunk(split, r.chunk, (riddles) => { if (state.split === split && card.isConnected) fillCard(card, riddles[r.pos], model); });
    }
  }, { rootMargin: "400px" });
  function more() {
    const list = document.getElementById("ex-list"), model = document.getElementById("ex-model").value, split = state.split;
    const next = shown.slice(list.children.length, list.children.length + PAGE);
    for (const r of next) {
      const card = el("article", { class: "card", "data-riddle": r.id }, el("h3", {}, r.title), el("p", { class: "muted" }, "loading\u2026"));
      list.appendChild(card);
      pending.set(card, { r, split, model });
      cardObserver.observe(card);
    }
    document.getElementById("ex-more").hidden = list.children.length >= shown.length;
  }
  function refresh() {
    shown = matches();
    document.getElementById("ex-count").textContent = `${shown.length} of ${data().index.length} riddles`;
    document.getElementById("ex-list").replaceChildren();
    more();
  }
  function renderExplorer() {
    explorerControls();
    refresh();
    if (observer) return;
    const again = () => { state.only = null; refresh(); };
    for (const id of ["ex-model", "ex-category", "ex-outcome"]) document.getElementById(id).addEventListener("change", again);
    document.getElementById("ex-search").addEventListener("input", again);
    document.getElementById("ex-more-button").addEventListener("click", more);
    observer = new IntersectionObserver((es) => { if (es.some((e) => e.isIntersecting) && state.tab === "explorer") more(); });
    observer.observe(document.getElementById("ex-more"));
  }

  /* ---------- exam pages ---------- */
  const EXAMS = D.exams || [];
  const EXAM_OUTCOMES = [["any", "any outcome"], ["allfail", "no model right"], ["disagree", "judges disagree (short answers)"],
    ["p", "right / full points"], ["h", "partial points"], ["f", "wrong / no points"], ["i", "I don't know (E)"],
    ["x", "no letter extracted"], ["u", "ungraded"], ["e", "error (api)"]];
  const OUTCOME_BADGE = { p: ["right", "pass"], h: ["partial", "partial"], f: ["wrong", "fail"], i: ["I don't know", "idk"],
    x: ["no letter", "error"], u: ["ungraded", "unjudged"], e: ["error", "error"], "-": ["no reply", "unjudged"] };
  const SHORT_BADGE = { p: ["full points", "pass"], f: ["no points", "fail"] };
  /* x \u00b1 se; one item has no se (sideways.scoring.display.se_cell): x (n=1), not \u00b1 0. */
  const pm = (m, k) => {
    if (m[k] === null || m[k] === undefined) return "\u2014";
    const n = k === "short_answer" ? m.short_answer_n : m.mcq_n;
    return n < 2 ? `${fmt(m[k], 2)} (n=${n})` : `${fmt(m[k], 2)} \u00b1 ${fmt(m[k + "_se"], 2)}`;
  };
  function examTabs() {
    const nav = document.getElementById("tabs"), main = document.querySelector("main");
    for (const x of EXAMS) {
      nav.appendChild(el("button", { type: "button", "data-tab": "exam/" + x.key }, "Exam: " + x.key));
      main.appendChild(el("section", { id: "exam/" + x.key, class: "tab exam", hidden: "" }));
      RENDER["exam/" + x.key] = () => renderExam(x);
    }
  }
  /* the exam score and its 95% interval clustered by topic; a sampled exam's (docs/exams.md): the estimate for the
     whole exam, its interval, and from how many questions */
  const examScore = (m) => (m.exam_score_lo === undefined || m.exam_score_lo === null ? fmt(m.exam_score)
    : `${fmt(m.exam_score)} [${fmt(m.exam_score_lo)}, ${fmt(m.exam_score_hi)}]`)
    + (m.asked_n === undefined || m.asked_n === null ? "" : `, ${m.asked_n} of ${m.exam_n} asked`);
  function examMetrics(x) {
    const rows = [...x.metrics].sort((a, b) => (b.idk_score ?? -1e9) - (a.idk_score ?? -1e9) || (a.model < b.model ? -1 : 1));
    const t = table(["model", "trad_score", "idk_score", "idk_freq", "extract_fail", "short answer", "exam score",
      "mcq + short", "failed", "ungraded", "latency s", "cost"], rows.map((m) => [
      NAME[m.model] || m.model, pm(m, "trad_score"), pm(m, "idk_score"), pm(m, "idk_freq"), pm(m, "extract_fail"),
      pm(m, "short_answer"), examScore(m), `${m.mcq_n} + ${m.short_answer_n}`, m.failed, m.ungraded,
      m.latency_s === null ? "\u2014" : fmt(m.latency_s, 2), m.cost_usd === null ? "\u2014" : "$" + fmt(m.cost_usd, 4)]));
    t.classList.add("exam-metrics");
    rows.forEach((m, i) => t.tBodies[0].rows[i].setAttribute("data-model", m.model));
    return el("div", { class: "wide" }, t);
  }
  function renderExam(x) {
    const sec = document.getElementById("exam/" + x.key), models = x.metrics.map((m) => m.model);
    const ctl = (label, cls, tag = "select") => el("label", {}, label + " ", el(tag, { class: cls }));
    sec.replaceChildren(
      el("h2", {}, x.title),
      el("p", { class: "legend" }, `Exam ${x.key}. Percent, mean \u00b1 standard error over the multiple-choice questions (evaluate-idk): ` +
        "trad_score right; idk_score +1 right, 0 for E (\"I don't know\"), -1 wrong; idk_freq chose E; extract_fail no letter found. " +
        "Short answer: points the judges gave over points possible. Exam score: every point, with its 95% interval " +
        "clustered by topic (a sampled exam: estimated for the whole exam, and how many questions were asked); " +
        "latency: median. Best idk_score first."),
      examMetrics(x),
      el("h2", {}, "Score (%) by topic (points earned over points possible)"),
      heat(x.topics, (c) => `${c.earned} of ${c.n} points`),
      el("h2", {}, "Questions"),
      el("div", { class: "controls" }, ctl("model", "qx-model"), ctl("topic", "qx-topic"), ctl("outcome", "qx-outcome"),
        el("label", { class: "search" }, "search ", el("input", { class: "qx-search", type: "search", placeholder: "question, choices, answer" }))),
      el("p", { class: "qx-count" }), el("div", { class: "qx-list" }),
      el("div", { class: "qx-more" }, el("button", { type: "button" }, "show more")));
    const q = (c) => sec.querySelector("." + c);
    q("qx-model").replaceChildren(el("option", { value: "" }, "all models"), ...models.map((k) => el("option", { value: k }, NAME[k] || k)));
    q("qx-topic").replaceChildren(el("option", { value: "" }, "all topics"), ...x.topics.groups.map((k) => el("option", { value: k }, k)));
    q("qx-outcome").replaceChildren(...EXAM_OUTCOMES.map(([v, label]) => el("option", { value: v }, label)));
    questionExplorer(x, sec, q);
  }
  function examMatches(x, q) {
    const mi = MODELS.indexOf(q("qx-model").value), topic = q("qx-topic").value, out = q("qx-outcome").value;
    const text = q("qx-search").value.trim().toLowerCase();
    return x.index.filter((r) => {
      if (topic && r.topic !== topic) return false;
      if (text && !r.text.includes(text)) return false;
      if (out === "allfail") return !r.o.includes("p");
      if (out === "disagree") return mi >= 0 ? r.d[mi] === "1" : r.d.includes("1");
      if (out !== "any") return mi >= 0 ? r.o[mi] === out : r.o.includes(out);
      return true;
    });
  }
  function questionExplorer(x, sec, q) {
    let shown = [];
    const list = q("qx-list"), moreBox = q("qx-more"), tab = "exam/" + x.key;
    const filler = new IntersectionObserver((entries) => {
      for (const e of entries) {
        if (!e.isIntersecting) continue;
        const card = e.target, r = card._q, model = card._model;
        filler.unobserve(card);
        examQuestion(x, r, model, (question) => { if (card.isConnected) fillQuestion(card, question, model); });
      }
    }, { rootMargin: "400px" });
    function more() {
      const model = q("qx-model").value;
      for (const r of shown.slice(list.children.length, list.children.length + PAGE)) {
        const card = el("article", { class: "card question", "data-question": r.id }, el("h3", {}, r.id), el("p", { class: "muted" }, "loading\u2026"));
        card._q = r; card._model = model;
        list.appendChild(card);
        filler.observe(card);
      }
      moreBox.hidden = list.children.length >= shown.length;
    }
    function refresh() {
      shown = examMatches(x, q);
      q("qx-count").textContent = `${shown.length} of ${x.index.length} questions`;
      list.replaceChildren();
      more();
    }
    for (const c of ["qx-model", "qx-topic", "qx-outcome"]) q(c).addEventListener("change", refresh);
    q("qx-search").addEventListener("input", refresh);
    moreBox.querySelector("button").addEventListener("click", more);
    new IntersectionObserver((es) => { if (es.some((e) => e.isIntersecting) && state.tab === tab) more(); }).observe(moreBox);
    refresh();
  }
  /* A question with the replies of every group of models (only the chosen model's group when one is
     chosen), each group's reply file loaded once (exam_replies.py): their columns joined in group order. */
  function examQuestion(x, r, model, done) {
    const dir = `data/exams/${encodeURIComponent(x.key)}`, at = MODELS.indexOf(model);
    const wanted = model && at >= 0 ? [Math.floor(at / x.group)] : [...Array(x.groups).keys()];
    const parts = {};
    let left = wanted.length + 1;
    const join = () => {
      if (--left) return;
      const p = {}, k = {};
      for (const g of wanted) {
        const part = parts[g][r.pos];
        for (const [c, v] of Object.entries(part.p)) p[c] = (p[c] || []).concat(v);
        for (const [c, v] of Object.entries(part.k)) k[c] = (k[c] || []).concat(v);
      }
      done({ ...parts.q[r.pos], p: { m: [], kn: [], ...p }, k: { judge: [], ...k } });
    };
    load(`exam/${x.key}/${r.chunk}`, `${dir}/chunk-${chunkNo(r.chunk)}.js`, (qs) => { parts.q = qs; join(); });
    for (const g of wanted) {
      load(`exam/${x.key}/${r.chunk}/${g}`, `${dir}/chunk-${chunkNo(r.chunk)}-g${String(g).padStart(2, "0")}.js`,
        (rs) => { parts[g] = rs; join(); });
    }
  }
  /* A chunk keeps a question's replies and verdicts as columns (exam_page.py): rows again here. */
  function repliesOf(r) {
    const p = r.p, k = r.k, out = [];
    let off = 0;
    for (let i = 0; i < p.m.length; i++) {
      const verdicts = [];
      for (let v = off; v < off + p.kn[i]; v++) verdicts.push({ judge: k.judge[v], st: k.st[v], r: k.r[v], s: k.s[v], x: k.x[v], e: k.e[v] });
      off += p.kn[i];
      out.push({ m: p.m[i], t: p.t[i], l: p.l[i], s: p.s[i], e: p.e[i], o: p.o[i], r: p.r[i], k: verdicts });
    }
    return out;
  }
  function verdictList(r, p) {
    if (r.kind === "mcq") return "";
    if (!p.k.length) return el("span", { class: "muted" }, "no verdict");
    return el("div", { class: "verdicts" }, ...p.k.map((v) => el("details", {},
      el("summary", {}, `${v.judge} (${v.st}): ${v.r === null ? "?" : fmt(v.r, 2)} / ${fmt(r.points, 2)}` + (v.s === "ok" ? "" : ` (${v.s})`)),
      el("div", { class: "raw" }, v.x || v.e || ""))));
  }
  function questionHead(r) {
    const parts = [el("h3", {}, `${r.id} \u00b7 ${r.topic}`),
      el("div", { class: "meta" }, `${r.kind === "mcq" ? "multiple choice" : "short answer"} \u00b7 ${fmt(r.points, 1)} point(s)`),
      el("p", { class: "text" }, r.question)];
    if (r.choices) {
      parts.push(el("ol", { class: "choices" }, ...r.choices.map(([letter, text]) =>
        el("li", { class: letter === r.gold ? "gold-choice" : null }, el("b", {}, letter + ") "), text, letter === r.gold ? " \u2190 gold" : null))));
    } else {
      parts.push(el("p", { class: "gold" }, el("b", {}, "Reference answer: "), r.answer));
      parts.push(r.criteria.length ? el("div", { class: "criteria" }, el("b", {}, "Rubric"), el("ol", {}, ...r.criteria.map((c) => el("li", {}, c))))
        : el("p", { class: "muted" }, "No rubric: the reference answer is the one criterion."));
    }
    return parts;
  }
  function fillQuestion(card, r, model) {
    const replies = repliesOf(r).filter((p) => !model || p.m === model);
    const mcq = r.kind === "mcq";
    const heads = ["model", "outcome", "reply", mcq ? "letters / gold" : "points", mcq ? "" : "judges (verdict and criteria: open)"];
    card.replaceChildren(...questionHead(r), table(heads, replies.map((p) => {
      const [label, cls] = (!mcq && SHORT_BADGE[p.o]) || OUTCOME_BADGE[p.o] || [p.o, "unjudged"];
      return [NAME[p.m] || p.m, el("span", { class: "badge " + cls }, label), el("span", { class: "reply" }, p.t === null ? p.e || "" : p.t),
        mcq ? `${p.l || "none"} / ${r.gold}` : `${p.r === null ? "\u2014" : fmt(p.r, 2)} / ${fmt(r.points, 2)}`, verdictList(r, p)];
    })));
    for (const td of card.querySelectorAll("td")) if (td.querySelector(".reply")) td.className = "text";
  }

  /* ---------- compare ---------- */
  const signed = (x) => (x === null || x === undefined || Number.isNaN(x) ? "\u2014" : (x > 0 ? "+" : "") + fmt(x));
  function pairwiseMatrix() {
    const pw = data().pairwise || { pairs: [], tie_groups: {} };
    const order = data().leaderboard.slice().sort((a, b) => a.rank - b.rank || (a.model < b.model ? -1 : 1)).map((r) => r.model);
    const cell = {};
    for (const p of pw.pairs) {
      cell[p.a + "\u0000" + p.b] = p;
      cell[p.b + "\u0000" + p.a] = { ...p, change: -p.change, lo: -p.hi, hi: -p.lo };
    }
    const sets = pw.rank_sets || {};
    const rows = order.map((a) => el("tr", { "data-model": a }, el("th", {}, el("a", { href: "#" + address("compare", a) }, NAME[a] || a)),
      el("td", {}, (pw.tie_groups[a] || []).join(",")), el("td", { class: "rank-set" }, sets[a] ? sets[a].join("-") : "\u2014"),
      ...order.map((b) => {
        const p = cell[a + "\u0000" + b];
        if (!p) return el("td", { class: "muted" }, a === b ? "\u00b7" : "");
        const cls = !p.apart ? "tie" : p.change > 0 ? "above" : "below";
        return el("td", { class: "num " + cls, "data-against": b, title: `${NAME[a] || a} \u2212 ${NAME[b] || b}: ${signed(p.change)} [${signed(p.lo)}, ${signed(p.hi)}]` },
          `${signed(p.change)} [${signed(p.lo)}, ${signed(p.hi)}]`);
      })));
    return el("table", { id: "pairwise" }, el("thead", {}, el("tr", {}, el("th", {}, "row \u2212 column"), el("th", {}, "tie group"),
      el("th", {}, "95% rank set"), ...order.map((b) => el("th", { "data-model": b }, NAME[b] || b)))), el("tbody", {}, ...rows));
  }
  function changeBar(r) {
    const bar = el("div", { class: "interval change", title: `${signed(r.change)} [${signed(r.lo)}, ${signed(r.hi)}] points` });
    const at = (x) => Math.max(0, Math.min(100, 50 + x)) + "%";  /* -50..+50 points */
    const span = el("span", { class: "ci" }); span.style.left = at(r.lo); span.style.width = `calc(${at(r.hi)} - ${at(r.lo)} + 1px)`;
    const zero = el("span", { class: "zero" }); zero.style.left = "50%";
    const pt = el("span", { class: "pt" }); pt.style.left = at(r.change);
    bar.append(zero, span, pt);
    return bar;
  }
  function flipLinks(ids) {
    if (!ids.length) return "0";
    return el("span", {}, `${ids.length}: `, ...ids.flatMap((id, i) => [i ? ", " : null,
      el("a", { href: "#explorer/" + state.split + "/" + id }, id)]).filter((x) => x !== null));
  }
  function renderCompare() {
    const sec = document.getElementById("compare");
    sec.replaceChildren(el("h2", {}, `Pairwise differences, ${state.split} split (paired 95% intervals, points)`), pairwiseMatrix(),
      el("p", { class: "legend" }, "Each cell: row model minus column model on the same riddles, with its paired 95% interval. " +
        "Green / red: the interval excludes 0; grey: a tie. Models that share a tie group are separated by no comparison. " +
        "The rank sets (the leaderboard's, 95% for every model at once) agree with these cells: a model above another never has a " +
        "set below the other's, and sets that do not overlap belong to a pair that is apart (docs/method.md \u00a75)."));
    const C = D.compare;
    if (!C) {
      sec.appendChild(el("p", { class: "muted" }, ...prose("`sideways report --compare REV` adds each model's change against REV here.")));
      return;
    }
    const rows = C.rows.filter((r) => r.benchmark === state.split);
    sec.appendChild(el("h2", {}, `Change against ${C.against}, ${state.split} split`));
    sec.appendChild(el("table", { id: "changes" }, el("thead", {}, el("tr", {}, ...["model", C.against, "now", "change", "95% interval (\u221250..+50)",
      "verdict", "MDE", "right \u2192 wrong", "wrong \u2192 right"].map((h) => el("th", {}, h)))),
      el("tbody", {}, ...rows.map((r) => el("tr", { "data-model": r.model, class: r.verdict === "no detectable change" ? null : "moved" },
        el("td", {}, NAME[r.model] || r.model), el("td", { class: "num" }, fmt(r.a)), el("td", { class: "num" }, fmt(r.b)),
        el("td", { class: "num" }, `${signed(r.change)} [${signed(r.lo)}, ${signed(r.hi)}]`), el("td", {}, changeBar(r)),
        el("td", {}, r.verdict), el("td", { class: "num" }, fmt(r.mde)), el("td", {}, flipLinks(r.to_wrong)), el("td", {}, flipLinks(r.to_right)))))));
    for (const p of C.not_compared) sec.appendChild(el("p", { class: "muted" }, "not compared: ", ...prose(p)));
  }

  const RENDER = { leaderboard: renderLeaderboard, analytics: renderAnalytics, explorer: renderExplorer, compare: renderCompare };
  header();
  open(location.hash);
  performance.mark("sideways:first-render");  /* read by benchmarks/report.py */
})();
