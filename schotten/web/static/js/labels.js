// The names the pages show for the server's variants, AI levels and AI players. The API keeps
// its values (the AI level `expert` is shown as "Master": "Expert" is the name of a variant).

import { N_, t, tn } from "./i18n.js";

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

function minutes(seconds) {
  if (seconds % 60 === 0) return String(seconds / 60);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

/** A time control in short: "3+2" (minutes + seconds added after each turn), "2 days" (per
 * move), "untimed" (`clock` null). */
/** The timed presets of the clock choices (the API's `clock`), shared by the lobby and the tournaments' forms. */
export const CLOCK_PRESETS = {
  "3+2": { initial: 180, increment: 2 },
  "5+5": { initial: 300, increment: 5 },
  "10+10": { initial: 600, increment: 10 },
  "1d": { days: 1 },
  "2d": { days: 2 },
  "3d": { days: 3 },
  "7d": { days: 7 },
};

export function clockName(clock) {
  if (!clock) return t("untimed");
  if (clock.days) return tn("{n} day", "{n} days", clock.days);
  return `${minutes(clock.initial)}+${clock.increment || 0}`;
}

/** How a game that ended off the board ended, against the seat `ended.seat` (the loser, the seat
 * that aborted, the seat to move when it was abandoned), by `ended.reason`. */
export const ENDINGS = {
  time: N_("{name} ran out of time."),
  resigned: N_("{name} resigned."),
  left: N_("{name} left the game."),
  aborted: N_("{name} aborted the game."),
  abandoned: N_("The game was abandoned: nobody moved for a long time."),
  banned: N_("{name} was banned by a moderator: the game is lost by forfeit."),
};

/** The sentence for `ended` ({reason, seat}), with the players' `names`; "" when none. */
export function endingText(ended, names) {
  if (!ended || !ENDINGS[ended.reason]) return "";
  return t(ENDINGS[ended.reason], { name: names[ended.seat] ?? "?" });
}

// A finished table's line in the lobby, by how it ended ({name}: the winner).
const WON = {
  time: N_("{name} won on time"),
  resigned: N_("{name} won by resignation"),
  left: N_("{name} won: the opponent left"),
  banned: N_("{name} won: the opponent was banned"),
};
const NO_WINNER = { aborted: N_("Aborted"), abandoned: N_("Abandoned") };

/** How a finished table of the lobby ended: "Ann won on time", "Aborted", "A draw". */
export function resultName(table) {
  if (NO_WINNER[table.ended]) return t(NO_WINNER[table.ended]);
  if (table.winner === null || table.winner === undefined) return t("A draw");
  const name = playerName(table.players[table.winner] || "?");
  return t(WON[table.ended] || "{name} won", { name });
}
