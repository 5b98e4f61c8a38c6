// Rating pools (the server's vocab.POOLS: each variant, real-time and turn-based apart) and how
// the profile and leaderboard pages name them.

import { N_, t } from "./i18n.js";
import { VARIANTS, variantName } from "./labels.js";

const SPEEDS = { realtime: N_("real-time"), turnbased: N_("turn-based") };

/** Every pool, as the server names them ("base.realtime"). */
export const POOLS = Object.keys(VARIANTS).flatMap((variant) => Object.keys(SPEEDS).map((speed) => `${variant}.${speed}`));

/** A pool's name in the page's language: "Tactics, turn-based". */
export function poolName(pool) {
  const [variant, speed] = String(pool).split(".");
  return SPEEDS[speed] ? t("{variant}, {speed}", { variant: variantName(variant), speed: t(SPEEDS[speed]) }) : String(pool);
}

/** A rating as shown: rounded, with "?" while it is provisional. */
export function ratingText(rating, provisional) {
  return provisional ? `${rating}?` : String(rating);
}

/** What "provisional" means, with the server's numbers (`ranking`: its RD threshold, a new player's games). */
export function provisionalNote(ranking) {
  return t("Provisional (a rating shown with ?): Glicko-2 is not yet sure of it, so each rated game moves it a lot, most of all the first ones. It stays provisional while its rating deviation (RD) is {rd} or more: about {n} rated games for a new player.", {
    rd: ranking.provisional_rd, n: ranking.new_player_games,
  });
}
