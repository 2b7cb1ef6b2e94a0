/* Shared by the learner and reviewer pages: sign-in (the local stand-in token, or OAuth 2
   authorization code + PKCE), API calls, and errors in words. The token is kept in this tab
   (sessionStorage), sent only in the Authorization header of calls to this same origin, and
   never written to the console. */
"use strict";

const Slea = (() => {
  const TOKEN_KEY = "slea.token";
  const USERS_KEY = "slea.localUsers"; // name -> subject, so a name signs in as the same learner again
  const $ = (selector, root = document) => root.querySelector(selector);
  // A page that loads i18n.js (the learner page) speaks its learner's language; another speaks English.
  // (A top-level const of another script is a global binding, not a property of globalThis.)
  const say = (key, vars, english) => (typeof SleaI18n !== "undefined" ? SleaI18n.t(key, vars) : english);

  function el(tag, attributes = {}, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes)) {
      if (value === false || value === null || value === undefined) continue;
      if (name === "text") node.textContent = value;
      else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value === true ? "" : value);
    }
    for (const child of children.flat()) {
      if (child !== null && child !== undefined && child !== false) {
        node.append(child instanceof Node ? child : String(child));
      }
    }
    return node;
  }

  function show(id) {
    for (const section of document.querySelectorAll("main > section")) section.hidden = section.id !== id;
    const heading = $(`#${id} h2`);
    if (heading) {
      heading.setAttribute("tabindex", "-1");
      heading.focus(); // keyboard and screen-reader users land on the new screen
    }
  }

  // ------------------------------------------------------------------ tokens
  const b64url = (bytes) =>
    btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  const utf8 = (text) => new TextEncoder().encode(text);

  function claims(token = sessionStorage.getItem(TOKEN_KEY)) {
    if (!token || token.split(".").length !== 3) return null;
    try {
      const payload = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
      const bytes = Uint8Array.from(atob(payload), (c) => c.charCodeAt(0));
      return JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      return null;
    }
  }

  function signedIn() {
    const current = claims();
    if (current && current.exp && current.exp * 1000 < Date.now()) {
      sessionStorage.removeItem(TOKEN_KEY);
      return null;
    }
    return current;
  }

  function uuid() {
    if (crypto.randomUUID) return crypto.randomUUID();
    const b = crypto.getRandomValues(new Uint8Array(16));
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }

  /* Local only: the unsigned JWT slea_local.http reads in place of API Gateway's authorizer. */
  function signInLocally(name, reviewer, subject = null) {
    const users = JSON.parse(localStorage.getItem(USERS_KEY) || "{}");
    if (!subject) {
      users[name] = users[name] || uuid(); // sessions need a UUID subject
      localStorage.setItem(USERS_KEY, JSON.stringify(users));
    }
    const body = { sub: subject || users[name], name };
    if (reviewer) body["cognito:groups"] = ["reviewers"];
    const token = [{ alg: "none", typ: "JWT" }, body].map((part) => b64url(utf8(JSON.stringify(part))));
    sessionStorage.setItem(TOKEN_KEY, `${token.join(".")}.`);
  }

  const redirectUri = () => location.origin + location.pathname;

  async function startOAuth(config) {
    const verifier = b64url(crypto.getRandomValues(new Uint8Array(32)));
    const state = b64url(crypto.getRandomValues(new Uint8Array(16)));
    const challenge = b64url(new Uint8Array(await crypto.subtle.digest("SHA-256", utf8(verifier))));
    sessionStorage.setItem("slea.pkce", JSON.stringify({ verifier, state }));
    const query = new URLSearchParams({
      response_type: "code",
      client_id: config.client_id,
      redirect_uri: redirectUri(),
      scope: config.scope,
      state,
      code_challenge: challenge,
      code_challenge_method: "S256",
    });
    location.assign(`${config.authorize_url}?${query}`);
  }

  /* Back from the identity provider with ?code=...&state=...: exchange the code for tokens. */
  async function finishOAuth(config) {
    const query = new URLSearchParams(location.search);
    if (!query.has("code") && !query.has("error")) return;
    history.replaceState(null, "", redirectUri()); // the code is single-use: off the address bar
    const pending = JSON.parse(sessionStorage.getItem("slea.pkce") || "null");
    sessionStorage.removeItem("slea.pkce");
    if (query.has("error")) {
      const reason = query.get("error_description") || query.get("error");
      throw new Error(say("signin.refused", { reason }, `Sign-in was refused: ${reason}`));
    }
    if (!pending || pending.state !== query.get("state")) {
      throw new Error(say("signin.unverified", {}, "Sign-in could not be verified; please sign in again."));
    }
    const response = await fetch(config.token_url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        client_id: config.client_id,
        code: query.get("code"),
        redirect_uri: redirectUri(),
        code_verifier: pending.verifier,
      }),
    });
    if (!response.ok) throw new Error(say("signin.failed", {}, "Sign-in failed at the identity provider; please try again."));
    const tokens = await response.json();
    // The ID token: the API's authorizer accepts it (its audience is this client) and it names
    // the person (e-mail, name), where Cognito's access token carries only an opaque user name.
    sessionStorage.setItem(TOKEN_KEY, tokens.id_token || tokens.access_token);
  }

  function signOut() {
    sessionStorage.removeItem(TOKEN_KEY);
    location.assign(redirectUri());
  }

  // ------------------------------------------------------------------ the API
  class ApiError extends Error {
    constructor(status, body) {
      super(describe(status, body));
      this.status = status;
      this.code = body && body.error_code;
    }
  }

  /* The ErrorResponse shape {error, error_code, detail}, in words a learner can act on. */
  function describe(status, body) {
    let said = body && (body.error || body.message);
    const code = body && body.error_code;
    const or = (key, english) => said || say(key, {}, english);
    if (status === 401) return say("error.expired", {}, "Your sign-in has expired or is missing. Please sign in again.");
    if (status === 429 && code === "QUOTA_EXCEEDED") return say("error.quota", { said }, `Daily limit reached: ${said}.`);
    if (status === 429) return say("error.busy", {}, "Too many requests right now. Please wait a moment and try again.");
    if (status === 409) return say("error.done", { said: or("error.done_default", "this was already submitted.") }, `Already done: ${said || "this was already submitted."}`);
    if (status === 403) return say("error.forbidden", { said: or("error.forbidden_default", "your account may not do this.") }, `Not allowed: ${said || "your account may not do this."}`);
    if (status === 404) return say("error.not_found", { said: or("error.not_found_default", "it may have been removed.") }, `Not found: ${said || "it may have been removed."}`);
    if (status === 422 && /^user_answer: must contain a visible/.test(said || "")) said = null;
    if (status === 422 && !said && code === "VALIDATION_ERROR") return say("error.input_blank", {}, "Please check your input: your answer has no visible characters.");
    if (status === 422) return say("error.input", { said: or("error.input_default", "it was not accepted.") }, `Please check your input: ${said || "it was not accepted."}`);
    if (status === 503 || status === 502 || status === 504) return say("error.unavailable", {}, "The service is busy right now. Please try again in a moment.");
    return said ? say("error.other", { said }, `Something went wrong: ${said}`) : say("error.status", { status }, `Something went wrong (HTTP ${status}). Please try again.`);
  }

  async function api(method, path, body) {
    const headers = { authorization: `Bearer ${sessionStorage.getItem(TOKEN_KEY) || ""}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    let response;
    try {
      response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch {
      throw new ApiError(0, { error: say("error.offline", {}, "the server could not be reached; check your connection") });
    }
    const text = await response.text();
    let parsed = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = { error: text.slice(0, 200) };
    }
    if (!response.ok) throw new ApiError(response.status, parsed);
    return parsed;
  }

  function reportError(error, region = $("#error")) {
    region.textContent = error instanceof Error ? error.message : String(error);
    region.hidden = false;
  }

  function clearError(region = $("#error")) {
    region.textContent = "";
    region.hidden = true;
  }

  /* The local server's seeded learners (GET /config.json, local mode only), offered beside a new
     learner by name, on a page that has the picker (the learner page). */
  function offerLearners(learners) {
    const picker = $("#signin-as");
    if (!picker || !learners.length) return;
    for (const learner of learners) {
      const language = say(`language.${learner.language}`, {}, learner.language);
      const text = say("signin.as_seeded", { role: learner.job_role, language, id: learner.user_id.slice(0, 8) }, "");
      picker.append(el("option", { value: learner.user_id, "data-language": learner.language, text }));
    }
    $("#signin-as-field").hidden = false;
    picker.addEventListener("change", () => {
      $("#signin-name-field").hidden = Boolean(picker.value);
      $("#signin-name").required = !picker.value;
    });
  }

  /* Whatever the page needs before it can call the API: the sign-in screen or the signed-in user. */
  async function boot(onSignedIn) {
    $("#signout").addEventListener("click", signOut);
    let config = { mode: "local" };
    try {
      config = await (await fetch("/config.json")).json();
      if (config.mode === "oauth") await finishOAuth(config);
    } catch (error) {
      reportError(error);
    }
    const user = signedIn();
    if (user) {
      const name = user.name || user.email || user.username || user.sub;
      $("#who").textContent = say("signed_in_as", { name }, `Signed in as ${name}`);
      $("#who").dataset.name = name; // for a page that changes its language later
      $("#signout").hidden = false;
      return onSignedIn(user);
    }
    $("#local-signin").hidden = config.mode !== "local";
    $("#oauth-signin").hidden = config.mode === "local";
    offerLearners(config.learners || []);
    $("#local-signin").addEventListener("submit", (event) => {
      event.preventDefault();
      const chosen = $("#signin-as") && $("#signin-as").value;
      const seeded = (config.learners || []).find((learner) => learner.user_id === chosen);
      const name = seeded ? seeded.job_role : $("#signin-name").value.trim();
      if (!name) return reportError(say("signin.need_name", {}, "Please enter your name."));
      signInLocally(name, $("#signin-reviewer").checked, seeded ? seeded.user_id : null);
      location.reload();
    });
    $("#oauth-signin").addEventListener("click", () => startOAuth(config).catch(reportError));
    show("signin");
  }

  return { $, el, show, api, ApiError, boot, reportError, clearError, claims: signedIn };
})();
