// The theme switch of the top bar (#theme): System, Light or Dark, kept in this browser
// (savePref "theme"; "system" forgets the choice). theme-boot.js applies it.

import { loadPref, savePref } from "./api.js";

const CHOICES = ["system", "light", "dark"];

function wire() {
  const select = document.getElementById("theme");
  if (!select) return;
  const kept = loadPref("theme", "system");
  select.value = CHOICES.includes(kept) ? kept : "system";
  select.addEventListener("change", () => {
    savePref("theme", select.value);
    window.dispatchEvent(new Event("schotten-theme"));
  });
}

wire();
