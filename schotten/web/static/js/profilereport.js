// The profile's Report button (/player/{name}): shown with Follow and Block (to a signed-in visitor
// on another player's profile), it opens the report dialog about that player.

import { byId } from "./dom.js";
import { openReport } from "./report.js";

const name = decodeURIComponent(window.location.pathname.split("/").filter(Boolean)[1] || "");

byId("report").addEventListener("click", () => openReport({ player: byId("username").textContent || name }));
