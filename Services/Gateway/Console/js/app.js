// The console's shell: sign-in, the screens a role is shown, the store being looked at, the
// language. Every rule stays in the services: a screen a role is not shown would only be
// refused by the API anyway.
import { call, all, currentUser, restore, signOut } from "./api.js";
import { applyLanguage, setLanguage, language, t } from "./i18n.js";
import { fill, h, progress, showError } from "./ui.js";
import { showEmailVerification, showPasswordReset, showSignIn } from "./signin.js";

/** The screens, and the roles each is shown to. */
const SCREENS = [
  { id: "board", roles: ["admin", "owner", "manager", "staff", "supervisor", "support"], load: () => import("./board.js") },
  { id: "menu", roles: ["admin", "owner", "manager", "staff", "social_media"], load: () => import("./menu.js") },
  { id: "till", roles: ["admin", "owner", "manager", "staff"], load: () => import("./till.js") },
  { id: "takings", roles: ["admin", "owner", "manager", "accountant"], load: () => import("./takings.js") },
  { id: "money", roles: ["admin", "owner", "accountant"], load: () => import("./money.js") },
  { id: "people", roles: ["admin", "owner", "manager"], load: () => import("./people.js") },
  { id: "platform", roles: ["admin", "supervisor", "support", "accountant"], load: () => import("./platform.js") },
  { id: "profile", roles: null, load: () => import("./profile.js") },
];

const main = document.getElementById("main");
let leave = null;
// Counts the screens shown, so that one still loading when the user went on cleans up at once.
let shownCount = 0;

/** What a screen is given: the user, the store being looked at (its id and the store), a way to leave. */
export const context = { user: null, store: null, stores: [] };

function screensOf(role) { return SCREENS.filter((screen) => !screen.roles || screen.roles.includes(role)); }

async function start() {
  applyLanguage();
  const relabel = () => { renderBar(); route(); };
  document.getElementById("language").addEventListener("change", (event) => {
    setLanguage(event.target.value);
    relabel();
  });
  window.addEventListener("orderly:language", relabel);
  window.addEventListener("orderly:signed-out", () => {
    leave?.();
    leave = null;
    context.user = null;
    document.getElementById("bar").hidden = true;
    showSignIn(main, enter);
  });
  document.getElementById("sign-out").addEventListener("click", async () => {
    await signOut();
    location.hash = "";
    location.reload();
  });
  document.getElementById("store-select").addEventListener("change", (event) => {
    context.store = context.stores.find((store) => store.id === event.target.value) ?? null;
    route();
  });
  // A store opened or its settings saved: the bar's stores read again, a new one chosen.
  window.addEventListener("orderly:stores-changed", async (event) => {
    await loadStores(event.detail?.id ?? context.store?.id).catch(() => {});
    renderBar();
  });
  window.addEventListener("hashchange", route);
  if (showMailedPageIfAsked()) return;
  if (await restore()) await enter();
  else showSignIn(main, enter);
}

/** After signing in: the stores this user looks at, then the first screen. */
async function enter() {
  const user = currentUser();
  context.user = user;
  if (["courier", "customer"].includes(user.role)) {
    fill(main, h("p", { class: "error", role: "alert" }, t("not_for_role")));
    document.getElementById("bar").hidden = false;
    renderBar();
    return;
  }
  fill(main, progress());
  try {
    await loadStores(null);
  } catch (error) {
    showError(main, error);
    return;
  }
  document.getElementById("bar").hidden = false;
  renderBar();
  if (!location.hash || location.hash === "#/") location.hash = `#/${screensOf(user.role)[0].id}`;
  else route();
}

/**
 * The stores the user looks at: their own, or for the platform's people every store (the bar's
 * picker), `chosen` the one looked at when it is among them.
 */
async function loadStores(chosen) {
  const user = context.user;
  if (user.store_id) {
    context.store = await call("GET", `/v1/stores/${user.store_id}`);
    context.stores = [context.store];
    return;
  }
  context.stores = await all("/v1/stores").catch(() => []);
  context.store = context.stores.find((store) => store.id === chosen) ?? context.stores[0] ?? null;
}

function renderBar() {
  const user = context.user;
  if (!user) return;
  document.querySelectorAll("[data-t]").forEach((node) => { node.textContent = t(node.dataset.t); });
  document.getElementById("language").value = language();
  document.getElementById("me-link").textContent = `${user.name} (${t(`role_${user.role}`)})`;
  const current = location.hash.slice(2).split("/")[0];
  fill(document.getElementById("nav"), screensOf(user.role).filter((screen) => screen.id !== "profile").map((screen) =>
    h("a", { href: `#/${screen.id}`, "aria-current": screen.id === current ? "page" : null, id: `nav-${screen.id}` },
      t(`screen_${screen.id}`))));
  const picker = document.getElementById("store-picker");
  picker.hidden = Boolean(user.store_id) || context.stores.length === 0;
  fill(document.getElementById("store-select"), context.stores.map((store) =>
    h("option", { value: store.id, selected: store.id === context.store?.id }, store.name)));
}

/** The page an e-mail links to, when the address is one: `#/reset-password/<token>` or
 * `#/verify-email/<token>`. */
function showMailedPageIfAsked() {
  const reset = location.hash.match(/^#\/reset-password\/([A-Za-z0-9_-]+)$/);
  if (reset) showPasswordReset(main, reset[1], enter);
  const verify = location.hash.match(/^#\/verify-email\/([A-Za-z0-9_-]+)$/);
  if (verify) showEmailVerification(main, verify[1], enter);
  return Boolean(reset || verify);
}

async function route() {
  if (showMailedPageIfAsked() || !context.user) return;
  const [id, ...rest] = location.hash.slice(2).split("/");
  const screen = screensOf(context.user.role).find((candidate) => candidate.id === id);
  if (!screen) {
    location.hash = `#/${screensOf(context.user.role)[0].id}`;
    return;
  }
  const leaving = leave;
  leave = null;
  cleanUp(leaving);
  const count = ++shownCount;
  renderBar();
  fill(main, progress());
  try {
    const module = await screen.load();
    const shown = await module.show(main, context, rest);
    // A screen answers its clean-up or nothing; anything else it answered is not one.
    const cleanUpShown = typeof shown === "function" ? shown : null;
    if (count !== shownCount) {
      cleanUp(cleanUpShown); // the user went on while it loaded
      return;
    }
    leave = cleanUpShown;
    main.focus();
  } catch (error) {
    // The screen failed: its error in its place, the bar and every other screen still working.
    if (count === shownCount) showError(main, error);
  }
}

function cleanUp(leaving) {
  try {
    leaving?.();
  } catch (error) {
    console.error("leaving a screen failed", error);
  }
}

start();
