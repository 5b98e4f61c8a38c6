// Rule ids ("R5.2") out of sentences: a sentence reads as plain words, and a "why?" link opens
// the rules page at the rule (rules.html has an anchor per rule id).

import { el } from "./dom.js";
import { t } from "./i18n.js";

const RULE_IDS = /\s*\((R\d+\.\d+(?:,\s*R\d+\.\d+)*)\)/g;

/** A sentence with its rule ids taken out: {text, rules: ["R5.2", ...]}. */
export function splitRules(sentence) {
  const rules = [];
  const text = String(sentence).replace(RULE_IDS, (whole, ids) => {
    rules.push(...ids.split(/,\s*/));
    return "";
  }).trim();
  return { text, rules: [...new Set(rules)] };
}

/** The "why?" link to a rule of the rules page (opened in a new tab). */
export function whyLink(rule) {
  return el("a", {
    class: "why",
    text: t("why?"),
    title: t("Rule {rule}", { rule }),
    data: { rule },
    attrs: { href: `/rules#${rule}`, target: "_blank", rel: "noopener" },
  });
}

/** A "why?" link per rule, each after a space. */
export function whyLinks(rules) {
  return rules.flatMap((rule) => [" ", whyLink(rule)]);
}

/** Nodes for `text` followed by a "why?" link per rule. */
export function withWhy(text, rules) {
  return [text, ...whyLinks(rules)];
}
