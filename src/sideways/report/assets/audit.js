/* sideways report: the raters' audit in the analytics tab (docs/method.md §6, "Raters audited").
 * window.SIDEWAYS_AUDIT(audit, h) returns the section's nodes, built with the app's own helpers h (el, table,
 * fmt): every name (annotators come from label files: untrusted) becomes text, never markup. */
"use strict";
window.SIDEWAYS_AUDIT = function (audit, h) {
  if (!audit) return [];
  const pct = (r) => `${h.fmt(100 * r.mean)}% [${h.fmt(100 * r.lo)}, ${h.fmt(100 * r.hi)}]`;
  const share = (v) => (v === null || v === undefined ? "n/a" : `${h.fmt(100 * v, 0)}%`);
  const rate = (r) => `${h.fmt(r.estimate, 2)} [${h.fmt(r.lo, 2)}, ${h.fmt(r.hi, 2)}]`;
  const cell = (rows, judge, group, value, field, measure) => {
    const r = rows.find((x) => x.judge === judge && x.group === group && x.value === value && x.field === field && x.measure === measure);
    return r ? rate(r) : "\u2014";
  };
  const groups = [];
  for (const r of audit.judges) {
    if (!groups.some((g) => g.judge === r.judge && g.group === r.group && g.value === r.value)) groups.push(r);
  }
  return [
    h.el("h2", {}, "Annotators audited: error rates from the latent posterior fitted without each one's labels"),
    h.el("p", { class: "legend" }, "95% intervals, from every label of the split (a label log's second labels too); double: " +
      "predictions another annotator labelled too, agree a/j: the share agreeing there; flagged: the interval's lower " +
      "end above twice the others' median rate, or the double labels' disputes, each charged to the label the judges " +
      "and other labels say erred, charging it more than the others (p < 0.01)."),
    h.table(["annotator", "labels", "double", "agree a/j", "answer error", "justification error", "flag"],
      audit.annotators.map((a) => [a.annotator, a.labels, a.double, `${share(a.agreement.answer)}/${share(a.agreement.justification)}`,
        pct(a.error.answer), pct(a.error.justification), a.flagged.length ? "flagged: " + a.evidence : ""])),
    h.el("h2", {}, "Judges audited: the latent posterior's rates, per graded provider and reply length"),
    h.table(["judge", "rows", "answer sensitivity", "answer specificity", "justification sensitivity", "justification specificity"],
      groups.map((g) => [g.judge, g.group === "all" ? "all" : (g.group === "provider" ? "model of " : "reply ") + g.value,
        ...["answer", "justification"].flatMap((f) => ["sensitivity", "specificity"].map((m) => cell(audit.judges, g.judge, g.group, g.value, f, m)))])),
  ];
};
