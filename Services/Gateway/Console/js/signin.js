// The sign-in form.
import { signIn } from "./api.js";
import { t } from "./i18n.js";
import { busy, field, fill, h } from "./ui.js";

export function showSignIn(main, onSignedIn) {
  const place = h("div");
  const button = h("button", { type: "submit", class: "primary", id: "sign-in" }, t("sign_in"));
  const form = h("form", { class: "stacked panel signin", "aria-labelledby": "signin-title" },
    h("h1", { id: "signin-title" }, t("sign_in_title")),
    field("email", t("email"), { type: "email", autocomplete: "email", required: true }),
    field("password", t("password"), { type: "password", autocomplete: "current-password", required: true }),
    button, place);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const user = await busy(button, place, () => signIn(form.email.value.trim(), form.password.value), form);
    if (user) await onSignedIn();
  });
  fill(main, form);
  form.email.focus();
}
