// The signed-in user's profile: name, phone and language, saved to their account.
import { call, setCurrentUser } from "./api.js";
import { setLanguage, t } from "./i18n.js";
import { changedFrom, field, fill, h, submits, toast } from "./ui.js";

export async function show(main, context) {
  const user = context.user;
  const place = h("div");
  const save = h("button", { type: "submit", class: "primary", id: "save-profile" }, t("save"));
  const form = h("form", { class: "fields panel", id: "profile-form" },
    field("name", t("name"), { value: user.name, required: true }),
    field("phone", t("phone"), { type: "tel", value: user.phone }),
    field("locale", t("language"), { options: [["en", "English"], ["he", "עברית"], ["ar", "العربية"]], value: user.locale.slice(0, 2) }),
    h("div", { class: "actions" }, save), place);
  submits(form, save, place, (entered, key) => {
    const changed = changedFrom(entered, user);
    return call("PATCH", `/v1/users/${user.id}`, { body: changed, idempotencyKey: key(changed) });
  }, (saved) => {
    setCurrentUser(saved);
    context.user = saved;
    setLanguage(saved.locale.slice(0, 2));
    toast(t("saved", [saved.name]));
    window.dispatchEvent(new Event("orderly:language"));
  });
  fill(main, h("h1", {}, t("screen_profile")),
    h("p", {}, [user.email, t(`role_${user.role}`)].filter(Boolean).join(" · ")), form);
}
