// The public API, as any client calls it: the access token in memory only, the refresh token in
// sessionStorage (gone with the tab), a refresh when the access token has expired, and every
// error as the server wrote it.
import { language } from "./i18n.js";

const REFRESH_KEY = "orderly.refresh_token";
let access = null;
let user = null;
let refreshing = null;

/** An error answer: its status, the server's message and per-field details. */
export class ApiError extends Error {
  constructor(status, body) {
    const error = body?.error ?? {};
    super(error.message || `HTTP ${status}`);
    this.status = status;
    this.details = error.details ?? {};
  }
}

export function currentUser() { return user; }
export function setCurrentUser(next) { user = next; }

function remember(pair) {
  access = pair.access_token;
  user = pair.user;
  sessionStorage.setItem(REFRESH_KEY, pair.refresh_token);
}

export async function signIn(email, password) {
  remember(await call("POST", "/v1/auth/login", { body: { email, password }, anonymous: true }));
  return user;
}

/** Signs in again from the tab's refresh token, if it has one; false when it cannot. */
export async function restore() {
  if (!sessionStorage.getItem(REFRESH_KEY)) return false;
  try {
    await refresh();
    return true;
  } catch {
    sessionStorage.removeItem(REFRESH_KEY);
    return false;
  }
}

async function refresh() {
  // One refresh at a time: a refresh token is spent once, and a second use would end the session.
  refreshing ??= (async () => {
    const token = sessionStorage.getItem(REFRESH_KEY);
    try {
      if (!token) throw new ApiError(401, { error: { message: "Signed out." } });
      remember(await call("POST", "/v1/auth/refresh", { body: { refresh_token: token }, anonymous: true }));
    } catch (error) {
      // The session ended (signed out elsewhere, a new password, a reused token): sign in again.
      if (error instanceof ApiError && error.status === 401) {
        sessionStorage.removeItem(REFRESH_KEY);
        access = null;
        window.dispatchEvent(new Event("orderly:signed-out"));
      }
      throw error;
    }
  })().finally(() => { refreshing = null; });
  return refreshing;
}

export async function signOut() {
  const token = sessionStorage.getItem(REFRESH_KEY);
  sessionStorage.removeItem(REFRESH_KEY);
  access = null;
  user = null;
  if (token) await call("POST", "/v1/auth/logout", { body: { refresh_token: token }, anonymous: true }).catch(() => {});
}

/** A query string from an object, leaving out empty values. */
export function query(parameters) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(parameters)) {
    if (value !== undefined && value !== null && value !== "") search.set(name, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

/**
 * Calls the API and answers its JSON (null for 204), or its text with `text: true`. Writes carry
 * an `Idempotency-Key`: `idempotencyKey`, the submission's (`busy`), so that a submission sent
 * again after a failure is recorded once; a fresh one when none is given. A retry after a
 * refreshed session sends the same.
 */
export async function call(method, path, {
  body, anonymous = false, retried = false, text: plain = false, idempotencyKey = crypto.randomUUID(),
} = {}) {
  const headers = { Accept: plain ? "text/plain" : "application/json", "Accept-Language": language() };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (!anonymous && access) headers.Authorization = `Bearer ${access}`;
  if ((method === "POST" || method === "PATCH") && !anonymous) headers["Idempotency-Key"] = idempotencyKey;
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (response.status === 401 && !anonymous && !retried) {
    await refresh();
    return call(method, path, { body, retried: true, text: plain, idempotencyKey });
  }
  const text = await response.text();
  if (response.ok && plain) return text;
  const json = text ? parseJSON(text) : null;
  if (!response.ok) throw new ApiError(response.status, json);
  return json;
}

function parseJSON(text) {
  try { return JSON.parse(text); } catch { return { error: { message: text.slice(0, 200) } }; }
}

/** Every page of a list, following `next_cursor` to its end: for what the console must hold whole (the bar's stores). */
export async function all(path, parameters = {}) {
  const items = [];
  let cursor = null;
  do {
    const page = await call("GET", path + query({ ...parameters, limit: 200, cursor }));
    items.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  return items;
}

/**
 * The caller's notifications as they are stored: a `text/event-stream` read through `fetch`
 * (an `EventSource` cannot send the token), reconnecting after the last id it received. Calls
 * `onNotification` with each; stops when `signal` aborts.
 */
export function followNotifications(onNotification, signal) {
  return followStream("/v1/notifications/stream", async () => ({ after: await latestSeq() }), "notification",
    onNotification, signal);
}

/**
 * A store's activity as it is kept, read as `followNotifications` reads the caller's. Opens after
 * `after` (the `next_cursor` of the entries already shown), or after the newest entry when none
 * is given. Calls `onEntry` with each; stops when `signal` aborts, or when the caller may not
 * follow the store (404).
 */
export function followActivity(storeId, onEntry, signal, after = null) {
  return followStream(`/v1/stores/${storeId}/activity/stream`, async () => {
    if (after === null) {
      let cursor = 0;
      for (;;) {
        const page = await call("GET", `/v1/stores/${storeId}/activity` + query({ after: cursor, limit: 200 }));
        cursor = page.next_cursor;
        if (!page.has_more) break;
      }
      after = cursor;
    }
    return { after };
  }, "activity", onEntry, signal);
}

/**
 * The events named `name` of the stream at `path`, each's data given to `onEvent`: opened with
 * the query `opening()` answers, then resumed after the last id received (`Last-Event-ID`), two
 * seconds after a break. Stops when `signal` aborts or when the stream is refused (403, 404).
 */
async function followStream(path, opening, name, onEvent, signal) {
  let last = null;
  while (!signal.aborted) {
    try {
      const headers = { Accept: "text/event-stream", Authorization: `Bearer ${access}` };
      if (last !== null) headers["Last-Event-ID"] = String(last);
      const response = await fetch(path + (last === null ? query(await opening()) : ""), { headers, signal });
      if (response.status === 401) { await refresh(); continue; }
      if (response.status === 403 || response.status === 404) return;
      if (!response.ok || !response.body) throw new ApiError(response.status, null);
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const event = parseEvent(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          if (event?.event === name) {
            last = event.id;
            onEvent(JSON.parse(event.data));
          }
        }
      }
    } catch (error) {
      if (signal.aborted) return;
    }
    await new Promise((resume) => setTimeout(resume, 2000));
  }
}

/**
 * The newest notification's `seq`, so that a stream opened now tells only what happens next (the
 * board has just read the orders as they are): the list's pages followed to their end.
 */
async function latestSeq() {
  let after = 0;
  for (;;) {
    const page = await call("GET", "/v1/notifications" + query({ after, limit: 200 }));
    after = page.next_cursor;
    if (!page.has_more) return after;
  }
}

function parseEvent(text) {
  const event = { event: "message", data: "", id: null };
  for (const line of text.split("\n")) {
    if (!line || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "data") event.data += (event.data ? "\n" : "") + value;
    else if (field === "event") event.event = value;
    else if (field === "id") event.id = value;
  }
  return event;
}
