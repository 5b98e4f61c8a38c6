// The colour theme, set on <html data-theme> before the page is drawn (a classic script in the
// head, so nothing flashes): the choice kept in this browser ("schotten.theme": light or dark),
// else the system's prefers-color-scheme, followed as it changes. The switch (theme.js) saves a
// choice and fires "schotten-theme"; another tab's choice arrives as a "storage" event.
(() => {
  const KEY = "schotten.theme";
  const system = window.matchMedia("(prefers-color-scheme: dark)");
  const apply = () => {
    let chosen = null;
    try {
      chosen = window.localStorage.getItem(KEY);
    } catch {
      /* private mode: the system's theme */
    }
    const theme = chosen === "light" || chosen === "dark" ? chosen : (system.matches ? "dark" : "light");
    document.documentElement.dataset.theme = theme;
  };
  apply();
  system.addEventListener("change", apply);
  window.addEventListener("schotten-theme", apply);
  window.addEventListener("storage", (event) => { if (event.key === KEY) apply(); });
})();
