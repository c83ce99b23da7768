// The users of a store or of the platform: a page at a time, a new one made, one turned off and
// on again, given another role, or sent a link to choose a new password. Who may do which is
// the server's to say; its refusal shows in place.
import { call } from "./api.js";
import { t } from "./i18n.js";
import { busy, dialog, field, fill, h, pagedTable, submits, table, time, toast } from "./ui.js";

export const STORE_ROLES = ["owner", "manager", "staff"];
export const PLATFORM_ROLES = ["courier", "supervisor", "support", "accountant", "social_media", "admin"];
const STAFF_ROLES = ["cashier", "barista", "server", "kitchen", "other"];
const MANAGERS = ["admin", "owner", "manager"];
const LANGUAGES = [["en", "English"], ["he", "עברית"], ["ar", "العربية"]];

/**
 * The users listed by `parameters` (`store_id`, `role`) in `place`, with a form for a new one of
 * `roles` (joining `store`, when given). `id` names the section's elements.
 */
export async function usersSection(place, context, { id, parameters, roles, store = null }) {
  const me = context.user;
  const manages = MANAGERS.includes(me.role);
  const status = h("div", { id: `${id}-status` });
  const list = h("div", { id: `${id}-list` });
  const reload = () => pagedTable(list, "/v1/users", render, parameters);
  fill(place,
    manages ? h("div", { class: "toolbar" }, h("button", {
      type: "button", class: "primary", id: `${id}-new`, onclick: () => newUser(roles, store, reload),
    }, t("new_user"))) : null,
    status, list);

  function render(users) {
    return table([
      [t("name"), (user) => user.name], [t("email"), (user) => user.email ?? ""],
      [t("role"), (user) => t(`role_${user.role}`) + (user.staff_role ? ` · ${t(`staff_role_${user.staff_role}`)}` : "")],
      store
        ? [t("clock"), (user) => user.is_clocked_in ? `${t("clocked_in")} ${time(user.clocked_in_at)}` : t("clocked_out")]
        : [t("on_duty"), (user) => user.role === "courier" ? (user.on_duty ? t("yes") : t("no")) : ""],
      [t("active"), (user) => user.active ? t("yes") : t("no")],
      manages ? ["", (user) => user.id === me.id ? "" : h("span", { class: "toolbar" },
        h("button", {
          type: "button", class: user.active ? "danger" : null, id: `${user.active ? "deactivate" : "reactivate"}-${user.id}`,
          "aria-label": `${t(user.active ? "deactivate" : "reactivate")} ${user.name}`,
          onclick: (event) => change(event.currentTarget, user, { active: !user.active },
            t(user.active ? "deactivated" : "reactivated", [user.name])),
        }, t(user.active ? "deactivate" : "reactivate")),
        me.role === "admin" ? h("button", {
          type: "button", id: `role-${user.id}`, "aria-label": `${t("change_role")} ${user.name}`,
          onclick: () => changeRole(user, STORE_ROLES.includes(user.role) ? STORE_ROLES : PLATFORM_ROLES, reload),
        }, t("change_role")) : null,
        // A staff member's profile for the tills alone has no address to mail a link to.
        user.email ? h("button", {
          type: "button", id: `reset-${user.id}`, "aria-label": `${t("send_reset")} ${user.name}`,
          onclick: (event) => sendReset(event.currentTarget, user),
        }, t("send_reset")) : null)] : null,
    ].filter(Boolean), users);
  }

  async function change(button, user, changes, done) {
    const body = { ...changes, expected_version: user.version };
    const saved = await busy(button, status, (key) => call("PATCH", `/v1/users/${user.id}`, { body, idempotencyKey: key(body) }));
    if (saved) { toast(done); reload(); }
  }

  async function sendReset(button, user) {
    // The same anonymous request a user makes from the sign-in form: the link goes to their address.
    const sent = await busy(button, status, () =>
      call("POST", "/v1/auth/password-reset", { body: { email: user.email }, anonymous: true }));
    if (sent !== undefined) toast(t("reset_sent", [user.email]));
  }

  await reload();
}

function newUser(roles, store, done) {
  const { box, body } = dialog(t("new_user"));
  const place = h("div");
  const save = h("button", { type: "submit", class: "primary", id: "save-user" }, t("create"));
  const staffRole = field("staff_role", t("staff_role"), {
    options: STAFF_ROLES.map((role) => [role, t(`staff_role_${role}`)]), value: "other",
  });
  const role = field("role", t("role"), { options: roles.map((name) => [name, t(`role_${name}`)]) });
  const email = field("email", t("email"), { type: "email", required: true });
  const password = field("password", t("first_password"), { type: "password", autocomplete: "new-password", required: true, minlength: 8 });
  const tillOnly = h("p", { class: "muted wide", id: "till-only-hint" }, t("till_only_hint"));
  const form = h("form", { class: "fields", id: "user-form" },
    field("name", t("name"), { required: true }), email,
    field("phone", t("phone"), { type: "tel" }), role, staffRole,
    field("locale", t("language"), { options: LANGUAGES }),
    password, tillOnly,
    h("div", { class: "actions" }, save), place);
  // A staff member may have neither an e-mail nor a password: a profile for the tills, signed in
  // with a PIN alone (the server says which of the two is missing otherwise).
  const showStaffRole = () => {
    const staff = role.querySelector("select").value === "staff";
    staffRole.hidden = !staff;
    tillOnly.hidden = !staff;
    email.querySelector("input").required = !staff;
    password.querySelector("input").required = !staff;
  };
  role.querySelector("select").addEventListener("change", showStaffRole);
  showStaffRole();
  submits(form, save, place, (draft, key) => {
    if (draft.role !== "staff") delete draft.staff_role;
    if (store) draft.store_id = store.id;
    return call("POST", "/v1/users", { body: draft, idempotencyKey: key(draft) });
  }, (made) => {
    toast(t("user_created", [made.name]));
    box.close();
    done();
  });
  fill(body, form);
}

function changeRole(user, roles, done) {
  const { box, body } = dialog(`${t("change_role")} — ${user.name}`);
  const place = h("div");
  const save = h("button", { type: "submit", class: "primary", id: "save-role" }, t("save"));
  const form = h("form", { class: "fields", id: "role-form" },
    field("role", t("role"), { options: roles.map((name) => [name, t(`role_${name}`)]), value: user.role }),
    h("p", { class: "muted wide" }, t("role_change_ends_sessions")),
    h("div", { class: "actions" }, save), place);
  submits(form, save, place, (draft, key) => {
    const changes = { role: draft.role, expected_version: user.version };
    return call("PATCH", `/v1/users/${user.id}`, { body: changes, idempotencyKey: key(changes) });
  }, (saved) => {
    toast(t("role_changed", [saved.name, t(`role_${saved.role}`)]));
    box.close();
    done();
  });
  fill(body, form);
}
