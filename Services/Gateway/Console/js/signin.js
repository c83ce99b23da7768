// The sign-in form, the request for a password-reset e-mail, and the pages the e-mails link to.
import { call, signIn } from "./api.js";
import { t } from "./i18n.js";
import { field, fill, h, submits } from "./ui.js";

export function showSignIn(main, onSignedIn, notice = null) {
  const place = h("div");
  const button = h("button", { type: "submit", class: "primary", id: "sign-in" }, t("sign_in"));
  const forgot = h("button", { type: "button", class: "link", id: "forgot-password" }, t("forgot_password"));
  const form = h("form", { class: "stacked panel signin", "aria-labelledby": "signin-title" },
    h("h1", { id: "signin-title" }, t("sign_in_title")),
    notice ? h("p", { class: "notice", role: "status", id: "signin-notice" }, notice) : null,
    field("email", t("email"), { type: "email", autocomplete: "email", required: true }),
    field("password", t("password"), { type: "password", autocomplete: "current-password", required: true }),
    button, forgot, place);
  submits(form, button, place, (entered) => signIn((entered.email ?? "").trim(), entered.password ?? ""), onSignedIn);
  forgot.addEventListener("click", () => showForgotten(main, onSignedIn, form.email.value));
  fill(main, form);
  form.email.focus();
}

/** Asks for a reset e-mail; the answer is the same whether or not the address has an account. */
function showForgotten(main, onSignedIn, email) {
  const place = h("div");
  const button = h("button", { type: "submit", class: "primary", id: "send-reset" }, t("send_reset_link"));
  const back = h("button", { type: "button", class: "link", id: "back-to-sign-in" }, t("back_to_sign_in"));
  const form = h("form", { class: "stacked panel signin", "aria-labelledby": "forgot-title" },
    h("h1", { id: "forgot-title" }, t("forgot_password_title")),
    h("p", {}, t("forgot_password_hint")),
    field("email", t("email"), { type: "email", autocomplete: "email", required: true, value: email }),
    button, back, place);
  submits(form, button, place,
    (entered) => call("POST", "/v1/auth/password-reset", { body: { email: (entered.email ?? "").trim() }, anonymous: true }),
    () => showSignIn(main, onSignedIn, t("reset_link_sent")));
  back.addEventListener("click", () => showSignIn(main, onSignedIn));
  fill(main, form);
  form.email.focus();
}

/** The page a reset e-mail links to (`#/reset-password/<token>`): a new password for the token. */
export function showPasswordReset(main, token, onSignedIn) {
  const place = h("div");
  const button = h("button", { type: "submit", class: "primary", id: "set-password" }, t("set_password"));
  const form = h("form", { class: "stacked panel signin", "aria-labelledby": "reset-title" },
    h("h1", { id: "reset-title" }, t("reset_password_title")),
    field("password", t("new_password"), {
      type: "password", autocomplete: "new-password", required: true, minlength: 8, maxlength: 72,
    }),
    button, place);
  submits(form, button, place,
    (entered) => call("POST", "/v1/auth/password-reset/confirm", {
      body: { token, password: entered.password ?? "" }, anonymous: true,
    }),
    () => {
      history.replaceState(null, "", location.pathname);
      showSignIn(main, onSignedIn, t("password_set"));
    });
  fill(main, form);
  form.password.focus();
}

/** The page a verification e-mail links to (`#/verify-email/<token>`): the address marked
 * verified, then the sign-in form telling whether it was. */
export async function showEmailVerification(main, token, onSignedIn) {
  let notice = t("email_verified");
  try {
    await call("POST", "/v1/auth/verify-email", { body: { token }, anonymous: true });
  } catch (error) {
    notice = `${t("verification_failed")} ${error.message ?? ""}`.trim();
  }
  history.replaceState(null, "", location.pathname);
  showSignIn(main, onSignedIn, notice);
}
