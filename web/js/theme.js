// The theme: automatic (the system's), light or dark, kept in localStorage.
// The first press always changes what the reader sees: from automatic to
// the opposite of the system's scheme, then the other, then automatic.

import { say } from "./text.js";

const THEME_KEY = "attention-lab-theme";
const THEMES = ["auto", "light", "dark"];

function storedTheme() {
  try {
    const theme = localStorage.getItem(THEME_KEY);
    return THEMES.includes(theme) ? theme : "auto";
  } catch (error) {
    return "auto"; // storage may be off (private mode, a sandboxed iframe)
  }
}

function applyTheme(theme) {
  if (theme === "auto") delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
  const button = document.getElementById("theme-toggle");
  if (button) button.textContent = say("theme", { name: say(`theme.${theme}`) });
}

/** Returns what to announce. */
export function nextTheme() {
  const system = matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  const order = ["auto", system === "dark" ? "light" : "dark", system];
  const theme = order[(order.indexOf(storedTheme()) + 1) % order.length];
  try {
    localStorage.setItem(THEME_KEY, theme);
  } catch (error) {
    // the choice then lasts this visit only
  }
  applyTheme(theme);
  return say("theme.said", { name: say(`theme.${theme}`) });
}

export function initTheme() {
  applyTheme(storedTheme());
}
