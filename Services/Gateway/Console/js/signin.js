// The sign-in form.
import { signIn } from "./api.js";
import { t } from "./i18n.js";
import { field, fill, h, submits } from "./ui.js";

export function showSignIn(main, onSignedIn) {
  const place = h("div");
  const button = h("button", { type: "submit", class: "primary", id: "sign-in" }, t("sign_in"));
  const form = h("form", { class: "stacked panel signin", "aria-labelledby": "signin-title" },
    h("h1", { id: "signin-title" }, t("sign_in_title")),
    field("email", t("email"), { type: "email", autocomplete: "email", required: true }),
    field("password", t("password"), { type: "password", autocomplete: "current-password", required: true }),
    button, place);
  submits(form, button, place, (entered) => signIn((entered.email ?? "").trim(), entered.password ?? ""), onSignedIn);
  fill(main, form);
  form.email.focus();
}
