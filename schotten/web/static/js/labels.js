// The names the pages show for the server's variants, AI levels and AI players. The API keeps
// its values (the AI level `expert` is shown as "Master": "Expert" is the name of a variant).

import { N_, t } from "./i18n.js";

/** Each variant's name, by its API value. */
export const VARIANTS = {
  base: N_("Base game"),
  tactics: N_("Tactics"),
  expert: N_("Expert"),
  "expert-base": N_("Expert, without tactic cards"),
};

/** Each AI level's name, by its API value. */
export const LEVELS = { easy: N_("Easy"), medium: N_("Medium"), hard: N_("Hard"), expert: N_("Master") };

// The same names inside a player's name ("AI (master)").
const LEVELS_IN_NAMES = { easy: N_("easy"), medium: N_("medium"), hard: N_("hard"), expert: N_("master") };

/** A variant's name in the page's language (an unknown value is shown as it is). */
export function variantName(variant) {
  return VARIANTS[variant] ? t(VARIANTS[variant]) : String(variant ?? "");
}

/** An AI level's name in the page's language (an unknown value is shown as it is). */
export function levelName(level) {
  return LEVELS[level] ? t(LEVELS[level]) : String(level ?? "");
}

/** A player's name as shown: the server's "AI (expert)" reads "AI (master)" in the page's language. */
export function playerName(name) {
  const found = typeof name === "string" ? name.match(/^AI \(([\w-]+)\)$/) : null;
  if (!found || !LEVELS_IN_NAMES[found[1]]) return name;
  return t("AI ({level})", { level: t(LEVELS_IN_NAMES[found[1]]) });
}
