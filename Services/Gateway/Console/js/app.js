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
  { id: "takings", roles: ["admin", "owner", "manager", "accountant"], load: () => import("./takings.js") },
  { id: "people", roles: ["admin", "owner", "manager"], load: () => import("./people.js") },
  { id: "platform", roles: ["admin", "supervisor", "support", "accountant"], load: () => import("./platform.js") },
  { id: "profile", roles: null, load: () => import("./profile.js") },
];

const main = document.getElementById("main");
let leave = null;

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
    if (user.store_id) {
      context.store = await call("GET", `/v1/stores/${user.store_id}`);
      context.stores = [context.store];
    } else {
      context.stores = await all("/v1/stores", {}, 500).catch(() => []);
      context.store = context.stores[0] ?? null;
    }
  } catch (error) {
    showError(main, error);
    return;
  }
  document.getElementById("bar").hidden = false;
  renderBar();
  if (!location.hash || location.hash === "#/") location.hash = `#/${screensOf(user.role)[0].id}`;
  else route();
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
  leave?.();
  leave = null;
  renderBar();
  fill(main, progress());
  try {
    const module = await screen.load();
    leave = (await module.show(main, context, rest)) ?? null;
    main.focus();
  } catch (error) {
    showError(main, error);
  }
}

start();
